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
 * The flags and the help are host/cli/merge.c's. In order:
 *   1. this runq's schema (a database made in memory), and the
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
 *
 * Each step's SQL is db/q_merge.c's (this runq's schema, what a database
 * holds, the copy of a table, OUT's experiment rows); here are the
 * checks, which ids move and how, and the order of it all.
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

#include "bug.h"
#include "db/dbfile.h"
#include "db/experiment.h"
#include "db/q_merge.h"
#include "db/readable.h"
#include "db/recorder_lock.h"
#include "db/visible.h"
#include "host/base/xalloc.h"
#include "host/experiment/merge.h"

/* runq experiment's bounds: --shard's N, and the runs of one experiment. */
#define MG_MAX_SHARDS 100000
#define MG_MAX_RUNS 100000

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
    const char *name; /* sc->db's */
    enum mg_kind kind;
};

struct mg_table {
    const struct dbq_merge_table *db; /* as read */
    const char *name;
    int ncols;
    struct mg_col *col;
    enum mg_kind own; /* the kind of its INTEGER PRIMARY KEY, MG_PLAIN if none */
};

/* This runq's schema: its version and its tables, as db/q_merge.h reads
 * them (db/schema.sql's, not a copy). */
struct mg_schema {
    int version, ntables;
    struct mg_table *t;
    struct dbq_merge_schema db;
};

/* The array a of n elements of size bytes with one more, zeroed, at its
 * end. */
static void *append(void *a, int n, size_t size)
{
    BUG_ON(n < 0);
    char *p = xreallocarray(a, (size_t)n + 1, size);
    memset(p + (size_t)n * size, 0, size);
    return p;
}

static char *dup_or_null(const char *t)
{
    return t ? xstrdup(t) : NULL;
}

