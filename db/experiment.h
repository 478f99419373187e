/*
 * Storing experiments and scenario runs (the tables experiment, scenario,
 * scenario_task and scenario_metric of db/schema.sql; docs/sql.md). Plain
 * rows in, so db/ needs nothing of the scenario format: runq experiment
 * (host/experiment/experiment.c) fills them. Every function prints nothing and
 * returns -1 with a one-line message in err on failure.
 *
 * Several runq processes may store into one database at once (an
 * experiment's cells record their traces while it stores results): each
 * write is its own IMMEDIATE transaction, and the connection waits up to
 * a minute for another writer.
 */
#ifndef RUNQ_DB_EXPERIMENT_H
#define RUNQ_DB_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* Opens (creating) path read-write as a runq database at the current
 * schema version. NULL with err on failure. */
sqlite3 *dbx_open(const char *path, char *err, size_t errlen);

struct dbx_experiment {
    const char *file, *engine, *axes, *shard, *columns, *command;
    int cells, repeats;
};
/* A new experiment row; its id, or -1. */
int64_t dbx_add_experiment(sqlite3 *db, const struct dbx_experiment *e, char *err, size_t errlen);

struct dbx_task {
    int instance, idx, cpu;
    const char *task, *name;
    int64_t tid;       /* < 0: none */
    uint64_t window_ns, runtime_ns, wakeups, missed, stalls, dropped, late[5], vcsw, ivcsw, reads;
    bool has_iters;
    uint64_t iters;
};

struct dbx_metric {
    const char *task, *metric;
    double value; /* NAN: stored as NULL */
};

struct dbx_scenario {
    int64_t experiment_id; /* <= 0: none */
    int cell, repeat;
    uint64_t seed, run_ns;
    int64_t trace_id;      /* <= 0: none */
    const char *engine, *params, *status, *error, *text;
    /* What other processes took on the run's CPUs in its window, and
     * whether that disturbed it (the Linux engine; docs/experiments.md);
     * both stored NULL unless foreign_known. */
    bool foreign_known, disturbed;
    uint64_t foreign_ns;
    int ntasks;
    const struct dbx_task *tasks;
    int nmetrics;
    const struct dbx_metric *metrics;
};
/* A scenario run with its tasks and metrics, in one transaction; each
 * task's utid is looked up from the trace's thread rows by tid. Its id,
 * or -1. */
int64_t dbx_add_scenario(sqlite3 *db, const struct dbx_scenario *s, char *err, size_t errlen);

#endif
