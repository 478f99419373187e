/*
 * Storing experiments and scenario runs (contract in experiment.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/experiment.h"
#include "db/migrate.h"
#include "db/q_rows.h"

static int fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

sqlite3 *dbx_open(const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 60000);
    if (db_check_runq(db, path, err, errlen) != 0)
        goto bad;
    if (sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto bad;
    }
    if (db_migrate(db, path, err, errlen) != 0)
        goto bad;
    return db;
bad:
    sqlite3_close(db);
    return NULL;
}

/* Begins a transaction and inserts one row in it: sql, its parameters
 * bound to args. The row's id, or -1 (the transaction left to fail's
 * rollback). */
static int64_t begin_insert(sqlite3 *db, const char *sql, const struct dbq_arg *args, size_t n, char *err,
                            size_t errlen)
{
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        dbq_one(db, dbq_prepare(db, sql, args, n, err, errlen), NULL, NULL, err, errlen) < 0)
        return -1;
    return sqlite3_last_insert_rowid(db);
}

int64_t dbx_add_experiment(sqlite3 *db, const struct dbx_experiment *e, char *err, size_t errlen)
{
    char created[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int64_t id = begin_insert(db,
                              "INSERT INTO experiment (created, file, engine, axes, cells, repeats, shard, columns, "
                              "command) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                              DBQ_ARGS(DBQ_TEXT(created), DBQ_TEXT(e->file), DBQ_TEXT(e->engine), DBQ_TEXT(e->axes),
                                       DBQ_INT(e->cells), DBQ_INT(e->repeats), DBQ_TEXT(e->shard),
                                       DBQ_TEXT(e->columns), DBQ_TEXT(e->command)),
                              err, errlen);
    if (id < 0 || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err, errlen, "storing the experiment");
    return id;
}

static int add_task(sqlite3 *db, int64_t sid, int64_t trace_id, const struct dbx_task *t, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(
        db,
        "INSERT INTO scenario_task (scenario_id, instance, task, idx, name, tid, utid, cpu, "
        "window_ns, runtime_ns, wakeups, missed, stalls, dropped, p50_ns, p90_ns, p99_ns, "
        "p999_ns, max_ns, iters, vcsw, ivcsw, reads) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
        "(SELECT utid FROM thread WHERE trace_id = ?23 AND tid = ?6 ORDER BY utid DESC LIMIT 1), "
        "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        DBQ_ARGS(DBQ_INT(sid), DBQ_INT(t->instance), DBQ_TEXT(t->task), DBQ_INT(t->idx), DBQ_TEXT(t->name),
                 DBQ_OPT(t->tid >= 0, t->tid), DBQ_INT(t->cpu), DBQ_INT(t->window_ns), DBQ_INT(t->runtime_ns),
                 DBQ_INT(t->wakeups), DBQ_INT(t->missed), DBQ_INT(t->stalls), DBQ_INT(t->dropped),
                 DBQ_INT(t->late[0]), DBQ_INT(t->late[1]), DBQ_INT(t->late[2]), DBQ_INT(t->late[3]),
                 DBQ_INT(t->late[4]), DBQ_OPT(t->has_iters, t->iters), DBQ_INT(t->vcsw), DBQ_INT(t->ivcsw),
                 DBQ_INT(t->reads), DBQ_OPT(trace_id > 0, trace_id)),
        err, errlen);
    return dbq_one(db, s, NULL, NULL, err, errlen) < 0 ? -1 : 0;
}

static int add_metric(sqlite3 *db, int64_t sid, const struct dbx_metric *m, char *err, size_t errlen)
{
    sqlite3_stmt *s =
        dbq_prepare(db, "INSERT OR REPLACE INTO scenario_metric (scenario_id, task, metric, value) VALUES (?, ?, ?, ?)",
                    DBQ_ARGS(DBQ_INT(sid), DBQ_TEXT(m->task), DBQ_TEXT(m->metric), DBQ_REAL(m->value)), err, errlen);
    return dbq_one(db, s, NULL, NULL, err, errlen) < 0 ? -1 : 0;
}

int64_t dbx_add_scenario(sqlite3 *db, const struct dbx_scenario *sc, char *err, size_t errlen)
{
    bool foreign = sc->foreign_known;
    int64_t sid = begin_insert(
        db,
        "INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, params, run_ns, "
        "status, error, text, foreign_ns, disturbed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        DBQ_ARGS(DBQ_OPT(sc->experiment_id > 0, sc->experiment_id), DBQ_INT(sc->cell), DBQ_INT(sc->repeat),
                 DBQ_INT(sc->seed), DBQ_OPT(sc->trace_id > 0, sc->trace_id), DBQ_TEXT(sc->engine),
                 DBQ_TEXT(sc->params), DBQ_INT(sc->run_ns), DBQ_TEXT(sc->status), DBQ_TEXT(sc->error),
                 DBQ_TEXT(sc->text), DBQ_OPT(foreign, sc->foreign_ns), DBQ_OPT(foreign, sc->disturbed)),
        err, errlen);
    if (sid < 0)
        return fail(db, err, errlen, "storing a scenario run");
    for (int i = 0; i < sc->ntasks; i++)
        if (add_task(db, sid, sc->trace_id, &sc->tasks[i], err, errlen) != 0)
            return fail(db, err, errlen, "storing a scenario's task");
    for (int i = 0; i < sc->nmetrics; i++)
        if (add_metric(db, sid, &sc->metrics[i], err, errlen) != 0)
            return fail(db, err, errlen, "storing a scenario's metric");
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err, errlen, "storing a scenario run");
    return sid;
}
