/*
 * Replay: events of one trace in time order, and the run queues rebuilt from
 * keyframes and events. The contract is in replay.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/replay.h"

#define RP_CKPT 2048

static void *rp_grow(void *p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return p;
    int nc = *cap ? *cap * 2 : 1024;
    while (nc < need)
        nc *= 2;
    p = realloc(p, (size_t)nc * size);
    if (!p) {
        fprintf(stderr, "runq: out of memory\n");
        exit(1);
    }
    *cap = nc;
    return p;
}

static int64_t col_i64(sqlite3_stmt *st, int i, bool *null)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL) {
        if (null)
            *null = true;
        return 0;
    }
    return sqlite3_column_int64(st, i);
}

static void col_str(sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    snprintf(buf, len, "%s", s ? (const char *)s : "");
}

static int rank_of(enum rp_kind k)
{
    /* the kernel's order for records that share a timestamp */
    static const int rank[RP_NKINDS] = { [RP_KEYFRAME] = 0, [RP_WAKE] = 1, [RP_JOIN] = 2, [RP_TICK] = 3,
                                         [RP_LEAVE] = 4,    [RP_PICK] = 5, [RP_SET] = 6,  [RP_MARK] = 7 };
    return rank[k];
}

static int ev_cmp(const void *a, const void *b)
{
    const struct rp_event *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (rank_of(x->kind) != rank_of(y->kind))
        return rank_of(x->kind) - rank_of(y->kind);
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

struct loader {
    struct replay *rp;
    int evcap, kfcap;
};

static struct rp_event *new_event(struct loader *L, enum rp_kind kind)
{
    struct replay *rp = L->rp;
    rp->ev = rp_grow(rp->ev, &L->evcap, rp->nev + 1, sizeof *rp->ev);
    struct rp_event *e = &rp->ev[rp->nev++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->cpu = -1;
    return e;
}

/* A new event from a row whose first columns are its id and time, and,
 * with_cpu, its CPU: every event query starts that way. */
static struct rp_event *row_event(struct loader *L, enum rp_kind kind, sqlite3_stmt *st, bool with_cpu)
{
    struct rp_event *e = new_event(L, kind);
    e->rowid = sqlite3_column_int64(st, 0);
    e->ts = sqlite3_column_int64(st, 1);
    if (with_cpu)
        e->cpu = (int)sqlite3_column_int64(st, 2);
    return e;
}

static int prep(sqlite3 *db, const char *sql, int64_t tid, sqlite3_stmt **st, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(*st, 1, tid);
    return 0;
}

static int thread_index(const struct replay *rp, int utid);

/* Gives each JOIN and PICK its task's requested slice at that moment: a
 * queue rebuilt from the records knows it otherwise only from keyframes,
 * and a task that joins by a JOIN (every wakeup) would show the default.
 * The thread table has a task's last slice; the first SET of its slice
 * says what it was before. */
static void stamp_slices(struct replay *rp)
{
    int64_t *cur = calloc((size_t)rp->nth + 1, sizeof *cur);
    bool *set = calloc((size_t)rp->nth + 1, sizeof *set);
    if (!cur || !set) {
        free(cur);
        free(set);
        return; /* the default is shown: a display detail, not worth failing for */
    }
    for (int i = 0; i < rp->nth; i++)
        cur[i] = rp->th[i].slice_ns;
    for (int i = 0; i < rp->nev; i++) {
        const struct rp_event *e = &rp->ev[i];
        int k = e->kind == RP_SET && !strcmp(e->what, "slice") ? thread_index(rp, e->utid) : -1;
        if (k >= 0 && !set[k]) {
            cur[k] = e->lag; /* old value */
            set[k] = true;
        }
    }
    for (int i = 0; i < rp->nev; i++) {
        struct rp_event *e = &rp->ev[i];
        int k = thread_index(rp, e->utid);
        if (k < 0)
            continue;
        if (e->kind == RP_SET && !strcmp(e->what, "slice"))
            cur[k] = e->lag2; /* new value */
        else if (e->kind == RP_JOIN || e->kind == RP_PICK)
            e->slice_ns = cur[k];
    }
    free(cur);
    free(set);
}

int replay_load(struct replay *rp, sqlite3 *db, int64_t trace_id, char *err, size_t errlen)
{
    memset(rp, 0, sizeof *rp);
    struct loader L = { .rp = rp };
    sqlite3_stmt *st;
    if (prep(db,
             "SELECT trace_id, policy, ncpus, tick_hz, start_ts, end_ts FROM trace "
             "WHERE trace_id = ?1 OR (?1 = 0 AND trace_id = (SELECT max(trace_id) FROM trace))",
             trace_id, &st, err, errlen))
        return -1;
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        if (trace_id)
            snprintf(err, errlen, "no trace %lld in the database", (long long)trace_id);
        else
            snprintf(err, errlen, "the database holds no trace");
        return -1;
    }
    rp->trace_id = sqlite3_column_int64(st, 0);
    col_str(st, 1, rp->policy, sizeof rp->policy);
    rp->ncpus = (int)sqlite3_column_int64(st, 2);
    rp->tick_hz = (int)sqlite3_column_int64(st, 3);
    rp->start_ts = sqlite3_column_int64(st, 4);
    rp->end_ts = sqlite3_column_int64(st, 5);
    sqlite3_finalize(st);
    rp->eevdf = strcmp(rp->policy, "eevdf") == 0;
    int64_t tid = rp->trace_id;

    /* threads */
    int thcap = 0;
    if (prep(db, "SELECT utid, tid, coalesce(name,''), coalesce(cpu,0), coalesce(nice,0), is_idle, "
                 "coalesce(slice_ns,0) FROM thread WHERE trace_id = ?1 ORDER BY utid",
             tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        rp->th = rp_grow(rp->th, &thcap, rp->nth + 1, sizeof *rp->th);
        struct rp_thread *t = &rp->th[rp->nth++];
        t->utid = (int)sqlite3_column_int64(st, 0);
        t->tid = (int)sqlite3_column_int64(st, 1);
        col_str(st, 2, t->name, sizeof t->name);
        t->cpu = (int)sqlite3_column_int64(st, 3);
        t->nice = (int)sqlite3_column_int64(st, 4);
        t->is_idle = sqlite3_column_int64(st, 5) != 0;
        t->slice_ns = sqlite3_column_int64(st, 6);
        if (t->cpu + 1 > rp->ncpus)
            rp->ncpus = t->cpu + 1;
    }
    sqlite3_finalize(st);

    /* picks */
    if (prep(db, "SELECT id, ts, cpu, coalesce(prev_utid,0), coalesce(next_utid,0), coalesce(why,''), v, "
                 "vruntime, deadline, lag, coalesce(nr_eligible,0), coalesce(nr_runnable,0) "
                 "FROM eevdf_pick WHERE trace_id = ?1",
             tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_PICK, st, true);
        bool null = false;
        e->utid2 = (int)sqlite3_column_int64(st, 3);
        e->utid = (int)sqlite3_column_int64(st, 4);
        col_str(st, 5, e->what, sizeof e->what);
        e->v = col_i64(st, 6, &null);
        e->vruntime = col_i64(st, 7, &null);
        e->deadline = col_i64(st, 8, &null);
        e->lag = col_i64(st, 9, &null);
        e->has_v = !null;
        e->n1 = sqlite3_column_int64(st, 10);
        e->n2 = sqlite3_column_int64(st, 11);
    }
    sqlite3_finalize(st);

    /* joins */
    if (prep(db, "SELECT id, ts, cpu, utid, coalesce(reason,''), v, vruntime, deadline, lag_before, lag_after, "
                 "coalesce(weight,1024), coalesce(nr_runnable,0) FROM eevdf_place WHERE trace_id = ?1",
             tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_JOIN, st, true);
        bool null = false;
        e->utid = (int)sqlite3_column_int64(st, 3);
        col_str(st, 4, e->what, sizeof e->what);
        e->v = col_i64(st, 5, &null);
        e->vruntime = col_i64(st, 6, &null);
        e->deadline = col_i64(st, 7, &null);
        e->lag = col_i64(st, 8, &null);
        e->lag2 = col_i64(st, 9, &null);
        e->has_v = !null;
        e->weight = sqlite3_column_int64(st, 10);
        e->n2 = sqlite3_column_int64(st, 11);
    }
    sqlite3_finalize(st);

    /* leaves */
    /* Databases older than trace format 2 have no leave deadline. */
    bool leave_dl = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('eevdf_leave') WHERE name='deadline'", -1, &st,
                           NULL) == SQLITE_OK) {
        leave_dl = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    char leave_sql[200];
    snprintf(leave_sql, sizeof leave_sql,
             "SELECT id, ts, cpu, utid, coalesce(reason,''), v, vruntime, lag, coalesce(run_ns,0), %s "
             "FROM eevdf_leave WHERE trace_id = ?1",
             leave_dl ? "deadline" : "NULL");
    if (prep(db, leave_sql, tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_LEAVE, st, true);
        bool null = false;
        e->utid = (int)sqlite3_column_int64(st, 3);
        col_str(st, 4, e->what, sizeof e->what);
        e->v = col_i64(st, 5, &null);
        e->vruntime = col_i64(st, 6, &null);
        e->lag = col_i64(st, 7, &null);
        e->has_v = !null;
        e->n1 = sqlite3_column_int64(st, 8);
        bool no_dl = false; /* traces of format version 1 have none */
        e->deadline = col_i64(st, 9, &no_dl);
        e->n2 = !no_dl;
    }
    sqlite3_finalize(st);

    /* wakeups (the derived table keeps the latency with the wake) */
    if (prep(db, "SELECT id, ts_wake, coalesce(cpu,0), utid, coalesce(waker,0), coalesce(latency,-1) "
                 "FROM wakeup WHERE trace_id = ?1",
             tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_WAKE, st, true);
        e->utid = (int)sqlite3_column_int64(st, 3);
        e->utid2 = (int)sqlite3_column_int64(st, 4);
        e->n1 = sqlite3_column_int64(st, 5);
    }
    sqlite3_finalize(st);

    /* ticks */
    if (prep(db, "SELECT rowid, ts, cpu, coalesce(utid,0), v, coalesce(nr_runnable,0) FROM sched_tick "
                 "WHERE trace_id = ?1",
             tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_TICK, st, true);
        bool null = false;
        e->utid = (int)sqlite3_column_int64(st, 3);
        e->v = col_i64(st, 4, &null);
        e->has_v = !null;
        e->n2 = sqlite3_column_int64(st, 5);
    }
    sqlite3_finalize(st);

    /* settings and marks */
    if (prep(db, "SELECT rowid, ts, coalesce(utid,0), what, coalesce(name,''), coalesce(old_value,0), "
                 "coalesce(new_value,0) FROM sched_set WHERE trace_id = ?1",
             tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_SET, st, false);
        e->utid = (int)sqlite3_column_int64(st, 2);
        col_str(st, 3, e->what, sizeof e->what);
        e->text = strdup((const char *)sqlite3_column_text(st, 4));
        e->lag = sqlite3_column_int64(st, 5);
        e->lag2 = sqlite3_column_int64(st, 6);
    }
    sqlite3_finalize(st);
    if (prep(db, "SELECT rowid, ts, coalesce(cpu,-1), name FROM mark WHERE trace_id = ?1", tid, &st, err, errlen))
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rp_event *e = row_event(&L, RP_MARK, st, true);
        e->text = strdup((const char *)sqlite3_column_text(st, 3));
    }
    sqlite3_finalize(st);

    /* keyframes: one event per (ts, cpu), entries in row order (current
     * first); the queue is the policy's, so an idle CPU's idle task row is
     * left out (the CPU then runs nothing of the queue's) */
    if (prep(db, "SELECT rowid, ts, cpu, v, utid, is_current, coalesce(delayed,0), coalesce(nice,0), "
                 "coalesce(weight,1024), vruntime, deadline, coalesce(slice_ns,0) FROM queue_snapshot "
                 "WHERE trace_id = ?1 AND utid NOT IN (SELECT utid FROM thread WHERE trace_id = ?1 AND is_idle) "
                 "ORDER BY ts, cpu, rowid",
             tid, &st, err, errlen))
        return -1;
    struct rp_event *kfe = NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(st, 1);
        int cpu = (int)sqlite3_column_int64(st, 2);
        if (!kfe || kfe->ts != ts || kfe->cpu != cpu) {
            kfe = new_event(&L, RP_KEYFRAME);
            bool null = false;
            kfe->rowid = sqlite3_column_int64(st, 0);
            kfe->ts = ts;
            kfe->cpu = cpu;
            kfe->v = col_i64(st, 3, &null);
            kfe->has_v = !null;
            kfe->kf_first = rp->nkf;
        }
        rp->kf = rp_grow(rp->kf, &L.kfcap, rp->nkf + 1, sizeof *rp->kf);
        struct rp_kf_ent *k = &rp->kf[rp->nkf++];
        k->utid = (int)sqlite3_column_int64(st, 4);
        k->current = sqlite3_column_int64(st, 5) != 0;
        k->delayed = sqlite3_column_int64(st, 6) != 0;
        k->nice = (int)sqlite3_column_int64(st, 7);
        k->weight = sqlite3_column_int64(st, 8);
        k->vruntime = col_i64(st, 9, NULL);
        k->deadline = col_i64(st, 10, NULL);
        k->slice_ns = sqlite3_column_int64(st, 11);
        kfe->kf_n++;
    }
    sqlite3_finalize(st);

    for (int i = 0; i < rp->nev; i++)
        if (rp->ev[i].cpu >= rp->ncpus)
            rp->ncpus = rp->ev[i].cpu + 1;
    if (rp->ncpus < 1)
        rp->ncpus = 1;
    qsort(rp->ev, (size_t)rp->nev, sizeof *rp->ev, ev_cmp);
    stamp_slices(rp);

    /* checkpoints */
    rp->nckpt = rp->nev / RP_CKPT + 1;
    rp->ckpt = calloc((size_t)rp->nckpt, sizeof *rp->ckpt);
    struct rp_state s;
    replay_state_init(rp, &s);
    for (int k = 0; k < rp->nckpt; k++) {
        while (s.pos < k * RP_CKPT)
            replay_apply(rp, &s, &rp->ev[s.pos]);
        replay_state_init(rp, &rp->ckpt[k]);
        rp->ckpt[k].pos = s.pos;
        rp->ckpt[k].seq = s.seq;
        memcpy(rp->ckpt[k].cpu, s.cpu, (size_t)rp->ncpus * sizeof *s.cpu);
    }
    replay_state_free(&s);
    return 0;
}

