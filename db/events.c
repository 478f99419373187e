/*
 * The trace database read back as typed events (contract in events.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bug.h"
#include "db/events.h"

/* ---- reasons ---- */

/* The one way back from a stored name: the names are trace/decode.c's. */
static unsigned parse_name(const char *name, const char *(*name_of)(unsigned), unsigned nr)
{
    if (name)
        for (unsigned i = 0; i < nr; i++)
            if (!strcmp(name, name_of(i)))
                return i;
    return nr;
}

/* Each reason's parser: its enum, its names and its count, one line each. */
#define EVENT_PARSER(fn, type, name_of, nr) \
    type fn(const char *name) { return (type)parse_name(name, name_of, nr); }
EVENT_PARSER(event_leave_parse, enum trace_leave_reason, trace_leave_reason_name, TRACE_LEAVE_NR)
EVENT_PARSER(event_join_parse, enum trace_join_reason, trace_join_reason_name, TRACE_JOIN_NR)
EVENT_PARSER(event_join_check_parse, enum trace_join_check, trace_join_check_name, TRACE_JC_NR)
EVENT_PARSER(event_why_parse, enum trace_pick_why, trace_why_name, TRACE_WHY_NR)
EVENT_PARSER(event_set_parse, enum trace_set_what, trace_set_what_name, TRACE_SET_NR)
EVENT_PARSER(event_migrate_parse, enum trace_migrate_reason, trace_migrate_reason_name, TRACE_MIGRATE_NR)
#undef EVENT_PARSER

const char *thread_state_sql_name(enum thread_state s)
{
    static const char *const n[THREAD_NSTATES] = { "?", "Running", "R", "R+", "S", "S", "X" };
    return s < THREAD_NSTATES ? n[s] : "?";
}

/*
 * What a LEAVE says of its task: the one table. The writer derives
 * thread_state and sched_slice.end_state from it, runq top its task
 * states and voluntary switches, the replay the queue. A reason of
 * trace/format.h without a row here does not compile.
 */
static const struct leave_meaning leave_meaning[] = {
    [TRACE_LEAVE_BLOCK] = { THREAD_SLEEPING, LEAVE_OFF_QUEUE, true, false, false },
    [TRACE_LEAVE_SLEEP] = { THREAD_SLEEPING, LEAVE_OFF_QUEUE, true, false, false },
    [TRACE_LEAVE_YIELD] = { THREAD_RUNNABLE, LEAVE_TO_TAIL, true, false, false }, /* it gave way: voluntary */
    [TRACE_LEAVE_PREEMPT] = { THREAD_PREEMPTED, LEAVE_TO_TAIL, true, true, false },
    [TRACE_LEAVE_EXIT] = { THREAD_DEAD, LEAVE_OFF_QUEUE, true, false, false },
    /* A queued task moved to another CPU's queue (trace format 4): it was
     * not running, so no switch; its JOIN `migrate` follows there. */
    [TRACE_LEAVE_MIGRATE] = { THREAD_RUNNABLE, LEAVE_OFF_QUEUE, false, false, true },
    [TRACE_LEAVE_DELAYED] = { THREAD_DELAYED, LEAVE_STAYS_DELAYED, true, false, false },
    [TRACE_LEAVE_DEQUEUED] = { THREAD_SLEEPING, LEAVE_OFF_QUEUE, false, false, false },
    /* A higher class took the CPU: preempted, as far as the task can tell. */
    [TRACE_LEAVE_RELEASE] = { THREAD_PREEMPTED, LEAVE_TO_TAIL, true, true, false },
};
_Static_assert(sizeof leave_meaning / sizeof leave_meaning[0] == TRACE_LEAVE_NR,
               "every LEAVE reason of trace/format.h has its row in leave_meaning");

const struct leave_meaning *leave_meaning_of(unsigned r)
{
    return &leave_meaning[r < TRACE_LEAVE_NR && leave_meaning[r].state ? r : TRACE_LEAVE_BLOCK];
}

/* ---- events ---- */

static const char *const kind_name[EVENT_NKINDS] = { "KEYFRAME", "WAKE", "JOIN", "TICK",
                                                     "LEAVE",    "PICK", "SET",  "MARK" };

