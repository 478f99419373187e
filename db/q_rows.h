/*
 * The plumbing the query functions of db/q_*.c and qx_*.c share: a
 * statement prepared with its parameters bound, one row read, SQLite's
 * message into err, a statement's loop ended, a column's text kept.
 *
 * A query is then its SQL, its parameters and what it reads of a row:
 *
 *     sqlite3_stmt *s = dbq_prepare(db, "SELECT ... WHERE trace_id = ?1", DBQ_ARGS(DBQ_INT(id)), err, errlen);
 *     return dbq_one(db, s, read_row, out, err, errlen);
 *
 * or, over many rows, a loop of dbq_next ended by dbq_rows_end (below).
 */
#ifndef RUNQ_DB_Q_ROWS_H
#define RUNQ_DB_Q_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* One parameter of a statement, for dbq_prepare: made by the macros
 * below, never by hand. */
struct dbq_arg {
    enum dbq_arg_kind { DBQ_ARG_NULL, DBQ_ARG_INT, DBQ_ARG_REAL, DBQ_ARG_TEXT } kind;
    int64_t i;
    double r;
    const char *t;
};
/* An integer. */
#define DBQ_INT(v) ((struct dbq_arg){ .kind = DBQ_ARG_INT, .i = (v) })
/* v when known, else NULL (an id of 0, a count not measured). */
#define DBQ_OPT(known, v) ((struct dbq_arg){ .kind = (known) ? DBQ_ARG_INT : DBQ_ARG_NULL, .i = (v) })
/* A real; NaN (a value not measured) binds NULL. */
#define DBQ_REAL(v) ((struct dbq_arg){ .kind = DBQ_ARG_REAL, .r = (v) })
/* Text, bound in place (SQLITE_STATIC): it must outlive the statement's
 * last step. NULL binds NULL. */
#define DBQ_TEXT(v) ((struct dbq_arg){ .kind = DBQ_ARG_TEXT, .t = (v) })
/* A list of the above as dbq_prepare's args and n. */
#define DBQ_ARGS(...) \
    (const struct dbq_arg[]){ __VA_ARGS__ }, sizeof((const struct dbq_arg[]){ __VA_ARGS__ }) / sizeof(struct dbq_arg)

/* sql prepared on db, its parameters ?1..?n bound to args[0..n-1] (args
 * NULL when n is 0). NULL, with SQLite's message in err, when it does not
 * prepare. */
sqlite3_stmt *dbq_prepare(sqlite3 *db, const char *sql, const struct dbq_arg *args, size_t n, char *err,
                          size_t errlen);

/* Steps s once and finalizes it; read(s, out) reads its row first, when
 * it has one (text read in place lives until read returns). read NULL:
 * only whether there is a row, or a write done. s NULL (it did not
 * prepare: err says why) is a failure. Returns 1 when there was a row, 0
 * when there was none, or -1 with SQLite's message in err. */
int dbq_one(sqlite3 *db, sqlite3_stmt *s, void (*read)(sqlite3_stmt *s, void *out), void *out, char *err,
            size_t errlen);

/* SQLite's last message on db into err; returns -1. */
int dbq_fail(sqlite3 *db, char *err, size_t errlen);

/* Ends a loop over s's rows: rc is its last sqlite3_step, stopped whether
 * the caller ended it early on purpose. Finalizes s; 0, or -1 with
 * SQLite's message in err when the rows did not all come. */
int dbq_finish(sqlite3 *db, sqlite3_stmt *s, int rc, bool stopped, char *err, size_t errlen);

/* A loop over a statement's rows, for a query that reads many:
 *
 *     struct dbq_rows q = { .s = dbq_prepare(db, sql, DBQ_ARGS(...), err, errlen) };
 *     while (dbq_next(&q)) {
 *         read q.s's row; break to stop early
 *     }
 *     return dbq_rows_end(db, &q, err, errlen);
 *
 * A statement that did not prepare (s NULL: err says why) has no rows
 * and ends in -1. */
struct dbq_rows {
    sqlite3_stmt *s;
    int rc; /* the last sqlite3_step's */
};

/* Steps q->s: true when it has a row to read. */
bool dbq_next(struct dbq_rows *q);

/* Ends q's loop (dbq_finish, stopped when the last step had a row: the
 * caller broke off there, on purpose). 0, or -1 with the message in err. */
int dbq_rows_end(sqlite3 *db, struct dbq_rows *q, char *err, size_t errlen);

/* Column i of s's row as a malloc'd string; NULL when NULL. */
char *dbq_column_dup(sqlite3_stmt *s, int i);

#endif
