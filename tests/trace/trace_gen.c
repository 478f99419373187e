/*
 * trace_gen: writes a realistic synthetic trace stream (docs/trace-format.md)
 * by driving the real policies (kernel/sched/rr.c, eevdf.c) with a small
 * discrete-event simulation of a few CPUs: spinners and tasks that run in
 * bursts and sleep, woken by timers or by tasks on other CPUs; ticks,
 * slice-end timers (HRTICK on), keyframes and counters. A wakeup joins
 * as the kernel's drain_wakes() takes it, and its JOIN carries the wakeup
 * check the policy answered (trace format 3). Packets are framed per CPU, as
 * the kernel's rings do, so CPUs' packets interleave on the wire.
 *
 * With --rt N, N real-time tasks (trace format 4), one a CPU, wake on a
 * timer now and then and run a short burst above the fair class: the fair
 * task they find running leaves with reason `release` (by rt), put back
 * on its queue, and with --migrate K one release in K moves that task to
 * the next CPU's queue (MIGRATE rt_release, LEAVE migrate, JOIN migrate), as re-placing a
 * bounced task does. The RT class here is the generator's own few lines,
 * not the kernel's policy: what the host reads is the records.
 *
 * Then it can damage the stream the ways a real one is damaged: flipped
 * bytes, a lost packet, garbage between packets, a ring that overflowed,
 * a cut end. Used by the trace tests, the ingest bench and the TUI.
 *
 * Build:
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -iquote . -iquote kernel/sched \
 *      -iquote kernel/lib -o build/tests/trace_gen tests/trace/trace_gen.c \
 *      kernel/sched/decide.c kernel/sched/rr.c kernel/sched/eevdf.c kernel/sched/eevdf_tree.c kernel/sched/weights.c
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "eevdf_features.h"
#include "host/base/xalloc.h"
#include "policy.h"
#include "trace/format.h"
#include "weights.h"

#define US 1000ull
#define MS 1000000ull
#define MAX_CPUS 64
#define MAX_TASKS 512

enum kind { K_IDLE, K_SPIN, K_IO, K_RT };
enum tstate { T_RUNNABLE, T_SLEEPING };

struct gtask {
    struct sched_entity se;
    int id;
    char name[TRACE_NAME_LEN];
    int cpu;
    enum kind kind;
    enum tstate state;
    uint64_t run_left; /* K_IO, K_RT: of the current burst */
    unsigned rt_prio, rt_policy; /* K_RT */
    uint64_t wake_at;  /* T_SLEEPING */
    uint64_t stint_start;
};

struct gcpu {
    struct sched_queue q;
    struct gtask *curr;
    struct gtask *idle;
    uint64_t last_charge, next_tick, next_kf;
    uint8_t buf[TRACE_PKT_MAX_PAYLOAD];
    size_t len;
    uint32_t seq, dropped;
    int drop_left; /* --ring-drop: records still to drop */
    uint64_t ctr[TRACE_CTR_NR];
};

/* ---- options ---- */
static struct {
    const char *policy;
    unsigned ncpus, ntasks, hz;
    uint64_t dur_ns, max_records;
    unsigned long seed;
    size_t packet_bytes;
    const char *out;
    const char *csv_dir;
    /* damage */
    unsigned flips;
    long drop_packet;  /* index of a packet to leave out; -1 none */
    long garbage_at;   /* garbage before this packet; -1 none */
    unsigned garbage_len;
    unsigned ring_drop;
    long cut;          /* keep only this many bytes; -1 all */
    int no_end;
    unsigned end_late_ms; /* END this long after the CPUs' last records */
    int verbose;
    int join_v2;       /* JOINs as format version 2 wrote them: 68 bytes, no check */
    int task_v3;       /* TASK records as format version 3 wrote them: 48 bytes, no class */
    unsigned rt;       /* real-time tasks, one a CPU */
    unsigned migrate;  /* 1 in N releases moves the released task to the next CPU */
    unsigned repick;   /* 1 in N sleeps, with nothing else to run, picked again at once */
    const char *feature[8]; /* --feature NAME or NO_NAME, in order */
    unsigned nfeature;
} opt = {
    .policy = "eevdf", .ncpus = 4, .ntasks = 12, .hz = 250, .dur_ns = 500 * MS,
    .seed = 1, .packet_bytes = 4096, .drop_packet = -1, .garbage_at = -1,
    .garbage_len = 100, .cut = -1,
};

static const struct sched_policy *P;
static bool is_eevdf;
static struct gcpu cpus[MAX_CPUS];
static struct gtask tasks[MAX_TASKS];
static unsigned ntask;
static uint64_t now, nrecords, npackets;
static struct gcpu global; /* stream-wide packets */

/* The whole stream, kept to damage it before writing. */
static uint8_t *out;
static size_t out_len, out_cap;
static size_t *pkt_off; /* start of each packet in out */
static size_t pkt_n, pkt_cap;

static FILE *csv_pick, *csv_place, *csv_leave, *csv_wake, *csv_tick;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    /* xorshift64*: deterministic for a seed, on every machine */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
    return lo + rnd() % (hi - lo + 1);
}

static void out_append(const void *p, size_t n)
{
    if (out_len + n > out_cap) {
        out_cap = (out_len + n) * 2;
        out = xrealloc(out, out_cap);
    }
    memcpy(out + out_len, p, n);
    out_len += n;
}

static void flush_cpu(struct gcpu *c, uint16_t cpu)
{
    if (!c->len)
        return;
    struct trace_pkt_hdr h;
    trace_pkt_seal(&h, cpu, c->seq++, c->dropped, c->buf, (uint16_t)c->len);
    if (pkt_n == pkt_cap) {
        pkt_cap = pkt_cap ? pkt_cap * 2 : 1024;
        pkt_off = xrealloc(pkt_off, pkt_cap * sizeof *pkt_off);
    }
    pkt_off[pkt_n++] = out_len;
    out_append(&h, sizeof h);
    out_append(c->buf, c->len);
    c->len = 0;
    npackets++;
}

static uint16_t cpu_no(struct gcpu *c)
{
    return c == &global ? TRACE_CPU_GLOBAL : (uint16_t)(c - cpus);
}

