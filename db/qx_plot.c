/*
 * The plots' reads (contract in qx_plot.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/q_experiment.h"
#include "db/qx_plot.h"
#include "db/q_rows.h"
#include "host/base/xalloc.h"

static const char *col_text(sqlite3_stmt *s, int i)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    return t ? t : "";
}

/* Where dbq_one's readers below put a row: a struct, and text ("" when
 * NULL) cut to a buffer's len. */
struct row_out {
    void *row;
    char *text;
    size_t len;
};

static void read_trace(sqlite3_stmt *s, void *out)
{
    const struct row_out *o = out;
    struct dbq_plot_trace *t = o->row;
    t->start = sqlite3_column_int64(s, 0);
    t->end = sqlite3_column_int64(s, 1);
    t->ncpus = sqlite3_column_int(s, 2);
    snprintf(o->text, o->len, "%s", col_text(s, 3));
}

int dbq_plot_trace(sqlite3 *db, int64_t id, struct dbq_plot_trace *t, char *policy, size_t policylen, char *err,
                   size_t errlen)
{
    struct row_out o = { t, policy, policylen };
    sqlite3_stmt *s = dbq_prepare(db,
                                  "SELECT COALESCE(start_ts, 0), COALESCE(end_ts, start_ts, 0), COALESCE(ncpus, 1), "
                                  "COALESCE(policy, '') FROM trace WHERE trace_id = ?",
                                  DBQ_ARGS(DBQ_INT(id)), err, errlen);
    return dbq_one(db, s, read_trace, &o, err, errlen);
}

/* Calls fn with each row's first column of s until it returns false
 * (NULL: s failed to prepare). */
static int each_int64(sqlite3 *db, sqlite3_stmt *s, bool (*fn)(int64_t v, void *arg), void *arg, char *err,
                      size_t errlen)
{
    struct dbq_rows q = { .s = s };
    while (dbq_next(&q))
        if (!fn(sqlite3_column_int64(s, 0), arg))
            break;
    return dbq_rows_end(db, &q, err, errlen);
}

int dbq_plot_traces(sqlite3 *db, bool (*fn)(int64_t id, void *arg), void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT trace_id FROM trace ORDER BY trace_id", NULL, 0, err, errlen);
    return each_int64(db, s, fn, arg, err, errlen);
}

static void read_text(sqlite3_stmt *s, void *out)
{
    const struct row_out *o = out;
    snprintf(o->text, o->len, "%s", col_text(s, 0));
}

int dbq_plot_trace_params(sqlite3 *db, int64_t id, char *buf, size_t len, char *err, size_t errlen)
{
    struct row_out o = { NULL, buf, len };
    buf[0] = '\0';
    sqlite3_stmt *s = dbq_prepare(db, "SELECT params FROM scenario WHERE trace_id = ? AND params <> '' LIMIT 1",
                                  DBQ_ARGS(DBQ_INT(id)), err, errlen);
    if (!s)
        return 0; /* no scenario table */
    return dbq_one(db, s, read_text, &o, err, errlen) < 0 ? -1 : 0;
}

int dbq_plot_slices(sqlite3 *db, int64_t id, int64_t from, int64_t to,
                    bool (*fn)(const struct dbq_plot_slice *s, void *arg), void *arg, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT t.utid, t.tid, COALESCE(t.name, ''), "
        "  (SELECT COUNT(*) FROM thread u WHERE u.trace_id = t.trace_id AND u.name = t.name "
        "   AND NOT u.is_idle) > 1, "
        "  MAX(s.ts, ?2), MIN(s.ts + s.dur, ?3), s.cpu "
        "FROM sched_slice s JOIN thread t ON t.utid = s.utid "
        "WHERE s.trace_id = ?1 AND NOT t.is_idle AND s.dur > 0 AND s.ts < ?3 AND s.ts + s.dur > ?2 "
        "ORDER BY t.utid, s.ts";
    struct dbq_rows q = { .s = dbq_prepare(db, sql, DBQ_ARGS(DBQ_INT(id), DBQ_INT(from), DBQ_INT(to)), err, errlen) };
    while (dbq_next(&q)) {
        struct dbq_plot_slice r = {
            .utid = sqlite3_column_int64(q.s, 0),
            .tid = sqlite3_column_int(q.s, 1),
            .name = col_text(q.s, 2),
            .shared = sqlite3_column_int(q.s, 3) != 0,
            .from = sqlite3_column_int64(q.s, 4),
            .to = sqlite3_column_int64(q.s, 5),
            .cpu = sqlite3_column_int(q.s, 6),
        };
        if (!fn(&r, arg))
            break;
    }
    return dbq_rows_end(db, &q, err, errlen);
}

