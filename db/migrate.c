/*
 * Schema migrations (contract in migrate.h).
 *
 * Version 1 is the first schema (git show 0069d36:db/schema.sql). Each
 * step of steps[] makes the next version, so the current version is one
 * more than the number of steps. A change to db/schema.sql is a new step
 * at the end of steps[], in the same commit: tests/trace/trace_migrate.sh checks
 * that a database brought up from version 1 has the columns of a new one.
 */
#include <stdio.h>
#include <string.h>

#include "db/migrate.h"

static const struct step {
    const char *sql;
    /* The column the step adds: how a database of version 0 shows that
     * it had the step (the runq that made it ran it at every open). */
    const char *table, *column;
    /* A view the step creates, as db/schema.sql has it (NULL: none). */
    const char *view;
} steps[] = {
    /* 2: the Unix socket of a live recorder (db_writer_set_control) */
    { "ALTER TABLE trace ADD COLUMN control TEXT", "trace", "control", NULL },
    /* 3: trace format 2's LEAVE carries the task's deadline (NULL before) */
    { "ALTER TABLE eevdf_leave ADD COLUMN deadline INTEGER", "eevdf_leave", "deadline", NULL },
    /* 4: records the merge could not put in time order are loss, with a gap */
    { "ALTER TABLE data_gap ADD COLUMN records_late INTEGER", "data_gap", "records_late", NULL },
    /* 5: scenarios and experiments (runq experiment) */
    { "CREATE TABLE IF NOT EXISTS experiment (experiment_id INTEGER PRIMARY KEY, created TEXT NOT NULL, file TEXT, "
      "engine TEXT NOT NULL, axes TEXT, cells INTEGER NOT NULL, repeats INTEGER NOT NULL, shard TEXT, columns TEXT, "
      "command TEXT);"
      "CREATE TABLE IF NOT EXISTS scenario (scenario_id INTEGER PRIMARY KEY, experiment_id INTEGER, cell INTEGER, "
      "repeat INTEGER, seed INTEGER NOT NULL, trace_id INTEGER, engine TEXT NOT NULL, params TEXT, run_ns INTEGER, "
      "status TEXT NOT NULL, error TEXT, text TEXT);"
      "CREATE TABLE IF NOT EXISTS scenario_task (scenario_id INTEGER NOT NULL, instance INTEGER NOT NULL, task TEXT "
      "NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, tid INTEGER, utid INTEGER, cpu INTEGER, window_ns INTEGER, "
      "runtime_ns INTEGER, wakeups INTEGER, missed INTEGER, stalls INTEGER, dropped INTEGER, p50_ns INTEGER, p90_ns "
      "INTEGER, p99_ns INTEGER, p999_ns INTEGER, max_ns INTEGER, iters INTEGER, vcsw INTEGER, ivcsw INTEGER, "
      "PRIMARY KEY (scenario_id, instance));"
      "CREATE TABLE IF NOT EXISTS scenario_metric (scenario_id INTEGER NOT NULL, task TEXT NOT NULL, metric TEXT "
      "NOT NULL, value REAL, PRIMARY KEY (scenario_id, task, metric))",
      "scenario", "scenario_id", NULL },
    /* 6: trace format 3's JOIN carries the wakeup check; thread_switches */
    { "ALTER TABLE eevdf_place ADD COLUMN curr_utid INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN wake_check TEXT;"
      "ALTER TABLE eevdf_place ADD COLUMN curr_vruntime INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN curr_deadline INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN curr_vprot INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN requeue INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN charged_first INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN clipped INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN wakee_eligible INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN curr_eligible INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN curr_protected INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN cut_short INTEGER;"
      "ALTER TABLE eevdf_place ADD COLUMN pending INTEGER",
      "eevdf_place", "curr_utid", "thread_switches" },
    /* 7: a scenario task's pipe reads (its handoffs) */
    { "ALTER TABLE scenario_task ADD COLUMN reads INTEGER", "scenario_task", "reads", NULL },
    /* 8: trace format 4's classes: a task's class, the bounce -> run
     * population; thread_switches counts a release (not a migrate, which
     * switches nothing now) as involuntary, so the view is made again */
    { "ALTER TABLE thread ADD COLUMN class TEXT;"
      "ALTER TABLE thread ADD COLUMN rt_prio INTEGER;"
      "ALTER TABLE thread ADD COLUMN rt_policy TEXT;"
      "ALTER TABLE eevdf_leave ADD COLUMN by_class TEXT;"
      "CREATE TABLE IF NOT EXISTS bounce (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, utid INTEGER NOT NULL, "
      "ts_bounce INTEGER NOT NULL, ts_run INTEGER, latency INTEGER, cpu INTEGER, run_cpu INTEGER, by_class TEXT);"
      "DROP VIEW IF EXISTS thread_switches",
      "thread", "class", "thread_switches" },
    /* 9: the engine that made a trace (runq's kernel, or the host's Linux
     * through tracefs) and its version; every trace before was runq's */
    { "ALTER TABLE trace ADD COLUMN engine TEXT;"
      "ALTER TABLE trace ADD COLUMN engine_version TEXT;"
      "UPDATE trace SET engine = 'runq-kernel' WHERE engine IS NULL",
      "trace", "engine", NULL },
    /* 10: Linux traces with internals (BPF) say which queued task was
     * under RUN_TO_PARITY's protection (NULL where that is not known), and
     * the level above the scenario's queue (linux_group) */
    { "ALTER TABLE queue_snapshot ADD COLUMN protected INTEGER;"
      "CREATE TABLE IF NOT EXISTS linux_group (trace_id INTEGER NOT NULL, ts INTEGER NOT NULL, cpu INTEGER NOT "
      "NULL, depth INTEGER NOT NULL, weight INTEGER, vruntime INTEGER, deadline INTEGER, lag INTEGER, slice_ns "
      "INTEGER, eligible INTEGER, is_current INTEGER, v INTEGER, nr_queued INTEGER)",
      "queue_snapshot", "protected", NULL },
    /* 11: a Linux run's foreign CPU time (what other processes took on
     * its CPUs) and whether that disturbed it; NULL before: not measured */
    { "ALTER TABLE scenario ADD COLUMN foreign_ns INTEGER;"
      "ALTER TABLE scenario ADD COLUMN disturbed INTEGER",
      "scenario", "foreign_ns", NULL },
    /* 12: trace format 5's MIGRATE: every move between CPUs with its
     * reason and the CPUs' loads (issue 35) */
    { "CREATE TABLE IF NOT EXISTS migration (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, ts INTEGER NOT "
      "NULL, utid INTEGER NOT NULL, src_cpu INTEGER NOT NULL, dst_cpu INTEGER NOT NULL, reason TEXT NOT NULL, "
      "queued INTEGER NOT NULL, src_nr INTEGER, src_running INTEGER, src_load INTEGER, dst_nr INTEGER, "
      "dst_running INTEGER, dst_load INTEGER);"
      "CREATE TABLE IF NOT EXISTS migration_load (trace_id INTEGER NOT NULL, ts INTEGER NOT NULL, utid INTEGER "
      "NOT NULL, cpu INTEGER NOT NULL, nr_running INTEGER NOT NULL, running INTEGER NOT NULL, load INTEGER NOT NULL)",
      "migration", "utid", NULL },
};