/* Appends a record to c's ring (flushing a full packet first). */
static void emit(struct gcpu *c, void *rec)
{
    struct trace_rec_hdr *h = rec;
    if (c->drop_left > 0) {
        c->drop_left--;
        c->dropped++;
        return;
    }
    size_t limit = opt.packet_bytes;
    if (h->size > limit)
        limit = TRACE_PKT_MAX_PAYLOAD;
    if (c->len + h->size > limit)
        flush_cpu(c, cpu_no(c));
    memcpy(c->buf + c->len, rec, h->size);
    c->len += h->size;
    nrecords++;
}

static struct gtask *task_of(struct sched_entity *se)
{
    return (struct gtask *)se; /* se is the first member */
}

static uint64_t V_of(struct sched_queue *q)
{
    return is_eevdf ? eevdf_V(q) : 0;
}

static uint8_t rflags(void)
{
    return is_eevdf ? 0 : TRACE_RF_NO_EEVDF;
}

static unsigned nr_runnable(struct sched_queue *q)
{
    return q->nr_queued + (q->curr ? 1 : 0);
}

struct elig_count {
    struct sched_queue *q;
    unsigned n;
};
static bool count_elig(struct sched_entity *se, void *arg)
{
    struct elig_count *e = arg;
    if (!eevdf_delayed(se) && eevdf_eligible(e->q, se))
        e->n++;
    return true;
}
static unsigned nr_eligible(struct sched_queue *q)
{
    if (!is_eevdf)
        return 0;
    struct elig_count e = { q, 0 };
    eevdf_for_each_queued(q, count_elig, &e);
    if (q->curr && eevdf_eligible(q, q->curr))
        e.n++;
    return e.n;
}

/* ---- records ---- */

static void emit_task(struct gcpu *c, enum trace_rec_type type, struct gtask *t)
{
    struct trace_rec_task r = { 0 };
    trace_rec_init(&r.h, type, sizeof r, now);
    r.task = t->id;
    r.parent = TRACE_TASK_NONE;
    r.nice = (int8_t)t->se.nice;
    r.tflags = (t->kind == K_IDLE ? TRACE_TF_IDLE : 0) | TRACE_TF_PINNED;
    r.cpu = (uint16_t)t->cpu;
    r.slice_ns = t->se.slice_ns;
    memcpy(r.name, t->name, TRACE_NAME_LEN);
    /* An RT task of even id is born RT; one of odd id is born fair and
     * made RT by a SET class after (rt_setup), as a shell command would. */
    if (t->kind == K_RT && t->id % 2 == 0) {
        r.sclass = TRACE_CLASS_RT;
        r.rt_prio = (uint8_t)t->rt_prio;
        r.rt_policy = (uint8_t)t->rt_policy;
    }
    if (opt.task_v3)
        r.h.size = TRACE_TASK_V3_SIZE;
    emit(c, &r);
}

/* Records about an RT task have no EEVDF numbers (format.h). */
static uint8_t rflags_of(const struct gtask *t)
{
    return t->kind == K_RT ? TRACE_RF_NO_EEVDF : rflags();
}

/* t's JOIN as the kernel notes it right after the join (trace_join_note()):
 * its placement now, the check part "not asked" and no current. */
static void join_note(struct gcpu *c, struct gtask *t, uint8_t reason, int64_t lag_before, struct trace_rec_join *r)
{
    struct sched_queue *q = &c->q;
    memset(r, 0, sizeof *r);
    trace_rec_init(&r->h, TRACE_REC_JOIN, opt.join_v2 ? TRACE_JOIN_V2_SIZE : sizeof *r, now);
    r->h.flags = rflags();
    r->task = t->id;
    r->cpu = cpu_no(c);
    r->reason = reason;
    r->nr_runnable = (uint16_t)nr_runnable(q);
    r->weight = sched_nice_to_weight(t->se.nice);
    r->curr = TRACE_TASK_NONE;
    r->check = TRACE_JC_NONE;
    if (is_eevdf) {
        r->vruntime = eevdf_vruntime(&t->se);
        r->deadline = eevdf_deadline(&t->se);
        r->lag_before = lag_before;
        r->lag_after = eevdf_lag(q, &t->se);
        r->V = eevdf_V(q);
        if (eevdf_eligible(q, &t->se))
            r->jflags |= TRACE_JF_WAKEE_ELIGIBLE;
    }
}

/* What the wakeup check of wakee t is about to see (trace_join_note_curr()):
 * current, and both eligibilities as they are now. The wakee's may have
 * changed since the join: a delayed task's lag is taken before current is
 * charged unless REQUEUE_UPDATE_CURR, and the charge moves V. format.h
 * says the flags are "as they were at the check". */
static void join_note_curr(struct gcpu *c, struct gtask *t, struct trace_rec_join *r)
{
    struct sched_entity *cur = c->q.curr;
    if (!cur)
        return;
    r->curr = task_of(cur)->id;
    if (!is_eevdf)
        return;
    r->jflags &= ~TRACE_JF_WAKEE_ELIGIBLE;
    if (eevdf_eligible(&c->q, &t->se))
        r->jflags |= TRACE_JF_WAKEE_ELIGIBLE;
    struct sched_entity_view v;
    P->describe(&c->q, NULL, cur, &v);
    r->curr_vruntime = v.vruntime;
    r->curr_deadline = v.deadline;
    r->curr_vprot = v.vprot;
    if (v.eligible)
        r->jflags |= TRACE_JF_CURR_ELIGIBLE;
    if ((int64_t)(v.vprot - v.vruntime) > 0)
        r->jflags |= TRACE_JF_CURR_PROTECTED;
}

static void emit_join(struct gcpu *c, struct trace_rec_join *r)
{
    emit(c, r);
    if (csv_place)
        fprintf(csv_place, "%llu,%u,%d,%s,%llu,%llu,%lld,%lld,%llu,%u\n", (unsigned long long)now,
                r->cpu, r->task, r->reason == TRACE_JOIN_NEW ? "new" : "wake",
                (unsigned long long)r->vruntime, (unsigned long long)r->deadline,
                (long long)r->lag_before, (long long)r->lag_after, (unsigned long long)r->V, r->weight);
}

