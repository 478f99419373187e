/*
 * libFuzzer target for the EEVDF policy (kernel/sched/eevdf.c).
 *
 * Each input drives 2 to 16 queues (CPUs) and eight entities, each with a
 * random set of CPUs it may run on, in the scheduler's one order (pick
 * while current is current; put_back or leave; take), with random nice
 * values and slice requests: entities run (charge + tick), block, wake,
 * yield, are reniced or given a new slice, move to another allowed
 * queue, are born and exit, the HRTICK timer fires, and the balancer's
 * rules (kernel/sched/balance_rules.c, the kernel's own) place a waking
 * entity (BALANCE_WAKE) and pull from the busiest queue (a newidle or
 * periodic pass). The first two input bytes choose the feature switches,
 * the balancing ones among them; the third the number of queues.
 *
 * After every step each queue is held to a model computed from scratch in
 * 128 bits, which shares nothing with eevdf.c but the weight table:
 *   - every entity the harness put on a queue is in its tree or current,
 *     and nothing else is (plus eevdf_check's own invariants);
 *   - eevdf_V is the floor of Σ w·v / Σ w;
 *   - the pick equals eevdf_pick_reference, is eligible, and no eligible
 *     entity has an earlier deadline (unless current is protected);
 *   - Σ w·lag lies in (-W, 0], i.e. is zero but for V's rounding;
 *   - a leaving entity takes the lag V gives it, clamped (by the longest
 *     slice on its queue, or by twice its own: LAG_CLAMP_MAX_SLICE);
 *   - a joining entity has, once on the queue, the lag it left with;
 *   - a run of delta ns is charged delta·1024/w virtual ns;
 *   - every entity is on, or blocked at, a queue of its set: no placement
 *     or pull ever puts it elsewhere (moves carry the lag, as the two
 *     lag checks above say of every leave and join, MIGRATE included).
 *
 * Build and run for a bounded time:
 *   clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
 *       -iquote kernel/sched -iquote kernel/lib -o build/eevdf_fuzz tests/policy/eevdf_fuzz.c \
 *       kernel/sched/eevdf.c kernel/sched/eevdf_tree.c kernel/sched/weights.c kernel/sched/balance_rules.c
 *   build/eevdf_fuzz -max_total_time=20
 * Add -DEEVDF_FUZZ_LAB_LEAVE_BUG to force the seed's ordering bug on; the
 * leave-lag check then fails within a few hundred executions. With
 * -DRUNQ_BUG_IDLE_SIBLING_IGNORES_AFFINITY the placement forgets the set
 * and the set check fails within the suite's five seconds.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance_rules.h"
#include "decide.h"
#include "eevdf_features.h"
#include "fuzz_balance.h"
#include "policy.h"
#include "weights.h"

#define NENT 8
#define NQ_MAX 16
#define MS 1000000ull

__extension__ typedef __int128 s128;

static const struct sched_policy *P = &eevdf_policy;
static struct sched_queue qs[NQ_MAX];
static int nq; /* queues in this input, 2..NQ_MAX */
static struct sched_entity ent[NENT];
static int where[NENT];        /* queue index the harness put it on, or -1 */
static uint64_t allowed[NENT]; /* the queues it may be on (bit n: queue n) */

struct input {
    const uint8_t *p;
    size_t n;
};

