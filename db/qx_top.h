/*
 * `runq top`'s reader: the read-only connection its model (tui/model.c)
 * reads through, and every statement, prepared once at open. The model
 * applies what this hands it; the SQL, the cursors and the order of the
 * rows are here.
 *
 * How it reads (tui/model.h says why). The recorder only appends rows,
 * in time order, so the reader keeps one rowid cursor per table and an
 * advance reads only the rows added since. Tables whose rows only make a
 * newer (time, rank) win or add to a count (wakeup, bounce, eevdf_place,
 * sched_tick, eevdf_leave) are read in one step each: SQLite hands each
 * row to a function of the reader as it scans, which skips the return to
 * C per row (a third of what a live view cost). eevdf_pick,
 * queue_snapshot, sched_set and mark need order only among themselves, so
 * they are read that way too, unless a data_gap row is ahead: then they
 * are merged with the gaps row by row in time order (ties: in enum
 * dbq_top_table's order), as a gap must cut a CPU's stint between the
 * picks around it.
 *
 * Faults. Any read SQLite fails (a damaged page, an I/O error) is kept,
 * the first since the reader opened or dbq_top_fault_clear(), as
 * "reading TABLE: SQLite's reason" (dbq_top_fault): a read that stops at
 * a damaged page looks like one that reached the end, and must not pass
 * for it. The functions below that return nothing still keep theirs.
 */
#ifndef RUNQ_DB_QX_TOP_H
#define RUNQ_DB_QX_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/events.h"

/* The tables, in their order at one time: a gap first (it happened
 * before the record that revealed it), then the event tables in the
 * kernel's order (enum event_kind); bounce (schema 8) and migration
 * (schema 12: a move's rule; its LEAVE and JOIN `migrate` are what move
 * the task) are counts and a newest only, never merged. */
enum dbq_top_table {
    DBQ_TOP_GAP, DBQ_TOP_SNAP, DBQ_TOP_WAKE, DBQ_TOP_PLACE, DBQ_TOP_TICK, DBQ_TOP_LEAVE, DBQ_TOP_PICK,
    DBQ_TOP_SET, DBQ_TOP_MARK, DBQ_TOP_BOUNCE, DBQ_TOP_MOVE, DBQ_TOP_NTABLES
};

/* One row, at the time it became true (its "arrival": a gap when the
 * first record after it came, a wakeup or a bounce when the task ran),
 * which is e->ts for an event. It and what it points to live until the
 * callback returns. */
struct dbq_top_row {
    enum dbq_top_table table;
    uint64_t ts;
    /* an event table's row, read as db/events.h's brief columns; kf: a
     * keyframe row's entry */
    const struct event *e;
    const struct event_kf_entry *kf;
    /* DBQ_TOP_GAP: the CPU and the gap's start */
    int64_t cpu;
    uint64_t gap_start;
    /* DBQ_TOP_BOUNCE: the task, and its latency once it ran;
     * DBQ_TOP_MOVE: the task */
    int64_t utid;
    bool ran;
    uint64_t latency;
    /* DBQ_TOP_MOVE: from, to, and the rule (TRACE_MIGRATE_NR: a name this
     * build does not know, Linux's `unknown` among them) */
    int64_t src, dst;
    enum trace_migrate_reason reason;
};

typedef void (*dbq_top_fn)(const struct dbq_top_row *r, void *arg);

struct dbq_top;

/* Opens path (which exists) read-only, with the recorder's liveness
 * (db/recorder_lock.h) for the trace row's status, checks it holds the
 * tables a model reads, picks trace_id (0: the newest) and prepares
 * every statement. NULL with the reason in err, the path first ("PATH:
 * not a runq trace database", "PATH: no trace in this database yet",
 * SQLite's words, or a fault). */
struct dbq_top *dbq_top_open(const char *path, int64_t trace_id, char *err, size_t errlen);
void dbq_top_close(struct dbq_top *r);

int64_t dbq_top_trace_id(const struct dbq_top *r);
/* Whether the trace table has the control column (not every schema's). */
bool dbq_top_has_control(const struct dbq_top *r);

/* Whether the trace records its moves, as the reader found at open: the
 * database has the migration table (schema 12) and the trace is one of
 * trace format 5 or later (runq's kernel writes a MIGRATE for every
 * move) or has a migration row (another engine that records them, as
 * Linux's may). A trace of neither moved tasks unseen: its moves are not
 * known, which is not none. */
bool dbq_top_moves_known(const struct dbq_top *r);

/* The first fault kept ("" none), and forgetting it. */
const char *dbq_top_fault(const struct dbq_top *r);
void dbq_top_fault_clear(struct dbq_top *r);

/* One snapshot of the database (of the WAL) for every read between
 * them. */
