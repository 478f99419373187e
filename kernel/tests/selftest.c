#include "selftest.h"
#include "../lib/printf.h"
#include "../lib/string.h"

bool test_idle_takes_turns(char *why, size_t size);
bool test_sleep_accuracy(char *why, size_t size);
bool test_wake_storm(char *why, size_t size);
bool test_rr_probe(char *why, size_t size);
bool test_eevdf(char *why, size_t size);
bool test_hrtick(char *why, size_t size);
bool test_crc32c(char *why, size_t size);

static const struct selftest tests[] = {
    { "TestIdleTakesTurns", test_idle_takes_turns },
    { "TestSleepAccuracy", test_sleep_accuracy },
    { "TestWakeStorm", test_wake_storm },
    { "TestRrProbe", test_rr_probe },
    { "TestEevdf", test_eevdf },
    { "TestHrtick", test_hrtick },
    { "TestCrc32c", test_crc32c },
};

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
        if (tests[i].run(why, sizeof why)) {
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
