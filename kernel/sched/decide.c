/*
 * sched_decide() and the class layer: see decide.h for the contract and
 * the order.
 */
#include "decide.h"
#include "bug.h"

bool sched_rt_throttled(const struct sched_queue *q)
{
    return (q->rt.curr || q->rt.nr_queued) && rt_budget_used(q) && sched_fair_waiting(q);
}

uint64_t sched_fair_load(const struct sched_policy *P, const struct sched_queue *q)
{
    if (P == &eevdf_policy)
        return __atomic_load_n(&q->ee.load, __ATOMIC_RELAXED);
    unsigned nr = __atomic_load_n(&q->nr_queued, __ATOMIC_RELAXED) + (__atomic_load_n(&q->curr, __ATOMIC_RELAXED) ? 1 : 0);
    return (uint64_t)nr * 1024;
}

/* The entity to run next: each class is asked in order and the first that
 * has one wins: RT, then the fair policy P; the idle task (the caller's,
 * when this returns NULL) after. RT with its budget used up comes after
 * the fair policy instead (Linux's fair server, in effect: docs/kernel.md). */
static struct sched_entity *pick_next(const struct sched_policy *P, struct sched_queue *q, unsigned *touched)
{
    struct sched_entity *rt = NULL, *fair;
    if (q->rt.curr || q->rt.head) { /* most decisions have no RT to ask about */
        rt = rt_policy.pick(q);
        *touched += q->touched;
    }
#ifdef RUNQ_BUG_RT_NO_THROTTLE
    /* Test-proving bug: the budget never stops RT. TestRtThrottle must fail. */
    if (rt)
        return rt;
#endif
    if (rt && !rt_budget_used(q))
        return rt;
    fair = P->pick(q);
    *touched += q->touched;
    return fair ? fair : rt;
}

/* Moves the policy's notes into d and clears them on q. */
static void collect_notes(struct sched_queue *q, struct sched_decision *d)
{
    for (unsigned i = 0; i < q->nr_departed; i++) {
        if (d->nr_departed < SCHED_DEPARTED_MAX)
            d->departed[d->nr_departed++] = q->departed[i];
        else
            d->departed_lost++;
    }
    d->departed_lost += q->departed_lost;
    q->nr_departed = q->departed_lost = 0;
    d->cut_short = d->next && d->next == q->cut_short_by;
    q->cut_short_by = NULL;
}

/* Steps 2 to 4 of a decision (decide.h). */
static struct sched_entity *pick_and_switch(const struct sched_policy *P, struct sched_queue *q,
                                            struct sched_decision *d)
{
    struct sched_entity *running = sched_running(q);
    d->next = pick_next(P, q, &d->touched);
    d->displaced = d->released = false;
    if (d->next != running) {
        if (running) { /* prev, still runnable: it did not leave */
            sched_class_of(P, running)->put_back(q);
            d->displaced = true;
            d->released = !sched_is_rt(running) && d->next && sched_is_rt(d->next);
        }
        if (d->next)
            sched_class_of(P, d->next)->take(q, d->next);
    }
    BUG_ON(q->curr && q->rt.curr); /* one entity runs */
    BUG_ON(sched_running(q) != d->next);
    collect_notes(q, d);
    return d->next;
}

struct sched_entity *sched_decide(const struct sched_policy *P, struct sched_queue *q,
                                  struct sched_entity *leaving, enum sched_leave_reason why,
                                  struct sched_decision *d)
{
    /* Not a zeroing of d: departed[] is large and only nr_departed of it
     * is ever read, and this runs on every decision. */
    d->prev = sched_running(q);
    d->leaver_kept = false;
    d->touched = 0;
    d->nr_departed = d->departed_lost = 0;
    if (leaving) {
        BUG_ON(leaving != d->prev || !leaving->on_queue);
        sched_class_of(P, leaving)->leave(q, leaving, why);
        d->leaver_kept = leaving->on_queue;
    }
    return pick_and_switch(P, q, d);
}

struct sched_entity *sched_decide_again(const struct sched_policy *P, struct sched_queue *q,
                                        struct sched_decision *d)
{
    BUG_ON(sched_running(q) != NULL);
    d->prev = NULL;
    return pick_and_switch(P, q, d);
}

/* ---- the class layer ---- */

void sched_queue_init(const struct sched_policy *P, struct sched_queue *q, const struct sched_params *p)
{
    P->init(q, p);
    rt_policy.init(q, p);
}

void sched_init_entity(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se)
{
    P->init_entity(q, se);
    rt_policy.init_entity(q, se);
}

void sched_set_class(const struct sched_policy *P, struct sched_entity *se, unsigned prio, unsigned policy)
{
    BUG_ON(se->on_queue);
    bool was_rt = sched_is_rt(se);
    rt_set_class(se, prio, policy);
    if (was_rt && !sched_is_rt(se))
        P->set_nice(NULL, se, se->nice); /* a nice set while RT takes effect now */
}

void sched_join(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se,
                enum sched_join_reason why)
{
    sched_class_of(P, se)->join(q, se, why);
}

void sched_leave(const struct sched_policy *P, struct sched_queue *q, struct sched_entity *se,
                 enum sched_leave_reason why)
{
    sched_class_of(P, se)->leave(q, se, why);
}

bool sched_charge_rt(struct sched_queue *q, uint64_t delta_ns)
{
    return rt_policy.charge(q, delta_ns) && sched_fair_waiting(q);
}

bool sched_tick(const struct sched_policy *P, struct sched_queue *q)
{
    if (q->rt.curr)
        return rt_policy.tick(q) || sched_rt_throttled(q);
    return P->tick(q);
}

void sched_yield_curr(const struct sched_policy *P, struct sched_queue *q)
{
    sched_class_of(P, sched_running(q))->yield(q);
}

/* sched_wakeup_preempt() when RT is involved or nothing runs. */
bool sched_wakeup_preempt_across(struct sched_queue *q, struct sched_entity *se)
{
    struct sched_entity *running = sched_running(q);
    if (!running)
        return true;
#ifdef RUNQ_BUG_RT_NO_PREEMPT
    /* Test-proving bug: no class preempts another at a wakeup. TestRtPreempt must fail. */
    if (sched_is_rt(se) != sched_is_rt(running))
        return false;
#endif
    if (sched_is_rt(se) != sched_is_rt(running)) {
        /* A higher class preempts; a used-up RT budget turns that round. */
        bool higher = sched_is_rt(se);
        return higher != rt_budget_used(q);
    }
    return rt_policy.wakeup_preempt(q, se); /* both RT */
}


void sched_describe(const struct sched_policy *P, const struct sched_queue *q, const struct sched_queue_view *qv,
                    const struct sched_entity *se, struct sched_entity_view *v)
{
    sched_class_of(P, se)->describe(q, qv, se, v);
}

bool sched_for_each_queued(const struct sched_policy *P, const struct sched_queue *q, sched_visit_fn *fn, void *arg)
{
    return rt_policy.for_each_queued(q, fn, arg) && P->for_each_queued(q, fn, arg);
}