static void emit_leave(struct gcpu *c, struct gtask *t, uint8_t reason, uint64_t vr, int64_t lag,
                       uint64_t V, uint64_t deadline)
{
    struct trace_rec_leave r = { 0 };
    trace_rec_init(&r.h, TRACE_REC_LEAVE, sizeof r, now);
    r.h.flags = rflags_of(t);
    r.task = t->id;
    r.cpu = cpu_no(c);
    r.reason = reason;
    r.by = reason == TRACE_LEAVE_RELEASE ? TRACE_CLASS_RT : 0;
    r.vruntime = vr;
    r.lag = lag;
    r.V = V;
    r.run_ns = now - t->stint_start;
    r.deadline = deadline;
    emit(c, &r);
    if (csv_leave)
        fprintf(csv_leave, "%llu,%u,%d,%u,%llu,%lld,%llu,%llu,%llu\n", (unsigned long long)now, r.cpu,
                t->id, reason, (unsigned long long)vr, (long long)lag, (unsigned long long)V,
                (unsigned long long)r.run_ns, (unsigned long long)deadline);
}

/* A LEAVE with t's numbers as the policy shows them now. */
static void emit_leave_now(struct gcpu *c, struct gtask *t, uint8_t reason)
{
    struct sched_entity_view v = { 0 };
    if (is_eevdf)
        P->describe(&c->q, NULL, &t->se, &v);
    emit_leave(c, t, reason, v.vruntime, v.lag, V_of(&c->q), v.deadline);
}

static void emit_keyframe(struct gcpu *c)
{
    static uint8_t buf[TRACE_PKT_MAX_PAYLOAD];
    struct trace_rec_keyframe *k = (struct trace_rec_keyframe *)buf;
    struct trace_kf_entry *e = (struct trace_kf_entry *)(k + 1);
    struct sched_queue *q = &c->q;
    unsigned n = 0;
    for (unsigned i = 0; i < ntask; i++) {
        struct gtask *t = &tasks[i];
        if (t->cpu != cpu_no(c) || !t->se.on_queue || n == TRACE_KF_MAX_ENTRIES)
            continue;
        struct trace_kf_entry x = { .task = t->id, .nice = (int8_t)t->se.nice };
        x.weight = sched_nice_to_weight(t->se.nice);
        if (q->curr == &t->se)
            x.kflags |= TRACE_KF_CURRENT;
        if (is_eevdf) {
            x.vruntime = eevdf_vruntime(&t->se);
            x.deadline = eevdf_deadline(&t->se);
            x.lag = eevdf_lag(q, &t->se);
            x.slice_ns = eevdf_slice(&t->se);
            if (eevdf_eligible(q, &t->se))
                x.kflags |= TRACE_KF_ELIGIBLE;
            if (eevdf_delayed(&t->se))
                x.kflags |= TRACE_KF_DELAYED;
        }
        /* current first */
        if (x.kflags & TRACE_KF_CURRENT && n) {
            e[n] = e[0];
            e[0] = x;
        } else {
            e[n] = x;
        }
        n++;
    }
    memset(k, 0, sizeof *k);
    trace_rec_init(&k->h, TRACE_REC_KEYFRAME, (uint16_t)(sizeof *k + n * sizeof *e), now);
    k->h.flags = rflags();
    k->cpu = cpu_no(c);
    k->nr = (uint16_t)n;
    k->curr = c->curr->id;
    k->V = V_of(q);
    emit(c, k);

    struct trace_rec_counters r = { 0 };
    trace_rec_init(&r.h, TRACE_REC_COUNTERS, sizeof r, now);
    r.cpu = cpu_no(c);
    memcpy(r.value, c->ctr, sizeof r.value);
    emit(c, &r);
}

/* ---- the simulation ---- */

static void charge(struct gcpu *c)
{
    uint64_t d = now - c->last_charge;
    c->last_charge = now;
    if (c->curr == c->idle) {
        c->ctr[TRACE_CTR_IDLE_NS] += d;
        return;
    }
    c->ctr[TRACE_CTR_BUSY_NS] += d;
    if (c->curr->kind == K_RT) {
        c->ctr[TRACE_CTR_RT_NS] += d;
        c->curr->run_left = c->curr->run_left > d ? c->curr->run_left - d : 0;
        return;
    }
    if (d)
        P->charge(&c->q, d);
    if (c->curr->kind == K_IO)
        c->curr->run_left = c->curr->run_left > d ? c->curr->run_left - d : 0;
}

/* One decision on c. The caller has already made a leaving current leave. */
static void decide(struct gcpu *c, uint8_t why)
{
    struct sched_queue *q = &c->q;
    struct gtask *prev = c->curr;
    struct sched_decision d;
    struct sched_entity *se = sched_decide(P, q, NULL, SCHED_LEAVE_BLOCK, &d);
    struct gtask *next = se ? task_of(se) : c->idle;
    unsigned vis = d.touched;
    /* The kernel's order: the displaced task's LEAVE, then one 'dequeued'
     * LEAVE for each delayed task whose lag the policy found paid, then
     * the PICK. (put_back moves neither V nor the task's numbers.) */
    if (d.displaced)
        emit_leave_now(c, prev, why == TRACE_WHY_YIELD ? TRACE_LEAVE_YIELD : TRACE_LEAVE_PREEMPT);
    for (unsigned i = 0; i < d.nr_departed; i++) {
        struct gtask *t = task_of(d.departed[i]);
        uint64_t stint = t->stint_start;
        t->stint_start = now; /* run_ns 0: a departure, not a stint */
        emit_leave_now(c, t, TRACE_LEAVE_DEQUEUED);
        t->stint_start = stint;
    }
    if (d.departed_lost)
        c->dropped += d.departed_lost;

    struct trace_rec_pick r = { 0 };
    trace_rec_init(&r.h, TRACE_REC_PICK, sizeof r, now);
    r.h.flags = rflags();
    r.prev = prev->id;
    r.next = next->id;
    r.cpu = cpu_no(c);
    /* As the kernel's core: a pick of the entity whose wakeup cut the
     * current's protected stretch is PREEMPT_SHORT's. */
    r.why = d.cut_short ? TRACE_WHY_PREEMPT_SHORT : why;
    r.nr_runnable = (uint16_t)nr_runnable(q);
    r.touched = (uint16_t)vis;
    r.cost_ns = (uint32_t)(250 + 40 * vis + rnd() % 400 + (rnd() % 100 == 0 ? rnd() % 5000 : 0));
    if (is_eevdf) {
        r.V = eevdf_V(q);
        r.nr_eligible = (uint16_t)nr_eligible(q);
        if (se) {
            r.next_vruntime = eevdf_vruntime(se);
            r.next_deadline = eevdf_deadline(se);
            r.next_lag = eevdf_lag(q, se);
        }
    }
    emit(c, &r);
    if (csv_pick)
        fprintf(csv_pick, "%llu,%u,%d,%d,%s,%llu,%llu,%llu,%lld,%u,%u,%u\n",
                (unsigned long long)now, r.cpu, r.prev, r.next, "tick", (unsigned long long)r.V,
                (unsigned long long)r.next_vruntime, (unsigned long long)r.next_deadline,
                (long long)r.next_lag, r.nr_eligible, r.nr_runnable, r.cost_ns);
    c->ctr[TRACE_CTR_DECISIONS]++;
    c->ctr[TRACE_CTR_DECISION_NS] += r.cost_ns;
    if (next != prev) {
        c->ctr[TRACE_CTR_SWITCHES]++;
        next->stint_start = now;
    }
    c->curr = next;
}

