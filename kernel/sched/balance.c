/*
 * Moving tasks between CPUs on the scheduler's own initiative, after
 * Linux 6.18's kernel/sched/fair.c, in its structure and names:
 *
 *   wakeup placement    select_task_rq_fair(): wake_affine() (WA_IDLE's
 *                       wake_affine_idle(), then WA_WEIGHT's
 *                       wake_affine_weight()), then select_idle_sibling()
 *   newly-idle balance  sched_balance_newidle(): a CPU that found nothing
 *                       to run pulls one waiting task
 *   periodic balance    sched_balance_domains() -> sched_balance_rq():
 *                       find_busiest_group(), calculate_imbalance(),
 *                       detach_tasks()
 *
 * runq's machine is one flat domain: its vCPUs share every cache (no SMT
 * siblings, no LLC boundary, no NUMA), so each CPU is a group of one of
 * capacity 1024, cpus_share_cache() is always true and the LLC that
 * select_idle_sibling() scans is the whole machine. What is left out, and
 * so differs from the host's Linux:
 *  - PELT. A CPU's load is its runnable fair weight now
 *    (sched_fair_load), not a decaying average: a task that just slept
 *    weighs nothing on its CPU, one that just woke weighs all of its
 *    weight at once. A group is overloaded when it holds more tasks than
 *    its one CPU (Linux also asks that their utilisation fill it).
 *  - energy awareness, wake_wide()'s flip counts, WF_SYNC (runq's wakers
 *    pass none), task_hot()'s cache-hot test, the interval doubling on a
 *    failed balance (nr_balance_failed) and the nohz idle balancer: an
 *    idle CPU keeps a timer for its own balance instead of being kicked
 *    by a busy one.
 *  - the newidle cost cut-off is kept in its shape (avg_idle against the
 *    costliest newidle balance, decaying 1 % a second) for the one
 *    domain.
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
#include "cpus.h"
#include "decide.h"
#include "eevdf_features.h"
#include "knob.h"
#include "sched.h"
#include "weights.h"
#include "../arch/x86_64/clock.h"
#include "../lib/bug.h"

#define NO_CPU (~0u)
/* sd_init() for a domain without SMT siblings: the imbalance that counts
 * (percent), and how much longer a busy CPU waits between balances. */
#define IMBALANCE_PCT 117
#define BUSY_FACTOR 16
/* sysctl_sched_nr_migrate: tasks one pass looks at, at most. */
#define NR_MIGRATE 32
/* sysctl_sched_migration_cost: the newidle cost cut-off's floor. */
#define MIGRATION_COST_NS 500000ull

/* Each CPU's balance state, under its queue's lock: kept here, not in
 * struct rq, whose size every &cpus[n] on the wake path multiplies by. */
static struct balance_state {
    u64 next_balance;     /* when the periodic balance is next due (0: not armed) */
    u64 idle_stamp;       /* when a newidle balance began an idle stretch (0: busy since) */
    u64 avg_idle;         /* the average idle stretch, ns (Linux's rq->avg_idle) */
    u64 max_newidle_cost; /* the costliest newidle balance, decaying (sd->max_newidle_lb_cost) */
    u64 newidle_decay_at; /* when that cost next decays */
} state[MAX_CPUS];

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

static unsigned nr_of(unsigned cpu)
{
    return sched_nr_runnable(&cpus[cpu].rq.q);
}

static u64 load_of(unsigned cpu)
{
    return sched_fair_load(pol(), &cpus[cpu].rq.q);
}

void balance_init_cpu(struct rq *rq)
{
    struct balance_state *b = state_of(rq);
    b->avg_idle = 2 * MIGRATION_COST_NS; /* sched_init(): rq->avg_idle */
    b->max_newidle_cost = 0;
    b->idle_stamp = 0;
    b->next_balance = 0;
}

/* ---- wakeup placement: select_task_rq_fair() ---- */

/* wake_affine_idle(): the waker's CPU if it is idle (unless prev is too:
 * then prev, as cache-affine), else prev if idle, else no opinion. The
 * sync case (the waker about to sleep) never arises: no WF_SYNC. */
static unsigned wake_affine_idle(unsigned this_cpu, unsigned prev)
{
    if (balance_cpu_idle(this_cpu))
        return balance_cpu_idle(prev) ? prev : this_cpu;
    if (balance_cpu_idle(prev))
        return prev;
    return NO_CPU;
}

