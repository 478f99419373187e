/*
 * An experiment's rows for its table (contract in q_experiment.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bug.h"
#include "db/q_experiment.h"
#include "db/q_rows.h"
#include "db/query.h"

/* Column i of s as text, "" when NULL, into dst[size]. */
static void copy_text(char *dst, size_t size, sqlite3_stmt *s, int i)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    snprintf(dst, size, "%s", t ? t : "");
}

/* The row's id into out, an int64_t. */
static void read_id(sqlite3_stmt *s, void *out)
{
    *(int64_t *)out = sqlite3_column_int64(s, 0);
}

static void read_experiment(sqlite3_stmt *s, void *out)
{
    struct dbq_experiment *e = out;
    copy_text(e->file, sizeof e->file, s, 0);
    copy_text(e->engine, sizeof e->engine, s, 1);
    copy_text(e->axes, sizeof e->axes, s, 2);
    e->cells = sqlite3_column_int(s, 3);
    e->repeats = sqlite3_column_int(s, 4);
    copy_text(e->shard, sizeof e->shard, s, 5);
    copy_text(e->columns, sizeof e->columns, s, 6);
}

int dbq_experiment_read(sqlite3 *db, int64_t id, struct dbq_experiment *e, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    memset(e, 0, sizeof *e);
    int has = dbq_has_table(db, "experiment", err, errlen);
    if (has < 0)
        return -1;
    if (!has) {
        snprintf(err, errlen, "the database holds no experiment (it has no experiment table)");
        return -1;
    }
    if (id <= 0) {
        if (!(s = dbq_prepare(db, "SELECT MAX(experiment_id) FROM experiment", NULL, 0, err, errlen)))
            return -1;
        dbq_one(db, s, read_id, &id, err, errlen); /* a step that fails finds none, said below */
        if (id <= 0) {
            snprintf(err, errlen, "the database holds no experiment");
            return -1;
        }
    }
    if (!(s = dbq_prepare(db, "SELECT file, engine, axes, cells, repeats, shard, columns FROM experiment WHERE "
                              "experiment_id = ?", DBQ_ARGS(DBQ_INT(id)), err, errlen)))
        return -1;
    if (dbq_one(db, s, read_experiment, e, err, errlen) != 1) { /* a step that fails finds none too */
        snprintf(err, errlen, "no experiment %lld in the database", (long long)id);
        return -1;
    }
    e->id = id;
    return 0;
}

/* The statement over experiment id's runs: their cells (cells) or
 * their values. Foreign CPU time is read from columns, or NULL before
 * schema version 11; clean says whether s's cell has a clean run on s's
 * engine, used whether s's values make its cell's. NULL with err. */
/* clean and used of prepare_runs, for a database with the disturbed
 * column (has) or without. */
static void used_terms(bool has, char clean[256], char used[512])
{
    snprintf(clean, 256, "EXISTS (SELECT 1 FROM scenario c WHERE c.experiment_id = s.experiment_id AND "
                         "c.cell = s.cell AND c.engine = s.engine AND c.status = 'ok' AND %s IS NOT 1)",
             has ? "c.disturbed" : "NULL");
    snprintf(used, 512, "s.status = 'ok' AND (%s IS NOT 1 OR NOT %s)", has ? "s.disturbed" : "NULL", clean);
}

int dbq_experiment_used_runs(sqlite3 *db, char used[512], char *err, size_t errlen)
{
    char clean[256];
    int has = dbq_has_column(db, "scenario", "foreign_ns", err, errlen);
    if (has < 0)
        return -1;
    used_terms(has, clean, used);
    return 0;
}

static sqlite3_stmt *prepare_runs(sqlite3 *db, int64_t id, bool cells, char *err, size_t errlen)
{
    char clean[256], used[512], sql[2048];
    int has = dbq_has_column(db, "scenario", "foreign_ns", err, errlen);
    if (has < 0)
        return NULL;
    const char *foreign_ns = has ? "foreign_ns" : "NULL", *dist_s = has ? "s.disturbed" : "NULL";
    used_terms(has, clean, used);
    int n;
    if (cells)
        n = snprintf(sql, sizeof sql,
                     "SELECT cell, MAX(params), COUNT(*), SUM(status = 'ok'), SUM(status = 'ok' AND %s IS 1 AND %s), "
                     "SUM(status = 'ok' AND %s IS 1 AND NOT %s), AVG(share), MIN(share), MAX(share), COUNT(share) FROM "
                     "(SELECT *, CASE WHEN status = 'ok' AND run_ns > 0 THEN 1.0 * %s / run_ns END AS share FROM "
                     "scenario) s WHERE experiment_id = ? GROUP BY cell ORDER BY cell",
                     dist_s, clean, dist_s, clean, foreign_ns);
    else
        n = snprintf(sql, sizeof sql,
                     "SELECT s.cell, m.task, m.metric, m.value, s.engine FROM scenario s JOIN scenario_metric m USING "
                     "(scenario_id) WHERE s.experiment_id = ? AND m.value IS NOT NULL AND %s ORDER BY s.cell, s.engine, "
                     "m.task, m.metric, m.value",
                     used);
    BUG_ON(n < 0 || (size_t)n >= sizeof sql); /* its parts are this file's: they fit */
    return dbq_prepare(db, sql, DBQ_ARGS(DBQ_INT(id)), err, errlen);
}

/* The rows of prepare_runs' statement over experiment id: each cell to
 * cell_fn, or (cell_fn NULL) each value to value_fn. One loop for the
 * statement's two forms. */
static int each_run(sqlite3 *db, int64_t id, void (*cell_fn)(const struct dbq_experiment_cell *c, void *arg),
                    void (*value_fn)(const struct dbq_experiment_value *v, void *arg), void *arg, char *err,
                    size_t errlen)
{
    sqlite3_stmt *s = prepare_runs(db, id, cell_fn != NULL, err, errlen);
    if (!s)
        return -1;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (cell_fn) {
            struct dbq_experiment_cell c = {
                .cell = sqlite3_column_int(s, 0),
                .params = (const char *)sqlite3_column_text(s, 1),
                .runs = sqlite3_column_int(s, 2),
                .ok = sqlite3_column_int(s, 3),
                .left_out = sqlite3_column_int(s, 4),
                .kept_disturbed = sqlite3_column_int(s, 5),
                .foreign_mean = sqlite3_column_double(s, 6),
                .foreign_min = sqlite3_column_double(s, 7),
                .foreign_max = sqlite3_column_double(s, 8),
                .foreign_n = sqlite3_column_int(s, 9),
            };
            cell_fn(&c, arg);
        } else {
            struct dbq_experiment_value v = {
                .cell = sqlite3_column_int(s, 0),
                .task = (const char *)sqlite3_column_text(s, 1),
                .metric = (const char *)sqlite3_column_text(s, 2),
                .value = sqlite3_column_double(s, 3),
                .engine = (const char *)sqlite3_column_text(s, 4),
            };
            value_fn(&v, arg);
        }
    }
    return dbq_finish(db, s, rc, false, err, errlen);
}

int dbq_experiment_cells(sqlite3 *db, int64_t id, void (*fn)(const struct dbq_experiment_cell *c, void *arg),
                         void *arg, char *err, size_t errlen)
{
    return each_run(db, id, fn, NULL, arg, err, errlen);
}

int dbq_experiment_values(sqlite3 *db, int64_t id, void (*fn)(const struct dbq_experiment_value *v, void *arg),
                          void *arg, char *err, size_t errlen)
{
    return each_run(db, id, NULL, fn, arg, err, errlen);
}
