/*
 * One trace of a runq database as the plain-text ftrace ("systrace")
 * format that Perfetto's UI and trace_processor import: `runq export
 * --perfetto` (host/export/export.c). docs/perfetto.md says what each line
 * becomes in Perfetto; host/export/perfetto.c's opening comment, which line is
 * made from which rows.
 */
#ifndef RUNQ_EXPORT_PERFETTO_H
#define RUNQ_EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

/* The made-up tasks of an export, past every pid Linux can give (its
 * pid_max is at most 4194304, and runq's Linux pseudo tasks sit below it:
 * docs/sql.md): CPU N's "no data" task, which runs on that CPU wherever
 * sched_slice has no slice after a gap, is PF_GAP_PID + N; the task whose
 * process holds the per-CPU V counters, the data gaps and the marks is
 * PF_RUNQ_PID. */
#define PF_GAP_PID 4194304
#define PF_MAX_CPUS 256
#define PF_RUNQ_PID (PF_GAP_PID + PF_MAX_CPUS)

/* Writes trace `trace` of db (opened read-only by the caller, which has
 * checked that the trace exists) to out: the ftrace header, then every
 * line in time order. db_name only goes into the header. Reads only
 * main.* tables, so a connection scoped to one trace works too.
 * Returns 0, or 1 after printing one line "runq PROG: ..." to stderr
 * (an SQL error, a trace runq cannot write as a schedule: overlapping
 * slices, a task it does not describe, a CPU past PF_MAX_CPUS), or a
 * write error on out, which the caller detects with ferror(out). */
int perfetto_write(sqlite3 *db, const char *prog, const char *db_name, int64_t trace, FILE *out);

#endif
