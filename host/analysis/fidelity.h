/*
 * `runq report fidelity`: a Linux trace's recorded picks replayed through
 * runq's own EEVDF pick (host/analysis/fidelity.c; docs/eevdf.md,
 * "Fidelity"). The command's flags and help are host/cli/report.c's.
 */
#ifndef RUNQ_ANALYSIS_FIDELITY_H
#define RUNQ_ANALYSIS_FIDELITY_H

#include <stdint.h>

#include <sqlite3.h>

/* Which trace to replay, of which database. */
struct fidelity_opts {
    const char *db; /* the database's name, as the messages say it */
    int64_t trace;  /* the Linux trace; 0: the newest */
};

/* Prints the report for trace o->trace of db (open, read only; the caller
 * closes it) to stdout. Returns 0; 1, after one line on stderr ("runq
 * report: ..."), on a database error or a trace that is not there; 2,
 * after one line on stderr, for a trace with nothing to replay (a
 * runq-kernel trace, a Linux trace without internals). */
int fidelity_report(sqlite3 *db, const struct fidelity_opts *o);

#endif
