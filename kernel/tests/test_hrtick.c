/*
 * TestHrtick: EEVDF's one-shot slice timer is armed only while another
 * task waits. A spinner alone on its CPU must see no decisions at all in
 * 200 ms (its slice ends deciding nothing, so nothing is armed for it);
 * two spinners must switch at every slice end with HRTICK on (a 2.1 ms
 * slice: about 95 decisions in 200 ms), and only at ticks with it off
 * (250 Hz: about 50), as on the seed's Linux without a high-resolution
 * tick. Put back tests/bugs/eevdf/timer_not_armed_at_pick.patch (make prove-bugs)
 * to see it fail: armed by joins only, two spinners switch at ticks. Skipped
 * under other policies.
 */
#include "selftest.h"
#include "../sched/cpus.h"
#include "../lib/printf.h"
#include "../sched/eevdf_features.h"
#include "../sched/policy.h"
#include "../sched/probe.h"
#include "../sched/sched.h"

#define WINDOW_NS (200 * NSEC_PER_MSEC)

bool test_hrtick(char *why, size_t size)
{
    if (sched_policy_current != &eevdf_policy || ncpus < 2)
        return selftest_skip(why, size, "needs policy eevdf and two CPUs");
    static const int one[1] = { 0 }, two[2] = { 0, 0 };
    unsigned pm[2];
    u64 lone, on, off;
    bool was = eevdf_feature(EEVDF_F_HRTICK);
    eevdf_feature_set("HRTICK", true);
    bool ok = share_run_counted(one, 1, WINDOW_NS, pm, &lone) && share_run_counted(two, 2, WINDOW_NS, pm, &on);
    eevdf_feature_set("HRTICK", false);
    ok = ok && share_run_counted(two, 2, WINDOW_NS, pm, &off);
    eevdf_feature_set("HRTICK", was);
    if (!ok) {
        snprintf(why, size, "a spinner run did not complete");
        return false;
    }
    u64 slice = cpus[probe_cpu()].rq.q.ee.base_slice;
    u64 per_slice = WINDOW_NS / slice, per_tick = WINDOW_NS / sched_tick_ns;
    kprintf("  TestHrtick: decisions in 200 ms: lone=%lu pair_hrtick_on=%lu (slices: %lu) pair_hrtick_off=%lu "
            "(ticks: %lu)\n",
            lone, on, per_slice, off, per_tick);
    if (lone > 2) {
        snprintf(why, size, "a lone spinner saw %lu decisions in 200 ms (its slice timer fires for nothing)", lone);
        return false;
    }
    if (on < per_slice * 8 / 10) {
        snprintf(why, size, "with HRTICK on two spinners switched %lu times, expected about %lu (every slice)", on,
                 per_slice);
        return false;
    }
    if (off > per_tick * 12 / 10 || off * 3 > on * 2) {
        snprintf(why, size, "with HRTICK off two spinners switched %lu times, expected about %lu (at ticks)", off,
                 per_tick);
        return false;
    }
    return true;
}