/* wake_affine_weight(): the waker's CPU if its load with the wakee added
 * is below prev's, prev biased by half the imbalance percentage (WA_BIAS,
 * on in Linux, not a switch here). Linux takes the wakee's load off
 * prev's because PELT still counts it there; runnable weight never holds
 * a sleeping task, so nothing is taken off. Capacities are equal. */
static unsigned wake_affine_weight(const struct task *t, unsigned this_cpu, unsigned prev)
{
    u64 task_load = sched_nice_to_weight(t->se.nice);
    u64 this_eff = (load_of(this_cpu) + task_load) * 100;
    u64 prev_eff = load_of(prev) * (100 + (IMBALANCE_PCT - 100) / 2);
    return this_eff < prev_eff ? this_cpu : NO_CPU;
}

/* wake_affine(): the waker's CPU or prev. */
static unsigned wake_affine(const struct task *t, unsigned this_cpu, unsigned prev)
{
    unsigned target = NO_CPU;
    if (eevdf_feature(EEVDF_F_WA_IDLE))
        target = wake_affine_idle(this_cpu, prev);
    if (eevdf_feature(EEVDF_F_WA_WEIGHT) && target == NO_CPU)
        target = wake_affine_weight(t, this_cpu, prev);
    return target == this_cpu ? this_cpu : prev;
}

/* select_idle_sibling(): target if idle, else prev if idle, else the
 * first idle CPU of t's set after target (select_idle_cpu() over the one
 * LLC, wrapping; no SIS_UTIL limit on a machine this small), else target. */
static unsigned select_idle_sibling(const struct task *t, unsigned prev, unsigned target,
                                    enum trace_migrate_reason *why)
{
    if (balance_cpu_idle(target))
        return target;
    if (prev != target && balance_cpu_idle(prev)) {
        *why = TRACE_MIGRATE_WAKE_IDLE_PREV;
        return prev;
    }
    for (unsigned i = 1; i < ncpus; i++) {
        unsigned c = (target + i) % ncpus;
        if (cpu_allowed(t, c) && balance_cpu_idle(c)) {
            *why = TRACE_MIGRATE_WAKE_IDLE_SIBLING;
            return c;
        }
    }
    return target;
}

unsigned balance_wake_cpu(const struct task *t, unsigned waker, enum trace_migrate_reason *why)
{
    unsigned prev = t->cpu, target = prev;
    *why = TRACE_MIGRATE_WAKE_IDLE_PREV;
    /* An RT task is the RT class's (its push on release stays rt's). */
    if (!eevdf_feature(EEVDF_F_BALANCE_WAKE) || ncpus < 2 || sched_is_rt(&t->se))
        return prev;
    /* want_affine: the waker's CPU is one t may run on. */
    if (waker != prev && cpu_allowed(t, waker) && wake_affine(t, waker, prev) == waker) {
        target = waker;
        *why = TRACE_MIGRATE_WAKE_AFFINE;
    }
    return select_idle_sibling(t, prev, target, why);
}

/* ---- the balance: sched_balance_rq() for single-CPU groups ---- */

enum lb_idle { LB_NOT_IDLE, LB_IDLE, LB_NEWLY_IDLE }; /* enum cpu_idle_type */
enum group_type { GROUP_HAS_SPARE, GROUP_FULLY_BUSY, GROUP_OVERLOADED };
enum migration_type { MIGRATE_TASK, MIGRATE_LOAD };

struct group_stat {
    unsigned nr;
    u64 load;
    enum group_type type;
};

struct lb_env {
    unsigned dst, src;
    enum lb_idle idle;
    enum migration_type type;
    s64 imbalance; /* tasks (MIGRATE_TASK) or weight (MIGRATE_LOAD) to move */
    enum trace_migrate_reason why;
};

/* group_classify() without utilisation: more tasks than the one CPU is
 * overloaded, one is fully busy, none has spare capacity. */
static void group_stat_of(unsigned cpu, struct group_stat *s)
{
    s->nr = nr_of(cpu);
    s->load = load_of(cpu);
    s->type = s->nr > 1 ? GROUP_OVERLOADED : s->nr == 1 ? GROUP_FULLY_BUSY : GROUP_HAS_SPARE;
}