void replay_free(struct replay *rp)
{
    for (int i = 0; i < rp->nev; i++)
        free(rp->ev[i].text);
    for (int k = 0; k < rp->nckpt; k++)
        replay_state_free(&rp->ckpt[k]);
    free(rp->ckpt);
    free(rp->ev);
    free(rp->kf);
    free(rp->th);
    memset(rp, 0, sizeof *rp);
}

void replay_state_init(const struct replay *rp, struct rp_state *s)
{
    s->pos = 0;
    s->seq = 0;
    s->cpu = calloc((size_t)rp->ncpus, sizeof *s->cpu);
    if (!s->cpu) {
        fprintf(stderr, "runq: out of memory\n");
        exit(1);
    }
}

void replay_state_free(struct rp_state *s)
{
    free(s->cpu);
    s->cpu = NULL;
}

static struct rp_ent *find_ent(struct rp_cpu *c, int utid)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].utid == utid)
            return &c->e[i];
    return NULL;
}

static void drop_ent(struct rp_cpu *c, int utid)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].utid == utid) {
            c->e[i] = c->e[--c->n];
            return;
        }
}

static struct rp_ent *add_ent(struct rp_cpu *c, int utid)
{
    struct rp_ent *x = find_ent(c, utid);
    if (x)
        return x;
    if (c->n == RP_MAX_ENT)
        return NULL;
    x = &c->e[c->n++];
    memset(x, 0, sizeof *x);
    x->utid = utid;
    x->weight = 1024;
    return x;
}

