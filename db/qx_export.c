/*
 * The export's reads (contract in qx_export.h): the trace's threads and
 * head, the check that its slices make a schedule, and its rows, one
 * statement a kind, each in time order, merged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/qx_export.h"
#include "db/q_rows.h"
#include "host/base/xalloc.h"

static bool null_at(sqlite3_stmt *s, int c)
{
    return sqlite3_column_type(s, c) == SQLITE_NULL;
}

static int64_t col(sqlite3_stmt *s, int c)
{
    return sqlite3_column_int64(s, c);
}

int dbq_export_experiment_traces(sqlite3 *db, int64_t id, bool *found, int64_t **ids, size_t *n, char *err,
                                 size_t errlen)
{
    /* one row more than the traces, so that an experiment with none still
     * says whether it exists */
    static const char sql[] =
        "SELECT (SELECT COUNT(*) FROM main.experiment WHERE experiment_id = ?1), trace_id "
        "FROM (SELECT NULL AS trace_id UNION ALL SELECT DISTINCT trace_id FROM main.scenario "
        "WHERE experiment_id = ?1 AND trace_id IS NOT NULL) ORDER BY trace_id";
    sqlite3_stmt *s;
    BUG_ON(!db || !found || !ids || !n); /* the caller's answers */
    *found = false;
    *ids = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s (is it a runq database?)", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(s, 1, id);
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        *found = sqlite3_column_int(s, 0) != 0;
        if (null_at(s, 1))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *ids = xreallocarray(*ids, cap, sizeof **ids);
        }
        (*ids)[(*n)++] = col(s, 1);
    }
    int out = rc == SQLITE_DONE ? 0 : dbq_fail(db, err, errlen);
    sqlite3_finalize(s);
    if (out) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return out;
}

bool dbq_export_trace_exists(sqlite3 *db, int64_t id)
{
    sqlite3_stmt *s;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.trace WHERE trace_id = ?1", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, id);
        found = sqlite3_step(s) == SQLITE_ROW;
    }
    sqlite3_finalize(s);
    return found;
}

int dbq_export_threads(sqlite3 *db, int64_t trace, bool (*fn)(const struct dbq_export_thread *t, void *arg),
                       void *arg, char *err, size_t errlen)
{
    static const char sql[] = "SELECT utid, tid, is_idle, COALESCE(nice, 0), name FROM main.thread "
                              "WHERE trace_id = ?1 ORDER BY utid";
    sqlite3_stmt *s = dbq_prepare(db, sql, DBQ_ARGS(DBQ_INT(trace)), err, errlen);
    struct dbq_rows q = { .s = s };
    while (dbq_next(&q)) {
        struct dbq_export_thread t = {
            .name = (const char *)sqlite3_column_text(s, 4),
            .utid = col(s, 0),
            .tid = col(s, 1),
            .idle = sqlite3_column_int(s, 2) != 0,
            .nice = col(s, 3),
        };
        if (!fn(&t, arg))
            break;
    }
    return dbq_rows_end(db, &q, err, errlen);
}

static char *dup_text(sqlite3_stmt *s, int c)
{
    const char *t = (const char *)sqlite3_column_text(s, c);
    return t && *t ? xstrdup(t) : NULL;
}

static void read_head(sqlite3_stmt *s, void *out)
{
    struct dbq_export_head *h = out;
    h->policy = dup_text(s, 0);
    h->engine = dup_text(s, 1);
    h->ncpus = col(s, 2);
}

int dbq_export_head(sqlite3 *db, int64_t trace, struct dbq_export_head *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    sqlite3_stmt *s = dbq_prepare(db, "SELECT policy, engine, ncpus FROM main.trace WHERE trace_id = ?1",
                                  DBQ_ARGS(DBQ_INT(trace)), err, errlen);
    if (dbq_one(db, s, read_head, h, err, errlen) >= 0)
        return 0;
    dbq_export_head_free(h);
    return -1;
}

void dbq_export_head_free(struct dbq_export_head *h)
{
    free(h->policy);
    free(h->engine);
    memset(h, 0, sizeof *h);
}

/* The row's two integers into out, an int64_t[2]. */
static void read_pair(sqlite3_stmt *s, void *out)
{
    int64_t *v = out;
    v[0] = col(s, 0);
    v[1] = col(s, 1);
}

