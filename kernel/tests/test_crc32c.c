/*
 * TestCrc32c: the tracer's CRC (kernel/lib/crc32c.c) gives the check value,
 * and, where it uses the crc32 instruction, the same CRC as format.h's
 * table at every length and alignment up to a few hundred bytes. A wrong
 * CRC would make the host throw every packet away as corrupt.
 */
#include "selftest.h"
#include "../../trace/format.h"
#include "../lib/crc32c.h"
#include "../lib/printf.h"

bool test_crc32c(char *why, size_t size)
{
    static u8 buf[320];
    u32 x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (u8)(x >> 16);
    }
    u32 check = crc32c("123456789", 9);
    if (check != 0xE3069283u) {
        snprintf(why, size, "crc32c(\"123456789\") = %08x, want e3069283 (%s)", check,
                 crc32c_hw() ? "crc32 instruction" : "table");
        return false;
    }
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len + off <= sizeof buf; len++)
            if (crc32c(buf + off, len) != trace_crc32c(buf + off, len)) {
                snprintf(why, size, "offset %lu length %lu: %08x, the table says %08x", (unsigned long)off,
                         (unsigned long)len, crc32c(buf + off, len), trace_crc32c(buf + off, len));
                return false;
            }
    return true;
}
