/*
 * The random stream of runq's workload generators: xorshift64* (Vigna),
 * its state seeded through splitmix64, both fully specified, so a seed
 * names the same workload on every machine and libc. runq sim -s
 * (sim_gen.c) and the differential test's generator
 * (tests/policy/linux_ref_gen.c) draw from it; each keeps its own state and
 * its own way of turning a draw into a choice, so neither's workloads move
 * when the other's change.
 */
#ifndef RUNQ_ENGINE_SIM_RNG_H
#define RUNQ_ENGINE_SIM_RNG_H

#include <stdint.h>

/* A well-mixed 64-bit value from x (splitmix64's one step): a seed made a
 * starting state. It may be 0, which xorshift64* never leaves: the caller
 * makes it nonzero. */
static inline uint64_t sim_splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The next draw of the stream in *s (never 0). */
static inline uint64_t sim_xorshift64star(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

#endif