const char *event_kind_name(enum event_kind k)
{
    return k < EVENT_NKINDS ? kind_name[k] : "?";
}

enum event_kind event_kind_parse(const char *name)
{
    for (int k = 0; k < EVENT_NKINDS; k++)
        if (name && !strcasecmp(name, kind_name[k]))
            return (enum event_kind)k;
    return EVENT_NKINDS;
}

int event_task(const struct event *e)
{
    switch (e->kind) {
    case EVENT_PICK: return e->pick.next;
    case EVENT_WAKE: return e->wake.utid;
    case EVENT_JOIN: return e->join.utid;
    case EVENT_LEAVE: return e->leave.utid;
    case EVENT_TICK: return e->tick.utid;
    case EVENT_SET: return e->set.utid;
    default: return 0;
    }
}

/* EVENT_JOIN_CHECK_COLUMNS's flags are the jflags' bits in order. */
_Static_assert(TRACE_JF_REQUEUE == 1u << 0 && TRACE_JF_CHARGED_FIRST == 1u << 1 && TRACE_JF_CLIPPED == 1u << 2 &&
                   TRACE_JF_WAKEE_ELIGIBLE == 1u << 3 && TRACE_JF_CURR_ELIGIBLE == 1u << 4 &&
                   TRACE_JF_CURR_PROTECTED == 1u << 5 && TRACE_JF_CUT_SHORT == 1u << 6 &&
                   TRACE_JF_PENDING == 1u << (EVENT_JOIN_NFLAGS - 1),
               "eevdf_place's flag columns are the JOIN's jflags in bit order");

/* Each kind's table and columns: the brief part (every reader), then the
 * rest (full readers). event_decode() reads them in this order. */
static const struct {
    const char *table, *brief, *rest;
} tables[EVENT_NKINDS] = {
    [EVENT_KEYFRAME] = { "queue_snapshot",
                         "cpu, v, utid, is_current, eligible, delayed, nice, weight, vruntime, deadline, lag, slice_ns",
                         NULL },
    [EVENT_WAKE] = { "wakeup", "utid, latency", "cpu, waker" },
    [EVENT_JOIN] = { "eevdf_place", "cpu, utid, vruntime, deadline, v, weight, nr_runnable",
                     "reason, lag_before, lag_after, " EVENT_JOIN_CHECK_COLUMNS },
    [EVENT_TICK] = { "sched_tick", "cpu, v, nr_runnable", "utid" },
    [EVENT_LEAVE] = { "eevdf_leave", "cpu, utid, reason, vruntime, lag, deadline", "v, run_ns" },
    [EVENT_PICK] = { "eevdf_pick", "cpu, next_utid, v, vruntime, deadline, nr_runnable",
                     "prev_utid, why, lag, nr_eligible" },
    [EVENT_SET] = { "sched_set", "utid, what, name, new_value", "old_value" },
    [EVENT_MARK] = { "mark", "name", "cpu" },
};

const char *event_table(enum event_kind k)
{
    BUG_ON((unsigned)k >= EVENT_NKINDS); /* a kind with a table */
    return tables[k].table;
}

const char *event_columns(enum event_kind k, bool full, const struct event_schema *sch, char *buf, size_t len)
{
    const char *brief = k == EVENT_LEAVE && !sch->leave_deadline ? "cpu, utid, reason, vruntime, lag, NULL" : tables[k].brief;
    const char *rest = tables[k].rest;
    if (k == EVENT_JOIN && !sch->join_check) /* as many NULLs as EVENT_JOIN_CHECK_COLUMNS has columns */
        rest = "reason, lag_before, lag_after, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
    int n = snprintf(buf, len, "%s%s%s", brief, full && rest ? ", " : "", full && rest ? rest : "");
    BUG_ON(n < 0 || (size_t)n >= len); /* cut short, the statement would read other columns */
    return buf;
}

static bool has_column(sqlite3 *db, const char *table, const char *column)
{
    sqlite3_stmt *s;
    bool yes = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, column, -1, SQLITE_STATIC);
        yes = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    return yes;
}

void event_schema_read(sqlite3 *db, struct event_schema *out)
{
    out->leave_deadline = has_column(db, "eevdf_leave", "deadline");
    out->join_check = has_column(db, "eevdf_place", "wake_check");
    out->trace_engine = has_column(db, "trace", "engine");
    out->snapshot_protected = has_column(db, "queue_snapshot", "protected");
}

