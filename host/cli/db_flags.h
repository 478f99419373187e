/*
 * The command side of reading a trace database (db/query.h): the flag
 * rows `runq sql`, `runq report` and `runq export` share, and the open
 * every reader does, each saying what went wrong on stderr as
 * "runq PROG: ..." (db/ returns its messages; a command prints them).
 */
#ifndef RUNQ_CLI_DB_FLAGS_H
#define RUNQ_CLI_DB_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "host/cli/flags.h"
#include "db/query.h"

#define DB_FLAGS_DEFAULT_DB "runq.db"

/* What the shared rows set; a command starts from DB_FLAGS_INIT. */
struct db_flags {
    const char *db;
    int64_t trace; /* 0: not given */
    bool csv, json;
};
#define DB_FLAGS_INIT { .db = DB_FLAGS_DEFAULT_DB }

/* --db FILE (not empty) and --trace ID (a positive id), into *o; TRACE_HELP
 * says what the id picks in this command. Rows of a struct flag table. */
#define DB_FLAG_ROWS(o, trace_help)                                                                           \
    FLAG_FILE("db", &(o)->db, "FILE", "database (default " DB_FLAGS_DEFAULT_DB ")"),                          \
    FLAG_NUM64("trace", &(o)->trace, "ID", (trace_help), 1, INT64_MAX, "a trace id (a positive number)")

/* --csv and --json, into *o (db_flags_format() reads them). */
#define DB_FORMAT_ROWS(o)                                                                                     \
    FLAG_ON("csv", &(o)->csv, "CSV with a header line"), FLAG_ON("json", &(o)->json, "JSON")

/* The format --csv or --json chose (DBQ_TABLE: neither); -1 after the
 * usage error of both, printed as spec's. */
int db_flags_format(const struct command_spec *spec, const struct db_flags *o, enum dbq_format *fmt);

/* dbq_open, or NULL after its reason on stderr as "runq PROG: ...". */
sqlite3 *cli_db_open(const char *prog, const char *path);

#endif
