#include "selftest.h"
#include "../lib/printf.h"
#include "../lib/string.h"
#include "../arch/x86_64/cpu.h"
#include "../sched/sched.h"


static const struct selftest tests[] = {
    { "TestIdleTakesTurns", test_idle_takes_turns },
    { "TestSleepAccuracy", test_sleep_accuracy },
    { "TestWakeStorm", test_wake_storm },
    { "TestPipeRing", test_pipe_ring },
    { "TestRrProbe", test_rr_probe },
    { "TestEevdf", test_eevdf },
    { "TestHrtick", test_hrtick },
    { "TestRtPreempt", test_rt_preempt },
    { "TestRtThrottle", test_rt_throttle },
    { "TestCrc32c", test_crc32c },
};

static bool skipped; /* the running test called selftest_skip */

u64 selftest_xorshift64(u64 *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

void selftest_yielder_main(void *arg)
{
    const struct selftest_yielder *y = arg;
    while (!*y->done) {
        task_yield();
        cpu_relax(); /* let other vCPUs run under icount (see sched/probe.c) */
    }
    __atomic_sub_fetch(y->alive, 1, __ATOMIC_SEQ_CST);
}

bool selftest_skip(char *why, size_t why_size, const char *reason)
{
    snprintf(why, why_size, "%s", reason);
    skipped = true;
    return true;
}

void selftest_list(void)
{
    kprintf("tests:");
    for (size_t i = 0; i < ARRAY_SIZE(tests); i++)
        kprintf(" %s", tests[i].name);
    kprintf("\n");
}

bool selftest_run(const char *name)
{
    bool all = strcmp(name, "all") == 0, found = false, ok = true;
    for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
        if (!all && strcmp(name, tests[i].name) != 0)
            continue;
        found = true;
        char why[160] = "";
        skipped = false;
        bool passed = tests[i].run(why, sizeof why);
        if (passed && skipped) {
            kprintf("SKIP %s: %s\n", tests[i].name, why);
        } else if (passed) {
            kprintf("PASS %s\n", tests[i].name);
        } else {
            kprintf("FAIL %s: %s\n", tests[i].name, why);
            ok = false;
        }
    }
    if (!found) {
        kprintf("FAIL %s: no such test\n", name);
        selftest_list();
        return false;
    }
    return ok;
}
