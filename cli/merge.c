/*
 * `runq merge OUT.db IN.db...`: runq databases into one, so that the
 * shards of an experiment run on many machines (`runq experiment --shard
 * I/N`) are one experiment again (docs/experiments.md, "Beyond one
 * machine").
 *
 * Every id a database gives is its own: trace ids, utids, scenario and
 * experiment ids start at 1 in each. So an input's rows go into OUT with
 * each kind of id moved past OUT's largest by one offset (which keeps
 * their order), every column naming such an id moved alike; id_cols
 * below says which columns those are, and refuses to run when the schema
 * has an id column it does not name. Experiments are the exception: the
 * shards of one experiment (the same file, engine, axes, cells, repeats,
 * columns and N) all map to one experiment row, whose shard column then
 * says what it holds: NULL when it holds all N shards, as an unsharded
 * run's does, else the shards it holds, "1,3/4" or "1-3,5/8".
 *
 * In order:
 *   1. the flags; this runq's schema (a database made in memory), and the
 *      check that id_cols names every id column in it;
 *   2. OUT, when it exists, and each input, opened read-only and checked:
 *      a runq database, of this runq's schema version, with no trace
 *      still recording, not given twice;
 *   3. the sharded experiments grouped and checked: no shard twice, every
 *      run in the shard its experiment says it holds, and in a group one
 *      seed and one scenario per cell (else they are different
 *      experiments that only look alike);
 *   4. one transaction on OUT (created when missing): each input's rows,
 *      renumbered; each group's experiment row; the indexes. A failure
 *      rolls it back, and removes an OUT this run created;
 *   5. a line per experiment written: its runs, and the cells lacking some.
 * Nothing is written before step 4, so a refusal leaves OUT byte for byte
 * as it was. From before step 2 to the end the merge holds OUT's merge
 * lock (recorder_lock.h): a second merge into OUT waits, then reads what
 * this one wrote.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "db/experiment.h"
#include "db/migrate.h"
#include "db/readable.h"
#include "db/recorder_lock.h"
#include "db/visible.h"
#include "db/writer.h"

/* runq experiment's bounds: --shard's N, and the runs of one experiment. */
#define MG_MAX_SHARDS 100000
#define MG_MAX_RUNS 100000

static void merge_help(void)
{
    printf("usage: runq merge OUT.db IN.db...\n\n"
           "Merges runq databases into OUT.db (created when missing, else added to), so that\n"
           "an experiment run in shards on several machines (runq experiment --shard I/N) is\n"
           "one experiment again. Every trace, thread, scenario run and experiment gets a new\n"
           "id in OUT.db, and every column naming one follows it. The shards of one\n"
           "experiment (the same file, engine, axes, cells, repeats, columns and N) become\n"
           "one experiment; its shard column is empty when all N shards are there, as after\n"
           "an unsharded run, else it lists the shards it holds (1,3/4). A line per\n"
           "experiment says how many runs it holds and which cells lack some.\n\n"
           "It refuses, naming the file, a database that is not runq's or is of another\n"
           "schema version than this runq's, one with a trace still recording, a shard given\n"
           "twice, shards of experiments that differ (seeds, a cell's scenario), and ids too\n"
           "near the 64-bit limits to renumber. All of it is one transaction: after a refusal\n"
           "or a failure OUT.db is as it was. Merges into one OUT.db wait for each other.\n"
           "docs/experiments.md shows it after GNU parallel and a Slurm job array.\n\n"
           "flags:\n"
           "  --help    this help\n");
}