/* s's rows, a time and a CPU each, to fn (NULL: s failed to prepare). */
static int each_ts_cpu(sqlite3 *db, sqlite3_stmt *s, bool (*fn)(int64_t ts, int cpu, void *arg), void *arg,
                       char *err, size_t errlen)
{
    struct dbq_rows q = { .s = s };
    while (dbq_next(&q))
        if (!fn(sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), arg))
            break;
    return dbq_rows_end(db, &q, err, errlen);
}

int dbq_plot_wakeups(sqlite3 *db, int64_t id, int64_t from, int64_t to,
                     bool (*fn)(int64_t ts, int cpu, void *arg), void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT ts_wake, cpu FROM wakeup WHERE trace_id = ? AND cpu IS NOT NULL "
                                      "AND ts_wake >= ? AND ts_wake < ? ORDER BY ts_wake",
                                  DBQ_ARGS(DBQ_INT(id), DBQ_INT(from), DBQ_INT(to)), err, errlen);
    return each_ts_cpu(db, s, fn, arg, err, errlen);
}

int dbq_plot_picks(sqlite3 *db, int64_t id, int64_t from, int64_t to, bool (*fn)(int64_t ts, int cpu, void *arg),
                   void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT ts, cpu FROM eevdf_pick WHERE trace_id = ? AND cpu IS NOT NULL "
                                      "AND ts >= ? AND ts < ? ORDER BY ts",
                                  DBQ_ARGS(DBQ_INT(id), DBQ_INT(from), DBQ_INT(to)), err, errlen);
    return each_ts_cpu(db, s, fn, arg, err, errlen);
}

int dbq_plot_moves(sqlite3 *db, int64_t id, int64_t from, int64_t to,
                   bool (*fn)(const struct dbq_plot_move *m, void *arg), void *arg, char *err, size_t errlen)
{
    if (sqlite3_table_column_metadata(db, NULL, "migration", "reason", NULL, NULL, NULL, NULL, NULL) != SQLITE_OK)
        return 0; /* before schema 12: no moves recorded */
    struct dbq_rows q = { .s = dbq_prepare(db, "SELECT ts, src_cpu, dst_cpu, COALESCE(reason, '') FROM migration "
                                               "WHERE trace_id = ? AND ts >= ? AND ts < ? ORDER BY ts, id",
                                           DBQ_ARGS(DBQ_INT(id), DBQ_INT(from), DBQ_INT(to)), err, errlen) };
    while (dbq_next(&q)) {
        struct dbq_plot_move m = {
            .ts = sqlite3_column_int64(q.s, 0),
            .src = sqlite3_column_int(q.s, 1),
            .dst = sqlite3_column_int(q.s, 2),
            .reason = (const char *)sqlite3_column_text(q.s, 3),
        };
        if (!m.reason)
            m.reason = ""; /* out of memory in SQLite: no name */
        if (!fn(&m, arg))
            break;
    }
    return dbq_rows_end(db, &q, err, errlen);
}

static void read_int64(sqlite3_stmt *s, void *out)
{
    *(int64_t *)out = sqlite3_column_int64(s, 0);
}

