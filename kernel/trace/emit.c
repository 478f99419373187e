/*
 * The emit points: each builds one record of trace/format.h on the stack
 * and puts it in this CPU's ring. Policy numbers (V, vruntime, deadline,
 * lag) come from the policy's views (describe_queue, describe: policy.h);
 * under a policy without virtual time (the round robin) the record is
 * flagged TRACE_RF_NO_EEVDF and those fields stay zero.
 */
#include "trace.h"
#include "ring.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../sched/cpus.h"
#include "../lib/bug.h"
#include "../lib/string.h"
#include "../sched/rq.h"
#include "../sched/sched.h"
#include "../sched/decide.h"

u32 trace_mask;
struct trace_ring trace_rings[MAX_CPUS];

#define KF_MAX 64 /* keyframe entries: more tasks on one CPU are left out */

#ifdef RUNQ_TRACE_SELFCOST
/* A variant build for tests/kernel/bench_trace_emit.sh: each in-place record's
 * guest time, from before its clock read to its publication, by type and
 * CPU (shown by `trace status`). Under icount the time is the instructions
 * executed. Not in the normal kernel: it would cost two clock reads. */
struct trace_selfcost trace_selfcost[MAX_CPUS][TRACE_REC_NR_TYPES];
#define SELFCOST_BEGIN(r) u64 r##_t0 = clock_ns();
#define SELFCOST_END(r)                                                                                     \
    do {                                                                                                    \
        struct trace_selfcost *sc = &trace_selfcost[this_cpu()->id][r->h.type];                            \
        sc->ns += clock_ns() - r##_t0;                                                                      \
        sc->n++;                                                                                            \
    } while (0)
#else
#define SELFCOST_BEGIN(r)
#define SELFCOST_END(r) do { } while (0)
#endif

#ifdef RUNQ_TRACE_POISON
/* A variant build for tests/kernel/trace_fields.sh: the bytes reserved for a
 * record are first set to RUNQ_TRACE_POISON, so that a field an emit point
 * forgets shows up as a different value between two poisons. */
static inline void poison(void *p, size_t n)
{
    /* One rep stosb whatever the fill: the same instructions for every
     * variant, so the runs compared schedule alike under icount. */
    __asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(RUNQ_TRACE_POISON) : "memory");
}
#define POISON(r) poison(r, sizeof *r)
#else
#define POISON(r) do { } while (0)
#endif

/* A record written to ring, stamped at ts: counted, and one in
 * TRACE_COST_EVERY timed to now (trace.h's trace_cost). */
static inline void cost_count(struct trace_ring *ring, u64 ts)
{
    /* stored whole (relaxed), as the dropped count is: trace_cost_of
     * reads them from any CPU */
    u64 n = ring->records + 1;
    __atomic_store_n(&ring->records, n, __ATOMIC_RELAXED);
    if (__builtin_expect((n & (TRACE_COST_EVERY - 1)) == 0, 0)) {
        __atomic_store_n(&ring->timed_ns, ring->timed_ns + (clock_ns() - ts), __ATOMIC_RELAXED);
        __atomic_store_n(&ring->timed, ring->timed + 1, __ATOMIC_RELAXED);
    }
}

void trace_cost_of(unsigned cpu, struct trace_cost *c)
{
    BUG_ON(cpu >= MAX_CPUS);
    const struct trace_ring *r = &trace_rings[cpu];
    /* the producer writes them: a reading from another CPU may be a
     * record behind, never torn (aligned 64-bit stores) */
    c->records = READ_ONCE(r->records);
    c->timed = READ_ONCE(r->timed);
    c->timed_ns = READ_ONCE(r->timed_ns);
}

u64 trace_cost_ns(const struct trace_cost *a, const struct trace_cost *b)
{
    return b->timed ? (b->records - a->records) * (b->timed_ns / b->timed) : 0;
}

/*
 * The scheduler's records (wake, join, pick, leave, tick) are built in
 * place: EMIT_BEGIN points r at this CPU's ring (at a spare on the stack
 * when the record would wrap) with interrupts off, EMIT_END publishes it.
 * No room: the record is counted dropped and the emit point returns.
 * Every byte of *r must be written (tests/kernel/trace_fields.sh checks the
 * stored fields). Against the record built on the
 * stack, zeroed and copied in, this saves about 80 instructions a record
 * (tests/kernel/bench_trace_emit.sh measures what each type costs).
 */