/* Value i of a row of n: NULL (absent) counts as not there. */
static bool has(sqlite3_value **v, int n, int i)
{
    return i < n && sqlite3_value_type(v[i]) != SQLITE_NULL;
}

static int64_t num(sqlite3_value **v, int n, int i, int64_t absent)
{
    if (!absent) /* SQLite reads NULL as 0: one call a column, not two (make bench) */
        return i < n ? sqlite3_value_int64(v[i]) : 0;
    return has(v, n, i) ? sqlite3_value_int64(v[i]) : absent;
}

static const char *text(sqlite3_value **v, int n, int i)
{
    return i < n ? (const char *)sqlite3_value_text(v[i]) : NULL;
}

void event_decode(enum event_kind k, int64_t ts, int64_t rowid, sqlite3_value **v, int n, struct event *e,
                  struct event_kf_entry *kf)
{
    memset(e, 0, sizeof *e);
    e->ts = ts;
    e->rowid = rowid;
    e->kind = k;
    e->cpu = -1;
    switch (k) {
    case EVENT_KEYFRAME:
        e->cpu = (int)num(v, n, 0, 0);
        e->has_v = has(v, n, 1);
        e->v = num(v, n, 1, 0);
        memset(kf, 0, sizeof *kf);
        kf->utid = (int)num(v, n, 2, 0);
        kf->current = num(v, n, 3, 0) != 0;
        kf->eligible = num(v, n, 4, 0) != 0;
        kf->delayed = num(v, n, 5, 0) != 0;
        kf->has_weight = has(v, n, 7);
        kf->nice = (int)num(v, n, 6, 0);
        kf->weight = num(v, n, 7, 1024);
        kf->has_eevdf = has(v, n, 8) && has(v, n, 9) && has(v, n, 10);
        kf->vruntime = num(v, n, 8, 0);
        kf->deadline = num(v, n, 9, 0);
        kf->lag = num(v, n, 10, 0);
        kf->slice_ns = num(v, n, 11, 0);
        return;
    case EVENT_WAKE:
        e->wake.utid = (int)num(v, n, 0, 0);
        e->wake.latency = num(v, n, 1, -1);
        e->cpu = (int)num(v, n, 2, 0);
        e->wake.waker = (int)num(v, n, 3, 0);
        return;
    case EVENT_JOIN:
        e->cpu = (int)num(v, n, 0, 0);
        e->join.utid = (int)num(v, n, 1, 0);
        e->has_eevdf = has(v, n, 2) && has(v, n, 3);
        e->join.vruntime = num(v, n, 2, 0);
        e->join.deadline = num(v, n, 3, 0);
        e->has_v = has(v, n, 4);
        e->v = num(v, n, 4, 0);
        e->join.weight = num(v, n, 5, 1024);
        e->join.nr_runnable = (int)num(v, n, 6, 0);
        e->join.reason = event_join_parse(text(v, n, 7));
        e->join.lag_before = num(v, n, 8, 0);
        e->join.lag_after = num(v, n, 9, 0);
        e->join.curr = (int)num(v, n, 10, 0);
        e->join.has_check = has(v, n, 11);
        e->join.check = event_join_check_parse(text(v, n, 11));
        e->join.has_curr_eevdf = has(v, n, 12);
        e->join.curr_vruntime = num(v, n, 12, 0);
        e->join.curr_deadline = num(v, n, 13, 0);
        e->join.curr_vprot = num(v, n, 14, 0);
        for (int b = 0; b < EVENT_JOIN_NFLAGS; b++)
            if (num(v, n, 15 + b, 0))
                e->join.jflags |= 1u << b;
        return;
    case EVENT_TICK:
        e->cpu = (int)num(v, n, 0, 0);
        e->has_v = has(v, n, 1);
        e->v = num(v, n, 1, 0);
        e->tick.nr_runnable = (int)num(v, n, 2, 0);
        e->tick.utid = (int)num(v, n, 3, 0);
        return;
    case EVENT_LEAVE:
        e->cpu = (int)num(v, n, 0, 0);
        e->leave.utid = (int)num(v, n, 1, 0);
        e->leave.reason = event_leave_parse(text(v, n, 2));
        e->has_eevdf = has(v, n, 3) && has(v, n, 4);
        e->leave.vruntime = num(v, n, 3, 0);
        e->leave.lag = num(v, n, 4, 0);
        e->leave.has_deadline = has(v, n, 5);
        e->leave.deadline = num(v, n, 5, 0);
        e->has_v = has(v, n, 6);
        e->v = num(v, n, 6, 0);
        e->leave.run_ns = num(v, n, 7, 0);
        return;
    case EVENT_PICK:
        e->cpu = (int)num(v, n, 0, 0);
        e->pick.next = (int)num(v, n, 1, 0);
        e->has_v = has(v, n, 2);
        e->v = num(v, n, 2, 0);
        e->has_eevdf = has(v, n, 3) && has(v, n, 4);
        e->pick.vruntime = num(v, n, 3, 0);
        e->pick.deadline = num(v, n, 4, 0);
        e->pick.nr_runnable = (int)num(v, n, 5, 0);
        e->pick.prev = (int)num(v, n, 6, 0);
        e->pick.why = event_why_parse(text(v, n, 7));
        e->pick.lag = num(v, n, 8, 0);
        e->pick.nr_eligible = (int)num(v, n, 9, 0);
        return;
    case EVENT_SET:
        e->set.utid = (int)num(v, n, 0, 0);
        e->set.what = event_set_parse(text(v, n, 1));
        e->set.name = text(v, n, 2);
        e->set.new_value = num(v, n, 3, 0);
        e->set.old_value = num(v, n, 4, 0);
        return;
    case EVENT_MARK:
        e->mark.name = text(v, n, 0);
        e->cpu = (int)num(v, n, 1, -1);
        return;
    case EVENT_NKINDS:
        return;
    }
}

