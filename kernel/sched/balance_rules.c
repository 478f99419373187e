/*
 * The balancer's decisions, after Linux 6.18's kernel/sched/fair.c, in
 * its structure and names (balance_rules.h says what each answers):
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
 * runq's machine is one flat domain: its CPUs share every cache (no SMT
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
 *    pass none), task_hot()'s cache-hot test, the escalation after
 *    failed balances (nr_balance_failed: active balance, cache-hot tasks
 *    let go), the interval's back-off (sched_balance_rq() doubles
 *    balance_interval while it finds the domain balanced and resets it
 *    after an imbalance) and the nohz idle balancer: an idle CPU keeps a
 *    timer for its own balance instead of being kicked by a busy one.
 *  - the newidle cost cut-off is kept in its shape (avg_idle against the
 *    costliest newidle balance, decaying 1 % a second) for the one
 *    domain.
 */
#include "balance_rules.h"
#include "eevdf_features.h"

/* sd_init() for a domain without SMT siblings: the imbalance that counts
 * (percent), and how much longer a busy CPU waits between balances. */
#define IMBALANCE_PCT 117
#define BUSY_FACTOR 16
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

static bool allows(uint64_t allowed, unsigned cpu)
{
    return (allowed >> cpu) & 1;
}

/* ---- wakeup placement: select_task_rq_fair() ---- */

/* wake_affine_idle(): the waker's CPU if it is idle (unless prev is too:
 * then prev, as cache-affine), else prev if idle, else no opinion. The
 * sync case (the waker about to sleep) never arises: no WF_SYNC. */
static unsigned wake_affine_idle(const struct balance_view *v, unsigned this_cpu, unsigned prev)
{
    if (v->cpu[this_cpu].idle)
        return v->cpu[prev].idle ? prev : this_cpu;
    if (v->cpu[prev].idle)
        return prev;
    return BALANCE_NO_CPU;
}

/* wake_affine_weight(): the waker's CPU if its load with the wakee added
 * is below prev's, prev biased by half the imbalance percentage (WA_BIAS,
 * on in Linux, not a switch here). Linux takes the wakee's load off
 * prev's because PELT still counts it there; runnable weight never holds
 * a sleeping task, so nothing is taken off. Capacities are equal. */
static unsigned wake_affine_weight(const struct balance_view *v, unsigned weight, unsigned this_cpu, unsigned prev)
{
    uint64_t this_eff = (v->cpu[this_cpu].load + weight) * 100;
    uint64_t prev_eff = v->cpu[prev].load * (100 + (IMBALANCE_PCT - 100) / 2);
    return this_eff < prev_eff ? this_cpu : BALANCE_NO_CPU;
}

/* wake_affine(): the waker's CPU or prev. */
static unsigned wake_affine(const struct balance_view *v, unsigned weight, unsigned this_cpu, unsigned prev)
{
    unsigned target = BALANCE_NO_CPU;
    if (eevdf_feature(EEVDF_F_WA_IDLE))
        target = wake_affine_idle(v, this_cpu, prev);
    if (eevdf_feature(EEVDF_F_WA_WEIGHT) && target == BALANCE_NO_CPU)
        target = wake_affine_weight(v, weight, this_cpu, prev);
    return target == this_cpu ? this_cpu : prev;
}

/* select_idle_sibling(): target if idle, else prev if idle, else the
 * first idle CPU of the task's set after target (select_idle_cpu() over
 * the one LLC, wrapping; no SIS_UTIL limit on a machine this small), else
 * target. */
static unsigned select_idle_sibling(const struct balance_view *v, uint64_t allowed, unsigned prev, unsigned target,
                                    enum balance_why *why)
{
    if (v->cpu[target].idle)
        return target;
    if (prev != target && v->cpu[prev].idle) {
        *why = BALANCE_WHY_IDLE_PREV;
        return prev;
    }
    for (unsigned i = 1; i < v->ncpus; i++) {
        unsigned c = (target + i) % v->ncpus;
#ifdef RUNQ_BUG_IDLE_SIBLING_IGNORES_AFFINITY
        /* Test-proving bug: the scan forgets the task's set. The policy
         * fuzzers (tests/policy/eevdf_fuzz.c, rt_fuzz.c) must find it. */
        allowed = ~0ull;
#endif
        if (allows(allowed, c) && v->cpu[c].idle) {
            *why = BALANCE_WHY_IDLE_SIBLING;
            return c;
        }
    }
    return target;
}

unsigned balance_wake_target(const struct balance_view *v, uint64_t allowed, unsigned weight, unsigned prev,
                          unsigned waker, enum balance_why *why)
{
    unsigned target = prev;
    *why = BALANCE_WHY_IDLE_PREV;
    /* want_affine: the waker's CPU is one the task may run on. */
    if (waker != prev && allows(allowed, waker) && wake_affine(v, weight, waker, prev) == waker) {
        target = waker;
        *why = BALANCE_WHY_AFFINE;
    }
    return select_idle_sibling(v, allowed, prev, target, why);
}

/* ---- the balance: sched_balance_rq() for single-CPU groups ---- */

enum group_type { GROUP_HAS_SPARE, GROUP_FULLY_BUSY, GROUP_OVERLOADED };

struct group_stat {
    unsigned nr;
    uint64_t load;
    enum group_type type;
};

/* group_classify() without utilisation: more tasks than the one CPU is
 * overloaded, one is fully busy, none has spare capacity. */
