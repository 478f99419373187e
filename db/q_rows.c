/*
 * The query functions' plumbing (contracts in q_rows.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/q_rows.h"
#include "host/base/xalloc.h"

int dbq_fail(sqlite3 *db, char *err, size_t errlen)
{
    BUG_ON(!db || !err); /* a query's caller gives both */
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    return -1;
}

sqlite3_stmt *dbq_prepare(sqlite3 *db, const char *sql, const struct dbq_arg *args, size_t n, char *err,
                          size_t errlen)
{
    sqlite3_stmt *s;
    BUG_ON(n && !args); /* DBQ_ARGS gives both */
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        dbq_fail(db, err, errlen);
        sqlite3_finalize(s);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const struct dbq_arg *a = &args[i];
        int at = (int)i + 1;
        if (a->kind == DBQ_ARG_INT)
            sqlite3_bind_int64(s, at, a->i);
        else if (a->kind == DBQ_ARG_REAL && !isnan(a->r))
            sqlite3_bind_double(s, at, a->r);
        else if (a->kind == DBQ_ARG_TEXT && a->t)
            sqlite3_bind_text(s, at, a->t, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(s, at);
    }
    return s;
}

int dbq_one(sqlite3 *db, sqlite3_stmt *s, void (*read)(sqlite3_stmt *s, void *out), void *out, char *err,
            size_t errlen)
{
    if (!s)
        return -1;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && read)
        read(s, out);
    return dbq_finish(db, s, rc, rc == SQLITE_ROW, err, errlen) == 0 ? rc == SQLITE_ROW : -1;
}

int dbq_finish(sqlite3 *db, sqlite3_stmt *s, int rc, bool stopped, char *err, size_t errlen)
{
    /* a statement that prepared; stopped early only ever at a row */
    BUG_ON(!s || (stopped && rc != SQLITE_ROW));
    bool ok = stopped || rc == SQLITE_DONE;
    if (!ok)
        dbq_fail(db, err, errlen);
    sqlite3_finalize(s);
    return ok ? 0 : -1;
}

bool dbq_next(struct dbq_rows *q)
{
    if (!q->s)
        return false;
    q->rc = sqlite3_step(q->s);
    return q->rc == SQLITE_ROW;
}

int dbq_rows_end(sqlite3 *db, struct dbq_rows *q, char *err, size_t errlen)
{
    if (!q->s)
        return -1; /* dbq_prepare said why */
    return dbq_finish(db, q->s, q->rc, q->rc == SQLITE_ROW, err, errlen);
}

char *dbq_column_dup(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? xstrdup((const char *)t) : NULL;
}