bool event_engine_counts(const char *engine)
{
    return !engine || strcmp(engine, EVENT_ENGINE_UNCOUNTED) != 0;
}

/* ---- a whole trace ---- */

/* The array at *pp (a pointer to any element type, read and written
 * through memcpy), of *cap elements of size bytes, grown (moved, perhaps)
 * to hold at least need; -1 out of memory (*pp and *cap as they were). */
static int grow(void *pp, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 1024;
    while (nc < need)
        nc *= 2;
    void *p;
    memcpy(&p, pp, sizeof p);
    void *q = realloc(p, (size_t)nc * size);
    if (!q)
        return -1;
    memcpy(pp, &q, sizeof q);
    *cap = nc;
    return 0;
}
/* Room in arr (a pointer member) for need elements. */
#define GROW(arr, cap, need) grow(&(arr), (cap), (need), sizeof *(arr))

static int ev_cmp(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
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

/* The end of a read of table: 0 when it ran to its end (rc, the last
 * sqlite3_step, is SQLITE_DONE), else -1 with the table and SQLite's
 * reason in err. A damaged page ends a loop of SQLITE_ROW as quietly as
 * the last row does: without this, a reader showed the trace up to it. */
static int read_end(sqlite3 *db, int rc, const char *table, char *err, size_t errlen)
{
    if (rc == SQLITE_DONE)
        return 0;
    snprintf(err, errlen, "reading %s: %s", table, sqlite3_errmsg(db));
    return -1;
}

static int thread_index(const struct events *t, int utid)
{
    const struct event_thread *th = events_thread(t, utid);
    return th ? (int)(th - t->th) : -1;
}

/* Gives each JOIN and PICK its task's requested slice at that moment: a
 * queue rebuilt from the records knows it otherwise only from keyframes,
 * and a task that joins by a JOIN (every wakeup) would show the default.
 * The thread table has a task's last slice; the first SET of its slice
 * says what it was before. */
static void stamp_slices(struct events *t)
{
    int64_t *cur = calloc((size_t)t->nth + 1, sizeof *cur);
    bool *set = calloc((size_t)t->nth + 1, sizeof *set);
    if (!cur || !set) {
        free(cur);
        free(set);
        return; /* the default is shown: a display detail, not worth failing for */
    }
    for (int i = 0; i < t->nth; i++)
        cur[i] = t->th[i].slice_ns;
    for (int i = 0; i < t->nev; i++) {
        const struct event *e = &t->ev[i];
        int k = e->kind == EVENT_SET && e->set.what == TRACE_SET_SLICE ? thread_index(t, e->set.utid) : -1;
        if (k >= 0 && !set[k]) {
            cur[k] = e->set.old_value;
            set[k] = true;
        }
    }
    for (int i = 0; i < t->nev; i++) {
        struct event *e = &t->ev[i];
        int k = thread_index(t, event_task(e));
        if (k < 0)
            continue;
        if (e->kind == EVENT_SET && e->set.what == TRACE_SET_SLICE)
            cur[k] = e->set.new_value;
        else if (e->kind == EVENT_JOIN)
            e->join.slice_ns = cur[k];
        else if (e->kind == EVENT_PICK)
            e->pick.slice_ns = cur[k];
    }
    free(cur);
    free(set);
}

/* Every row of kind k's table in trace tid, as events (keyframe rows
 * grouped into one event per time and CPU). */
static int load_kind(struct events *t, sqlite3 *db, enum event_kind k, const struct event_schema *sch, int *evcap,
                     int *kfcap, char *err, size_t errlen)
{
    char cols[512], sql[1024];
    event_columns(k, true, sch, cols, sizeof cols);
    /* The keyframe's rows in row order (current first); the queue is the
     * policy's, so an idle CPU's idle task row is left out. */
    if (k == EVENT_KEYFRAME)
        snprintf(sql, sizeof sql,
                 "SELECT rowid, ts, %s FROM queue_snapshot WHERE trace_id = ?1 AND utid NOT IN "
                 "(SELECT utid FROM thread WHERE trace_id = ?1 AND is_idle) ORDER BY ts, cpu, rowid",
                 cols);
    else
        snprintf(sql, sizeof sql, "SELECT rowid, %s, %s FROM %s WHERE trace_id = ?1",
                 k == EVENT_WAKE ? "ts_wake" : "ts", cols, tables[k].table);
    sqlite3_stmt *st;
    if (prep(db, sql, t->trace_id, &st, err, errlen))
        return -1;
    int n = sqlite3_column_count(st) - 2;
    sqlite3_value *v[32];
    if (n > 32)
        n = 32;
    int kfe = -1; /* the keyframe event being gathered (an index: ev may move) */
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++)
            v[i] = sqlite3_column_value(st, 2 + i);
        int64_t rowid = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
        struct event e;
        if (GROW(t->ev, evcap, t->nev + 1))
            break;
        if (k == EVENT_KEYFRAME) {
            if (GROW(t->kf, kfcap, t->nkf + 1))
                break;
            event_decode(k, ts, rowid, v, n, &e, &t->kf[t->nkf]);
            if (kfe < 0 || t->ev[kfe].ts != ts || t->ev[kfe].cpu != e.cpu) {
                kfe = t->nev++;
                t->ev[kfe] = e;
                t->ev[kfe].keyframe.first = t->nkf;
                t->ev[kfe].keyframe.n = 0;
            }
            t->nkf++;
            t->ev[kfe].keyframe.n++;
            /* a keyframe's rows are one run of kf, which replay_apply reads */
            BUG_ON(t->ev[kfe].keyframe.first + t->ev[kfe].keyframe.n != t->nkf);
            continue;
        }
        event_decode(k, ts, rowid, v, n, &e, NULL);
        const char **name = k == EVENT_SET ? &e.set.name : k == EVENT_MARK ? &e.mark.name : NULL;
        if (name && !(*name = strdup(*name ? *name : "")))
            break;
        t->ev[t->nev++] = e;
    }
    if (rc == SQLITE_ROW) { /* left the loop for want of memory */
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else {
        rc = read_end(db, rc, tables[k].table, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The trace's moves and their CPUs' loads (table migration and
 * migration_load, schema 12; none before it). Both are read by (ts,
 * utid), so a move's loads are the run of rows of its ts and utid. */
static int load_moves(struct events *t, sqlite3 *db, char *err, size_t errlen)
{
    if (!has_column(db, "migration", "utid"))
        return 0;
    sqlite3_stmt *st, *ld;
    if (prep(db, "SELECT ts, utid, src_cpu, dst_cpu, reason, queued FROM migration WHERE trace_id = ?1 "
                 "ORDER BY ts, utid, id", t->trace_id, &st, err, errlen))
        return -1;
    if (prep(db, "SELECT ts, utid, cpu, nr_running, running, load FROM migration_load WHERE trace_id = ?1 "
                 "ORDER BY ts, utid, cpu", t->trace_id, &ld, err, errlen)) {
        sqlite3_finalize(st);
        return -1;
    }
    int mvcap = 0, cpucap = 0, rc, lrc = sqlite3_step(ld);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (GROW(t->mv, &mvcap, t->nmv + 1))
            break;
        struct event_move *mv = &t->mv[t->nmv++];
        mv->ts = sqlite3_column_int64(st, 0);
        mv->utid = (int)sqlite3_column_int64(st, 1);
        mv->src = (int)sqlite3_column_int64(st, 2);
        mv->dst = (int)sqlite3_column_int64(st, 3);
        mv->reason = event_migrate_parse((const char *)sqlite3_column_text(st, 4));
        mv->queued = sqlite3_column_int64(st, 5) != 0;
        mv->first = t->nmvcpu;
        mv->n = 0;
        /* loads of moves before this one (a row without its move) are passed */
        while (lrc == SQLITE_ROW && (sqlite3_column_int64(ld, 0) < mv->ts ||
                                     (sqlite3_column_int64(ld, 0) == mv->ts && sqlite3_column_int64(ld, 1) < mv->utid)))
            lrc = sqlite3_step(ld);
        while (lrc == SQLITE_ROW && sqlite3_column_int64(ld, 0) == mv->ts && sqlite3_column_int64(ld, 1) == mv->utid) {
            if (GROW(t->mvcpu, &cpucap, t->nmvcpu + 1))
                break;
            struct event_move_cpu *c = &t->mvcpu[t->nmvcpu];
            /* by CPU, one row a CPU: a row out of that order (two moves of
             * one task at one ts) is not this move's */
            if (sqlite3_column_int64(ld, 2) == mv->n) {
                c->nr = (int)sqlite3_column_int64(ld, 3);
                c->running = sqlite3_column_int64(ld, 4) != 0;
                c->load = sqlite3_column_int64(ld, 5);
                t->nmvcpu++;
                mv->n++;
            }
            lrc = sqlite3_step(ld);
        }
    }
    if (rc == SQLITE_ROW) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else {
        rc = read_end(db, rc, "migration", err, errlen);
    }
    if (!rc && lrc != SQLITE_ROW)
        rc = read_end(db, lrc, "migration_load", err, errlen);
    sqlite3_finalize(st);
    sqlite3_finalize(ld);
    return rc;
}

const struct event_move *events_move_of(const struct events *t, int utid, int64_t ts)
{
    int lo = 0, hi = t->nmv; /* first move after ts */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (t->mv[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo - 1; i >= 0; i--)
        if (t->mv[i].utid == utid)
            return &t->mv[i];
    return NULL;
}

int events_load(struct events *t, sqlite3 *db, int64_t trace_id, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    sqlite3_stmt *st;
    char sql[512];
    /* trace.engine from schema 9; before it, every trace was the kernel's */
    bool has_engine = has_column(db, "trace", "engine");
    snprintf(sql, sizeof sql,
             "SELECT trace_id, coalesce(policy,''), ncpus, tick_hz, start_ts, end_ts, %s FROM trace "
             "WHERE trace_id = ?1 OR (?1 = 0 AND trace_id = (SELECT max(trace_id) FROM trace))",
             has_engine ? "coalesce(engine,'runq-kernel'), coalesce(engine_version,'')" : "'runq-kernel', ''");
    if (prep(db, sql, trace_id, &st, err, errlen))
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE)
            read_end(db, rc, "trace", err, errlen);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return -1;
        if (trace_id)
            snprintf(err, errlen, "no trace %lld in the database", (long long)trace_id);
        else
            snprintf(err, errlen, "the database holds no trace");
        return -1;
    }
    t->trace_id = sqlite3_column_int64(st, 0);
    snprintf(t->policy, sizeof t->policy, "%s", (const char *)sqlite3_column_text(st, 1));
    t->ncpus = (int)sqlite3_column_int64(st, 2);
    t->tick_hz = (int)sqlite3_column_int64(st, 3);
    t->start_ts = sqlite3_column_int64(st, 4);
    t->end_ts = sqlite3_column_int64(st, 5);
    snprintf(t->engine, sizeof t->engine, "%s", (const char *)sqlite3_column_text(st, 6));
    snprintf(t->engine_version, sizeof t->engine_version, "%s", (const char *)sqlite3_column_text(st, 7));
    sqlite3_finalize(st);
    t->eevdf = strcmp(t->policy, "eevdf") == 0;
    /* Whatever the database says, a trace has at most the format's CPUs:
     * a number beyond them (a file edited, or not runq's) would size every
     * per-CPU array of runq step. */
    if (t->ncpus < 0 || t->ncpus > (int)TRACE_MAX_CPUS) {
        snprintf(err, errlen, "trace %lld says it has %d CPUs; a runq trace has 1 to %u: the database is damaged",
                 (long long)t->trace_id, t->ncpus, TRACE_MAX_CPUS);
        return -1;
    }

    int thcap = 0;
    if (prep(db, "SELECT utid, tid, coalesce(name,''), coalesce(cpu,0), coalesce(nice,0), is_idle, "
                 "coalesce(slice_ns,0) FROM thread WHERE trace_id = ?1 ORDER BY utid",
             t->trace_id, &st, err, errlen))
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (GROW(t->th, &thcap, t->nth + 1))
            break;
        struct event_thread *th = &t->th[t->nth++];
        th->utid = (int)sqlite3_column_int64(st, 0);
        th->tid = (int)sqlite3_column_int64(st, 1);
        snprintf(th->name, sizeof th->name, "%s", (const char *)sqlite3_column_text(st, 2));
        th->cpu = (int)sqlite3_column_int64(st, 3);
        th->nice = (int)sqlite3_column_int64(st, 4);
        th->is_idle = sqlite3_column_int64(st, 5) != 0;
        th->slice_ns = sqlite3_column_int64(st, 6);
        if (th->cpu < 0 || th->cpu >= (int)TRACE_MAX_CPUS)
            th->cpu = 0; /* not a CPU a trace can have: its home is unknown */
        if (th->cpu + 1 > t->ncpus)
            t->ncpus = th->cpu + 1;
    }
    if (rc == SQLITE_ROW) /* left the loop for want of memory */
        snprintf(err, errlen, "out of memory");
    rc = rc == SQLITE_ROW ? -1 : read_end(db, rc, "thread", err, errlen);
    sqlite3_finalize(st);
    if (rc)
        return -1;

    struct event_schema sch;
    event_schema_read(db, &sch);
    int evcap = 0, kfcap = 0;
    for (int k = 0; k < EVENT_NKINDS; k++)
        if (load_kind(t, db, (enum event_kind)k, &sch, &evcap, &kfcap, err, errlen))
            return -1;
    /* Events on a CPU no trace can have are not events of this one. */
    int kept = 0;
    for (int i = 0; i < t->nev; i++) {
        if (t->ev[i].cpu >= (int)TRACE_MAX_CPUS || t->ev[i].cpu < -1) {
            if (t->ev[i].kind == EVENT_SET)
                free((void *)t->ev[i].set.name);
            else if (t->ev[i].kind == EVENT_MARK)
                free((void *)t->ev[i].mark.name);
            t->bad_cpu++;
            continue;
        }
        t->ev[kept++] = t->ev[i];
    }
    t->nev = kept;
    for (int i = 0; i < t->nev; i++)
        if (t->ev[i].cpu >= t->ncpus)
            t->ncpus = t->ev[i].cpu + 1;
    if (t->ncpus < 1)
        t->ncpus = 1;
    /* every per-CPU array of a replay is this long: each CPU above was
     * checked against TRACE_MAX_CPUS */
    BUG_ON(t->ncpus > (int)TRACE_MAX_CPUS);
    if (t->nev > 1) /* no events: ev is NULL, and qsort's base must not be */
        qsort(t->ev, (size_t)t->nev, sizeof *t->ev, ev_cmp);
    stamp_slices(t);
    return load_moves(t, db, err, errlen);
}

