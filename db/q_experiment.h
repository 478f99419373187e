/*
 * An experiment's rows as its table reads them (host/experiment/experiment_table.c,
 * which `runq experiment` and `runq report experiment` print): its
 * experiment row, each cell's runs, and every value a cell's column is
 * made from. The SQL is here, the arithmetic and the printing there.
 *
 * Which runs make a cell's values: those that succeeded, and of them a
 * disturbed one (a Linux run other processes took too much of its CPUs
 * from: docs/experiments.md, "Measurement you can trust") only when no
 * run of its cell on its engine is clean. A database from before schema
 * version 11 has no foreign CPU time: none measured, none disturbed
 * (readers migrate nothing).
 *
 * Text comes from the database, so untrusted: passed as it is (NULL
 * when NULL), for the caller to make visible where it prints it.
 */
#ifndef RUNQ_DB_Q_EXPERIMENT_H
#define RUNQ_DB_Q_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* An experiment row; text NULL reads "", each cut to its size. */
struct dbq_experiment {
    int64_t id;
    char file[512], engine[64], axes[256], shard[512];
    char columns[2048]; /* TASK.METRIC,... */
    int cells, repeats;
};

/* Experiment id's row (id <= 0: the newest) into e. 0, or -1 with err:
 * "the database holds no experiment (it has no experiment table)" (a
 * database from before schema version 5), "the database holds no
 * experiment", "no experiment N in the database", or an SQL error. */
int dbq_experiment_read(sqlite3 *db, int64_t id, struct dbq_experiment *e, char *err, size_t errlen);

/* A cell's runs. */
struct dbq_experiment_cell {
    int cell;
    const char *params;       /* NULL when NULL */
    int runs, ok;             /* all its runs, those that succeeded */
    int left_out;             /* ok and disturbed, with a clean run of the cell on their engine */
    int kept_disturbed;       /* ok and disturbed, with none */
    int foreign_n;            /* ok runs that measured the foreign share (other processes' CPU time / run_ns) */
    double foreign_mean, foreign_min, foreign_max; /* of those; read only when foreign_n > 0 */
};

/* The condition on a run `s` (a scenario row) under which its values make
 * its cell's: it succeeded, and it is not disturbed unless its cell (on
 * its engine) has no clean run. Every figure made of a cell's runs uses
 * it (the table, the plot), so that they agree. 0, or -1 with err. */
int dbq_experiment_used_runs(sqlite3 *db, char used[512], char *err, size_t errlen);

/* Calls fn for each cell of experiment id that has runs, in cell order;
 * c lives until fn returns. 0, or -1 with err. */
int dbq_experiment_cells(sqlite3 *db, int64_t id, void (*fn)(const struct dbq_experiment_cell *c, void *arg),
                         void *arg, char *err, size_t errlen);

/* One value of a run that makes its cell's (see above). */
struct dbq_experiment_value {
    int cell;
    const char *task, *metric, *engine; /* NULL when NULL */
    double value;
};

/* Calls fn for each value of experiment id that is not NULL, ordered by
 * cell, engine, task, metric and value (a column's values together,
 * sorted); v lives until fn returns. 0, or -1 with err. */
int dbq_experiment_values(sqlite3 *db, int64_t id, void (*fn)(const struct dbq_experiment_value *v, void *arg),
                          void *arg, char *err, size_t errlen);

#endif
