/*
 * Host unit tests for the EEVDF policy (kernel/sched/eevdf.c).
 *
 * Each test is named after the behaviour it pins and prints "PASS name" or
 * "FAIL name: why"; the program exits 1 if any failed. `eevdf_test NAME...`
 * runs only the named tests (exit 2 on a name that is not one); the
 * harness is tests/harness.h.
 *
 * Every scheduler test has been seen to fail with its bug put back:
 * tests/policy/eevdf_bugs.sh applies each patch of tests/bugs/eevdf/ to a copy of
 * the sources, builds this program there, and checks that the tests the
 * patch names (its Caught-by: line) fail (docs/eevdf.md, "Proving the
 * tests").
 *
 * Build: make build/tests/eevdf_test.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance_rules.h"
#include "decide.h"
#include "tests/harness.h"
#include "tests/xorshift.h"
#include "eevdf_features.h"
#include "policy.h"
#include "weights.h"

static const struct sched_policy *P = &eevdf_policy;
#define US 1000ull
#define MS 1000000ull

/* ---- a small world -------------------------------------------------- */

static struct sched_queue q, q2;
static struct sched_entity ent[1100];

static void setup(unsigned ncpus, uint64_t tick_ns)
{
    struct sched_params p = {ncpus, tick_ns};

    eevdf_features_reset();
    memset(ent, 0, sizeof ent);
    sched_queue_init(P, &q, &p);
    sched_queue_init(P, &q2, &p);
}

static struct sched_entity *mk(int id, int nice, uint64_t slice_ns)
{
    struct sched_entity *se = &ent[id];

    memset(se, 0, sizeof *se);
    se->id = id;
    se->nice = nice;
    se->slice_ns = slice_ns;
    P->init_entity(&q, se);
    return se;
}

static struct sched_entity *spawn(struct sched_queue *rq, int id, int nice, uint64_t slice_ns)
{
    struct sched_entity *se = mk(id, nice, slice_ns);

    P->join(rq, se, SCHED_JOIN_NEW);
    return se;
}

/* One decision, as the kernel's core makes it (decide.h). */
static struct sched_entity *decide(struct sched_queue *rq)
{
    struct sched_decision d;
    struct sched_entity *next = sched_decide(P, rq, NULL, SCHED_LEAVE_BLOCK, &d);

    eevdf_check(rq);
    return next;
}

/* Run current for ns, in tick-sized steps, deciding at each tick. Adds the
 * CPU time each entity got to ran[] if given. */
static void run(struct sched_queue *rq, uint64_t ns, uint64_t tick, uint64_t *ran)
{
    while (ns) {
        uint64_t d = ns < tick ? ns : tick;

        if (!rq->curr && !decide(rq))
            return;
        if (ran)
            ran[rq->curr->id] += d;
        P->charge(rq, d);
        ns -= d;
        if (P->tick(rq))
            decide(rq);
        eevdf_check(rq);
    }
}

/* One letter per quantum: who ran it. */
static void schedule(struct sched_queue *rq, uint64_t quantum, int n, char *out)
{
    for (int i = 0; i < n; i++) {
        if (!rq->curr)
            decide(rq);
        out[i] = (char)('A' + rq->curr->id);
        P->charge(rq, quantum);
        if (P->tick(rq))
            decide(rq);
    }
    out[n] = 0;
}

static int64_t vdelta(const struct sched_entity *se, uint64_t ns)
{
    return (int64_t)eevdf_calc_vdelta(ns, eevdf_weight(se), sched_nice_to_wmult(se->nice));
}

static int64_t labs64(int64_t x)
{
    return x < 0 ? -x : x;
}

/* ---- weights and virtual time -------------------------------------- */

static void test_weights_inverse_is_2_32_over_w(void)
{
    for (int n = SCHED_NICE_MIN; n <= SCHED_NICE_MAX; n++) {
        double exact = 4294967296.0 / sched_nice_to_weight(n);
        double d = exact - sched_nice_to_wmult(n);

        CHECK(d > -1 && d < 1, "nice %d: wmult %u, 2^32/w = %.2f", n, sched_nice_to_wmult(n), exact);
    }
    CHECK(sched_nice_to_weight(0) == 1024, "nice 0 weight %u", sched_nice_to_weight(0));
    CHECK(sched_nice_to_weight(0) * 100 / sched_nice_to_weight(5) == 305, "nice 0 : nice 5 is not 3.06");
}

static void test_charge_scales_by_weight(void)
{
    struct sched_entity *a, *b;
    uint64_t v;

    setup(1, MS);
    a = spawn(&q, 0, 0, 0);
    decide(&q);
    v = eevdf_vruntime(a);
    P->charge(&q, 3 * MS);
    CHECK(eevdf_vruntime(a) - v == 3 * MS, "nice 0 charged %" PRIu64 " for 3 ms", eevdf_vruntime(a) - v);
    P->leave(&q, a, SCHED_LEAVE_EXIT);
    b = spawn(&q, 1, 5, 0);
    decide(&q);
    v = eevdf_vruntime(b);
    P->charge(&q, 3 * MS);
    /* 3 ms * 1024 / 335 = 9170149.25 */
    CHECK(labs64((int64_t)(eevdf_vruntime(b) - v) - 9170149) <= 1, "nice 5 charged %" PRIu64,
          eevdf_vruntime(b) - v);
}

static void test_base_slice_scales_with_cpus(void)
{
    static const unsigned cpus[] = {1, 2, 3, 4, 7, 8, 16, 64};
    static const uint64_t want[] = {700, 1400, 1400, 2100, 2100, 2800, 2800, 2800};

    for (unsigned i = 0; i < sizeof cpus / sizeof cpus[0]; i++)
        CHECK(eevdf_base_slice(cpus[i]) == want[i] * US, "%u CPUs: %" PRIu64 " ns", cpus[i],
              eevdf_base_slice(cpus[i]));
}

static void test_slice_request_clamped(void)
{
    struct sched_entity *a;

    setup(4, MS);
    a = spawn(&q, 0, 0, 10 * US);
    CHECK(eevdf_slice(a) == 100 * US, "10 us request gives %" PRIu64, eevdf_slice(a));
    P->set_slice(&q, a, 5000 * MS);
    CHECK(eevdf_slice(a) == 100 * MS, "5 s request gives %" PRIu64, eevdf_slice(a));
    P->set_slice(&q, a, 0);
    CHECK(eevdf_slice(a) == 2100 * US, "0 gives %" PRIu64 ", not the 4-CPU base", eevdf_slice(a));
}

/* ---- the pick ------------------------------------------------------- */

