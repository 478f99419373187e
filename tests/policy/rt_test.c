/*
 * Host unit tests of the real-time class (kernel/sched/rt.c) and of the
 * class layer above it (kernel/sched/decide.c), driven only through the
 * class layer the kernel's core calls (decide.h), with eevdf as the fair
 * policy, and rr too where the fair policy could matter. Each test prints
 * PASS name or FAIL name: why (tests/harness.h).
 *
 * Each behaviour test was seen to fail with its bug put back in rt.c or
 * decide.c (docs/testing.md, rt_policy).
 *
 * Build: make build/tests/rt_test.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "eevdf_features.h"
#include "tests/harness.h"
#include "policy.h"

#define MS 1000000ull
#define TICK (10 * MS)

static const struct sched_policy *P = &eevdf_policy;
static struct sched_queue q;
static struct sched_entity ent[8];

static void setup(const struct sched_policy *fair)
{
    struct sched_params p = { .ncpus = 1, .tick_ns = TICK };

    P = fair;
    eevdf_features_reset();
    memset(ent, 0, sizeof ent);
    sched_queue_init(P, &q, &p);
}

/* Entity id joins q, new: fair if prio is 0, else RT at prio with policy. */
static struct sched_entity *spawn(int id, unsigned prio, unsigned policy)
{
    struct sched_entity *se = &ent[id];

    se->id = id;
    sched_set_class(P, se, prio, policy);
    sched_init_entity(P, &q, se);
    sched_join(P, &q, se, SCHED_JOIN_NEW);
    return se;
}

static struct sched_decision last;

/* One decision, as the core makes it; leaving blocks if not NULL. */
static struct sched_entity *decide_leaving(struct sched_entity *leaving)
{
    return sched_decide(P, &q, leaving, SCHED_LEAVE_BLOCK, &last);
}

static struct sched_entity *decide(void)
{
    return decide_leaving(NULL);
}

static int running_id(void)
{
    return sched_running(&q) ? sched_running(&q)->id : -1;
}

/* A tick of run time for the running entity, as the core's tick does it:
 * charge, then ask; decides if either wants it. True if a decision ran. */
static bool tick(void)
{
    bool want = sched_charge(P, &q, TICK);

    if (sched_tick(P, &q))
        want = true;
    if (want)
        decide();
    return want;
}

/* Ids of the queued entities in the class layer's order (RT first). */
struct order {
    int n, id[8];
};

static bool note(struct sched_entity *se, void *arg)
{
    struct order *o = arg;

    o->id[o->n++] = se->id;
    return true;
}

static struct order queued(void)
{
    struct order o = { 0, { 0 } };

    sched_for_each_queued(P, &q, note, &o);
    return o;
}

/* ---- priorities and order --------------------------------------------- */

static void rt_higher_priority_runs_first(void)
{
    setup(&eevdf_policy);
    spawn(0, 0, 0);
    spawn(1, 1, RT_FIFO);
    spawn(2, 99, RT_FIFO);
    CHECK(decide()->id == 2, "picked %d, want 2 (prio 99)", running_id());
    CHECK(decide_leaving(&ent[2])->id == 1, "after 99 blocks: %d, want 1 (prio 1)", running_id());
    CHECK(decide_leaving(&ent[1])->id == 0, "after 1 blocks: %d, want the fair 0", running_id());
}

static void rt_fifo_runs_the_first_joined_until_it_blocks(void)
{
    setup(&eevdf_policy);
    for (int i = 0; i < 3; i++)
        spawn(i, 50, RT_FIFO);
    CHECK(decide()->id == 0, "picked %d, want the first joined (0)", running_id());
    for (int k = 0; k < 50; k++) /* 500 ms: FIFO has no quantum */
        CHECK(!tick() && running_id() == 0, "tick %d: %d runs, want 0", k, running_id());
    CHECK(decide_leaving(&ent[0])->id == 1, "after 0 blocks: %d, want 1", running_id());
}

/* A preempted FIFO entity keeps the head of its priority: after the
 * higher one leaves, it runs again before its equals. */
static void rt_preempted_fifo_keeps_its_head(void)
{
    struct order o;

    setup(&eevdf_policy);
    for (int i = 0; i < 3; i++)
        spawn(i, 50, RT_FIFO);
    decide();
    spawn(3, 90, RT_FIFO);
    CHECK(sched_wakeup_preempt(P, &q, &ent[3]), "a higher priority must preempt");
    CHECK(decide()->id == 3, "picked %d, want 3 (prio 90)", running_id());
    o = queued();
    CHECK(o.n == 3 && o.id[0] == 0 && o.id[1] == 1 && o.id[2] == 2, "queued %d: %d %d %d, want 0 1 2", o.n, o.id[0],
          o.id[1], o.id[2]);
    CHECK(decide_leaving(&ent[3])->id == 0, "after 90 blocks: %d, want the preempted 0", running_id());
}

/* RR: after a quantum (100 ms of ticks) the entity goes behind an equal,
 * not before, and alone it runs on. */
