/*
 * What a balance costs (issue 35's speed target): a periodic pass and a
 * newidle pull, at 2, 4, 8 and 16 CPUs with 4 to 256 tasks, on the host,
 * from the same code the kernel runs.
 *
 * A pass is what kernel/sched/balance.c's balance_rq() does under the
 * busiest CPU's lock, minus the lock and the move itself:
 *   - the machine's picture (struct balance_view, one entry a CPU, as
 *     view_now() reads it from each CPU's counters);
 *   - balance_find_busiest() over it (balance_rules.c);
 *   - the busiest queue's tasks collected as detach_collect() collects
 *     them, through the fair policy's for_each_queued (eevdf.c, compiled
 *     here as in the kernel), at most BALANCE_NR_MIGRATE kept;
 *   - balance_detach() over them, each move accepted but not made, so
 *     every repetition sees the same machine.
 * A newidle pull is balance_newidle_begin()'s cut-off and the same pass
 * as a newly idle CPU makes it (one task at the most).
 *
 * The machine: CPU 0 idle (the one balancing), the tasks (nice 0, on
 * every CPU's set) spread over the others with half of them on CPU 1, the
 * busiest. Linux's detach_tasks() looks at no more than
 * sysctl_sched_nr_migrate (32) tasks of the busiest queue, so a pass is
 * O(CPUs + moved tasks); `walked` counts the queued tasks the pass's walk
 * visited, and the target line holds it to that bound at 256 tasks.
 * Timings on a shared machine are not a test: the exit status is 0.
 * Build (no sanitizers, optimised): make build/bench/bench_balance.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance_rules.h"
#include "decide.h"
#include "eevdf.h"
#include "eevdf_features.h"
#include "host/base/clock.h"
#include "policy.h"
#include "weights.h"

#define REPS 5
#define MIN_RUN_NS 1000000ull /* time each measurement at least this long */
#define MAX_TASKS 256

static const struct sched_policy *P = &eevdf_policy;

struct machine {
    unsigned ncpus, ntasks;
    struct sched_queue q[BALANCE_MAX_CPUS];
    struct sched_entity se[MAX_TASKS];
    unsigned nr[BALANCE_MAX_CPUS];
};

/* The tasks over CPUs 1..ncpus-1, half of them on CPU 1; each queue's
 * first task current, as a running task is. */
static void machine_init(struct machine *m, unsigned ncpus, unsigned ntasks)
{
    struct sched_params p = { .ncpus = ncpus, .tick_ns = 4000000 };
    memset(m, 0, sizeof *m);
    m->ncpus = ncpus;
    m->ntasks = ntasks;
    for (unsigned c = 0; c < ncpus; c++)
        sched_queue_init(P, &m->q[c], &p);
    for (unsigned i = 0; i < ntasks; i++) {
        unsigned c = i < ntasks / 2 || ncpus == 2 ? 1 : 1 + i % (ncpus - 1);
        m->se[i].id = (int)i;
        P->init_entity(&m->q[c], &m->se[i]);
        P->join(&m->q[c], &m->se[i], SCHED_JOIN_NEW);
        m->nr[c]++;
    }
    for (unsigned c = 1; c < ncpus; c++) {
        struct sched_decision d;
        sched_decide(P, &m->q[c], NULL, SCHED_LEAVE_BLOCK, &d);
    }
}

/* view_now(): each CPU's runnable count, fair load and idleness. */
static void view_of(const struct machine *m, struct balance_view *v)
{
    v->ncpus = m->ncpus;
    for (unsigned c = 0; c < m->ncpus; c++)
        v->cpu[c] = (struct balance_cpu){ .nr = m->nr[c], .load = (uint64_t)m->nr[c] * 1024, .idle = m->nr[c] == 0 };
}

/* detach_collect(), as the kernel's, into balance_rules.h's list (as runq
 * sim keeps it): each queued entity visited until loop_max; the list's
 * walked counts the visits (balance_pull_walk_on runs at every one). */