static void test_pick_is_eligible_earliest_deadline(void)
{
    struct sched_entity *a, *b, *c;

    /* b has the earliest deadline but has run ahead of V; a and c are
     * eligible and a's deadline is earlier than c's. */
    setup(1, MS);
    eevdf_feature_set("RUN_TO_PARITY", false);
    a = spawn(&q, 0, 0, 10 * MS);
    b = spawn(&q, 1, 0, 100 * US);
    c = spawn(&q, 2, 0, 20 * MS);
    P->take(&q, b);
    P->charge(&q, 2 * MS); /* b: v = 2 ms, deadline renewed to 2.1 ms */
    P->put_back(&q);
    CHECK(!eevdf_eligible(&q, b), "b should be ineligible");
    CHECK(eevdf_deadline(b) < eevdf_deadline(a), "setup: b's deadline is not the earliest");
    CHECK(P->pick(&q) == a, "picked %d, want a (0)", P->pick(&q)->id);
    CHECK(eevdf_pick_reference(&q) == a, "reference disagrees");
    (void)c;
}

static void test_entity_at_V_is_eligible(void)
{
    struct sched_entity *a, *b;

    setup(1, MS);
    a = spawn(&q, 0, 0, 0);
    b = spawn(&q, 1, 0, 0);
    CHECK(eevdf_vruntime(a) == eevdf_V(&q) && eevdf_vruntime(b) == eevdf_V(&q), "setup");
    CHECK(eevdf_eligible(&q, a) && eevdf_eligible(&q, b), "entities exactly at V must be eligible");
}

static uint64_t rng = 88172645463325252ull;

static void test_pick_fast_matches_reference(void)
{
    int n = 300;

    setup(4, MS);
    for (int i = 0; i < n; i++)
        spawn(&q, i, (int)(xorshift64(&rng) % 40) - 20, (xorshift64(&rng) % 4) * MS);
    for (int step = 0; step < 20000; step++) {
        struct sched_entity *se = &ent[xorshift64(&rng) % n];
        struct sched_entity *fast = eevdf_pick_fast(&q), *ref = eevdf_pick_reference(&q);

        CHECK(fast == ref, "step %d: fast %d, reference %d", step, fast ? fast->id : -1, ref ? ref->id : -1);
        switch (xorshift64(&rng) % 4) {
        case 0:
        case 1:
            if (!q.curr)
                decide(&q);
            P->charge(&q, xorshift64(&rng) % (3 * MS));
            if (P->tick(&q))
                decide(&q);
            break;
        case 2:
            if (se->on_queue && !eevdf_delayed(se))
                P->leave(&q, se, SCHED_LEAVE_BLOCK);
            else
                P->join(&q, se, SCHED_JOIN_WAKE);
            break;
        case 3:
            if (se->on_queue && !eevdf_delayed(se))
                P->set_nice(&q, se, (int)(xorshift64(&rng) % 40) - 20);
            break;
        }
        eevdf_check(&q);
    }
}

static void test_pick_is_log_n(void)
{
    unsigned worst = 0;

    setup(8, MS);
    /* Joined in deadline order: the worst case for an unbalanced tree. */
    for (int i = 0; i < 1024; i++) {
        spawn(&q, i, 0, 0);

    }
    for (int i = 0; i < 200; i++) {
        decide(&q);
        P->charge(&q, 3 * MS);
        if (q.touched > worst)
            worst = q.touched;
        eevdf_pick_fast(&q);
        if (q.touched > worst)
            worst = q.touched;
    }
    /* An AVL tree of 1024 is at most 14 deep; + current. */
    CHECK(worst <= 16, "a pick among 1024 touched %u entities", worst);
}

static void test_equal_deadlines_run_fifo(void)
{
    char s[17];

    /* Peter Zijlstra's first example in 857b158dc5e8: {A,B,C,D}(w=1,r=8),
     * quantum 8: "4 identical tasks in FIFO order". Unit 100 us. */
    setup(4, 800 * US);
    eevdf_feature_set("PLACE_DEADLINE_INITIAL", false);
    for (int i = 0; i < 4; i++)
        spawn(&q, i, 0, 800 * US);
    schedule(&q, 800 * US, 16, s);
    CHECK(!strcmp(s, "ABCDABCDABCDABCD"), "schedule %s", s);
}

static void test_short_request_schedule_as_linux_6_18(void)
{
    char s[25];

    /* 857b158dc5e8's third example: {A,C,D}(w=1,r=16), B(w=1,r=8), quantum
     * 8 (unit 100 us). The commit shows BAACCBDD, which was protection for a
     * whole own slice. Linux 6.18's set_protect_slice() without
     * RUN_TO_PARITY protects the unscaled base slice, 0.7 ms, shorter than
     * the 0.8 ms quantum, so every tick picks again: BACD, as with
     * RUN_TO_PARITY. (runq protected the CPU-scaled 2.1 ms and gave
     * BAACCDDB: D1.) With RUN_TO_PARITY (6.17+) the same: nobody is
     * protected for longer than the shortest slice queued with it, B's one
     * quantum. */
    for (int parity = 0; parity <= 1; parity++) {
        setup(4, 800 * US);
        eevdf_feature_set("PLACE_DEADLINE_INITIAL", false);
        eevdf_feature_set("RUN_TO_PARITY", parity);
        spawn(&q, 0, 0, 1600 * US);
        spawn(&q, 1, 0, 800 * US);
        spawn(&q, 2, 0, 1600 * US);
        spawn(&q, 3, 0, 1600 * US);
        schedule(&q, 800 * US, 24, s);
        CHECK(!strcmp(s, "BACDBACDBACDBACDBACDBACD"), "%sschedule %s", parity ? "with RUN_TO_PARITY: " : "", s);
    }
}

static void test_heavy_task_gets_half(void)
{
    char s[81];
    int count[3] = {0, 0, 0};

    /* 857b158dc5e8's second example: {A,B}(w=1,r=16), C(w=2,r=16). Nice 18
     * and 15 weigh 18 and 36, exactly 1:2. The commit's letter string sits
     * on exact ties (v = V) that 32.32 fixed-point inverses of 18 and 36
     * break either way, so the test pins what the example is about: over
     * 64 quanta C runs half of them and A and B a quarter each. */
    setup(4, 800 * US);
    eevdf_feature_set("PLACE_DEADLINE_INITIAL", false);
    spawn(&q, 0, 18, 1600 * US);
    spawn(&q, 1, 18, 1600 * US);
    spawn(&q, 2, 15, 1600 * US);
    schedule(&q, 800 * US, 80, s);
    for (int i = 16; i < 80; i++)
        count[s[i] - 'A']++;
    CHECK(labs64(count[2] - 32) <= 1 && labs64(count[0] - 16) <= 1 && labs64(count[1] - 16) <= 1,
          "A %d, B %d, C %d of 64 quanta: %s", count[0], count[1], count[2], s);
}