static void new_burst(struct gtask *t)
{
    t->run_left = rnd_range(50 * US, 3 * MS);
}

static uint64_t tick_ns;

static void tick(struct gcpu *c)
{
    charge(c);
    c->next_tick = now + tick_ns;
    c->ctr[TRACE_CTR_TICKS]++;
    if (c->curr == c->idle)
        return; /* tickless idle */
    struct trace_rec_tick r = { 0 };
    trace_rec_init(&r.h, TRACE_REC_TICK, sizeof r, now);
    r.h.flags = rflags();
    r.curr = c->curr->id;
    r.cpu = cpu_no(c);
    r.nr_runnable = (uint16_t)nr_runnable(&c->q);
    r.V = V_of(&c->q);
    emit(c, &r);
    if (csv_tick)
        fprintf(csv_tick, "%llu,%u,%d,%u,%llu\n", (unsigned long long)now, r.cpu, r.curr,
                r.nr_runnable, (unsigned long long)r.V);
    if (c->curr->kind == K_RT)
        return; /* it runs its burst out: the fair class is not asked */
    if (P->tick(&c->q))
        decide(c, TRACE_WHY_TICK);
}

static bool join_woken(struct gcpu *c, struct gtask *t);
static void emit_wake(struct gcpu *wc, struct gtask *t, bool timer);

static void burst_end(struct gcpu *c)
{
    struct gtask *t = c->curr;
    struct sched_queue *q = &c->q;
    charge(c);
    uint64_t vr = is_eevdf ? eevdf_vruntime(&t->se) : 0, V = V_of(q);
    int64_t lag = is_eevdf ? eevdf_lag(q, &t->se) : 0;
    P->leave(q, &t->se, SCHED_LEAVE_BLOCK);
    bool delayed = is_eevdf && t->se.on_queue && eevdf_delayed(&t->se);
    emit_leave(c, t, delayed ? TRACE_LEAVE_DELAYED : TRACE_LEAVE_SLEEP, vr, lag, V,
               is_eevdf ? eevdf_deadline(&t->se) : 0);
    t->state = T_SLEEPING;
    t->wake_at = now + rnd_range(100 * US, 6 * MS);
    /* --repick: nothing else can run here, and its sleep is over before
     * the decision (the kernel's boot-time idle task waits in the
     * decision, halted, for a wakeup): it is picked again, next == prev,
     * after its LEAVE. Not a switch. */
    if (opt.repick && !delayed && !q->nr_queued && rnd() % opt.repick == 0) {
        emit_wake(c, t, true);
        join_woken(c, t);
    }
    decide(c, TRACE_WHY_BLOCK);
}

/* t's WAKE, by the task running on wc or (timer) its sleep timer on wc. */
static void emit_wake(struct gcpu *wc, struct gtask *t, bool timer)
{
    struct trace_rec_wake w = { 0 };
    trace_rec_init(&w.h, TRACE_REC_WAKE, sizeof w, now);
    w.waker = timer ? TRACE_TASK_NONE : wc->curr->id;
    w.wakee = t->id;
    w.waker_cpu = cpu_no(wc);
    w.target_cpu = (uint16_t)t->cpu;
    w.wflags = timer ? TRACE_WF_TIMER : 0;
    emit(wc, &w);
    if (csv_wake)
        fprintf(csv_wake, "%llu,%d,%d,%u,%u\n", (unsigned long long)now, w.waker, w.wakee,
                w.waker_cpu, w.target_cpu);
}

/* Woken t joins its CPU's queue as the kernel's drain_wakes() takes it: a
 * delayed task (still queued) is requeued with current charged first only
 * under REQUEUE_UPDATE_CURR, its lag taken after that charge; then current
 * is charged and the wakeup check asked, its numbers noted just before.
 * Emits the JOIN. Returns whether a decision is due: the check preempts,
 * or nothing runs here (no check is asked then). */
static bool join_woken(struct gcpu *c, struct gtask *t)
{
    bool requeue = t->se.on_queue, charge_first = !requeue || eevdf_feature(EEVDF_F_REQUEUE_UPDATE_CURR);
    if (charge_first)
        charge(c);
    struct sched_entity_view v = { 0 };
    if (is_eevdf)
        P->describe(&c->q, NULL, &t->se, &v);
    P->join(&c->q, &t->se, SCHED_JOIN_WAKE);
    struct trace_rec_join r;
    join_note(c, t, TRACE_JOIN_WAKE, v.lag, &r);
    if (requeue)
        r.jflags |= TRACE_JF_REQUEUE | (charge_first ? TRACE_JF_CHARGED_FIRST : 0) |
                    (v.lag > 0 && eevdf_feature(EEVDF_F_DELAY_ZERO) ? TRACE_JF_CLIPPED : 0);
    c->ctr[TRACE_CTR_WAKES]++;
    t->state = T_RUNNABLE;
    new_burst(t);
    bool preempts = true;
    charge(c);
    if (c->q.curr) {
        join_note_curr(c, t, &r);
        preempts = P->wakeup_preempt(&c->q, &t->se);
        r.check = preempts ? TRACE_JC_PREEMPT : TRACE_JC_KEPT;
        if (c->q.cut_short_by == &t->se)
            r.jflags |= TRACE_JF_CUT_SHORT;
    }
    emit_join(c, &r);
    return preempts;
}

static void wake(struct gtask *t)
{
    struct gcpu *c = &cpus[t->cpu];
    /* The waker: the task running on a random CPU, or the sleep timer. */
    struct gcpu *wc = &cpus[rnd() % opt.ncpus];
    bool timer = wc->curr == wc->idle || rnd() % 3 == 0;
    if (timer)
        wc = c;
    emit_wake(wc, t, timer);
    /* The wakee's CPU drains its wake stack a little later. */
    now += rnd_range(1 * US, 20 * US);
    if (join_woken(c, t) && c->curr->kind != K_RT) /* under RT the fair class waits */
        decide(c, c->curr == c->idle ? TRACE_WHY_IDLE : wc != c ? TRACE_WHY_IPI : TRACE_WHY_PREEMPT);
}

