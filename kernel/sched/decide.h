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
 *   2. next = the first class's pick (today one class, the fair policy:
 *      rr or eevdf; an RT class goes before it, see pick_next() in
 *      decide.c); NULL means nothing is runnable, and the caller runs its
 *      idle task;
 *   3. if next is not the current entity: put_back(q) the current one if
 *      it is still there (it was displaced), then take(q, next);
 *   4. the policy's own notes are collected and cleared: entities whose
 *      departure it finished by itself (q->departed) and the entity whose
 *      wakeup cut current's protected turn short (q->cut_short_by).
 */
#ifndef RUNQ_SCHED_DECIDE_H
#define RUNQ_SCHED_DECIDE_H

#include "policy.h"

/* What a decision did, for the caller to count and trace. */
struct sched_decision {
    struct sched_entity *prev; /* current when the decision began (the
                                * leaving entity, if any), or NULL */
    struct sched_entity *next; /* current now, or NULL: nothing runnable */
    bool displaced;            /* prev, still runnable, was put back */
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

#endif