static unsigned byte(struct input *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static uint64_t take32(struct input *in)
{
    return byte(in) | byte(in) << 8 | (uint64_t)byte(in) << 16 | (uint64_t)byte(in) << 24;
}

static void die(const char *what, int a, long long b, long long c)
{
    fprintf(stderr, "eevdf_fuzz: %s (%d, %lld, %lld)\n", what, a, b, c);
    abort();
}

/* ---- the model ------------------------------------------------------ */

struct model {
    s128 sum; /* Σ w (v - base) */
    uint64_t load, base;
    int n;
};

static void model_of(int qi, struct model *m)
{
    struct sched_queue *q = &qs[qi];
    bool first = true;

    memset(m, 0, sizeof *m);
    for (int i = 0; i < NENT; i++) {
        if (where[i] != qi)
            continue;
        if (first)
            m->base = ent[i].ee.vruntime;
        first = false;
        m->sum += (s128)(int64_t)(ent[i].ee.vruntime - m->base) * eevdf_weight(&ent[i]);
        m->load += eevdf_weight(&ent[i]);
        m->n++;
    }
    (void)q;
}

static uint64_t model_V(const struct model *m)
{
    s128 d;

    if (!m->load)
        return 0;
    d = m->sum / (s128)m->load;
    if (m->sum < 0 && d * (s128)m->load != m->sum)
        d--; /* floor */
    return m->base + (uint64_t)(int64_t)d;
}

static bool model_eligible(const struct model *m, uint64_t v)
{
    return (s128)(int64_t)(v - m->base) * (s128)m->load <= m->sum;
}

/* delta·1024/w exactly, and what the fixed point may differ from it. */
static void expect_charge(const struct sched_entity *se, uint64_t delta, uint64_t got)
{
    unsigned __int128 exact = (unsigned __int128)delta * 1024 / eevdf_weight(se);
    uint64_t tol = (uint64_t)(exact >> 16) + 1;

    if (got + tol < (uint64_t)exact || got > (uint64_t)exact + tol)
        die("charge is not delta*1024/w", se->id, (long long)got, (long long)exact);
}

/* The clamp on se's lag as it leaves queue qi, where it still is. With
 * LAG_CLAMP_MAX_SLICE the longest slice of anyone the harness put on qi
 * (se, current and delayed entities among them) plus a tick; without, the
 * larger of twice se's own slice and a tick. In se's virtual time. */
static int64_t lag_limit(int qi, const struct sched_entity *se)
{
    uint64_t span = 0, tick = qs[qi].params.tick_ns;

    if (eevdf_feature(EEVDF_F_LAG_CLAMP_MAX_SLICE)) {
        for (int i = 0; i < NENT; i++)
            if (where[i] == qi && eevdf_slice(&ent[i]) > span)
                span = eevdf_slice(&ent[i]);
        span += tick;
    } else {
        span = 2 * eevdf_slice(se);
        if (span < tick)
            span = tick;
    }
    return (int64_t)((unsigned __int128)span * 1024 * sched_nice_to_wmult(se->nice) >> 32);
}

static int64_t expected_leave_lag(int qi, const struct sched_entity *se)
{
    struct model m;
    int64_t lag, lim = lag_limit(qi, se);

    model_of(qi, &m);
    lag = (int64_t)(model_V(&m) - se->ee.vruntime);
    return lag > lim ? lim : lag < -lim ? -lim : lag;
}

struct seen {
    int count;
    bool in[NENT];
};

static bool mark(struct sched_entity *se, void *arg)
{
    struct seen *s = arg;

    if (se < ent || se >= ent + NENT)
        die("a stranger is on the queue", -1, 0, 0);
    s->in[se - ent] = true;
    s->count++;
    return true;
}

static void check_queue(int qi)
{
    struct sched_queue *q = &qs[qi];
    struct seen s = {0, {false}};
    struct model m;
    struct sched_entity *fast, *ref;
    s128 wlag = 0;

    eevdf_check(q);
    eevdf_for_each_queued(q, mark, &s);
    if (q->curr)
        mark(q->curr, &s);
    for (int i = 0; i < NENT; i++) {
        if (s.in[i] != (where[i] == qi))
            die("queue membership differs from the model", i, s.in[i], where[i]);
        if (s.in[i] && !ent[i].on_queue)
            die("on the queue but on_queue is false", i, 0, 0);
    }
    model_of(qi, &m);
    if (m.n == 0)
        return;
    if (eevdf_V(q) != model_V(&m))
        die("V differs from the model", qi, (long long)eevdf_V(q), (long long)model_V(&m));

    for (int i = 0; i < NENT; i++)
        if (where[i] == qi)
            wlag += (s128)eevdf_lag(q, &ent[i]) * eevdf_weight(&ent[i]);
    if (wlag > 0 || -wlag >= (s128)m.load)
        die("sum of w*lag is not zero", qi, (long long)wlag, (long long)m.load);

    /* The tracer's count (it prunes subtrees by min_vruntime) against the
     * model's eligibility, entity by entity. */
    unsigned nelig = 0;
    for (int i = 0; i < NENT; i++)
        if (where[i] == qi && !eevdf_delayed(&ent[i]) && model_eligible(&m, ent[i].ee.vruntime))
            nelig++;
    if (eevdf_nr_eligible(q) != nelig)
        die("eligible count differs from the model", qi, eevdf_nr_eligible(q), nelig);

    fast = eevdf_pick_fast(q);
    ref = eevdf_pick_reference(q);
    if (fast != ref)
        die("fast pick differs from reference", qi, fast ? fast->id : -1, ref ? ref->id : -1);
    if (!fast)
        die("nothing picked from a non-empty queue", qi, m.n, 0);
    if (fast == q->curr && eevdf_protected(fast) && model_eligible(&m, fast->ee.vruntime))
        return; /* protected: it may keep the CPU whatever the deadlines */
    if (!model_eligible(&m, fast->ee.vruntime))
        die("picked an ineligible entity", fast->id, (long long)fast->ee.vruntime, (long long)model_V(&m));
    for (int i = 0; i < NENT; i++)
        if (where[i] == qi && model_eligible(&m, ent[i].ee.vruntime) &&
            (int64_t)(ent[i].ee.deadline - fast->ee.deadline) < 0)
            die("an eligible entity has an earlier deadline than the pick", i, fast->id, 0);
}

/* ---- driving -------------------------------------------------------- */

/* pick, tick and wakeup_preempt may finish the departure of delayed
 * entities whose lag is paid: they are then blocked, off the queue. */
static void sync_delayed(void)
{
    for (int i = 0; i < NENT; i++)
        if (where[i] >= 0 && !ent[i].on_queue)
            where[i] = -1 - where[i] - 1; /* blocked, last seen there */
}

static void decide(int qi)
{
    struct sched_decision d;

    sched_decide(P, &qs[qi], NULL, SCHED_LEAVE_BLOCK, &d);
}

static int home_of(int i)
{
    return where[i] >= 0 ? where[i] : -where[i] - 2;
}

/* Every entity born is on, or blocked at, a queue of its set. */
static void check_sets(void)
{
    for (int i = 0; i < NENT; i++)
        if (where[i] != -1 && !((allowed[i] >> home_of(i)) & 1))
            die("an entity is on a queue outside its set", i, home_of(i), (long long)allowed[i]);
}

static void do_leave(int qi, struct sched_entity *se, enum sched_leave_reason why)
{
    int64_t want;

    sync_delayed();
    want = expected_leave_lag(qi, se);

    P->leave(&qs[qi], se, why);
    if (se->on_queue) {
        if (why != SCHED_LEAVE_BLOCK || !eevdf_delayed(se))
            die("still on the queue after leaving", se->id, why, 0);
        return; /* delayed: it pays its lag first */
    }
    where[se->id] = -1 - qi - 1;
    if (why != SCHED_LEAVE_EXIT && se->ee.vlag != want)
        die("left with a lag V does not give", se->id, se->ee.vlag, want);
}

static void do_join(int qi, struct sched_entity *se, enum sched_join_reason why)
{
    struct sched_queue *q = &qs[qi];
    struct model m;
    int64_t before = se->ee.vlag, after;
    bool was_delayed = se->on_queue;

    sync_delayed();
    if (was_delayed)
        before = eevdf_lag(q, se);
    model_of(qi, &m);
    P->join(q, se, why);
    where[se->id] = qi;
    after = eevdf_lag(q, se);
    if (was_delayed) {
        if (eevdf_feature(EEVDF_F_DELAY_ZERO) && before > 0 ? after < -1 || after > 1 : after != before)
            die("a woken delayed entity has the wrong lag", se->id, before, after);
    } else if (why == SCHED_JOIN_NEW || !eevdf_feature(EEVDF_F_PLACE_LAG) || m.n == 0) {
        if (after < -1 || after > 1)
            die("joined without lag but has some", se->id, after, 0);
        if (why == SCHED_JOIN_NEW && eevdf_feature(EEVDF_F_PLACE_DEADLINE_INITIAL) &&
            se->ee.deadline - se->ee.vruntime != eevdf_calc_vdelta(eevdf_slice(se), eevdf_weight(se), se->ee.wmult) / 2)
            die("a new entity's deadline is not half a slice out", se->id, 0, 0);
    } else if (after - before > 2 || before - after > 2) {
        die("rejoined with a lag other than the one it left with", se->id, before, after);
    }
}

static void run(int qi, uint64_t delta)
{
    struct sched_queue *q = &qs[qi];
    uint64_t v;

    if (!q->curr)
        decide(qi);
    if (!q->curr)
        return;
    v = q->curr->ee.vruntime;
    P->charge(q, delta);
    expect_charge(q->curr, delta, q->curr->ee.vruntime - v);
    if (P->tick(q))
        decide(qi);
}

/* se (blocked at from, or queued there and not current) is now at dst,
 * which must be in its set; queued, it leaves by MIGRATE and joins dst by
 * MIGRATE, carrying its lag (do_leave and do_join check that). */
static void move_to(int from, struct sched_entity *se, int dst)
{
    if (!((allowed[se->id] >> dst) & 1))
        die("a move to a queue outside the entity's set", se->id, dst, (long long)allowed[se->id]);
    if (where[se->id] >= 0)
        do_leave(from, se, SCHED_LEAVE_MIGRATE);
    where[se->id] = -1 - dst - 1;
    do_join(dst, se, SCHED_JOIN_MIGRATE);
    if (P->wakeup_preempt(&qs[dst], se))
        decide(dst);
}

/* can_migrate_task(): listed (not current), not delayed, the rules' test
 * of its set. */
static bool pull_collect(struct sched_entity *se, void *pull)
{
    if (!eevdf_delayed(se))
        balance_pull_offer(pull, se, allowed[se->id], eevdf_weight(se));
    return balance_pull_walk_on(pull);
}

static bool pull_move(void *pull, unsigned i)
{
    struct balance_pull *x = pull;
    move_to((int)x->env->src, x->cand[i], (int)x->env->dst);
    return true;
}

/* One balance pass of queue dst (fuzz_balance.h's): newidle if it runs
 * nothing and the switch is on, else periodic. where[] is brought up to
 * date first, as move_to reads it; that changes nothing the rules see. */
static void balance_pass(int dst)
{
    sync_delayed();
    fuzz_balance_pass(P, qs, nq, dst, !sched_running(&qs[dst]) && !qs[dst].nr_queued, pull_collect, pull_move);
}

/* libFuzzer's entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    struct sched_params params;
    uint32_t mask = byte(&in);

    /* a second byte, so that the switches past the eighth (YIELD_BOUNDED,
     * REQUEUE_UPDATE_CURR, LAG_CLAMP_MAX_SLICE) are fuzzed too */
    mask |= byte(&in) << 8;
    mask &= ~(1u << EEVDF_F_LAB_LEAVE_BUG);
#ifdef EEVDF_FUZZ_LAB_LEAVE_BUG
    mask |= 1u << EEVDF_F_LAB_LEAVE_BUG;
#endif
    eevdf_features_set_mask(mask);
    nq = 2 + (int)(byte(&in) % (NQ_MAX - 1));
    params.ncpus = (unsigned)nq;
    params.tick_ns = (1 + byte(&in) % 10) * MS;
    for (int k = 0; k < nq; k++)
        sched_queue_init(P, &qs[k], &params);
    memset(ent, 0, sizeof ent);
    for (int i = 0; i < NENT; i++)
        where[i] = -1; /* never joined */

    for (int steps = 0; in.n && steps < 400; steps++) {
        unsigned op = byte(&in), arg = byte(&in);
        int qi = (int)(((op & 1) | (arg >> 3) << 1) % (unsigned)nq), i = arg % NENT;
        struct sched_queue *q = &qs[qi];
        struct sched_entity *se = &ent[i];

        switch ((op >> 1) % 11) {
        case 0: /* run */
        case 1:
            run(qi, take32(&in) % (8 * MS) + 1);
            break;
        case 2: /* current blocks */
            if (q->curr) {
                do_leave(qi, q->curr, SCHED_LEAVE_BLOCK);
                decide(qi);
            }
            break;
        case 3: /* wake, placed by the rules (a delayed one stays where it is queued) */
            if (where[i] < -1 || (se->on_queue && eevdf_delayed(se))) {
                int home = home_of(i);

                if (where[i] < -1 && balance_wake_on((unsigned)nq, false)) {
                    struct balance_view v;
                    enum balance_why why;
                    fuzz_balance_view(&v, P, qs, nq);
                    unsigned dst = balance_wake_target(&v, allowed[i], eevdf_weight(se), (unsigned)home, (unsigned)qi, &why);
                    if ((int)dst != home) {
                        move_to(home, se, (int)dst);
                        break;
                    }
                }
                do_join(home, se, SCHED_JOIN_WAKE);
                if (P->wakeup_preempt(&qs[home], se))
                    decide(home);
            }
            break;
        case 4: /* yield */
            if (q->curr) {
                P->yield(q);
                decide(qi);
            }
            break;
        case 5: /* renice */
            if (where[i] != -1) {
                int nice = (int)(take32(&in) % 40) - 20;

                if (se->on_queue)
                    P->set_nice(&qs[home_of(i)], se, nice);
                else
                    P->set_nice(NULL, se, nice);
            }
            break;
        case 6: /* new slice request */
            if (where[i] != -1) {
                uint64_t slice = (take32(&in) % 8) * 700000 + (arg & 1) * 50000;

                if (se->on_queue)
                    P->set_slice(&qs[home_of(i)], se, slice);
                else
                    P->set_slice(NULL, se, slice);
            }
            break;
        case 7: /* migrate to another queue of its set */
            if (where[i] >= 0 && se != qs[where[i]].curr && !eevdf_delayed(se)) {
                int from = where[i];

                for (int k = 1; k < nq; k++) {
                    int dst = (from + k + (int)(arg >> 3)) % nq;
                    if (dst != from && ((allowed[i] >> dst) & 1)) {
                        move_to(from, se, dst);
                        break;
                    }
                }
            }
            break;
        case 8: /* born, or exits */
            if (where[i] == -1) {
                /* its set: random, and the queue it is born on */
                allowed[i] = (take32(&in) & ((1ull << nq) - 1)) | 1ull << qi;
                se->id = i;
                se->nice = (int)(take32(&in) % 40) - 20;
                se->slice_ns = (arg >> 3) % 4 * 1000000;
                P->init_entity(q, se);
                do_join(qi, se, SCHED_JOIN_NEW);
                if (P->wakeup_preempt(q, se))
                    decide(qi);
            } else if (se->on_queue && se != qs[home_of(i)].curr) {
                int home = home_of(i);

                do_leave(home, se, SCHED_LEAVE_EXIT);
                where[i] = -1;
                memset(se, 0, sizeof *se);
            }
            break;
        case 9: /* the HRTICK timer fires */
            if (q->curr) {
                uint64_t t = P->timer_ns(q);

                if (t != UINT64_MAX)
                    run(qi, t ? t : 1);
            }
            break;
        case 10: /* a balance pass: newidle or periodic */
            balance_pass(qi);
            break;
        }
        sync_delayed();
        for (int k = 0; k < nq; k++)
            check_queue(k);
        check_sets();
    }
    return 0;
}