#define NSTEPS ((int)(sizeof steps / sizeof steps[0]))
#define SCHEMA_VERSION (1 + NSTEPS)

/* The one integer sql's first row holds (0 when it has none), through
 * *out; bound text parameters a and b (NULL: none). SQLite's result code. */
static int query_int(sqlite3 *db, const char *sql, const char *a, const char *b, int *out)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    if (a)
        sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
    if (b)
        sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_finalize(s);
    return rc;
}

/* The version of a database of version 0 that has tables: 1, and one more
 * for each step in order whose column it has. */
static int unversioned_version(sqlite3 *db, int *version)
{
    *version = 1;
    for (int i = 0; i < NSTEPS; i++) {
        int has;
        int rc = query_int(db, "SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2", steps[i].table,
                           steps[i].column, &has);
        if (rc != SQLITE_OK)
            return rc;
        if (!has)
            break;
        *version = i + 2;
    }
    return SQLITE_OK;
}

/* Creates view `name` as db/schema.sql does: its one statement there,
 * found by its opening and ended where SQLite's parser ends it, so the
 * view has one definition. SQLite's result code; *msg as sqlite3_exec's. */
static int create_schema_view(sqlite3 *db, const char *name, char **msg)
{
    char head[128];
    snprintf(head, sizeof head, "CREATE VIEW IF NOT EXISTS %s ", name);
    const char *at = strstr(db_schema_sql, head);
    sqlite3_stmt *s;
    if (!at) {
        *msg = sqlite3_mprintf("db/schema.sql has no view %s", name);
        return SQLITE_ERROR;
    }
    int rc = sqlite3_prepare_v2(db, at, -1, &s, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_finalize(s);
    }
    return rc;
}