int dbq_plot_first_stall(sqlite3 *db, int64_t id, int64_t stall_ns, int64_t *ts, char *err, size_t errlen)
{
    /* The probe: a task a scenario measures stalls of, or sched probe's
     * waiter. The scenario tables are absent from a database of plain
     * recordings: then only the names. */
    bool scn = sqlite3_table_column_metadata(db, NULL, "scenario_metric", "metric", NULL, NULL, NULL, NULL, NULL) ==
               SQLITE_OK;
    sqlite3_stmt *s = dbq_prepare(
        db,
        scn ? "SELECT w.ts_wake FROM wakeup w JOIN thread t USING (utid) WHERE w.trace_id = ?1 AND w.latency >= ?2 "
              "AND (t.name IN ('probe', 'waiter') OR t.utid IN (SELECT st.utid FROM scenario_task st JOIN scenario "
              "sc USING (scenario_id) JOIN scenario_metric m ON m.scenario_id = st.scenario_id AND m.task = "
              "st.task AND m.metric = 'stall' WHERE sc.trace_id = ?1)) ORDER BY w.ts_wake LIMIT 1"
            : "SELECT w.ts_wake FROM wakeup w JOIN thread t USING (utid) WHERE w.trace_id = ?1 AND w.latency >= ?2 "
              "AND t.name IN ('probe', 'waiter') ORDER BY w.ts_wake LIMIT 1",
        DBQ_ARGS(DBQ_INT(id), DBQ_INT(stall_ns)), err, errlen);
    return dbq_one(db, s, read_int64, ts, err, errlen);
}

int dbq_plot_gaps(sqlite3 *db, int64_t id, int64_t from, int64_t to, int64_t end,
                  bool (*fn)(int64_t a, int64_t b, int cpu, void *arg), void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT MAX(COALESCE(ts_start, ?2), ?2), MIN(COALESCE(ts_end, ?4), ?3), cpu "
                                      "FROM data_gap WHERE trace_id = ?1 AND COALESCE(ts_start, ?2) < ?3 "
                                      "AND COALESCE(ts_end, ?4) > ?2 ORDER BY cpu, ts_start",
                                  DBQ_ARGS(DBQ_INT(id), DBQ_INT(from), DBQ_INT(to), DBQ_INT(end)), err, errlen);
    struct dbq_rows q = { .s = s };
    while (dbq_next(&q))
        if (!fn(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2), arg))
            break;
    return dbq_rows_end(db, &q, err, errlen);
}

int dbq_plot_latencies(sqlite3 *db, int64_t id, const char *task, bool (*fn)(int64_t ns, void *arg), void *arg,
                       char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT w.latency FROM wakeup w JOIN thread t ON t.utid = w.utid "
                                      "WHERE w.trace_id = ?1 AND w.latency IS NOT NULL AND (?2 IS NULL OR t.name = ?2)",
                                  DBQ_ARGS(DBQ_INT(id), DBQ_TEXT(task)), err, errlen);
    return each_int64(db, s, fn, arg, err, errlen);
}

