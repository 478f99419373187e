/*
 * `runq top`'s reader (contract in qx_top.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bug.h"
#include "db/qx_top.h"
#include "db/readable.h"
#include "db/recorder_lock.h"

#define T_NR DBQ_TOP_NTABLES
#define TBL_KIND(k) ((enum event_kind)((k) - 1))
_Static_assert(TBL_KIND(DBQ_TOP_SNAP) == EVENT_KEYFRAME && TBL_KIND(DBQ_TOP_WAKE) == EVENT_WAKE &&
                   TBL_KIND(DBQ_TOP_PLACE) == EVENT_JOIN && TBL_KIND(DBQ_TOP_TICK) == EVENT_TICK &&
                   TBL_KIND(DBQ_TOP_LEAVE) == EVENT_LEAVE && TBL_KIND(DBQ_TOP_PICK) == EVENT_PICK &&
                   TBL_KIND(DBQ_TOP_SET) == EVENT_SET && TBL_KIND(DBQ_TOP_MARK) == EVENT_MARK &&
                   DBQ_TOP_BOUNCE == EVENT_NKINDS + 1,
               "the event tables follow enum event_kind");

/* Column 0 is the rowid, column 1 the time the row became true (its
 * arrival), then an event table's columns as db/events.h reads them (its
 * brief ones: each column read costs, and a live view is mostly SQLite
 * stepping rows, make bench) or a gap's or a bounce's. */
static const char *const tbl_time[T_NR] = {
    [DBQ_TOP_GAP] = "ts_end",  [DBQ_TOP_SNAP] = "ts", [DBQ_TOP_WAKE] = "COALESCE(ts_run, ts_wake)",
    [DBQ_TOP_PLACE] = "ts",    [DBQ_TOP_TICK] = "ts", [DBQ_TOP_LEAVE] = "ts",
    [DBQ_TOP_PICK] = "ts",     [DBQ_TOP_SET] = "ts",  [DBQ_TOP_MARK] = "ts",
    [DBQ_TOP_BOUNCE] = "COALESCE(ts_run, ts_bounce)", [DBQ_TOP_MOVE] = "ts",
};

static const char *tbl_name(enum dbq_top_table k)
{
    return k == DBQ_TOP_GAP      ? "data_gap"
           : k == DBQ_TOP_BOUNCE ? "bounce"
           : k == DBQ_TOP_MOVE   ? "migration"
                                 : event_table(TBL_KIND(k));
}

#define TOP_MAX_COLS 16

/* Tables read in one pass each even when a gap is ahead (read_tables):
 * every effect of their rows is a newer-wins update or a count. */
static const bool tbl_order_free[T_NR] = {
    [DBQ_TOP_WAKE] = true, [DBQ_TOP_PLACE] = true, [DBQ_TOP_TICK] = true, [DBQ_TOP_LEAVE] = true,
    [DBQ_TOP_BOUNCE] = true, [DBQ_TOP_MOVE] = true,
};

struct dbq_top {
    sqlite3 *db;
    int64_t trace_id;
    bool has_bounce;  /* the database has table bounce (schema 8) */
    bool has_move;    /* the database has table migration (schema 12) */
    bool moves_known; /* dbq_top_moves_known */
    bool has_engine;  /* trace.engine (schema 9) */
    bool has_control; /* trace.control */
    sqlite3_stmt *st[T_NR], *st_sink[T_NR], *st_max[T_NR], *st_probe[T_NR], *st_gap_ahead, *st_trace, *st_thread,
        *st_stats, *st_settings, *st_costs;
    char cols[T_NR][256]; /* what each table's reads select after rowid and time */
    int ncols[T_NR];
    int64_t cur[T_NR];
    int64_t cost_cur; /* dbq_top_costs's cursor: the rowid of the last row it consumed */
    /* where the one-step reads (runq_top_row) hand their rows */
    dbq_top_fn fn;
    void *arg;
    char fault[256];
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

/* sqlite3_step for every read: a result other than a row or the end is
 * kept in r->fault, the first one, naming the table. */
static int db_step(struct dbq_top *r, sqlite3_stmt *s, const char *table)
{
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE && !r->fault[0])
        snprintf(r->fault, sizeof r->fault, "reading %s: %s", table, sqlite3_errmsg(r->db));
    return rc;
}

int64_t dbq_top_trace_id(const struct dbq_top *r)
{
    return r->trace_id;
}

bool dbq_top_has_control(const struct dbq_top *r)
{
    return r->has_control;
}

bool dbq_top_moves_known(const struct dbq_top *r)
{
    return r->moves_known;
}

const char *dbq_top_fault(const struct dbq_top *r)
{
    return r->fault;
}

