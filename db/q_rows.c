/*
 * The query functions' plumbing (contracts in q_rows.h).
 */
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

char *dbq_column_dup(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? xstrdup((const char *)t) : NULL;
}
