/*
 * Schema versions (db/ only; docs/sql.md lists them). A database's version
 * is its PRAGMA user_version. db/schema.sql is the current version, which
 * a new database gets whole; an older one is brought to it by the steps of
 * migrate.c, one a version, each run once.
 *
 * Version 0 is a database made before versions: empty (a new file), or
 * made by a runq that stamped none. The latter's version is read from the
 * columns the steps add.
 */
#ifndef RUNQ_DB_MIGRATE_H
#define RUNQ_DB_MIGRATE_H

#include <stddef.h>

#include <sqlite3.h>

/* Brings the database on db (open read-write, no transaction open) to the
 * current version in one transaction of its own: all the steps it needs or
 * none. A database newer than this program is left alone. 0, or -1 with a
 * one-line message in err (starting with path). */
int db_migrate(sqlite3 *db, const char *path, char *err, size_t errlen);

/* Whether db may be written as a runq database: it is empty (a new file),
 * or it holds runq's core tables (trace with its policy and ncpus columns,
 * thread, eevdf_pick). Reads only, so it runs before anything writes (the
 * WAL switch included): a foreign database given as --db is left exactly
 * as it was. An empty one is given DB_PAGE_SIZE for when it is first
 * written (the pragma itself writes nothing). 0, or -1 with a one-line
 * message in err (starting with path). */
int db_check_runq(sqlite3 *db, const char *path, char *err, size_t errlen);

/* A new database's page size in bytes (docs/sql.md); an older one keeps its own. */
#define DB_PAGE_SIZE 16384

/* The current version's schema, embedded from db/schema.sql by scripts/embed.sh. */
extern const char db_schema_sql[];

#endif
