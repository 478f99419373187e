/*
 * The balancer as both policy fuzzers drive it (eevdf_fuzz.c, rt_fuzz.c):
 * the picture of their queues and one balance pass of a queue, the rules'
 * (kernel/sched/balance_rules.c) all through. What stays each fuzzer's
 * own: which queued entities may go (its collect, which offers them by
 * balance_pull_offer) and how one moves (its move, as balance_detach's),
 * each checked by its own model.
 *
 * Included by each fuzzer once; static, as a fuzzer is one file.
 */
#ifndef RUNQ_TESTS_FUZZ_BALANCE_H
#define RUNQ_TESTS_FUZZ_BALANCE_H
#include <stdbool.h>

#include "balance_rules.h"
#include "decide.h"
#include "policy.h"

/* The picture of qs[0..nq): each queue's count and the fair class's
 * load; a queue is idle when it runs nothing and has nothing queued. */
static void fuzz_balance_view(struct balance_view *v, const struct sched_policy *P, struct sched_queue *qs, int nq)
{
    v->ncpus = (unsigned)nq;
    for (int k = 0; k < nq; k++) {
        v->cpu[k].nr = sched_nr_runnable(&qs[k]);
        v->cpu[k].load = sched_fair_load(P, &qs[k]);
        v->cpu[k].idle = v->cpu[k].nr == 0;
    }
}

/* One balance pass of queue dst of qs[0..nq) (idle: the caller's word
 * that it runs and holds nothing): newidle if idle and the switch is on,
 * else periodic if its switch is. The busiest queue's fair entities go
 * through collect(se, pull) (which returns balance_pull_walk_on: the walk
 * stops at loop_max), then balance_detach moves the candidates by
 * move(pull, i). */
static void fuzz_balance_pass(const struct sched_policy *P, struct sched_queue *qs, int nq, int dst, bool idle,
                              sched_visit_fn *collect, bool (*move)(void *pull, unsigned i))
{
    struct balance_view v;
    struct balance_env env = { .dst = (unsigned)dst };

    if (idle && balance_newidle_on((unsigned)nq)) {
        env.idle = BALANCE_NEWLY_IDLE;
        env.why = BALANCE_WHY_NEWIDLE;
    } else if (balance_periodic_on((unsigned)nq)) {
        env.idle = idle ? BALANCE_IDLE : BALANCE_NOT_IDLE;
        env.why = BALANCE_WHY_PERIODIC;
    } else {
        return;
    }
    fuzz_balance_view(&v, P, qs, nq);
    unsigned src = balance_find_busiest(&v, &env, 0);
    if (src == BALANCE_NO_CPU)
        return;
    env.src = src;
    struct balance_pull pull = { .env = &env, .n = 0 };
    P->for_each_queued(&qs[src], collect, &pull);
    balance_detach(&env, sched_nr_runnable(&qs[src]), pull.weight, pull.n, move, &pull);
}

#endif
