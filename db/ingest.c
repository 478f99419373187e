/*
 * One record's rows (contract in ingest.h). Each on_TYPE writes the raw
 * row first, then hands the record to the derived tables' state machines.
 */
#include <stdbool.h>
#include <string.h>

#include "bug.h"
#include "db/ingest.h"

static void on_pick(struct derive *d, unsigned ci, const struct trace_rec_pick *r)
{
    bool ee = !(r->h.flags & TRACE_RF_NO_EEVDF);
    uint64_t ts = r->h.ts_ns;
    struct wtask *prev = derive_task(d, r->prev, ts), *next = derive_task(d, r->next, ts);
    struct brow *s = batch_row(d->b, S_PICK);
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, ts);
    B_INT(s, 3, r->cpu);
    B_OPT(s, 4, prev, prev ? prev->utid : 0);
    B_OPT(s, 5, next, next ? next->utid : 0);
    B_TXT(s, 6, trace_why_name(r->why));
    B_OPT(s, 7, ee, r->V);
    B_OPT(s, 8, ee, r->next_vruntime);
    B_OPT(s, 9, ee, r->next_deadline);
    B_OPT(s, 10, ee, r->next_lag);
    B_OPT(s, 11, ee, r->nr_eligible);
    B_INT(s, 12, r->nr_runnable);
    bool cost = !(r->h.flags & TRACE_RF_NO_COST);
    B_OPT(s, 13, cost, r->touched);
    B_OPT(s, 14, cost, r->cost_ns);
    run(d->b, s, "eevdf_pick");
    derive_pick(d, r->cpu < TRACE_MAX_CPUS ? r->cpu : ci, r->next, next, ts);
}

/* A LEAVE's or a JOIN's row: its task (*tp, made known from its id at
 * the record's time), and a row of statement id (S_LEAVE or S_PLACE) with
 * the first five columns eevdf_leave and eevdf_place share: trace_id, ts,
 * cpu, utid, reason. NULL when the task cannot be had (derive_task says
 * why). The caller binds the rest, its own table's from its own record. */
static struct brow *task_row(struct derive *d, int id, const struct trace_rec_hdr *h, int32_t task, unsigned cpu,
                             const char *reason, struct wtask **tp)
{
    struct wtask *t = *tp = derive_task(d, task, h->ts_ns);
    if (!t)
        return NULL;
    struct brow *s = batch_row(d->b, id);
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, h->ts_ns);
    B_INT(s, 3, cpu);
    B_INT(s, 4, t->utid);
    B_TXT(s, 5, reason);
    return s;
}

static void on_leave(struct derive *d, const struct trace_rec_leave *r)
{
    bool ee = !(r->h.flags & TRACE_RF_NO_EEVDF);
    struct wtask *t;
    struct brow *s = task_row(d, S_LEAVE, &r->h, r->task, r->cpu, trace_leave_reason_name(r->reason), &t);
    if (!s)
        return;
    B_OPT(s, 6, ee, r->vruntime);
    B_OPT(s, 7, ee, r->lag);
    B_OPT(s, 8, ee, r->V);
    B_INT(s, 9, r->run_ns);
    B_OPT(s, 10, ee && r->h.size >= sizeof *r, r->deadline); /* version 1 had none */
    B_TXT(s, 11, r->reason == TRACE_LEAVE_RELEASE ? trace_class_name(r->by) : NULL);
    run(d->b, s, "eevdf_leave");
    derive_leave(d, t, r);
}

static void on_join(struct derive *d, const struct trace_rec_join *r)
{
    bool ee = !(r->h.flags & TRACE_RF_NO_EEVDF);
    uint64_t ts = r->h.ts_ns;
    struct wtask *t;
    struct brow *s = task_row(d, S_PLACE, &r->h, r->task, r->cpu, trace_join_reason_name(r->reason), &t);
    if (!s)
        return;
    B_OPT(s, 6, ee, r->vruntime);
    B_OPT(s, 7, ee, r->deadline);
    B_OPT(s, 8, ee, r->lag_before);
    B_OPT(s, 9, ee, r->lag_after);
    B_OPT(s, 10, ee, r->V);
    B_INT(s, 11, r->weight);
    B_INT(s, 12, r->nr_runnable);
    /* The wakeup check (EVENT_JOIN_CHECK_COLUMNS): unknown in a version-2
     * JOIN; current's numbers and the EEVDF facts under EEVDF only, the
     * facts about current only with a current. */
    bool v3 = r->h.size >= sizeof *r;
    struct wtask *curr = v3 ? derive_task(d, r->curr, ts) : NULL;
    /* A Linux JOIN (check unknown) knows the eligibilities and current's
     * protection, as they were after Linux's own check, and nothing of
     * how it answered. */
    unsigned known = !v3 ? 0 : !ee ? TRACE_JF_PENDING
                     : r->check == TRACE_JC_UNKNOWN
                         ? TRACE_JF_WAKEE_ELIGIBLE | (curr ? TRACE_JF_CURR_ELIGIBLE | TRACE_JF_CURR_PROTECTED : 0)
                     : curr ? 0xffu : 0xffu & ~(TRACE_JF_CURR_ELIGIBLE | TRACE_JF_CURR_PROTECTED);
    B_OPT(s, 13, curr, curr ? curr->utid : 0);
    B_TXT(s, 14, v3 ? trace_join_check_name(r->check) : NULL);
    B_OPT(s, 15, ee && curr, r->curr_vruntime);
    B_OPT(s, 16, ee && curr, r->curr_deadline);
    B_OPT(s, 17, ee && curr, r->curr_vprot);
    for (int b = 0; b < EVENT_JOIN_NFLAGS; b++)
        B_OPT(s, 18 + b, known >> b & 1, r->jflags >> b & 1);
    run(d->b, s, "eevdf_place");
    derive_join(d, t, r);
}