static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "runq merge: ..." on stderr; returns -1. */
static int refuse(const char *fmt, ...)
{
    /* Messages quote a database's text (a shard, a table's name, SQLite's
     * errors about its rows): the whole message goes through text_visible,
     * so none of it can act on the terminal. */
    char msg[2048], shown[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    text_visible(shown, sizeof shown, msg);
    fprintf(stderr, "runq merge: %s\n", shown);
    return -1;
}

/* ---- which columns hold ids ---- */

enum mg_kind { MG_PLAIN, MG_ROW, MG_TRACE, MG_UTID, MG_SCENARIO, MG_EXPERIMENT, MG_NKINDS };

/* Every column of db/schema.sql holding an id the merge renumbers. A
 * table of NULL means the column means that id in every table. MG_ROW is
 * a row's own id that nothing refers to: OUT gives it anew. */
static const struct {
    const char *table, *column;
    enum mg_kind kind;
} id_cols[] = {
    { NULL, "trace_id", MG_TRACE },
    { NULL, "utid", MG_UTID },
    { NULL, "scenario_id", MG_SCENARIO },
    { NULL, "experiment_id", MG_EXPERIMENT },
    { NULL, "id", MG_ROW },
    { "thread", "parent_utid", MG_UTID },
    { "thread_state", "waker_utid", MG_UTID },
    { "wakeup", "waker", MG_UTID },
    { "eevdf_pick", "prev_utid", MG_UTID },
    { "eevdf_pick", "next_utid", MG_UTID },
    { "eevdf_place", "curr_utid", MG_UTID },
};

static enum mg_kind kind_of(const char *table, const char *column)
{
    for (size_t i = 0; i < sizeof id_cols / sizeof id_cols[0]; i++)
        if ((!id_cols[i].table || !strcmp(id_cols[i].table, table)) && !strcmp(id_cols[i].column, column))
            return id_cols[i].kind;
    return MG_PLAIN;
}

/* A column whose name says it holds an id: one that id_cols must name,
 * or a new column would be copied unrenumbered, pointing into the
 * wrong trace. */
static bool looks_like_id(const char *column)
{
    size_t n = strlen(column);
    return !strcmp(column, "id") || !strcmp(column, "waker") || (n > 3 && !strcmp(column + n - 3, "_id")) ||
           strstr(column, "utid");
}

struct mg_col {
    char *name;
    enum mg_kind kind;
};

struct mg_table {
    char *name;
    int ncols;
    struct mg_col *col;
    enum mg_kind own; /* the kind of its INTEGER PRIMARY KEY, MG_PLAIN if none */
};

/* This runq's schema: its version and its tables, read from a database
 * made in memory by db_migrate, so it is db/schema.sql's, not a copy. */
struct mg_schema {
    int version, ntables;
    struct mg_table *t;
};

/* The first row's first column of sql through *out (0 when there is no
 * row), and whether it is NULL through *null (if not NULL). 0 or -1. */
static int query_int64(sqlite3 *db, const char *sql, int64_t *out, bool *null)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(s);
    if (null)
        *null = rc != SQLITE_ROW || sqlite3_column_type(s, 0) == SQLITE_NULL;
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The array a of n elements of size bytes with one more, zeroed, at its
 * end; NULL when out of memory (a is then still the caller's). */
static void *append(void *a, int n, size_t size)
{
    char *p = realloc(a, (size_t)(n + 1) * size);
    if (p)
        memset(p + (size_t)n * size, 0, size);
    return p;
}

static char *col_dup(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? strdup((const char *)t) : NULL;
}

static int read_schema(struct mg_schema *sc)
{
    sqlite3 *mem = NULL;
    sqlite3_stmt *s = NULL, *c = NULL;
    char err[512];
    int64_t v;
    int rc = -1;

    if (sqlite3_open(":memory:", &mem) != SQLITE_OK || db_migrate(mem, "this runq's schema", err, sizeof err) != 0 ||
        query_int64(mem, "PRAGMA user_version", &v, NULL) != 0 ||
        sqlite3_prepare_v2(mem, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid", -1, &s,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(mem, "SELECT name, pk, type, (SELECT COUNT(*) FROM pragma_table_info(?1) WHERE pk > 0) "
                                "FROM pragma_table_info(?1) ORDER BY cid", -1, &c, NULL) != SQLITE_OK) {
        refuse("reading this runq's schema: %s", mem ? sqlite3_errmsg(mem) : "out of memory");
        goto done;
    }
    sc->version = (int)v;
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct mg_table *t = append(sc->t, sc->ntables, sizeof *t);
        if (!t)
            goto done;
        sc->t = t;
        t = &sc->t[sc->ntables++];
        t->name = col_dup(s, 0);
        sqlite3_reset(c);
        sqlite3_bind_text(c, 1, t->name, -1, SQLITE_STATIC);
        while (sqlite3_step(c) == SQLITE_ROW) {
            struct mg_col *col = append(t->col, t->ncols, sizeof *col);
            if (!col)
                goto done;
            t->col = col;
            char *name = col_dup(c, 0);
            enum mg_kind k = kind_of(t->name, name);
            if (k == MG_PLAIN && looks_like_id(name)) {
                refuse("column %s.%s looks like an id, and cli/merge.c's id_cols does not say which: "
                       "db/schema.sql changed without it",
                       t->name, name);
                free(name);
                goto done;
            }
            /* INTEGER PRIMARY KEY alone: the row's own id (its rowid). */
            if (sqlite3_column_int(c, 1) == 1 && sqlite3_column_int(c, 3) == 1 &&
                !strcmp((const char *)sqlite3_column_text(c, 2), "INTEGER"))
                t->own = k;
            t->col[t->ncols++] = (struct mg_col){ name, k };
        }
    }
    rc = 0;
done:
    sqlite3_finalize(s);
    sqlite3_finalize(c);
    sqlite3_close(mem);
    return rc;
}

/* ---- the databases ---- */

/* An experiment row of a database, and where it goes in OUT. */
struct mg_exp {
    int64_t id, new_id;
    int group;   /* its shard group, -1: not sharded */
    bool insert; /* its row goes into OUT (else its runs join new_id's) */
};

struct mg_db {
    const char *path;
    sqlite3 *db;  /* read-only, while it is read; NULL: closed */
    int probe;    /* its recorders' locks, while db is open (recorder_lock.h) */
    struct stat st;
    int nexp;
    struct mg_exp *exp; /* by id */
};

/* The shards claimed to be one experiment. */
struct mg_group {
    char *file, *engine, *axes, *columns, *created, *command;
    int cells, repeats, n;
    int *owner;        /* per shard: 1 + the database holding it; 0: none */
    int64_t *owner_id; /* and its experiment id there */
    int command_shard; /* the shard whose command is kept: the lowest */
    bool seeded;
    uint64_t seedbase; /* each run's seed less its repeat */
    int seed_db;
    uint64_t *cellsum; /* per cell: a hash of its parameters and scenario; 0: none seen */
    int *cell_db;
    int64_t target;    /* its experiment in OUT; 0 until there is one */
    int nfold;
    int64_t *fold;     /* OUT's other experiments of the group, folded into target */
    bool touched;      /* an input adds to it, or OUT's rows fold */
};

struct mg {
    const char *out_path;
    struct mg_schema sc;
    int ndb;
    struct mg_db *db; /* [0]: OUT; then the inputs, in order */
    int ngroups;
    struct mg_group *g;
    int nwritten;
    int64_t *written; /* OUT's experiments this merge wrote or changed */
    int64_t ntraces, nruns; /* traces and scenario runs it copied */
};

static bool same(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Opens d->path read-only, as runq's readers do (db/query.c), and checks
 * that it may be merged: a runq database of this runq's schema version.
 * Unlike theirs, its descriptor for the recorders' locks is closed again
 * by close_db: a merge of a thousand shards would otherwise keep two
 * thousand files open. */
static int open_db(struct mg *m, struct mg_db *d)
{
    int64_t version, tables, core;
    const char *why;
    d->probe = recorder_lock_open(d->path, 0); /* before SQLite opens it: recorder_lock.h */
    if (d->probe < 0)
        return refuse("%s: %s", d->path, strerror(errno));
    if (sqlite3_open_v2(d->path, &d->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        recorder_alive_sql(d->db, d->probe) != SQLITE_OK)
        return refuse("%s: %s", d->path, d->db ? sqlite3_errmsg(d->db) : "cannot open it");
    sqlite3_busy_timeout(d->db, 5000);
    if ((why = db_unreadable_why(d->db)) != NULL)
        return refuse("%s: %s", d->path, why);
    if (query_int64(d->db, "PRAGMA user_version", &version, NULL) != 0 ||
        query_int64(d->db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", &tables, NULL) != 0 ||
        query_int64(d->db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('trace', 'thread')",
                    &core, NULL) != 0)
        return refuse("%s: not a runq database (%s)", d->path, sqlite3_errmsg(d->db));
    if (tables == 0)
        return refuse("%s: not a runq database: it holds no tables", d->path);
    if (core != 2)
        return refuse("%s: not a runq database: it holds another program's tables", d->path);
    if (version != m->sc.version)
        return refuse("%s: schema version %" PRId64 ", and this runq's is %d: merge databases of one runq "
                      "version (%s)",
                      d->path, version, m->sc.version,
                      version < m->sc.version ? "this runq brings an older one up when it records into it"
                                              : "a newer runq made it");
    return 0;
}

/* Closes d's database, then the descriptor for its locks (in that order:
 * closing it drops every POSIX lock this process holds on the file,
 * SQLite's among them). */
static void close_db(struct mg_db *d)
{
    sqlite3_close(d->db);
    d->db = NULL;
    if (d->probe >= 0)
        close(d->probe);
    d->probe = -1;
}

/* Refuses d while one of its traces is recording: its rows are not all
 * there yet. A trace left 'recording' by a recorder that is gone is
 * merged as it is (readers show it incomplete, recorder_lock.h). */
static int check_recording(struct mg_db *d)
{
    int64_t id;
    bool none;
    if (query_int64(d->db, "SELECT MIN(trace_id) FROM trace WHERE status = 'recording' AND "
                           "runq_recorder_alive(trace_id) IS NOT 0", &id, &none) != 0)
        return refuse("%s: %s", d->path, sqlite3_errmsg(d->db));
    if (!none)
        return refuse("%s: trace %" PRId64 " is still recording: merge it when its recording has ended", d->path, id);
    return 0;
}

/* ---- shards ---- */

/* "I/N", or a merged experiment's "1-3,5/8", into n and set[1..n]
 * (calloc'd). -1 when it is neither. */
static int parse_shard(const char *s, int *n, bool **set)
{
    const char *slash = strrchr(s, '/');
    char *end;
    if (!slash)
        return -1;
    long nn = strtol(slash + 1, &end, 10);
    if (*end || end == slash + 1 || nn < 1 || nn > MG_MAX_SHARDS)
        return -1;
    *n = (int)nn;
    *set = calloc((size_t)nn + 1, sizeof **set);
    if (!*set)
        return -1;
    for (const char *p = s; p < slash;) {
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            return -1;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p)
                return -1;
        }
        if (a < 1 || b < a || b > nn || (end != slash && *end != ','))
            return -1;
        for (long i = a; i <= b; i++)
            (*set)[i] = true;
        p = end + (end != slash);
    }
    for (long i = 1; i <= nn; i++)
        if ((*set)[i])
            return 0;
    return -1; /* holds no shard */
}

/* The members of set[base..base+n-1] as ranges, "1-3,5", into f. */
static void print_ranges(FILE *f, const bool *set, int base, int n)
{
    bool first = true;
    for (int i = base; i < base + n; i++) {
        if (!set[i])
            continue;
        int j = i;
        while (j + 1 < base + n && set[j + 1])
            j++;
        fprintf(f, "%s%d", first ? "" : ",", i);
        if (j > i)
            fprintf(f, "%s%d", j == i + 1 ? "," : "-", j);
        first = false;
        i = j;
    }
}

/* FNV-1a over len bytes of s (NULL: nothing), no separator. */
static uint64_t hash_bytes(uint64_t h, const char *s, size_t len)
{
    for (size_t i = 0; s && i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* FNV-1a over s and a separator, so that "ab" + "c" and "a" + "bc" differ. */
static uint64_t hash_add(uint64_t h, const char *s, size_t len)
{
    return (hash_bytes(h, s, len) ^ 0xff) * 0x100000001b3ull;
}

/* What makes a cell's runs one scenario: its parameters, and the
 * scenario as run with its seed line left out (the seed is the repeat's,
 * checked apart). The text around the seed line is hashed as one string,
 * so a text without one hashes as the same text with one: scn_print
 * leaves out "seed 0" when the file had no seed line, so repeat 0 of a
 * seed-0 experiment has none and repeat 1 has "seed 1". */
static uint64_t cell_hash(const char *params, const char *text, uint64_t seed)
{
    char line[48];
    uint64_t h = hash_add(0xcbf29ce484222325ull, params, params ? strlen(params) : 0);
    int n = snprintf(line, sizeof line, "seed %" PRIu64 "\n", seed);
    const char *at = text;
    while (at && (at = strstr(at, line)) != NULL && at != text && at[-1] != '\n')
        at++;
    if (!at)
        return hash_add(h, text, text ? strlen(text) : 0);
    h = hash_bytes(h, text, (size_t)(at - text));
    return hash_add(h, at + n, strlen(at + n));
}

static struct mg_group *find_group(struct mg *m, sqlite3_stmt *s, int n)
{
    char *file = col_dup(s, 1), *engine = col_dup(s, 2), *axes = col_dup(s, 3), *columns = col_dup(s, 7);
    int cells = sqlite3_column_int(s, 4), repeats = sqlite3_column_int(s, 5);
    for (int i = 0; i < m->ngroups; i++) {
        struct mg_group *g = &m->g[i];
        if (same(g->file, file) && same(g->engine, engine) && same(g->axes, axes) && same(g->columns, columns) &&
            g->cells == cells && g->repeats == repeats && g->n == n) {
            free(file), free(engine), free(axes), free(columns);
            return g;
        }
    }
    struct mg_group *g = append(m->g, m->ngroups, sizeof *g);
    if (!g)
        return NULL;
    m->g = g;
    g = &m->g[m->ngroups++];
    g->file = file, g->engine = engine, g->axes = axes, g->columns = columns;
    g->cells = cells, g->repeats = repeats, g->n = n;
    g->command_shard = n + 1;
    g->owner = calloc((size_t)n + 1, sizeof *g->owner);
    g->owner_id = calloc((size_t)n + 1, sizeof *g->owner_id);
    g->cellsum = calloc((size_t)cells, sizeof *g->cellsum);
    g->cell_db = calloc((size_t)cells, sizeof *g->cell_db);
    return g->owner && g->owner_id && g->cellsum && g->cell_db ? g : NULL;
}

/* Checks the runs of experiment e of database di, shards set of g's N:
 * each in range and in a shard e holds, and each cell's seed and scenario
 * the group's. */
static int check_runs(struct mg *m, int di, const struct mg_exp *e, struct mg_group *g, const bool *set)
{
    const struct mg_db *d = &m->db[di];
    sqlite3_stmt *s;
    int rc = 0;
    if (sqlite3_prepare_v2(d->db, "SELECT cell, repeat, seed, params, text FROM scenario WHERE experiment_id = ?",
                           -1, &s, NULL) != SQLITE_OK)
        return refuse("%s: %s", d->path, sqlite3_errmsg(d->db));
    sqlite3_bind_int64(s, 1, e->id);
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        int cell = sqlite3_column_int(s, 0), repeat = sqlite3_column_int(s, 1);
        uint64_t seed = (uint64_t)sqlite3_column_int64(s, 2);
        if (cell < 0 || cell >= g->cells || repeat < 0 || repeat >= g->repeats) {
            rc = refuse("%s: experiment %" PRId64 " has %d cells x %d repeats, and a run of cell %d, repeat %d: "
                        "the database is damaged",
                        d->path, e->id, g->cells, g->repeats, cell, repeat);
            break;
        }
        int k = cell * g->repeats + repeat, shard = k % g->n + 1;
        if (!set[shard]) {
            rc = refuse("%s: experiment %" PRId64 " does not hold shard %d/%d, but its run %d (cell %d, repeat %d) "
                        "is that shard's",
                        d->path, e->id, shard, g->n, k, cell, repeat);
            break;
        }
        uint64_t base = seed - (uint64_t)repeat;
        if (g->seeded && base != g->seedbase) {
            rc = refuse("%s: experiment %" PRId64 " is not one experiment with %s's shards of %s: its seeds start "
                        "at %" PRIu64 ", theirs at %" PRIu64,
                        d->path, e->id, m->db[g->seed_db].path, g->file ? g->file : "?", base, g->seedbase);
            break;
        }
        g->seeded = true, g->seedbase = base, g->seed_db = di;
        uint64_t h = cell_hash((const char *)sqlite3_column_text(s, 3), (const char *)sqlite3_column_text(s, 4),
                               seed);
        if (g->cellsum[cell] && g->cellsum[cell] != h) {
            rc = refuse("%s: experiment %" PRId64 " is not one experiment with %s's shards of %s: its cell %d "
                        "(%s) is another scenario",
                        d->path, e->id, m->db[g->cell_db[cell]].path, g->file ? g->file : "?", cell,
                        sqlite3_column_text(s, 3) ? (const char *)sqlite3_column_text(s, 3) : "");
            break;
        }
        g->cellsum[cell] = h, g->cell_db[cell] = di;
    }
    sqlite3_finalize(s);
    return rc;
}

/* Reads database di's experiments, and puts each sharded one in its group. */
static int read_experiments(struct mg *m, int di)
{
    struct mg_db *d = &m->db[di];
    sqlite3_stmt *s;
    int rc = 0;
    if (sqlite3_prepare_v2(d->db, "SELECT experiment_id, file, engine, axes, cells, repeats, shard, columns, created, "
                                  "command FROM experiment ORDER BY experiment_id", -1, &s, NULL) != SQLITE_OK)
        return refuse("%s: %s", d->path, sqlite3_errmsg(d->db));
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        struct mg_exp *e = append(d->exp, d->nexp, sizeof *e);
        if (!e) {
            rc = refuse("out of memory");
            break;
        }
        d->exp = e;
        e = &d->exp[d->nexp++];
        e->id = sqlite3_column_int64(s, 0);
        e->group = -1;
        const char *shard = (const char *)sqlite3_column_text(s, 6);
        if (!shard)
            continue;
        int n, cells = sqlite3_column_int(s, 4), repeats = sqlite3_column_int(s, 5);
        bool *set = NULL;
        if (parse_shard(shard, &n, &set) != 0 || cells < 1 || repeats < 1 ||
            (int64_t)cells * repeats > MG_MAX_RUNS) {
            rc = refuse("%s: experiment %" PRId64 " says shard '%s' of %d cells x %d repeats: the database is "
                        "damaged",
                        d->path, e->id, shard, cells, repeats);
            free(set);
            break;
        }
        struct mg_group *g = find_group(m, s, n);
        if (!g) {
            free(set);
            rc = refuse("out of memory");
            break;
        }
        e->group = (int)(g - m->g);
        for (int i = 1; i <= n && rc == 0; i++) {
            if (!set[i])
                continue;
            if (g->owner[i])
                rc = refuse("%s: experiment %" PRId64 " holds shard %d/%d of %s, and so does %s's experiment "
                            "%" PRId64 ": the same shard twice",
                            d->path, e->id, i, n, g->file ? g->file : "?", m->db[g->owner[i] - 1].path,
                            g->owner_id[i]);
            g->owner[i] = di + 1, g->owner_id[i] = e->id;
        }
        if (rc == 0)
            rc = check_runs(m, di, e, g, set);
        int lowest = 1;
        while (!set[lowest])
            lowest++;
        free(set);
        if (rc)
            break;
        if (lowest < g->command_shard) {
            free(g->command);
            g->command = col_dup(s, 9);
            g->command_shard = lowest;
        }
        const char *created = (const char *)sqlite3_column_text(s, 8);
        if (created && (!g->created || strcmp(created, g->created) < 0)) {
            free(g->created);
            g->created = strdup(created);
        }
        if (di == 0 && !g->target) {
            g->target = e->id; /* OUT's first keeps its id; the group joins it */
        } else if (di == 0) {
            int64_t *f = append(g->fold, g->nfold, sizeof *f);
            if (!f) {
                rc = refuse("out of memory");
                break;
            }
            g->fold = f;
            g->fold[g->nfold++] = e->id;
            g->touched = true;
        } else {
            g->touched = true;
        }
    }
    sqlite3_finalize(s);
    return rc;
}

static int exp_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct mg_exp *)a)->id, y = ((const struct mg_exp *)b)->id;
    return (x > y) - (x < y);
}

