/*
 * The tracer computes a CRC over every byte it sends. With the table that
 * is about six instructions a byte; under icount every instruction is
 * guest time, and this was most of the tracer's work, charged to whatever
 * the other vCPUs were timing (tests/bench_trace_overhead.sh). The crc32
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
    if (!crc32c_hw())
        return trace_crc32c(buf, len);
    const u8 *p = buf;
#ifdef RUNQ_BUG_CRC_SEED /* test-proving bug: TestCrc32c must fail */
    u64 crc = 0xfffffffeu;
#else
    u64 crc = 0xffffffffu;
#endif
    for (; len >= 8; p += 8, len -= 8) {
        u64 q;
        __builtin_memcpy(&q, p, 8);
        __asm__("crc32q %1, %0" : "+r"(crc) : "rm"(q));
    }
    u32 c = (u32)crc;
    for (; len; p++, len--)
        __asm__("crc32b %1, %0" : "+r"(c) : "rm"(*p));
    return ~c;
}