/* One queue_snapshot row of keyframe k: entry e, or (e NULL) the idle
 * task the CPU runs, which has no scheduling numbers. */
static void snap_row(struct derive *d, const struct trace_rec_keyframe *k, const struct wtask *t,
                     const struct trace_kf_entry *e)
{
    bool ee = !(k->h.flags & TRACE_RF_NO_EEVDF), en = ee && e;
    struct brow *s = batch_row(d->b, S_SNAP);
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, k->h.ts_ns);
    B_INT(s, 3, k->cpu);
    B_OPT(s, 4, ee, k->V);
    B_INT(s, 5, t->utid);
    B_INT(s, 6, e ? !!(e->kflags & TRACE_KF_CURRENT) : 1);
    B_OPT(s, 7, en, !!(e->kflags & TRACE_KF_ELIGIBLE));
    B_OPT(s, 8, en, !!(e->kflags & TRACE_KF_DELAYED));
    B_OPT(s, 9, e, e->nice);
    B_OPT(s, 10, e, e->weight);
    B_OPT(s, 11, en, e->vruntime);
    B_OPT(s, 12, en, e->deadline);
    B_OPT(s, 13, en, e->lag);
    B_OPT(s, 14, en, e->slice_ns);
    B_OPT(s, 15, en && (e->kflags & TRACE_KF_PROT_KNOWN), !!(e->kflags & TRACE_KF_PROTECTED));
    run(d->b, s, "queue_snapshot");
}

static void on_keyframe(struct derive *d, const struct trace_rec_keyframe *k)
{
    uint64_t ts = k->h.ts_ns;
    unsigned ci = k->cpu < TRACE_MAX_CPUS ? k->cpu : 0;
    const struct trace_kf_entry *e = (const struct trace_kf_entry *)(k + 1);
    BUG_ON(sizeof *k + (size_t)k->nr * sizeof *e > k->h.size); /* its entries are in it (decode.c's record_ok) */
    bool have_current = false;
    for (unsigned i = 0; i < k->nr; i++)
        have_current |= (e[i].kflags & TRACE_KF_CURRENT) != 0;
    /* The kernel lists the tasks its policy holds; the idle task is not
     * one, so a keyframe of an idle CPU names it only as curr. It gets its
     * row all the same: every keyframe says who runs, even on a CPU that
     * only idles. */
    struct wtask *idle = have_current ? NULL : derive_task(d, k->curr, ts);
    if (idle)
        snap_row(d, k, idle, NULL);
    for (unsigned i = 0; i < k->nr; i++) {
        struct wtask *t = derive_task(d, e[i].task, ts);
        if (!t)
            continue;
        snap_row(d, k, t, &e[i]);
        derive_queued(d, t, &e[i], k->cpu, ts);
    }
    derive_keyframe_curr(d, ci, k->curr, ts);
}

static void on_stream(struct derive *d, const struct trace_rec_stream *r)
{
    if (r->ncpus >= 1 && r->ncpus <= TRACE_MAX_CPUS)
        d->ncpus = r->ncpus;
    const char *tail = (const char *)(r + 1);
    BUG_ON(sizeof *r + (size_t)r->feature_names_len + r->cmdline_len > r->h.size); /* as decode.c checked */
    char policy[TRACE_POLICY_LEN + 1];
    trace_copy_str(policy, r->policy, TRACE_POLICY_LEN);
    sqlite3_stmt *s = d->b->st[S_STREAM];
    B_INT(s, 1, r->version);
    B_INT(s, 2, r->ncpus);
    B_INT(s, 3, r->tick_hz);
    B_INT(s, 4, r->tsc_hz);
    B_INT(s, 5, r->keyframe_ns);
    sqlite3_bind_text(s, 6, policy, -1, SQLITE_TRANSIENT);
    B_INT(s, 7, r->features);
    sqlite3_bind_text(s, 8, tail, r->feature_names_len, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 9, tail + r->feature_names_len, r->cmdline_len, SQLITE_TRANSIENT);
    B_INT(s, 10, d->b->trace_id);
    run(d->b, s, "trace header");
}

