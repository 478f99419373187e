/*
 * The one decision routine: the core's half of the policy contract
 * (policy.h), written once. The kernel's core (core.c), `runq sim`, the
 * trace generator, the unit tests, the fuzzer and the pick benchmark all
 * decide through sched_decide(), so what one of them shows is what the
 * others do.
 *
 * Like a policy, this file knows nothing of locks, CPUs, interrupts or
 * clocks, and includes only freestanding headers: the caller holds whatever
 * lock guards q, and does its own accounting and tracing from the
 * struct sched_decision it gets back.
 *
 * One decision, in the only order a policy accepts:
 *
 *   1. the leaving entity (the current one, blocking or exiting) leaves:
 *      leave(q, se, why); a policy may keep it queued (EEVDF's delayed
 *      dequeue), which the decision reports as leaver_kept;
 *   2. next = the first class's pick: the RT class (rt.h) first, then the
 *      fair policy P (rr or eevdf); NULL means nothing is runnable, and
 *      the caller runs its idle task. RT's pick is passed over while its
 *      budget is used up and the fair policy has an entity to run
 *      (throttling, rt.h);
 *   3. if next is not the running entity: its class puts it back if it is
 *      still there (it was displaced), then next's class takes next;
 *   4. the policy's own notes are collected and cleared: entities whose
 *      departure it finished by itself (q->departed) and the entity whose
 *      wakeup cut current's protected turn short (q->cut_short_by).
 */
#ifndef RUNQ_SCHED_DECIDE_H
#define RUNQ_SCHED_DECIDE_H

#include "policy.h"

/* What a decision did, for the caller to count and trace. */
struct sched_decision {
    struct sched_entity *prev; /* running when the decision began (the
                                * leaving entity, if any), or NULL */
    struct sched_entity *next; /* running now, or NULL: nothing runnable */
    bool displaced;            /* prev, still runnable, was put back */
    bool released;             /* displaced by a higher class: prev fair, next RT */
    bool leaver_kept;          /* the leaving entity stays queued (delayed) */
    bool cut_short;            /* next preempted only because its wakeup cut
                                * prev's protected turn short (PREEMPT_SHORT) */
    unsigned touched;          /* entities the picks examined (summed) */
    /* Entities whose departure the policy finished on its own since the
     * last decision (a pick, tick or wakeup reached them with their lag
     * paid), oldest first; beyond SCHED_DEPARTED_MAX only counted. */
    struct sched_entity *departed[SCHED_DEPARTED_MAX];
    unsigned nr_departed, departed_lost;
};

/*
 * Makes one decision on q with policy P; leaving is the current entity if
 * it blocks or exits (why says which), or NULL if the current entity (if
 * any) stays runnable. Fills in all of d. Returns d->next.
 */
struct sched_entity *sched_decide(const struct sched_policy *P, struct sched_queue *q,
                                  struct sched_entity *leaving, enum sched_leave_reason why,
                                  struct sched_decision *d);

/*
 * The same decision, taken again after sched_decide() found nothing
 * runnable (q has no current entity) and the caller waited for wakeups and
 * let them join: steps 2 to 4 only. touched and the departures add up in
 * d; prev (NULL), next, displaced and cut_short describe this call.
 */
struct sched_entity *sched_decide_again(const struct sched_policy *P, struct sched_queue *q,
                                        struct sched_decision *d);

/* ---- The class layer ----
 *
 * The core's every other call into the scheduler's classes goes through
 * these, which send it to the class of the entity concerned (the running
 * one, or se) and answer the questions that span the classes. P is the
 * fair policy; the RT class is rt_policy. */

/* The entity on the CPU, of either class, or NULL. */
static inline struct sched_entity *sched_running(const struct sched_queue *q)
{
    return q->rt.curr ? q->rt.curr : q->curr;
}

/* Runnable entities of both classes, the running one included. */
static inline unsigned sched_nr_runnable(const struct sched_queue *q)
{
    return q->nr_queued + q->rt.nr_queued + (sched_running(q) ? 1 : 0);
}

