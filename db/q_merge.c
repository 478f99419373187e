/*
 * `runq merge`'s reads and writes (contract in q_merge.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/migrate.h"
#include "db/q_merge.h"
#include "db/q_rows.h"
#include "db/writer.h"
#include "host/base/xalloc.h"

struct first {
    int64_t v;
    bool null;
};

static void read_first(sqlite3_stmt *s, void *out)
{
    struct first *f = out;
    f->v = sqlite3_column_int64(s, 0);
    f->null = sqlite3_column_type(s, 0) == SQLITE_NULL;
}

/* The first row's first column of sql through *out (0 when there is no
 * row), and whether it is NULL through *null (if not NULL). 0, or -1
 * with err. */
static int query_int64(sqlite3 *db, const char *sql, int64_t *out, bool *null, char *err, size_t errlen)
{
    struct first f = { 0, true }; /* no row: 0, and NULL */
    sqlite3_stmt *s = dbq_prepare(db, sql, NULL, 0, err, errlen);
    int rc = dbq_one(db, s, read_first, &f, err, errlen);
    *out = f.v;
    if (null)
        *null = f.null;
    return rc < 0 ? -1 : 0;
}

/* Runs sql, statements that return no rows. 0, or -1 with err. */
static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : dbq_fail(db, err, errlen);
}

/* The array a of n elements of size bytes with one more, zeroed, at its
 * end. */
static void *append(void *a, int n, size_t size)
{
    char *p = xreallocarray(a, (size_t)n + 1, size);
    memset(p + (size_t)n * size, 0, size);
    return p;
}

/* ---- this runq's schema ---- */

int dbq_merge_schema_read(struct dbq_merge_schema *sc, char *err, size_t errlen)
{
    sqlite3 *mem = NULL;
    sqlite3_stmt *s = NULL, *c = NULL;
    char merr[512];
    int64_t v;
    int rc = -1;

    memset(sc, 0, sizeof *sc);
    if (sqlite3_open(":memory:", &mem) != SQLITE_OK ||
        db_migrate(mem, "this runq's schema", merr, sizeof merr) != 0 ||
        query_int64(mem, "PRAGMA user_version", &v, NULL, merr, sizeof merr) != 0 ||
        sqlite3_prepare_v2(mem, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid", -1, &s,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(mem, "SELECT name, pk, type, (SELECT COUNT(*) FROM pragma_table_info(?1) WHERE pk > 0) "
                                "FROM pragma_table_info(?1) ORDER BY cid", -1, &c, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "reading this runq's schema: %s", mem ? sqlite3_errmsg(mem) : "out of memory");
        goto done;
    }
    sc->version = (int)v;
    while (sqlite3_step(s) == SQLITE_ROW) {
        sc->t = append(sc->t, sc->ntables, sizeof *sc->t);
        struct dbq_merge_table *t = &sc->t[sc->ntables++];
        t->name = dbq_column_dup(s, 0);
        BUG_ON(!t->name); /* sqlite_master names each table */
        sqlite3_reset(c);
        sqlite3_bind_text(c, 1, t->name, -1, SQLITE_STATIC);
        while (sqlite3_step(c) == SQLITE_ROW) {
            t->col = append(t->col, t->ncols, sizeof *t->col);
            struct dbq_merge_column *col = &t->col[t->ncols++];
            col->name = dbq_column_dup(c, 0);
            BUG_ON(!col->name); /* pragma_table_info names each column */
            const char *type = (const char *)sqlite3_column_text(c, 2);
            /* INTEGER PRIMARY KEY alone: the row's own id (its rowid). */
            col->rowid = sqlite3_column_int(c, 1) == 1 && sqlite3_column_int(c, 3) == 1 && type &&
                         !strcmp(type, "INTEGER");
        }
    }
    rc = 0;
done:
    sqlite3_finalize(s);
    sqlite3_finalize(c);
    sqlite3_close(mem);
    return rc;
}

void dbq_merge_schema_free(struct dbq_merge_schema *sc)
{
    for (int i = 0; i < sc->ntables; i++) {
        for (int j = 0; j < sc->t[i].ncols; j++)
            free(sc->t[i].col[j].name);
        free(sc->t[i].col);
        free(sc->t[i].name);
    }
    free(sc->t);
    memset(sc, 0, sizeof *sc);
}

