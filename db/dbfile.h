/*
 * A database's files. SQLite keeps a WAL database in three: the file
 * itself, PATH-wal (the log) and PATH-shm (the log's index); a database
 * put away, or made again from nothing, must lose all three, or the next
 * open replays a stale log into it.
 */
#ifndef RUNQ_DB_DBFILE_H
#define RUNQ_DB_DBFILE_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

/* Removes PATH-wal and PATH-shm, those that exist. */
static inline void db_remove_sides(const char *path)
{
    static const char *const sides[] = { "-wal", "-shm" };
    char side[PATH_MAX + 8];
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
        if (snprintf(side, sizeof side, "%s%s", path, sides[i]) < (int)sizeof side)
            unlink(side);
}

/* Removes the database at PATH with its side files, those that exist. */
static inline void db_remove(const char *path)
{
    unlink(path);
    db_remove_sides(path);
}

#endif
