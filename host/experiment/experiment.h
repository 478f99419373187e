/*
 * `runq experiment`: a scenario, or a matrix of it (vary axes × repeats),
 * run by an engine and stored in the database; and the experiment's
 * table, built from the database alone, so `runq report experiment`
 * prints the same table again (docs/experiments.md).
 *
 *   host/experiment/experiment.c        the subcommand: flags, the matrix, the runs
 *   host/experiment/experiment_table.c  the table from SQL: text, CSV, JSON
 *   host/experiment/merge.c             `runq merge`: shards' databases into one
 */
#ifndef RUNQ_CLI_EXPERIMENT_H
#define RUNQ_CLI_EXPERIMENT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "db/query.h"

/* A Linux run is disturbed when the CPU time other processes took on its
 * CPUs in its window, summed over them, passes this percentage of the
 * window (scenario.disturbed; docs/experiments.md, "Measurement you can
 * trust"): the table leaves its values out of its cell's when the cell
 * has a clean run. */
#define XP_DISTURBED_PERCENT 2

/* Prints experiment id's table (0: the newest experiment) from db: one
 * row per cell, each column's mean and spread (min..max) over the
 * repeats that succeeded. 0, or 1 after a one-line error on stderr
 * starting "runq PROG: ". */
int experiment_table(sqlite3 *db, const char *prog, int64_t id, enum dbq_format fmt, FILE *out);

#endif