/* Experiment id of d (d->exp is read in id order), or NULL. */
static const struct mg_exp *find_exp(const struct mg_db *d, int64_t id)
{
    struct mg_exp key = { .id = id };
    return d->nexp ? bsearch(&key, d->exp, (size_t)d->nexp, sizeof key, exp_cmp) : NULL;
}

/* Refuses an input's shard whose runs OUT holds already in an experiment
 * outside the shard's group: one merged before whose shards are all
 * there now (its shard column NULL, so it no longer says it is shards),
 * or of another N. The same runs are the same cell, repeat and seed of
 * the same scenario, so this is the same shard twice. */
static int check_out_runs(struct mg *m, const struct mg_group *g)
{
    const struct mg_db *out = &m->db[0];
    sqlite3_stmt *s;
    int rc = 0;
    if (sqlite3_prepare_v2(out->db, "SELECT s.experiment_id, s.cell, s.repeat, s.seed, s.params, s.text FROM scenario s "
                                    "JOIN experiment x USING (experiment_id) WHERE x.file IS ?1 AND x.engine IS ?2 AND "
                                    "x.axes IS ?3 AND x.columns IS ?4 AND x.cells = ?5 AND x.repeats = ?6",
                           -1, &s, NULL) != SQLITE_OK)
        return refuse("%s: %s", out->path, sqlite3_errmsg(out->db));
    const char *text[] = { g->file, g->engine, g->axes, g->columns };
    for (int i = 0; i < 4; i++)
        sqlite3_bind_text(s, i + 1, text[i], -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 5, g->cells);
    sqlite3_bind_int(s, 6, g->repeats);
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        const struct mg_exp *e = find_exp(out, sqlite3_column_int64(s, 0));
        int cell = sqlite3_column_int(s, 1), repeat = sqlite3_column_int(s, 2);
        uint64_t seed = (uint64_t)sqlite3_column_int64(s, 3);
        if (!e || (e->group >= 0 && &m->g[e->group] == g) || cell < 0 || cell >= g->cells || repeat < 0 ||
            repeat >= g->repeats)
            continue;
        int k = cell * g->repeats + repeat, owner = g->owner[k % g->n + 1];
        if (owner >= 2 && g->seeded && seed - (uint64_t)repeat == g->seedbase &&
            cell_hash((const char *)sqlite3_column_text(s, 4), (const char *)sqlite3_column_text(s, 5), seed) ==
                g->cellsum[cell])
            rc = refuse("%s: shard %d/%d of %s is in %s already (its run %d is experiment %" PRId64 "'s): the same "
                        "shard twice",
                        m->db[owner - 1].path, k % g->n + 1, g->n, g->file ? g->file : "?", out->path, k, e->id);
    }
    sqlite3_finalize(s);
    return rc;
}

