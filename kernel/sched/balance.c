/*
 * Moving tasks between CPUs on the scheduler's own initiative: the
 * mechanism under balance_rules.c's decisions. The rules (Linux 6.18's
 * fair.c: select_task_rq_fair(), sched_balance_newidle(),
 * sched_balance_rq(); what runq leaves out of them is said there) read a
 * picture of the machine and say which CPU, whom and how many; this file
 * fills the picture from the queues, takes the locks and moves the tasks.
 * The same rules run on paper in `runq sim` and in the policy fuzzers.
 *
 * Locking: the caller holds its own CPU's queue lock. A pull takes the
 * busiest CPU's lock with spin_trylock, never spinning while holding its
 * own: two CPUs pulling from each other cannot deadlock, one of them
 * gives up its pull instead (Linux's double_lock_balance() orders the two
 * locks; a missed pull is retried at the next balance). A move itself
 * takes no further lock: the task goes onto the puller's lock-free wake
 * stack and joins there by migrating (core.c's send_to), carrying its
 * lag. Other CPUs' counts and loads are read without their locks, as
 * hints, as Linux reads other runqueues' loads.
 */
#include "balance.h"
#include "balance_rules.h"
#include "cpus.h"
#include "decide.h"
#include "eevdf_features.h"
#include "knob.h"
#include "sched.h"
#include "weights.h"
#include "../arch/x86_64/clock.h"
#include "../lib/bug.h"

_Static_assert(MAX_CPUS <= BALANCE_MAX_CPUS, "the balancer's picture holds every CPU");

/* Each CPU's balance state (balance_rules.h), under its queue's lock:
 * kept here, not in struct rq, whose size every &cpus[n] on the wake
 * path multiplies by. */
static struct balance_state state[MAX_CPUS];
/* Each CPU's picture of the machine, filled and read by that CPU while
 * it holds a queue lock (interrupts off: nothing on it can fill it
 * again meanwhile); off the stack, which MAX_CPUS entries would crowd. */
static struct balance_view view[MAX_CPUS];

/* rq's state: rq is one of cpus[]' queues. */
static struct balance_state *state_of(struct rq *rq)
{
    struct cpu *c = container_of(rq, struct cpu, rq);
    return &state[c->id];
}

static inline struct task *task_of(struct sched_entity *se)
{
    return container_of(se, struct task, se);
}

static inline const struct sched_policy *pol(void)
{
    return sched_policy_current;
}

bool balance_cpu_idle(unsigned cpu)
{
    struct rq *o = &cpus[cpu].rq;
    return READ_ONCE(o->curr) == o->idle && READ_ONCE(o->idle_idling) && !READ_ONCE(o->wake_stack);
}

/* The picture of the machine that the rules read: every CPU's count,
 * load and idleness, read now without their locks. A queue lock held. */
static const struct balance_view *view_now(void)
{
    struct balance_view *v = &view[this_cpu()->id];
    v->ncpus = ncpus;
    for (unsigned c = 0; c < ncpus; c++) {
        struct rq *o = &cpus[c].rq;
        v->cpu[c].nr = sched_nr_runnable(&o->q);
        v->cpu[c].load = sched_fair_load(pol(), &o->q);
        v->cpu[c].idle = balance_cpu_idle(c);
    }
    return v;
}

/* The rules' reasons are the trace's first ones, in its order, so a
 * reason passes as it is (runq sim names them by the same cast). */
_Static_assert(TRACE_MIGRATE_WAKE_IDLE_PREV == (int)BALANCE_WHY_IDLE_PREV &&
                   TRACE_MIGRATE_WAKE_IDLE_SIBLING == (int)BALANCE_WHY_IDLE_SIBLING &&
                   TRACE_MIGRATE_WAKE_AFFINE == (int)BALANCE_WHY_AFFINE && TRACE_MIGRATE_NEWIDLE == (int)BALANCE_WHY_NEWIDLE &&
                   TRACE_MIGRATE_PERIODIC == (int)BALANCE_WHY_PERIODIC,
               "balance_rules.h's reasons are trace/format.h's");

static enum trace_migrate_reason why_traced(enum balance_why w)
{
    return (enum trace_migrate_reason)w;
}

void balance_init_cpu(struct rq *rq)
{
    balance_state_init(state_of(rq));
}

/* ---- wakeup placement ---- */