static bool is_idle(const struct replay *rp, int utid)
{
    const struct rp_thread *t = replay_thread(rp, utid);
    return t && t->is_idle;
}

/* Removes a task from every other CPU's queue (it migrated). */
static void claim(const struct replay *rp, struct rp_state *s, int cpu, int utid)
{
    for (int k = 0; k < rp->ncpus; k++)
        if (k != cpu && find_ent(&s->cpu[k], utid)) {
            drop_ent(&s->cpu[k], utid);
            if (s->cpu[k].curr == utid)
                s->cpu[k].curr = 0;
        }
}

/* EEVDF's base slice for ncpus, as kernel/sched/eevdf.c computes it. */
static int64_t base_slice_ns(int ncpus)
{
    int n = ncpus < 8 ? ncpus : 8, lg = 0;
    while (n > 1) {
        n >>= 1;
        lg++;
    }
    return 700000LL * (1 + lg);
}

/*
 * The records do not carry current's vruntime between its events, nor a
 * deadline renewed while it ran, but both follow from what is known:
 * V = sum(w*v) / sum(w) over the queue, current included, and every other
 * vruntime on the queue is exact, so current's is V*W minus the others',
 * over its weight. A deadline behind its vruntime was renewed, a slice at
 * a time.
 */
static void fix_current(const struct replay *rp, struct rp_cpu *c)
{
    if (!rp->eevdf || !c->has_v)
        return;
    __int128 sumw = 0, sumwv = 0;
    struct rp_ent *cur = NULL;
    for (int i = 0; i < c->n; i++) {
        struct rp_ent *x = &c->e[i];
        sumw += x->weight;
        if (x->current && !cur)
            cur = x;
        else
            sumwv += (__int128)x->weight * x->vruntime;
    }
    if (cur && cur->weight > 0)
        cur->vruntime = (int64_t)(((__int128)c->v * sumw - sumwv) / cur->weight);
    for (int i = 0; i < c->n; i++) {
        struct rp_ent *x = &c->e[i];
        int64_t slice = x->slice_ns ? x->slice_ns : base_slice_ns(rp->ncpus);
        int64_t sv = x->weight > 0 ? slice * 1024 / x->weight : slice;
        if (sv <= 0 || x->deadline > x->vruntime)
            continue;
        x->deadline += ((x->vruntime - x->deadline) / sv + 1) * sv;
        x->dl_estimated = true;
    }
}

