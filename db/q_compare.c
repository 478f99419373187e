/*
 * Two runs' rows for `runq report compare` (contract in q_compare.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/q_compare.h"
#include "db/q_rows.h"

/* A typed row, read as the query layer reads every statement's: alike in
 * shape to the others, each its own columns. */
static void read_run(sqlite3_stmt *s, void *out)
{
    struct dbq_cmp_run *r = out;
    r->scenario = sqlite3_column_int64(s, 0);
    r->trace = sqlite3_column_int64(s, 1);
    r->experiment = sqlite3_column_int64(s, 2);
    r->cell = sqlite3_column_int(s, 3);
    r->repeat = sqlite3_column_int(s, 4);
    r->seed = (uint64_t)sqlite3_column_int64(s, 5);
    r->params = dbq_column_dup(s, 6);
    r->text = dbq_column_dup(s, 7);
    r->file = dbq_column_dup(s, 8);
    r->status = dbq_column_dup(s, 9);
}

int dbq_cmp_find_run(sqlite3 *db, enum dbq_cmp_by by, int64_t a, int64_t b, int64_t c, struct dbq_cmp_run *r,
                     char *err, size_t errlen)
{
    static const char *const where[] = {
        [DBQ_CMP_BY_SCENARIO] = "scenario_id = ?1",
        [DBQ_CMP_BY_CELL] = "experiment_id = ?1 AND cell = ?2 AND repeat = ?3",
        [DBQ_CMP_BY_TRACE] = "trace_id = ?1",
    };
    char sql[512];
    memset(r, 0, sizeof *r);
    if ((unsigned)by >= sizeof where / sizeof where[0]) {
        snprintf(err, errlen, "internal error: no way %d to name a run", (int)by);
        return -1;
    }
    snprintf(sql, sizeof sql,
             "SELECT s.scenario_id, s.trace_id, s.experiment_id, s.cell, s.repeat, s.seed, s.params, s.text,"
             " e.file, s.status FROM scenario s LEFT JOIN experiment e USING (experiment_id) WHERE s.%s"
             " ORDER BY s.scenario_id DESC LIMIT 1",
             where[by]);
    sqlite3_stmt *s = dbq_prepare(db, sql, DBQ_ARGS(DBQ_INT(a), DBQ_INT(b), DBQ_INT(c)), err, errlen);
    return dbq_one(db, s, read_run, r, err, errlen) < 0 ? -1 : 0;
}

int dbq_cmp_has_trace(sqlite3 *db, int64_t trace, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT 1 FROM trace WHERE trace_id = ?", DBQ_ARGS(DBQ_INT(trace)), err, errlen);
    return dbq_one(db, s, NULL, NULL, err, errlen);
}

static void read_times(sqlite3_stmt *s, void *out)
{
    struct dbq_cmp_times *t = out;
    t->found = true;
    t->start_ts = sqlite3_column_int64(s, 0);
    t->end_ts = sqlite3_column_int64(s, 1);
    t->has_start_mark = sqlite3_column_type(s, 2) != SQLITE_NULL;
    t->has_end_mark = sqlite3_column_type(s, 3) != SQLITE_NULL;
    t->start_mark = sqlite3_column_int64(s, 2);
    t->end_mark = sqlite3_column_int64(s, 3);
}

int dbq_cmp_times(sqlite3 *db, int64_t trace, struct dbq_cmp_times *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    sqlite3_stmt *s = dbq_prepare(db,
                                  "SELECT t.start_ts, t.end_ts,"
                                  " (SELECT MIN(ts) FROM mark WHERE trace_id = ?1 AND name = 'scn start'),"
                                  " (SELECT MAX(ts) FROM mark WHERE trace_id = ?1 AND name = 'scn end')"
                                  " FROM trace t WHERE t.trace_id = ?1",
                                  DBQ_ARGS(DBQ_INT(trace)), err, errlen);
    return dbq_one(db, s, read_times, t, err, errlen) < 0 ? -1 : 0;
}

int dbq_cmp_settings(sqlite3 *db, int64_t trace, int64_t until,
                     void (*on_trace)(const struct dbq_cmp_trace *t, void *arg),
                     void (*on_set)(const struct dbq_cmp_set *s, void *arg), void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db,
                                  "SELECT policy, ncpus, tick_hz, features, feature_names FROM trace "
                                  "WHERE trace_id = ?",
                                  DBQ_ARGS(DBQ_INT(trace)), err, errlen);
    if (!s)
        return -1;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        struct dbq_cmp_trace t = {
            .policy = (const char *)sqlite3_column_text(s, 0),
            .ncpus = sqlite3_column_int(s, 1),
            .tick_hz = sqlite3_column_int(s, 2),
            .features = (uint64_t)sqlite3_column_int64(s, 3),
            .feature_names = (const char *)sqlite3_column_text(s, 4),
        };
        on_trace(&t, arg);
        rc = SQLITE_DONE;
    }
    if (dbq_finish(db, s, rc, false, err, errlen) != 0)
        return -1;
    s = dbq_prepare(db, "SELECT what, name, new_value FROM sched_set WHERE trace_id = ? AND utid IS NULL AND ts <= ?"
                        " ORDER BY ts, rowid", DBQ_ARGS(DBQ_INT(trace), DBQ_INT(until)), err, errlen);
    if (!s)
        return -1;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct dbq_cmp_set set = {
            .what = (const char *)sqlite3_column_text(s, 0),
            .name = (const char *)sqlite3_column_text(s, 1),
            .value = sqlite3_column_int64(s, 2),
        };
        on_set(&set, arg);
    }
    return dbq_finish(db, s, rc, false, err, errlen);
}

