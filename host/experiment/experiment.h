/*
 * `runq experiment`: a scenario, or a matrix of it (vary axes × repeats),
 * run by an engine and stored in the database; and the experiment's
 * table, built from the database alone, so `runq report experiment`
 * prints the same table again (docs/experiments.md).
 *
 *   host/cli/experiment.c               the command's top: flags, help, checks
 *   host/experiment/experiment.c        the matrix, the runs, the pool
 *   host/experiment/experiment_table.c  the table from SQL: text, CSV, JSON
 *   host/experiment/merge.c             `runq merge`: shards' databases into one
 *                                       (merge.h)
 */
#ifndef RUNQ_CLI_EXPERIMENT_H
#define RUNQ_CLI_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "db/query.h"
#include "host/scenario/scenario.h"

struct engine_ops;

#define XP_DEFAULT_DB "runq.db"
#define XP_DEFAULT_TIMEOUT 900 /* seconds a kernel run may take */
#define XP_MAX_ENGINES 3       /* each engine at most once */
#define XP_MAX_RERUNS 100      /* --rerun-disturbed's bound */
#define XP_MAX_REPEAT 1000
#define XP_MAX_RUNS 100000     /* cells x repeats x engines */

/* What runq experiment runs, as its flags said it (host/cli/experiment.c
 * parses and checks them). */
struct experiment_opts {
    const char *file;  /* the scenario file */
    const char *db;    /* the database runs and traces go to */
    const char *engine; /* the engines as given ("kernel,linux"): the experiment's engine column */
    int nengines;      /* 1..XP_MAX_ENGINES */
    const struct engine_ops *engines[XP_MAX_ENGINES]; /* each once; every run of one before the next's */
    int nvary;
    const char *vary[SCN_MAX_VARY]; /* --vary KEY=V1,V2 as given, each replacing the file's axis of KEY */
    int repeat;        /* runs a cell, 1..XP_MAX_REPEAT, with seeds seed..seed+repeat-1 */
    bool seed_given;   /* false: seed is the file's */
    uint64_t seed;
    int jobs;          /* runs at once; 0: each engine's default (host/engine/engine.h) */
    int timeout;       /* seconds a kernel run may take */
    int shard_i, shard_n; /* run only the runs numbered shard_i - 1 modulo shard_n; 0/0: all */
    int rerun;         /* linux: times a disturbed run runs again, 0..XP_MAX_RERUNS */
    bool realtime;     /* kernel runs without icount */
    bool no_record;    /* store metrics only, no trace */
    bool allow_rt_hog; /* linux: RT tasks that never sleep may hold every host CPU */
    bool dry_run;      /* check, print the cells (and each engine's dry run), run nothing */
    bool quiet;        /* no progress or notes on stderr */
    bool missed_late;  /* the table's stall columns count missed targets late (experiment_table) */
    enum dbq_format fmt; /* the table's */
    int argc;          /* the command line (argv[0] "experiment"), stored with the experiment */
    char **argv;
};

/* Runs the experiment o says: loads and checks the scenario and its
 * axes, checks every cell on every engine before any run starts, stores
 * the experiment and each run as it ends (a failed one too, with why;
 * docs/experiments.md), then prints the experiment's table on stdout.
 * Progress and notes go to stderr, each line "runq experiment: ...".
 * Returns the exit status: 0; 1 when a run failed or the database could
 * not be written; 2 after a usage error found in the file or the axes (one
 * line, before anything ran); 128 + the signal that stopped it (SIGINT,
 * SIGTERM, SIGHUP: no new runs, the running ones end and are stored as
 * failed). */
int experiment_run(const struct experiment_opts *o);

/* A Linux run is disturbed when the CPU time other processes took on its
 * CPUs in its window, summed over them, passes this percentage of the
 * window (scenario.disturbed; docs/experiments.md, "Measurement you can
 * trust"): the table leaves its values out of its cell's when the cell
 * has a clean run. */
#define XP_DISTURBED_PERCENT 2

/* Prints experiment id's table (0: the newest experiment) from db: one
 * row per cell, each column's mean and spread (min..max) over the
 * repeats that succeeded. Every stall share column has its task's missed
 * share beside it; missed_late shows the stall share with missed targets
 * counted late (TASK.stall_grid) in the stall column's place. 0, or 1
 * after a one-line error on stderr starting "runq PROG: ". */
int experiment_table(sqlite3 *db, const char *prog, int64_t id, enum dbq_format fmt, bool missed_late, FILE *out);

/* --missed-late's help, one text for runq experiment and runq report
 * experiment (docs/experiments.md, "Missed targets"). */
#define XP_MISSED_LATE_HELP                                                                                   \
    "count missed periodic targets as late, every target of the grid\n"                                      \
    "once: the stall column becomes TASK.stall_grid, (stalls + missed)\n"                                     \
    "/ (wakeups - dropped + missed)"

#endif
