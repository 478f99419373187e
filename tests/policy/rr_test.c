/*
 * Host unit tests of policy rr (kernel/sched/rr.c), driven through the
 * same ops table the kernel uses, in the kernel's decision order.
 * Each test prints PASS name or FAIL name: why (tests/harness.h).
 */
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "eevdf_features.h"
#include "tests/harness.h"
#include "policy.h"

static const struct sched_policy *P = &rr_policy;

/* A queue and n entities (ids 0..n-1), the first `joined` of them joined
 * as new, in id order. */
static void setup(struct sched_queue *q, struct sched_entity *se, int n, int joined)
{
    struct sched_params p = { .ncpus = 4, .tick_ns = 10000000 };
    sched_queue_init(P, q, &p);
    for (int i = 0; i < n; i++) {
        memset(&se[i], 0, sizeof se[i]);
        se[i].id = i;
        P->init_entity(q, &se[i]);
    }
    for (int i = 0; i < joined; i++)
        P->join(q, &se[i], SCHED_JOIN_NEW);
}

/* One decision as the core makes it (decide.h); returns the entity now current. */
static struct sched_entity *decide(struct sched_queue *q)
{
    struct sched_decision d;
    return sched_decide(P, q, NULL, SCHED_LEAVE_BLOCK, &d);
}

static void rr_turns_in_list_order(void)
{
    struct sched_queue q;
    struct sched_entity se[3];
    setup(&q, se, 3, 3);
    int order[7];
    for (int k = 0; k < 7; k++)
        order[k] = decide(&q)->id;
    int want[7] = { 0, 1, 2, 0, 1, 2, 0 };
    CHECK(memcmp(order, want, sizeof want) == 0, "order %d %d %d %d %d %d %d", order[0], order[1], order[2],
          order[3], order[4], order[5], order[6]);
}

static void rr_wakeup_takes_first_in_list_not_woken(void)
{
    struct sched_queue q;
    struct sched_entity se[4];
    setup(&q, se, 4, 3); /* three spinners */
    CHECK(decide(&q)->id == 0, "first pick");
    P->join(&q, &se[3], SCHED_JOIN_WAKE); /* the waiter wakes */
    CHECK(P->wakeup_preempt(&q, &se[3]), "a wakeup must reschedule");
    struct sched_entity *n = decide(&q); /* the IPI's decision */
    CHECK(n->id == 1, "IPI decision took %d, the round robin takes the head (1)", n->id);
    /* the waiter then waits a tick behind each spinner ahead of it */
    CHECK(P->tick(&q) && decide(&q)->id == 2, "tick 1");
    CHECK(P->tick(&q) && decide(&q)->id == 3, "tick 2 must reach the waiter");
}

static void rr_tick_preempts_only_with_company(void)
{
    struct sched_queue q;
    struct sched_entity se[2];
    setup(&q, se, 2, 1);
    decide(&q);
    CHECK(!P->tick(&q), "a lone task is preempted");
    CHECK(P->timer_ns(&q) == UINT64_MAX, "rr asks for a timer");
    P->join(&q, &se[1], SCHED_JOIN_NEW);
    CHECK(P->tick(&q), "a tick with a waiting task must preempt");
}

static void rr_leave_current_and_listed(void)
{
    struct sched_queue q;
    struct sched_entity se[3];
    setup(&q, se, 3, 3);
    decide(&q); /* 0 current, list 1 2 */
    P->leave(&q, &se[2], SCHED_LEAVE_BLOCK);
    P->leave(&q, &se[0], SCHED_LEAVE_BLOCK);
    CHECK(q.curr == NULL && q.nr_queued == 1, "curr %p queued %u", (void *)q.curr, q.nr_queued);
    CHECK(!se[0].on_queue && !se[2].on_queue && se[1].on_queue, "on_queue flags");
    CHECK(decide(&q) == &se[1], "the one left must run");
}

static void rr_nice_changes_nothing(void)
{
    struct sched_queue q;
    struct sched_entity se[2];
    setup(&q, se, 2, 2);
    P->set_nice(&q, &se[0], -20);
    P->set_nice(&q, &se[1], 19);
    int runs[2] = { 0, 0 };
    for (int k = 0; k < 100; k++)
        runs[decide(&q)->id]++;
    CHECK(runs[0] == 50 && runs[1] == 50 && se[0].nice == -20, "turns %d/%d", runs[0], runs[1]);
}

/* The waiter (3) runs once after three spinners, blocks, and wakes after
 * the spinners 0 and 1 have each had a turn since; who runs after the
 * next tick. */
static int waiter_turn_after_wake(bool in_place, int order[3])
{
    struct sched_queue q;
    struct sched_entity se[4];
    eevdf_feature_set("RR_SLEEPERS_IN_PLACE", in_place);
    setup(&q, se, 4, 4); /* list 0 1 2 3 */
    for (int k = 0; k < 4; k++)
        decide(&q); /* 0, 1, 2, then the waiter */
    P->leave(&q, &se[3], SCHED_LEAVE_BLOCK);
    order[0] = decide(&q)->id; /* 0, from list 0 1 2 */
    order[1] = decide(&q)->id; /* 1, 0 to the tail behind the sleeper's place */
    P->join(&q, &se[3], SCHED_JOIN_WAKE);
    order[2] = decide(&q)->id; /* 2, the head, as the IPI's decision takes */
    int turns = 1;
    while (decide(&q)->id != 3 && turns < 10)
        turns++;
    eevdf_features_reset();
    return turns;
}

/* nos's list (RR_SLEEPERS_IN_PLACE): the waiter, moved to the tail as it
 * blocked, wakes where it slept, ahead of spinner 0, which went to the
 * tail after it; runq's round robin puts it at the tail, behind 0. */
static void rr_sleeper_keeps_its_place(void)
{
    int on[3], off[3];
    int t_on = waiter_turn_after_wake(true, on), t_off = waiter_turn_after_wake(false, off);
    CHECK(on[0] == 0 && on[1] == 1 && on[2] == 2 && off[0] == 0 && off[1] == 1 && off[2] == 2,
          "spinners' order %d %d %d / %d %d %d", on[0], on[1], on[2], off[0], off[1], off[2]);
    CHECK(t_on == 1 && t_off == 2, "the waiter ran %d decisions after the IPI's in place (want 1), %d at the tail (want 2)",
          t_on, t_off);
    CHECK(!eevdf_feature(EEVDF_F_RR_SLEEPERS_IN_PLACE), "the switch is off by default");
}

static const struct harness_test tests[] = {
    HARNESS_TEST(rr_turns_in_list_order),
    HARNESS_TEST(rr_wakeup_takes_first_in_list_not_woken),
    HARNESS_TEST(rr_tick_preempts_only_with_company),
    HARNESS_TEST(rr_leave_current_and_listed),
    HARNESS_TEST(rr_nice_changes_nothing),
    HARNESS_TEST(rr_sleeper_keeps_its_place),
};

HARNESS_MAIN(tests)
