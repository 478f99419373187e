/*
 * Policy rr: the old round robin, reproduced with its flaws because the
 * labs contrast it with EEVDF.
 *
 *  - Tasks run in list order. The displaced task goes to the tail, and so
 *    does a woken or new one.
 *  - Every tick preempts the running task if anyone else is waiting.
 *  - A wakeup's reschedule IPI makes the CPU decide at once, and the
 *    decision takes the FIRST runnable task in the list, which is rarely
 *    the one just woken: it still waits a tick behind every task ahead of
 *    it, and the task it displaced had its turn cut short. That early
 *    switch is what makes the shares of equal spinners uneven.
 *  - No weights: nice is stored and shown, and changes nothing.
 *
 * RR_SLEEPERS_IN_PLACE (off by default) is nos's list (seed 002): there
 * one list held every task, sleepers included, and the walk skipped those
 * that could not run, so a woken task ran from where it stood when it
 * blocked. Here each tail join numbers the entity (its place), the list
 * is always in place order, and with the switch a woken entity goes back
 * in by its place instead of at the tail: the same order as a list that
 * kept it, without a sleeper on the list for every walk to step over. A
 * current that blocks takes the tail's place as it goes (nos's walk moved
 * it there), so it sleeps behind every task that had not yet run.
 */
#include "policy.h"
#include "bug.h"
#include "eevdf_features.h"

static void rr_init(struct sched_queue *q, const struct sched_params *p)
{
    q->curr = NULL;
    q->nr_queued = 0;
    q->touched = 0;
    q->params = *p;
    q->rr.head = q->rr.tail = NULL;
    q->rr.places = 0;
    q->nr_departed = q->departed_lost = 0; /* never set: entities leave only by leave() */
    q->cut_short_by = NULL;                /* never set: no turn is protected */
}

static void rr_init_entity(struct sched_queue *q, struct sched_entity *se)
{
    (void)q;
    se->rr.next = se->rr.prev = NULL;
    se->rr.place = 0;
    se->on_queue = false;
}

/* The run list: list_insert_after, list_remove, rr_for_each_queued. */
SCHED_LIST_DEFINE(rr, q->nr_queued)

/* se at the tail, with the next place. */
static void join_tail(struct sched_queue *q, struct sched_entity *se)
{
    se->rr.place = ++q->rr.places;
    list_insert_after(q, q->rr.tail, se);
}

/* se back at its place: after every entity whose place is not later. A
 * place from another queue's count (it moved while asleep) is kept in
 * this one's order by raising the count past it. */
static void join_in_place(struct sched_queue *q, struct sched_entity *se)
{
    struct sched_entity *pos = q->rr.tail;
    while (pos && pos->rr.place > se->rr.place)
        pos = pos->rr.prev;
    BUG_ON(pos && pos->rr.next && pos->rr.next->rr.place < se->rr.place);
    if (se->rr.place > q->rr.places)
        q->rr.places = se->rr.place;
    list_insert_after(q, pos, se);
}

static void rr_join(struct sched_queue *q, struct sched_entity *se, enum sched_join_reason why)
{
    (void)why;
    BUG_ON(se->on_queue);
#ifdef RUNQ_BUG_RR_WAKE_FIRST
    /* Test-proving bug: a woken task goes to the head, as if the round
     * robin favoured wakeups. TestRrProbe must fail. */
    if (why == SCHED_JOIN_WAKE) {
        list_insert_after(q, NULL, se);
        se->on_queue = true;
        return;
    }
#endif
    if (why == SCHED_JOIN_WAKE && eevdf_feature(EEVDF_F_RR_SLEEPERS_IN_PLACE))
        join_in_place(q, se);
    else
        join_tail(q, se);
    se->on_queue = true;
}

static void rr_leave(struct sched_queue *q, struct sched_entity *se, enum sched_leave_reason why)
{
    BUG_ON(!se->on_queue);
    /* nos's walk meets a current that blocks before anyone runnable (it
     * was the first runnable when picked) and moves it to the tail, where
     * it then sleeps: its place is the tail's as it blocks. */
    if (se == q->curr && why == SCHED_LEAVE_BLOCK && eevdf_feature(EEVDF_F_RR_SLEEPERS_IN_PLACE))
        se->rr.place = ++q->rr.places;
    if (se == q->curr)
        q->curr = NULL;
    else
        list_remove(q, se);
    se->on_queue = false;
}

static void rr_put_back(struct sched_queue *q)
{
    struct sched_entity *se = q->curr;
    BUG_ON(!se);
    q->curr = NULL;
    join_tail(q, se);
}

static void rr_take(struct sched_queue *q, struct sched_entity *se)
{
    BUG_ON(q->curr != NULL);
    BUG_ON(!se->on_queue);
    list_remove(q, se);
    q->curr = se;
}

/* The first task in the list; the current one only if nobody waits. */
static struct sched_entity *rr_pick(struct sched_queue *q)
{
    q->touched = 1;
    return q->rr.head ? q->rr.head : q->curr;
}

/* Round robin keeps no account of run time: only the tick asks. */
static bool rr_charge(struct sched_queue *q, uint64_t delta_ns)
{
    (void)q;
    (void)delta_ns;
    return false;
}

static bool rr_tick(struct sched_queue *q)
{
    return q->nr_queued > 0;
}

static void rr_yield(struct sched_queue *q)
{
    (void)q; /* the pick takes the head of the list anyway */
}

/* The reschedule IPI always switches when anyone else waits. */
static bool rr_wakeup_preempt(struct sched_queue *q, struct sched_entity *se)
{
    (void)se;
    return q->nr_queued > 0;
}

/* No timer, nice and the slice only stored, no virtual time: policy.h's
 * ops for a policy without them, shared with the RT class. */
SCHED_NO_VTIME_DEFINE(rr)

/* No virtual time, no weights, no eligibility: only the slice asked for. */
static void rr_describe(const struct sched_queue *q, const struct sched_queue_view *qv,
                        const struct sched_entity *se, struct sched_entity_view *v)
{
    (void)q, (void)qv;
    *v = (struct sched_entity_view){ .slice_ns = se->slice_ns };
}

SCHED_POLICY_DEFINE(rr);