void dbq_top_fault_clear(struct dbq_top *r)
{
    r->fault[0] = 0;
}

void dbq_top_begin(struct dbq_top *r)
{
    sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL);
}

void dbq_top_end(struct dbq_top *r)
{
    sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
}

/* ---- a row ---- */

/* Row of table k at time ts: n values, as r->cols[k] selects them, to fn. */
static void hand_row(enum dbq_top_table k, sqlite3_value **v, int n, uint64_t ts, dbq_top_fn fn, void *arg)
{
    BUG_ON((unsigned)k >= T_NR || n > TOP_MAX_COLS); /* a table of ours, its columns as prepared */
    struct dbq_top_row row = { .table = k, .ts = ts };
    struct event e;
    struct event_kf_entry kf;
    if (k == DBQ_TOP_GAP) {
        row.cpu = sqlite3_value_int64(v[0]);
        row.gap_start = (uint64_t)sqlite3_value_int64(v[1]);
    } else if (k == DBQ_TOP_BOUNCE) {
        row.ran = n >= 2 && sqlite3_value_type(v[1]) != SQLITE_NULL; /* else not seen to run (yet) */
        row.utid = row.ran ? sqlite3_value_int64(v[0]) : 0;
        row.latency = row.ran ? (uint64_t)sqlite3_value_int64(v[1]) : 0;
    } else if (k == DBQ_TOP_MOVE) {
        BUG_ON(n != 4); /* prepare_table's columns */
        row.utid = sqlite3_value_int64(v[0]);
        row.src = sqlite3_value_int64(v[1]);
        row.dst = sqlite3_value_int64(v[2]);
        /* the text goes no further than this parse: a name of the
         * build's table, or none */
        row.reason = event_migrate_parse((const char *)sqlite3_value_text(v[3]));
    } else {
        event_decode(TBL_KIND(k), (int64_t)ts, 0, v, n, &e, &kf);
        row.e = &e;
        row.kf = &kf;
    }
    fn(&row, arg);
}

/* runq_top_row(k, time, columns...): one row of a table read in one
 * step, called by SQLite as it scans (sink_table). */
static void top_row_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct dbq_top *r = sqlite3_user_data(ctx);
    int k = sqlite3_value_int(argv[0]);
    if (argc < 2 || k < 0 || k >= T_NR || !r->fn)
        return;
    hand_row((enum dbq_top_table)k, argv + 2, argc - 2, (uint64_t)sqlite3_value_int64(argv[1]), r->fn, r->arg);
}

/* ---- the trace row, threads, settings ---- */

int dbq_top_trace(struct dbq_top *r, void (*fn)(const struct dbq_top_trace *t, void *arg), void *arg, char *err,
                  size_t errlen)
{
    sqlite3_stmt *s = r->st_trace;
    sqlite3_bind_int64(s, 1, r->trace_id);
    int rc = db_step(r, s, "trace");
    if (rc != SQLITE_ROW) {
        sqlite3_reset(s);
        if (rc == SQLITE_DONE)
            return 0;
        set_err(err, errlen, "%s%s", sqlite3_errmsg(r->db), "");
        return -1;
    }
    /* A typed row, read as the query layer reads every statement's: alike in
     * shape to the others, each its own columns. */
    struct dbq_top_trace t = {
        .status = (const char *)sqlite3_column_text(s, 0),
        .end_reason = (const char *)sqlite3_column_text(s, 1),
        .ncpus = sqlite3_column_int(s, 2),
        .tick_hz = sqlite3_column_int(s, 3),
        .policy = (const char *)sqlite3_column_text(s, 4),
        .features = (uint32_t)sqlite3_column_int64(s, 5),
        .feature_names = (const char *)sqlite3_column_text(s, 6),
        .start_ts = (uint64_t)sqlite3_column_int64(s, 7),
        .end_ts = (uint64_t)sqlite3_column_int64(s, 8),
        .records = (uint64_t)sqlite3_column_int64(s, 9),
        .engine = (const char *)sqlite3_column_text(s, 10),
        .engine_version = (const char *)sqlite3_column_text(s, 11),
        .control = r->has_control ? (const char *)sqlite3_column_text(s, 12) : NULL,
    };
    sqlite3_stmt *st = r->st_stats;
    sqlite3_bind_int64(st, 1, r->trace_id);
    while (db_step(r, st, "stats") == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(st, 0);
        uint64_t v = (uint64_t)sqlite3_column_int64(st, 1);
        if (!n)
            continue;
        if (!strcmp(n, "packets_lost"))
            t.packets_lost = v;
        else if (!strcmp(n, "records_dropped"))
            t.records_dropped = v;
        else if (!strcmp(n, "resyncs"))
            t.resyncs = v;
    }
    fn(&t, arg);
    sqlite3_reset(st);
    sqlite3_reset(s);
    return 1;
}

