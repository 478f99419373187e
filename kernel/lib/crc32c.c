/*
 * The tracer computes a CRC over every byte it sends. With the table that
 * is about six instructions a byte; under icount every instruction is
 * guest time, and this was most of the tracer's work, charged to whatever
 * the other vCPUs were timing (tests/kernel/bench_trace_overhead.sh). The crc32
 * instruction takes eight bytes at a time and computes exactly CRC-32C.
 * It works on general registers, so the kernel's no-SSE build can use it.
 */
#include "crc32c.h"
#include "../../trace/format.h"

static int hw = -1; /* -1: not asked yet; every CPU gets the same answer */

bool crc32c_hw(void)
{
    if (hw < 0) {
        u32 a = 1, b, c = 0, d;
        __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
        hw = (c >> 20) & 1; /* CPUID.1:ECX.SSE4_2 */
    }
    return hw;
}

u32 crc32c(const void *buf, size_t len)
{
    return crc32c_hw() ? trace_crc32c_x86(buf, len) : trace_crc32c(buf, len);
}
