/*
 * Each recorded pick with the queue stored at its moment: the rows of
 * eevdf_pick and of queue_snapshot at the same (trace, ts, cpu), read
 * together in time order, typed. What `runq report fidelity`
 * (cli/fidelity.c) replays; the SQL is here, the judging there.
 *
 * On a Linux trace with internals the snapshot of a pick is the queue
 * right after it (docs/sql.md, "Traces from Linux"): next is its current,
 * prev is back in the tree if it stayed runnable. On a runq-kernel trace
 * snapshots are keyframes, not tied to picks.
 *
 * Values come from a database, so untrusted: a NULL is said (known, prot
 * -1, nr_runnable -1), never read as 0, and nothing here checks a range.
 */
#ifndef RUNQ_DB_PICK_QUEUE_H
#define RUNQ_DB_PICK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* What a trace is, for deciding whether its picks can be replayed. */
struct pickq_trace {
    char engine[16];          /* "runq-kernel", "linux" (as stored, cut; "runq-kernel" before schema 9) */
    char version[64];         /* engine_version: Linux's release; "" when NULL */
    int ncpus, tick_hz;
    int64_t start_ts;         /* 0: no records yet */
    int64_t picks_internals;  /* stats linux_picks_internals; -1: no such row */
    int64_t picks_with_v;     /* picks whose V is known */
    int64_t snapshots;        /* queue_snapshot rows */
};

/* Returns 0, or -1 with the reason in err (no such trace: "no trace N"). */
int pickq_trace_read(sqlite3 *db, int64_t trace_id, struct pickq_trace *t, char *err, size_t errlen);

/* A row of queue_snapshot. */
struct pickq_ent {
    int utid, tid;            /* tid: its thread's; -1 when utid has no thread row */
    bool is_idle;
    bool current, eligible, delayed; /* eligible, delayed: NULL reads false */
    bool known;               /* weight, vruntime, deadline and slice_ns are not NULL */
    int prot;                 /* protected: 1, 0, or -1 (NULL, or a database before schema 10) */
    int nice;
    int64_t weight, vruntime, deadline, slice_ns;
};

/* A row of eevdf_pick and the snapshot rows of its (ts, cpu). */
struct pickq_pick {
    int64_t ts;
    int cpu;
    int prev, next;           /* utids; 0: NULL */
    int prev_tid, next_tid;   /* -1: no thread row */
    bool prev_idle, next_idle;
    bool has_v;
    int64_t v;
    int nr_runnable;          /* -1: NULL */
    const struct pickq_ent *ent; /* in stored order: a Linux trace stores current first */
    int nent;
};

/* Calls fn for each pick of trace_id in time order (then CPU, then as
 * stored); p and its rows live until fn returns. Returns 0, or -1 with
 * the reason in err (an SQL error, a damaged page). */
int pickq_each(sqlite3 *db, int64_t trace_id, void (*fn)(const struct pickq_pick *p, void *arg), void *arg,
               char *err, size_t errlen);

#endif
