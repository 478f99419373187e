/*
 * Boot self-tests (test=all or test=NAME on the command line, or the
 * shell's `test`). Each prints "PASS name", "FAIL name: why", or, when it
 * cannot run here (the wrong policy, one CPU), "SKIP name: why": a test
 * that did not run never says PASS.
 */
#ifndef RUNQ_SELFTEST_H
#define RUNQ_SELFTEST_H
#include "../lib/types.h"

struct selftest {
    const char *name;
    /* Fills why (a short reason) and returns false on failure. */
    bool (*run)(char *why, size_t why_size);
};

/* The tests, one a file (test_NAME.c), run in the order of selftest.c's table. */
bool test_idle_takes_turns(char *why, size_t size);
bool test_sleep_accuracy(char *why, size_t size);
bool test_wake_storm(char *why, size_t size);
bool test_pipe_ring(char *why, size_t size);
bool test_rr_probe(char *why, size_t size);
bool test_eevdf(char *why, size_t size);
bool test_hrtick(char *why, size_t size);
bool test_rt_preempt(char *why, size_t size);
bool test_rt_throttle(char *why, size_t size);
bool test_crc32c(char *why, size_t size);

/* Helpers the ring tests share. A xorshift64 step (x never 0). */
u64 selftest_xorshift64(u64 *x);
/* A task that yields until *done, so its CPU's queue is never empty, then
 * decrements *alive. Create it with a struct selftest_yielder as arg. */
struct selftest_yielder {
    const volatile bool *done;
    int *alive;
};
void selftest_yielder_main(void *arg);

/* A test that cannot run here returns selftest_skip(why, size, reason):
 * the runner prints SKIP with the reason. Returns true. */
bool selftest_skip(char *why, size_t why_size, const char *reason);

/* Runs all tests (name "all") or the one named; true if none failed
 * (skips do not fail). */
bool selftest_run(const char *name);
void selftest_list(void);

#endif