int dbq_top_threads(struct dbq_top *r, int64_t limit, bool (*fn)(const struct dbq_top_thread *t, void *arg),
                    void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = r->st_thread;
    sqlite3_bind_int64(s, 1, r->trace_id);
    sqlite3_bind_int64(s, 2, limit);
    int rc;
    while ((rc = db_step(r, s, "thread")) == SQLITE_ROW) {
        struct dbq_top_thread t = {
            .utid = sqlite3_column_int64(s, 0),
            .tid = sqlite3_column_int(s, 1),
            .name = (const char *)sqlite3_column_text(s, 2),
            .nice = sqlite3_column_int(s, 3),
            .slice_ns = sqlite3_column_int64(s, 4),
            .cpu = sqlite3_column_int(s, 5),
            .is_idle = sqlite3_column_int(s, 6) != 0,
            .start_ts = (uint64_t)sqlite3_column_int64(s, 7),
            .has_end = sqlite3_column_type(s, 8) != SQLITE_NULL,
            .end_ts = (uint64_t)sqlite3_column_int64(s, 8),
        };
        if (!fn(&t, arg))
            break;
    }
    if (rc != SQLITE_DONE)
        set_err(err, errlen, "%s%s", sqlite3_errmsg(r->db), "");
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

void dbq_top_settings_at(struct dbq_top *r, uint64_t from, void (*fn)(const struct dbq_top_setting *s, void *arg),
                         void *arg)
{
    sqlite3_stmt *s = r->st_settings;
    if (!s)
        return;
    sqlite3_bind_int64(s, 1, r->trace_id);
    sqlite3_bind_int64(s, 2, (int64_t)from);
    while (db_step(r, s, "sched_set") == SQLITE_ROW) {
        struct dbq_top_setting st = {
            .utid = sqlite3_column_int64(s, 0),
            .what = event_set_parse((const char *)sqlite3_column_text(s, 1)),
            .name = (const char *)sqlite3_column_text(s, 2),
            .has_value = sqlite3_column_type(s, 3) != SQLITE_NULL,
            .value = sqlite3_column_int64(s, 3),
        };
        fn(&st, arg);
    }
    sqlite3_reset(s);
}

/* ---- cursors ---- */

/* The cursor (a rowid after lo) before the first row of this trace at or
 * after time `from`: a binary search over rowids, which the recorder
 * assigns in time order. */
static int64_t seek_table(struct dbq_top *r, enum dbq_top_table k, int64_t lo, uint64_t from)
{
    int64_t hi = lo;
    if (!r->st_max[k])
        return lo; /* a table this database does not have */
    sqlite3_stmt *s = r->st_max[k];
    if (db_step(r, s, tbl_name(k)) == SQLITE_ROW)
        hi = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    /* The largest rowid r in [lo, hi] whose row is before (trace_id, from),
     * or lo. hi is the database's max(rowid), anything up to INT64_MAX
     * and maybe below lo, so hi stays inclusive (no hi + 1) and the midpoint
     * is taken in unsigned arithmetic, where the span cannot overflow. */
    s = r->st_probe[k];
    while (lo < hi) {
        uint64_t d = (uint64_t)hi - (uint64_t)lo;
        int64_t mid = (int64_t)((uint64_t)lo + (d - d / 2)); /* in (lo, hi] */
        sqlite3_bind_int64(s, 1, mid);
        bool before = false;
        if (db_step(r, s, tbl_name(k)) == SQLITE_ROW) {
            int64_t tid = sqlite3_column_int64(s, 0);
            uint64_t ts = (uint64_t)sqlite3_column_int64(s, 1);
            before = tid < r->trace_id || (tid == r->trace_id && ts < from);
        }
        sqlite3_reset(s);
        if (before)
            lo = mid;
        else
            hi = mid - 1; /* mid > lo, so no underflow */
    }
    return lo;
}

void dbq_top_seek(struct dbq_top *r, uint64_t from)
{
    for (int k = 0; k < T_NR; k++)
        r->cur[k] = seek_table(r, (enum dbq_top_table)k, 0, from);
}

/* Rowids follow time, so the walk back stops at the first match: at once
 * for a busy CPU, at the CPU's last record for an idle one. */
int64_t dbq_top_last_before(struct dbq_top *r, enum dbq_top_table k, int cpu)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT rowid FROM main.%s WHERE rowid <= ?1 AND +trace_id = ?2 AND +cpu = ?3 ORDER BY rowid DESC LIMIT 1",
             tbl_name(k));
    sqlite3_stmt *s;
    int64_t rowid = 0;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(s, 1, r->cur[k]);
    sqlite3_bind_int64(s, 2, r->trace_id);
    sqlite3_bind_int64(s, 3, cpu);
    if (db_step(r, s, tbl_name(k)) == SQLITE_ROW)
        rowid = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rowid;
}