static bool collect(struct sched_entity *se, void *arg)
{
    struct balance_pull *x = arg;
    balance_pull_offer(x, se, ~0ull, sched_nice_to_weight(se->nice));
    return balance_pull_walk_on(x);
}

static bool accept(void *ctx, unsigned i)
{
    (void)ctx, (void)i;
    return true;
}

static unsigned last_seen; /* entities the last pass's walk visited */

/* One pass by CPU 0: the tasks it would pull. */
static unsigned pass(struct machine *m, enum balance_idle idle, struct balance_state *b)
{
    struct balance_view v;
    view_of(m, &v);
    if (idle == BALANCE_NEWLY_IDLE && !balance_newidle_begin(b, &v, 1))
        return 0;
    struct balance_env env = { .dst = 0, .idle = idle,
                               .why = idle == BALANCE_NEWLY_IDLE ? BALANCE_WHY_NEWIDLE : BALANCE_WHY_PERIODIC };
    unsigned src = balance_find_busiest(&v, &env, 0);
    if (src == BALANCE_NO_CPU)
        return 0;
    env.src = src;
    struct balance_pull x = { .env = &env };
    P->for_each_queued(&m->q[src], collect, &x);
    last_seen = x.walked;
    return balance_detach(&env, m->nr[src], x.weight, x.n, accept, NULL);
}

static volatile unsigned sink;

static double time_pass(struct machine *m, enum balance_idle idle, unsigned *moved)
{
    struct balance_state b;
    for (uint64_t iters = 64;; iters *= 2) {
        unsigned acc = 0;
        uint64_t t0 = mono_ns();
        for (uint64_t i = 0; i < iters; i++) {
            balance_state_init(&b);
            acc += pass(m, idle, &b);
        }
        uint64_t t = mono_ns() - t0;
        sink = acc;
        if (t >= MIN_RUN_NS) {
            *moved = (unsigned)(acc / iters);
            return (double)t / (double)iters;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(struct machine *m, enum balance_idle idle, unsigned *moved, unsigned *seen)
{
    double t[REPS];
    for (int k = 0; k < REPS; k++)
        t[k] = time_pass(m, idle, moved);
    *seen = last_seen;
    qsort(t, REPS, sizeof *t, cmp_double);
    return t[REPS / 2];
}

int main(void)
{
    static const unsigned cpus[] = { 2, 4, 8, 16 }, tasks[] = { 4, 16, 64, 256 };
    static struct machine m;
    double pass16[4] = { 0 };
    unsigned walked16 = 0;

    eevdf_features_reset();
    printf("%5s %6s %10s %7s %7s %11s %7s\n", "cpus", "tasks", "pass_ns", "moved", "walked", "newidle_ns", "pulled");
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 4; j++) {
            unsigned moved, pulled, seen, seen2;
            machine_init(&m, cpus[i], tasks[j]);
            double p = median_of(&m, BALANCE_IDLE, &moved, &seen);
            double n = median_of(&m, BALANCE_NEWLY_IDLE, &pulled, &seen2);
            printf("%5u %6u %10.1f %7u %7u %11.1f %7u\n", cpus[i], tasks[j], p, moved, seen, n, pulled);
            fflush(stdout);
            if (cpus[i] == 16) {
                pass16[j] = p;
                walked16 = seen;
            }
        }
    double growth = pass16[3] / pass16[1];
    printf("a pass at 16 CPUs, 16 -> 256 tasks: x%.2f in ns; it walked %u queued tasks of the busiest CPU at 256 "
           "(Linux's detach_tasks() looks at %u at the most)\n",
           growth, walked16, BALANCE_NR_MIGRATE);
    /* The walk is what grows with the tasks, and it is counted, not timed:
     * the same on any machine. */
    printf("target balance_pass_walked_at_256_tasks %u <= %u tasks visited, at 16 CPUs\n", walked16,
           BALANCE_NR_MIGRATE);
    return 0;
}