static void test_share_follows_weights(void)
{
    uint64_t ran[2] = {0, 0};
    uint64_t ratio;

    setup(4, MS);
    spawn(&q, 0, 0, 0);
    spawn(&q, 1, 5, 0);
    run(&q, 10000 * MS, MS, ran);
    ratio = ran[0] * 1000 / ran[1];
    CHECK(ratio >= 3020 && ratio <= 3090, "nice 0 : nice 5 = %" PRIu64 "/1000, weights say 3057", ratio);
}

static void test_four_equal_share_quarter_each(void)
{
    uint64_t ran[4] = {0, 0, 0, 0};

    setup(4, MS);
    for (int i = 0; i < 4; i++)
        spawn(&q, i, 0, 0);
    run(&q, 8400 * MS, MS, ran);
    for (int i = 0; i < 4; i++)
        CHECK(ran[i] * 1000 / (8400 * MS) >= 249 && ran[i] * 1000 / (8400 * MS) <= 251,
              "entity %d got %" PRIu64 " per mille", i, (uint64_t)(ran[i] * 1000 / (8400 * MS)));
}

/* ---- lag ------------------------------------------------------------ */

/* a, a spinner at nice 0, and w, a waiter: w runs a little, sleeps, wakes.
 * Returns w's lag as it left. */
static int64_t waiter_leaves(struct sched_entity *w)
{
    while (q.curr != w)
        run(&q, 100 * US, MS, NULL);
    P->charge(&q, 10 * US);
    P->leave(&q, w, SCHED_LEAVE_BLOCK); /* w blocks while current */
    if (q.curr == NULL)
        decide(&q);
    return eevdf_lag(&q, w);
}

/* A fresh queue (4 CPUs, 1 ms tick; DELAY_DEQUEUE off, LAB_LEAVE_BUG on
 * when asked) with n spinners at nice 0 and then a waiter, decided once.
 * Returns the waiter. */
static struct sched_entity *waiter_after_spinners(int n, bool leave_bug)
{
    setup(4, MS);
    eevdf_feature_set("DELAY_DEQUEUE", false);
    /* set only when asked: left alone, LAB_LEAVE_BUG stays at its default,
     * which is what tests/bugs/eevdf/leave_order.patch changes (set to
     * false here, the patch's bug went uncaught) */
    if (leave_bug)
        eevdf_feature_set("LAB_LEAVE_BUG", true);
    for (int i = 0; i < n; i++)
        spawn(&q, i, 0, 0);
    struct sched_entity *w = spawn(&q, n, 0, 0);
    decide(&q);
    return w;
}

static void test_lag_survives_sleep_scaled(void)
{
    struct sched_entity *w = waiter_after_spinners(3, false);
    int64_t left, back;

    for (int i = 0; i < 5; i++) {
        left = waiter_leaves(w);
        run(&q, 2 * MS, MS, NULL);
        P->join(&q, w, SCHED_JOIN_WAKE);
        back = eevdf_lag(&q, w);
        CHECK(labs64(back - left) <= 2, "left with lag %" PRId64 ", came back with %" PRId64, left, back);
        CHECK(left > 0, "round %d: the waiter left owed nothing (%" PRId64 ")", i, left);
        if (P->wakeup_preempt(&q, w))
            decide(&q);
    }
}

/* w waits while a runs 100 ms, then blocks: it is owed 50 ms, far more
 * than any clamp. Both ask for the base slice, 2.1 ms at 4 CPUs. */
static int64_t lag_after_a_long_wait(bool max_slice_clamp)
{
    struct sched_entity *a, *w;

    setup(4, MS);
    eevdf_feature_set("DELAY_DEQUEUE", false);
    eevdf_feature_set("LAG_CLAMP_MAX_SLICE", max_slice_clamp);
    a = spawn(&q, 0, 0, 0);
    w = spawn(&q, 1, 0, 0);
    decide(&q);
    if (q.curr == w) {
        P->put_back(&q);
        P->take(&q, a);
    }
    P->leave(&q, w, SCHED_LEAVE_BLOCK);
    P->join(&q, w, SCHED_JOIN_WAKE);
    P->charge(&q, 100 * MS);
    P->leave(&q, w, SCHED_LEAVE_BLOCK);
    return eevdf_lag(&q, w);
}

static void test_lag_clamped(void)
{
    /* The default, LAG_CLAMP_MAX_SLICE: the longest slice queued (both
     * are 2.1 ms) plus the 1 ms tick. */
    int64_t lag = lag_after_a_long_wait(true), limit = vdelta(&ent[1], 2100 * US + MS);

    CHECK(lag == limit, "lag %" PRId64 ", limit %" PRId64, lag, limit);
}

static void test_lag_clamped_to_twice_own_slice_as_vanilla_6_18(void)
{
    int64_t lag = lag_after_a_long_wait(false), limit = vdelta(&ent[1], 2 * 2100 * US);

    CHECK(lag == limit, "lag %" PRId64 ", limit %" PRId64, lag, limit);
}

/* The queue of lag_clamp_follows_the_longest_slice_queued: current c
 * (ent[0], nice -3) and ent[1..7] in the tree, all asking for 1 ms, the
 * tree's deadlines all different (c runs 300 us between joins). Then
 * ent[longest] asks for long_slice (ent[0]: current does), and with
 * shrink back for 1 ms, which takes it out of the tree and in again. Last,
 * c runs 100 ms: everyone in the tree is owed about 11 ms, c owes about
 * 40 ms of its own virtual time. */
static void longest_slice_queue(bool max_slice_clamp, int longest, uint64_t long_slice, bool shrink)
{
    setup(4, MS);
    eevdf_feature_set("DELAY_DEQUEUE", false);
    eevdf_feature_set("LAG_CLAMP_MAX_SLICE", max_slice_clamp);
    P->take(&q, spawn(&q, 0, -3, MS));
    for (int i = 1; i <= 7; i++) {
        P->charge(&q, 300 * US);
        spawn(&q, i, 0, MS);
    }
    P->set_slice(&q, &ent[longest], long_slice);
    if (shrink)
        P->set_slice(&q, &ent[longest], MS);
    P->charge(&q, 100 * MS);
}

/* lag clamped to ±limit */
static int64_t clamped(int64_t lag, int64_t limit)
{
    return lag > limit ? limit : lag < -limit ? -limit : lag;
}