int dbq_export_overlap(sqlite3 *db, int64_t trace, int64_t *cpu, int64_t *ts, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT cpu, ts FROM (SELECT cpu, ts, LAG(ts + dur) OVER (PARTITION BY cpu ORDER BY ts, id) AS prev_end "
        "FROM main.sched_slice WHERE trace_id = ?1) WHERE ts < prev_end ORDER BY ts LIMIT 1";
    int64_t at[2];
    sqlite3_stmt *s = dbq_prepare(db, sql, DBQ_ARGS(DBQ_INT(trace)), err, errlen);
    int found = dbq_one(db, s, read_pair, at, err, errlen);
    if (found == 1) {
        *cpu = at[0];
        *ts = at[1];
    }
    return found;
}

/* ---- the rows ---- */

/* Each kind's statement, in enum dbq_export_kind's order: ?1 the trace;
 * column 0 the time, 1 the CPU, then the kind's own (decode). */
static const char *const kind_sql[DBQ_EXPORT_NKINDS] = {
    /* ts_wake, the waker's CPU, waker, wakee, the wakee's CPU */
    [DBQ_EXPORT_WAKE] =
        "SELECT ts_wake, COALESCE(waker_cpu, cpu, 0), waker, utid, COALESCE(cpu, waker_cpu, 0) FROM main.wakeup "
        "WHERE trace_id = ?1 ORDER BY ts_wake, id",
    /* ts, cpu, from (enum dbq_export_side: the slice before; idle, the
     * CPU's first slice; no data, after a hole), prev utid, prev
     * end_state, prev priority, to (the slice's task; idle, the CPU's last
     * slice ended; no data, a hole follows), next utid, next priority, and
     * the switch's place among the CPU's switches */
    [DBQ_EXPORT_SWITCH] =
        "WITH s AS (SELECT id, ts, dur, cpu, utid, end_state, priority, "
        "  LAG(ts + dur) OVER w AS prev_end, LAG(utid) OVER w AS prev_utid, LAG(end_state) OVER w AS prev_state, "
        "  LAG(priority) OVER w AS prev_prio, LEAD(ts) OVER w AS next_ts, ROW_NUMBER() OVER w AS rn "
        "  FROM main.sched_slice WHERE trace_id = ?1 WINDOW w AS (PARTITION BY cpu ORDER BY ts, id)) "
        "SELECT ts, cpu, CASE WHEN prev_end IS NULL THEN 1 WHEN prev_end = ts THEN 0 ELSE 2 END, "
        "  prev_utid, prev_state, prev_prio, 0, utid, priority, 2 * rn FROM s "
        "UNION ALL "
        "SELECT ts + dur, cpu, 0, utid, end_state, priority, CASE WHEN next_ts IS NULL THEN 1 ELSE 2 END, "
        "  NULL, NULL, 2 * rn + 1 FROM s WHERE next_ts IS NULL OR next_ts > ts + dur "
        "ORDER BY 1, 2, 10",
    /* ts, cpu, V: every row that stored V; at one time, in the order
     * pick, place, leave, tick */
    [DBQ_EXPORT_V] =
        "SELECT ts, cpu, v FROM ("
        " SELECT ts, cpu, v, 0 AS src, id AS k FROM main.eevdf_pick WHERE trace_id = ?1 AND v IS NOT NULL"
        " UNION ALL SELECT ts, cpu, v, 1, id FROM main.eevdf_place WHERE trace_id = ?1 AND v IS NOT NULL"
        " UNION ALL SELECT ts, cpu, v, 2, id FROM main.eevdf_leave WHERE trace_id = ?1 AND v IS NOT NULL"
        " UNION ALL SELECT ts, cpu, v, 3, rowid FROM main.sched_tick WHERE trace_id = ?1 AND v IS NOT NULL) "
        "ORDER BY ts, src, k",
    /* ts, cpu, utid, lag, deadline, vruntime: a task's numbers at each
     * decision about it */
    [DBQ_EXPORT_TASK] =
        "SELECT ts, cpu, utid, lag, deadline, vruntime FROM ("
        " SELECT ts, cpu, next_utid AS utid, lag, deadline, vruntime, 0 AS src, id AS k FROM main.eevdf_pick"
        "  WHERE trace_id = ?1 AND next_utid IS NOT NULL"
        "  AND (lag IS NOT NULL OR deadline IS NOT NULL OR vruntime IS NOT NULL)"
        " UNION ALL SELECT ts, cpu, utid, lag_after, deadline, vruntime, 1, id FROM main.eevdf_place"
        "  WHERE trace_id = ?1 AND (lag_after IS NOT NULL OR deadline IS NOT NULL OR vruntime IS NOT NULL)"
        " UNION ALL SELECT ts, cpu, utid, lag, deadline, vruntime, 2, id FROM main.eevdf_leave"
        "  WHERE trace_id = ?1 AND (lag IS NOT NULL OR deadline IS NOT NULL OR vruntime IS NOT NULL)) "
        "ORDER BY ts, src, k",
    /* ts, cpu, 0 begin / 1 end, packets lost, records dropped, records
     * late (NULL: not known), and the order on the CPU: a gap's end
     * before the next gap's begin at the same time */
    [DBQ_EXPORT_GAP] =
        "WITH g AS (SELECT cpu, COALESCE(ts_start, ts_end) AS t0, COALESCE(ts_end, ts_start) AS t1,"
        "  packets_lost, records_dropped, records_late,"
        "  ROW_NUMBER() OVER (PARTITION BY cpu ORDER BY COALESCE(ts_start, ts_end), rowid) AS rn"
        "  FROM main.data_gap WHERE trace_id = ?1 AND COALESCE(ts_start, ts_end) IS NOT NULL) "
        "SELECT t0, cpu, 0, packets_lost, records_dropped, records_late, 2 * rn FROM g "
        "UNION ALL SELECT t1, cpu, 1, NULL, NULL, NULL, 2 * rn + 1 FROM g "
        "ORDER BY 1, 2, 7",
    /* ts, cpu (a stream-wide mark on CPU 0), name */
    [DBQ_EXPORT_MARK] = "SELECT ts, COALESCE(cpu, 0), name FROM main.mark WHERE trace_id = ?1 ORDER BY ts, rowid",
};
_Static_assert(DBQ_EXPORT_SLICE == 0 && DBQ_EXPORT_IDLE == 1 && DBQ_EXPORT_NODATA == 2,
               "the switch statement's numbers are enum dbq_export_side's");

static enum dbq_export_side side(sqlite3_stmt *s, int c)
{
    int64_t v = col(s, c);
    return v == 0 ? DBQ_EXPORT_SLICE : v == 1 ? DBQ_EXPORT_IDLE : DBQ_EXPORT_NODATA;
}

/* The row of kind_sql[r->kind] that s is at, after its time and CPU. */
static void decode(sqlite3_stmt *s, struct dbq_export_row *r)
{
    switch (r->kind) {
    case DBQ_EXPORT_WAKE:
        r->wake.has_waker = !null_at(s, 2);
        r->wake.waker = col(s, 2);
        r->wake.wakee = col(s, 3);
        r->wake.target_cpu = col(s, 4);
        return;
    case DBQ_EXPORT_SWITCH:
        r->sw.from = side(s, 2);
        r->sw.has_prev = !null_at(s, 3);
        r->sw.prev_utid = col(s, 3);
        r->sw.prev_state = (const char *)sqlite3_column_text(s, 4);
        r->sw.has_prev_prio = !null_at(s, 5);
        r->sw.prev_prio = col(s, 5);
        r->sw.to = side(s, 6);
        r->sw.has_next = !null_at(s, 7);
        r->sw.next_utid = col(s, 7);
        r->sw.has_next_prio = !null_at(s, 8);
        r->sw.next_prio = col(s, 8);
        return;
    case DBQ_EXPORT_V:
        r->v.v = col(s, 2);
        return;
    case DBQ_EXPORT_TASK:
        r->task.utid = col(s, 2);
        for (int i = 0; i < 3; i++) {
            r->task.has[i] = !null_at(s, 3 + i);
            r->task.num[i] = col(s, 3 + i);
        }
        return;
    case DBQ_EXPORT_GAP:
        r->gap.end = col(s, 2) != 0;
        r->gap.packets_lost = col(s, 3);
        r->gap.records_dropped = col(s, 4);
        r->gap.has_late = !null_at(s, 5);
        r->gap.records_late = col(s, 5);
        return;
    case DBQ_EXPORT_MARK:
        r->mark.name = (const char *)sqlite3_column_text(s, 2);
        return;
    case DBQ_EXPORT_NKINDS:
        return;
    }
}

int dbq_export_rows(sqlite3 *db, int64_t trace, bool (*fn)(const struct dbq_export_row *r, void *arg), void *arg,
                    char *err, size_t errlen)
{
    sqlite3_stmt *st[DBQ_EXPORT_NKINDS] = { NULL };
    bool done[DBQ_EXPORT_NKINDS];
    int out = 0;
    for (int k = 0; k < DBQ_EXPORT_NKINDS && !out; k++)
        if (!(st[k] = dbq_prepare(db, kind_sql[k], DBQ_ARGS(DBQ_INT(trace)), err, errlen)))
            out = -1;
    for (int k = 0; k < DBQ_EXPORT_NKINDS && !out; k++) {
        int rc = sqlite3_step(st[k]);
        done[k] = rc != SQLITE_ROW;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            out = dbq_fail(db, err, errlen);
    }
    /* The merge: each kind is in time order, so the earliest of their
     * current rows is the next (ties: the lower kind). */
    while (!out) {
        int best = -1;
        for (int k = 0; k < DBQ_EXPORT_NKINDS; k++)
            if (!done[k] && (best < 0 || col(st[k], 0) < col(st[best], 0)))
                best = k;
        if (best < 0)
            break;
        struct dbq_export_row r = { .kind = (enum dbq_export_kind)best, .ts = col(st[best], 0),
                                    .cpu = col(st[best], 1) };
        decode(st[best], &r);
        if (!fn(&r, arg))
            break;
        int rc = sqlite3_step(st[best]);
        done[best] = rc != SQLITE_ROW;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            out = dbq_fail(db, err, errlen);
    }
    for (int k = 0; k < DBQ_EXPORT_NKINDS; k++)
        sqlite3_finalize(st[k]);
    return out;
}
