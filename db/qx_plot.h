/*
 * What `runq plot`'s kinds read (host/export/plot_kinds.c draws them): a
 * trace's row, its slices, wakeups and gaps in a window, its wake
 * latencies, and an experiment's cells. The SQL is here, the figures
 * there.
 *
 * Values come from a database, so untrusted: nothing here checks a range
 * (a trace's CPU count is the caller's to judge). Each function returns
 * 0 (or the count it says), or -1 with SQLite's one-line message in err,
 * which the caller prints after its prefix. A function that calls fn per
 * row stops when fn returns false and returns 0 then.
 */
#ifndef RUNQ_DB_QX_PLOT_H
#define RUNQ_DB_QX_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* A trace's row: start and end (the start when the end is NULL, 0 when
 * both are), CPUs (1 when NULL, cut to an int as SQLite cuts it). */
struct dbq_plot_trace {
    int64_t start, end;
    int ncpus;
};

/* Trace id's row into *t and its policy into policy (cut to policylen;
 * "" when NULL). Returns 1, 0 when there is no such trace, or -1. */
int dbq_plot_trace(sqlite3 *db, int64_t id, struct dbq_plot_trace *t, char *policy, size_t policylen, char *err,
                   size_t errlen);

/* Calls fn with every trace's id, ascending. */
int dbq_plot_traces(sqlite3 *db, bool (*fn)(int64_t id, void *arg), void *arg, char *err, size_t errlen);

/* The parameters of a scenario run that recorded trace id (its first
 * with any), into buf (cut to len), "" when none: a database from before
 * experiments has no scenario table, and so none. */
int dbq_plot_trace_params(sqlite3 *db, int64_t id, char *buf, size_t len, char *err, size_t errlen);

/* A slice of the timeline, clipped to the window. name: "" when NULL;
 * shared: another task of the trace that is not an idle task has it. */
struct dbq_plot_slice {
    int64_t utid;
    int tid, cpu;
    const char *name;
    bool shared;
    int64_t from, to;
};

/* The slices of trace id's tasks that are not idle tasks, that last and
 * overlap [from, to), task by task (utid), each in time order. s and its
 * name live until fn returns. */
int dbq_plot_slices(sqlite3 *db, int64_t id, int64_t from, int64_t to,
                    bool (*fn)(const struct dbq_plot_slice *s, void *arg), void *arg, char *err, size_t errlen);

/* The wakeups of trace id in [from, to) whose wakee's CPU is known, in
 * time order: their ts_wake and that CPU. */
int dbq_plot_wakeups(sqlite3 *db, int64_t id, int64_t from, int64_t to,
                     bool (*fn)(int64_t ts, int cpu, void *arg), void *arg, char *err, size_t errlen);

/* The decisions (picks) of trace id in [from, to), in time order: their
 * time and CPU. */
int dbq_plot_picks(sqlite3 *db, int64_t id, int64_t from, int64_t to, bool (*fn)(int64_t ts, int cpu, void *arg),
                   void *arg, char *err, size_t errlen);

/* A move between CPUs (the migration table, schema 12): when, from
 * where to where, and its rule's name as stored ("" when NULL; text from
 * the database, to be quoted). */
struct dbq_plot_move {
    int64_t ts;
    int src, dst;
    const char *reason;
};

/* The moves of trace id in [from, to), in time order; m and its reason
 * live until fn returns. A database before schema 12 has none. */
int dbq_plot_moves(sqlite3 *db, int64_t id, int64_t from, int64_t to,
                   bool (*fn)(const struct dbq_plot_move *m, void *arg), void *arg, char *err, size_t errlen);

/* The first stall of trace id's probe into *ts: the earliest wakeup that
 * waited stall_ns or longer, of a task a scenario measured stalls of
 * (scenario_metric 'stall') or named probe or waiter (sched probe's).
 * Returns 1, 0 when there is none, or -1. */
int dbq_plot_first_stall(sqlite3 *db, int64_t id, int64_t stall_ns, int64_t *ts, char *err, size_t errlen);

/* The data gaps of trace id that overlap [from, to), clipped to it, by
 * CPU then start: a gap's missing start is from, its missing end is
 * end (the trace's: nothing came after it). */
int dbq_plot_gaps(sqlite3 *db, int64_t id, int64_t from, int64_t to, int64_t end,
                  bool (*fn)(int64_t a, int64_t b, int cpu, void *arg), void *arg, char *err, size_t errlen);

/* The wake latencies (ns) of trace id's wakeups that ran, of the tasks
 * called task (NULL: every task), in no order. */
int dbq_plot_latencies(sqlite3 *db, int64_t id, const char *task, bool (*fn)(int64_t ns, void *arg), void *arg,
                       char *err, size_t errlen);

/* An experiment's row; its texts "" when NULL, the caller frees them
 * with dbq_plot_experiment_free. */
struct dbq_plot_experiment {
    char *file, *engine, *axes, *columns;
    int repeats;
};

/* Whether the database has experiments (a database from before them
 * has no table for them) and the newest one's id (0: none). */
int dbq_plot_experiments(sqlite3 *db, bool *has, int64_t *newest, char *err, size_t errlen);

/* Experiment id into *x. Returns 1, 0 when there is no such experiment,
 * or -1. */
int dbq_plot_experiment(sqlite3 *db, int64_t id, struct dbq_plot_experiment *x, char *err, size_t errlen);
void dbq_plot_experiment_free(struct dbq_plot_experiment *x);

/* Metric task.metric of experiment id: how many of its runs' rows name
 * it (*rows) and how many of those hold a value (*values). */
int dbq_plot_metric_count(sqlite3 *db, int64_t id, const char *task, const char *metric, int *rows, int *values,
                          char *err, size_t errlen);

/* A cell of the experiment with one engine: the mean, least and most of
 * the metric over its successful repeats that hold a value. */
struct dbq_plot_cell {
    int cell;
    char *engine, *params; /* params: "" when NULL */
    double mean, min, max;
};

/* The cells of experiment id with a value of task.metric, by cell then
 * engine, into *cells (*n; the caller frees with dbq_plot_cells_free). */
int dbq_plot_cells(sqlite3 *db, int64_t id, const char *task, const char *metric, struct dbq_plot_cell **cells,
                   size_t *n, char *err, size_t errlen);
void dbq_plot_cells_free(struct dbq_plot_cell *cells, size_t n);

#endif