static void test_lag_clamp_follows_the_longest_slice_queued(void)
{
    const uint64_t tick = MS, long_slice = 8 * MS;

    /* Linux's entity_lag() since 6e3c0a4e1ad1: the clamp is the longest
     * slice on the queue (cfs_rq_max_slice(): current's, and the tree's
     * cached max_slice) plus a tick, whoever asked for it; off, twice the
     * leaver's own slice. The long slice is asked for by current (0), by
     * the leaver itself (1), and by each other entity, so it sits once at
     * every place in the tree; 8 is the long slice asked for and given
     * back (the tree must forget it). w = ent[1] leaves first, then c. */
    for (int longest = 0; longest <= 8; longest++) {
        for (int on = 1; on >= 0; on--) {
            bool shrink = longest == 8;
            int who = shrink ? 4 : longest;
            struct sched_entity *c = &ent[0], *w = &ent[1];
            int64_t owed, owes, want;
            uint64_t max_w, max_c;

            longest_slice_queue(on, who, long_slice, shrink);
            max_w = shrink ? MS : long_slice;       /* the longest while w leaves */
            max_c = shrink || who == 1 ? MS : long_slice; /* and once w has left */
            owed = eevdf_lag(&q, w);
            CHECK(owed > vdelta(w, max_w + tick), "case %d: w is owed %" PRId64 ", within the clamp", longest, owed);
            P->leave(&q, w, SCHED_LEAVE_BLOCK);
            want = clamped(owed, on ? vdelta(w, max_w + tick) : vdelta(w, 2 * eevdf_slice(w)));
            CHECK(eevdf_lag(&q, w) == want, "case %d, %s: w left owed %" PRId64 ", not %" PRId64, longest,
                  on ? "on" : "off", eevdf_lag(&q, w), want);

            owes = eevdf_lag(&q, c);
            CHECK(owes < -vdelta(c, max_c + tick), "case %d: c owes %" PRId64 ", within the clamp", longest, owes);
            P->leave(&q, c, SCHED_LEAVE_BLOCK);
            want = clamped(owes, on ? vdelta(c, max_c + tick) : vdelta(c, 2 * eevdf_slice(c)));
            CHECK(eevdf_lag(&q, c) == want, "case %d, %s: c left owing %" PRId64 ", not %" PRId64, longest,
                  on ? "on" : "off", eevdf_lag(&q, c), want);
            eevdf_check(&q);
        }
    }
}

static void test_sleeper_beside_one_spinner_keeps_lag(void)
{
    /* The seed's scenario: beside one spinner the waiter must leave owed
     * something and, woken, preempt at once. With LAB_LEAVE_BUG (the
     * seed's ordering bug) it leaves owed nothing and waits. */
    struct sched_entity *w = waiter_after_spinners(1, false);

    for (int i = 0; i < 5; i++) {
        int64_t left = waiter_leaves(w);

        CHECK(left > 0, "round %d: left with lag %" PRId64, i, left);
        run(&q, 1 * MS + (uint64_t)i * 300 * US, MS, NULL);
        P->join(&q, w, SCHED_JOIN_WAKE);
        CHECK(P->wakeup_preempt(&q, w), "round %d: woken waiter does not preempt the spinner", i);
        decide(&q);
    }
}

static void test_lab_leave_bug_reproduces_seed(void)
{
    struct sched_entity *w = waiter_after_spinners(1, true);

    for (int i = 0; i < 3; i++) {
        int64_t left = waiter_leaves(w);

        CHECK(left == 0, "beside one spinner: lag %" PRId64 ", the seed saw 0", left);
        run(&q, 1 * MS, MS, NULL);
        P->join(&q, w, SCHED_JOIN_WAKE);
        if (P->wakeup_preempt(&q, w))
            decide(&q);
    }
}

static void test_new_task_half_slice(void)
{
    struct sched_entity *a, *n;

    setup(4, MS);
    a = spawn(&q, 0, 0, 0);
    decide(&q);
    P->charge(&q, 1 * MS);
    n = spawn(&q, 1, 5, 0);
    CHECK(eevdf_lag(&q, n) == 0, "new entity has lag %" PRId64, eevdf_lag(&q, n));
    CHECK(eevdf_deadline(n) - eevdf_vruntime(n) == (uint64_t)vdelta(n, eevdf_slice(n)) / 2,
          "deadline %" PRIu64 " past v, half a slice is %" PRId64, eevdf_deadline(n) - eevdf_vruntime(n),
          vdelta(n, eevdf_slice(n)) / 2);
    (void)a;
}

static void test_migrate_keeps_lag(void)
{
    struct sched_entity *m;
    int64_t left, back;

    setup(4, MS);
    spawn(&q, 0, 0, 0);
    m = spawn(&q, 1, 3, 0);
    spawn(&q, 2, 0, 0);
    spawn(&q2, 3, -2, 0);
    spawn(&q2, 4, 0, 0);
    decide(&q);
    decide(&q2);
    run(&q, 7 * MS, MS, NULL);
    run(&q2, 5 * MS, MS, NULL);
    if (q.curr == m) {
        run(&q, 1 * MS, MS, NULL);
    }
    CHECK(q.curr != m, "setup: m should be waiting");
    P->leave(&q, m, SCHED_LEAVE_MIGRATE);
    left = eevdf_lag(&q, m);
    CHECK(left != 0, "setup: m has no lag to keep");
    P->join(&q2, m, SCHED_JOIN_MIGRATE);
    back = eevdf_lag(&q2, m);
    CHECK(labs64(back - left) <= 2, "left q with %" PRId64 ", has %" PRId64 " on q2", left, back);
}

static void test_renice_keeps_owed_service(void)
{
    struct sched_entity *a, *b;
    int64_t before, after;
    uint64_t V;

    setup(4, MS);
    a = spawn(&q, 0, 0, 0);
    b = spawn(&q, 1, 0, 0);
    spawn(&q, 2, 0, 0);
    decide(&q);
    run(&q, 4 * MS, MS, NULL);
    b = q.curr == b ? a : b;
    before = eevdf_lag(&q, b) * (int64_t)eevdf_weight(b);
    CHECK(before != 0, "setup: no lag");
    V = eevdf_V(&q);
    P->set_nice(&q, b, 7);
    after = eevdf_lag(&q, b) * (int64_t)eevdf_weight(b);
    CHECK(labs64(after - before) <= 2 * (int64_t)sched_nice_to_weight(7) + 1024,
          "w*lag %" PRId64 " before renice, %" PRId64 " after", before, after);
    CHECK(labs64((int64_t)(eevdf_V(&q) - V)) <= 1, "V moved by %" PRId64, (int64_t)(eevdf_V(&q) - V));
}

