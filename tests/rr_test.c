/*
 * Host unit tests of policy rr (kernel/sched/rr.c), driven through the
 * same ops table the kernel uses, in the kernel's decision order.
 * Each test prints PASS name or FAIL name: why.
 */
#include <stdio.h>
#include <string.h>

#include "policy.h"

static int failures;

#define CHECK(name, cond, ...)                              \
    do {                                                    \
        if (!(cond)) {                                      \
            printf("FAIL %s: ", name);                      \
            printf(__VA_ARGS__);                            \
            printf("\n");                                   \
            failures++;                                     \
            return;                                         \
        }                                                   \
    } while (0)

static const struct sched_policy *P = &rr_policy;

static void setup(struct sched_queue *q, struct sched_entity *se, int n)
{
    struct sched_params p = { .ncpus = 4, .tick_ns = 10000000 };
    P->init(q, &p);
    for (int i = 0; i < n; i++) {
        memset(&se[i], 0, sizeof se[i]);
        se[i].id = i;
        P->init_entity(q, &se[i]);
    }
}

/* One decision as the core makes it; returns the entity now current. */
static struct sched_entity *decide(struct sched_queue *q)
{
    struct sched_entity *next = P->pick(q);
    if (next != q->curr) {
        if (q->curr)
            P->put_back(q);
        if (next)
            P->take(q, next);
    }
    return next;
}

static void test_turns_in_list_order(void)
{
    const char *name = "rr_turns_in_list_order";
    struct sched_queue q;
    struct sched_entity se[3];
    setup(&q, se, 3);
    for (int i = 0; i < 3; i++)
        P->join(&q, &se[i], SCHED_JOIN_NEW);
    int order[7];
    for (int k = 0; k < 7; k++)
        order[k] = decide(&q)->id;
    int want[7] = { 0, 1, 2, 0, 1, 2, 0 };
    CHECK(name, memcmp(order, want, sizeof want) == 0, "order %d %d %d %d %d %d %d", order[0], order[1], order[2],
          order[3], order[4], order[5], order[6]);
    printf("PASS %s\n", name);
}

static void test_woken_joins_tail_and_ipi_takes_head(void)
{
    const char *name = "rr_wakeup_takes_first_in_list_not_woken";
    struct sched_queue q;
    struct sched_entity se[4];
    setup(&q, se, 4);
    for (int i = 0; i < 3; i++) /* three spinners */
        P->join(&q, &se[i], SCHED_JOIN_NEW);
    CHECK(name, decide(&q)->id == 0, "first pick");
    P->join(&q, &se[3], SCHED_JOIN_WAKE); /* the waiter wakes */
    CHECK(name, P->wakeup_preempt(&q, &se[3]), "a wakeup must reschedule");
    struct sched_entity *n = decide(&q); /* the IPI's decision */
    CHECK(name, n->id == 1, "IPI decision took %d, the round robin takes the head (1)", n->id);
    /* the waiter then waits a tick behind each spinner ahead of it */
    CHECK(name, P->tick(&q) && decide(&q)->id == 2, "tick 1");
    CHECK(name, P->tick(&q) && decide(&q)->id == 3, "tick 2 must reach the waiter");
    printf("PASS %s\n", name);
}

static void test_tick_preempts_only_with_company(void)
{
    const char *name = "rr_tick_preempts_only_with_company";
    struct sched_queue q;
    struct sched_entity se[2];
    setup(&q, se, 2);
    P->join(&q, &se[0], SCHED_JOIN_NEW);
    decide(&q);
    CHECK(name, !P->tick(&q), "a lone task is preempted");
    CHECK(name, P->timer_ns(&q) == UINT64_MAX, "rr asks for a timer");
    P->join(&q, &se[1], SCHED_JOIN_NEW);
    CHECK(name, P->tick(&q), "a tick with a waiting task must preempt");
    printf("PASS %s\n", name);
}

static void test_leave_current_and_listed(void)
{
    const char *name = "rr_leave_current_and_listed";
    struct sched_queue q;
    struct sched_entity se[3];
    setup(&q, se, 3);
    for (int i = 0; i < 3; i++)
        P->join(&q, &se[i], SCHED_JOIN_NEW);
    decide(&q); /* 0 current, list 1 2 */
    P->leave(&q, &se[2], SCHED_LEAVE_BLOCK);
    P->leave(&q, &se[0], SCHED_LEAVE_BLOCK);
    CHECK(name, q.curr == NULL && q.nr_queued == 1, "curr %p queued %u", (void *)q.curr, q.nr_queued);
    CHECK(name, !se[0].on_queue && !se[2].on_queue && se[1].on_queue, "on_queue flags");
    CHECK(name, decide(&q) == &se[1], "the one left must run");
    printf("PASS %s\n", name);
}

static void test_nice_changes_nothing(void)
{
    const char *name = "rr_nice_changes_nothing";
    struct sched_queue q;
    struct sched_entity se[2];
    setup(&q, se, 2);
    P->join(&q, &se[0], SCHED_JOIN_NEW);
    P->join(&q, &se[1], SCHED_JOIN_NEW);
    P->set_nice(&q, &se[0], -20);
    P->set_nice(&q, &se[1], 19);
    int runs[2] = { 0, 0 };
    for (int k = 0; k < 100; k++)
        runs[decide(&q)->id]++;
    CHECK(name, runs[0] == 50 && runs[1] == 50 && se[0].nice == -20, "turns %d/%d", runs[0], runs[1]);
    printf("PASS %s\n", name);
}

int main(void)
{
    test_turns_in_list_order();
    test_woken_joins_tail_and_ipi_takes_head();
    test_tick_preempts_only_with_company();
    test_leave_current_and_listed();
    test_nice_changes_nothing();
    return failures ? 1 : 0;
}