static uint64_t slice_timer(struct gcpu *c)
{
    if (c->curr == c->idle || c->curr->kind == K_RT)
        return UINT64_MAX;
    uint64_t left = P->timer_ns(&c->q);
    if (left == UINT64_MAX)
        return UINT64_MAX;
    return c->last_charge + (left < 20 * US ? 20 * US : left);
}

/* ---- the real-time tasks ---- */

static void emit_set(struct gcpu *c, int32_t task, uint8_t what, const char *name, int64_t old, int64_t new)
{
    struct trace_rec_set s = { 0 };
    trace_rec_init(&s.h, TRACE_REC_SET, sizeof s, now);
    s.task = task;
    s.what = what;
    s.old_value = old;
    s.new_value = new;
    snprintf(s.name, sizeof s.name, "%s", name ? name : "");
    emit(c, &s);
}

/* Queued fair task t moves from c's queue to dst's, carrying its lag:
 * LEAVE migrate (run_ns 0), then JOIN migrate on dst, both written by c,
 * the CPU that moves it, so they stay in that order. */
static void migrate_task(struct gcpu *c, struct gtask *t, struct gcpu *dst)
{
    /* MIGRATE (format 5) first, with every CPU's count and fair load
     * before the move, as the kernel's send_to() writes it. */
    struct {
        struct trace_rec_migrate m;
        struct trace_migrate_cpu cpu[TRACE_MAX_CPUS];
    } __attribute__((packed)) mr;
    memset(&mr, 0, sizeof mr);
    uint16_t msize = (uint16_t)(sizeof mr.m + opt.ncpus * sizeof mr.cpu[0]);
    trace_rec_init(&mr.m.h, TRACE_REC_MIGRATE, msize, now);
    mr.m.task = t->id;
    mr.m.src = cpu_no(c);
    mr.m.dst = cpu_no(dst);
    mr.m.reason = TRACE_MIGRATE_RT_RELEASE;
    mr.m.mflags = TRACE_MF_QUEUED;
    mr.m.ncpus = (uint16_t)opt.ncpus;
    for (unsigned i = 0; i < opt.ncpus; i++) {
        mr.cpu[i].nr_running = (uint16_t)sched_nr_runnable(&cpus[i].q);
        mr.cpu[i].cflags = sched_running(&cpus[i].q) ? TRACE_MC_RUNNING : 0;
        mr.cpu[i].load = (uint32_t)sched_fair_load(P, &cpus[i].q);
    }
    emit(c, &mr);
    uint64_t stint = t->stint_start;
    t->stint_start = now; /* not a stint: it was queued */
    emit_leave_now(c, t, TRACE_LEAVE_MIGRATE);
    t->stint_start = stint;
    struct sched_entity_view v = { 0 };
    if (is_eevdf)
        P->describe(&c->q, NULL, &t->se, &v);
    P->leave(&c->q, &t->se, SCHED_LEAVE_MIGRATE);
    charge(dst);
    P->join(&dst->q, &t->se, SCHED_JOIN_MIGRATE);
    t->cpu = (int)cpu_no(dst);
    struct trace_rec_join r;
    join_note(dst, t, TRACE_JOIN_MIGRATE, v.lag, &r);
    emit_join(c, &r);
    c->ctr[TRACE_CTR_MIGRATIONS]++;
    if (dst->curr == dst->idle) { /* the kernel's IPI: an idle CPU decides as soon as it arrives */
        now += rnd_range(1 * US, 5 * US);
        decide(dst, TRACE_WHY_IPI);
    }
}

/* RT task t wakes on its CPU and takes it at once: a fair task running
 * there is released (LEAVE release, by rt), back on its queue. */
static void rt_wake(struct gtask *t)
{
    struct gcpu *c = &cpus[t->cpu];
    emit_wake(c, t, true);
    charge(c);
    struct trace_rec_join j = { 0 };
    trace_rec_init(&j.h, TRACE_REC_JOIN, opt.join_v2 ? TRACE_JOIN_V2_SIZE : sizeof j, now);
    j.h.flags = TRACE_RF_NO_EEVDF;
    j.task = t->id;
    j.cpu = cpu_no(c);
    j.reason = TRACE_JOIN_WAKE;
    j.nr_runnable = (uint16_t)(nr_runnable(&c->q) + 1);
    j.curr = c->curr->id;
    j.check = TRACE_JC_NONE;
    emit_join(c, &j);
    c->ctr[TRACE_CTR_WAKES]++;
    t->state = T_RUNNABLE;
    t->run_left = rnd_range(50 * US, 1500 * US);
    struct gtask *prev = c->curr;
    if (prev != c->idle) {
        emit_leave_now(c, prev, TRACE_LEAVE_RELEASE);
        P->put_back(&c->q);
        c->ctr[TRACE_CTR_RELEASES_RT]++;
    }
    struct trace_rec_pick r = { 0 };
    trace_rec_init(&r.h, TRACE_REC_PICK, sizeof r, now);
    r.h.flags = TRACE_RF_NO_EEVDF; /* next is RT */
    r.prev = prev->id;
    r.next = t->id;
    r.cpu = cpu_no(c);
    r.why = prev == c->idle ? TRACE_WHY_IDLE : TRACE_WHY_PREEMPT;
    r.nr_runnable = (uint16_t)(nr_runnable(&c->q) + 1);
    r.touched = 1;
    r.cost_ns = (uint32_t)(200 + rnd() % 300);
    emit(c, &r);
    c->ctr[TRACE_CTR_DECISIONS]++;
    c->ctr[TRACE_CTR_DECISION_NS] += r.cost_ns;
    c->ctr[TRACE_CTR_SWITCHES]++;
    t->stint_start = now;
    c->curr = t;
    /* Then, RT running, the task it released may be re-placed. */
    if (prev != c->idle && opt.migrate && opt.ncpus > 1 && rnd() % opt.migrate == 0)
        migrate_task(c, prev, &cpus[(cpu_no(c) + 1) % opt.ncpus]);
}

/* RT task t on c ends its burst and sleeps until its next period; the
 * fair class decides who runs. */
