/*
 * What `runq merge` (host/experiment/merge.c) reads and writes: this runq's schema,
 * each database's kind, its experiments and their runs, a table's rows
 * copied into OUT with their ids moved, and OUT's experiment rows set.
 * The SQL is here; which columns hold which ids, the shard groups, the
 * checks and the order of it all there.
 *
 * The statements that copy a table are made from its name and columns:
 * those of this runq's schema (dbq_merge_schema_read), never an input's,
 * each in brackets.
 *
 * Every function returns 0, or -1 with a one-line message in err: SQLite's
 * message alone, unless said otherwise. Text comes from the databases,
 * so untrusted: passed as it is (NULL when NULL), for the caller to make
 * visible where it prints it.
 */
#ifndef RUNQ_DB_Q_MERGE_H
#define RUNQ_DB_Q_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* ---- this runq's schema ---- */

struct dbq_merge_column {
    char *name;
    bool rowid; /* the table's INTEGER PRIMARY KEY alone: the row's own id */
};

struct dbq_merge_table {
    char *name;
    int ncols;
    struct dbq_merge_column *col; /* in their order */
};

struct dbq_merge_schema {
    int version; /* PRAGMA user_version */
    int ntables;
    struct dbq_merge_table *t; /* in the order they were made */
};

/* This runq's schema, read from a database made in memory by db_migrate,
 * so it is db/schema.sql's, not a copy, into sc (freed by
 * dbq_merge_schema_free, also after a failure). err: "reading this runq's
 * schema: ..." or "out of memory". */
int dbq_merge_schema_read(struct dbq_merge_schema *sc, char *err, size_t errlen);
void dbq_merge_schema_free(struct dbq_merge_schema *sc);

/* ---- a database to merge ---- */

/* What db is: its PRAGMA user_version, how many tables it holds, and how
 * many of runq's core tables (trace, thread: 2 when both). */
int dbq_merge_kind(sqlite3 *db, int64_t *version, int64_t *tables, int64_t *core, char *err, size_t errlen);

/* The least id of a trace still recording (its status 'recording' and
 * runq_recorder_alive not 0: recorder_lock.h) into *id, *none when there
 * is none. */
int dbq_merge_recording(sqlite3 *db, int64_t *id, bool *none, char *err, size_t errlen);

/* Starts a read transaction on db: what it reads next is of one moment. */
int dbq_merge_begin_read(sqlite3 *db, char *err, size_t errlen);

/* An experiment row. */
struct dbq_merge_experiment {
    int64_t id;
    const char *file, *engine, *axes, *shard, *columns, *created, *command;
    int cells, repeats;
};

/* Calls fn for each experiment of db in id order until it returns false;
 * e lives until fn returns. */
int dbq_merge_experiments(sqlite3 *db, bool (*fn)(const struct dbq_merge_experiment *e, void *arg), void *arg,
                          char *err, size_t errlen);

/* A scenario run of an experiment. */
struct dbq_merge_run {
    int64_t experiment;
    int cell, repeat;
    uint64_t seed;
    const char *params, *text;
};

/* Calls fn for each run of experiment id of db until it returns false. */
int dbq_merge_runs(sqlite3 *db, int64_t id, bool (*fn)(const struct dbq_merge_run *r, void *arg), void *arg,
                   char *err, size_t errlen);

/* What makes experiments one experiment's shards: the same file, engine,
 * axes, columns (each NULL or text), cells and repeats. */
struct dbq_merge_alike {
    const char *file, *engine, *axes, *columns;
    int cells, repeats;
};

/* Calls fn for each run of db's experiments alike a until it returns
 * false. */
int dbq_merge_alike_runs(sqlite3 *db, const struct dbq_merge_alike *a,
                         bool (*fn)(const struct dbq_merge_run *r, void *arg), void *arg, char *err, size_t errlen);

/* The largest (max) or least value of column of table of db into *v (0
 * when the table is empty: *none then, if none is not NULL). table and
 * column are names of this runq's schema. */
int dbq_merge_id_bound(sqlite3 *db, const char *table, const char *column, bool max, int64_t *v, bool *none,
                       char *err, size_t errlen);

/* ---- writing OUT ---- */

/* OUT's one transaction: begun (IMMEDIATE: a writer waits for another),
 * committed after the indexes (db/indexes.sql) are made, or rolled back
 * (when one is open). */
int dbq_merge_begin(sqlite3 *out, char *err, size_t errlen);
int dbq_merge_commit(sqlite3 *out, char *err, size_t errlen);
void dbq_merge_rollback(sqlite3 *out);

/* What becomes of a column's value when its row is copied. A NULL stays
 * NULL, but in a DBQ_MERGE_NEW column, where it is NULL anyway. */
enum dbq_merge_how {
    DBQ_MERGE_KEEP, /* as it is */
    DBQ_MERGE_NEW,  /* NULL: OUT gives the row an id of its own */
    DBQ_MERGE_MOVE, /* plus the column's offset: refused past int64 */
    DBQ_MERGE_MAP,  /* what map says */
};

/* Copying one table of this runq's schema from an input to OUT. */
struct dbq_merge_copy {
    const char *in_path, *out_path;   /* for the messages */
    const struct dbq_merge_table *t;
    const enum dbq_merge_how *how;    /* per column */
    const int64_t *offset;            /* per column, for DBQ_MERGE_MOVE */
    /* A DBQ_MERGE_MAP column's value id of column col: its value in OUT
     * into *to, and *skip set when the row is not to be written. 0, or -1
     * with err (the whole message). */
    int (*map)(void *arg, int col, int64_t id, int64_t *to, bool *skip, char *err, size_t errlen);
    void *arg;
};

/* Copies every row of c->t from in into out, in rowid order, each value
 * as c->how says; adds the rows it wrote to *rows. err is the whole
 * message, naming the files: "IN: reading T: ...", "OUT: writing T: ...",
 * "IN: copying T: ...", "IN: T.C holds N, which cannot be renumbered past
 * OUT's ids without overflowing 64 bits: the database is damaged", or
 * map's. */
int dbq_merge_copy_table(sqlite3 *out, sqlite3 *in, const struct dbq_merge_copy *c, int64_t *rows, char *err,
                         size_t errlen);

/* Experiment id of OUT says it holds shard (NULL: all of them), was run
 * by command (NULL: NULL) and was created at created (NULL: as it was). */
int dbq_merge_set_experiment(sqlite3 *out, int64_t id, const char *shard, const char *command, const char *created,
                             char *err, size_t errlen);

/* Experiment from's runs become experiment to's, and from's row goes. */
int dbq_merge_fold(sqlite3 *out, int64_t to, int64_t from, char *err, size_t errlen);

/* ---- what it wrote ---- */

/* An experiment of OUT as the merge's last lines tell it. */
struct dbq_merge_summary {
    const char *file, *engine, *shard;
    int cells, repeats;
    int64_t runs; /* its scenario rows */
};

/* Calls fn with experiment id's summary (not at all when OUT has no such
 * row). */
int dbq_merge_summary(sqlite3 *out, int64_t id, void (*fn)(const struct dbq_merge_summary *s, void *arg), void *arg,
                      char *err, size_t errlen);

/* Calls fn with each cell of experiment id that has all its repeats' runs
 * (as many runs as its repeats, or more), in no order. */
int dbq_merge_full_cells(sqlite3 *out, int64_t id, void (*fn)(int cell, void *arg), void *arg, char *err,
                         size_t errlen);

#endif
