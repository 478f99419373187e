/*
 * Policy rr: the old round robin, per-entity and per-queue state.
 * See rr.c for the policy and its flaws.
 */
#ifndef RUNQ_SCHED_RR_H
#define RUNQ_SCHED_RR_H

struct sched_entity;

struct rr_entity {
    struct sched_entity *next, *prev; /* run list links; NULL when off the list */
};

struct rr_queue {
    struct sched_entity *head, *tail; /* run list, in turn order */
};

#endif
