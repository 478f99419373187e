/*
 * The Linux recorder's rows written after a trace (contract in
 * qx_linux.h).
 */
#include <stdio.h>

#include <sqlite3.h>

#include "bug.h"
#include "db/derive.h"
#include "db/q_experiment.h"
#include "db/q_rows.h"
#include "db/query.h"
#include "db/qx_linux.h"
#include "db/tracestat.h"

/* A connection of its own for one transaction after the trace; NULL with
 * err when path does not open. */
static sqlite3 *open_rw(const char *path, char *err, size_t errlen)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 600 * 1000); /* another recorder's commit: wait as the writer does */
    return db;
}

/* Rows of one table in one transaction: sql's statement, bound by
 * bind(i, s, arg) for i = 0..n-1 (false: that row failed). what names
 * them in an error. */
static int write_rows(const char *path, const char *sql, size_t n, bool (*bind)(size_t i, sqlite3_stmt *s, void *arg),
                      void *arg, const char *what, char *err, size_t errlen)
{
    if (!n)
        return 0;
    sqlite3_stmt *s = NULL;
    sqlite3 *db = open_rw(path, err, errlen);
    if (!db)
        return -1;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK &&
                     sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK
                 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = bind(i, s, arg) && sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(s);
    }
    if (rc == 0)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s: storing the %s: %s", path, what, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return rc;
}

struct counters {
    int64_t trace_id;
    void (*row)(size_t i, struct dbq_linux_counter *c, void *arg);
    void *arg;
};

static bool bind_counter(size_t i, sqlite3_stmt *s, void *arg)
{
    const struct counters *k = arg;
    struct dbq_linux_counter c = { 0 };
    k->row(i, &c, k->arg);
    sqlite3_bind_int64(s, 1, k->trace_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)c.ts);
    sqlite3_bind_int(s, 3, c.cpu);
    sqlite3_bind_text(s, 4, c.name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)c.value);
    return true;
}

int dbq_linux_put_counters(const char *path, int64_t trace_id, size_t n,
                           void (*row)(size_t i, struct dbq_linux_counter *c, void *arg), void *arg, char *err,
                           size_t errlen)
{
    struct counters k = { trace_id, row, arg };
    return write_rows(path, "INSERT INTO counter (trace_id, ts, cpu, name, value) VALUES (?,?,?,?,?)", n,
                      bind_counter, &k, "counters", err, errlen);
}

struct groups {
    int64_t trace_id;
    const struct dbq_linux_group *g;
};

static bool bind_group(size_t i, sqlite3_stmt *s, void *arg)
{
    const struct groups *k = arg;
    const struct dbq_linux_group *g = &k->g[i];
    const sqlite3_int64 v[] = { k->trace_id, (sqlite3_int64)g->ts, g->cpu, g->depth, (sqlite3_int64)g->weight,
                                (sqlite3_int64)g->vruntime, (sqlite3_int64)g->deadline, g->lag,
                                (sqlite3_int64)g->slice, g->eligible, g->current, (sqlite3_int64)g->v,
                                g->nr_queued };
    for (int c = 0; c < (int)(sizeof v / sizeof v[0]); c++)
        sqlite3_bind_int64(s, c + 1, v[c]);
    return true;
}

