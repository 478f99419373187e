/*
 * Time. clock_ns() is monotonic nanoseconds since boot, from the TSC,
 * whose rate is measured once against the HPET. Under QEMU's icount the
 * TSC counts virtual time, so every reading is a function of the
 * instructions executed and runs are reproducible.
 */
#ifndef RUNQ_CLOCK_H
#define RUNQ_CLOCK_H
#include "../../lib/types.h"
#include "cpu.h"

/* Finds the HPET (ACPI base, or the usual 0xfed00000) and measures the
 * TSC against it. Boot CPU, before anything reads the clock. */
void clock_init(u64 hpet_base);
u64 clock_ns(void);
/* clock_ns() without the call, for the trace's emit points: a call and
 * the registers it makes them keep cost a record about 20 instructions,
 * and under icount instructions are guest time. */
extern u64 clock_tsc_mult, clock_tsc_base;
static inline u64 clock_ns_inline(void)
{
    return (u64)(((unsigned __int128)(rdtsc() - clock_tsc_base) * clock_tsc_mult) >> 32);
}
u64 clock_tsc_khz(void);

/* Busy-waits on the HPET; only for bring-up code that runs before the
 * scheduler (INIT-SIPI delays, calibration). */
void hpet_delay_ns(u64 ns);
u64 hpet_now_ns(void);

#endif