void replay_apply(const struct replay *rp, struct rp_state *s, const struct rp_event *e)
{
    s->pos++;
    if (e->cpu < 0 || e->cpu >= rp->ncpus)
        return;
    struct rp_cpu *c = &s->cpu[e->cpu];
    struct rp_ent *x;
    switch (e->kind) {
    case RP_KEYFRAME:
        c->n = 0;
        c->known = true;
        c->has_v = e->has_v;
        c->v = e->v;
        c->curr = 0;
        for (int i = 0; i < e->kf_n; i++) {
            const struct rp_kf_ent *k = &rp->kf[e->kf_first + i];
            if (k->current)
                c->curr = k->utid;
            if (is_idle(rp, k->utid) && k->current && !rp->eevdf)
                continue;
            x = add_ent(c, k->utid);
            if (!x)
                break;
            x->current = k->current;
            x->delayed = k->delayed;
            x->vruntime = k->vruntime;
            x->deadline = k->deadline;
            x->dl_estimated = false;
            x->weight = k->weight;
            x->slice_ns = k->slice_ns;
            x->seq = ++s->seq;
        }
        break;
    case RP_JOIN:
        claim(rp, s, e->cpu, e->utid);
        x = add_ent(c, e->utid);
        if (!x)
            break;
        if (!x->current && !x->delayed)
            x->seq = ++s->seq; /* tail of the list */
        x->delayed = false;
        x->vruntime = e->vruntime;
        x->deadline = e->deadline;
        x->dl_estimated = false;
        x->weight = e->weight ? e->weight : 1024;
        x->slice_ns = e->slice_ns;
        if (e->has_v) {
            c->v = e->v;
            c->has_v = true;
        }
        break;
    case RP_LEAVE:
        if (e->has_v) {
            c->v = e->v;
            c->has_v = true;
        }
        if (c->curr == e->utid)
            c->curr = 0;
        x = find_ent(c, e->utid);
        if (!strcmp(e->what, "preempt") || !strcmp(e->what, "yield")) {
            x = x ? x : add_ent(c, e->utid);
            if (x) {
                x->current = false;
                x->vruntime = e->vruntime;
                if (e->n2) /* the stint may have renewed it */
                    x->deadline = e->deadline;
                x->seq = ++s->seq; /* rr: the displaced task goes to the tail */
            }
        } else if (!strcmp(e->what, "delayed")) {
            if (x) {
                x->current = false;
                x->delayed = true;
                x->vruntime = e->vruntime;
                if (e->n2)
                    x->deadline = e->deadline;
            }
        } else {
            drop_ent(c, e->utid);
        }
        break;
    case RP_PICK:
        if (e->has_v) {
            c->v = e->v;
            c->has_v = true;
        }
        c->known = true;
        for (int i = 0; i < c->n; i++)
            if (c->e[i].current && c->e[i].utid != e->utid)
                c->e[i].current = false; /* prev was put back without a LEAVE */
        c->curr = e->utid;
        if (is_idle(rp, e->utid) && !find_ent(c, e->utid))
            break;
        claim(rp, s, e->cpu, e->utid);
        x = add_ent(c, e->utid);
        if (!x)
            break;
        x->current = true;
        x->delayed = false;
        x->slice_ns = e->slice_ns;
        if (e->has_v) {
            x->vruntime = e->vruntime;
            x->deadline = e->deadline;
            x->dl_estimated = false;
        }
        break;
    case RP_TICK:
        if (e->has_v) {
            c->v = e->v;
            c->has_v = true;
        }
        break;
    default:
        return;
    }
    fix_current(rp, c);
}