static void rt_sleep(struct gcpu *c)
{
    struct gtask *t = c->curr;
    charge(c);
    emit_leave(c, t, TRACE_LEAVE_SLEEP, 0, 0, 0, 0);
    t->state = T_SLEEPING;
    t->wake_at = now + rnd_range(2 * MS, 8 * MS);
    decide(c, TRACE_WHY_BLOCK);
}

/* The RT tasks, one on each of the first opt.rt CPUs; and the knobs, as
 * the kernel states them when tracing starts. */
static void rt_setup(void)
{
    static const struct {
        const char *name;
        int64_t value;
    } knobs[] = { { "replace_on_release", 1 }, { "rt_runtime_us", 950000 }, { "rt_period_us", 1000000 } };
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++)
        emit_set(&cpus[0], TRACE_TASK_NONE, TRACE_SET_KNOB, knobs[k].name, knobs[k].value, knobs[k].value);
    for (unsigned i = 0; i < opt.rt && ntask < MAX_TASKS; i++) {
        struct gtask *t = &tasks[ntask];
        memset(t, 0, sizeof *t);
        t->id = (int)ntask++;
        t->cpu = (int)i;
        t->kind = K_RT;
        t->rt_prio = 50 + i;
        t->rt_policy = i % 2 ? TRACE_RT_RR : TRACE_RT_FIFO;
        snprintf(t->name, sizeof t->name, "rt%u", i);
        struct gcpu *c = &cpus[i];
        now = c->last_charge + 70 * US + i * US;
        emit_task(c, TRACE_REC_TASK_NEW, t);
        if (t->id % 2)
            emit_set(c, t->id, TRACE_SET_CLASS, t->rt_policy == TRACE_RT_RR ? "rr" : "fifo", 0,
                     (int64_t)t->rt_prio);
        t->state = T_SLEEPING;
        t->wake_at = now + rnd_range(1 * MS, 4 * MS);
    }
}

static void setup(void)
{
    struct sched_params params = { .ncpus = opt.ncpus, .tick_ns = tick_ns };
    /* Slice-end timers on, though Linux's and runq's default is off:
     * the traces the tests and benches read keep a third kind of pick
     * (why "slice") beside ticks and wakeups. */
    eevdf_feature_set("HRTICK", true);
    for (unsigned i = 0; i < opt.nfeature; i++) {
        bool off = !strncmp(opt.feature[i], "NO_", 3);
        if (!eevdf_feature_set(opt.feature[i] + (off ? 3 : 0), !off)) {
            fprintf(stderr, "trace_gen: --feature %s: no such EEVDF feature switch\n", opt.feature[i]);
            exit(2);
        }
    }
    for (unsigned c = 0; c < opt.ncpus; c++) {
        sched_queue_init(P, &cpus[c].q, &params);
        struct gtask *idle = &tasks[ntask];
        memset(idle, 0, sizeof *idle);
        idle->id = (int)ntask++;
        idle->cpu = (int)c;
        idle->kind = K_IDLE;
        snprintf(idle->name, sizeof idle->name, "idle/%u", c);
        cpus[c].idle = cpus[c].curr = idle;
        cpus[c].next_tick = tick_ns;
        cpus[c].next_kf = TRACE_KEYFRAME_PERIOD_NS;
    }
    /* The stream header. */
    struct {
        struct trace_rec_stream s;
        char tail[512];
    } sr;
    memset(&sr, 0, sizeof sr);
    char names[400] = "", cmdline[128];
    for (unsigned f = 0; f < EEVDF_NR_FEATURES; f++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", f ? "," : "",
                 eevdf_feature_name(f));
    snprintf(cmdline, sizeof cmdline, "sched=%s hz=%u -- trace_gen seed=%lu", opt.policy, opt.hz,
             opt.seed);
    memcpy(sr.s.magic, TRACE_STREAM_MAGIC, 8);
    sr.s.version = opt.join_v2 ? 2 : opt.task_v3 ? 3 : TRACE_FORMAT_VERSION;
    sr.s.ncpus = (uint16_t)opt.ncpus;
    sr.s.tick_hz = opt.hz;
    sr.s.tsc_hz = 1000000000ull;
    sr.s.keyframe_ns = TRACE_KEYFRAME_PERIOD_NS;
    snprintf(sr.s.policy, sizeof sr.s.policy, "%s", opt.policy);
    sr.s.features = eevdf_features_mask();
    sr.s.feature_names_len = (uint16_t)strlen(names);
    sr.s.cmdline_len = (uint16_t)strlen(cmdline);
    memcpy(sr.tail, names, strlen(names));
    memcpy(sr.tail + strlen(names), cmdline, strlen(cmdline));
    trace_rec_init(&sr.s.h, TRACE_REC_STREAM,
                   (uint16_t)(sizeof sr.s + sr.s.feature_names_len + sr.s.cmdline_len), 0);
    emit(&global, &sr);
    struct trace_rec_mark m;
    char mk[sizeof m + 16];
    memset(&m, 0, sizeof m);
    trace_rec_init(&m.h, TRACE_REC_MARK, sizeof m + 5, 0);
    m.cpu = TRACE_CPU_GLOBAL;
    m.source = TRACE_MARK_HOST;
    memcpy(mk, &m, sizeof m);
    memcpy(mk + sizeof m, "start", 5);
    emit(&global, mk);
    flush_cpu(&global, TRACE_CPU_GLOBAL);

    for (unsigned c = 0; c < opt.ncpus; c++)
        emit_task(&cpus[c], TRACE_REC_TASK_NEW, cpus[c].idle);

    for (unsigned i = 0; i < opt.ntasks && ntask < MAX_TASKS; i++) {
        struct gtask *t = &tasks[ntask];
        memset(t, 0, sizeof *t);
        t->id = (int)ntask++;
        t->cpu = (int)(i % opt.ncpus);
        t->kind = i % 3 == 0 ? K_SPIN : K_IO;
        snprintf(t->name, sizeof t->name, "%s%u", t->kind == K_SPIN ? "spin" : "io", i);
        t->se.id = t->id;
        t->se.nice = i % 5 == 4 ? 5 : 0;
        t->se.slice_ns = is_eevdf && i % 7 == 6 ? 300 * US : 0;
        struct gcpu *c = &cpus[t->cpu];
        /* Arrivals spread over the first microseconds, never before the
         * CPU's last record: each CPU's records are in time order, as the
         * kernel's (the merge relies on it: a record behind its CPU's last
         * is dropped as late; the policy's invariants too: time going back
         * on a queue broke them, BUG at eevdf_tree.c:109 with --seed 8
         * --tasks 14 --cpus 2 --ms 9000). */
        now = rnd_range(0, 50 * US) + i * 10 * US;
        if (now < c->last_charge)
            now = c->last_charge;
        P->init_entity(&c->q, &t->se);
        emit_task(c, TRACE_REC_TASK_NEW, t);
        charge(c);
        P->join(&c->q, &t->se, SCHED_JOIN_NEW);
        struct trace_rec_join r;
        join_note(c, t, TRACE_JOIN_NEW, 0, &r);
        emit_join(c, &r);
        if (t->se.slice_ns) {
            struct trace_rec_set s = { 0 };
            trace_rec_init(&s.h, TRACE_REC_SET, sizeof s, now);
            s.task = t->id;
            s.what = TRACE_SET_SLICE;
            s.new_value = (int64_t)t->se.slice_ns;
            emit(c, &s);
        }
        t->state = T_RUNNABLE;
        new_burst(t);
        if (c->curr == c->idle)
            decide(c, TRACE_WHY_IDLE);
    }
    if (opt.rt)
        rt_setup();
}