/* A keyframe's rows are written together: at most one per entry plus
 * the idle task's, KF_MAX + 1, back from the one found. */
uint64_t dbq_top_row_at(struct dbq_top *r, enum dbq_top_table k, int64_t rowid, int cpu, dbq_top_fn fn, void *arg)
{
    char sql[512];
    int len = snprintf(sql, sizeof sql,
                       "SELECT %s, %s FROM main.%s WHERE rowid > ?1 - 128 AND rowid <= ?1 AND +trace_id = ?2 AND "
                       "cpu = ?3 AND %s = (SELECT %s FROM main.%s WHERE rowid = ?1) ORDER BY rowid",
                       tbl_time[k], r->cols[k], tbl_name(k), tbl_time[k], tbl_time[k], tbl_name(k));
    BUG_ON(len < 0 || (size_t)len >= sizeof sql); /* this file's names and columns: they fit */
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(s, 1, rowid);
    sqlite3_bind_int64(s, 2, r->trace_id);
    sqlite3_bind_int64(s, 3, cpu);
    uint64_t ts = 0;
    sqlite3_value *val[TOP_MAX_COLS];
    int n = sqlite3_column_count(s) - 1;
    if (n > TOP_MAX_COLS)
        n = TOP_MAX_COLS;
    while (db_step(r, s, tbl_name(k)) == SQLITE_ROW) {
        ts = (uint64_t)sqlite3_column_int64(s, 0);
        for (int i = 0; i < n; i++)
            val[i] = sqlite3_column_value(s, 1 + i);
        hand_row(k, val, n, ts, fn, arg);
    }
    sqlite3_finalize(s);
    return ts;
}

uint64_t dbq_top_gap_end(struct dbq_top *r, int64_t rowid)
{
    sqlite3_stmt *s;
    uint64_t end = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT ts_end FROM main.data_gap WHERE rowid = ?1", -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(s, 1, rowid);
    if (db_step(r, s, "data_gap") == SQLITE_ROW)
        end = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return end;
}

/* ---- an advance ---- */

/* Hands table k's rows up to time t to runq_top_row in one step: SQLite
 * calls it for every row, which skips the per-row return to C and the
 * column calls. */
static int sink_table(struct dbq_top *r, enum dbq_top_table k, uint64_t t, bool live, char *err, size_t errlen)
{
    /* the last rowid to read: all, or up to the first row past t */
    int64_t bound = -1;
    if (!r->st_sink[k])
        return 0; /* a table this database does not have (bounce before schema 8) */
    if (!live) /* a binary search, as at open: rows are in time order */
        bound = seek_table(r, k, r->cur[k], t + 1);
    if (bound < 0 || live) {
        db_step(r, r->st_max[k], tbl_name(k));
        bound = sqlite3_column_int64(r->st_max[k], 0);
        sqlite3_reset(r->st_max[k]);
    }
    if (bound <= r->cur[k])
        return 0;
    sqlite3_stmt *s = r->st_sink[k];
    sqlite3_bind_int64(s, 1, r->cur[k]);
    sqlite3_bind_int64(s, 2, r->trace_id);
    sqlite3_bind_int64(s, 3, bound);
    int rc = db_step(r, s, tbl_name(k));
    sqlite3_reset(s);
    if (rc != SQLITE_ROW) {
        set_err(err, errlen, "reading %s: %s", tbl_name(k), sqlite3_errmsg(r->db));
        return -1;
    }
    r->cur[k] = bound;
    return 0;
}

/* The tables read row by row (those not sunk), merged in time order. */
struct merge {
    bool sunk[T_NR];     /* read in one step by sink_table: not merged */
    int rc[T_NR];        /* each statement's last sqlite3_step */
    bool used[T_NR];     /* a row of it was consumed */
    uint64_t head[T_NR]; /* each table's next row's time, read once */
};

/* Hands the merged tables' rows up to time t, earliest first (ties: the
 * lower table). */
