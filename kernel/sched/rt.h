/*
 * The real-time class: fixed priorities above the fair policy, as Linux's
 * SCHED_FIFO and SCHED_RR (kernel/sched/rt.c). Per-entity and per-queue
 * state; the class itself is rt.c, driven through the same ops table as
 * the fair policies (policy.h) by the class layer of decide.c, which asks
 * it before the fair policy.
 *
 * Priority 1..99, 99 highest (Linux's sched_priority; 0 means "not
 * real-time", a fair entity). A higher priority always runs before a
 * lower one. Among equal priorities:
 *  - FIFO: the one that became runnable first runs until it blocks,
 *    yields or a higher priority takes the CPU; a preempted one keeps its
 *    place at the head of its priority (Linux leaves it where it was);
 *  - RR: the same, but after a quantum of ticks (RT_RR_QUANTUM_NS, Linux's
 *    RR_TIMESLICE of 100 ms) it goes behind its equals, if it has any
 *    (task_tick_rt()).
 *
 * Budget (throttling): the class may use runtime_ns of every period; the
 * core starts periods (rt_new_period) and the class layer stops picking
 * RT entities once the budget is used while a fair entity is runnable.
 * docs/kernel.md says how this follows, and where it differs from, Linux
 * 6.18 (whose fair server plays this part).
 */
#ifndef RUNQ_SCHED_RT_H
#define RUNQ_SCHED_RT_H

#include <stdbool.h>
#include <stdint.h>

struct sched_queue;
struct sched_entity;

#define RT_PRIO_MAX 99
#define RT_FIFO 0
#define RT_RR 1
#define RT_RR_QUANTUM_NS 100000000ull /* Linux's RR_TIMESLICE: 100 ms */
#define RT_NO_BUDGET UINT64_MAX       /* runtime_ns: never throttled */

struct rt_entity {
    struct sched_entity *next, *prev; /* queue links; NULL when off the list */
    uint8_t prio;       /* 1..RT_PRIO_MAX; 0: a fair entity */
    uint8_t policy;     /* RT_FIFO or RT_RR */
    bool to_tail;       /* at its next put_back, behind its equals (quantum used, yielded) */
    int64_t rr_left_ns; /* RR: what is left of its quantum */
};

struct rt_queue {
    struct sched_entity *curr;        /* the RT entity on the CPU, or NULL */
    struct sched_entity *head, *tail; /* runnable, highest priority first, FIFO among equals */
    unsigned nr_queued;               /* on the list (curr excluded) */
    uint64_t runtime_ns;              /* budget a period, or RT_NO_BUDGET */
    uint64_t used_ns;                 /* run time charged this period */
    uint64_t nr_throttled;            /* times the budget ran out */
};

/* The budget: its value, whether it is used up, and a new period. */
void rt_set_runtime(struct sched_queue *q, uint64_t runtime_ns);
bool rt_budget_used(const struct sched_queue *q);
uint64_t rt_budget_left(const struct sched_queue *q);
void rt_new_period(struct sched_queue *q);

/* Makes se (on no queue) real-time at prio with policy, or fair (prio 0). */
void rt_set_class(struct sched_entity *se, unsigned prio, unsigned policy);

#endif
