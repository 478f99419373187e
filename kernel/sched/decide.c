/*
 * sched_decide(): see decide.h for the contract and the order.
 */
#include "decide.h"
#include "bug.h"

/* The entity to run next: each class is asked in order and the first that
 * has one wins. Today there is one class, the fair policy P; an RT class
 * is asked before it, and the idle task (the caller's, when this returns
 * NULL) after. */
static struct sched_entity *pick_next(const struct sched_policy *P, struct sched_queue *q, unsigned *touched)
{
    struct sched_entity *se = P->pick(q);

    *touched += q->touched;
    return se;
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
    d->next = pick_next(P, q, &d->touched);
    d->displaced = false;
    if (d->next != q->curr) {
        if (q->curr) { /* prev, still runnable: it did not leave */
            P->put_back(q);
            d->displaced = true;
        }
        if (d->next)
            P->take(q, d->next);
    }
    BUG_ON(q->curr != d->next);
    collect_notes(q, d);
    return d->next;
}

struct sched_entity *sched_decide(const struct sched_policy *P, struct sched_queue *q,
                                  struct sched_entity *leaving, enum sched_leave_reason why,
                                  struct sched_decision *d)
{
    /* Not a zeroing of d: departed[] is large and only nr_departed of it
     * is ever read, and this runs on every decision. */
    d->prev = q->curr;
    d->leaver_kept = false;
    d->touched = 0;
    d->nr_departed = d->departed_lost = 0;
    if (leaving) {
        BUG_ON(leaving != q->curr || !leaving->on_queue);
        P->leave(q, leaving, why);
        d->leaver_kept = leaving->on_queue;
    }
    return pick_and_switch(P, q, d);
}

struct sched_entity *sched_decide_again(const struct sched_policy *P, struct sched_queue *q,
                                        struct sched_decision *d)
{
    BUG_ON(q->curr != NULL);
    d->prev = NULL;
    return pick_and_switch(P, q, d);
}
