/*
 * BUG_ON: an invariant that must hold. Code shared between the kernel and
 * host programs (the scheduling policies) states its invariants with it.
 *
 * In the kernel a failed BUG_ON panics: it prints the file, line and the
 * expression, the registers and a backtrace, and makes QEMU exit with the
 * panic status. On the host it is assert() that survives NDEBUG, so a
 * fuzzer or unit test stops on the first broken invariant.
 */
#ifndef RUNQ_BUG_H
#define RUNQ_BUG_H

#ifdef RUNQ_KERNEL
__attribute__((noreturn)) void bug_fail(const char *file, int line, const char *expr);
#else
#include <stdio.h>
#include <stdlib.h>
static inline __attribute__((noreturn)) void bug_fail(const char *file, int line, const char *expr)
{
    fprintf(stderr, "BUG at %s:%d: %s\n", file, line, expr);
    abort();
}
#endif

#define BUG_ON(cond)                                         \
    do {                                                     \
        if (__builtin_expect(!!(cond), 0))                   \
            bug_fail(__FILE__, __LINE__, #cond);             \
    } while (0)

#endif
