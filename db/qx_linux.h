/*
 * What the Linux recorder (host/engine/linux/lxrec.c) writes after a trace, beside
 * what it writes through the writer (db/writer.h): the per-CPU counters,
 * the group levels above a picked thread's queue (linux_group), and the
 * foreign CPU time. Each is one transaction on a connection of its own,
 * opened after the writer has finished the trace, waiting up to 600 s
 * for another recorder's commit as the writer does.
 *
 * Each returns 0, or -1 with a one-line message in err: "PATH: SQLite's
 * reason" when the database does not open, else "PATH: storing the
 * WHAT: SQLite's reason"; nothing of it is then stored.
 */
#ifndef RUNQ_DB_QX_LINUX_H
#define RUNQ_DB_QX_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* A row of counter. name: a text that lives while the row is written. */
struct dbq_linux_counter {
    uint64_t ts;
    int cpu;
    const char *name;
    uint64_t value;
};

/* Writes n counter rows of trace_id, row i as row(i, &c, arg) fills it,
 * in that order. n 0 opens nothing. */
int dbq_linux_put_counters(const char *path, int64_t trace_id, size_t n,
                           void (*row)(size_t i, struct dbq_linux_counter *c, void *arg), void *arg, char *err,
                           size_t errlen);

/* A row of linux_group: the level above a picked thread's queue
 * (autogroup), as the queue it sits in sees it. */
struct dbq_linux_group {
    uint64_t ts, vruntime, deadline, slice, v, weight;
    int64_t lag;
    unsigned cpu, depth, nr_queued;
    bool eligible, current;
};

/* Writes the n rows g of trace_id. n 0 opens nothing. */
int dbq_linux_put_groups(const char *path, int64_t trace_id, const struct dbq_linux_group *g, size_t n, char *err,
                         size_t errlen);

/* The foreign CPU time of the CPUs in mask cpus (< 64) over the measured
 * window [t0, t1), from trace_id's slices: other[c], the slices of CPU
 * c's "other" (DERIVE_LINUX_OTHER_TID), and unknown[c], the window's time
 * no slice on it covers. Stored as the stats rows foreign_cpu_ns and
 * unknown_cpu_ns, idx the CPU, described by other_desc and unknown_desc.
 * other and unknown hold 64; the CPUs not in cpus are 0. */
int dbq_linux_put_foreign(const char *path, int64_t trace_id, uint64_t cpus, uint64_t t0, uint64_t t1,
                          const char *other_desc, const char *unknown_desc, uint64_t other[64], uint64_t unknown[64],
                          char *err, size_t errlen);

/* ---- the moves of an experiment's runs (read, for its table) ---- */

/* Moves a second of one reason in one cell on one engine, over the
 * cell's runs on it whose values the table uses (dbq_experiment_used_runs)
 * and that were recorded: mean, least and largest, runs. A run's rate is
 * its trace's migration rows of that reason inside its measured window
 * (the marks `start` and `end` where the trace has them, as a Linux
 * trace does; else the whole trace) over scenario.run_ns. A run without
 * a move of the reason counts 0. reason and engine live until fn
 * returns. Sorted by cell, engine and reason. */
struct dbq_moves_rate {
    int cell;
    const char *engine, *reason;
    double mean, min, max;
    int runs;
};

/* Calls fn for each reason any run of experiment id moved a task for,
 * in each cell and engine; none when the database has no migration
 * table (before schema 12). 0, or -1 with err. Not a Linux-only
 * question: it is here because the Linux engine's moves made it one
 * (issue 35: `runq experiment --engine kernel,linux`). */
int dbq_experiment_moves(sqlite3 *db, int64_t id, void (*fn)(const struct dbq_moves_rate *r, void *arg), void *arg,
                         char *err, size_t errlen);

#endif
