/*
 * Marsaglia's xorshift64 (shifts 13, 7, 17): the made-up numbers of the
 * host unit tests and benches, the same for a seed on every machine. Each
 * caller keeps its own state and seed, so a test's draws do not depend on
 * another's.
 */
#ifndef RUNQ_TESTS_XORSHIFT_H
#define RUNQ_TESTS_XORSHIFT_H

#include <stdint.h>

/* The next number of the stream in *state (which must not start at 0). */
static inline uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
