/*
 * libFuzzer target for the real-time class (kernel/sched/rt.c) and the
 * class layer that puts it above the fair policy (kernel/sched/decide.c).
 *
 * Each input drives 2 to 16 queues (CPUs) and ten entities, each with a
 * random set of queues it may be on, through the class layer only
 * (decide.h), as the kernel's core does: entities of both classes
 * (RT at priority 1..99, FIFO or RR; fair under eevdf or rr, chosen by the
 * input with the EEVDF feature switches, the balancing ones from a byte
 * of their own)
 * are born and wake (a fair one placed by the balancer's rules,
 * kernel/sched/balance_rules.c, with BALANCE_WAKE on), the running
 * one blocks or exits, yields, runs ticks or odd lengths of time, moves to
 * another queue of its set (LEAVE migrate + JOIN migrate) or away and
 * straight back, is pulled by a newidle or periodic balance pass,
 * changes class off the queue or, as the core's `sched rt` does, on it;
 * RT budgets change and periods start. Whenever a step asks for a decision
 * (a charge, a tick, a preempting wakeup, a new period that ends a
 * throttle) it is taken at once, as the core takes it.
 *
 * After every step each queue is held to a small model of its own, which
 * keeps every runnable RT entity in one list in Linux's order (highest
 * first, first come first among equals, the running one where it is:
 * Linux leaves it on its list, and moves it only at a yield or a used-up
 * RR quantum), the budget's use and the fair entities' states:
 *   - the running entity is the model's first RT entity, unless the budget
 *     is used and a fair entity is runnable: then a fair one of this queue
 *     runs; nothing runs only if nothing is runnable;
 *   - the RT entities queued, in the class's order, are the model's list
 *     without the running one; no entity is both running and listed;
 *   - both classes' counts, sched_rt_throttled() and the RT timer agree;
 *   - a charge, a tick and a wakeup ask for a decision when the model
 *     says one is due (and the cross-class ones only then);
 *   - a decision reports a release exactly when RT displaced a fair entity,
 *     and the entity it displaced keeps its vruntime and deadline;
 *   - eevdf: the tree's own invariants (eevdf_check), and a fair entity
 *     that moves arrives with the lag it left with (place()'s scaling by
 *     (W + w)/W makes them equal), even with RT tasks on either queue.
 *     tests/policy/eevdf_fuzz.c checks the lag arithmetic itself; this checks that
 *     the class layer leaves it alone;
 *   - every entity is on, or was last on, a queue of its set: no wakeup
 *     placement or pull puts it elsewhere; the balancer moves fair
 *     entities only.
 *
 * Run: bash tests/policy/rt_fuzz.sh SECONDS (make test: 10).
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

#define NENT 10
#define NQ_MAX 16
#define MS 1000000ull

static const struct sched_policy *P;
static struct sched_queue qs[NQ_MAX];
static int nq; /* queues in this input, 2..NQ_MAX */
static struct sched_entity ent[NENT];
static uint64_t allowed[NENT]; /* the queues it may be on (bit n: queue n) */

/* ---- the model ------------------------------------------------------- */

enum mstate { M_NEW, M_BLOCKED, M_RUNNABLE, M_DELAYED };

static struct {
    enum mstate state;
    int q;           /* queue while runnable or delayed */
    int64_t rr_left; /* RR: what is left of the quantum */
} m[NENT];

/* Per queue: runnable RT entities in Linux's order, the budget's use. */
static struct {
    int rt[NENT], nrt;
    uint64_t runtime, used;
} mq[NQ_MAX];

static void die(const char *what, int a, long long b, long long c)
{
    fprintf(stderr, "rt_fuzz: %s (%d, %lld, %lld)\n", what, a, b, c);
    abort();
}

static unsigned prio_of(int i)
{
    return ent[i].rt.prio;
}

/* Behind every runnable entity of its priority or higher. */
static void m_rt_add(int qi, int i)
{
    int pos = 0;

    while (pos < mq[qi].nrt && prio_of(mq[qi].rt[pos]) >= prio_of(i))
        pos++;
    memmove(&mq[qi].rt[pos + 1], &mq[qi].rt[pos], (size_t)(mq[qi].nrt - pos) * sizeof(int));
    mq[qi].rt[pos] = i;
    mq[qi].nrt++;
}

