/*
 * Policy rr: the old round robin, per-entity and per-queue state.
 * See rr.c for the policy and its flaws.
 */
#ifndef RUNQ_SCHED_RR_H
#define RUNQ_SCHED_RR_H

struct sched_entity;

#include <stdint.h>

struct rr_entity {
    struct sched_entity *next, *prev; /* run list links; NULL when off the list */
    uint64_t place;                   /* its place in turn order: the queue's
                                       * count of tail joins when it last joined
                                       * at the tail (RR_SLEEPERS_IN_PLACE) */
};

struct rr_queue {
    struct sched_entity *head, *tail; /* run list, in turn order */
    uint64_t places;                  /* the last place given (rr_entity.place) */
};

#endif
