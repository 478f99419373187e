#include "clock.h"
#include "cpu.h"
#include "../../lib/printf.h"

static u64 hpet_base;
static u64 hpet_period_fs; /* femtoseconds per HPET count */
static u64 tsc_khz;
u64 clock_tsc_mult; /* ns = (tsc - clock_tsc_base) * clock_tsc_mult >> 32 */
u64 clock_tsc_base;

u64 hpet_now_ns(void)
{
    /* Split so that no product overflows 64 bits (and no 128-bit division
     * is needed): count * period_fs / 10^6. */
    u64 count = mmio_read64(hpet_base + 0xf0);
    return count / 1000000u * hpet_period_fs + count % 1000000u * hpet_period_fs / 1000000u;
}

void hpet_delay_ns(u64 ns)
{
    u64 end = hpet_now_ns() + ns;
    while (hpet_now_ns() < end)
        cpu_relax();
}

void clock_init(u64 base)
{
    hpet_base = base ? base : 0xfed00000;
    hpet_period_fs = mmio_read64(hpet_base) >> 32;
    mmio_write64(hpet_base + 0x10, mmio_read64(hpet_base + 0x10) | 1); /* enable counter */

    /* 10 ms against the HPET is long enough for a rate good to 0.01 %. */
    u64 h0 = hpet_now_ns(), t0 = rdtsc();
    while (hpet_now_ns() - h0 < 10 * NSEC_PER_MSEC)
        cpu_relax();
    u64 h1 = hpet_now_ns(), t1 = rdtsc();
    tsc_khz = (t1 - t0) * 1000000u / (h1 - h0);
    /* Round to a multiple of 1 MHz: under icount the TSC is exactly 1 GHz
     * and the measurement is off only by the loop's own granularity. */
    tsc_khz = (tsc_khz + 500) / 1000 * 1000;
    clock_tsc_mult = (1000000ull << 32) / tsc_khz;
    clock_tsc_base = rdtsc();
}

u64 clock_ns(void)
{
    return clock_ns_inline();
}

u64 clock_tsc_khz(void)
{
    return tsc_khz;
}