void replay_seek(const struct replay *rp, struct rp_state *s, int pos)
{
    if (pos < 0)
        pos = 0;
    if (pos > rp->nev)
        pos = rp->nev;
    int k = pos / RP_CKPT;
    if (k >= rp->nckpt)
        k = rp->nckpt - 1;
    if (pos < s->pos || rp->ckpt[k].pos > s->pos) {
        s->pos = rp->ckpt[k].pos;
        s->seq = rp->ckpt[k].seq;
        memcpy(s->cpu, rp->ckpt[k].cpu, (size_t)rp->ncpus * sizeof *s->cpu);
    }
    while (s->pos < pos)
        replay_apply(rp, s, &rp->ev[s->pos]);
}

/* The index of utid in rp->th (sorted by utid), or -1. */
static int thread_index(const struct replay *rp, int utid)
{
    const struct rp_thread *t = replay_thread(rp, utid);
    return t ? (int)(t - rp->th) : -1;
}

const struct rp_thread *replay_thread(const struct replay *rp, int utid)
{
    int lo = 0, hi = rp->nth - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (rp->th[mid].utid == utid)
            return &rp->th[mid];
        if (rp->th[mid].utid < utid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

const char *replay_name(const struct replay *rp, int utid)
{
    static char buf[8][40];
    static int k;
    char *b = buf[k++ % 8];
    const struct rp_thread *t = replay_thread(rp, utid);
    if (!utid)
        snprintf(b, sizeof buf[0], "-");
    else if (!t)
        snprintf(b, sizeof buf[0], "utid%d", utid);
    else
        snprintf(b, sizeof buf[0], "%s/%d", t->name, t->tid);
    return b;
}

const char *replay_kind_name(enum rp_kind k)
{
    static const char *names[RP_NKINDS] = { "KEYFRAME", "WAKE", "JOIN", "TICK", "LEAVE", "PICK", "SET", "MARK" };
    return k < RP_NKINDS ? names[k] : "?";
}

int replay_find_ts(const struct replay *rp, int64_t ts)
{
    int lo = 0, hi = rp->nev;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (rp->ev[mid].ts < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Virtual or real ns as µs with 3 decimals, signed. */
static const char *us3(int64_t ns, char *b, size_t n)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    snprintf(b, n, "%s%llu.%03llu", sign, (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
    return b;
}

void replay_describe(const struct replay *rp, int i, char *buf, size_t len)
{
    const struct rp_event *e = &rp->ev[i];
    char t[32], a[32], b[32], c[32];
    us3(e->ts - rp->start_ts, t, sizeof t);
    int n = snprintf(buf, len, "#%d t=%sus cpu%d %-5s ", i, t, e->cpu, replay_kind_name(e->kind));
    if (n < 0 || (size_t)n >= len)
        return;
    buf += n;
    len -= (size_t)n;
    switch (e->kind) {
    case RP_PICK:
        if (e->utid == e->utid2)
            n = snprintf(buf, len, "%s keeps the CPU (%s)", replay_name(rp, e->utid), e->what);
        else
            n = snprintf(buf, len, "%s -> %s (%s)", replay_name(rp, e->utid2), replay_name(rp, e->utid), e->what);
        if (e->has_v && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " V=%s lag=%s dl=%s", us3(e->v, a, sizeof a),
                     us3(e->lag, b, sizeof b), us3(e->deadline, c, sizeof c));
        break;
    case RP_JOIN:
        n = snprintf(buf, len, "%s joins (%s)", replay_name(rp, e->utid), e->what);
        if (e->has_v && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " lag %s -> %s, V=%s", us3(e->lag, a, sizeof a),
                     us3(e->lag2, b, sizeof b), us3(e->v, c, sizeof c));
        break;
    case RP_LEAVE:
        n = snprintf(buf, len, "%s leaves (%s) after %sus", replay_name(rp, e->utid), e->what,
                     us3(e->n1, a, sizeof a));
        if (e->has_v && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " with lag %s", us3(e->lag, b, sizeof b));
        break;
    case RP_WAKE:
        n = snprintf(buf, len, "%s woken by %s", replay_name(rp, e->utid),
                     e->utid2 ? replay_name(rp, e->utid2) : "a timer or interrupt");
        if (e->n1 >= 0 && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, "; runs %sus later", us3(e->n1, a, sizeof a));
        break;
    case RP_TICK:
        snprintf(buf, len, "tick, %s on the CPU, %lld runnable", replay_name(rp, e->utid), (long long)e->n2);
        break;
    case RP_KEYFRAME:
        snprintf(buf, len, "keyframe: %d on the queue", e->kf_n);
        break;
    case RP_SET:
        snprintf(buf, len, "set %s %s %s: %lld -> %lld", e->what, e->text ? e->text : "",
                 e->utid ? replay_name(rp, e->utid) : "", (long long)e->lag, (long long)e->lag2);
        break;
    case RP_MARK:
        snprintf(buf, len, "mark \"%s\"", e->text ? e->text : "");
        break;
    default:
        break;
    }
}

static int ent_cmp_eevdf(const void *a, const void *b)
{
    const struct rp_ent *x = a, *y = b;
    if (x->deadline != y->deadline)
        return x->deadline < y->deadline ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ent_cmp_rr(const void *a, const void *b)
{
    const struct rp_ent *x = a, *y = b;
    if (x->current != y->current)
        return x->current ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int replay_queue_sorted(const struct replay *rp, const struct rp_cpu *c, struct rp_ent *out)
{
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        if (is_idle(rp, c->e[i].utid) && !c->e[i].current)
            continue;
        out[n++] = c->e[i];
    }
    qsort(out, (size_t)n, sizeof *out, rp->eevdf ? ent_cmp_eevdf : ent_cmp_rr);
    return n;
}