/* The SQL that takes the span's rows of table (its time column tcol)
 * into intervals: ?1 the trace, ?2 its start, ?3 the interval, ?4 its
 * end, ?5... the task names (bound by bind_span). what is the select list
 * after the interval's number. */
static void span_sql(char *buf, size_t len, const struct dbq_cmp_span *sp, const char *table, const char *tcol,
                     const char *what, const char *cond, const char *tail)
{
    size_t n = (size_t)snprintf(buf, len,
                                "SELECT (x.%s - ?2) / ?3, %s FROM %s x JOIN thread t USING (utid)"
                                " WHERE x.trace_id = ?1 AND NOT t.is_idle AND x.%s >= ?2 AND x.%s < ?4 AND %s",
                                tcol, what, table, tcol, tcol, cond);
    for (int i = 0; i < sp->ntasks && n < len; i++) {
        const char *star = strchr(sp->task[i], '*');
        if (star)
            n += (size_t)snprintf(buf + n, len - n, "%s substr(t.name, 1, %d) = ?%d", i ? " OR" : " AND (",
                                  (int)(star - sp->task[i]), 5 + i);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s t.name = ?%d", i ? " OR" : " AND (", 5 + i);
    }
    if (n < len)
        snprintf(buf + n, len - n, "%s %s", sp->ntasks ? ")" : "", tail);
}

static void bind_span(sqlite3_stmt *s, const struct dbq_cmp_span *sp)
{
    sqlite3_bind_int64(s, 1, sp->trace);
    sqlite3_bind_int64(s, 2, sp->start);
    sqlite3_bind_int64(s, 3, (int64_t)sp->interval_ns);
    sqlite3_bind_int64(s, 4, sp->end);
    for (int i = 0; i < sp->ntasks; i++) {
        const char *star = strchr(sp->task[i], '*');
        sqlite3_bind_text(s, 5 + i, sp->task[i], star ? (int)(star - sp->task[i]) : -1, SQLITE_STATIC);
    }
}

/* Calls fn with the two columns of each row of sql over the span. */
static int each_pair(sqlite3 *db, const char *sql, const struct dbq_cmp_span *sp,
                     void (*fn)(int64_t x, int64_t y, void *arg), void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, sql, NULL, 0, err, errlen);
    if (!s)
        return -1;
    bind_span(s, sp);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        fn(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), arg);
    return dbq_finish(db, s, rc, false, err, errlen);
}

int dbq_cmp_wake_samples(sqlite3 *db, const struct dbq_cmp_span *sp,
                         void (*fn)(int64_t interval, int64_t latency, void *arg), void *arg, char *err,
                         size_t errlen)
{
    char sql[2048];
    span_sql(sql, sizeof sql, sp, "wakeup", "ts_wake", "x.latency", "x.latency IS NOT NULL", "ORDER BY 1, 2");
    return each_pair(db, sql, sp, fn, arg, err, errlen);
}

int dbq_cmp_counts(sqlite3 *db, const struct dbq_cmp_span *sp, enum dbq_cmp_count what,
                   void (*fn)(int64_t interval, int64_t count, void *arg), void *arg, char *err, size_t errlen)
{
    char sql[2048];
    if (what == DBQ_CMP_BOUNCES)
        span_sql(sql, sizeof sql, sp, "bounce", "ts_bounce", "COUNT(*)", "x.latency IS NOT NULL", "GROUP BY 1");
    else
        span_sql(sql, sizeof sql, sp, "eevdf_leave", "ts", "COUNT(*)", "x.reason = 'release'", "GROUP BY 1");
    return each_pair(db, sql, sp, fn, arg, err, errlen);
}

int dbq_cmp_gaps(sqlite3 *db, const struct dbq_cmp_span *sp, void (*fn)(int64_t from, int64_t to, void *arg),
                 void *arg, char *err, size_t errlen)
{
    return each_pair(db, "SELECT ts_start, ts_end FROM data_gap WHERE trace_id = ?1 AND ts_end > ?2 AND ts_start < ?4",
                     sp, fn, arg, err, errlen);
}