static void group_stat_of(const struct balance_view *v, unsigned cpu, struct group_stat *s)
{
    s->nr = v->cpu[cpu].nr;
    s->load = v->cpu[cpu].load;
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

unsigned balance_find_busiest(const struct balance_view *v, struct balance_env *env, uint64_t skip)
{
    struct group_stat local, busiest = { 0, 0, GROUP_HAS_SPARE }, s;
    unsigned src = BALANCE_NO_CPU;
    uint64_t total = 0;
    group_stat_of(v, env->dst, &local);
    total += local.load;
    for (unsigned c = 0; c < v->ncpus; c++) {
        if (c == env->dst)
            continue;
        group_stat_of(v, c, &s);
        total += s.load;
        if (!((skip >> c) & 1) && busier(&s, &busiest)) {
            busiest = s;
            src = c;
        }
    }
    if (src == BALANCE_NO_CPU || local.type > busiest.type)
        return BALANCE_NO_CPU;
    uint64_t avg = total / v->ncpus; /* sds->avg_load: capacities are equal */
    if (local.type == GROUP_OVERLOADED) {
        if (local.load >= busiest.load || local.load >= avg)
            return BALANCE_NO_CPU;
        /* the threshold: busiest must exceed local by imbalance_pct */
        if (100 * busiest.load <= IMBALANCE_PCT * local.load)
            return BALANCE_NO_CPU;
    }
    if (busiest.type != GROUP_OVERLOADED) /* one task, or none, is balanced */
        return BALANCE_NO_CPU;
    if (local.type == GROUP_HAS_SPARE) {
        /* spread runnable tasks evenly: half the difference, at least one
         * into an empty group (sibling_imbalance()) */
        env->type = BALANCE_MIGRATE_TASK;
        env->imbalance = (int64_t)(busiest.nr - local.nr) / 2;
        if (env->imbalance < 1 && local.nr == 0)
            env->imbalance = 1;
    } else {
        if (local.load >= busiest.load || local.load >= avg)
            return BALANCE_NO_CPU;
        env->type = BALANCE_MIGRATE_LOAD;
        uint64_t over = busiest.load - avg, under = avg - local.load;
        env->imbalance = (int64_t)(over < under ? over : under);
    }
    return env->imbalance > 0 ? src : BALANCE_NO_CPU;
}

bool balance_can_migrate(const struct balance_env *env, uint64_t allowed)
{
    return allows(allowed, env->dst);
}

unsigned balance_detach(struct balance_env *env, unsigned src_nr, const unsigned *weight, unsigned n,
                        bool (*move)(void *ctx, unsigned i), void *ctx)
{
    unsigned moved = 0;
    for (unsigned i = 0; i < n && env->imbalance > 0; i++) {
        if (env->idle != BALANCE_NOT_IDLE && src_nr <= 1)
            break; /* never empty the busiest for an idle CPU */
        uint64_t load = weight[i];
        if (env->type == BALANCE_MIGRATE_LOAD && (int64_t)load > env->imbalance)
            continue; /* it would overshoot: the imbalance would change side */
        if (!move(ctx, i))
            continue;
        src_nr--;
        moved++;
        env->imbalance -= env->type == BALANCE_MIGRATE_LOAD ? (int64_t)load : 1;
        if (env->idle == BALANCE_NEWLY_IDLE)
            break;
    }
    return moved;
}

/* ---- newly idle: sched_balance_newidle() ---- */

/* rd->overloaded: some CPU has a task waiting. */
static bool overloaded(const struct balance_view *v)
{
    for (unsigned c = 0; c < v->ncpus; c++)
        if (v->cpu[c].nr > 1)
            return true;
    return false;
}

bool balance_newidle_begin(struct balance_state *b, const struct balance_view *v, uint64_t now)
{
    if (!b->idle_stamp)
        b->idle_stamp = now;
    if (now >= b->newidle_decay_at) { /* update_newidle_cost(): 1 % a second */
        b->max_newidle_cost = b->max_newidle_cost * 253 / 256;
        b->newidle_decay_at = now + NS_PER_S;
    }
    /* The cut-off: not worth it when no CPU has a task waiting, or when
     * this CPU's idle stretches are on average shorter than a balance
     * costs. */
    return overloaded(v) && b->avg_idle >= b->max_newidle_cost;
}

void balance_newidle_end(struct balance_state *b, uint64_t cost, bool pulled)
{
    if (cost > b->max_newidle_cost)
        b->max_newidle_cost = cost;
    if (pulled)
        b->idle_stamp = 0; /* not idle after all */
}

void balance_wake_ends_idle(struct balance_state *b, uint64_t now)
{
    if (!b->idle_stamp)
        return;
    uint64_t cap = 2 * (b->max_newidle_cost > BALANCE_MIGRATION_COST_NS ? b->max_newidle_cost : BALANCE_MIGRATION_COST_NS);
    int64_t diff = (int64_t)(now - b->idle_stamp) - (int64_t)b->avg_idle;
    b->avg_idle = (uint64_t)((int64_t)b->avg_idle + diff / 8); /* update_avg() */
    if (b->avg_idle > cap)
        b->avg_idle = cap;
    b->idle_stamp = 0;
}

/* ---- periodic: sched_balance_domains() ---- */

uint64_t balance_interval_ns(unsigned ncpus, unsigned knob_ms, bool busy)
{
    uint64_t ms = knob_ms;
    if (!ms)
        ms = ncpus;
    if (busy)
        ms *= BUSY_FACTOR;
    if (ms > 100ull * ncpus)
        ms = 100ull * ncpus;
    return ms * NS_PER_MS;
}