struct lagsum {
    const struct sched_queue *q;
    eevdf_s128 sum;
};
static bool add_lag(struct sched_entity *se, void *arg)
{
    struct lagsum *s = arg;

    s->sum += (eevdf_s128)eevdf_lag(s->q, se) * eevdf_weight(se);
    return true;
}

static void test_weighted_lag_sums_to_zero(void)
{
    int n = 40;

    setup(4, MS);
    eevdf_feature_set("DELAY_DEQUEUE", false);
    for (int i = 0; i < n; i++)
        spawn(&q, i, (int)(xorshift64(&rng) % 40) - 20, (xorshift64(&rng) % 3) * MS);
    for (int step = 0; step < 3000; step++) {
        struct sched_entity *se = &ent[xorshift64(&rng) % n];
        struct lagsum s = {&q, 0};

        run(&q, xorshift64(&rng) % (2 * MS), MS, NULL);
        if (se != q.curr) {
            if (se->on_queue)
                P->leave(&q, se, SCHED_LEAVE_BLOCK);
            else
                P->join(&q, se, SCHED_JOIN_WAKE);
        }
        eevdf_for_each_queued(&q, add_lag, &s);
        if (q.curr)
            add_lag(q.curr, &s);
        /* V is the floor of the average, so Σ w·(V - v) lies in (-W, 0]. */
        CHECK(s.sum <= 0 && -s.sum < (eevdf_s128)q.ee.load, "step %d: sum w*lag = %" PRId64 ", W %" PRIu64,
              step, (int64_t)s.sum, q.ee.load);
    }
}

/* detach_tasks()'s loop_max: a balance pass's walk of a long queue stops
 * after BALANCE_NR_MIGRATE tasks, whether they could move or not (the
 * kernel's, runq sim's and the fuzzers' collectors all end with
 * balance_pull_walk_on); a short queue is walked whole. The tree's walk
 * must stop when told to: it recurses, and one level that went on would
 * show here as visits past the bound. */
/* balance_pull_walk_on runs at every visit: walked counts the visits,
 * including any a walk that ignored the stop would make. */
static bool count_walk(struct sched_entity *se, void *arg)
{
    struct balance_pull *p = arg;

    /* every other task pinned elsewhere: looked at, not kept */
    balance_pull_offer(p, se, se->id % 2 ? 1ull << 3 : ~0ull, eevdf_weight(se));
    return balance_pull_walk_on(p);
}

static void test_balance_walk_stops_at_loop_max(void)
{
    struct balance_env env = { .src = 1, .dst = 0, .idle = BALANCE_IDLE, .why = BALANCE_WHY_PERIODIC };
    int sizes[] = { 10, 33, 200 };

    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct balance_pull w = { .env = &env };
        unsigned want = sizes[k] - 1 < BALANCE_NR_MIGRATE ? (unsigned)sizes[k] - 1 : BALANCE_NR_MIGRATE;

        setup(4, MS);
        for (int i = 0; i < sizes[k]; i++)
            spawn(&q, i, 0, 0);
        decide(&q); /* one runs: the walk lists the others */
        bool whole = eevdf_for_each_queued(&q, count_walk, &w);
        CHECK(w.walked == want, "%d queued: %u walked (want %u)", sizes[k], w.walked, want);
        CHECK(whole == (sizes[k] - 1 < BALANCE_NR_MIGRATE), "%d queued: the walk said whole=%d", sizes[k], whole);
        CHECK(w.n <= (want + 1) / 2 + 1, "%d queued: %u kept of %u looked at, half of them pinned away", sizes[k],
              w.n, want);
    }
}

/* ---- a queue rebuilt from its recorded state (eevdf_restore) -------- */

static struct sched_entity copies[64];
struct restore_walk {
    struct sched_entity *queued[64], *delayed_curr;
    unsigned n;
};

/* What a recorder keeps of se: its numbers, nothing of the tree. */
static struct sched_entity *recorded(const struct sched_entity *se)
{
    struct sched_entity *c = &copies[se->id];

    memset(c, 0, sizeof *c);
    c->id = se->id;
    c->nice = se->nice;
    c->ee.vruntime = se->ee.vruntime;
    c->ee.deadline = se->ee.deadline;
    c->ee.slice = se->ee.slice;
    c->ee.weight = se->ee.weight;
    c->ee.vprot = se->ee.vprot;
    c->ee.delayed = se->ee.delayed;
    return c;
}

static bool record_queued(struct sched_entity *se, void *arg)
{
    struct restore_walk *w = arg;

    if (&se->ee == q.ee.delayed_curr)
        w->delayed_curr = se;
    else
        w->queued[w->n++] = recorded(se);
    return true;
}

/* At random moments of a busy queue (wakeups, blocks that delay, ticks,
 * renices), the queue as a recorder sees it, rebuilt in q2, picks what the
 * queue itself picks: the replay of `runq report fidelity` is faithful. */
static void test_restored_queue_picks_as_the_original(void)
{
    int n = 24, checked = 0;

    setup(2, 4 * MS);
    for (int i = 0; i < n; i++)
        spawn(&q, i, (int)(xorshift64(&rng) % 11) - 5, (xorshift64(&rng) % 3) * MS / 2);
    for (int step = 0; step < 4000; step++) {
        struct sched_entity *se = &ent[xorshift64(&rng) % n], *curr;
        struct restore_walk w = {{0}, NULL, 0};
        struct sched_params p = {2, 4 * MS};
        struct sched_decision d;

        if (q.curr && xorshift64(&rng) % 4 == 0)
            P->leave(&q, q.curr, SCHED_LEAVE_BLOCK); /* delayed, if it owes service */
        else if (se != q.curr && !se->on_queue)
            P->join(&q, se, SCHED_JOIN_WAKE);
        eevdf_for_each_queued(&q, record_queued, &w);
        curr = q.curr ? recorded(q.curr) : w.delayed_curr ? recorded(w.delayed_curr) : NULL;
        sched_queue_init(P, &q2, &p);
        eevdf_restore(&q2, curr, w.queued, w.n);
        eevdf_check(&q2);
        struct sched_entity *replayed = P->pick(&q2), *next = sched_decide(P, &q, NULL, SCHED_LEAVE_BLOCK, &d);
        CHECK((replayed ? replayed->id : -1) == (next ? next->id : -1), "step %d: replayed %d, picked %d", step,
              replayed ? replayed->id : -1, next ? next->id : -1);
        checked += next != NULL;
        if (q.curr)
            P->charge(&q, xorshift64(&rng) % (2 * MS));
    }
    CHECK(checked > 3000, "only %d picks compared", checked);
}