static void run(void)
{
    unsigned ring_drop_cpu = opt.ncpus > 1 ? 1 : 0;
    bool ring_dropped = false;
    while (now < opt.dur_ns && (!opt.max_records || nrecords < opt.max_records)) {
        /* The earliest event of all. */
        uint64_t best = UINT64_MAX;
        int kind = -1;
        void *who = NULL;
        for (unsigned i = 0; i < opt.ncpus; i++) {
            struct gcpu *c = &cpus[i];
            uint64_t t;
            if (c->next_tick < best)
                best = c->next_tick, kind = 0, who = c;
            if (c->next_kf < best)
                best = c->next_kf, kind = 1, who = c;
            if ((c->curr->kind == K_IO || c->curr->kind == K_RT) && (t = c->last_charge + c->curr->run_left) < best)
                best = t, kind = 2, who = c;
            if ((t = slice_timer(c)) < best)
                best = t, kind = 3, who = c;
        }
        for (unsigned i = 0; i < ntask; i++)
            if ((tasks[i].kind == K_IO || tasks[i].kind == K_RT) && tasks[i].state == T_SLEEPING &&
                tasks[i].wake_at < best)
                best = tasks[i].wake_at, kind = 4, who = &tasks[i];
        if (best > now)
            now = best;
        if (opt.ring_drop && !ring_dropped && now >= opt.dur_ns / 2) {
            ring_dropped = true;
            cpus[ring_drop_cpu].drop_left = (int)opt.ring_drop;
            cpus[ring_drop_cpu].next_kf = now + opt.ring_drop * 20 * US; /* keyframe after the loss */
        }
        switch (kind) {
        case 0: tick(who); break;
        case 1: {
            struct gcpu *c = who;
            charge(c);
            emit_keyframe(c);
            c->next_kf = (now / TRACE_KEYFRAME_PERIOD_NS + 1) * TRACE_KEYFRAME_PERIOD_NS;
            /* the drain moves whole batches at least this often */
            for (unsigned i = 0; i < opt.ncpus; i++)
                flush_cpu(&cpus[i], (uint16_t)i);
            break;
        }
        case 2: ((struct gcpu *)who)->curr->kind == K_RT ? rt_sleep(who) : burst_end(who); break;
        case 3: {
            struct gcpu *c = who;
            charge(c);
            decide(c, TRACE_WHY_SLICE);
            break;
        }
        case 4: ((struct gtask *)who)->kind == K_RT ? rt_wake(who) : wake(who); break;
        }
    }
    for (unsigned i = 0; i < opt.ncpus; i++) {
        charge(&cpus[i]);
        emit_keyframe(&cpus[i]);
        flush_cpu(&cpus[i], (uint16_t)i);
    }
    if (!opt.no_end) {
        struct trace_rec_end e;
        /* The kernel's END comes after its tracer drained the rings, so
         * later than every CPU's last record: a reader must not wait for
         * the CPUs to catch up with it. */
        trace_rec_init(&e.h, TRACE_REC_END, sizeof e, now + (uint64_t)opt.end_late_ms * 1000000);
        emit(&global, &e);
        flush_cpu(&global, TRACE_CPU_GLOBAL);
    }
}

/* ---- damage and output ---- */

static void write_out(void)
{
    FILE *f = stdout;
    if (opt.out && strcmp(opt.out, "-") != 0 && !(f = fopen(opt.out, "wb"))) {
        fprintf(stderr, "trace_gen: %s: %s\n", opt.out, strerror(errno));
        exit(1);
    }
    /* Flips: random bytes after the first packet, so the header survives. */
    size_t first_end = pkt_n > 1 ? pkt_off[1] : out_len;
    for (unsigned i = 0; i < opt.flips && out_len > first_end; i++) {
        size_t at = first_end + rnd() % (out_len - first_end);
        out[at] ^= (uint8_t)(1u << (rnd() % 8));
        if (opt.verbose)
            fprintf(stderr, "trace_gen: flipped a bit at byte %zu\n", at);
    }
    size_t limit = opt.cut >= 0 && (size_t)opt.cut < out_len ? (size_t)opt.cut : out_len;
    for (size_t p = 0; p < pkt_n; p++) {
        size_t start = pkt_off[p], end = p + 1 < pkt_n ? pkt_off[p + 1] : out_len;
        if (start >= limit)
            break;
        if (end > limit)
            end = limit;
        if ((long)p == opt.garbage_at) {
            for (unsigned g = 0; g < opt.garbage_len; g++) {
                uint8_t b = (uint8_t)rnd();
                if (g % 17 == 0)
                    b = TRACE_PKT_MAGIC & 0xff; /* tempt the scanner */
                fputc(b, f);
            }
        }
        if ((long)p == opt.drop_packet)
            continue;
        fwrite(out + start, 1, end - start, f);
    }
    if (f != stdout)
        fclose(f);
    else
        fflush(f);
}