/* update_sd_pick_busiest(): the higher group type; among overloaded ones
 * the higher load; among the others the more tasks. */
static bool busier(const struct group_stat *s, const struct group_stat *than)
{
    if (!s->nr)
        return false; /* nothing to pull */
    if (s->type != than->type)
        return s->type > than->type;
    return s->type == GROUP_OVERLOADED ? s->load > than->load : s->nr > than->nr;
}

/* find_busiest_group() and calculate_imbalance(): the CPU to pull from,
 * not in `skip`, and how much to pull into env; NO_CPU if balanced. */
static unsigned find_busiest(struct lb_env *env, u64 skip)
{
    struct group_stat local, busiest = { 0, 0, GROUP_HAS_SPARE }, s;
    unsigned src = NO_CPU;
    u64 total = 0;
    group_stat_of(env->dst, &local);
    total += local.load;
    for (unsigned c = 0; c < ncpus; c++) {
        if (c == env->dst)
            continue;
        group_stat_of(c, &s);
        total += s.load;
        if (!((skip >> c) & 1) && busier(&s, &busiest)) {
            busiest = s;
            src = c;
        }
    }
    if (src == NO_CPU || local.type > busiest.type)
        return NO_CPU;
    u64 avg = total / ncpus; /* sds->avg_load: capacities are equal */
    if (local.type == GROUP_OVERLOADED) {
        if (local.load >= busiest.load || local.load >= avg)
            return NO_CPU;
        /* the threshold: busiest must exceed local by imbalance_pct */
        if (100 * busiest.load <= IMBALANCE_PCT * local.load)
            return NO_CPU;
    }
    if (busiest.type != GROUP_OVERLOADED) /* one task, or none, is balanced */
        return NO_CPU;
    if (local.type == GROUP_HAS_SPARE) {
        /* spread runnable tasks evenly: half the difference, at least one
         * into an empty group (sibling_imbalance()) */
        env->type = MIGRATE_TASK;
        env->imbalance = (s64)(busiest.nr - local.nr) / 2;
        if (env->imbalance < 1 && local.nr == 0)
            env->imbalance = 1;
    } else {
        if (local.load >= busiest.load || local.load >= avg)
            return NO_CPU;
        env->type = MIGRATE_LOAD;
        u64 over = busiest.load - avg, under = avg - local.load;
        env->imbalance = (s64)(over < under ? over : under);
    }
    return env->imbalance > 0 ? src : NO_CPU;
}

struct detach_ctx {
    const struct lb_env *env;
    struct task *cand[NR_MIGRATE];
    unsigned n;
};

/* can_migrate_task(): queued, not running (for_each_queued lists only
 * those), not delayed, not the idle task, allowed on dst. */
static void detach_collect(struct sched_entity *se, void *arg)
{
    struct detach_ctx *x = arg;
    struct task *t = task_of(se);
    if (x->n < NR_MIGRATE && !t->is_idle && !delayed(t) && cpu_allowed(t, x->env->dst))
        x->cand[x->n++] = t;
}

/* detach_tasks(), with the move (attach_tasks()) done at once: from src,
 * whose lock is held, onto dst's wake stack until the imbalance is met.
 * A newidle pull stops after one task, as Linux's does under preemption.
 * Returns how many moved. */
static unsigned detach_tasks(struct lb_env *env)
{
    struct rq *src = &cpus[env->src].rq;
    struct detach_ctx x = { .env = env, .n = 0 };
    unsigned src_nr = sched_nr_runnable(&src->q), moved = 0;
    pol()->for_each_queued(&src->q, detach_collect, &x); /* the fair class's: RT is rt.c's */
    for (unsigned i = 0; i < x.n && env->imbalance > 0; i++) {
        struct task *t = x.cand[i];
        if (env->idle != LB_NOT_IDLE && src_nr <= 1)
            break; /* never empty the busiest for an idle CPU */
        u64 load = sched_nice_to_weight(t->se.nice);
        if (env->type == MIGRATE_LOAD && (s64)load > env->imbalance)
            continue; /* it would overshoot: the imbalance would change side */
        if (!move_queued(src, t, env->dst, env->why))
            continue;
        src_nr--;
        moved++;
        env->imbalance -= env->type == MIGRATE_LOAD ? (s64)load : 1;
        if (env->idle == LB_NEWLY_IDLE)
            break;
    }
    return moved;
}