/* PRAGMA name = value. 0, or -1 with a message in err. */
static int set_pragma(sqlite3 *db, const char *name, int value, const char *path, char *err, size_t errlen)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA %s = %d", name, value);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/* Runs what brings the database from version to the current one (all of
 * the schema when it is empty) and stamps it. Inside the transaction. */
static int migrate_from(sqlite3 *db, int version, const char *path, char *err, size_t errlen)
{
    char *msg = NULL;
    if (version == 0) {
        int tables;
        int rc = query_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'trace'",
                           NULL, NULL, &tables);
        if (rc == SQLITE_OK && !tables) {
            rc = sqlite3_exec(db, db_schema_sql, NULL, NULL, &msg);
            version = SCHEMA_VERSION;
        } else if (rc == SQLITE_OK) {
            rc = unversioned_version(db, &version);
        }
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(db));
            sqlite3_free(msg);
            return -1;
        }
    }
    for (; version < SCHEMA_VERSION; version++)
        if (sqlite3_exec(db, steps[version - 1].sql, NULL, NULL, &msg) != SQLITE_OK ||
            (steps[version - 1].view && create_schema_view(db, steps[version - 1].view, &msg) != SQLITE_OK)) {
            snprintf(err, errlen, "%s: migrating the schema from version %d to %d: %s", path, version,
                     version + 1, msg ? msg : sqlite3_errmsg(db));
            sqlite3_free(msg);
            return -1;
        }
    return set_pragma(db, "user_version", SCHEMA_VERSION, path, err, errlen);
}

int db_check_runq(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    int tables, core, cols;
    if (query_int(db, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, &tables) != SQLITE_OK ||
        query_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('trace', 'thread', "
                      "'eevdf_pick')", NULL, NULL, &core) != SQLITE_OK ||
        query_int(db, "SELECT COUNT(*) FROM pragma_table_info('trace') WHERE name IN ('policy', 'ncpus')", NULL,
                  NULL, &cols) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    if (core == 3 && cols == 2)
        return 0;
    if (tables == 0) {
        /* A new file: SQLite fixes the page size when it first writes
         * (the WAL switch), so it is chosen here. A recording writes each
         * page three times at least (the WAL, the checkpoint, the index
         * build's sort): 16 KiB pages take a quarter of the system calls
         * of 4 KiB ones, and tests/trace/trace_bench.sh's runq record
         * 6-10 % less time (docs/sql.md, "Page size"). An older database
         * keeps its own. */
        return set_pragma(db, "page_size", DB_PAGE_SIZE, path, err, errlen);
    }
    snprintf(err, errlen, "%s: not a runq trace database (it holds another program's tables); left as it was: "
             "record into a new file", path);
    return -1;
}

int db_migrate(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    /* IMMEDIATE: two recorders opening one old database migrate it once;
     * the second waits (busy timeout), then reads the new version. */
    int version;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        query_int(db, "PRAGMA user_version", NULL, NULL, &version) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto fail;
    }
    if (version > SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "%s: schema version %d is newer than this runq's (%d): record with a newer runq, or into "
                 "another database",
                 path, version, SCHEMA_VERSION);
        goto fail;
    }
    if (version < SCHEMA_VERSION && migrate_from(db, version, path, err, errlen) != 0)
        goto fail;
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto fail;
    }
    return 0;
fail:
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}