#define EMIT_BEGIN(T, r)                                                                                    \
    SELFCOST_BEGIN(r)                                                                                       \
    T r##_spare;                                                                                            \
    u64 r##_flags = irq_save();                                                                             \
    struct trace_ring *r##_ring = &trace_rings[this_cpu()->id];                                            \
    T *r = ring_reserve(r##_ring, sizeof(T), &r##_spare);                                                   \
    if (!r) {                                                                                               \
        irq_restore(r##_flags);                                                                             \
        return;                                                                                             \
    }                                                                                                       \
    POISON(r);
#define EMIT_END(r)                                                                                         \
    do {                                                                                                    \
        u64 r##_ts = r->h.ts_ns;                                                                            \
        ring_commit(r##_ring, r, sizeof *r);                                                                \
        cost_count(r##_ring, r##_ts);                                                                       \
        irq_restore(r##_flags);                                                                             \
        SELFCOST_END(r);                                                                                    \
    } while (0)

/* The other records, built on the stack and copied in. */
static void put(void *rec, u32 size)
{
    u64 flags = irq_save();
    struct trace_ring *ring = &trace_rings[this_cpu()->id];
    if (ring_put(ring, rec, size))
        cost_count(ring, ((const struct trace_rec_hdr *)rec)->ts_ns);
    irq_restore(flags);
}

void trace_dropped(u32 n)
{
    ring_count_dropped(&trace_rings[this_cpu()->id], n);
}

static void view_queue(const struct rq *rq, bool count_eligible, struct sched_queue_view *v)
{
    sched_policy_current->describe_queue(&rq->q, count_eligible, v);
}

/* qv: rq's queue view, made since the queue last changed (V read once). */
static void view_entity(const struct rq *rq, const struct sched_queue_view *qv, const struct sched_entity *se,
                        struct sched_entity_view *v)
{
    sched_describe(sched_policy_current, &rq->q, qv, se, v);
}

/*
 * Under EEVDF a fair entity's numbers are read straight from the policy's
 * state: V by eevdf_avg_of (avg_vruntime's own arithmetic, inline), a lag
 * as eevdf_describe takes it, eligibility by eevdf_eligible_at. The same
 * numbers as the views above, without their calls through the policy
 * table: those were about half of what a PICK or a LEAVE cost the CPU
 * that makes the decision (281 and 202 instructions, now 198 and 109:
 * tests/kernel/bench_trace_emit.sh), and under icount every instruction
 * is guest time that the probe's wakeups see. The round robin, and an RT
 * entity, keep the views.
 */
static bool direct(const struct sched_entity *se)
{
    return sched_policy_current == &eevdf_policy && !(se && sched_is_rt(se));
}

static s64 direct_lag(const struct sched_entity *se, u64 V)
{
    return se->on_queue ? (s64)(V - se->ee.vruntime) : se->ee.vlag; /* off the queue: the lag it left with */
}

static bool direct_eligible(const struct rq *rq, const struct sched_entity *se, u64 V)
{
    return se->on_queue && eevdf_eligible_at(&rq->q.ee, V, se->ee.vruntime);
}

#ifdef RUNQ_TRACE_POISON
/* The test variants (tests/kernel/trace_fields.sh) check every number
 * read directly against the views: a record's V, se's lag and
 * eligibility, and (nr_eligible >= 0) the eligible count. The same
 * instructions in both variants, so their runs still schedule alike. */
static void check_direct(const struct rq *rq, const struct sched_entity *se, u64 V, int nr_eligible)
{
    struct sched_queue_view qv;
    view_queue(rq, nr_eligible >= 0, &qv);
    BUG_ON(!qv.vtime || qv.V != V);
    BUG_ON(nr_eligible >= 0 && qv.nr_eligible != (unsigned)nr_eligible);
    if (se) {
        struct sched_entity_view v;
        view_entity(rq, &qv, se, &v);
        BUG_ON(v.lag != direct_lag(se, V) || v.eligible != direct_eligible(rq, se, V));
        BUG_ON(v.vruntime != se->ee.vruntime || v.deadline != se->ee.deadline || v.weight != se->ee.weight);
        BUG_ON(v.vprot != (rq->q.curr == se ? se->ee.vprot : 0));
    }
}
#else
#define check_direct(rq, se, V, nr_eligible) do { } while (0)
#endif

static void name_copy(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; i < n && src[i]; i++)
        dst[i] = src[i];
    for (; i < n; i++)
        dst[i] = 0;
}

static int32_t id_of(const struct task *t)
{
    return t ? t->id : TRACE_TASK_NONE;
}

void trace_task(enum trace_rec_type type, const struct task *t)
{
    if (!trace_on(type))
        return;
    struct trace_rec_task r;
    trace_rec_init(&r.h, type, sizeof r, clock_ns());
    r.task = t->id;
    r.parent = TRACE_TASK_NONE;
    r.nice = (int8_t)t->se.nice;
    r.tflags = (t->is_idle ? TRACE_TF_IDLE : 0) | (t->pinned ? TRACE_TF_PINNED : 0);
    r.cpu = (u16)t->cpu;
    r.slice_ns = t->se.slice_ns;
    name_copy(r.name, t->name, TRACE_NAME_LEN);
    r.sclass = sched_is_rt(&t->se) ? TRACE_CLASS_RT : TRACE_CLASS_FAIR;
    r.rt_prio = t->se.rt.prio;
    r.rt_policy = t->se.rt.policy == RT_RR ? TRACE_RT_RR : TRACE_RT_FIFO;
    r.pad = 0;
    put(&r, sizeof r);
}

void trace_wake(const struct task *waker, const struct task *wakee, bool timer)
{
    if (!trace_on(TRACE_REC_WAKE))
        return;
    EMIT_BEGIN(struct trace_rec_wake, r);
    trace_rec_init(&r->h, TRACE_REC_WAKE, sizeof *r, clock_ns_inline());
    r->waker = timer ? TRACE_TASK_NONE : id_of(waker);
    r->wakee = wakee->id;
    r->waker_cpu = (u16)this_cpu()->id;
    r->target_cpu = (u16)wakee->cpu;
    r->wflags = timer ? TRACE_WF_TIMER : 0;
    r->pad[0] = r->pad[1] = r->pad[2] = 0;
    EMIT_END(r);
}

static u16 nr_runnable(const struct rq *rq)
{
    return (u16)sched_nr_runnable(&rq->q);
}

s64 trace_join_lag(const struct rq *rq, const struct task *t)
{
    const struct sched_entity *se = &t->se;
    if (direct(se)) {
        u64 V = se->on_queue ? eevdf_avg_of(&rq->q.ee) : 0; /* off the queue: vlag, no V needed */
        if (se->on_queue)
            check_direct(rq, se, V, -1);
        return direct_lag(se, V);
    }
    struct sched_entity_view v;
    sched_describe(sched_policy_current, &rq->q, NULL, se, &v);
    return v.lag;
}

void trace_join_note(struct rq *rq, const struct task *t, s64 lag_before, struct trace_rec_join *r)
{
    *r = (struct trace_rec_join){ .h.type = TRACE_REC_JOIN, .task = t->id, .cpu = (u16)t->cpu,
                                  .nr_runnable = nr_runnable(rq), .curr = TRACE_TASK_NONE };
    if (direct(&t->se)) {
        const struct sched_entity *se = &t->se;
        u64 V = eevdf_avg_of(&rq->q.ee);
        check_direct(rq, se, V, -1);
        r->lag_before = lag_before;
        r->lag_after = direct_lag(se, V);
        r->vruntime = se->ee.vruntime;
        r->deadline = se->ee.deadline;
        r->V = V;
        r->weight = se->ee.weight;
        if (direct_eligible(rq, se, V))
            r->jflags |= TRACE_JF_WAKEE_ELIGIBLE;
        return;
    }
    struct sched_queue_view qv;
    view_queue(rq, false, &qv);
    if (!qv.vtime || sched_is_rt(&t->se)) { /* an RT task has no lag */
        r->h.flags = TRACE_RF_NO_EEVDF;
        return;
    }
    struct sched_entity_view v;
    view_entity(rq, &qv, &t->se, &v);
    r->lag_before = lag_before;
    r->lag_after = v.lag;
    r->vruntime = v.vruntime;
    r->deadline = v.deadline;
    r->V = qv.V;
    r->weight = v.weight;
    if (v.eligible)
        r->jflags |= TRACE_JF_WAKEE_ELIGIBLE;
}

void trace_join_note_curr(struct rq *rq, const struct task *t, struct trace_rec_join *r)
{
    const struct sched_entity *c = sched_running(&rq->q);
    if (!c)
        return;
    r->curr = c->id; /* the entity's id is its task's */
    if ((r->h.flags & TRACE_RF_NO_EEVDF) || sched_is_rt(c))
        return;
    if (direct(c)) {
        u64 V = eevdf_avg_of(&rq->q.ee);
        check_direct(rq, &t->se, V, -1);
        check_direct(rq, c, V, -1);
        u64 vprot = rq->q.curr == c ? c->ee.vprot : 0;
        r->curr_vruntime = c->ee.vruntime;
        r->curr_deadline = c->ee.deadline;
        r->curr_vprot = vprot;
        r->jflags = (u8)((r->jflags & ~(TRACE_JF_WAKEE_ELIGIBLE | TRACE_JF_CURR_ELIGIBLE | TRACE_JF_CURR_PROTECTED)) |
                         (direct_eligible(rq, &t->se, V) ? TRACE_JF_WAKEE_ELIGIBLE : 0) |
                         (direct_eligible(rq, c, V) ? TRACE_JF_CURR_ELIGIBLE : 0) |
                         ((s64)(vprot - c->ee.vruntime) > 0 ? TRACE_JF_CURR_PROTECTED : 0));
        return;
    }
    struct sched_queue_view qv; /* again: current's charge since the join moved V */
    struct sched_entity_view w, v;
    view_queue(rq, false, &qv);
    view_entity(rq, &qv, &t->se, &w);
    view_entity(rq, &qv, c, &v);
    r->curr_vruntime = v.vruntime;
    r->curr_deadline = v.deadline;
    r->curr_vprot = v.vprot;
    r->jflags = (u8)((r->jflags & ~(TRACE_JF_WAKEE_ELIGIBLE | TRACE_JF_CURR_ELIGIBLE | TRACE_JF_CURR_PROTECTED)) |
                     (w.eligible ? TRACE_JF_WAKEE_ELIGIBLE : 0) | (v.eligible ? TRACE_JF_CURR_ELIGIBLE : 0) |
                     ((s64)(v.vprot - v.vruntime) > 0 ? TRACE_JF_CURR_PROTECTED : 0));
}

void trace_join(struct rq *rq, const struct task *t, enum trace_join_reason why, struct trace_rec_join *note)
{
    if (!trace_on(TRACE_REC_JOIN))
        return;
    struct trace_rec_join now;
    if (!note || note->h.type != TRACE_REC_JOIN) { /* a join traced as it happens */
        trace_join_note(rq, t, 0, &now);
        note = &now;
    }
    EMIT_BEGIN(struct trace_rec_join, r);
    *r = *note;
    trace_rec_init(&r->h, TRACE_REC_JOIN, sizeof *r, clock_ns_inline());
    r->h.flags = note->h.flags;
    r->reason = (u8)why;
    note->h.type = 0; /* emitted: not again */
    EMIT_END(r);
}

void trace_pick(struct rq *rq, const struct task *prev, const struct task *next, enum trace_pick_why why,
                u64 cost_ns, unsigned touched)
{
    if (!trace_on(TRACE_REC_PICK))
        return;
    EMIT_BEGIN(struct trace_rec_pick, r);
    trace_rec_init(&r->h, TRACE_REC_PICK, sizeof *r, clock_ns_inline());
    r->prev = id_of(prev);
    r->next = id_of(next);
    r->cpu = (u16)this_cpu()->id;
    r->why = (u8)why;
    r->pad = 0;
    r->nr_runnable = nr_runnable(rq);
    r->touched = (u16)(touched > 0xffff ? 0xffff : touched);
    r->pad2 = 0;
    r->cost_ns = (u32)(cost_ns > 0xffffffffu ? 0xffffffffu : cost_ns);
    r->next_vruntime = r->next_deadline = 0;
    r->next_lag = 0;
    if (direct(next ? &next->se : NULL)) {
        u64 V = eevdf_avg_of(&rq->q.ee);
        r->V = V;
        if (next && next->se.on_queue) {
            r->next_vruntime = next->se.ee.vruntime;
            r->next_deadline = next->se.ee.deadline;
            r->next_lag = direct_lag(&next->se, V);
        }
        unsigned nr_eligible = eevdf_nr_eligible_at(&rq->q, V);
        check_direct(rq, next && next->se.on_queue ? &next->se : NULL, V, (int)nr_eligible);
        r->nr_eligible = (u16)nr_eligible;
        EMIT_END(r);
        return;
    }
    struct sched_queue_view qv;
    view_queue(rq, true, &qv);
    if (qv.vtime && !(next && sched_is_rt(&next->se))) {
        r->V = qv.V;
        if (next && next->se.on_queue) {
            struct sched_entity_view v;
            view_entity(rq, &qv, &next->se, &v);
            r->next_vruntime = v.vruntime;
            r->next_deadline = v.deadline;
            r->next_lag = v.lag;
        }
        r->nr_eligible = (u16)qv.nr_eligible;
    } else {
        r->h.flags = TRACE_RF_NO_EEVDF;
        r->V = 0;
        r->nr_eligible = 0;
    }
    EMIT_END(r);
}

void trace_leave(struct rq *rq, const struct task *t, enum trace_leave_reason why, u64 run_ns)
{
    if (!trace_on(TRACE_REC_LEAVE))
        return;
    EMIT_BEGIN(struct trace_rec_leave, r);
    trace_rec_init(&r->h, TRACE_REC_LEAVE, sizeof *r, clock_ns_inline());
    r->task = t->id;
    r->cpu = (u16)t->cpu;
    r->reason = (u8)why;
    r->by = why == TRACE_LEAVE_RELEASE ? TRACE_CLASS_RT : 0; /* the one class above fair */
    r->run_ns = run_ns;
    if (direct(&t->se)) {
        const struct sched_entity *se = &t->se;
        u64 V = eevdf_avg_of(&rq->q.ee);
        check_direct(rq, se, V, -1);
        r->V = V;
        r->vruntime = se->ee.vruntime;
        /* On the queue still (preempted, delayed): its lag now; gone: the
         * lag it left with. */
        r->lag = direct_lag(se, V);
        r->deadline = se->ee.deadline;
        EMIT_END(r);
        return;
    }
    struct sched_queue_view qv;
    view_queue(rq, false, &qv);
    if (qv.vtime && !sched_is_rt(&t->se)) {
        struct sched_entity_view v;
        view_entity(rq, &qv, &t->se, &v);
        r->V = qv.V;
        r->vruntime = v.vruntime;
        /* On the queue still (preempted, delayed): its lag now; gone: the
         * lag it left with. */
        r->lag = v.lag;
        r->deadline = v.deadline;
    } else {
        r->h.flags = TRACE_RF_NO_EEVDF;
        r->V = r->vruntime = r->deadline = 0;
        r->lag = 0;
    }
    EMIT_END(r);
}

void trace_migrate(const struct task *t, unsigned dst, enum trace_migrate_reason why, u8 mflags)
{
    if (!trace_on(TRACE_REC_MIGRATE))
        return;
    struct {
        struct trace_rec_migrate m;
        struct trace_migrate_cpu cpu[MAX_CPUS];
    } TRACE_PACKED r;
    unsigned n = ncpus < MAX_CPUS ? ncpus : MAX_CPUS;
    u16 size = (u16)(sizeof r.m + n * sizeof r.cpu[0]);
    trace_rec_init(&r.m.h, TRACE_REC_MIGRATE, size, clock_ns());
    r.m.task = t->id;
    r.m.src = (u16)t->cpu;
    r.m.dst = (u16)dst;
    r.m.reason = (u8)why;
    r.m.mflags = mflags;
    r.m.ncpus = (u16)n;
    for (unsigned c = 0; c < n; c++) {
        const struct rq *o = &cpus[c].rq;
        struct trace_migrate_cpu *e = &r.cpu[c];
        e->nr_running = (u16)sched_nr_runnable(&o->q);
        e->cflags = sched_running(&o->q) ? TRACE_MC_RUNNING : 0;
        e->pad = 0;
        u64 load = sched_fair_load(sched_policy_current, &o->q);
        e->load = load > UINT32_MAX ? UINT32_MAX : (u32)load;
    }
    put(&r, size);
}

void trace_tick(struct rq *rq)
{
    if (!trace_on(TRACE_REC_TICK))
        return;
    EMIT_BEGIN(struct trace_rec_tick, r);
    trace_rec_init(&r->h, TRACE_REC_TICK, sizeof *r, clock_ns_inline());
    r->curr = id_of(rq->curr);
    r->cpu = (u16)this_cpu()->id;
    r->nr_runnable = nr_runnable(rq);
    if (direct(NULL)) {
        r->V = eevdf_avg_of(&rq->q.ee);
        check_direct(rq, NULL, r->V, -1);
        EMIT_END(r);
        return;
    }
    struct sched_queue_view qv;
    view_queue(rq, false, &qv);
    r->V = qv.V;
    if (!qv.vtime)
        r->h.flags = TRACE_RF_NO_EEVDF;
    EMIT_END(r);
}

void trace_set(const struct task *t, enum trace_set_what what, s64 old_value, s64 new_value, const char *name)
{
    if (!trace_on(TRACE_REC_SET))
        return;
    struct trace_rec_set r;
    memset(&r, 0, sizeof r);
    trace_rec_init(&r.h, TRACE_REC_SET, sizeof r, clock_ns());
    r.task = id_of(t);
    r.what = (u8)what;
    r.old_value = old_value;
    r.new_value = new_value;
    if (name)
        name_copy(r.name, name, TRACE_SET_NAME_LEN);
    put(&r, sizeof r);
}

void trace_mark(enum trace_mark_source source, const char *name)
{
    if (!trace_on(TRACE_REC_MARK))
        return;
    struct {
        struct trace_rec_mark m;
        char name[TRACE_MARK_NAME_MAX];
    } __attribute__((packed)) r;
    u32 len = (u32)strlen(name);
    if (len > TRACE_MARK_NAME_MAX)
        len = TRACE_MARK_NAME_MAX;
    trace_rec_init(&r.m.h, TRACE_REC_MARK, (u16)(sizeof r.m + len), clock_ns());
    r.m.cpu = (u16)this_cpu()->id;
    r.m.source = (u8)source;
    r.m.pad = 0;
    memcpy(r.name, name, len);
    put(&r, sizeof r.m + len);
}

/* ---- keyframes and counters ---- */

struct kf_build {
    const struct rq *rq;
    const struct sched_queue_view *qv;
    bool vtime;
    struct trace_kf_entry *e;
    unsigned n;
};

static bool kf_entry(struct sched_entity *se, void *arg)
{
    struct kf_build *b = arg;
    if (b->n == KF_MAX)
        return false;
    const struct task *t = container_of(se, struct task, se);
    struct trace_kf_entry *e = &b->e[b->n++];
    memset(e, 0, sizeof *e);
    e->task = t->id;
    e->nice = (int8_t)se->nice;
    e->kflags = sched_running(&b->rq->q) == se ? TRACE_KF_CURRENT : 0;
    struct sched_entity_view v;
    view_entity(b->rq, b->qv, se, &v);
    e->slice_ns = v.slice_ns;
    /* The view copied as trace_join_note copies it, kept apart: a frame
     * entry and a join record are two wire structs with their own fields. */
    if (sched_is_rt(se))
        e->kflags |= TRACE_KF_RT;
    else if (b->vtime) {
        e->weight = v.weight;
        e->vruntime = v.vruntime;
        e->deadline = v.deadline;
        e->lag = v.lag;
        if (v.eligible)
            e->kflags |= TRACE_KF_ELIGIBLE;
        if (v.delayed)
            e->kflags |= TRACE_KF_DELAYED;
    }
    return true;
}

static void emit_keyframe(struct rq *rq, u64 now)
{
    struct {
        struct trace_rec_keyframe k;
        struct trace_kf_entry e[KF_MAX];
    } __attribute__((packed)) r;
    struct sched_queue_view qv;
    view_queue(rq, false, &qv);
    struct kf_build b = { rq, &qv, qv.vtime, r.e, 0 };
    if (sched_running(&rq->q))
        kf_entry(sched_running(&rq->q), &b);
    sched_for_each_queued(sched_policy_current, &rq->q, kf_entry, &b);
    u32 size = (u32)(sizeof r.k + b.n * sizeof(struct trace_kf_entry));
    trace_rec_init(&r.k.h, TRACE_REC_KEYFRAME, (u16)size, now);
    r.k.cpu = (u16)this_cpu()->id;
    r.k.nr = (u16)b.n;
    r.k.curr = id_of(rq->curr);
    r.k.V = qv.V;
    if (!qv.vtime)
        r.k.h.flags = TRACE_RF_NO_EEVDF;
    put(&r, size);
}

static void emit_counters(struct rq *rq, u64 now)
{
    struct trace_rec_counters r;
    struct trace_ring *ring = &trace_rings[this_cpu()->id];
    trace_rec_init(&r.h, TRACE_REC_COUNTERS, sizeof r, now);
    r.cpu = (u16)this_cpu()->id;
    r.pad = 0;
    r.value[TRACE_CTR_DECISIONS] = rq->stats.decisions;
    r.value[TRACE_CTR_DECISION_NS] = rq->stats.decision_ns;
    r.value[TRACE_CTR_SWITCHES] = rq->stats.switches;
    r.value[TRACE_CTR_WAKES] = rq->stats.wake.n;
    r.value[TRACE_CTR_TICKS] = rq->stats.ticks;
    r.value[TRACE_CTR_IDLE_NS] = rq->stats.idle_ns;
    r.value[TRACE_CTR_BUSY_NS] = rq->stats.busy_ns;
    r.value[TRACE_CTR_RING_USED] = ring_used(ring);
    r.value[TRACE_CTR_RELEASES_RT] = rq->stats.releases_rt;
    r.value[TRACE_CTR_RT_NS] = rq->stats.rt_ns;
    r.value[TRACE_CTR_RT_THROTTLED] = rq->stats.rt_throttled;
    r.value[TRACE_CTR_MIGRATIONS] = rq->stats.migrations;
    /* this record is not counted yet: the next COUNTERS has it */
    r.value[TRACE_CTR_TRACE_RECORDS] = ring->records;
    r.value[TRACE_CTR_TRACE_TIMED] = ring->timed;
    r.value[TRACE_CTR_TRACE_TIMED_NS] = ring->timed_ns;
    put(&r, sizeof r);
}

void trace_periodic(struct rq *rq, u64 now)
{
    if (!trace_mask)
        return;
    struct trace_ring *ring = &trace_rings[this_cpu()->id];
    u32 dropped = __atomic_load_n(&ring->dropped, __ATOMIC_RELAXED);
    bool asked = __atomic_load_n(&ring->keyframe_asked, __ATOMIC_RELAXED);
    if (now - ring->last_periodic < TRACE_KEYFRAME_PERIOD_NS && dropped == ring->dropped_at_periodic && !asked)
        return;
    if (asked)
        __atomic_store_n(&ring->keyframe_asked, 0, __ATOMIC_RELAXED);
    ring->last_periodic = now;
    ring->dropped_at_periodic = dropped;
    /* Stamped now, not at `now`: the caller took `now` before the records
     * it emitted since (a decision's LEAVE and PICK, a tick's TICK), and a
     * CPU's records must be in time order (the host drops one that is
     * behind as late). Here, not at the call, so the every-decision path
     * that returns above reads no clock. */
    u64 ts = clock_ns();
    if (trace_on(TRACE_REC_KEYFRAME))
        emit_keyframe(rq, ts);
    if (trace_on(TRACE_REC_COUNTERS))
        emit_counters(rq, ts);
}
