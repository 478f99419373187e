/*
 * The command side of reading a trace database (db/query.h): the flags
 * `runq sql` and `runq report` share, and the open every reader does,
 * each saying what went wrong on stderr as "runq PROG: ..." (db/ returns
 * its messages; a command prints them).
 */
#ifndef RUNQ_CLI_DB_FLAGS_H
#define RUNQ_CLI_DB_FLAGS_H

#include <stdint.h>

#include <sqlite3.h>

#include "db/query.h"

/* Parses the flags sql and report share: --db, --trace, --csv, --json,
 * --help, and up to maxpos positional arguments (into pos, count in
 * *npos). Returns -1 to go on, else the exit code (0 after --help, 2 after
 * a one-line usage error). */
int cli_db_flags(const char *prog, int argc, char **argv, const char **db, int64_t *trace, enum dbq_format *fmt,
                 const char **pos, int maxpos, int *npos, void (*help)(void));

/* dbq_open, or NULL after its reason on stderr as "runq PROG: ...". */
sqlite3 *cli_db_open(const char *prog, const char *path);

#endif
