/*
 * Stats rows a recorder adds to a trace once it is written: numbers it
 * can only take from the trace's own rows, so that a query over the trace
 * gives the same number. The Linux engine's foreign_cpu_ns (host/engine/linux/lxrec.h)
 * is one: the slices of the pseudo task "other" in the measured window.
 * Each function prints nothing: 0, or -1 with SQLite's message in err.
 */
#ifndef RUNQ_DB_TRACESTAT_H
#define RUNQ_DB_TRACESTAT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* The time the trace's thread tid (< 0: any thread, the idle tasks
 * too) ran on CPU cpu within [t0, t1): its sched_slice rows there, each
 * clipped to the window, summed into *ns. A stretch the trace cannot
 * account for (a gap, or before the CPU's first event) is in no slice,
 * so it counts nothing. */
int dbts_slice_ns(sqlite3 *db, int64_t trace_id, int64_t tid, int cpu, uint64_t t0, uint64_t t1, uint64_t *ns,
                  char *err, size_t errlen);

/* One stats row of the trace: name, idx (< 0: NULL, the whole stream),
 * severity (info | data_loss | error), value, description. */
int dbts_add_stat(sqlite3 *db, int64_t trace_id, const char *name, int idx, const char *severity, uint64_t value,
                  const char *description, char *err, size_t errlen);

#endif
