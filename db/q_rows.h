/*
 * The plumbing the query functions of db/q_*.c share: SQLite's message
 * into err, a statement's loop ended, a column's text kept.
 */
#ifndef RUNQ_DB_Q_ROWS_H
#define RUNQ_DB_Q_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

/* SQLite's last message on db into err; returns -1. */
int dbq_fail(sqlite3 *db, char *err, size_t errlen);

/* Ends a loop over s's rows: rc is its last sqlite3_step, stopped whether
 * the caller ended it early on purpose. Finalizes s; 0, or -1 with
 * SQLite's message in err when the rows did not all come. */
int dbq_finish(sqlite3 *db, sqlite3_stmt *s, int rc, bool stopped, char *err, size_t errlen);

/* Column i of s's row as a malloc'd string; NULL when NULL. */
char *dbq_column_dup(sqlite3_stmt *s, int i);

#endif
