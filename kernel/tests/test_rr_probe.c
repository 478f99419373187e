/*
 * TestRrProbe: the old round robin, faithfully slow. The reschedule IPI
 * takes the first task in the list, not the woken one, so behind N
 * spinners the woken task waits out the rest of the current tick and then
 * a whole tick for each of the N - 2 others ahead of it: (N - 1.5) ticks on
 * average, as the tick's phase is random against the wakeup. Behind two
 * the median must lie in 0.25..1.5 ticks, behind four in 2..3.5 ticks, and
 * the two must differ by at least 1.5 ticks (tick-bound growth). The seed
 * measured 8 ms and 33 ms at 100 Hz. Build with BUG=rr_wake_first (a woken
 * task joins at the head) to see it fail. Skipped under other policies.
 */
#include "selftest.h"
#include "../sched/cpus.h"
#include "../lib/printf.h"
#include "../sched/probe.h"
#include "../sched/sched.h"
#include "../lib/string.h"

#define SAMPLES 40

/* Bounds in quarter ticks. */
static bool check(unsigned spinners, u64 lo_q, u64 hi_q, u64 *p50, char *why, size_t size)
{
    struct probe_result r;
    if (!probe_run(spinners, SAMPLES, &r)) {
        snprintf(why, size, "probe %u did not complete", spinners);
        return false;
    }
    kprintf("  TestRrProbe: spinners=%u wake_p50_us=%lu wake_p99_us=%lu tick_us=%lu\n", spinners, r.p50_ns / 1000,
            r.p99_ns / 1000, sched_tick_ns / 1000);
    u64 lo = lo_q * sched_tick_ns / 4, hi = hi_q * sched_tick_ns / 4;
    *p50 = r.p50_ns;
    if (r.p50_ns < lo || r.p50_ns > hi) {
        snprintf(why, size, "behind %u spinners the median wake took %lu us, expected %lu..%lu us", spinners,
                 r.p50_ns / 1000, lo / 1000, hi / 1000);
        return false;
    }
    return true;
}

bool test_rr_probe(char *why, size_t size)
{
    if (strcmp(sched_policy_current->name, "rr") != 0)
        return selftest_skip(why, size, "needs policy rr");
    if (ncpus < 2)
        return selftest_skip(why, size, "needs two CPUs (the signaller would share the spinners' CPU)");
    u64 p2, p4;
    if (!check(2, 1, 6, &p2, why, size) || !check(4, 8, 14, &p4, why, size))
        return false;
    if (p4 < p2 + sched_tick_ns * 3 / 2) {
        snprintf(why, size, "the median grew only from %lu us to %lu us between 2 and 4 spinners", p2 / 1000,
                 p4 / 1000);
        return false;
    }
    return true;
}