/* The class that keeps se: rt_policy or P. */
static inline const struct sched_policy *sched_class_of(const struct sched_policy *P, const struct sched_entity *se)
{
    return sched_is_rt(se) ? &rt_policy : P;
}

/* An empty queue, for both classes. */
void sched_queue_init(const struct sched_policy *P, struct sched_queue *q, const struct sched_params *p);
/* A new entity (class, nice and slice set), for both classes. */
void sched_init_entity(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se);
/* se (on no queue) moves to the RT class at prio 1..99 with RT_FIFO or
 * RT_RR, or (prio 0) to the fair one. */
void sched_set_class(const struct sched_policy *P, struct sched_entity *se, unsigned prio, unsigned policy);

void sched_join(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se,
                enum sched_join_reason why);
/* se, queued and not running, leaves (moving away, or the idle task). */
void sched_leave(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se,
                 enum sched_leave_reason why);
/* Fair work to run: a runnable fair entity, listed or current. */
static inline bool sched_fair_waiting(const struct sched_queue *q)
{
    return q->nr_queued > 0 || q->curr != NULL;
}

/* The fair class's load on q: its runnable entities' weights summed, the
 * running one included (EEVDF's sum, delayed entities in it until they
 * leave, as Linux keeps their load; the round robin's, 1024 each). No
 * PELT: the load now, not a decaying average. Read from another CPU
 * without q's lock, a hint (kernel/sched/balance.c). */
uint64_t sched_fair_load(const struct sched_policy *P, const struct sched_queue *q);

bool sched_charge_rt(struct sched_queue *q, uint64_t delta_ns);

/* The running entity ran delta_ns more: true if a decision is wanted
 * (its policy's rule, or RT's budget just ran out with fair work waiting).
 * Inline, as sched_timer_ns() below: both are on every wakeup's path, and
 * this layer's calls on top of the policy's cost a handoff 300 guest
 * instructions (tests/kernel/bench_handoff.sh). */
static inline bool sched_charge(const struct sched_policy *P, struct sched_queue *q, uint64_t delta_ns)
{
    if (q->rt.curr)
        return sched_charge_rt(q, delta_ns);
    return P->charge(q, delta_ns);
}
bool sched_tick(const struct sched_policy *P, struct sched_queue *q);
/* The running entity gives way (not libc's sched_yield(), hence the name). */
void sched_yield_curr(const struct sched_policy *P, struct sched_queue *q);
/* se just joined by waking or as new: true if it takes the CPU from the
 * running entity now. A higher class always does (Linux's wakeup_preempt()
 * in core.c), a lower never, except across a used-up RT budget; within a
 * class its policy answers. */
bool sched_wakeup_preempt_across(struct sched_queue *q, struct sched_entity *se);
static inline bool sched_wakeup_preempt(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se)
{
    if (q->rt.curr || sched_is_rt(se) || !q->curr)
        return sched_wakeup_preempt_across(q, se);
    return P->wakeup_preempt(q, se); /* fair and fair: the policy's answer */
}
/* Run time the running entity may still have before a decision is
 * wanted (policy.h's timer_ns; for RT: its budget, if fair work waits). */
static inline uint64_t sched_timer_ns(const struct sched_policy *P, struct sched_queue *q)
{
    if (q->rt.curr)
        return q->nr_queued > 0 ? rt_budget_left(q) : UINT64_MAX;
    return q->curr ? P->timer_ns(q) : UINT64_MAX;
}
void sched_describe(const struct sched_policy *P, const struct sched_queue *q, const struct sched_queue_view *qv,
                    const struct sched_entity *se, struct sched_entity_view *v);
/* Every queued entity but the running one: RT's (in priority order), then
 * the fair policy's, until fn returns false; false if fn stopped it. */
bool sched_for_each_queued(const struct sched_policy *P, const struct sched_queue *q, sched_visit_fn *fn, void *arg);
/* RT has runnable entities but is not picked: its budget is used up and
 * the fair policy has work. */
bool sched_rt_throttled(const struct sched_queue *q);

#endif