/* ---- the copy ---- */

static int note_written(struct mg *m, int64_t id)
{
    for (int i = 0; i < m->nwritten; i++)
        if (m->written[i] == id)
            return 0;
    int64_t *w = append(m->written, m->nwritten, sizeof *w);
    if (!w)
        return refuse("out of memory");
    m->written = w;
    m->written[m->nwritten++] = id;
    return 0;
}

/* Builds "SELECT [a], [b] FROM main.[t] ORDER BY rowid" (select) or
 * "INSERT INTO main.[t] ([a], [b]) VALUES (?, ?)". NULL when out of memory. */
static char *table_sql(const struct mg_table *t, bool select)
{
    char *sql = NULL;
    size_t len = 0;
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

/* Copies table t of input d into out, each id moved by off[its kind],
 * each experiment id mapped through d->exp; adds the rows it wrote to
 * *rows. */
static int copy_table(sqlite3 *out, const char *out_path, const struct mg_db *d, const struct mg_table *t,
                      const int64_t *off, int64_t *rows)
{
    sqlite3_stmt *sel = NULL, *ins = NULL;
    char *ssql = table_sql(t, true), *isql = table_sql(t, false);
    int rc = -1, step = SQLITE_ROW;
    if (!ssql || !isql) {
        refuse("out of memory");
        goto done;
    }
    if (sqlite3_prepare_v2(d->db, ssql, -1, &sel, NULL) != SQLITE_OK) {
        refuse("%s: reading %s: %s", d->path, t->name, sqlite3_errmsg(d->db));
        goto done;
    }
    if (sqlite3_prepare_v2(out, isql, -1, &ins, NULL) != SQLITE_OK) {
        refuse("%s: writing %s: %s", out_path, t->name, sqlite3_errmsg(out));
        goto done;
    }
    while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
        bool skip = false;
        for (int i = 0; i < t->ncols; i++) {
            sqlite3_value *v = sqlite3_column_value(sel, i);
            int64_t id = sqlite3_column_int64(sel, i);
            if (t->col[i].kind == MG_PLAIN || (sqlite3_value_type(v) == SQLITE_NULL && t->col[i].kind != MG_ROW)) {
                sqlite3_bind_value(ins, i + 1, v);
            } else if (t->col[i].kind == MG_ROW) {
                sqlite3_bind_null(ins, i + 1);
            } else if (t->col[i].kind == MG_EXPERIMENT) {
                const struct mg_exp *e = find_exp(d, id);
                if (!e) {
                    refuse("%s: a row of %s names experiment %" PRId64 ", which the database does not hold", d->path,
                           t->name, id);
                    goto done;
                }
                /* A shard whose group already has its row in OUT. */
                skip |= t->own == MG_EXPERIMENT && !e->insert;
                sqlite3_bind_int64(ins, i + 1, e->new_id);
            } else {
                int64_t moved;
                /* Ids near the int64 limits (a crafted or damaged file)
                 * cannot all move past OUT's: refused, never wrapped. */
                if (__builtin_add_overflow(id, off[t->col[i].kind], &moved)) {
                    refuse("%s: %s.%s holds %" PRId64 ", which cannot be renumbered past %s's ids without "
                           "overflowing 64 bits: the database is damaged",
                           d->path, t->name, t->col[i].name, id, out_path);
                    goto done;
                }
                sqlite3_bind_int64(ins, i + 1, moved);
            }
        }
        if (!skip && sqlite3_step(ins) != SQLITE_DONE) {
            refuse("%s: copying %s: %s", d->path, t->name, sqlite3_errmsg(out));
            goto done;
        }
        *rows += !skip;
        sqlite3_reset(ins);
    }
    if (step != SQLITE_DONE) {
        refuse("%s: reading %s: %s", d->path, t->name, sqlite3_errmsg(d->db));
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

/* The offset that moves ids of column col of table from d past out's:
 * OUT's largest + 1 - d's smallest, so the smallest lands just past the
 * largest and the order is kept. */
static int offset(sqlite3 *out, const char *out_path, const struct mg_db *d, const char *table, const char *col,
                  int64_t *off)
{
    char sql[128];
    int64_t max, min;
    bool none;
    snprintf(sql, sizeof sql, "SELECT MAX(%s) FROM main.%s", col, table);
    if (query_int64(out, sql, &max, NULL) != 0)
        return refuse("%s: %s", out_path, sqlite3_errmsg(out));
    snprintf(sql, sizeof sql, "SELECT MIN(%s) FROM main.%s", col, table);
    if (query_int64(d->db, sql, &min, &none) != 0)
        return refuse("%s: %s", d->path, sqlite3_errmsg(d->db));
    /* max + 1 - min, in steps that cannot wrap: ids near the int64
     * limits come from a crafted or damaged file. */
    if (none)
        min = 1;
    if (max == INT64_MAX || __builtin_sub_overflow(max + 1, min, off))
        return refuse("%s: its %s.%s runs from %" PRId64 ", which cannot be renumbered past %s's largest (%" PRId64
                      ") without overflowing 64 bits: the database is damaged",
                      d->path, table, col, min, out_path, max);
    return 0;
}

/* Copies input di into out: inside out's transaction, and inside a read
 * transaction of its own, so its tables are read as of one moment. */
static int copy_db(struct mg *m, sqlite3 *out, int di)
{
    struct mg_db *d = &m->db[di];
    int64_t off[MG_NKINDS] = { 0 }, next;
    int rc = -1;
    /* The checks again, inside the read transaction: a recording may
     * have begun since. */
    if (open_db(m, d) != 0)
        goto done;
    if (sqlite3_exec(d->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        refuse("%s: %s", d->path, sqlite3_errmsg(d->db));
        goto done;
    }
    if (check_recording(d) != 0 || offset(out, m->out_path, d, "trace", "trace_id", &off[MG_TRACE]) != 0 ||
        offset(out, m->out_path, d, "thread", "utid", &off[MG_UTID]) != 0 ||
        offset(out, m->out_path, d, "scenario", "scenario_id", &off[MG_SCENARIO]) != 0)
        goto done;
    if (query_int64(out, "SELECT COALESCE(MAX(experiment_id), 0) FROM main.experiment", &next, NULL) != 0) {
        refuse("%s: %s", m->out_path, sqlite3_errmsg(out));
        goto done;
    }
    if (next > INT64_MAX - 1 - d->nexp) {
        refuse("%s: its experiments cannot be numbered past %s's largest (%" PRId64 ") without overflowing 64 "
               "bits: %s is damaged",
               d->path, m->out_path, next, m->out_path);
        goto done;
    }
    next++;
    for (int i = 0; i < d->nexp; i++) {
        struct mg_exp *e = &d->exp[i];
        struct mg_group *g = e->group >= 0 ? &m->g[e->group] : NULL;
        e->insert = !g || !g->target;
        e->new_id = e->insert ? next++ : g->target;
        if (g && !g->target)
            g->target = e->new_id;
        if (note_written(m, e->new_id) != 0)
            goto done;
    }
    for (int i = 0; i < m->sc.ntables; i++) {
        const struct mg_table *t = &m->sc.t[i];
        int64_t unused, *rows = t->own == MG_TRACE ? &m->ntraces : t->own == MG_SCENARIO ? &m->nruns : &unused;
        if (copy_table(out, m->out_path, d, t, off, rows) != 0)
            goto done;
    }
    rc = 0;
done:
    close_db(d); /* ends its read transaction */
    return rc;
}

static int exec_ids(sqlite3 *out, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Runs one statement on OUT whose only values are ids, printed into it. */
static int exec_ids(sqlite3 *out, const char *path, const char *fmt, ...)
{
    char sql[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    if (sqlite3_exec(out, sql, NULL, NULL, NULL) != SQLITE_OK)
        return refuse("%s: %s", path, sqlite3_errmsg(out));
    return 0;
}

/* Group g's experiment row once every input is in: its shard column (NULL
 * when all N are there), its first start, its lowest shard's command; and
 * OUT's other rows of the group folded into it. */
static int finish_group(struct mg *m, sqlite3 *out, struct mg_group *g)
{
    char *shard = NULL;
    size_t len = 0;
    sqlite3_stmt *s = NULL;
    bool *set = calloc((size_t)g->n + 1, sizeof *set), all = true;
    int rc = -1;
    if (!set)
        return refuse("out of memory");
    for (int i = 1; i <= g->n; i++)
        all &= set[i] = g->owner[i] != 0;
    if (!all) {
        FILE *f = open_memstream(&shard, &len);
        if (!f)
            goto done;
        print_ranges(f, set, 1, g->n);
        fprintf(f, "/%d", g->n);
        fclose(f);
    }
    if (sqlite3_prepare_v2(out, "UPDATE experiment SET shard = ?1, command = ?2, created = COALESCE(?3, created) "
                                "WHERE experiment_id = ?4", -1, &s, NULL) != SQLITE_OK) {
        refuse("%s: %s", m->out_path, sqlite3_errmsg(out));
        goto done;
    }
    if (shard)
        sqlite3_bind_text(s, 1, shard, -1, SQLITE_STATIC);
    if (g->command)
        sqlite3_bind_text(s, 2, g->command, -1, SQLITE_STATIC);
    if (g->created)
        sqlite3_bind_text(s, 3, g->created, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, g->target);
    if (sqlite3_step(s) != SQLITE_DONE) {
        refuse("%s: %s", m->out_path, sqlite3_errmsg(out));
        goto done;
    }
    for (int i = 0; i < g->nfold; i++)
        if (exec_ids(out, m->out_path, "UPDATE scenario SET experiment_id = %" PRId64 " WHERE experiment_id = %" PRId64,
                     g->target, g->fold[i]) != 0 ||
            exec_ids(out, m->out_path, "DELETE FROM experiment WHERE experiment_id = %" PRId64, g->fold[i]) != 0)
            goto done;
    rc = note_written(m, g->target);
done:
    sqlite3_finalize(s);
    free(shard);
    free(set);
    return rc;
}

/* ---- what it wrote ---- */

/* One line for experiment id of out: what it is, its runs, and the cells
 * lacking some (a shard missing, or runs that never finished). */
static void describe(sqlite3 *out, int64_t id)
{
    sqlite3_stmt *s = NULL, *c = NULL;
    if (sqlite3_prepare_v2(out, "SELECT file, engine, cells, repeats, shard, (SELECT COUNT(*) FROM scenario WHERE "
                                "experiment_id = ?1) FROM experiment WHERE experiment_id = ?1", -1, &s, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(out, "SELECT cell FROM scenario WHERE experiment_id = ?1 GROUP BY cell HAVING COUNT(*) >= "
                                "(SELECT repeats FROM experiment WHERE experiment_id = ?1)", -1, &c, NULL) !=
            SQLITE_OK)
        goto done;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(c, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW)
        goto done;
    int cells = sqlite3_column_int(s, 2), repeats = sqlite3_column_int(s, 3);
    int64_t runs = sqlite3_column_int64(s, 5);
    const char *shard = (const char *)sqlite3_column_text(s, 4);
    /* file, engine and shard are the database's text: shown, not sent raw */
    char file[512], engine[128], shown[512];
    text_visible(file, sizeof file, sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "-");
    text_visible(engine, sizeof engine, (const char *)sqlite3_column_text(s, 1));
    text_visible(shown, sizeof shown, shard);
    printf("experiment %" PRId64 ": %s, engine %s, %d cell%s x %d repeat%s%s%s: %" PRId64 " of %" PRId64 " runs",
           id, file, engine, cells, cells == 1 ? "" : "s", repeats, repeats == 1 ? "" : "s", shard ? ", shard " : "",
           shown, runs, (int64_t)cells * repeats);
    /* The counts are the database's (an unsharded experiment's are not
     * checked on reading): listing the lacking cells costs a byte and a
     * step per claimed cell, so past what an experiment can hold they are
     * not listed, and the line says why. */
    if (cells < 1 || repeats < 1 || (int64_t)cells * repeats > MG_MAX_RUNS) {
        printf("; its %d cells x %d repeats are past what an experiment holds (%d runs): the database is damaged\n",
               cells, repeats, MG_MAX_RUNS);
        goto done;
    }
    bool *lacking = malloc((size_t)cells * sizeof *lacking);
    if (lacking && runs < (int64_t)cells * repeats) {
        int n = cells;
        for (int i = 0; i < cells; i++)
            lacking[i] = true;
        while (sqlite3_step(c) == SQLITE_ROW) {
            int k = sqlite3_column_int(c, 0);
            if (k >= 0 && k < cells && lacking[k])
                lacking[k] = false, n--;
        }
        printf("; %s ", n == 1 ? "cell" : "cells");
        print_ranges(stdout, lacking, 0, cells);
        printf(" lack%s runs", n == 1 ? "s" : "");
    }
    printf("\n");
    free(lacking);
done:
    sqlite3_finalize(s);
    sqlite3_finalize(c);
}

/* ---- the command ---- */

/* Steps 2 and 3: every database opened and checked, nothing written. */
static int check_all(struct mg *m)
{
    for (int i = 0; i < m->ndb; i++) {
        struct mg_db *d = &m->db[i];
        if (stat(d->path, &d->st) != 0) {
            if (i > 0)
                return refuse("%s: no such database", d->path);
            memset(&d->st, 0, sizeof d->st);
            continue; /* OUT, made in step 4 */
        }
        for (int j = 0; j < i; j++)
            if (m->db[j].st.st_ino && d->st.st_dev == m->db[j].st.st_dev && d->st.st_ino == m->db[j].st.st_ino)
                return refuse("%s: %s", d->path,
                              j == 0 ? "is OUT itself: merge into another file" : "given twice: it would be merged twice");
        if (i == 0 && d->st.st_size == 0)
            continue; /* an empty OUT is a new one */
        /* OUT first: its experiments keep their ids, so a group's
         * target is OUT's when it has one. */
        if (open_db(m, d) != 0 || check_recording(d) != 0 || read_experiments(m, i) != 0)
            return -1;
        if (i > 0)
            close_db(d); /* opened again to be copied */
    }
    for (int i = 0; m->db[0].db && i < m->ngroups; i++)
        if (m->g[i].touched && check_out_runs(m, &m->g[i]) != 0)
            return -1;
    close_db(&m->db[0]); /* so that only the writer holds it */
    return 0;
}

/* Step 4, in one transaction on out. */
static int write_all(struct mg *m, sqlite3 *out)
{
    if (sqlite3_exec(out, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return refuse("%s: %s", m->out_path, sqlite3_errmsg(out));
    for (int i = 1; i < m->ndb; i++)
        if (copy_db(m, out, i) != 0)
            goto fail;
    for (int i = 0; i < m->ngroups; i++)
        if (m->g[i].touched && finish_group(m, out, &m->g[i]) != 0)
            goto fail;
    char *msg = NULL;
    if (sqlite3_exec(out, db_indexes_sql, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(out, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
        refuse("%s: %s", m->out_path, msg ? msg : sqlite3_errmsg(out));
        sqlite3_free(msg);
        goto fail;
    }
    return 0;
fail:
    if (!sqlite3_get_autocommit(out))
        sqlite3_exec(out, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static void free_all(struct mg *m)
{
    for (int i = 0; i < m->sc.ntables; i++) {
        for (int j = 0; j < m->sc.t[i].ncols; j++)
            free(m->sc.t[i].col[j].name);
        free(m->sc.t[i].col);
        free(m->sc.t[i].name);
    }
    free(m->sc.t);
    for (int i = 0; i < m->ndb; i++) {
        close_db(&m->db[i]);
        free(m->db[i].exp);
    }
    free(m->db);
    for (int i = 0; i < m->ngroups; i++) {
        struct mg_group *g = &m->g[i];
        free(g->file), free(g->engine), free(g->axes), free(g->columns), free(g->created), free(g->command);
        free(g->owner), free(g->owner_id), free(g->cellsum), free(g->cell_db), free(g->fold);
    }
    free(m->g);
    free(m->written);
}

/* Puts back an OUT this run made: removed, or emptied if it was an empty file. */
static void unmake_out(const char *path, bool existed)
{
    char side[4096];
    if (existed) {
        if (truncate(path, 0) != 0)
            refuse("%s: could not empty it again", path);
    } else {
        unlink(path);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(side, sizeof side, "%s%s", path, i ? "-shm" : "-wal");
        unlink(side);
    }
}

int cmd_merge(int argc, char **argv)
{
    struct mg m = { 0 };
    int rc = 1, lock = -1;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            merge_help();
            return 0;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "runq merge: unknown flag '%s'; see 'runq merge --help'\n", argv[i]);
            return 2;
        }
    }
    if (argc < 3) {
        fprintf(stderr, "runq merge: give OUT.db and at least one IN.db; see 'runq merge --help'\n");
        return 2;
    }
    m.out_path = argv[1];
    m.ndb = argc - 1;
    m.db = calloc((size_t)m.ndb, sizeof *m.db);
    if (!m.db) {
        refuse("out of memory");
        return 1;
    }
    for (int i = 0; i < m.ndb; i++)
        m.db[i].path = argv[i + 1], m.db[i].probe = -1;
    if (read_schema(&m.sc) != 0)
        goto done;
    /* Another merge into OUT goes first or after, never between this
     * one's reading OUT (which of its experiments a shard joins) and its
     * commit: else both add the group's experiment, and one experiment is
     * two. Taken before anything is read, held to the end. */
    int created;
    lock = recorder_merge_lock(m.out_path, &created);
    if (lock < 0) {
        refuse("%s: %s", m.out_path, strerror(errno));
        goto done;
    }
    bool existed = !created;
    if (check_all(&m) != 0) {
        if (!existed)
            unmake_out(m.out_path, false);
        goto done;
    }

    /* Step 4. */
    bool was_empty = existed && m.db[0].st.st_size == 0;
    char err[1024];
    sqlite3 *out = dbx_open(m.out_path, err, sizeof err);
    if (!out) {
        refuse("%s", err);
        if (!existed || was_empty)
            unmake_out(m.out_path, existed);
        goto done;
    }
    if (write_all(&m, out) != 0) {
        sqlite3_close(out);
        if (!existed || was_empty)
            unmake_out(m.out_path, existed);
        fprintf(stderr, "runq merge: %s is as it was\n", m.out_path);
        goto done;
    }
    printf("%s: %d database%s merged: %" PRId64 " trace%s, %" PRId64 " scenario run%s, %d experiment%s\n",
           m.out_path, m.ndb - 1, m.ndb == 2 ? "" : "s", m.ntraces, m.ntraces == 1 ? "" : "s", m.nruns,
           m.nruns == 1 ? "" : "s", m.nwritten, m.nwritten == 1 ? "" : "s");
    for (int i = 0; i < m.nwritten; i++)
        describe(out, m.written[i]);
    sqlite3_close(out);
    rc = 0;
done:
    free_all(&m);
    if (lock >= 0)
        close(lock); /* after SQLite closed OUT: recorder_lock.h */
    return rc;
}