static void merge_rows(struct dbq_top *r, struct merge *mg, uint64_t t, dbq_top_fn fn, void *arg)
{
    sqlite3_value *val[T_NR][TOP_MAX_COLS];
    for (int k = 0; k < T_NR; k++) {
        if (mg->sunk[k]) {
            mg->rc[k] = SQLITE_DONE;
            continue;
        }
        sqlite3_bind_int64(r->st[k], 1, r->cur[k]);
        sqlite3_bind_int64(r->st[k], 2, r->trace_id);
        mg->rc[k] = db_step(r, r->st[k], tbl_name((enum dbq_top_table)k));
        mg->head[k] = mg->rc[k] == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(r->st[k], 1) : 0;
    }
    for (;;) {
        /* the earliest head (ties: the lower table) and the runner-up */
        int best = -1, next = -1;
        for (int k = 0; k < T_NR; k++) {
            if (mg->rc[k] != SQLITE_ROW)
                continue;
            if (best < 0 || mg->head[k] < mg->head[best]) {
                next = best;
                best = k;
            } else if (next < 0 || mg->head[k] < mg->head[next]) {
                next = k;
            }
        }
        if (best < 0 || mg->head[best] > t)
            break;
        /* Consume `best` while it stays ahead of the runner-up: runs of
         * one table need no new search. */
        sqlite3_stmt *s = r->st[best];
        mg->used[best] = true;
        do {
            for (int i = 0; i < r->ncols[best]; i++)
                val[best][i] = sqlite3_column_value(s, 2 + i);
            hand_row((enum dbq_top_table)best, val[best], r->ncols[best], mg->head[best], fn, arg);
            mg->rc[best] = db_step(r, s, tbl_name((enum dbq_top_table)best));
            if (mg->rc[best] != SQLITE_ROW)
                break;
            mg->head[best] = (uint64_t)sqlite3_column_int64(s, 1);
        } while (mg->head[best] <= t &&
                 (next < 0 || mg->head[best] < mg->head[next] ||
                  (mg->head[best] == mg->head[next] && best < next)));
    }
}

/* The cursors move once per advance, not once per row: to just before
 * the first row left unread (rows of other traces in between are skipped
 * anyway), or, all read, to the table's last row in this snapshot.
 * Returns 0, or -1 with the first failed table's reason in err. */
static int merge_end(struct dbq_top *r, struct merge *mg, char *err, size_t errlen)
{
    int bad = -1;
    for (int k = 0; k < T_NR; k++) {
        if (mg->sunk[k])
            continue;
        if (mg->rc[k] == SQLITE_ROW && mg->used[k]) {
            r->cur[k] = sqlite3_column_int64(r->st[k], 0) - 1;
        } else if (mg->rc[k] == SQLITE_DONE && mg->used[k]) {
            if (db_step(r, r->st_max[k], tbl_name((enum dbq_top_table)k)) == SQLITE_ROW)
                r->cur[k] = sqlite3_column_int64(r->st_max[k], 0);
            sqlite3_reset(r->st_max[k]);
        }
        if (mg->rc[k] != SQLITE_ROW && mg->rc[k] != SQLITE_DONE && bad < 0)
            bad = k;
        sqlite3_reset(r->st[k]);
    }
    if (bad >= 0) {
        set_err(err, errlen, "reading %s: %s", tbl_name((enum dbq_top_table)bad), sqlite3_errmsg(r->db));
        return -1;
    }
    return 0;
}

/*
 * Each table is read in one step, in the order below, which keeps ties as
 * enum dbq_top_table has them, keyframes after picks; while a gap is
 * ahead, picks, keyframes, settings and marks are merged with the gaps
 * row by row in time order.
 */
int dbq_top_advance(struct dbq_top *r, uint64_t t, bool live, dbq_top_fn fn, void *arg, char *err, size_t errlen)
{
    sqlite3_bind_int64(r->st_gap_ahead, 1, r->cur[DBQ_TOP_GAP]);
    sqlite3_bind_int64(r->st_gap_ahead, 2, r->trace_id);
    bool gap = db_step(r, r->st_gap_ahead, "data_gap") == SQLITE_ROW;
    sqlite3_reset(r->st_gap_ahead);
    static const enum dbq_top_table sink_order[] = { DBQ_TOP_WAKE, DBQ_TOP_BOUNCE, DBQ_TOP_PLACE,
                                                     DBQ_TOP_TICK, DBQ_TOP_LEAVE,  DBQ_TOP_PICK,
                                                     DBQ_TOP_SNAP, DBQ_TOP_SET,    DBQ_TOP_MARK,
                                                     DBQ_TOP_MOVE };
    struct merge mg = { .sunk = { false } };
    int rc = 0;
    BUG_ON(r->fn || !fn); /* not within another advance: runq_top_row hands rows to this one's fn */
    r->fn = fn;
    r->arg = arg;
    for (size_t i = 0; i < sizeof sink_order / sizeof sink_order[0] && !rc; i++) {
        enum dbq_top_table k = sink_order[i];
        if (!tbl_order_free[k] && gap)
            continue;
        rc = sink_table(r, k, t, live, err, errlen);
        mg.sunk[k] = true;
    }
    r->fn = NULL;
    r->arg = NULL;
    if (rc)
        return -1;
    merge_rows(r, &mg, t, fn, arg);
    return merge_end(r, &mg, err, errlen);
}