static void on_tick(struct derive *d, const struct trace_rec_tick *k)
{
    uint64_t ts = k->h.ts_ns;
    struct brow *s = batch_row(d->b, S_TICK);
    int64_t u = derive_utid(d, k->curr, ts);
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, ts);
    B_INT(s, 3, k->cpu);
    B_OPT(s, 4, u, u);
    B_OPT(s, 5, !(k->h.flags & TRACE_RF_NO_EEVDF), k->V);
    B_INT(s, 6, k->nr_runnable);
    run(d->b, s, "sched_tick");
}

static void on_set(struct derive *d, const struct trace_rec_set *k)
{
    uint64_t ts = k->h.ts_ns;
    char name[TRACE_SET_NAME_LEN + 1];
    trace_copy_str(name, k->name, TRACE_SET_NAME_LEN);
    struct wtask *t = derive_task(d, k->task, ts);
    derive_set(t, k);
    sqlite3_stmt *s = d->b->st[S_SET];
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, ts);
    B_OPT(s, 3, t, t ? t->utid : 0);
    sqlite3_bind_text(s, 4, trace_set_what_name(k->what), -1, SQLITE_STATIC);
    B_TXT(s, 5, name[0] ? name : NULL);
    B_INT(s, 6, k->old_value);
    B_INT(s, 7, k->new_value);
    run(d->b, s, "sched_set");
}

static void on_mark(struct derive *d, const struct trace_rec_mark *k)
{
    size_t n = k->h.size - sizeof *k;
    sqlite3_stmt *s = d->b->st[S_MARK];
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, k->h.ts_ns);
    B_OPT(s, 3, k->cpu != TRACE_CPU_GLOBAL, k->cpu);
    sqlite3_bind_text(s, 4, trace_mark_source_name(k->source), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, (const char *)(k + 1), (int)strnlen((const char *)(k + 1), n), SQLITE_TRANSIENT);
    run(d->b, s, "mark");
}

static void on_counters(struct derive *d, const struct trace_rec_counters *k)
{
    size_t n = (k->h.size - (sizeof *k - sizeof k->value)) / 8;
    const uint8_t *v = (const uint8_t *)k->value;
    for (size_t i = 0; i < n && i < TRACE_CTR_NR; i++) {
        uint64_t x;
        memcpy(&x, v + 8 * i, 8);
        struct brow *s = batch_row(d->b, S_COUNTER);
        B_INT(s, 1, d->b->trace_id);
        B_INT(s, 2, k->h.ts_ns);
        B_INT(s, 3, k->cpu);
        B_TXT(s, 4, trace_counter_name((unsigned)i));
        B_INT(s, 5, x);
        run(d->b, s, "counter");
    }
}

/* A move: its migration row, with the two CPUs' loads, and a
 * migration_load row for each CPU the record has. */
static void on_migrate(struct derive *d, const struct trace_rec_migrate *r)
{
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = derive_task(d, r->task, ts);
    if (!t)
        return;
    const struct trace_migrate_cpu *c = (const struct trace_migrate_cpu *)(r + 1);
    BUG_ON(sizeof *r + (size_t)r->ncpus * sizeof *c > r->h.size); /* as decode.c's record_ok checked */
    bool src = r->src < r->ncpus, dst = r->dst < r->ncpus;
    struct brow *s = batch_row(d->b, S_MIGRATE);
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, ts);
    B_INT(s, 3, t->utid);
    B_INT(s, 4, r->src);
    B_INT(s, 5, r->dst);
    B_TXT(s, 6, trace_migrate_reason_name(r->reason));
    B_INT(s, 7, !!(r->mflags & TRACE_MF_QUEUED));
    B_OPT(s, 8, src, c[r->src].nr_running);
    B_OPT(s, 9, src, !!(c[r->src].cflags & TRACE_MC_RUNNING));
    B_OPT(s, 10, src, c[r->src].load);
    B_OPT(s, 11, dst, c[r->dst].nr_running);
    B_OPT(s, 12, dst, !!(c[r->dst].cflags & TRACE_MC_RUNNING));
    B_OPT(s, 13, dst, c[r->dst].load);
    run(d->b, s, "migration");
    for (unsigned i = 0; i < r->ncpus && i < TRACE_MAX_CPUS; i++) {
        struct brow *l = batch_row(d->b, S_MIGRATE_LOAD);
        B_INT(l, 1, d->b->trace_id);
        B_INT(l, 2, ts);
        B_INT(l, 3, t->utid);
        B_INT(l, 4, i);
        B_INT(l, 5, c[i].nr_running);
        B_INT(l, 6, !!(c[i].cflags & TRACE_MC_RUNNING));
        B_INT(l, 7, c[i].load);
        run(d->b, l, "migration_load");
    }
}