static void m_rt_del(int qi, int i)
{
    int pos = 0;

    while (pos < mq[qi].nrt && mq[qi].rt[pos] != i)
        pos++;
    if (pos == mq[qi].nrt)
        die("model: not on the RT list", i, qi, 0);
    memmove(&mq[qi].rt[pos], &mq[qi].rt[pos + 1], (size_t)(mq[qi].nrt - pos - 1) * sizeof(int));
    mq[qi].nrt--;
}

static bool m_has_equal(int qi, int i)
{
    for (int k = 0; k < mq[qi].nrt; k++)
        if (mq[qi].rt[k] != i && prio_of(mq[qi].rt[k]) == prio_of(i))
            return true;
    return false;
}

static unsigned m_fair(int qi)
{
    unsigned n = 0;

    for (int i = 0; i < NENT; i++)
        n += m[i].state == M_RUNNABLE && m[i].q == qi && !sched_is_rt(&ent[i]);
    return n;
}

static bool m_budget_used(int qi)
{
    return mq[qi].runtime != RT_NO_BUDGET && mq[qi].used >= mq[qi].runtime;
}

static bool m_throttled(int qi)
{
    return mq[qi].nrt > 0 && m_budget_used(qi) && m_fair(qi) > 0;
}

/* The entity becomes runnable on qi (in the model). */
static void m_join(int qi, int i)
{
    m[i].state = M_RUNNABLE;
    m[i].q = qi;
    if (sched_is_rt(&ent[i]))
        m_rt_add(qi, i);
}

/* The entity leaves qi: off any queue, or (kept) delayed there. */
static void m_leave(int qi, int i, enum mstate to)
{
    if (sched_is_rt(&ent[i]))
        m_rt_del(qi, i);
    m[i].state = to;
}

/* ---- checks ------------------------------------------------------------ */

struct listing {
    int n, id[NENT];
};

static bool note(struct sched_entity *se, void *arg)
{
    struct listing *l = arg;

    if (se < ent || se >= ent + NENT || l->n == NENT)
        die("a stranger or a repeat on the queue", l->n, 0, 0);
    l->id[l->n++] = (int)(se - ent);
    return true;
}

static void check_queue(int qi)
{
    struct sched_queue *q = &qs[qi];
    struct sched_entity *run = sched_running(q);
    int r = run ? (int)(run - ent) : -1, k = 0;
    unsigned fair = m_fair(qi);
    struct listing l = { 0, { 0 } };
    bool listed[NENT] = { false };

    if (q->curr && q->rt.curr)
        die("two entities run", qi, q->curr->id, q->rt.curr->id);
    if (mq[qi].nrt > 0 && !m_throttled(qi)) {
        if (r != mq[qi].rt[0])
            die("the running entity is not the model's first RT entity", qi, r, mq[qi].rt[0]);
    } else if (fair > 0) {
        if (r < 0 || sched_is_rt(run) || m[r].state != M_RUNNABLE || m[r].q != qi)
            die("throttled or no RT: no runnable fair entity of this queue runs", qi, r, mq[qi].nrt);
    } else if (run) {
        die("something runs with nothing runnable", qi, r, 0);
    }
    if (sched_rt_throttled(q) != m_throttled(qi))
        die("sched_rt_throttled differs from the model", qi, sched_rt_throttled(q), m_throttled(qi));
    if (q->rt.nr_queued != (unsigned)mq[qi].nrt - (run && sched_is_rt(run)) ||
        q->nr_queued != fair - (q->curr != NULL) || sched_nr_runnable(q) != (unsigned)mq[qi].nrt + fair)
        die("counts differ from the model", qi, q->rt.nr_queued, q->nr_queued);

    /* RT's list first, in the model's order without the running one; then
     * the fair policy's: its runnable entities but the running one, and
     * its delayed ones. */
    sched_for_each_queued(P, q, note, &l);
    for (int i = 0; i < mq[qi].nrt; i++) {
        if (mq[qi].rt[i] == r)
            continue;
        if (k >= l.n || l.id[k] != mq[qi].rt[i])
            die("RT order differs from the model at", k, k < l.n ? l.id[k] : -1, mq[qi].rt[i]);
        k++;
    }
    for (int i = 0; i < l.n; i++) {
        if (l.id[i] == r || listed[l.id[i]])
            die("listed twice, or running and listed", l.id[i], r, 0);
        listed[l.id[i]] = true;
    }
    for (int i = 0; i < NENT; i++) {
        bool here = (m[i].state == M_RUNNABLE || m[i].state == M_DELAYED) && m[i].q == qi;

        if (here != (listed[i] || i == r))
            die("queue membership differs from the model", i, qi, m[i].state);
        if (here && !ent[i].on_queue)
            die("on the queue, on_queue false", i, qi, 0);
    }
    if (run && sched_is_rt(run)) {
        uint64_t want = UINT64_MAX;

        if (fair > 0 && mq[qi].runtime != RT_NO_BUDGET)
            want = m_budget_used(qi) ? 0 : mq[qi].runtime - mq[qi].used;
        if (sched_timer_ns(P, q) != want)
            die("RT timer differs from the budget left", qi, (long long)sched_timer_ns(P, q), (long long)want);
    }
    if (P == &eevdf_policy)
        eevdf_check(q);
}