static FILE *csv_open(const char *name, const char *header)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", opt.csv_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "trace_gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fprintf(f, "%s\n", header);
    return f;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: trace_gen [options] > stream\n\n"
            "Writes a synthetic runq trace stream, made by the real policies.\n\n"
            "  --policy rr|eevdf   (default eevdf)\n"
            "  --cpus N            CPUs, 1..64 (default 4)\n"
            "  --tasks N           tasks besides the idle ones (default 12)\n"
            "  --hz N              tick rate (default 250)\n"
            "  --ms N              trace length in ms of trace time (default 500)\n"
            "  --records N         stop after about N records\n"
            "  --seed N            random seed (default 1)\n"
            "  --packet-bytes N    largest payload (default 4096)\n"
            "  --out FILE          write here instead of stdout\n"
            "  --csv-dir DIR       also write pick/place/leave/wake/tick CSVs (for the bench)\n"
            "  --feature NAME      switch an EEVDF feature on (NO_NAME: off); up to 8 times\n"
            "  --join-v2           JOINs as trace format 2 wrote them (68 bytes, no wakeup check)\n"
            "  --task-v3           TASK records as trace format 3 wrote them (48 bytes, no class)\n"
            "  --rt N              N real-time tasks, one on each of the first N CPUs: bursts that\n"
            "                      release the fair task they find running (trace format 4)\n"
            "  --migrate K         1 in K releases moves the released task to the next CPU\n"
            "  --repick N          1 in N sleeps with nothing else to run ends at once: the\n"
            "                      task is woken and picked again after its LEAVE (next == prev)\n"
            "damage:\n"
            "  --flip N            flip N random bits after the first packet\n"
            "  --drop-packet K     leave out packet K (0-based, in wire order)\n"
            "  --garbage-at K      write garbage bytes before packet K\n"
            "  --garbage-len N     how many (default 100)\n"
            "  --ring-drop N       CPU 1's ring drops N records half-way through\n"
            "  --cut BYTES         keep only the first BYTES bytes\n"
            "  --no-end            leave out the END record\n"
            "  --end-late MS       END MS ms after the CPUs' last records, as the kernel's is\n"
            "  --verbose           say what was generated and damaged, on stderr\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NUM(name, field)                                 \
    if (strcmp(a, name) == 0 && v) {                     \
        opt.field = strtoull(v, NULL, 0);                \
        i++;                                             \
        continue;                                        \
    }
        NUM("--cpus", ncpus) NUM("--tasks", ntasks) NUM("--hz", hz) NUM("--seed", seed)
        NUM("--records", max_records) NUM("--packet-bytes", packet_bytes) NUM("--flip", flips)
        NUM("--garbage-len", garbage_len) NUM("--ring-drop", ring_drop) NUM("--repick", repick)
        NUM("--rt", rt) NUM("--migrate", migrate)
#undef NUM
        if (strcmp(a, "--ms") == 0 && v) {
            opt.dur_ns = strtoull(v, NULL, 0) * MS;
            i++;
        } else if (strcmp(a, "--drop-packet") == 0 && v) {
            opt.drop_packet = strtol(v, NULL, 0);
            i++;
        } else if (strcmp(a, "--garbage-at") == 0 && v) {
            opt.garbage_at = strtol(v, NULL, 0);
            i++;
        } else if (strcmp(a, "--cut") == 0 && v) {
            opt.cut = strtol(v, NULL, 0);
            i++;
        } else if (strcmp(a, "--policy") == 0 && v) {
            opt.policy = v;
            i++;
        } else if (strcmp(a, "--out") == 0 && v) {
            opt.out = v;
            i++;
        } else if (strcmp(a, "--csv-dir") == 0 && v) {
            opt.csv_dir = v;
            i++;
        } else if (strcmp(a, "--feature") == 0 && v && opt.nfeature < sizeof opt.feature / sizeof opt.feature[0]) {
            opt.feature[opt.nfeature++] = v;
            i++;
        } else if (strcmp(a, "--join-v2") == 0) {
            opt.join_v2 = 1;
        } else if (strcmp(a, "--task-v3") == 0) {
            opt.task_v3 = 1;
        } else if (strcmp(a, "--end-late") == 0 && v) {
            opt.end_late_ms = (unsigned)strtoul(v, NULL, 0);
            i++;
        } else if (strcmp(a, "--no-end") == 0) {
            opt.no_end = 1;
        } else if (strcmp(a, "--verbose") == 0) {
            opt.verbose = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "trace_gen: bad argument '%s'; see --help\n", a);
            return 2;
        }
    }
    if (strcmp(opt.policy, "rr") == 0) {
        P = &rr_policy;
    } else if (strcmp(opt.policy, "eevdf") == 0) {
        P = &eevdf_policy;
        is_eevdf = true;
    } else {
        fprintf(stderr, "trace_gen: --policy must be rr or eevdf\n");
        return 2;
    }
    if (opt.ncpus < 1 || opt.ncpus > MAX_CPUS || opt.hz < 1 || opt.packet_bytes < 128 ||
        opt.packet_bytes > TRACE_PKT_MAX_PAYLOAD) {
        fprintf(stderr, "trace_gen: --cpus 1..64, --hz >= 1, --packet-bytes 128..65535\n");
        return 2;
    }
    if (opt.rt > opt.ncpus || (opt.rt && (opt.task_v3 || opt.join_v2))) {
        fprintf(stderr, "trace_gen: --rt at most --cpus, and not with an older format (--task-v3, --join-v2)\n");
        return 2;
    }
    rng_state = opt.seed * 0x9E3779B97F4A7C15ull + 1;
    tick_ns = 1000000000ull / opt.hz;
    if (opt.csv_dir) {
        csv_pick = csv_open("pick", "ts,cpu,prev,next,why,v,vruntime,deadline,lag,nr_eligible,nr_runnable,cost_ns");
        csv_place = csv_open("place", "ts,cpu,task,reason,vruntime,deadline,lag_before,lag_after,v,weight");
        csv_leave = csv_open("leave", "ts,cpu,task,reason,vruntime,lag,v,run_ns,deadline");
        csv_wake = csv_open("wake", "ts,waker,wakee,waker_cpu,target_cpu");
        csv_tick = csv_open("tick", "ts,cpu,curr,nr_runnable,v");
    }
    setup();
    run();
    write_out();
    if (opt.csv_dir) {
        fclose(csv_pick);
        fclose(csv_place);
        fclose(csv_leave);
        fclose(csv_wake);
        fclose(csv_tick);
    }
    if (opt.verbose)
        fprintf(stderr, "trace_gen: %llu records in %llu packets, %zu bytes, %llu ms of trace\n",
                (unsigned long long)nrecords, (unsigned long long)npackets, out_len,
                (unsigned long long)(now / MS));
    return 0;
}
