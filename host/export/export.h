/*
 * `runq export --perfetto`'s work: which traces, and where each is
 * written. The flags and the help are host/cli/export.c; the ftrace text
 * of one trace is host/export/perfetto.c.
 */
#ifndef RUNQ_EXPORT_EXPORT_H
#define RUNQ_EXPORT_EXPORT_H

#include <stdint.h>

#include <sqlite3.h>

/* What to export (host/cli/export.c fills it; the flags' checks already
 * made: not trace and experiment both, out given with experiment). */
struct export_opts {
    const char *db_path; /* the database's name, for the messages and the ftrace header */
    int64_t trace;       /* the trace to write; 0: the newest */
    int64_t experiment;  /* nonzero: every recorded trace of this experiment, in place of trace */
    const char *out;     /* OUT: a file, replaced whole or not at all, a character device or FIFO
                          * written in place (host/base/outfile.h); NULL: stdout. With experiment,
                          * a directory, made if missing, that gets one OUT/trace-ID.systrace a
                          * trace, each path printed on stdout once written */
};

/* Writes o's traces of db (opened read-only by the caller, dbq_open) as
 * Perfetto's ftrace text (perfetto_write). Returns 0, or 1 after one line
 * "runq export: ..." on stderr: no such trace or experiment, an
 * experiment that recorded no trace, a database that holds none, OUT
 * not written (an OUT written before it, of an experiment, stays). */
int export_perfetto(sqlite3 *db, const struct export_opts *o);

#endif