static void check_all(void)
{
    for (int qi = 0; qi < nq; qi++)
        check_queue(qi);
    for (int i = 0; i < NENT; i++)
        if (m[i].state != M_NEW && !((allowed[i] >> m[i].q) & 1))
            die("an entity is on a queue outside its set", i, m[i].q, (long long)allowed[i]);
}

/* ---- driving ------------------------------------------------------------ */

/* EEVDF may finish a delayed entity's departure in a pick, tick or wakeup
 * check: it is then blocked, off the queue. */
static void sync_delayed(void)
{
    for (int i = 0; i < NENT; i++)
        if (m[i].state == M_DELAYED && !ent[i].on_queue)
            m[i].state = M_BLOCKED;
}

/* One decision on qi; leaving (the running entity) blocks or exits. */
static void decide(int qi, struct sched_entity *leaving, enum sched_leave_reason why)
{
    struct sched_decision d;
    struct sched_entity *prev = sched_running(&qs[qi]);
    struct sched_entity_view before, after;
    bool released;

    if (prev)
        sched_describe(P, &qs[qi], NULL, prev, &before);
    if (leaving) {
        int i = (int)(leaving - ent);

        m_leave(qi, i, M_BLOCKED); /* corrected below if the policy keeps it */
    }
    sched_decide(P, &qs[qi], leaving, why, &d);
    if (leaving && d.leaver_kept)
        m[leaving - ent].state = M_DELAYED;
    if (leaving && why == SCHED_LEAVE_EXIT)
        m[leaving - ent].state = M_NEW;
    released = d.displaced && !sched_is_rt(d.prev) && d.next && sched_is_rt(d.next);
    if (d.released != released || d.displaced != (!leaving && d.prev && d.next != d.prev))
        die("a decision reports the wrong release or displacement", qi, d.released, d.displaced);
    if (d.displaced) { /* put back, not moved: a later pick finds it where it was */
        sched_describe(P, &qs[qi], NULL, prev, &after);
        if (after.vruntime != before.vruntime || after.deadline != before.deadline)
            die("a put back moved the displaced entity", prev->id, (long long)(after.vruntime - before.vruntime),
                (long long)(after.deadline - before.deadline));
    }
    sync_delayed();
}

/* se just joined qi: does it preempt as the model says a cross-class
 * wakeup must? Decides if so. */
static void wakeup(int qi, struct sched_entity *se)
{
    struct sched_entity *run = sched_running(&qs[qi]);
    bool preempt = sched_wakeup_preempt(P, &qs[qi], se), want = preempt;

    if (!run)
        want = true;
    else if (sched_is_rt(se) && sched_is_rt(run))
        want = se->rt.prio > run->rt.prio;
    else if (sched_is_rt(se) != sched_is_rt(run))
        want = sched_is_rt(se) != m_budget_used(qi);
    if (preempt != want)
        die("a wakeup's preemption differs from the model", se->id, preempt, want);
    if (preempt)
        decide(qi, NULL, SCHED_LEAVE_BLOCK);
}

/* The running entity ran delta: true if the charge asks for a decision,
 * which the model says it must exactly when RT has just used the budget
 * with fair work waiting (a fair entity's charge is its policy's). */
