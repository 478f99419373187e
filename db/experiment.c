/*
 * Storing experiments and scenario runs (contract in experiment.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/experiment.h"
#include "db/migrate.h"

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

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* v at i when known, else NULL (an id of 0, a count not measured). */
static void bind_opt(sqlite3_stmt *s, int i, bool known, int64_t v)
{
    if (known)
        sqlite3_bind_int64(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

int64_t dbx_add_experiment(sqlite3 *db, const struct dbx_experiment *e, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    char created[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO experiment (created, file, engine, axes, cells, repeats, shard, columns, "
                           "command) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(db, err, errlen, "storing the experiment");
    bind_text(s, 1, created);
    bind_text(s, 2, e->file);
    bind_text(s, 3, e->engine);
    bind_text(s, 4, e->axes);
    sqlite3_bind_int(s, 5, e->cells);
    sqlite3_bind_int(s, 6, e->repeats);
    bind_text(s, 7, e->shard);
    bind_text(s, 8, e->columns);
    bind_text(s, 9, e->command);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return fail(db, err, errlen, "storing the experiment");
    int64_t id = sqlite3_last_insert_rowid(db);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err, errlen, "storing the experiment");
    return id;
}

static int add_task(sqlite3 *db, int64_t sid, int64_t trace_id, const struct dbx_task *t)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO scenario_task (scenario_id, instance, task, idx, name, tid, utid, cpu, "
                           "window_ns, runtime_ns, wakeups, missed, stalls, dropped, p50_ns, p90_ns, p99_ns, "
                           "p999_ns, max_ns, iters, vcsw, ivcsw, reads) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                           "(SELECT utid FROM thread WHERE trace_id = ?23 AND tid = ?6 ORDER BY utid DESC LIMIT 1), "
                           "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(s, 1, sid);
    sqlite3_bind_int(s, 2, t->instance);
    bind_text(s, 3, t->task);
    sqlite3_bind_int(s, 4, t->idx);
    bind_text(s, 5, t->name);
    bind_opt(s, 6, t->tid >= 0, t->tid);
    sqlite3_bind_int(s, 7, t->cpu);
    const uint64_t v[] = { t->window_ns, t->runtime_ns, t->wakeups, t->missed, t->stalls, t->dropped,
                           t->late[0],   t->late[1],     t->late[2], t->late[3],  t->late[4] };
    for (int i = 0; i < 11; i++)
        sqlite3_bind_int64(s, 8 + i, (int64_t)v[i]);
    bind_opt(s, 19, t->has_iters, (int64_t)t->iters);
    sqlite3_bind_int64(s, 20, (int64_t)t->vcsw);
    sqlite3_bind_int64(s, 21, (int64_t)t->ivcsw);
    sqlite3_bind_int64(s, 22, (int64_t)t->reads);
    bind_opt(s, 23, trace_id > 0, trace_id);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int add_metric(sqlite3 *db, int64_t sid, const struct dbx_metric *m)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO scenario_metric (scenario_id, task, metric, value) VALUES (?, ?, ?, ?)",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(s, 1, sid);
    bind_text(s, 2, m->task);
    bind_text(s, 3, m->metric);
    if (isnan(m->value))
        sqlite3_bind_null(s, 4);
    else
        sqlite3_bind_double(s, 4, m->value);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Alike in shape to dbx_add_experiment: each its own table's INSERT, in a
 * transaction of its own. */
int64_t dbx_add_scenario(sqlite3 *db, const struct dbx_scenario *sc, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, params, run_ns, "
                           "status, error, text, foreign_ns, disturbed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(db, err, errlen, "storing a scenario run");
    bind_opt(s, 1, sc->experiment_id > 0, sc->experiment_id);
    sqlite3_bind_int(s, 2, sc->cell);
    sqlite3_bind_int(s, 3, sc->repeat);
    sqlite3_bind_int64(s, 4, (int64_t)sc->seed);
    bind_opt(s, 5, sc->trace_id > 0, sc->trace_id);
    bind_text(s, 6, sc->engine);
    bind_text(s, 7, sc->params);
    sqlite3_bind_int64(s, 8, (int64_t)sc->run_ns);
    bind_text(s, 9, sc->status);
    bind_text(s, 10, sc->error);
    bind_text(s, 11, sc->text);
    if (sc->foreign_known) {
        sqlite3_bind_int64(s, 12, (int64_t)sc->foreign_ns);
        sqlite3_bind_int(s, 13, sc->disturbed);
    }
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return fail(db, err, errlen, "storing a scenario run");
    int64_t sid = sqlite3_last_insert_rowid(db);
    for (int i = 0; i < sc->ntasks; i++)
        if (add_task(db, sid, sc->trace_id, &sc->tasks[i]) != 0)
            return fail(db, err, errlen, "storing a scenario's task");
    for (int i = 0; i < sc->nmetrics; i++)
        if (add_metric(db, sid, &sc->metrics[i]) != 0)
            return fail(db, err, errlen, "storing a scenario's metric");
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err, errlen, "storing a scenario run");
    return sid;
}
