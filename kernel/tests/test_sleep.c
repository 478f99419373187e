/*
 * TestSleepAccuracy: a sleep ends on time, because the one-shot timer is
 * armed for the head of the sleep list, not left to the next tick. Sleeps
 * of assorted lengths on an idle CPU must each end within 50 us of their
 * deadline. Build with BUG=sleep_at_tick (sleepers noticed only at tick
 * boundaries) to see it fail.
 */
#include "selftest.h"
#include "../arch/x86_64/clock.h"
#include "../lib/printf.h"
#include "../sched/sched.h"

#define LATE_LIMIT_NS (50 * NSEC_PER_USEC)

bool test_sleep_accuracy(char *why, size_t size)
{
    static const u64 lengths_us[] = { 100, 1000, 1700, 3300, 5000, 12345 };
    u64 worst = 0;
    for (unsigned i = 0; i < 6; i++) {
        u64 want = lengths_us[i] * NSEC_PER_USEC;
        u64 t0 = clock_ns();
        task_sleep_ns(want);
        u64 took = clock_ns() - t0;
        if (took < want) {
            snprintf(why, size, "a %lu us sleep ended early, after %lu us", lengths_us[i], took / 1000);
            return false;
        }
        if (took - want > worst)
            worst = took - want;
    }
    kprintf("  TestSleepAccuracy: worst lateness %lu us\n", worst / 1000);
    if (worst > LATE_LIMIT_NS) {
        snprintf(why, size, "a sleep ended %lu us late (limit %lu us)", worst / 1000, LATE_LIMIT_NS / 1000);
        return false;
    }
    return true;
}