/* ---- a database to merge ---- */

int dbq_merge_kind(sqlite3 *db, int64_t *version, int64_t *tables, int64_t *core, char *err, size_t errlen)
{
    if (query_int64(db, "PRAGMA user_version", version, NULL, err, errlen) != 0 ||
        query_int64(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", tables, NULL, err, errlen) != 0 ||
        query_int64(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('trace', 'thread')",
                    core, NULL, err, errlen) != 0)
        return -1;
    return 0;
}

int dbq_merge_recording(sqlite3 *db, int64_t *id, bool *none, char *err, size_t errlen)
{
    return query_int64(db, "SELECT MIN(trace_id) FROM trace WHERE status = 'recording' AND "
                           "runq_recorder_alive(trace_id) IS NOT 0", id, none, err, errlen);
}

int dbq_merge_begin_read(sqlite3 *db, char *err, size_t errlen)
{
    return exec(db, "BEGIN", err, errlen);
}

int dbq_merge_experiments(sqlite3 *db, bool (*fn)(const struct dbq_merge_experiment *e, void *arg), void *arg,
                          char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT experiment_id, file, engine, axes, cells, repeats, shard, columns, "
                                      "created, command FROM experiment ORDER BY experiment_id", NULL, 0, err, errlen);
    if (!s)
        return -1;
    int rc;
    bool on = true;
    while (on && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct dbq_merge_experiment e = {
            .id = sqlite3_column_int64(s, 0),
            .file = (const char *)sqlite3_column_text(s, 1),
            .engine = (const char *)sqlite3_column_text(s, 2),
            .axes = (const char *)sqlite3_column_text(s, 3),
            .cells = sqlite3_column_int(s, 4),
            .repeats = sqlite3_column_int(s, 5),
            .shard = (const char *)sqlite3_column_text(s, 6),
            .columns = (const char *)sqlite3_column_text(s, 7),
            .created = (const char *)sqlite3_column_text(s, 8),
            .command = (const char *)sqlite3_column_text(s, 9),
        };
        on = fn(&e, arg);
    }
    return dbq_finish(db, s, rc, !on, err, errlen);
}

/* Calls fn for each row of s, a run's experiment, cell, repeat, seed,
 * params and text, until it returns false. */
static int each_run(sqlite3 *db, sqlite3_stmt *s, bool (*fn)(const struct dbq_merge_run *r, void *arg), void *arg,
                    char *err, size_t errlen)
{
    int rc;
    bool on = true;
    while (on && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct dbq_merge_run r = {
            .experiment = sqlite3_column_int64(s, 0),
            .cell = sqlite3_column_int(s, 1),
            .repeat = sqlite3_column_int(s, 2),
            .seed = (uint64_t)sqlite3_column_int64(s, 3),
            .params = (const char *)sqlite3_column_text(s, 4),
            .text = (const char *)sqlite3_column_text(s, 5),
        };
        on = fn(&r, arg);
    }
    return dbq_finish(db, s, rc, !on, err, errlen);
}

int dbq_merge_runs(sqlite3 *db, int64_t id, bool (*fn)(const struct dbq_merge_run *r, void *arg), void *arg,
                   char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db, "SELECT experiment_id, cell, repeat, seed, params, text FROM scenario "
                                      "WHERE experiment_id = ?", DBQ_ARGS(DBQ_INT(id)), err, errlen);
    return s ? each_run(db, s, fn, arg, err, errlen) : -1;
}

int dbq_merge_alike_runs(sqlite3 *db, const struct dbq_merge_alike *a,
                         bool (*fn)(const struct dbq_merge_run *r, void *arg), void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db,
                                  "SELECT s.experiment_id, s.cell, s.repeat, s.seed, s.params, s.text FROM scenario s "
                                  "JOIN experiment x USING (experiment_id) WHERE x.file IS ?1 AND x.engine IS ?2 AND "
                                  "x.axes IS ?3 AND x.columns IS ?4 AND x.cells = ?5 AND x.repeats = ?6",
                                  DBQ_ARGS(DBQ_TEXT(a->file), DBQ_TEXT(a->engine), DBQ_TEXT(a->axes),
                                           DBQ_TEXT(a->columns), DBQ_INT(a->cells), DBQ_INT(a->repeats)),
                                  err, errlen);
    return s ? each_run(db, s, fn, arg, err, errlen) : -1;
}