unsigned balance_wake_cpu(const struct task *t, unsigned waker, enum trace_migrate_reason *why)
{
    unsigned prev = t->cpu;
    *why = TRACE_MIGRATE_WAKE_IDLE_PREV;
    if (!balance_wake_on(ncpus, sched_is_rt(&t->se)))
        return prev;
    enum balance_why w;
    unsigned dst = balance_wake_target(view_now(), t->cpus_allowed,
                                         sched_nice_to_weight(t->se.nice), prev, waker, &w);
    *why = why_traced(w);
    return dst;
}

/* ---- the balance: sched_balance_rq() ---- */

struct detach_ctx {
    struct balance_pull pull; /* balance_rules.h's list, as runq sim keeps it */
    struct rq *src;
};

/* can_migrate_task(): queued, not running (for_each_queued lists only
 * those), not delayed, not the idle task, and what the rules say of its
 * set; the walk stops at loop_max (balance_pull_walk_on). */
static bool detach_collect(struct sched_entity *se, void *arg)
{
    struct detach_ctx *x = arg;
    struct task *t = task_of(se);
    if (!t->is_idle && !delayed(t))
        balance_pull_offer(&x->pull, t, t->cpus_allowed, sched_nice_to_weight(t->se.nice));
    return balance_pull_walk_on(&x->pull);
}

/* attach: candidate i from src, whose lock is held, onto dst's wake stack. */
static bool detach_move(void *arg, unsigned i)
{
    struct detach_ctx *x = arg;
    return move_queued(x->src, x->pull.cand[i], x->pull.env->dst, why_traced(x->pull.env->why));
}

/* sched_balance_rq(): find the busiest CPU, pull from it; one that
 * offers nothing that may move here is skipped and the next busiest
 * tried (LBF_ALL_PINNED's redo). Returns the tasks pulled. */
static unsigned balance_rq(unsigned dst, enum balance_idle idle, enum balance_why why)
{
    u64 skip = 0;
    for (unsigned tries = 0; tries < ncpus; tries++) {
        struct balance_env env = { .dst = dst, .idle = idle, .why = why };
        unsigned src = balance_find_busiest(view_now(), &env, skip);
        if (src == BALANCE_NO_CPU)
            return 0;
        env.src = src;
        struct rq *busiest = &cpus[src].rq;
        if (!spin_trylock(&busiest->lock))
            return 0; /* contended: the next balance tries again */
        struct detach_ctx x = { .pull = { .env = &env }, .src = busiest };
        unsigned src_nr = sched_nr_runnable(&busiest->q);
        pol()->for_each_queued(&busiest->q, detach_collect, &x); /* the fair class's: RT is rt.c's */
        unsigned moved = balance_detach(&env, src_nr, x.pull.weight, x.pull.n, detach_move, &x);
        spin_unlock(&busiest->lock);
        if (moved)
            return moved;
        skip |= 1ull << src;
    }
    return 0;
}

/* ---- newly idle ---- */

bool balance_newidle(struct rq *rq, unsigned cpu, u64 now)
{
    if (!balance_newidle_on(ncpus))
        return false;
    struct balance_state *b = state_of(rq);
    if (!balance_newidle_begin(b, view_now(), now))
        return false;
    u64 t0 = clock_ns();
    bool pulled = balance_rq(cpu, BALANCE_NEWLY_IDLE, BALANCE_WHY_NEWIDLE) > 0;
    balance_newidle_end(b, clock_ns() - t0, pulled);
    return pulled;
}

void balance_note_wake(struct rq *rq, u64 now)
{
    balance_wake_ends_idle(state_of(rq), now);
}

/* ---- periodic: sched_balance_domains() ---- */

static u64 interval_ns(bool busy)
{
    return balance_interval_ns(ncpus, (unsigned)sched_knob(KNOB_BALANCE_INTERVAL_MS), busy);
}

u64 balance_next(struct rq *rq, bool busy, u64 now)
{
    struct balance_state *b = state_of(rq);
    if (!balance_periodic_on(ncpus)) {
        b->next_balance = 0;
        return UINT64_MAX;
    }
    if (!b->next_balance)
        b->next_balance = now + interval_ns(busy);
    return b->next_balance;
}

void balance_periodic(struct rq *rq, unsigned cpu, u64 now)
{
    struct balance_state *b = state_of(rq);
    if (!b->next_balance || now < b->next_balance || !eevdf_feature(EEVDF_F_BALANCE_PERIODIC))
        return;
    bool busy = sched_running(&rq->q) != NULL;
    balance_rq(cpu, busy ? BALANCE_NOT_IDLE : BALANCE_IDLE, BALANCE_WHY_PERIODIC);
    b->next_balance = now + interval_ns(busy);
}
