/*
 * Reading the trace database: what `runq sql`, `runq report` (and the
 * other readers) share. Nothing here prints to the terminal but the
 * results dbq_run is asked to print to out: a function that fails returns
 * -1 (dbq_run: its own codes) with a one-line message in err, which the
 * command prints after its own prefix ("runq PROG: ").
 */
#ifndef RUNQ_DB_QUERY_H
#define RUNQ_DB_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

enum dbq_format { DBQ_TABLE, DBQ_CSV, DBQ_JSON };

/* Opens path read-only (it must exist). NULL on failure, with the reason
 * in err, starting with path. */
sqlite3 *dbq_open(const char *path, char *err, size_t errlen);

/* The newest trace's id, or 0 when there is none (or it cannot be read). */
int64_t dbq_latest_trace(sqlite3 *db);

/* Whether the database on db holds table name (its main schema, whatever
 * dbq_scope_trace made), and whether table has column: 1 or 0, or -1
 * with err when the schema cannot be read. What a reader asks of a
 * database made by an older runq (readers migrate nothing). */
int dbq_has_table(sqlite3 *db, const char *name, char *err, size_t errlen);
int dbq_has_column(sqlite3 *db, const char *table, const char *column, char *err, size_t errlen);

/* Scopes the connection to one trace: every table and view with a
 * trace_id column gets a TEMP view of the same name holding only that
 * trace's rows, so unqualified names in later
 * queries see one trace (main.NAME still reaches the whole table).
 * Returns 0, or -1 with err (no such trace: "no trace N in this
 * database", or an SQL error). */
int dbq_scope_trace(sqlite3 *db, int64_t trace_id, char *err, size_t errlen);

/* Runs every statement in sql, which must all be read-only, printing each
 * result to out: an aligned table with a header, CSV (RFC 4180, header
 * line), or JSON (an array of objects per statement, one per line).
 * Returns 0, 1 on an SQL error (or out of memory), 2 when a statement
 * would write; err says which. What the statements before printed stays
 * printed. */
int dbq_run(sqlite3 *db, const char *sql, enum dbq_format fmt, FILE *out, char *err, size_t errlen);

/* A lab's truth or moment: one statement (sql, text from a lab.conf),
 * which must be read-only, its first row's first column. Returns 1 with
 * the value in text (and *ival, when it is an integer and ival is not
 * NULL: else *is_int is false), 0 when there is no row or the value is
 * NULL, -1 with err on an SQL error or a statement that would write.
 * Like runq sql's, the text runs on a read-only connection (dbq_open). */
int dbq_first(sqlite3 *db, const char *sql, char *text, size_t textlen, int64_t *ival, bool *is_int, char *err,
              size_t errlen);

/* One CSV field (RFC 4180): v as it is, or quoted with its quotes doubled
 * when it holds a comma, a quote or a line end, or always when quote. The
 * bytes stay the data. */
void dbq_csv_field(FILE *out, const char *v, bool quote);
/* One JSON string (RFC 8259) of v, quotes included: every control escaped
 * as \u00XX, a byte that is not UTF-8 as U+FFFD. */
void dbq_json_string(FILE *out, const char *v);

#endif