int dbq_linux_put_groups(const char *path, int64_t trace_id, const struct dbq_linux_group *g, size_t n, char *err,
                         size_t errlen)
{
    struct groups k = { trace_id, g };
    return write_rows(path,
                      "INSERT INTO linux_group (trace_id, ts, cpu, depth, weight, vruntime, deadline, lag, slice_ns, "
                      "eligible, is_current, v, nr_queued) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                      n, bind_group, &k, "group levels", err, errlen);
}

int dbq_linux_put_foreign(const char *path, int64_t trace_id, uint64_t cpus, uint64_t t0, uint64_t t1,
                          const char *other_desc, const char *unknown_desc, uint64_t other[64], uint64_t unknown[64],
                          char *err, size_t errlen)
{
    BUG_ON(t1 <= t0); /* a window (lxrec's put_foreign asks for none without): t1 - t0 must not wrap */
    for (unsigned c = 0; c < 64; c++)
        other[c] = unknown[c] = 0;
    sqlite3 *db = open_rw(path, err, errlen);
    if (!db)
        return -1;
    uint64_t window = t1 - t0;
    char why[512]; /* SQLite's message */
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : dbq_fail(db, why, sizeof why);
    for (unsigned c = 0; c < 64 && rc == 0; c++) {
        uint64_t covered = 0;
        if (!(cpus >> c & 1))
            continue;
        rc = dbts_slice_ns(db, trace_id, DERIVE_LINUX_OTHER_TID(c), (int)c, t0, t1, &other[c], why, sizeof why);
        if (rc == 0)
            rc = dbts_slice_ns(db, trace_id, -1, (int)c, t0, t1, &covered, why, sizeof why);
        unknown[c] = covered < window ? window - covered : 0;
        if (rc == 0)
            rc = dbts_add_stat(db, trace_id, "foreign_cpu_ns", (int)c, "info", other[c], other_desc, why, sizeof why);
        if (rc == 0)
            rc = dbts_add_stat(db, trace_id, "unknown_cpu_ns", (int)c, "info", unknown[c], unknown_desc, why,
                               sizeof why);
    }
    if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = dbq_fail(db, why, sizeof why);
    if (rc != 0) {
        snprintf(err, errlen, "%s: storing the foreign CPU time: %s", path, why);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

/* The moves' statement: every used run (used, dbq_experiment_used_runs'
 * terms) crossed with every reason of the experiment, so that a run
 * without a move of one counts 0 in its mean. */
static const char moves_sql[] =
    "WITH runs AS (SELECT s.cell, s.engine, s.trace_id, s.run_ns, "
    "(SELECT MIN(ts) FROM mark b WHERE b.trace_id = s.trace_id AND b.name = 'start') AS t0, "
    "(SELECT MAX(ts) FROM mark e WHERE e.trace_id = s.trace_id AND e.name = 'end') AS t1 "
    "FROM scenario s WHERE s.experiment_id = ?1 AND s.trace_id IS NOT NULL AND s.run_ns > 0 AND %s), "
    "reasons AS (SELECT DISTINCT reason FROM migration WHERE trace_id IN (SELECT trace_id FROM runs)), "
    "rates AS (SELECT r.cell, r.engine, x.reason, 1e9 * (SELECT COUNT(*) FROM migration g WHERE "
    "g.trace_id = r.trace_id AND g.reason = x.reason AND (r.t0 IS NULL OR g.ts >= r.t0) AND "
    "(r.t1 IS NULL OR g.ts < r.t1)) / r.run_ns AS rate FROM runs r, reasons x) "
    "SELECT cell, engine, reason, AVG(rate), MIN(rate), MAX(rate), COUNT(*) FROM rates "
    "GROUP BY cell, engine, reason ORDER BY cell, engine, reason";

int dbq_experiment_moves(sqlite3 *db, int64_t id, void (*fn)(const struct dbq_moves_rate *r, void *arg), void *arg,
                         char *err, size_t errlen)
{
    char used[512], sql[sizeof moves_sql + 512];
    int has = dbq_has_column(db, "migration", "reason", err, errlen);
    if (has <= 0 || dbq_experiment_used_runs(db, used, err, errlen) != 0)
        return has <= 0 ? has : -1;
    int n = snprintf(sql, sizeof sql, moves_sql, used);
    BUG_ON(n < 0 || (size_t)n >= sizeof sql); /* used is dbq_experiment_used_runs' 512 bytes at most: it fits */
    sqlite3_stmt *s = dbq_prepare(db, sql, DBQ_ARGS(DBQ_INT(id)), err, errlen);
    struct dbq_rows q = { .s = s };
    while (dbq_next(&q)) {
        struct dbq_moves_rate r = {
            .cell = sqlite3_column_int(s, 0),
            .engine = (const char *)sqlite3_column_text(s, 1),
            .reason = (const char *)sqlite3_column_text(s, 2),
            .mean = sqlite3_column_double(s, 3),
            .min = sqlite3_column_double(s, 4),
            .max = sqlite3_column_double(s, 5),
            .runs = sqlite3_column_int(s, 6),
        };
        fn(&r, arg);
    }
    return dbq_rows_end(db, &q, err, errlen);
}