/* sched_balance_rq(): find the busiest CPU, pull from it; one that
 * offers nothing that may move here is skipped and the next busiest
 * tried (LBF_ALL_PINNED's redo). Returns the tasks pulled. */
static unsigned balance_rq(unsigned dst, enum lb_idle idle, enum trace_migrate_reason why)
{
    u64 skip = 0;
    for (unsigned tries = 0; tries < ncpus; tries++) {
        struct lb_env env = { .dst = dst, .idle = idle, .why = why };
        unsigned src = find_busiest(&env, skip);
        if (src == NO_CPU)
            return 0;
        env.src = src;
        struct rq *busiest = &cpus[src].rq;
        if (!spin_trylock(&busiest->lock))
            return 0; /* contended: the next balance tries again */
        unsigned moved = detach_tasks(&env);
        spin_unlock(&busiest->lock);
        if (moved)
            return moved;
        skip |= 1ull << src;
    }
    return 0;
}

/* ---- newly idle: sched_balance_newidle() ---- */

/* rd->overloaded: some CPU has a task waiting. */
static bool overloaded(void)
{
    for (unsigned c = 0; c < ncpus; c++)
        if (nr_of(c) > 1)
            return true;
    return false;
}

bool balance_newidle(struct rq *rq, unsigned cpu, u64 now)
{
    if (!eevdf_feature(EEVDF_F_BALANCE_NEWIDLE) || ncpus < 2)
        return false;
    struct balance_state *b = state_of(rq);
    if (!b->idle_stamp)
        b->idle_stamp = now;
    if (now >= b->newidle_decay_at) { /* update_newidle_cost(): 1 % a second */
        b->max_newidle_cost = b->max_newidle_cost * 253 / 256;
        b->newidle_decay_at = now + NSEC_PER_SEC;
    }
    /* The cut-off: not worth it when no CPU has a task waiting, or when
     * this CPU's idle stretches are on average shorter than a balance
     * costs. */
    if (!overloaded() || b->avg_idle < b->max_newidle_cost)
        return false;
    u64 t0 = clock_ns();
    bool pulled = balance_rq(cpu, LB_NEWLY_IDLE, TRACE_MIGRATE_NEWIDLE) > 0;
    u64 cost = clock_ns() - t0;
    if (cost > b->max_newidle_cost)
        b->max_newidle_cost = cost;
    if (pulled)
        b->idle_stamp = 0; /* not idle after all */
    return pulled;
}

/* ttwu_do_activate()'s update of rq->avg_idle: an idle stretch ends. */
void balance_note_wake(struct rq *rq, u64 now)
{
    struct balance_state *b = state_of(rq);
    if (!b->idle_stamp)
        return;
    u64 cap = 2 * (b->max_newidle_cost > MIGRATION_COST_NS ? b->max_newidle_cost : MIGRATION_COST_NS);
    s64 diff = (s64)(now - b->idle_stamp) - (s64)b->avg_idle;
    b->avg_idle = (u64)((s64)b->avg_idle + diff / 8); /* update_avg() */
    if (b->avg_idle > cap)
        b->avg_idle = cap;
    b->idle_stamp = 0;
}

/* ---- periodic: sched_balance_domains() ---- */

/* get_sd_balance_interval(): the domain's interval (sd_init(): its
 * weight in ms, or the knob), times busy_factor on a busy CPU, at most
 * max_load_balance_interval (HZ * CPUs / 10 jiffies: 100 ms a CPU). */
static u64 interval_ns(bool busy)
{
    u64 ms = (u64)sched_knob(KNOB_BALANCE_INTERVAL_MS);
    if (!ms)
        ms = ncpus;
    if (busy)
        ms *= BUSY_FACTOR;
    if (ms > 100ull * ncpus)
        ms = 100ull * ncpus;
    return ms * NSEC_PER_MSEC;
}

u64 balance_next(struct rq *rq, bool busy, u64 now)
{
    struct balance_state *b = state_of(rq);
    if (!eevdf_feature(EEVDF_F_BALANCE_PERIODIC) || ncpus < 2) {
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
    balance_rq(cpu, busy ? LB_NOT_IDLE : LB_IDLE, TRACE_MIGRATE_PERIODIC);
    b->next_balance = now + interval_ns(busy);
}