static bool charge(int qi, uint64_t delta)
{
    struct sched_entity *run = sched_running(&qs[qi]);
    bool was_used = m_budget_used(qi), want;

    if (!sched_is_rt(run))
        return sched_charge(P, &qs[qi], delta);
    mq[qi].used += delta;
    want = !was_used && m_budget_used(qi) && m_fair(qi) > 0;
    if (sched_charge(P, &qs[qi], delta) != want)
        die("an RT charge's answer differs from the model", qi, !want, want);
    return want;
}

/* A tick of tick_ns: charge, then the tick, as the core's tick does. */
static void tick(int qi)
{
    struct sched_queue *q = &qs[qi];
    struct sched_entity *run = sched_running(q);
    int r;
    bool want, moved = false;

    if (!run)
        return;
    r = (int)(run - ent);
    want = charge(qi, q->params.tick_ns);
    if (sched_is_rt(run) && run->rt.policy == RT_RR) {
        m[r].rr_left -= (int64_t)q->params.tick_ns;
        if (m[r].rr_left <= 0) {
            m[r].rr_left = (int64_t)RT_RR_QUANTUM_NS;
            moved = m_has_equal(qi, r);
            if (moved) {
                m_rt_del(qi, r);
                m_rt_add(qi, r);
            }
        }
    }
    bool ticked = sched_tick(P, q);
    if (sched_is_rt(run) && ticked != (moved || m_throttled(qi)))
        die("an RT tick's answer differs from the model", r, ticked, moved);
    if (want || ticked)
        decide(qi, NULL, SCHED_LEAVE_BLOCK);
}

/* A fair entity's lag on queue qi (eevdf), as the class layer shows it. */
static int64_t lag_on(int qi, struct sched_entity *se)
{
    struct sched_entity_view v;

    sched_describe(P, &qs[qi], NULL, se, &v);
    return v.lag;
}

/* Fair entities the EEVDF queue counts in V (runnable and delayed). */
static bool fair_on(int qi)
{
    for (int i = 0; i < NENT; i++)
        if ((m[i].state == M_RUNNABLE || m[i].state == M_DELAYED) && m[i].q == qi && !sched_is_rt(&ent[i]))
            return true;
    return false;
}

/* i, queued and not running, moves to queue `to`, which must be in its
 * set; checks that a fair entity arrives with the lag it left with.
 * Returns that lag if the lag is checked (eevdf, PLACE_LAG, a fair queue
 * to arrive on, no clamp at the leave), else INT64_MIN. */
static int64_t migrate_to(int i, int to)
{
    struct sched_entity *se = &ent[i];
    int from = m[i].q;
    bool lagged = P == &eevdf_policy && !sched_is_rt(se), into_fair = fair_on(to);
    int64_t before = lagged ? lag_on(from, se) : 0, left, after;

    if (!((allowed[i] >> to) & 1))
        die("a move to a queue outside the entity's set", i, to, (long long)allowed[i]);
    m_leave(from, i, M_BLOCKED);
    sched_leave(P, &qs[from], se, SCHED_LEAVE_MIGRATE);
    left = se->ee.vlag;
    sched_join(P, &qs[to], se, SCHED_JOIN_MIGRATE);
    m_join(to, i);
    if (!lagged)
        return INT64_MIN;
    after = lag_on(to, se);
    if (left != before && !(before < 0 ? before < left && left < 0 : 0 < left && left < before))
        die("left with a lag other than its own, and not clamped", i, before, left);
    if (!eevdf_feature(EEVDF_F_PLACE_LAG) || !into_fair) {
        if (after < -1 || after > 1)
            die("arrived with lag where none is kept", i, after, 0);
        return INT64_MIN;
    }
    if (after - left > 2 || left - after > 2)
        die("a fair entity arrived with a lag other than the one it left with", i, left, after);
    return left == before ? before : INT64_MIN;
}

/* Another queue of i's set than its own, from `pick`; -1 if none. */
static int other_queue(int i, unsigned pick)
{
    for (int k = 1; k < nq; k++) {
        int to = (m[i].q + k + (int)pick) % nq;
        if (to != m[i].q && ((allowed[i] >> to) & 1))
            return to;
    }
    return -1;
}

static struct input {
    const uint8_t *p;
    size_t n;
} in;

static unsigned byte(void)
{
    if (!in.n)
        return 0;
    in.n--;
    return *in.p++;
}

static uint64_t take32(void)
{
    return byte() | byte() << 8 | (uint64_t)byte() << 16 | (uint64_t)byte() << 24;
}

