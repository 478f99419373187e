/*
 * TestRrProbe: the old round robin, faithfully slow. A woken task waits a
 * tick behind every spinner ahead of it: the reschedule IPI takes the first
 * task in the list, not the woken one. Behind two spinners the median wait
 * must be about one tick (0.5..1.5), behind four about three (2..4): the
 * seed measured 8 ms and 33 ms at 100 Hz. Build with BUG=rr_wake_first (a
 * woken task joins at the head) to see it fail. Skipped under other
 * policies.
 */
#include "selftest.h"
#include "../lib/printf.h"
#include "../sched/probe.h"
#include "../sched/sched.h"
#include "../lib/string.h"

#define SAMPLES 40

static bool check(unsigned spinners, u64 lo_half_ticks, u64 hi_half_ticks, char *why, size_t size)
{
    struct probe_result r;
    if (!probe_run(spinners, SAMPLES, &r)) {
        snprintf(why, size, "probe %u did not complete", spinners);
        return false;
    }
    kprintf("  TestRrProbe: spinners=%u wake_p50_us=%lu wake_p99_us=%lu tick_us=%lu\n", spinners, r.p50_ns / 1000,
            r.p99_ns / 1000, sched_tick_ns / 1000);
    u64 lo = lo_half_ticks * sched_tick_ns / 2, hi = hi_half_ticks * sched_tick_ns / 2;
    if (r.p50_ns < lo || r.p50_ns > hi) {
        snprintf(why, size, "behind %u spinners the median wake took %lu us, expected %lu..%lu us", spinners,
                 r.p50_ns / 1000, lo / 1000, hi / 1000);
        return false;
    }
    return true;
}

bool test_rr_probe(char *why, size_t size)
{
    if (strcmp(sched_policy_current->name, "rr") != 0) {
        kprintf("  TestRrProbe: skipped under policy %s\n", sched_policy_current->name);
        return true;
    }
    return check(2, 1, 3, why, size) && check(4, 4, 8, why, size);
}
