/*
 * The real-time class (rt.h): fixed priorities, FIFO or round robin among
 * equals, as Linux's kernel/sched/rt.c decides. Like the fair policies it
 * knows only entities and its part of the queue (q->rt); the class layer
 * in decide.c asks it before the fair policy and owns every question that
 * spans the two classes (which one runs, whether a wakeup preempts across
 * them, when the budget stops RT).
 *
 * One list, highest priority first, first-come first among equals,
 * instead of Linux's array of 100 lists and bitmap: a machine here holds
 * a handful of RT tasks, and one list is the order a student reads.
 */
#include "policy.h"
#include "bug.h"

static void rt_init(struct sched_queue *q, const struct sched_params *p)
{
    (void)p;
    q->rt = (struct rt_queue){ .runtime_ns = RT_NO_BUDGET };
}

static void rt_init_entity(struct sched_queue *q, struct sched_entity *se)
{
    (void)q;
    se->rt.next = se->rt.prev = NULL;
    se->rt.to_tail = false;
    se->rt.rr_left_ns = (int64_t)RT_RR_QUANTUM_NS;
    se->on_queue = false;
}

void rt_set_class(struct sched_entity *se, unsigned prio, unsigned policy)
{
    BUG_ON(se->on_queue);
    BUG_ON(prio > RT_PRIO_MAX || (policy != RT_FIFO && policy != RT_RR));
    se->rt.prio = (uint8_t)prio;
    se->rt.policy = (uint8_t)policy;
    se->rt.rr_left_ns = (int64_t)RT_RR_QUANTUM_NS;
}

/* The queue: list_insert_after, list_remove, rt_for_each_queued. */
SCHED_LIST_DEFINE(rt, q->rt.nr_queued)

/* Puts se on the list: behind every entity of its priority or higher
 * (tail), or in front of its equals (head). */
static void list_insert(struct sched_queue *q, struct sched_entity *se, bool head)
{
    struct sched_entity *pos = NULL, *next = q->rt.head; /* se goes between */
    while (next && (next->rt.prio > se->rt.prio || (!head && next->rt.prio == se->rt.prio))) {
        pos = next;
        next = next->rt.next;
    }
    list_insert_after(q, pos, se);
}

/* A wakeup, a new task or a moved one goes behind its equals
 * (enqueue_task_rt() without ENQUEUE_HEAD). */
static void rt_join(struct sched_queue *q, struct sched_entity *se, enum sched_join_reason why)
{
    (void)why;
    BUG_ON(se->on_queue || !sched_is_rt(se));
    list_insert(q, se, false);
    se->on_queue = true;
}

static void rt_leave(struct sched_queue *q, struct sched_entity *se, enum sched_leave_reason why)
{
    (void)why;
    BUG_ON(!se->on_queue);
    if (se == q->rt.curr)
        q->rt.curr = NULL;
    else
        list_remove(q, se);
    se->rt.to_tail = false;
    se->on_queue = false;
}

/* A preempted entity keeps its place at the head of its priority; one
 * whose quantum ran out or that yielded goes behind its equals. */
static void rt_put_back(struct sched_queue *q)
{
    struct sched_entity *se = q->rt.curr;
    BUG_ON(!se);
    q->rt.curr = NULL;
    list_insert(q, se, !se->rt.to_tail);
    se->rt.to_tail = false;
}

static void rt_take(struct sched_queue *q, struct sched_entity *se)
{
    BUG_ON(q->rt.curr != NULL);
    BUG_ON(!se->on_queue || !sched_is_rt(se));
    list_remove(q, se);
    q->rt.curr = se;
}

/* The highest priority; among equals, current unless it has to go behind
 * them. */
static struct sched_entity *rt_pick(struct sched_queue *q)
{
    struct sched_entity *curr = q->rt.curr, *head = q->rt.head;
    q->touched = 1;
    if (!curr)
        return head;
    if (!head || head->rt.prio < curr->rt.prio)
        return curr;
    if (head->rt.prio == curr->rt.prio && curr->rt.to_tail)
        return head;
    if (head->rt.prio > curr->rt.prio)
        return head;
    return curr;
}

/* Run time counts against the budget; true when this charge used it up
 * (whether that stops RT is the class layer's question: decide.c). */
static bool rt_charge(struct sched_queue *q, uint64_t delta_ns)
{
    BUG_ON(!q->rt.curr);
    bool was_used = rt_budget_used(q);
    q->rt.used_ns += delta_ns;
    if (!was_used && rt_budget_used(q)) {
        q->rt.nr_throttled++;
        return true;
    }
    return false;
}

/* An entity of se's priority is on the list (a higher one may be ahead
 * of it, waiting for the decision it asked for). */
static bool has_equal(const struct sched_queue *q, const struct sched_entity *se)
{
    const struct sched_entity *n = q->rt.head;
    while (n && n->rt.prio > se->rt.prio)
        n = n->rt.next;
    return n && n->rt.prio == se->rt.prio;
}

/* RR: a tick less of the quantum; used up, the entity goes behind its
 * equals if it has any, and gets a new quantum either way. FIFO has no
 * quantum. */
static bool rt_tick(struct sched_queue *q)
{
    struct sched_entity *se = q->rt.curr;
    BUG_ON(!se);
    if (se->rt.policy != RT_RR)
        return false;
    se->rt.rr_left_ns -= (int64_t)q->params.tick_ns;
    if (se->rt.rr_left_ns > 0)
        return false;
    se->rt.rr_left_ns = (int64_t)RT_RR_QUANTUM_NS;
    se->rt.to_tail = has_equal(q, se);
    return se->rt.to_tail;
}

/* yield_task_rt(): behind its equals. With none queued the mark is not
 * set, since Linux's requeue then changes nothing: an equal that joins
 * later queues behind the yielder, not in front at the next put_back. */
static void rt_yield(struct sched_queue *q)
{
    BUG_ON(!q->rt.curr);
    q->rt.curr->rt.to_tail = has_equal(q, q->rt.curr);
}

/* Within the class, only a higher priority preempts. */
static bool rt_wakeup_preempt(struct sched_queue *q, struct sched_entity *se)
{
    return !q->rt.curr || se->rt.prio > q->rt.curr->rt.prio;
}

/* No timer of its own (the quantum counts ticks; the budget is
 * decide.c's), nice kept for when the task is fair again (RT ignores it),
 * the slice only stored, no virtual time: policy.h's ops for a policy
 * without them, shared with rr. */
SCHED_NO_VTIME_DEFINE(rt)

static void rt_describe(const struct sched_queue *q, const struct sched_queue_view *qv,
                        const struct sched_entity *se, struct sched_entity_view *v)
{
    (void)q, (void)qv;
    *v = (struct sched_entity_view){ .slice_ns = se->rt.policy == RT_RR ? RT_RR_QUANTUM_NS : 0, .eligible = true };
}

void rt_set_runtime(struct sched_queue *q, uint64_t runtime_ns)
{
    q->rt.runtime_ns = runtime_ns;
}

bool rt_budget_used(const struct sched_queue *q)
{
    return q->rt.runtime_ns != RT_NO_BUDGET && q->rt.used_ns >= q->rt.runtime_ns;
}

uint64_t rt_budget_left(const struct sched_queue *q)
{
    if (q->rt.runtime_ns == RT_NO_BUDGET)
        return UINT64_MAX;
    return rt_budget_used(q) ? 0 : q->rt.runtime_ns - q->rt.used_ns;
}

void rt_new_period(struct sched_queue *q)
{
    q->rt.used_ns = 0;
}

SCHED_POLICY_DEFINE(rt);
