/*
 * Arithmetic on virtual times (V, vruntime, deadline) as the kernel does
 * it. They are u64 on the wire and may wrap (docs/trace-format.md), stored
 * as their int64 bit pattern (db/batch.h): so a difference is taken modulo
 * 2^64 and read as signed, and "before" is a negative difference, as in
 * Linux's entity_before() and vruntime_gt() (kernel/sched/fair.c). Plain
 * int64 subtraction would be undefined near the limits, where a wrapped
 * trace (or a hostile database) puts them.
 */
#ifndef RUNQ_DB_VTIME_H
#define RUNQ_DB_VTIME_H

#include <stdbool.h>
#include <stdint.h>

/* a - b, modulo 2^64, as signed. */
static inline int64_t vt_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* a + d, modulo 2^64. */
static inline int64_t vt_add(int64_t a, int64_t d)
{
    return (int64_t)((uint64_t)a + (uint64_t)d);
}

/* Is a before b (within half the circle)? */
static inline bool vt_before(int64_t a, int64_t b)
{
    return vt_sub(a, b) < 0;
}

#endif
