/*
 * Why a database opened read-only cannot be read, in words a user can act
 * on. Reading a WAL database needs its -shm file, which SQLite creates
 * beside it: in a directory the reader cannot write (a read-only mount, a
 * course's shared folder) every query fails with "attempt to write a
 * readonly database", which runq's readers took for "not a runq database"
 * or "no trace yet".
 */
#ifndef RUNQ_DB_READABLE_H
#define RUNQ_DB_READABLE_H

#include <stddef.h>

#include <sqlite3.h>

/* NULL when db answers a first query (or fails it for another reason,
 * which the caller's own checks report); else the reason. */
static inline const char *db_unreadable_why(sqlite3 *db)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM main.sqlite_master", -1, &s, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        sqlite3_finalize(s);
    }
    if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN)
        return "cannot read it here: SQLite must create its -shm file beside a WAL database even to read "
               "it, and that directory is not writable (copy the database somewhere writable)";
    return NULL;
}

#endif