int dbq_plot_experiments(sqlite3 *db, bool *has, int64_t *newest, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    *has = false;
    *newest = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'experiment'", -1, &s,
                           NULL) != SQLITE_OK)
        return dbq_fail(db, err, errlen);
    *has = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    /* a table without the column (not runq's) has no experiment either */
    if (*has && sqlite3_prepare_v2(db, "SELECT MAX(experiment_id) FROM experiment", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            *newest = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    return 0;
}

static char *dup_col(sqlite3_stmt *s, int i)
{
    return xstrdup(col_text(s, i));
}

static void read_experiment(sqlite3_stmt *s, void *out)
{
    struct dbq_plot_experiment *x = out;
    x->file = dup_col(s, 0);
    x->engine = dup_col(s, 1);
    x->axes = dup_col(s, 2);
    x->columns = dup_col(s, 3);
    x->repeats = sqlite3_column_int(s, 4);
}

int dbq_plot_experiment(sqlite3 *db, int64_t id, struct dbq_plot_experiment *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    sqlite3_stmt *s = dbq_prepare(db, "SELECT COALESCE(file, ''), engine, COALESCE(axes, ''), COALESCE(columns, ''), "
                                      "repeats FROM experiment WHERE experiment_id = ?", DBQ_ARGS(DBQ_INT(id)), err,
                                  errlen);
    return dbq_one(db, s, read_experiment, x, err, errlen);
}

/* Alike in shape to every free of a struct of strings: its own fields. */
void dbq_plot_experiment_free(struct dbq_plot_experiment *x)
{
    free(x->file);
    free(x->engine);
    free(x->axes);
    free(x->columns);
    memset(x, 0, sizeof *x);
}

/* The statements over experiment id's values of task.metric: ?1 id, ?2
 * task, ?3 metric. */
#define METRIC_ARGS(id, task, metric) DBQ_ARGS(DBQ_INT(id), DBQ_TEXT(task), DBQ_TEXT(metric))

/* The row's two counts into out, an int[2]. */
static void read_counts(sqlite3_stmt *s, void *out)
{
    int *n = out;
    n[0] = sqlite3_column_int(s, 0);
    n[1] = sqlite3_column_int(s, 1);
}

int dbq_plot_metric_count(sqlite3 *db, int64_t id, const char *task, const char *metric, int *rows, int *values,
                          char *err, size_t errlen)
{
    int n[2] = { 0, 0 };
    sqlite3_stmt *s = dbq_prepare(db, "SELECT COUNT(*), COUNT(m.value) FROM scenario s JOIN scenario_metric m USING "
                                      "(scenario_id) WHERE s.experiment_id = ?1 AND m.task = ?2 AND m.metric = ?3",
                                  METRIC_ARGS(id, task, metric), err, errlen);
    int rc = dbq_one(db, s, read_counts, n, err, errlen);
    *rows = n[0];
    *values = n[1];
    return rc < 0 ? -1 : 0;
}

int dbq_plot_cells(sqlite3 *db, int64_t id, const char *task, const char *metric, struct dbq_plot_cell **cells,
                   size_t *n, char *err, size_t errlen)
{
    size_t cap = 0;
    char used[512], sql[1024];
    *cells = NULL;
    *n = 0;
    /* the runs the experiment's table uses: a disturbed run is left out
     * where its cell has a clean one, in the figure as in the table */
    if (dbq_experiment_used_runs(db, used, err, errlen) != 0)
        return -1;
    int len = snprintf(sql, sizeof sql,
                       "SELECT s.cell, s.engine, COALESCE(s.params, ''), AVG(m.value), MIN(m.value), "
                       "MAX(m.value) FROM scenario s JOIN scenario_metric m USING (scenario_id) "
                       "WHERE s.experiment_id = ?1 AND %s AND m.task = ?2 AND m.metric = ?3 "
                       "AND m.value IS NOT NULL GROUP BY s.cell, s.engine ORDER BY s.cell, s.engine",
                       used);
    BUG_ON(len < 0 || (size_t)len >= sizeof sql); /* this file's text and used's: they fit */
    sqlite3_stmt *s = dbq_prepare(db, sql, METRIC_ARGS(id, task, metric), err, errlen);
    struct dbq_rows q = { .s = s };
    while (dbq_next(&q)) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *cells = xreallocarray(*cells, cap, sizeof **cells);
        }
        struct dbq_plot_cell *c = &(*cells)[*n];
        /* A typed row, read as the query layer reads every statement's: alike in
         * shape to the others, each its own columns. */
        *c = (struct dbq_plot_cell){
            .cell = sqlite3_column_int(s, 0),
            .engine = dup_col(s, 1),
            .params = dup_col(s, 2),
            .mean = sqlite3_column_double(s, 3),
            .min = sqlite3_column_double(s, 4),
            .max = sqlite3_column_double(s, 5),
        };
        ++*n;
    }
    int out = dbq_rows_end(db, &q, err, errlen);
    if (out) {
        dbq_plot_cells_free(*cells, *n);
        *cells = NULL;
        *n = 0;
    }
    return out;
}

void dbq_plot_cells_free(struct dbq_plot_cell *cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(cells[i].engine);
        free(cells[i].params);
    }
    free(cells);
}