/* ---- open and close ---- */

static int prepare(struct dbq_top *r, const char *path, const char *sql, sqlite3_stmt **s, char *err,
                   size_t errlen)
{
    if (sqlite3_prepare_v2(r->db, sql, -1, s, NULL) == SQLITE_OK)
        return 0;
    set_err(err, errlen, "%s: not a runq trace database (%s)", path, sqlite3_errmsg(r->db));
    return -1;
}

/* Opens the database read-only, with runq_top_row and the recorder's
 * liveness (db/recorder_lock.h) registered. */
static int open_db(struct dbq_top *r, const char *path, char *err, size_t errlen)
{
    /* NOMUTEX: one thread uses the connection; a mutex per column read
     * was a tenth of the cost of following a busy recording. */
    int probe = recorder_probe_fd(path); /* before SQLite opens it: recorder_lock.h */
    if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        set_err(err, errlen, "%s: %s", path, r->db ? sqlite3_errmsg(r->db) : "cannot open");
        return -1;
    }
    sqlite3_busy_timeout(r->db, 2000);
    const char *why = db_unreadable_why(r->db);
    if (why) {
        set_err(err, errlen, "%s: %s", path, why);
        return -1;
    }
    if (sqlite3_create_function(r->db, "runq_top_row", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, r, top_row_fn, NULL,
                                NULL) != SQLITE_OK ||
        recorder_alive_sql(r->db, probe) != SQLITE_OK) {
        set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(r->db));
        return -1;
    }
    return 0;
}

/* A runq database has every table the model reads; the trace table's
 * control column is newer than some. */
static int check_schema(struct dbq_top *r, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    int ntables = 0;
    if (prepare(r, path,
                "SELECT COUNT(*) FROM main.sqlite_master WHERE type='table' AND name IN "
                "('trace','thread','stats','eevdf_pick','eevdf_place','eevdf_leave','sched_tick',"
                "'queue_snapshot','data_gap','wakeup','sched_set','mark')",
                &s, err, errlen) != 0)
        return -1;
    if (db_step(r, s, "sqlite_master") == SQLITE_ROW)
        ntables = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (ntables != 12) {
        set_err(err, errlen, "%s: not a runq trace database%s", path, "");
        return -1;
    }
    if (prepare(r, path, "SELECT 1 FROM pragma_table_info('trace') WHERE name='control'", &s, err, errlen) != 0)
        return -1;
    r->has_control = db_step(r, s, "trace") == SQLITE_ROW;
    sqlite3_finalize(s);
    if (prepare(r, path, "SELECT 1 FROM main.sqlite_master WHERE type='table' AND name='bounce'", &s, err,
                errlen) != 0)
        return -1;
    r->has_bounce = db_step(r, s, "sqlite_master") == SQLITE_ROW;
    sqlite3_finalize(s);
    if (prepare(r, path, "SELECT 1 FROM main.sqlite_master WHERE type='table' AND name='migration'", &s, err,
                errlen) != 0)
        return -1;
    r->has_move = db_step(r, s, "sqlite_master") == SQLITE_ROW;
    sqlite3_finalize(s);
    if (prepare(r, path, "SELECT 1 FROM pragma_table_info('trace') WHERE name='engine'", &s, err, errlen) != 0)
        return -1;
    r->has_engine = db_step(r, s, "trace") == SQLITE_ROW;
    sqlite3_finalize(s);
    return 0;
}

/* The trace to show: trace_id, or the newest when 0. */
static int choose_trace(struct dbq_top *r, const char *path, int64_t trace_id, char *err, size_t errlen)
{
    if (!trace_id) {
        sqlite3_stmt *s;
        if (prepare(r, path, "SELECT MAX(trace_id) FROM main.trace", &s, err, errlen) != 0)
            return -1;
        if (db_step(r, s, "trace") == SQLITE_ROW)
            trace_id = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        if (!trace_id) {
            set_err(err, errlen, "%s: no trace in this database yet%s", path, "");
            return -1;
        }
    }
    r->trace_id = trace_id;
    return 0;
}

/* Whether the trace records its moves (dbq_top_moves_known): asked
 * once, at open. */
