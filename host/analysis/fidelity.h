/*
 * `runq report fidelity`: a Linux trace's recorded picks replayed through
 * runq's own EEVDF pick (host/analysis/fidelity.c; docs/eevdf.md, "Fidelity").
 */
#ifndef RUNQ_CLI_FIDELITY_H
#define RUNQ_CLI_FIDELITY_H

#include <stdint.h>

/* Prints the report for trace (0: the newest) of the database at
 * db_path to stdout. Returns 0; 1 on a database error or a trace that is
 * not there; 2, after one line on stderr, for a trace with nothing to
 * replay (a runq-kernel trace, a Linux trace without internals). */
int report_fidelity(const char *db_path, int64_t trace);

#endif