int dbq_merge_id_bound(sqlite3 *db, const char *table, const char *column, bool max, int64_t *v, bool *none,
                       char *err, size_t errlen)
{
    char sql[256];
    int n = snprintf(sql, sizeof sql, "SELECT %s([%s]) FROM main.[%s]", max ? "MAX" : "MIN", column, table);
    BUG_ON(n < 0 || (size_t)n >= sizeof sql); /* names of this runq's schema (merge.c): short */
    return query_int64(db, sql, v, none, err, errlen);
}

/* ---- writing OUT ---- */

int dbq_merge_begin(sqlite3 *out, char *err, size_t errlen)
{
    return exec(out, "BEGIN IMMEDIATE", err, errlen);
}

int dbq_merge_commit(sqlite3 *out, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(out, db_indexes_sql, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(out, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(out));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

void dbq_merge_rollback(sqlite3 *out)
{
    if (!sqlite3_get_autocommit(out))
        sqlite3_exec(out, "ROLLBACK", NULL, NULL, NULL);
}

/* Builds "SELECT [a], [b] FROM main.[t] ORDER BY rowid" (select) or
 * "INSERT INTO main.[t] ([a], [b]) VALUES (?, ?)". NULL when out of memory. */
static char *table_sql(const struct dbq_merge_table *t, bool select)
{
    char *sql = NULL;
    size_t len = 0;
    BUG_ON(t->ncols < 1); /* every table of this runq's schema has columns: VALUES () is no SQL */
    FILE *f = open_memstream(&sql, &len);
    if (!f)
        return NULL;
    /* [name], not "name": SQLite reads a "name" that is no column as a
     * string, and would copy it into every row of a damaged input. */
    if (!select)
        fprintf(f, "INSERT INTO main.[%s] (", t->name);
    else
        fprintf(f, "SELECT ");
    for (int i = 0; i < t->ncols; i++)
        fprintf(f, "%s[%s]", i ? ", " : "", t->col[i].name);
    if (select)
        fprintf(f, " FROM main.[%s] ORDER BY rowid", t->name);
    for (int i = 0; i < t->ncols && !select; i++)
        fprintf(f, "%s?%s", i ? ", " : ") VALUES (", i == t->ncols - 1 ? ")" : "");
    fclose(f);
    return sql;
}

int dbq_merge_copy_table(sqlite3 *out, sqlite3 *in, const struct dbq_merge_copy *c, int64_t *rows, char *err,
                         size_t errlen)
{
    const struct dbq_merge_table *t = c->t;
    sqlite3_stmt *sel = NULL, *ins = NULL;
    char *ssql = table_sql(t, true), *isql = table_sql(t, false);
    int rc = -1, step = SQLITE_ROW;
    if (!ssql || !isql) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (sqlite3_prepare_v2(in, ssql, -1, &sel, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: reading %s: %s", c->in_path, t->name, sqlite3_errmsg(in));
        goto done;
    }
    if (sqlite3_prepare_v2(out, isql, -1, &ins, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: writing %s: %s", c->out_path, t->name, sqlite3_errmsg(out));
        goto done;
    }
    while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
        bool skip = false;
        for (int i = 0; i < t->ncols; i++) {
            sqlite3_value *v = sqlite3_column_value(sel, i);
            int64_t id = sqlite3_column_int64(sel, i), to;
            enum dbq_merge_how how = c->how[i];
            if (how == DBQ_MERGE_KEEP || (sqlite3_value_type(v) == SQLITE_NULL && how != DBQ_MERGE_NEW)) {
                sqlite3_bind_value(ins, i + 1, v);
            } else if (how == DBQ_MERGE_NEW) {
                sqlite3_bind_null(ins, i + 1);
            } else if (how == DBQ_MERGE_MAP) {
                if (c->map(c->arg, i, id, &to, &skip, err, errlen) != 0)
                    goto done;
                sqlite3_bind_int64(ins, i + 1, to);
            } else {
                /* Ids near the int64 limits (a crafted or damaged file)
                 * cannot all move past OUT's: refused, never wrapped. */
                if (__builtin_add_overflow(id, c->offset[i], &to)) {
                    snprintf(err, errlen, "%s: %s.%s holds %" PRId64 ", which cannot be renumbered past %s's ids "
                                          "without overflowing 64 bits: the database is damaged",
                             c->in_path, t->name, t->col[i].name, id, c->out_path);
                    goto done;
                }
                sqlite3_bind_int64(ins, i + 1, to);
            }
        }
        if (!skip && sqlite3_step(ins) != SQLITE_DONE) {
            snprintf(err, errlen, "%s: copying %s: %s", c->in_path, t->name, sqlite3_errmsg(out));
            goto done;
        }
        *rows += !skip;
        sqlite3_reset(ins);
    }
    if (step != SQLITE_DONE) {
        snprintf(err, errlen, "%s: reading %s: %s", c->in_path, t->name, sqlite3_errmsg(in));
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    free(ssql);
    free(isql);
    return rc;
}

int dbq_merge_set_experiment(sqlite3 *out, int64_t id, const char *shard, const char *command, const char *created,
                             char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(out,
                                  "UPDATE experiment SET shard = ?1, command = ?2, created = COALESCE(?3, created) "
                                  "WHERE experiment_id = ?4",
                                  DBQ_ARGS(DBQ_TEXT(shard), DBQ_TEXT(command), DBQ_TEXT(created), DBQ_INT(id)), err,
                                  errlen);
    return dbq_one(out, s, NULL, NULL, err, errlen) < 0 ? -1 : 0;
}

int dbq_merge_fold(sqlite3 *out, int64_t to, int64_t from, char *err, size_t errlen)
{
    static const char *const sql[] = {
        "UPDATE scenario SET experiment_id = ?1 WHERE experiment_id = ?2",
        "DELETE FROM experiment WHERE experiment_id = ?2",
    };
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        sqlite3_stmt *s = dbq_prepare(out, sql[i], DBQ_ARGS(DBQ_INT(to), DBQ_INT(from)), err, errlen);
        if (dbq_one(out, s, NULL, NULL, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* ---- what it wrote ---- */

int dbq_merge_summary(sqlite3 *out, int64_t id, void (*fn)(const struct dbq_merge_summary *s, void *arg), void *arg,
                      char *err, size_t errlen)
{
    /* A typed row, alike in shape to the query layer's others (dbq_cmp_settings'
     * trace row, dbq_top_trace's): each its own statement's columns into its
     * own struct, handed to fn while its text lives, so they stay apart.
     * dbq_one would read it only through a struct carrying fn and arg and a
     * read function a query (more lines, the same shape); a table of column
     * readers (offset, type) would lose the initializers' type checks. */
    sqlite3_stmt *s = dbq_prepare(out, "SELECT file, engine, cells, repeats, shard, (SELECT COUNT(*) FROM scenario "
                                       "WHERE experiment_id = ?1) FROM experiment WHERE experiment_id = ?1",
                                  DBQ_ARGS(DBQ_INT(id)), err, errlen);
    if (!s)
        return -1;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        struct dbq_merge_summary m = {
            .file = (const char *)sqlite3_column_text(s, 0),
            .engine = (const char *)sqlite3_column_text(s, 1),
            .cells = sqlite3_column_int(s, 2),
            .repeats = sqlite3_column_int(s, 3),
            .shard = (const char *)sqlite3_column_text(s, 4),
            .runs = sqlite3_column_int64(s, 5),
        };
        fn(&m, arg);
        rc = SQLITE_DONE;
    }
    return dbq_finish(out, s, rc, false, err, errlen);
}

int dbq_merge_full_cells(sqlite3 *out, int64_t id, void (*fn)(int cell, void *arg), void *arg, char *err,
                         size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(out, "SELECT cell FROM scenario WHERE experiment_id = ?1 GROUP BY cell HAVING "
                                       "COUNT(*) >= (SELECT repeats FROM experiment WHERE experiment_id = ?1)",
                                  DBQ_ARGS(DBQ_INT(id)), err, errlen);
    if (!s)
        return -1;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        fn(sqlite3_column_int(s, 0), arg);
    return dbq_finish(out, s, rc, false, err, errlen);
}