/* ---- yield, protection, wakeups, timer ------------------------------ */

static void test_yield_bounded(void)
{
    struct sched_entity *a, *b;
    uint64_t bound;

    setup(4, MS);
    eevdf_feature_set("YIELD_BOUNDED", true);
    a = spawn(&q, 0, 0, 0);
    b = spawn(&q, 1, 0, 0);
    decide(&q);
    a = q.curr;
    for (int i = 0; i < 50; i++) {
        P->charge(&q, 10 * US);
        P->yield(&q);
        bound = eevdf_V(&q) + (uint64_t)vdelta(a, eevdf_slice(a));
        CHECK((int64_t)(eevdf_deadline(a) - bound) <= 0, "yield %d: deadline %" PRId64 " past V + slice", i,
              (int64_t)(eevdf_deadline(a) - bound));
    }
    CHECK(P->pick(&q) == b, "after yielding, a is still the pick");
}

static struct sched_entity *protected_setup_slice(uint64_t w_slice)
{
    struct sched_entity *a, *c, *w;

    /* a (3 ms slice) has waited while c ran 2 ms, so it is owed 1 ms;
     * picked, it stays eligible for a while. w wakes with lag 0 and a 1 ms
     * slice, so its deadline is earlier than a's. */
    setup(1, MS);
    eevdf_feature_set("PLACE_DEADLINE_INITIAL", false);
    a = spawn(&q, 0, 0, 3 * MS);
    c = spawn(&q, 1, 0, 3 * MS);
    w = spawn(&q, 2, 0, w_slice);
    P->leave(&q, w, SCHED_LEAVE_BLOCK);
    P->take(&q, c);
    P->charge(&q, 2 * MS);
    P->put_back(&q);
    P->take(&q, a);
    P->charge(&q, 100 * US);
    P->join(&q, w, SCHED_JOIN_WAKE);
    return w;
}

/* Current's protected stretch still to run, virtual ns (real ns at nice 0). */
static uint64_t stretch_left(void)
{
    const struct eevdf_entity *e = &q.curr->ee;

    return eevdf_protected(q.curr) ? e->vprot - e->vruntime : 0;
}

static struct sched_entity *protected_setup(void)
{
    return protected_setup_slice(1 * MS);
}

static void test_protected_current_not_preempted_by_wakeup(void)
{
    struct sched_entity *w;

    w = protected_setup();
    eevdf_feature_set("PREEMPT_SHORT", false);
    CHECK(eevdf_eligible(&q, q.curr) && eevdf_eligible(&q, w), "setup: both should be eligible");
    CHECK(eevdf_deadline(w) < eevdf_deadline(q.curr), "setup: w's deadline should be earlier");
    CHECK(eevdf_pick_reference(&q) == q.curr, "setup: protection does not hold");
    CHECK(!P->wakeup_preempt(&q, w), "w preempted a protected current");
    CHECK(q.cut_short_by == NULL, "a wakeup that waits was reported as cutting in");
    CHECK(!P->tick(&q), "the tick preempted a protected current");
    /* Without PREEMPT_SHORT the stretch stays: Linux 6.18 trims it
     * (update_protect_slice()) only under RUN_TO_PARITY && do_preempt_short
     * in check_preempt_wakeup_fair(). runq trimmed it here (D2). */
    CHECK(stretch_left() > 2 * MS, "stretch cut to %" PRIu64 " ns by a waker, PREEMPT_SHORT off", stretch_left());
}

/* A shorter waker that does not win even the unprotected pick (its
 * deadline is later than current's) trims current's stretch to the
 * shortest slice queued, with RUN_TO_PARITY and PREEMPT_SHORT: Linux
 * 6.18's update_protect_slice(). */
static void test_short_waker_that_waits_trims_the_stretch(void)
{
    struct sched_entity *w = protected_setup_slice(2500 * US);
    uint64_t before = stretch_left();

    CHECK(eevdf_deadline(q.curr) < eevdf_deadline(w), "setup: current's deadline should be earlier");
    CHECK(!P->wakeup_preempt(&q, w), "a later-deadline waker preempted");
    CHECK(q.cut_short_by == NULL, "a wakeup that waits was reported as cutting in");
    CHECK(stretch_left() <= 2500 * US && stretch_left() < before,
          "stretch %" PRIu64 " ns (was %" PRIu64 "), want at most the waker's 2.5 ms", stretch_left(), before);
    w = protected_setup_slice(2500 * US);
    eevdf_feature_set("PREEMPT_SHORT", false);
    before = stretch_left();
    CHECK(!P->wakeup_preempt(&q, w) && stretch_left() == before, "without PREEMPT_SHORT the stretch changed");
}

static void test_preempt_short_cuts_protection(void)
{
    struct sched_entity *w;

    w = protected_setup();
    CHECK(P->wakeup_preempt(&q, w), "a shorter-slice, earlier-deadline wakee did not preempt");
    CHECK(!eevdf_protected(q.curr), "the preempted current is still protected");
    /* The core reports this decision as PREEMPT_SHORT's (trace why). */
    CHECK(q.cut_short_by == w, "the cut was not reported (cut_short_by %p, want %p)", (const void *)q.cut_short_by, (void *)w);
}

/* A wakee that wins without cutting anything (current has run past its
 * protected stretch) is a plain preemption, not PREEMPT_SHORT's. */
static void test_plain_wakeup_preemption_is_not_a_cut(void)
{
    struct sched_entity *w;

    w = protected_setup();
    P->charge(&q, 3 * MS);
    CHECK(!eevdf_protected(q.curr), "setup: current should be past its stretch");
    CHECK(P->wakeup_preempt(&q, w), "the earlier-deadline wakee did not preempt");
    CHECK(q.cut_short_by == NULL, "a plain preemption was reported as PREEMPT_SHORT's");
}

/* Linux's hrtick_start_fair(): armed only with someone else queued, for
 * the slice less what current has run since it was picked, in real time
 * whatever its weight; armed again when someone joins. */
static void test_hrtick_timer_only_when_contended(void)
{
    struct sched_entity *a;

    setup(4, MS);
    eevdf_feature_set("HRTICK", true);
    a = spawn(&q, 0, 0, 0);
    decide(&q);
    CHECK(P->timer_ns(&q) == UINT64_MAX, "alone, timer %" PRIu64, P->timer_ns(&q));
    P->charge(&q, 300 * US);
    spawn(&q, 1, 0, 0);
    CHECK(P->timer_ns(&q) == eevdf_slice(a) - 300 * US, "armed by a join, timer %" PRIu64, P->timer_ns(&q));
    P->charge(&q, 500 * US);
    CHECK(P->timer_ns(&q) == eevdf_slice(a) - 800 * US, "contended, timer %" PRIu64, P->timer_ns(&q));
    eevdf_feature_set("HRTICK", false);
    CHECK(P->timer_ns(&q) == UINT64_MAX, "HRTICK off, timer %" PRIu64, P->timer_ns(&q));
}