static void rt_rr_quantum_goes_behind_an_equal(void)
{
    int k;

    setup(&eevdf_policy);
    spawn(0, 50, RT_RR);
    spawn(1, 50, RT_RR);
    decide();
    for (k = 1; k < (int)(RT_RR_QUANTUM_NS / TICK); k++)
        CHECK(!tick() && running_id() == 0, "tick %d of the quantum: %d runs, want 0", k, running_id());
    CHECK(tick() && running_id() == 1, "quantum used: %d runs, want 1", running_id());
    CHECK(queued().n == 1 && queued().id[0] == 0, "0 is not behind 1");
    CHECK(decide_leaving(&ent[1])->id == 0, "after 1 blocks: %d", running_id());
    for (k = 0; k < 3 * (int)(RT_RR_QUANTUM_NS / TICK); k++) /* alone: three quanta */
        CHECK(!tick() && running_id() == 0, "alone, tick %d: %d runs", k, running_id());
}

static void rt_yield_goes_behind_equals(void)
{
    setup(&eevdf_policy);
    spawn(0, 50, RT_FIFO);
    spawn(1, 50, RT_FIFO);
    spawn(2, 40, RT_FIFO);
    decide();
    sched_yield_curr(P, &q);
    CHECK(decide()->id == 1, "after 0 yields: %d, want its equal 1", running_id());
    CHECK(decide_leaving(&ent[1])->id == 0, "after 1 blocks: %d, want 0 (before the lower 2)", running_id());
}

/* A yield with no equal to give way to changes nothing, then or later: an
 * equal that joins afterwards queues behind it (Linux's yield_task_rt()
 * requeues at once; runq must not keep a mark for a later put_back). */
static void rt_lone_yield_leaves_no_mark(void)
{
    setup(&eevdf_policy);
    spawn(0, 50, RT_FIFO);
    decide();
    sched_yield_curr(P, &q);
    CHECK(decide()->id == 0, "a lone yielder lost the CPU to %d", running_id());
    spawn(1, 50, RT_FIFO);
    CHECK(!sched_wakeup_preempt(P, &q, &ent[1]), "an equal preempts");
    CHECK(decide()->id == 0, "a later decision gave the CPU to the equal %d", running_id());
    spawn(2, 90, RT_FIFO);
    decide();
    CHECK(decide_leaving(&ent[2])->id == 0, "after a higher one came and went: %d, want 0", running_id());
}

/* ---- across classes ---------------------------------------------------- */

/* An RT join preempts a fair current at once, and the fair one is
 * reported released; a fair wakee never preempts RT. Under both fair
 * policies: the class layer answers, not the fair policy. */
static void rt_join_preempts_fair_and_not_back(void)
{
    const struct sched_policy *fair[] = { &eevdf_policy, &rr_policy };

    for (int f = 0; f < 2; f++) {
        setup(fair[f]);
        spawn(0, 0, 0);
        CHECK(decide()->id == 0, "%s: the fair one does not run", P->name);
        spawn(1, 10, RT_FIFO);
        CHECK(sched_wakeup_preempt(P, &q, &ent[1]), "%s: an RT join does not preempt fair", P->name);
        CHECK(decide()->id == 1 && last.displaced && last.released && last.prev == &ent[0],
              "%s: next %d displaced %d released %d", P->name, running_id(), last.displaced, last.released);
        spawn(2, 0, 0);
        CHECK(!sched_wakeup_preempt(P, &q, &ent[2]), "%s: a fair wakee preempts RT", P->name);
        spawn(3, 20, RT_FIFO);
        CHECK(sched_wakeup_preempt(P, &q, &ent[3]) && decide()->id == 3 && last.displaced && !last.released,
              "%s: RT over RT reported as a release (%d)", P->name, last.released);
        decide_leaving(&ent[3]);
        decide_leaving(&ent[1]);
        CHECK(running_id() == 0 || running_id() == 2, "%s: no fair one runs after RT (%d)", P->name, running_id());
        CHECK(!last.released, "%s: fair after RT reported as a release", P->name);
    }
}

/* The budget: RT charged past it while fair work waits asks for a
 * decision, which runs the fair one; a new period lets RT back in. */
static void rt_budget_throttles_with_fair_work(void)
{
    setup(&eevdf_policy);
    rt_set_runtime(&q, 30 * MS);
    spawn(0, 0, 0);
    spawn(1, 50, RT_FIFO);
    CHECK(decide()->id == 1, "RT does not run first");
    CHECK(sched_timer_ns(P, &q) == 30 * MS, "timer %" PRIu64 ", want the budget", sched_timer_ns(P, &q));
    CHECK(!sched_charge(P, &q, 20 * MS) && !sched_rt_throttled(&q), "throttled at 20 of 30 ms");
    CHECK(sched_timer_ns(P, &q) == 10 * MS, "timer %" PRIu64 ", want what is left", sched_timer_ns(P, &q));
    CHECK(sched_charge(P, &q, 10 * MS), "the charge that used the budget asks for no decision");
    CHECK(sched_rt_throttled(&q), "not throttled with the budget used and fair work");
    CHECK(decide()->id == 0 && !last.released, "after the budget: %d, want the fair 0", running_id());
    CHECK(!tick() && running_id() == 0, "a tick while throttled gave the CPU to %d", running_id());
    spawn(2, 99, RT_FIFO);
    CHECK(!sched_wakeup_preempt(P, &q, &ent[2]), "an RT join preempts across a used budget");
    rt_new_period(&q);
    CHECK(!sched_rt_throttled(&q), "still throttled in a new period");
    CHECK(decide()->id == 2 && last.released, "new period: %d runs, want 2", running_id());
}

