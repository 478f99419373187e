/*
 * Nice value -> load weight, and the weight's fixed-point inverse.
 *
 * One table for the whole project: EEVDF charges virtual time with it and
 * the round robin shows it. The values are Linux's (sched_prio_to_weight
 * and sched_prio_to_wmult): 1024 at nice 0, each nice step about 1.25x the
 * next, so two CPU-bound entities one nice apart split a CPU about 55:45.
 */
#ifndef RUNQ_SCHED_WEIGHTS_H
#define RUNQ_SCHED_WEIGHTS_H

#include <stdint.h>

#define SCHED_WEIGHT_NICE_0 1024u
#define SCHED_WEIGHT_SHIFT  32 /* wmult = 2^32 / weight */

/* Indexed by nice + 20, nice -20..19. */
extern const uint32_t sched_weight_table[40];
/* 2^32 / weight, to within one unit: a division turned into a multiply. */
extern const uint32_t sched_wmult_table[40];

/* Caller passes nice in -20..19 (the policy BUG_ONs before it gets here). */
static inline uint32_t sched_nice_to_weight(int nice)
{
    return sched_weight_table[nice + 20];
}

static inline uint32_t sched_nice_to_wmult(int nice)
{
    return sched_wmult_table[nice + 20];
}

#endif
