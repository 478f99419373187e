/*
 * The balancer's decisions (balance_rules.c), over a plain picture of
 * the machine: which CPU a woken task joins, whether a CPU about to go
 * idle pulls and from whom, the periodic pass's busiest CPU, its
 * imbalance and which tasks go. Like a policy it knows nothing of locks,
 * interrupts or tasks' stacks, so the same source decides in the kernel
 * (kernel/sched/balance.c, which fills the picture from its queues and
 * moves what this says with its locks) and on the host (`runq sim`, the
 * policy fuzzers).
 *
 * All of it is off unless its feature switch is on (eevdf_features.h:
 * BALANCE_WAKE with WA_IDLE and WA_WEIGHT, BALANCE_NEWIDLE,
 * BALANCE_PERIODIC); a caller asks balance_*_on() before it builds a
 * picture, so a machine with the switches off pays for none.
 */
#ifndef RUNQ_SCHED_BALANCE_RULES_H
#define RUNQ_SCHED_BALANCE_RULES_H
#include <stdbool.h>
#include <stdint.h>

#include "eevdf_features.h"

#define BALANCE_MAX_CPUS 64
#define BALANCE_NO_CPU (~0u)
/* sysctl_sched_nr_migrate: tasks one pass looks at, at most. */
#define BALANCE_NR_MIGRATE 32

/* Why a task moves: trace/format.h's first reasons, in its order (this
 * layer sees no wire format; balance.c asserts that the two agree). */
enum balance_why {
    BALANCE_WHY_IDLE_PREV,    /* woken: its previous CPU was idle */
    BALANCE_WHY_IDLE_SIBLING, /* woken: an idle CPU it may run on */
    BALANCE_WHY_AFFINE,       /* woken: its waker's CPU */
    BALANCE_WHY_NEWIDLE,      /* pulled by a CPU about to go idle */
    BALANCE_WHY_PERIODIC,     /* pulled by the periodic balance */
};

/* One CPU as the balancer sees it, read without its lock (a hint). */
struct balance_cpu {
    unsigned nr;   /* runnable tasks of both classes, the running one included */
    uint64_t load; /* the fair class's runnable weight (decide.h's sched_fair_load) */
    bool idle;     /* Linux's available_idle_cpu(): runs its idle task, no wakeup on its way */
};

/* The machine: ncpus (2..BALANCE_MAX_CPUS) CPUs of equal capacity in one
 * flat domain. */
struct balance_view {
    unsigned ncpus;
    struct balance_cpu cpu[BALANCE_MAX_CPUS];
};

/* ---- wakeup placement: select_task_rq_fair() ----
 * The switches' tests are inline: the kernel asks them on every wakeup
 * and timer tick, and with them off pays exactly what it did before the
 * rules had a file of their own. */

/* Whether a wakeup is placed at all: BALANCE_WAKE on, two CPUs or more,
 * and the task fair (an RT task's push on release stays rt.c's). */
static inline bool balance_wake_on(unsigned ncpus, bool rt)
{
    return eevdf_feature(EEVDF_F_BALANCE_WAKE) && ncpus >= 2 && !rt;
}

/* The CPU a woken task joins: prev (where it slept), or another of
 * `allowed` (bit n: it may run on CPU n). weight: its nice's weight;
 * waker: the CPU the wakeup runs on. *why: the rule that chose,
 * meaningful when the answer is not prev. An answer other than prev is
 * always in allowed. */
unsigned balance_wake_target(const struct balance_view *v, uint64_t allowed, unsigned weight, unsigned prev,
                          unsigned waker, enum balance_why *why);

/* ---- the balance: sched_balance_rq() for single-CPU groups ---- */

enum balance_idle { BALANCE_NOT_IDLE, BALANCE_IDLE, BALANCE_NEWLY_IDLE }; /* enum cpu_idle_type */
enum balance_migration { BALANCE_MIGRATE_TASK, BALANCE_MIGRATE_LOAD };

/* One pass: dst pulls from src (lb_env). */
struct balance_env {
    unsigned dst, src;
    enum balance_idle idle;
    enum balance_migration type;
    int64_t imbalance; /* tasks (MIGRATE_TASK) or weight (MIGRATE_LOAD) to move */
    enum balance_why why;
};

/* find_busiest_group() and calculate_imbalance(): the CPU env->dst
 * should pull from, not one of skip's bits, with how much into env; or
 * BALANCE_NO_CPU when the machine is balanced as far as dst can tell. */
unsigned balance_find_busiest(const struct balance_view *v, struct balance_env *env, uint64_t skip);

/* can_migrate_task()'s rule: a queued task that is not running, not
 * delayed and not the idle task (the caller's facts) may go to env->dst
 * if allowed holds it. */
bool balance_can_migrate(const struct balance_env *env, uint64_t allowed);