static void rt_budget_without_fair_work_runs_on(void)
{
    setup(&eevdf_policy);
    rt_set_runtime(&q, 30 * MS);
    spawn(1, 50, RT_FIFO);
    decide();
    CHECK(sched_timer_ns(P, &q) == UINT64_MAX, "a timer with nothing fair to run");
    CHECK(!sched_charge(P, &q, 50 * MS), "past the budget alone asks for a decision");
    CHECK(!sched_rt_throttled(&q) && decide()->id == 1, "RT alone stopped (%d runs)", running_id());
    spawn(0, 0, 0);
    CHECK(sched_wakeup_preempt(P, &q, &ent[0]), "a fair wakee does not preempt RT past its budget");
    CHECK(decide()->id == 0, "%d runs, want the fair 0", running_id());
}

/* EEVDF's sums are right when RT preempts a fair current: the put back
 * changes neither V nor the lag and vruntime of the one put back. */
static void rt_preemption_keeps_eevdf_sums(void)
{
    struct sched_entity_view a, b;
    struct sched_queue_view va, vb;
    struct sched_entity *f;

    setup(&eevdf_policy);
    for (int i = 0; i < 3; i++)
        spawn(i, 0, 0);
    decide();
    for (int k = 0; k < 5; k++) {
        sched_charge(P, &q, 3 * MS);
        decide();
    }
    f = sched_running(&q);
    sched_charge(P, &q, 1 * MS);
    P->describe_queue(&q, true, &va);
    sched_describe(P, &q, NULL, f, &a);
    spawn(3, 1, RT_FIFO);
    CHECK(sched_wakeup_preempt(P, &q, &ent[3]) && decide()->id == 3, "RT did not take the CPU");
    P->describe_queue(&q, true, &vb);
    sched_describe(P, &q, NULL, f, &b);
    eevdf_check(&q);
    CHECK(va.V == vb.V && va.nr_eligible == vb.nr_eligible, "V %" PRIu64 " -> %" PRIu64 ", eligible %u -> %u", va.V,
          vb.V, va.nr_eligible, vb.nr_eligible);
    CHECK(a.lag == b.lag && a.vruntime == b.vruntime && a.deadline == b.deadline,
          "%d put back: lag %" PRId64 " -> %" PRId64 ", vruntime %" PRIu64 " -> %" PRIu64, f->id, a.lag, b.lag,
          a.vruntime, b.vruntime);
    CHECK(q.curr == NULL && q.nr_queued == 3, "fair curr %p, queued %u, want none and 3", (void *)q.curr, q.nr_queued);
}

/* ---- misuse ------------------------------------------------------------ */

static void class_change_on_a_queue(void)
{
    setup(&eevdf_policy);
    spawn(0, 0, 0);
    sched_set_class(P, &ent[0], 50, RT_FIFO);
}

static void class_change_while_running(void)
{
    setup(&eevdf_policy);
    spawn(0, 50, RT_RR);
    decide();
    sched_set_class(P, &ent[0], 0, RT_FIFO);
}

static void priority_out_of_range(void)
{
    setup(&eevdf_policy);
    sched_set_class(P, &ent[0], RT_PRIO_MAX + 1, RT_FIFO);
}

static void rt_join_twice(void)
{
    setup(&eevdf_policy);
    spawn(0, 50, RT_FIFO);
    sched_join(P, &q, &ent[0], SCHED_JOIN_WAKE);
}

static void rt_misuse_panics(void)
{
    CHECK(harness_dies(class_change_on_a_queue), "a class change of a queued entity did not BUG");
    CHECK(harness_dies(class_change_while_running), "a class change of the running entity did not BUG");
    CHECK(harness_dies(priority_out_of_range), "priority 100 did not BUG");
    CHECK(harness_dies(rt_join_twice), "an RT entity joining twice did not BUG");
}

static const struct harness_test tests[] = {
    HARNESS_TEST(rt_higher_priority_runs_first),
    HARNESS_TEST(rt_fifo_runs_the_first_joined_until_it_blocks),
    HARNESS_TEST(rt_preempted_fifo_keeps_its_head),
    HARNESS_TEST(rt_rr_quantum_goes_behind_an_equal),
    HARNESS_TEST(rt_yield_goes_behind_equals),
    HARNESS_TEST(rt_lone_yield_leaves_no_mark),
    HARNESS_TEST(rt_join_preempts_fair_and_not_back),
    HARNESS_TEST(rt_budget_throttles_with_fair_work),
    HARNESS_TEST(rt_budget_without_fair_work_runs_on),
    HARNESS_TEST(rt_preemption_keeps_eevdf_sums),
    HARNESS_TEST(rt_misuse_panics),
};

HARNESS_MAIN(tests)
