/*
 * Boot self-tests (test=all or test=NAME on the command line, or the
 * shell's `test`). Each prints "PASS name" or "FAIL name: why".
 */
#ifndef RUNQ_SELFTEST_H
#define RUNQ_SELFTEST_H
#include "../lib/types.h"

struct selftest {
    const char *name;
    /* Fills why (a short reason) and returns false on failure. */
    bool (*run)(char *why, size_t why_size);
};

/* Runs all tests (name "all") or the one named; true if all ran passed. */
bool selftest_run(const char *name);
void selftest_list(void);

#endif