/* This runq's schema (db/q_merge.h), each column given its kind. */
static int read_schema(struct mg_schema *sc)
{
    struct dbq_merge_schema db;
    char err[512];
    int rc = -1;

    if (dbq_merge_schema_read(&db, err, sizeof err) != 0) {
        refuse("%s", err);
        goto done;
    }
    sc->version = db.version;
    for (int i = 0; i < db.ntables; i++) {
        const struct dbq_merge_table *dt = &db.t[i];
        sc->t = append(sc->t, sc->ntables, sizeof *sc->t);
        struct mg_table *t = &sc->t[sc->ntables++];
        t->db = dt;
        t->name = dt->name;
        if (dt->ncols)
            t->col = xcalloc((size_t)dt->ncols, sizeof *t->col);
        for (int j = 0; j < dt->ncols; j++) {
            const char *name = dt->col[j].name;
            enum mg_kind k = kind_of(t->name, name);
            if (k == MG_PLAIN && looks_like_id(name)) {
                refuse("column %s.%s looks like an id, and host/experiment/merge.c's id_cols does not say which: "
                       "db/schema.sql changed without it",
                       t->name, name);
                goto done;
            }
            if (dt->col[j].rowid)
                t->own = k;
            t->col[t->ncols++] = (struct mg_col){ name, k };
        }
    }
    rc = 0;
done:
    sc->db = db; /* the names it lends, freed with it */
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
    char err[512];
    d->probe = recorder_lock_open(d->path, 0); /* before SQLite opens it: recorder_lock.h */
    if (d->probe < 0)
        return refuse("%s: %s", d->path, strerror(errno));
    if (sqlite3_open_v2(d->path, &d->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        recorder_alive_sql(d->db, d->probe) != SQLITE_OK)
        return refuse("%s: %s", d->path, d->db ? sqlite3_errmsg(d->db) : "cannot open it");
    sqlite3_busy_timeout(d->db, 5000);
    if ((why = db_unreadable_why(d->db)) != NULL)
        return refuse("%s: %s", d->path, why);
    if (dbq_merge_kind(d->db, &version, &tables, &core, err, sizeof err) != 0)
        return refuse("%s: not a runq database (%s)", d->path, err);
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
    char err[512];
    if (dbq_merge_recording(d->db, &id, &none, err, sizeof err) != 0)
        return refuse("%s: %s", d->path, err);
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
    *set = xcalloc((size_t)nn + 1, sizeof **set);
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

static struct mg_group *find_group(struct mg *m, const struct dbq_merge_experiment *x, int n)
{
    char *file = dup_or_null(x->file), *engine = dup_or_null(x->engine), *axes = dup_or_null(x->axes),
         *columns = dup_or_null(x->columns);
    int cells = x->cells, repeats = x->repeats;
    for (int i = 0; i < m->ngroups; i++) {
        struct mg_group *g = &m->g[i];
        if (same(g->file, file) && same(g->engine, engine) && same(g->axes, axes) && same(g->columns, columns) &&
            g->cells == cells && g->repeats == repeats && g->n == n) {
            free(file), free(engine), free(axes), free(columns);
            return g;
        }
    }
    m->g = append(m->g, m->ngroups, sizeof *m->g);
    struct mg_group *g = &m->g[m->ngroups++];
    g->file = file, g->engine = engine, g->axes = axes, g->columns = columns;
    g->cells = cells, g->repeats = repeats, g->n = n;
    g->command_shard = n + 1;
    g->owner = xcalloc((size_t)n + 1, sizeof *g->owner);
    g->owner_id = xcalloc((size_t)n + 1, sizeof *g->owner_id);
    g->cellsum = xcalloc((size_t)cells, sizeof *g->cellsum);
    g->cell_db = xcalloc((size_t)cells, sizeof *g->cell_db);
    return g;
}

/* What check_runs reads a run against, and its verdict. */
struct mg_check {
    struct mg *m;
    int di;
    const struct mg_exp *e;
    struct mg_group *g;
    const bool *set;
    int rc;
};

static bool check_run(const struct dbq_merge_run *r, void *arg)
{
    struct mg_check *k = arg;
    struct mg *m = k->m;
    const struct mg_db *d = &m->db[k->di];
    const struct mg_exp *e = k->e;
    struct mg_group *g = k->g;
    int cell = r->cell, repeat = r->repeat;
    uint64_t seed = r->seed;
    if (cell < 0 || cell >= g->cells || repeat < 0 || repeat >= g->repeats) {
        k->rc = refuse("%s: experiment %" PRId64 " has %d cells x %d repeats, and a run of cell %d, repeat %d: "
                       "the database is damaged",
                       d->path, e->id, g->cells, g->repeats, cell, repeat);
        return false;
    }
    int run = cell * g->repeats + repeat, shard = run % g->n + 1;
    if (!k->set[shard]) {
        k->rc = refuse("%s: experiment %" PRId64 " does not hold shard %d/%d, but its run %d (cell %d, repeat %d) "
                       "is that shard's",
                       d->path, e->id, shard, g->n, run, cell, repeat);
        return false;
    }
    uint64_t base = seed - (uint64_t)repeat;
    if (g->seeded && base != g->seedbase) {
        k->rc = refuse("%s: experiment %" PRId64 " is not one experiment with %s's shards of %s: its seeds start "
                       "at %" PRIu64 ", theirs at %" PRIu64,
                       d->path, e->id, m->db[g->seed_db].path, g->file ? g->file : "?", base, g->seedbase);
        return false;
    }
    g->seeded = true, g->seedbase = base, g->seed_db = k->di;
    uint64_t h = cell_hash(r->params, r->text, seed);
    if (g->cellsum[cell] && g->cellsum[cell] != h) {
        k->rc = refuse("%s: experiment %" PRId64 " is not one experiment with %s's shards of %s: its cell %d "
                       "(%s) is another scenario",
                       d->path, e->id, m->db[g->cell_db[cell]].path, g->file ? g->file : "?", cell,
                       r->params ? r->params : "");
        return false;
    }
    g->cellsum[cell] = h, g->cell_db[cell] = k->di;
    return true;
}

/* Checks the runs of experiment e of database di, shards set of g's N:
 * each in range and in a shard e holds, and each cell's seed and scenario
 * the group's. */
static int check_runs(struct mg *m, int di, const struct mg_exp *e, struct mg_group *g, const bool *set)
{
    struct mg_check k = { m, di, e, g, set, 0 };
    char err[512];
    if (dbq_merge_runs(m->db[di].db, e->id, check_run, &k, err, sizeof err) != 0)
        return refuse("%s: %s", m->db[di].path, err);
    return k.rc;
}

/* Where read_experiment puts an experiment row, and its verdict. */
struct mg_read {
    struct mg *m;
    int di;
    int rc;
};

/* Takes experiment row x of database r->di, and puts it in its group
 * when it is sharded. false, with r->rc, after a refusal. */
static bool read_experiment(const struct dbq_merge_experiment *x, void *arg)
{
    struct mg_read *r = arg;
    struct mg *m = r->m;
    int di = r->di;
    struct mg_db *d = &m->db[di];
    int rc = 0;
    d->exp = append(d->exp, d->nexp, sizeof *d->exp);
    struct mg_exp *e = &d->exp[d->nexp++];
    e->id = x->id;
    e->group = -1;
    const char *shard = x->shard;
    if (!shard)
        return true;
    int n, cells = x->cells, repeats = x->repeats;
    bool *set = NULL;
    if (parse_shard(shard, &n, &set) != 0 || cells < 1 || repeats < 1 || (int64_t)cells * repeats > MG_MAX_RUNS) {
        r->rc = refuse("%s: experiment %" PRId64 " says shard '%s' of %d cells x %d repeats: the database is "
                       "damaged",
                       d->path, e->id, shard, cells, repeats);
        free(set);
        return false;
    }
    struct mg_group *g = find_group(m, x, n);
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
    if (rc) {
        r->rc = rc;
        return false;
    }
    if (lowest < g->command_shard) {
        free(g->command);
        g->command = dup_or_null(x->command);
        g->command_shard = lowest;
    }
    const char *created = x->created;
    if (created && (!g->created || strcmp(created, g->created) < 0)) {
        free(g->created);
        g->created = xstrdup(created);
    }
    if (di == 0 && !g->target) {
        g->target = e->id; /* OUT's first keeps its id; the group joins it */
    } else if (di == 0) {
        g->fold = append(g->fold, g->nfold, sizeof *g->fold);
        g->fold[g->nfold++] = e->id;
        g->touched = true;
    } else {
        g->touched = true;
    }
    return true;
}

/* Reads database di's experiments, and puts each sharded one in its group. */
static int read_experiments(struct mg *m, int di)
{
    struct mg_read r = { m, di, 0 };
    char err[512];
    if (dbq_merge_experiments(m->db[di].db, read_experiment, &r, err, sizeof err) != 0)
        return refuse("%s: %s", m->db[di].path, err);
    return r.rc;
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
struct mg_out_check {
    struct mg *m;
    const struct mg_group *g;
    int rc;
};

static bool check_out_run(const struct dbq_merge_run *r, void *arg)
{
    struct mg_out_check *c = arg;
    struct mg *m = c->m;
    const struct mg_group *g = c->g;
    const struct mg_db *out = &m->db[0];
    const struct mg_exp *e = find_exp(out, r->experiment);
    int cell = r->cell, repeat = r->repeat;
    uint64_t seed = r->seed;
    if (!e || (e->group >= 0 && &m->g[e->group] == g) || cell < 0 || cell >= g->cells || repeat < 0 ||
        repeat >= g->repeats)
        return true;
    int k = cell * g->repeats + repeat, owner = g->owner[k % g->n + 1];
    if (owner >= 2 && g->seeded && seed - (uint64_t)repeat == g->seedbase &&
        cell_hash(r->params, r->text, seed) == g->cellsum[cell]) {
        c->rc = refuse("%s: shard %d/%d of %s is in %s already (its run %d is experiment %" PRId64 "'s): the same "
                       "shard twice",
                       m->db[owner - 1].path, k % g->n + 1, g->n, g->file ? g->file : "?", out->path, k, e->id);
        return false;
    }
    return true;
}

static int check_out_runs(struct mg *m, const struct mg_group *g)
{
    const struct dbq_merge_alike alike = { g->file, g->engine, g->axes, g->columns, g->cells, g->repeats };
    struct mg_out_check c = { m, g, 0 };
    char err[512];
    if (dbq_merge_alike_runs(m->db[0].db, &alike, check_out_run, &c, err, sizeof err) != 0)
        return refuse("%s: %s", m->db[0].path, err);
    return c.rc;
}

/* ---- the copy ---- */

static int note_written(struct mg *m, int64_t id)
{
    for (int i = 0; i < m->nwritten; i++)
        if (m->written[i] == id)
            return 0;
    m->written = append(m->written, m->nwritten, sizeof *m->written);
    m->written[m->nwritten++] = id;
    return 0;
}

/* What a copy of one of d's tables asks of an experiment id. */
struct mg_map {
    const struct mg_db *d;
    const struct mg_table *t;
};

/* An experiment id of d in OUT: its own, or its group's; a shard's row
 * whose group already has its row in OUT is not written. */
static int map_experiment(void *arg, int col, int64_t id, int64_t *to, bool *skip, char *err, size_t errlen)
{
    const struct mg_map *mp = arg;
    const struct mg_exp *e = find_exp(mp->d, id);
    (void)col;
    if (!e) {
        snprintf(err, errlen, "%s: a row of %s names experiment %" PRId64 ", which the database does not hold",
                 mp->d->path, mp->t->name, id);
        return -1;
    }
    *skip |= mp->t->own == MG_EXPERIMENT && !e->insert;
    *to = e->new_id;
    return 0;
}

/* Copies table t of input d into out, each id moved by off[its kind],
 * each experiment id mapped through d->exp; adds the rows it wrote to
 * *rows. */
static int copy_table(sqlite3 *out, const char *out_path, const struct mg_db *d, const struct mg_table *t,
                      const int64_t *off, int64_t *rows)
{
    enum dbq_merge_how *how = xcalloc((size_t)t->ncols + 1, sizeof *how);
    int64_t *offset = xcalloc((size_t)t->ncols + 1, sizeof *offset);
    struct mg_map mp = { d, t };
    struct dbq_merge_copy c = { d->path, out_path, t->db, how, offset, map_experiment, &mp };
    char err[2048];
    int rc = -1;
    for (int i = 0; i < t->ncols; i++) {
        enum mg_kind k = t->col[i].kind;
        how[i] = k == MG_PLAIN        ? DBQ_MERGE_KEEP
                 : k == MG_ROW        ? DBQ_MERGE_NEW
                 : k == MG_EXPERIMENT ? DBQ_MERGE_MAP
                                      : DBQ_MERGE_MOVE;
        offset[i] = off[k];
    }
    if (dbq_merge_copy_table(out, d->db, &c, rows, err, sizeof err) != 0) {
        refuse("%s", err);
        goto done;
    }
    rc = 0;
done:
    free(how);
    free(offset);
    return rc;
}

/* The offset that moves ids of column col of table from d past out's:
 * OUT's largest + 1 - d's smallest, so the smallest lands just past the
 * largest and the order is kept. */
static int offset(sqlite3 *out, const char *out_path, const struct mg_db *d, const char *table, const char *col,
                  int64_t *off)
{
    char err[512];
    int64_t max, min;
    bool none;
    if (dbq_merge_id_bound(out, table, col, true, &max, NULL, err, sizeof err) != 0)
        return refuse("%s: %s", out_path, err);
    if (dbq_merge_id_bound(d->db, table, col, false, &min, &none, err, sizeof err) != 0)
        return refuse("%s: %s", d->path, err);
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
    char err[512];
    /* The checks again, inside the read transaction: a recording may
     * have begun since. */
    if (open_db(m, d) != 0)
        goto done;
    if (dbq_merge_begin_read(d->db, err, sizeof err) != 0) {
        refuse("%s: %s", d->path, err);
        goto done;
    }
    if (check_recording(d) != 0 || offset(out, m->out_path, d, "trace", "trace_id", &off[MG_TRACE]) != 0 ||
        offset(out, m->out_path, d, "thread", "utid", &off[MG_UTID]) != 0 ||
        offset(out, m->out_path, d, "scenario", "scenario_id", &off[MG_SCENARIO]) != 0)
        goto done;
    if (dbq_merge_id_bound(out, "experiment", "experiment_id", true, &next, NULL, err, sizeof err) != 0) {
        refuse("%s: %s", m->out_path, err);
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

/* Group g's experiment row once every input is in: its shard column (NULL
 * when all N are there), its first start, its lowest shard's command; and
 * OUT's other rows of the group folded into it. */
static int finish_group(struct mg *m, sqlite3 *out, struct mg_group *g)
{
    char *shard = NULL, err[512];
    size_t len = 0;
    bool *set = xcalloc((size_t)g->n + 1, sizeof *set), all = true;
    int rc = -1;
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
    if (dbq_merge_set_experiment(out, g->target, shard, g->command, g->created, err, sizeof err) != 0) {
        refuse("%s: %s", m->out_path, err);
        goto done;
    }
    for (int i = 0; i < g->nfold; i++)
        if (dbq_merge_fold(out, g->target, g->fold[i], err, sizeof err) != 0) {
            refuse("%s: %s", m->out_path, err);
            goto done;
        }
    rc = note_written(m, g->target);
done:
    free(shard);
    free(set);
    return rc;
}

/* ---- what it wrote ---- */

/* Marks a cell that has all its runs as not lacking. */
struct mg_lacking {
    bool *lacking;
    int cells, n;
};

static void full_cell(int k, void *arg)
{
    struct mg_lacking *l = arg;
    if (k >= 0 && k < l->cells && l->lacking[k])
        l->lacking[k] = false, l->n--;
}

/* One line for an experiment of out: what it is, its runs, and the cells
 * lacking some (a shard missing, or runs that never finished). */
struct mg_describe {
    sqlite3 *out;
    int64_t id;
};

static void describe_summary(const struct dbq_merge_summary *x, void *arg)
{
    const struct mg_describe *dd = arg;
    int64_t id = dd->id;
    int cells = x->cells, repeats = x->repeats;
    int64_t runs = x->runs;
    const char *shard = x->shard;
    /* file, engine and shard are the database's text: shown, not sent raw */
    char file[512], engine[128], shown[512], err[512];
    text_visible(file, sizeof file, x->file ? x->file : "-");
    text_visible(engine, sizeof engine, x->engine);
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
        return;
    }
    bool *lacking = xcalloc((size_t)cells, sizeof *lacking);
    if (runs < (int64_t)cells * repeats) {
        struct mg_lacking l = { lacking, cells, cells };
        for (int i = 0; i < cells; i++)
            lacking[i] = true;
        /* a failed read lists the cells it has not seen */
        dbq_merge_full_cells(dd->out, id, full_cell, &l, err, sizeof err);
        printf("; %s ", l.n == 1 ? "cell" : "cells");
        print_ranges(stdout, lacking, 0, cells);
        printf(" lack%s runs", l.n == 1 ? "s" : "");
    }
    printf("\n");
    free(lacking);
}

/* Nothing when it cannot be read: the merge is written by then. */
static void describe(sqlite3 *out, int64_t id)
{
    struct mg_describe dd = { out, id };
    char err[512];
    dbq_merge_summary(out, id, describe_summary, &dd, err, sizeof err);
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
    char err[1024];
    if (dbq_merge_begin(out, err, sizeof err) != 0)
        return refuse("%s: %s", m->out_path, err);
    for (int i = 1; i < m->ndb; i++)
        if (copy_db(m, out, i) != 0)
            goto fail;
    for (int i = 0; i < m->ngroups; i++)
        if (m->g[i].touched && finish_group(m, out, &m->g[i]) != 0)
            goto fail;
    if (dbq_merge_commit(out, err, sizeof err) != 0) {
        refuse("%s: %s", m->out_path, err);
        goto fail;
    }
    return 0;
fail:
    dbq_merge_rollback(out);
    return -1;
}

static void free_all(struct mg *m)
{
    for (int i = 0; i < m->sc.ntables; i++)
        free(m->sc.t[i].col);
    free(m->sc.t);
    dbq_merge_schema_free(&m->sc.db);
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
    if (existed) {
        if (truncate(path, 0) != 0)
            refuse("%s: could not empty it again", path);
        db_remove_sides(path);
    } else {
        db_remove(path);
    }
}

int merge_run(const struct merge_opts *o)
{
    struct mg m = { 0 };
    int rc = 1, lock = -1;

    BUG_ON(o->nin < 1);
    m.out_path = o->out;
    m.ndb = 1 + o->nin;
    m.db = xcalloc((size_t)m.ndb, sizeof *m.db);
    for (int i = 0; i < m.ndb; i++)
        m.db[i].path = i ? o->in[i - 1] : o->out, m.db[i].probe = -1;
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