static void test_hrtick_timer_is_the_slice_in_real_time(void)
{
    for (int nice = -20; nice <= 19; nice++) {
        uint64_t slice = 700 * US + (uint64_t)(nice + 20) * 13;

        setup(4, 4 * MS);
        eevdf_feature_set("HRTICK", true);
        spawn(&q, 0, nice, slice);
        spawn(&q, 1, nice, slice);
        decide(&q);
        P->charge(&q, 123 * US);
        CHECK(P->timer_ns(&q) == slice - 123 * US, "nice %d: timer %" PRIu64 ", want %" PRIu64, nice,
              P->timer_ns(&q), (uint64_t)(slice - 123 * US));
        P->charge(&q, slice - 123 * US);
        CHECK(P->timer_ns(&q) == 0, "nice %d: the slice is run and the timer is not due", nice);
        /* The pick clears it (hrtick_clear()); a pick that keeps current
         * does not arm it again (no set_next_entity()). */
        if (P->pick(&q) == q.curr)
            CHECK(P->timer_ns(&q) == UINT64_MAX, "nice %d: re-armed by a pick that kept current", nice);
    }
}

/* A pick that keeps current leaves its timer unarmed, and a join then
 * asks for a decision at once (hrtick_start_fair() with the slice run:
 * resched). */
static void test_hrtick_join_after_the_slice_asks_at_once(void)
{
    setup(1, 4 * MS);
    eevdf_feature_set("HRTICK", true);
    spawn(&q, 0, 0, 0);
    decide(&q);
    P->charge(&q, 5 * MS);
    CHECK(P->pick(&q) == q.curr && P->timer_ns(&q) == UINT64_MAX, "setup: alone, a pick should keep current");
    spawn(&q, 1, 0, 0);
    CHECK(P->timer_ns(&q) == 0, "a join after the slice: timer %" PRIu64 ", want 0 (now)", P->timer_ns(&q));
}

/* ---- delayed dequeue ------------------------------------------------ */

/* A wakeup's preemption check asks the pick as Linux 6.18's
 * check_preempt_wakeup_fair() asks __pick_eevdf(): when the pick is a
 * delayed entity (it blocked while ineligible, has paid since, and has the
 * earliest deadline), the waker does not preempt, and the delayed entity
 * stays queued until a real pick finishes it. runq finished it inside the
 * check and picked again, and preempted (issue 14's D4). */
static void test_wakeup_check_leaves_delayed_entities_alone(void)
{
    struct sched_entity *a, *s, *w;

    setup(1, MS);
    eevdf_feature_set("RUN_TO_PARITY", false);
    s = spawn(&q, 0, 0, 0);
    a = spawn(&q, 1, 0, 0);
    w = spawn(&q, 2, 0, 0);
    P->take(&q, w);
    P->leave(&q, w, SCHED_LEAVE_BLOCK); /* w sleeps at once, at lag 0: it leaves */
    P->take(&q, s);
    P->charge(&q, 2 * MS); /* s is now ahead of V */
    CHECK(!eevdf_eligible(&q, s), "setup: s should be ineligible");
    P->leave(&q, s, SCHED_LEAVE_BLOCK);
    CHECK(s->on_queue && eevdf_delayed(s), "setup: s should be delayed");
    P->take(&q, a);
    P->charge(&q, 3 * MS); /* a runs on: V passes s, s has paid */
    CHECK(eevdf_eligible(&q, s) && !eevdf_protected(a), "setup: s eligible %d (lag %" PRId64 ", a's %" PRId64
          "), a protected %d, curr is a %d", eevdf_eligible(&q, s), eevdf_lag(&q, s), eevdf_lag(&q, a),
          eevdf_protected(a), q.curr == a);
    P->join(&q, w, SCHED_JOIN_WAKE);
    CHECK(eevdf_pick_reference(&q) == s, "setup: the pick should be the delayed s");
    CHECK(!P->wakeup_preempt(&q, w), "the waker preempted past a delayed pick");
    CHECK(s->on_queue && eevdf_delayed(s) && q.nr_departed == 0, "the check finished the delayed entity");
    struct sched_entity *n = P->pick(&q);
    CHECK(n != s && !s->on_queue, "a real pick did not finish the delayed entity");
}

/* Two entities on a fresh queue (4 CPUs, 1 ms tick); the one picked runs
 * 2 ms, which puts it ahead of V (negative lag). Returns it, current. */
static struct sched_entity *current_in_debt(void)
{
    setup(4, MS);
    spawn(&q, 0, 0, 0);
    spawn(&q, 1, 0, 0);
    decide(&q);
    struct sched_entity *s = q.curr;
    P->charge(&q, 2 * MS);
    return s;
}

static void test_delay_dequeue_keeps_ineligible_sleeper(void)
{
    struct sched_entity *s = current_in_debt();
    int guard = 0;

    CHECK(!eevdf_eligible(&q, s), "setup: s should be ineligible");
    P->leave(&q, s, SCHED_LEAVE_BLOCK);
    CHECK(s->on_queue && eevdf_delayed(s), "a sleeper with negative lag left at once");
    CHECK(q.nr_queued == 1 && eevdf_nr_delayed(&q) == 1, "counts %u queued, %u delayed", q.nr_queued,
          eevdf_nr_delayed(&q));
    while (s->on_queue && guard++ < 100) {
        struct sched_entity *n = P->pick(&q);

        CHECK(n != s, "pick returned a delayed entity");
        if (n != q.curr)
            P->take(&q, n);
        P->charge(&q, 500 * US);
    }
    CHECK(!s->on_queue, "the delayed entity never left");
    CHECK(eevdf_lag(&q, s) == 0, "left with lag %" PRId64 ", DELAY_ZERO wants 0", eevdf_lag(&q, s));

    /* Woken while still delayed: runnable again in place. */
    s = current_in_debt();
    P->leave(&q, s, SCHED_LEAVE_BLOCK);
    P->join(&q, s, SCHED_JOIN_WAKE);
    CHECK(s->on_queue && !eevdf_delayed(s) && q.nr_queued == 2, "woken delayed entity is not runnable");
    CHECK(eevdf_lag(&q, s) < 0, "woken delayed entity lost its debt");
}