/* Does every CPU number r carries name a CPU of the trace (the header's
 * count, or the format's 256 before a header)? A MARK's may be the
 * stream-wide 0xFFFF. */
static bool cpus_ok(const struct derive *d, const struct trace_rec_hdr *r)
{
    unsigned n = d->ncpus ? d->ncpus : TRACE_MAX_CPUS;
#define IN(x) ((unsigned)(x) < n)
    switch (r->type) {
    case TRACE_REC_TASK_NEW:
    case TRACE_REC_TASK_EXIT:
    case TRACE_REC_TASK_RENAME: return IN(((const struct trace_rec_task *)r)->cpu);
    case TRACE_REC_WAKE: {
        const struct trace_rec_wake *w = (const void *)r;
        return IN(w->target_cpu) && (IN(w->waker_cpu) || w->waker_cpu == TRACE_CPU_GLOBAL);
    }
    case TRACE_REC_JOIN: return IN(((const struct trace_rec_join *)r)->cpu);
    case TRACE_REC_PICK: return IN(((const struct trace_rec_pick *)r)->cpu);
    case TRACE_REC_LEAVE: return IN(((const struct trace_rec_leave *)r)->cpu);
    case TRACE_REC_TICK: return IN(((const struct trace_rec_tick *)r)->cpu);
    case TRACE_REC_COUNTERS: return IN(((const struct trace_rec_counters *)r)->cpu);
    case TRACE_REC_KEYFRAME: return IN(((const struct trace_rec_keyframe *)r)->cpu);
    case TRACE_REC_MIGRATE: {
        const struct trace_rec_migrate *m = (const void *)r;
        return IN(m->src) && IN(m->dst) && m->ncpus <= n;
    }
    case TRACE_REC_MARK: {
        uint16_t c = ((const struct trace_rec_mark *)r)->cpu;
        return IN(c) || c == TRACE_CPU_GLOBAL;
    }
    default: return true;
    }
#undef IN
}

void ingest_record(struct derive *d, unsigned ci, const struct trace_rec_hdr *r)
{
    /* The decoder hands on only whole records of the types it knows (a
     * type's fixed part at least), and the Linux recorder writes only
     * such: what each on_TYPE reads is in the record. */
    BUG_ON(ci >= TRACE_DEC_NCPU || !trace_rec_min_size(r->type) || r->size < trace_rec_min_size(r->type));
    if (!cpus_ok(d, r)) {
        d->bad_cpu++; /* a CPU the trace does not have: corrupt, not stored */
        return;
    }
    switch (r->type) {
    case TRACE_REC_STREAM: on_stream(d, (const void *)r); break;
    case TRACE_REC_TASK_NEW:
    case TRACE_REC_TASK_EXIT:
    case TRACE_REC_TASK_RENAME: derive_task_info(d, (const void *)r); break;
    case TRACE_REC_WAKE: derive_wake(d, (const void *)r); break;
    case TRACE_REC_JOIN: on_join(d, (const void *)r); break;
    case TRACE_REC_PICK: on_pick(d, ci, (const void *)r); break;
    case TRACE_REC_LEAVE: on_leave(d, (const void *)r); break;
    case TRACE_REC_TICK: on_tick(d, (const void *)r); break;
    case TRACE_REC_SET: on_set(d, (const void *)r); break;
    case TRACE_REC_MARK: on_mark(d, (const void *)r); break;
    case TRACE_REC_COUNTERS: on_counters(d, (const void *)r); break;
    case TRACE_REC_KEYFRAME: on_keyframe(d, (const void *)r); break;
    case TRACE_REC_MIGRATE: on_migrate(d, (const void *)r); break;
    default: break;
    }
}

void ingest_gap(struct derive *d, unsigned ci, uint64_t ts_next, uint32_t packets_lost,
                uint32_t records_dropped, uint32_t records_late)
{
    BUG_ON(ci >= TRACE_DEC_NCPU);
    const struct wcpu *c = &d->cpu[ci];
    uint64_t from = c->seen ? c->last_ts : ts_next;
    sqlite3_stmt *s = d->b->st[S_GAP];
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, ci == TRACE_DEC_GLOBAL ? -1 : (int)ci);
    B_INT(s, 3, from);
    B_INT(s, 4, ts_next);
    B_INT(s, 5, packets_lost);
    B_INT(s, 6, records_dropped);
    B_INT(s, 7, records_late);
    run(d->b, s, "data_gap");
    if (ci != TRACE_DEC_GLOBAL)
        derive_gap(d, ci, from);
}