/* detach_tasks(): of the n candidates (each balance_can_migrate, in the
 * queue's order, n <= BALANCE_NR_MIGRATE) with their weights, which go,
 * until the imbalance is met: move(ctx, i) moves candidate i and says
 * whether it could. src_nr: src's runnable count. A newidle pull stops
 * after one. Returns how many moved. */
unsigned balance_detach(struct balance_env *env, unsigned src_nr, const unsigned *weight, unsigned n,
                        bool (*move)(void *ctx, unsigned i), void *ctx);

/* detach_tasks()'s list, for a caller that collects it from src's queue
 * (runq sim, the policy fuzzers): the candidates in the queue's order,
 * each the caller's own handle (its task), with their weights, as
 * balance_detach reads them. */
struct balance_pull {
    const struct balance_env *env;
    void *cand[BALANCE_NR_MIGRATE];
    unsigned weight[BALANCE_NR_MIGRATE];
    unsigned n;
    unsigned walked; /* the queued tasks looked at (env->loop) */
};

/* can_migrate_task()'s end: a task the caller found queued, not running,
 * not delayed and not the idle task, of set allowed and weight weight,
 * joins p's list while it has room and if balance_can_migrate says so. */
static inline void balance_pull_offer(struct balance_pull *p, void *cand, uint64_t allowed, unsigned weight)
{
    if (p->n < BALANCE_NR_MIGRATE && balance_can_migrate(p->env, allowed)) {
        p->weight[p->n] = weight;
        p->cand[p->n++] = cand;
    }
}

/* detach_tasks()'s loop_max: a pass looks at no more than
 * BALANCE_NR_MIGRATE of src's queued tasks, whether they may move or not,
 * so its cost is O(CPUs + moved tasks) however long the queue. A
 * collector returns this (its walk goes on while true) after each task it
 * was shown. Linux walks from the tail of cfs_tasks, the tasks that ran
 * longest ago; runq walks in its policy's order (for_each_queued). */
static inline bool balance_pull_walk_on(struct balance_pull *p)
{
    return ++p->walked < BALANCE_NR_MIGRATE;
}

/* ---- newly idle and periodic: each CPU's timing ---- */

/* Each CPU's balance state (its queue's lock held; zeroed, then
 * balance_state_init). Times in ns of the caller's clock. */
struct balance_state {
    uint64_t next_balance;     /* when the periodic balance is next due (0: not armed) */
    uint64_t idle_stamp;       /* when a newidle balance began an idle stretch (0: busy since) */
    uint64_t avg_idle;         /* the average idle stretch (Linux's rq->avg_idle) */
    uint64_t max_newidle_cost; /* the costliest newidle balance, decaying (sd->max_newidle_lb_cost) */
    uint64_t newidle_decay_at; /* when that cost next decays */
};

/* sysctl_sched_migration_cost: the newidle cost cut-off's floor. */
#define BALANCE_MIGRATION_COST_NS 500000ull

static inline void balance_state_init(struct balance_state *b)
{
    b->avg_idle = 2 * BALANCE_MIGRATION_COST_NS; /* sched_init(): rq->avg_idle */
    b->max_newidle_cost = 0;
    b->idle_stamp = 0;
    b->next_balance = 0;
}

/* Whether a CPU that found nothing to run balances: BALANCE_NEWIDLE on,
 * two CPUs or more. */
static inline bool balance_newidle_on(unsigned ncpus)
{
    return eevdf_feature(EEVDF_F_BALANCE_NEWIDLE) && ncpus >= 2;
}

/* A CPU found nothing to run at now: whether a newidle balance is worth
 * its cost (sched_balance_newidle()'s cut-off: some CPU of v has a task
 * waiting, and idle stretches are longer than a balance costs). Starts the idle stretch and decays the cost. */
bool balance_newidle_begin(struct balance_state *b, const struct balance_view *v, uint64_t now);
/* The newidle balance took cost ns and pulled or not. */
void balance_newidle_end(struct balance_state *b, uint64_t cost, bool pulled);
/* Woken tasks join the CPU at now: its idle stretch, if a newidle
 * balance began one, ends (ttwu_do_activate()'s rq->avg_idle). */
void balance_wake_ends_idle(struct balance_state *b, uint64_t now);

/* Whether the periodic balance runs at all: BALANCE_PERIODIC on, two
 * CPUs or more. */
static inline bool balance_periodic_on(unsigned ncpus)
{
    return eevdf_feature(EEVDF_F_BALANCE_PERIODIC) && ncpus >= 2;
}
/* get_sd_balance_interval(): knob_ms (balance_interval_ms; 0: Linux's
 * default, a ms a CPU), times busy_factor on a busy CPU, at most 100 ms
 * a CPU. */
uint64_t balance_interval_ns(unsigned ncpus, unsigned knob_ms, bool busy);

#endif
