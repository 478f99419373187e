/*
 * What `runq report compare` (host/analysis/compare.c) reads of two runs: which
 * run an argument names, its trace's settings and window, and its
 * samples cut into intervals of guest time. The SQL is here; the pairing,
 * the judging and the sign test there.
 *
 * Every function takes one run's database (the command reads both runs
 * from one; a lab's truth from two), never scoped. Text comes from the
 * database, so untrusted: passed as it is (NULL when NULL), for the
 * caller to make visible where it prints it.
 */
#ifndef RUNQ_DB_Q_COMPARE_H
#define RUNQ_DB_Q_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* How an argument names a run: run:N, E/C[/R] or a trace id. */
enum dbq_cmp_by {
    DBQ_CMP_BY_SCENARIO, /* scenario_id a */
    DBQ_CMP_BY_CELL,     /* experiment a, cell b, repeat c */
    DBQ_CMP_BY_TRACE,    /* trace_id a */
};

/* A scenario run's row. */
struct dbq_cmp_run {
    int64_t scenario, trace, experiment; /* scenario 0: no such run; trace or experiment 0: none (NULL) */
    int cell, repeat;
    uint64_t seed;
    char *params, *text, *file, *status; /* malloc'd, NULL when NULL: the caller frees them */
};

/* The newest scenario run named so (the database must have a scenario
 * table: dbq_has_table) into r; r->scenario 0 when there is none. 0, or
 * -1 with err. */
int dbq_cmp_find_run(sqlite3 *db, enum dbq_cmp_by by, int64_t a, int64_t b, int64_t c, struct dbq_cmp_run *r,
                     char *err, size_t errlen);

/* Whether the database holds trace id: 1 or 0, or -1 with err. */
int dbq_cmp_has_trace(sqlite3 *db, int64_t trace, char *err, size_t errlen);

/* A trace's times: its first and last record, and its `scn start` and
 * `scn end` marks (the first start, the last end). A NULL reads 0. */
struct dbq_cmp_times {
    bool found;                    /* the trace has a row */
    int64_t start_ts, end_ts;
    bool has_start_mark, has_end_mark;
    int64_t start_mark, end_mark;
};

/* Trace id's times into t. 0, or -1 with err. */
int dbq_cmp_times(sqlite3 *db, int64_t trace, struct dbq_cmp_times *t, char *err, size_t errlen);

/* A trace's own settings (its row of trace). */
struct dbq_cmp_trace {
    const char *policy;        /* NULL when NULL */
    int ncpus, tick_hz;
    uint64_t features;         /* bit i: the i-th name of feature_names on */
    const char *feature_names; /* comma-separated; NULL when NULL */
};

/* A sched_set row for the whole machine (utid NULL). */
struct dbq_cmp_set {
    const char *what, *name;   /* NULL when NULL */
    int64_t value;             /* new_value */
};

/* Calls on_trace once with trace id's row (not at all when it has none),
 * then on_set for each of its machine-wide sched_set rows up to and at
 * until, in time order; the rows live until the call returns. 0, or -1
 * with err. */
int dbq_cmp_settings(sqlite3 *db, int64_t trace, int64_t until,
                     void (*on_trace)(const struct dbq_cmp_trace *t, void *arg),
                     void (*on_set)(const struct dbq_cmp_set *s, void *arg), void *arg, char *err, size_t errlen);

/* A run's stretch of guest time, cut into intervals: rows of trace at
 * times start <= t < end, row at t in interval (t - start) / interval_ns;
 * of its tasks but the idle ones, or only of those named in task (a name,
 * or a prefix with one '*' at its end). */
struct dbq_cmp_span {
    int64_t trace, start, end;
    uint64_t interval_ns;
    int ntasks;
    const char *const *task;
};

/* Calls fn with each wake->run sample of the span (a wakeup with a
 * latency, in the interval its wakeup falls), by interval, then
 * latency. 0, or -1 with err. */
int dbq_cmp_wake_samples(sqlite3 *db, const struct dbq_cmp_span *sp,
                         void (*fn)(int64_t interval, int64_t latency, void *arg), void *arg, char *err,
                         size_t errlen);

/* What dbq_cmp_counts counts (the database must have a bounce table). */
enum dbq_cmp_count {
    DBQ_CMP_BOUNCES,  /* bounce samples (with a latency), by when the bounce fell */
    DBQ_CMP_RELEASES, /* LEAVE release records */
};

/* Calls fn with each interval of the span that has some, and how many. 0,
 * or -1 with err. */
int dbq_cmp_counts(sqlite3 *db, const struct dbq_cmp_span *sp, enum dbq_cmp_count what,
                   void (*fn)(int64_t interval, int64_t count, void *arg), void *arg, char *err, size_t errlen);

/* Calls fn with each data gap of the span's trace that overlaps the span. 0,
 * or -1 with err. */
int dbq_cmp_gaps(sqlite3 *db, const struct dbq_cmp_span *sp, void (*fn)(int64_t from, int64_t to, void *arg),
                 void *arg, char *err, size_t errlen);

#endif