/* A class from the input: fair, one of three shared RT priorities (equals
 * are what FIFO and RR are about), or any of 1..99. */
static void class_from(unsigned b, unsigned *prio, unsigned *policy)
{
    static const unsigned shared[] = { 10, 50, 90 };

    *policy = b & 1 ? RT_RR : RT_FIFO;
    b >>= 1;
    *prio = b % 4 == 0 ? 0 : b % 4 < 3 ? shared[(b >> 2) % 3] : 1 + (b >> 2) % RT_PRIO_MAX;
}

static void set_class(int i, unsigned b)
{
    unsigned prio, policy;

    class_from(b, &prio, &policy);
    sched_set_class(P, &ent[i], prio, policy);
    m[i].rr_left = (int64_t)RT_RR_QUANTUM_NS;
}

/* i, queued and not running, changes class where it is (the core's
 * `sched rt`: leave, set the class, join, ask). */
static void reclass_queued(int i, unsigned b)
{
    int qi = m[i].q;

    m_leave(qi, i, M_BLOCKED);
    sched_leave(P, &qs[qi], &ent[i], SCHED_LEAVE_MIGRATE);
    set_class(i, b);
    sched_join(P, &qs[qi], &ent[i], SCHED_JOIN_MIGRATE);
    m_join(qi, i);
    wakeup(qi, &ent[i]);
}

/* Queued on its queue and not running, not delayed: free to move. */
static bool movable(int i)
{
    return m[i].state == M_RUNNABLE && sched_running(&qs[m[i].q]) != &ent[i];
}

/* can_migrate_task(): the fair class's listed entities (not running),
 * not delayed, the rules' test of its set. */
static bool pull_collect(struct sched_entity *se, void *pull)
{
    int i = (int)(se - ent);
    if (movable(i))
        balance_pull_offer(pull, se, allowed[i], sched_nice_to_weight(se->nice));
    return balance_pull_walk_on(pull);
}