void events_free(struct events *t)
{
    for (int i = 0; i < t->nev; i++) {
        if (t->ev[i].kind == EVENT_SET)
            free((void *)t->ev[i].set.name);
        else if (t->ev[i].kind == EVENT_MARK)
            free((void *)t->ev[i].mark.name);
    }
    free(t->ev);
    free(t->kf);
    free(t->th);
    free(t->mv);
    free(t->mvcpu);
    memset(t, 0, sizeof *t);
}

const struct event_thread *events_thread(const struct events *t, int utid)
{
    int lo = 0, hi = t->nth - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (t->th[mid].utid == utid)
            return &t->th[mid];
        if (t->th[mid].utid < utid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

int events_find_ts(const struct events *t, int64_t ts)
{
    int lo = 0, hi = t->nev;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (t->ev[mid].ts < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- queries ---- */

/* The kind's reason of e, or -1 when its kind has none. */
static int reason_of(const struct event *e)
{
    switch (e->kind) {
    case EVENT_LEAVE: return (int)e->leave.reason;
    case EVENT_JOIN: return (int)e->join.reason;
    case EVENT_PICK: return (int)e->pick.why;
    case EVENT_SET: return (int)e->set.what;
    default: return -1;
    }
}

static int reason_parse(enum event_kind k, const char *name)
{
    switch (k) {
    case EVENT_LEAVE: return event_leave_parse(name) < TRACE_LEAVE_NR ? (int)event_leave_parse(name) : -1;
    case EVENT_JOIN: return event_join_parse(name) < TRACE_JOIN_NR ? (int)event_join_parse(name) : -1;
    case EVENT_PICK: return event_why_parse(name) < TRACE_WHY_NR ? (int)event_why_parse(name) : -1;
    case EVENT_SET: return event_set_parse(name) < TRACE_SET_NR ? (int)event_set_parse(name) : -1;
    default: return -1;
    }
}

int event_query_parse(const char *text, struct event_query *q, char *err, size_t errlen)
{
    *q = (struct event_query){ .kind = EVENT_NKINDS, .reason = -1, .cpu = -1 };
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(w, '=');
        if (q->kind == EVENT_NKINDS) {
            q->kind = event_kind_parse(w);
            if (q->kind == EVENT_NKINDS) {
                snprintf(err, errlen, "'%s' is not an event kind (KEYFRAME WAKE JOIN TICK LEAVE PICK SET MARK)", w);
                return -1;
            }
        } else if (eq && !strncmp(w, "reason=", 7)) {
            q->reason = reason_parse(q->kind, eq + 1);
            if (q->reason < 0) {
                snprintf(err, errlen, "'%s' is not a reason of %s", eq + 1, event_kind_name(q->kind));
                return -1;
            }
        } else if (eq && !strncmp(w, "task=", 5)) {
            snprintf(q->task, sizeof q->task, "%s", eq + 1);
        } else if (eq && !strncmp(w, "cpu=", 4)) {
            char *end;
            long c = strtol(eq + 1, &end, 10);
            if (end == eq + 1 || *end || c < 0) {
                snprintf(err, errlen, "cpu=N: a CPU number, not '%s'", eq + 1);
                return -1;
            }
            q->cpu = (int)c;
        } else {
            snprintf(err, errlen, "'%s': expected reason=NAME, task=NAME or cpu=N", w);
            return -1;
        }
    }
    if (q->kind == EVENT_NKINDS) {
        snprintf(err, errlen, "an event kind first (KEYFRAME WAKE JOIN TICK LEAVE PICK SET MARK)");
        return -1;
    }
    return 0;
}

int events_find(const struct events *t, int from, const struct event_query *q)
{
    for (int i = from < 0 ? 0 : from; i < t->nev; i++) {
        const struct event *e = &t->ev[i];
        if (e->kind != q->kind || (q->reason >= 0 && reason_of(e) != q->reason) ||
            (q->cpu >= 0 && e->cpu != q->cpu))
            continue;
        if (q->task[0]) {
            const struct event_thread *th = events_thread(t, event_task(e));
            if (!th || strcmp(th->name, q->task))
                continue;
        }
        return i;
    }
    return -1;
}

int events_find_mark(const struct events *t, int from, const char *name)
{
    for (int i = from < 0 ? 0 : from; i < t->nev; i++)
        if (t->ev[i].kind == EVENT_MARK && !strcmp(t->ev[i].mark.name, name))
            return i;
    return -1;
}