static void test_delay_zero_clips_positive_lag(void)
{
    /* A delayed entity that wakes after its debt turned into credit comes
     * back at V, not ahead of it. */
    struct sched_entity *s = current_in_debt();
    P->leave(&q, s, SCHED_LEAVE_BLOCK);
    decide(&q);
    P->charge(&q, 20 * MS); /* the other pays s's debt and more */
    CHECK(s->on_queue && eevdf_lag(&q, s) > 0, "setup: s should be delayed and owed");
    P->join(&q, s, SCHED_JOIN_WAKE);
    CHECK(labs64(eevdf_lag(&q, s)) <= 1, "woke with lag %" PRId64 ", want 0", eevdf_lag(&q, s));
}

/* ---- misuse panics -------------------------------------------------- */

static void take_while_current(void)
{
    struct sched_entity *b;

    setup(1, MS);
    spawn(&q, 0, 0, 0);
    b = spawn(&q, 1, 0, 0);
    decide(&q);
    P->take(&q, q.curr == b ? &ent[0] : b); /* the seed's order */
}

static void join_twice(void)
{
    struct sched_entity *a;

    setup(1, MS);
    a = spawn(&q, 0, 0, 0);
    P->join(&q, a, SCHED_JOIN_WAKE);
}

static void leave_not_on_queue(void)
{
    struct sched_entity *a;

    setup(1, MS);
    a = spawn(&q, 0, 0, 0);
    P->leave(&q2, a, SCHED_LEAVE_BLOCK);
}

/* Linux 6.18's yield_task_fair() (79104becf42b): an eligible yielder's
 * vruntime moves to its deadline and its deadline a slice on; an
 * ineligible one, or one alone, is left as it is. */
static void test_yield_forfeits_the_request_as_linux_6_18(void)
{
    struct sched_entity *a;
    uint64_t v, d, V;

    setup(4, MS);
    a = spawn(&q, 0, 0, 0);
    decide(&q);
    d = eevdf_deadline(a);
    P->yield(&q);
    CHECK(eevdf_deadline(a) == d && eevdf_vruntime(a) == 0, "a lone yielder moved");
    spawn(&q, 1, 0, 0); /* at V, beside a: both eligible */
    CHECK(eevdf_eligible(&q, a), "setup: a should be eligible");
    v = eevdf_vruntime(a);
    d = eevdf_deadline(a);
    P->yield(&q);
    eevdf_check(&q);
    CHECK(eevdf_vruntime(a) == d && eevdf_deadline(a) == d + vdelta(a, eevdf_slice(a)),
          "eligible yielder: vruntime %" PRIu64 " deadline %" PRIu64 ", want %" PRIu64 " and %" PRIu64,
          eevdf_vruntime(a), eevdf_deadline(a), d, d + vdelta(a, eevdf_slice(a)));
    CHECK(eevdf_vruntime(a) != v && !eevdf_eligible(&q, a), "the yielder is still eligible");
    V = eevdf_V(&q);
    v = eevdf_vruntime(a);
    d = eevdf_deadline(a);
    P->yield(&q);
    CHECK(eevdf_vruntime(a) == v && eevdf_deadline(a) == d && eevdf_V(&q) == V, "an ineligible yielder moved");
}

static void test_misuse_panics(void)
{
    CHECK(harness_dies(take_while_current), "take() while an entity is current did not BUG");
    CHECK(harness_dies(join_twice), "joining twice did not BUG");
    CHECK(harness_dies(leave_not_on_queue), "leaving a queue it is not on did not BUG");
}

/* ---- features ------------------------------------------------------- */

static void test_features_by_name(void)
{
    eevdf_features_reset();
    /* Linux 6.18's features.h: HRTICK off; YIELD_BOUNDED is runq's own;
     * the lag clamp of 6.18-stable and 7.0 (6e3c0a4e1ad1) */
    CHECK(eevdf_feature(EEVDF_F_PLACE_LAG) && !eevdf_feature(EEVDF_F_HRTICK) && !eevdf_feature(EEVDF_F_YIELD_BOUNDED) &&
              eevdf_feature(EEVDF_F_LAG_CLAMP_MAX_SLICE),
          "defaults");
    CHECK(!eevdf_feature(EEVDF_F_LAB_LEAVE_BUG), "LAB_LEAVE_BUG on by default");
    CHECK(eevdf_feature_set("PLACE_LAG", false) && !eevdf_feature(EEVDF_F_PLACE_LAG), "cannot turn off");
    CHECK(!eevdf_feature_set("NO_SUCH", true), "unknown name accepted");
    CHECK(eevdf_feature_lookup("DELAY_ZERO") == EEVDF_F_DELAY_ZERO, "lookup");
    eevdf_features_reset();
}

/* ---- runner --------------------------------------------------------- */

#define T(name) {#name, test_##name}
static const struct harness_test tests[] = {
    T(weights_inverse_is_2_32_over_w),
    T(charge_scales_by_weight),
    T(base_slice_scales_with_cpus),
    T(slice_request_clamped),
    T(pick_is_eligible_earliest_deadline),
    T(entity_at_V_is_eligible),
    T(pick_fast_matches_reference),
    T(pick_is_log_n),
    T(equal_deadlines_run_fifo),
    T(short_request_schedule_as_linux_6_18),
    T(heavy_task_gets_half),
    T(share_follows_weights),
    T(four_equal_share_quarter_each),
    T(lag_survives_sleep_scaled),
    T(lag_clamped),
    T(lag_clamped_to_twice_own_slice_as_vanilla_6_18),
    T(lag_clamp_follows_the_longest_slice_queued),
    T(sleeper_beside_one_spinner_keeps_lag),
    T(lab_leave_bug_reproduces_seed),
    T(new_task_half_slice),
    T(migrate_keeps_lag),
    T(renice_keeps_owed_service),
    T(weighted_lag_sums_to_zero),
    T(balance_walk_stops_at_loop_max),
    T(restored_queue_picks_as_the_original),
    T(yield_bounded),
    T(yield_forfeits_the_request_as_linux_6_18),
    T(protected_current_not_preempted_by_wakeup),
    T(short_waker_that_waits_trims_the_stretch),
    T(wakeup_check_leaves_delayed_entities_alone),
    T(preempt_short_cuts_protection),
    T(plain_wakeup_preemption_is_not_a_cut),
    T(hrtick_timer_only_when_contended),
    T(hrtick_timer_is_the_slice_in_real_time),
    T(hrtick_join_after_the_slice_asks_at_once),
    T(delay_dequeue_keeps_ineligible_sleeper),
    T(delay_zero_clips_positive_lag),
    T(misuse_panics),
    T(features_by_name),
};

HARNESS_MAIN(tests)
