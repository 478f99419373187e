/*
 * What `runq export --perfetto` reads (host/export/export.c picks the traces,
 * host/export/perfetto.c writes the lines): the SQL is here, the ftrace text
 * there.
 *
 * Every function reads main.* tables only, so a connection scoped to
 * one trace (db/query.h, dbq_scope_trace) reads the same. Values come
 * from a database, so untrusted: a NULL is said where the writer needs
 * to tell it from 0 (has_*), else read as 0, as sqlite3_column_int64
 * reads it. Each returns 0, or -1 with a one-line message in err:
 * SQLite's own words, which the caller prints after its prefix.
 */
#ifndef RUNQ_DB_QX_EXPORT_H
#define RUNQ_DB_QX_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* The traces experiment id recorded (scenario rows with a trace), in
 * ascending order, into *ids (*n of them; the caller frees *ids, NULL
 * when none); *found: the experiment exists. On a statement that does
 * not prepare, err ends "(is it a runq database?)". */
int dbq_export_experiment_traces(sqlite3 *db, int64_t id, bool *found, int64_t **ids, size_t *n, char *err,
                                 size_t errlen);

/* Whether trace id exists; false too when the database cannot say. */
bool dbq_export_trace_exists(sqlite3 *db, int64_t id);

/* A row of thread. name: NULL when NULL; it lives until fn returns. */
struct dbq_export_thread {
    int64_t utid, tid, nice; /* nice: 0 when NULL */
    bool idle;
    const char *name;
};

/* Calls fn for each thread of trace in utid order while fn returns true.
 * Returns 0 (every row, or fn stopped), or -1 with err. */
int dbq_export_threads(sqlite3 *db, int64_t trace, bool (*fn)(const struct dbq_export_thread *t, void *arg),
                       void *arg, char *err, size_t errlen);

/* The trace row's policy and engine (NULL when NULL or empty; the caller
 * frees them with dbq_export_head_free) and CPUs (0 when NULL). */
struct dbq_export_head {
    char *policy, *engine;
    int64_t ncpus;
};

/* Fills h; all empty when there is no such trace. Returns 0, or -1 with
 * err (h empty). */
int dbq_export_head(sqlite3 *db, int64_t trace, struct dbq_export_head *h, char *err, size_t errlen);
void dbq_export_head_free(struct dbq_export_head *h);

/* The first (in time) slice of trace that begins before the slice
 * before it on its CPU ended: *cpu and *ts. Returns 1 when there is
 * one, 0 when the slices make a schedule, -1 with err. */
int dbq_export_overlap(sqlite3 *db, int64_t trace, int64_t *cpu, int64_t *ts, char *err, size_t errlen);

/* The rows of a trace that the export writes, each kind read in time
 * order and all merged by time; at one time, in the order of this enum
 * (host/export/perfetto.c says why: a wakeup before the switch it may cause,
 * counters after it). */
enum dbq_export_kind {
    DBQ_EXPORT_WAKE,   /* a row of wakeup */
    DBQ_EXPORT_SWITCH, /* a switch into or out of a row of sched_slice */
    DBQ_EXPORT_V,      /* a CPU's V: eevdf_pick, eevdf_place, eevdf_leave, sched_tick */
    DBQ_EXPORT_TASK,   /* a task's numbers: eevdf_pick's next, eevdf_place, eevdf_leave */
    DBQ_EXPORT_GAP,    /* a data_gap's begin or end */
    DBQ_EXPORT_MARK,   /* a row of mark */
    DBQ_EXPORT_NKINDS
};

/* Where a switch comes from or goes to. */
enum dbq_export_side {
    DBQ_EXPORT_SLICE, /* a slice's task: the one before (from), the switch's own (to) */
    DBQ_EXPORT_IDLE,  /* the CPU's idle task: before its first slice, after its last */
    DBQ_EXPORT_NODATA /* nothing known: a hole in the CPU's slices follows (to) or ends (from) */
};

struct dbq_export_row {
    enum dbq_export_kind kind;
    int64_t ts, cpu;
    union {
        struct {
            bool has_waker;      /* false: a timer or an interrupt */
            int64_t waker, wakee; /* utids */
            int64_t target_cpu;  /* the wakee's CPU, else the waker's, else 0; cpu: the other way round */
        } wake;
        struct {
            enum dbq_export_side from, to;
            /* from == DBQ_EXPORT_SLICE: the slice before */
            bool has_prev, has_prev_prio;
            int64_t prev_utid, prev_prio;
            const char *prev_state; /* its end_state; NULL when NULL */
            /* to == DBQ_EXPORT_SLICE: the slice's own */
            bool has_next, has_next_prio;
            int64_t next_utid, next_prio;
        } sw;
        struct {
            int64_t v;
        } v;
        struct {
            int64_t utid;
            bool has[3];         /* lag, deadline, vruntime; an eevdf_place's lag is lag_after */
            int64_t num[3];
        } task;
        struct {
            bool end;            /* false: the gap's begin, with its counts */
            int64_t packets_lost, records_dropped;
            bool has_late;
            int64_t records_late;
        } gap;
        struct {
            const char *name;    /* NULL when NULL */
        } mark;
    };
};

/* Calls fn for each row of trace in that order while fn returns true; a
 * row and its text live until fn returns. A data_gap row with neither
 * end is none; a gap's missing end is its start and the other way round;
 * a mark of no CPU is on CPU 0. Every kind's first row is read before fn
 * is called: a read that fails there calls fn for none. Returns 0 (every
 * row, or fn stopped), or -1 with err. */
int dbq_export_rows(sqlite3 *db, int64_t trace, bool (*fn)(const struct dbq_export_row *r, void *arg), void *arg,
                    char *err, size_t errlen);

#endif