void dbq_top_begin(struct dbq_top *r);
void dbq_top_end(struct dbq_top *r);

/* The trace row, with the recorder's liveness applied (a trace whose
 * recorder is gone is incomplete, its end reason recorder_gone, its
 * control socket NULL), and the loss counters of stats. Texts: NULL
 * when NULL. */
struct dbq_top_trace {
    const char *status, *end_reason;
    int ncpus, tick_hz;
    const char *policy;
    uint32_t features;
    const char *feature_names; /* comma-separated, in bit order */
    uint64_t start_ts, end_ts, records;
    const char *engine, *engine_version; /* "runq-kernel", "" before schema 9 */
    const char *control;                 /* NULL too without the column */
    uint64_t packets_lost, records_dropped, resyncs; /* the stream's, 0 when not stated */
};

/* Calls fn with the trace row (it lives until fn returns). Returns 1, 0
 * when the trace is gone, or -1 with SQLite's reason in err. */
int dbq_top_trace(struct dbq_top *r, void (*fn)(const struct dbq_top_trace *t, void *arg), void *arg, char *err,
                  size_t errlen);

/* A thread row. name: NULL when NULL. */
struct dbq_top_thread {
    int64_t utid;
    int tid, nice, cpu;
    const char *name;
    int64_t slice_ns;
    bool is_idle;
    uint64_t start_ts;
    bool has_end;
    uint64_t end_ts;
};

/* Calls fn for the trace's first limit thread rows by utid while fn
 * returns true. Returns 0 when it read them all, else -1 (fn stopped it,
 * or a read failed: SQLite's reason in err). */
int dbq_top_threads(struct dbq_top *r, int64_t limit, bool (*fn)(const struct dbq_top_thread *t, void *arg),
                    void *arg, char *err, size_t errlen);

/* A setting as of a view's start: its old value when it changed at or
 * after it, else (a knob) its new value. */
struct dbq_top_setting {
    int64_t utid;
    enum trace_set_what what;
    const char *name; /* NULL when NULL */
    bool has_value;
    int64_t value;
};

/* The settings as of time from, for a view that starts there: the
 * changes at or after from, newest first (each one's old value), after
 * the knobs' and the feature switches' changes before from, oldest first
 * (each one's new value: the kernel states its knobs once, when tracing
 * starts, and the trace row's features are the STREAM record's, as
 * tracing began, never updated; a thread row's nice and slice are its
 * latest, which the old values take back). */
void dbq_top_settings_at(struct dbq_top *r, uint64_t from, void (*fn)(const struct dbq_top_setting *s, void *arg),
                         void *arg);

/* Moves every table's cursor to just before the trace's first row at or
 * after time from (a binary search over rowids). */
void dbq_top_seek(struct dbq_top *r, uint64_t from);

/* The rowid of CPU cpu's last row of table (DBQ_TOP_PICK, DBQ_TOP_SNAP,
 * DBQ_TOP_GAP) before its cursor, 0 when none. */
int64_t dbq_top_last_before(struct dbq_top *r, enum dbq_top_table table, int cpu);
/* Hands fn row rowid of table (found by dbq_top_last_before) and, for a
 * keyframe, the rows of the same keyframe before it. Returns the row's
 * time, 0 when there is none. */
uint64_t dbq_top_row_at(struct dbq_top *r, enum dbq_top_table table, int64_t rowid, int cpu, dbq_top_fn fn,
                        void *arg);
/* The end of data_gap row rowid (0 if none). */
uint64_t dbq_top_gap_end(struct dbq_top *r, int64_t rowid);

/* Hands fn every row added up to time t, in the order above, and moves
 * the cursors past them. live: every row in this snapshot is at or
 * before t (no search for the last one). Returns 0, or -1 with the first
 * failed table's reason in err ("reading TABLE: ..."). */
int dbq_top_advance(struct dbq_top *r, uint64_t t, bool live, dbq_top_fn fn, void *arg, char *err, size_t errlen);

/* What writing the trace has cost a CPU by time ts: one reading of the
 * COUNTERS trace_records, trace_timed and trace_timed_ns
 * (docs/trace-format.md), cumulative since boot. */
struct dbq_top_cost {
    int cpu;
    uint64_t ts, records, timed, timed_ns;
};

/* Hands fn, in the order stored, every complete reading added since the
 * last call up to time t, and moves its own cursor past them (it starts
 * at the trace's first). A trace whose kernel does not count (older
 * ones, Linux's) has none. Returns 0, or -1 with the reason in err
 * ("reading counter: ..."), also kept as the fault. */
int dbq_top_costs(struct dbq_top *r, uint64_t t, void (*fn)(const struct dbq_top_cost *c, void *arg), void *arg,
                  char *err, size_t errlen);

#endif