static bool pull_move(void *pull, unsigned k)
{
    struct balance_pull *x = pull;
    int i = (int)((struct sched_entity *)x->cand[k] - ent);
    if (sched_is_rt(&ent[i]))
        die("the balancer moved an RT entity", i, 0, 0);
    migrate_to(i, (int)x->env->dst);
    wakeup((int)x->env->dst, &ent[i]);
    return true;
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sched_params params;
    uint32_t mask;

    in = (struct input){ data, size };
    mask = byte();
    P = mask & 0x80 ? &rr_policy : &eevdf_policy;
    /* the balancing switches from a byte of their own, wakeup placement
     * on unless its bit says off (the placement has the most to check) */
    unsigned b = byte();
    mask &= 0xff;
    mask |= (~b & 1u) << EEVDF_F_BALANCE_WAKE | (b >> 1 & 1u) << EEVDF_F_WA_IDLE | (b >> 2 & 1u) << EEVDF_F_WA_WEIGHT |
            (b >> 3 & 1u) << EEVDF_F_BALANCE_NEWIDLE | (b >> 4 & 1u) << EEVDF_F_BALANCE_PERIODIC;
    eevdf_features_set_mask(mask & ~(1u << EEVDF_F_LAB_LEAVE_BUG));
    nq = 2 + (int)(byte() % (NQ_MAX - 1));
    params.ncpus = (unsigned)nq;
    params.tick_ns = (1 + byte() % 10) * MS;
    memset(ent, 0, sizeof ent);
    memset(m, 0, sizeof m);
    memset(mq, 0, sizeof mq);
    for (int qi = 0; qi < nq; qi++) {
        sched_queue_init(P, &qs[qi], &params);
        mq[qi].runtime = RT_NO_BUDGET;
    }

    for (int steps = 0; in.n && steps < 300; steps++) {
        unsigned op = byte(), arg = byte();
        int qi = (int)(((op & 1) | (arg >> 4) << 1) % (unsigned)nq), i = (int)(arg % NENT);
        struct sched_queue *q = &qs[qi];
        struct sched_entity *se = &ent[i], *run = sched_running(q);

        switch ((op >> 1) % 12) {
        case 0: /* ticks */
            for (unsigned k = 0; k < 1 + arg % 16; k++) {
                tick(qi);
                check_all();
            }
            break;
        case 1: /* an odd length of run time (a wakeup's or a block's charge) */
            if (run && charge(qi, take32() % (8 * MS) + 1))
                decide(qi, NULL, SCHED_LEAVE_BLOCK);
            break;
        case 2: /* the running entity blocks, or exits */
            if (run) {
                int r = (int)(run - ent);

                if (arg & 1) {
                    decide(qi, run, SCHED_LEAVE_EXIT);
                    memset(run, 0, sizeof *run);
                    m[r].state = M_NEW;
                } else {
                    decide(qi, run, SCHED_LEAVE_BLOCK);
                }
            }
            break;
        case 3: /* born, or woken (where it is if delayed, else on qi, or where
                 * the rules place it) */
            if (m[i].state == M_NEW) {
                allowed[i] = (take32() & ((1ull << nq) - 1)) | 1ull << qi;
                se->id = i;
                set_class(i, byte());
                sched_init_entity(P, q, se);
                sched_join(P, q, se, SCHED_JOIN_NEW);
                m_join(qi, i);
                wakeup(qi, se);
            } else if (m[i].state != M_RUNNABLE) {
                int to = m[i].state == M_DELAYED ? m[i].q : qi;

                if (m[i].state == M_BLOCKED && !((allowed[i] >> to) & 1))
                    to = m[i].q; /* select_fallback_rq(): where it last was */
                if (m[i].state == M_BLOCKED && balance_wake_on((unsigned)nq, sched_is_rt(se))) {
                    struct balance_view v;
                    enum balance_why why;
                    fuzz_balance_view(&v, P, qs, nq);
                    to = (int)balance_wake_target(&v, allowed[i], sched_nice_to_weight(se->nice), (unsigned)m[i].q,
                                                  (unsigned)qi, &why);
                    if (!((allowed[i] >> to) & 1))
                        die("a wakeup placed outside the entity's set", i, to, (long long)allowed[i]);
                }

                sched_join(P, &qs[to], se, SCHED_JOIN_WAKE);
                m_join(to, i);
                wakeup(to, se);
            }
            break;
        case 4: /* yield: behind its equals */
            if (run) {
                int r = (int)(run - ent);

                if (sched_is_rt(run)) {
                    m_rt_del(qi, r);
                    m_rt_add(qi, r);
                }
                sched_yield_curr(P, q);
                decide(qi, NULL, SCHED_LEAVE_BLOCK);
            }
            break;
        case 5: /* a decision for no reason of its own (another CPU's IPI) */
            decide(qi, NULL, SCHED_LEAVE_BLOCK);
            break;
        case 6: /* class change: off the queue, or queued as `sched rt` does */
            if (m[i].state == M_NEW || m[i].state == M_BLOCKED)
                set_class(i, byte());
            else if (movable(i))
                reclass_queued(i, byte());
            break;
        case 7: /* migrate */
            if (movable(i) && other_queue(i, arg >> 4) >= 0) {
                migrate_to(i, other_queue(i, arg >> 4));
                wakeup(m[i].q, se);
            }
            break;
        case 8: /* away and back, with nothing between */
            if (movable(i) && other_queue(i, arg >> 4) >= 0) {
                int home = m[i].q;
                int64_t first = migrate_to(i, other_queue(i, arg >> 4)), back = migrate_to(i, home);

                if (first != INT64_MIN && back != INT64_MIN && (back - first > 4 || first - back > 4))
                    die("away and back changed a fair entity's lag", i, first, back);
                wakeup(m[i].q, se);
            }
            break;
        case 9: { /* a new budget period: a decision if it ends a throttle */
            bool was = sched_rt_throttled(q);

            rt_new_period(q);
            mq[qi].used = 0;
            if (was)
                decide(qi, NULL, SCHED_LEAVE_BLOCK);
            break;
        }
        case 10: /* a new budget; the core then decides at its next tick */
            mq[qi].runtime = arg % 8 == 0 ? RT_NO_BUDGET : (1 + take32() % 200) * MS;
            rt_set_runtime(q, mq[qi].runtime);
            decide(qi, NULL, SCHED_LEAVE_BLOCK);
            break;
        case 11: /* a balance pass of qi: newidle if it runs nothing, else periodic */
            fuzz_balance_pass(P, qs, nq, qi, sched_nr_runnable(&qs[qi]) == 0, pull_collect, pull_move);
            break;
        }
        sync_delayed();
        check_all();
    }
    return 0;
}
