/*
 * Reading the trace database: what `runq sql`, `runq report` (and the TUI)
 * share. Every function prints its own one-line error starting "runq PROG: ".
 */
#ifndef RUNQ_DB_QUERY_H
#define RUNQ_DB_QUERY_H

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include <sqlite3.h>

enum dbq_format { DBQ_TABLE, DBQ_CSV, DBQ_JSON };

/* Opens path read-only (it must exist). NULL on failure. */
sqlite3 *dbq_open(const char *prog, const char *path);

/* The newest trace's id, or 0 when there is none. */
int64_t dbq_latest_trace(sqlite3 *db);

/* Scopes the connection to one trace: every table and view with a
 * trace_id column gets a TEMP view of the same name holding only that
 * trace's rows, so unqualified names in later
 * queries see one trace (main.NAME still reaches the whole table).
 * Returns 0, or -1 (no such trace, or an error). */
int dbq_scope_trace(sqlite3 *db, const char *prog, int64_t trace_id);

/* Runs every statement in sql, which must all be read-only, printing each
 * result to out: an aligned table with a header, CSV (RFC 4180, header
 * line), or JSON (an array of objects per statement, one per line).
 * Returns 0, 1 on an SQL error, 2 when a statement would write. */
int dbq_run(sqlite3 *db, const char *prog, const char *sql, enum dbq_format fmt, FILE *out);
/* One CSV field (RFC 4180): v as it is, or quoted with its quotes doubled
 * when it holds a comma, a quote or a line end, or always when quote. The
 * bytes stay the data. */
void dbq_csv_field(FILE *out, const char *v, bool quote);
/* One JSON string (RFC 8259) of v, quotes included: every control escaped
 * as \u00XX, a byte that is not UTF-8 as U+FFFD. */
void dbq_json_string(FILE *out, const char *v);

/* Parses the flags sql and report share: --db, --trace, --csv, --json,
 * --help, and up to maxpos positional arguments (into pos, count in
 * *npos). Returns -1 to go on, else the exit code (0 after --help, 2 after
 * a one-line usage error). */
int dbq_parse_common(const char *prog, int argc, char **argv, const char **db, int64_t *trace,
                     enum dbq_format *fmt, const char **pos, int maxpos, int *npos, void (*help)(void));

#endif