static int check_moves(struct dbq_top *r, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    if (!r->has_move)
        return 0;
    if (prepare(r, path,
                "SELECT coalesce(format_version, 0) >= 5 OR EXISTS (SELECT 1 FROM main.migration m "
                "WHERE m.trace_id = ?1) FROM main.trace WHERE trace_id = ?1",
                &s, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(s, 1, r->trace_id);
    r->moves_known = db_step(r, s, "migration") == SQLITE_ROW && sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return 0;
}

/* Table k's statements: its columns, the one-step read (dbq_top_advance)
 * or the row-by-row one, its last rowid and the probe seek_table uses. */
static int prepare_table(struct dbq_top *r, const char *path, enum dbq_top_table k, const struct event_schema *sch,
                         char *err, size_t errlen)
{
    char sql[1024];
    /* +trace_id: never the (trace_id, ...) indexes a finished trace
     * has, which would sort the whole trace by rowid every update. */
    if ((k == DBQ_TOP_BOUNCE && !r->has_bounce) || (k == DBQ_TOP_MOVE && !r->has_move))
        return 0;
    if (k == DBQ_TOP_GAP)
        snprintf(r->cols[k], sizeof r->cols[k], "cpu, ts_start");
    else if (k == DBQ_TOP_BOUNCE)
        snprintf(r->cols[k], sizeof r->cols[k], "utid, latency");
    else if (k == DBQ_TOP_MOVE)
        snprintf(r->cols[k], sizeof r->cols[k], "utid, src_cpu, dst_cpu, reason");
    else
        event_columns(TBL_KIND(k), false, sch, r->cols[k], sizeof r->cols[k]);
    const char *cols = r->cols[k];
    if (k != DBQ_TOP_GAP) { /* read in one step (dbq_top_advance) */
        snprintf(sql, sizeof sql, "SELECT count(runq_top_row(%d, %s, %s)) FROM main.%s "
                 "WHERE rowid > ?1 AND rowid <= ?3 AND +trace_id = ?2",
                 k, tbl_time[k], cols, tbl_name(k));
        if (prepare(r, path, sql, &r->st_sink[k], err, errlen) != 0)
            return -1;
    }
    if (!tbl_order_free[k]) { /* or merged row by row */
        snprintf(sql, sizeof sql, "SELECT rowid, %s, %s FROM main.%s WHERE rowid > ?1 AND +trace_id = ?2 "
                 "ORDER BY rowid", tbl_time[k], cols, tbl_name(k));
        if (prepare(r, path, sql, &r->st[k], err, errlen) != 0)
            return -1;
        r->ncols[k] = sqlite3_column_count(r->st[k]) - 2;
        /* merge_rows holds a row's values in TOP_MAX_COLS: the columns
         * are cols, this file's (db/events.h's brief ones) */
        BUG_ON(r->ncols[k] < 0 || r->ncols[k] > TOP_MAX_COLS);
    }

    snprintf(sql, sizeof sql, "SELECT MAX(rowid) FROM main.%s", tbl_name(k));
    if (prepare(r, path, sql, &r->st_max[k], err, errlen) != 0)
        return -1;
    snprintf(sql, sizeof sql, "SELECT trace_id, %s FROM main.%s WHERE rowid >= ? ORDER BY rowid LIMIT 1",
             tbl_time[k], tbl_name(k));
    return prepare(r, path, sql, &r->st_probe[k], err, errlen);
}

/* Every statement an update runs. */
static int prepare_statements(struct dbq_top *r, const char *path, char *err, size_t errlen)
{
    struct event_schema sch; /* the columns a database of its version has */
    event_schema_read(r->db, &sch);
    char sql[1024];
    /* A trace whose recorder is gone is no longer live, and its control
     * socket has nobody behind it (db/recorder_lock.h). */
    snprintf(sql, sizeof sql,
             "SELECT " RECORDER_STATUS_SQL ", " RECORDER_END_REASON_SQL ", ncpus, tick_hz, policy, features, "
             "feature_names, start_ts, end_ts, records, %s%s FROM main.trace WHERE trace_id=?",
             r->has_engine ? "coalesce(engine, 'runq-kernel'), coalesce(engine_version, '')" : "'runq-kernel', ''",
             r->has_control ? ", " RECORDER_CONTROL_SQL : "");
    if (prepare(r, path, sql, &r->st_trace, err, errlen) != 0 ||
        prepare(r, path,
                "SELECT utid, tid, name, nice, slice_ns, cpu, is_idle, start_ts, end_ts FROM main.thread "
                "WHERE trace_id=?1 ORDER BY utid LIMIT ?2",
                &r->st_thread, err, errlen) != 0 ||
        prepare(r, path,
                "SELECT name, SUM(value) FROM main.stats WHERE trace_id=? AND idx IS NULL AND name IN "
                "('packets_lost','records_dropped','resyncs') GROUP BY name",
                &r->st_stats, err, errlen) != 0 ||
        /* a COUNTERS record's values are stored one row each, in a run
         * (db/ingest.c): the three rows of a reading are consecutive */
        prepare(r, path,
                "SELECT rowid, ts, cpu, name, value FROM main.counter WHERE rowid > ?1 AND +trace_id = ?2 "
                "AND name IN ('trace_records', 'trace_timed', 'trace_timed_ns') ORDER BY rowid",
                &r->st_costs, err, errlen) != 0)
        return -1;
    for (int k = 0; k < T_NR; k++)
        if (prepare_table(r, path, (enum dbq_top_table)k, &sch, err, errlen) != 0)
            return -1;
    /* read once, at open (dbq_top_settings_at): a database it does not
     * prepare on has no settings to rewind */
    if (sqlite3_prepare_v2(r->db,
                           "SELECT utid, what, name, CASE WHEN ts >= ?2 THEN old_value ELSE new_value END FROM "
                           "main.sched_set WHERE trace_id=?1 AND (ts>=?2 OR what IN ('knob', 'feature')) "
                           "ORDER BY ts >= ?2, CASE WHEN ts >= ?2 THEN -ts ELSE ts END, "
                           "CASE WHEN ts >= ?2 THEN -rowid ELSE rowid END",
                           -1, &r->st_settings, NULL) != SQLITE_OK)
        r->st_settings = NULL;
    return prepare(r, path, "SELECT 1 FROM main.data_gap WHERE rowid > ?1 AND +trace_id = ?2 LIMIT 1",
                   &r->st_gap_ahead, err, errlen);
}

struct dbq_top *dbq_top_open(const char *path, int64_t trace_id, char *err, size_t errlen)
{
    struct dbq_top *r = calloc(1, sizeof *r);
    if (!r) {
        set_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    if (open_db(r, path, err, errlen) != 0 || check_schema(r, path, err, errlen) != 0 ||
        choose_trace(r, path, trace_id, err, errlen) != 0 ||
        check_moves(r, path, err, errlen) != 0 || prepare_statements(r, path, err, errlen) != 0 ||
        r->fault[0]) {
        if (r->fault[0]) /* the read that failed first, whatever it led to */
            set_err(err, errlen, "%s: %s", path, r->fault);
        dbq_top_close(r);
        return NULL;
    }
    return r;
}

void dbq_top_close(struct dbq_top *r)
{
    if (!r)
        return;
    for (int k = 0; k < T_NR; k++) {
        sqlite3_finalize(r->st[k]);
        sqlite3_finalize(r->st_max[k]);
        sqlite3_finalize(r->st_probe[k]);
        sqlite3_finalize(r->st_sink[k]);
    }
    sqlite3_finalize(r->st_trace);
    sqlite3_finalize(r->st_gap_ahead);
    sqlite3_finalize(r->st_thread);
    sqlite3_finalize(r->st_stats);
    sqlite3_finalize(r->st_settings);
    sqlite3_finalize(r->st_costs);
    sqlite3_close(r->db);
    free(r);
}

int dbq_top_costs(struct dbq_top *r, uint64_t t, void (*fn)(const struct dbq_top_cost *c, void *arg), void *arg,
                  char *err, size_t errlen)
{
    sqlite3_stmt *s = r->st_costs;
    struct dbq_top_cost c = { .cpu = -1 };
    unsigned have = 0; /* bits: records, timed, timed_ns of the reading c */
    int rc;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, r->cost_cur);
    sqlite3_bind_int64(s, 2, r->trace_id);
    while ((rc = db_step(r, s, "counter")) == SQLITE_ROW) {
        int64_t rowid = sqlite3_column_int64(s, 0);
        uint64_t ts = (uint64_t)sqlite3_column_int64(s, 1);
        int cpu = sqlite3_column_int(s, 2);
        const char *name = (const char *)sqlite3_column_text(s, 3);
        uint64_t v = (uint64_t)sqlite3_column_int64(s, 4);
        if (ts > t)
            break; /* later than the view: read at a later call */
        if (ts != c.ts || cpu != c.cpu) { /* another reading begins */
            c = (struct dbq_top_cost){ .cpu = cpu, .ts = ts };
            have = 0;
        }
        BUG_ON(!name); /* NOT NULL in the schema, and the IN above */
        unsigned bit = strcmp(name, "trace_records") == 0 ? 1u : strcmp(name, "trace_timed") == 0 ? 2u : 4u;
        *(bit == 1 ? &c.records : bit == 2 ? &c.timed : &c.timed_ns) = v;
        have |= bit;
        if (have == 7) {
            fn(&c, arg);
            have = 0;
            c.cpu = -1;
            r->cost_cur = rowid; /* only past whole readings: one the snapshot cut is read again */
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        set_err(err, errlen, "%s%s", r->fault, "");
        return -1;
    }
    return 0;
}
