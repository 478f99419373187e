/*
 * Each recorded pick with the queue stored at its moment: the rows of
 * eevdf_pick and of queue_snapshot at the same (trace, ts, cpu), read
 * together in time order, typed. What `runq report fidelity`
 * (host/analysis/fidelity.c) replays; the SQL is here, the judging there.
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

/* A thread that blocked and left its queue at a recorded pick (an
 * eevdf_leave 'block' whose thread is not in the snapshot of that moment:
 * dequeued, not delayed), with what the lag it keeps was made from: its
 * vruntime, weight and slice (from the latest snapshot row it was in
 * before), and the queue it left, which is the snapshot at that moment
 * plus itself (the pick only moved next out of the tree; an idle CPU's
 * row is no entity). */
struct pickq_leave {
    int64_t ts;
    int cpu;
    int64_t vruntime, lag;    /* as recorded: Linux's vlag after its clamp */
    int64_t weight, slice_ns; /* its own; 0: not known */
    int64_t sum_wdv;          /* Σ weight·(vruntime − its vruntime) over the snapshot rows */
    int64_t sum_w;            /* Σ weight over them */
    int64_t max_slice;        /* the largest slice among them */
    int rows;                 /* snapshot rows, an idle CPU's row included: 0 when none is stored */
    bool whole;               /* no row of them stands for several entities ("other") or lacks a number */
};

/* Calls fn for each such leave of trace_id in time order. 0, or -1 with err. */
int pickq_leaves(sqlite3 *db, int64_t trace_id, void (*fn)(const struct pickq_leave *l, void *arg), void *arg,
                 char *err, size_t errlen);

#endif
