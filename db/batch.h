/*
 * The writer's connection, its prepared statements and the rows it holds
 * back to send many at a time (db/ only; the writer's contract is in
 * writer.h).
 *
 * Every INSERT and UPDATE the writer makes is one of enum stmt_id, prepared
 * once (batch_prepare). The busy tables, whose statements have a name in
 * batch.c's stmt_what, are written BATCH_ROWS rows a statement
 * (INSERT ... VALUES (...), (...), ...): per row, binding into a held row
 * and one step for many rows cost much less than a step each (make bench,
 * tests/trace/trace_bench.sh).
 *
 * How a row is written, the same for a held row and a statement:
 *
 *     struct brow *s = batch_row(b, S_SLICE);   or   sqlite3_stmt *s = b->st[S_CPU];
 *     B_INT(s, 1, ...); B_TXT(s, 2, ...); B_OPT(s, 3, ok, ...);
 *     run(b, s, "sched_slice");
 *
 * run() steps a statement at once, or holds the row (sending BATCH_ROWS of
 * them in one step when they are that many); batch_flush_all() sends what
 * is held, which every commit does first.
 *
 * Contract:
 *   - text is bound SQLITE_STATIC: run() steps and resets a statement
 *     before the caller's buffer goes away, and held rows only ever get
 *     static strings (names of enum values);
 *   - u64 values are stored as their int64 bit pattern (virtual times may
 *     exceed INT64_MAX only after wrapping, which docs/sql.md notes);
 *   - between batch_row() and its run() no other row is begun;
 *   - the first failure is kept (failed, fail_code) and said (say), unless
 *     quiet; callers check failed and stop;
 *   - a statement that finds the database locked by another connection's
 *     write transaction (another recorder's commit, or its index build)
 *     waits for it, up to wait_ms, saying every so often that it waits;
 *     then it fails with SQLITE_BUSY, said as how long the other recorder
 *     held the database. batch_wait_for_writers() sets that up;
 *   - nothing here prints: each line for the user goes to say (the
 *     writer's caller's, writer.h), which may be NULL.
 */
#ifndef RUNQ_DB_BATCH_H
#define RUNQ_DB_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "bug.h"

enum stmt_id {
    S_PICK, S_PLACE, S_LEAVE, S_TICK, S_SNAP, S_COUNTER, S_SET, S_MARK, S_SLICE, S_STATE, S_WAKEUP,
    S_BOUNCE, S_GAP, S_THREAD, S_CPU, S_STAT, S_STAT_DEL, S_TRACE_UPD, S_STREAM, S_MIGRATE, S_MIGRATE_LOAD, S_NR
};

#define BATCH_ROWS 32
#define BATCH_COLS 25 /* the widest batched statement (eevdf_place) */

/* One held row: its values, bound when the batch is sent. */
struct bval {
    enum { BV_NULL, BV_INT, BV_TEXT } kind;
    int64_t i;
    const char *t;
};
struct brow {
    struct bval v[BATCH_COLS];
};

/* The rows held for one statement. */
struct batch_rows {
    sqlite3_stmt *many; /* BATCH_ROWS rows of VALUES; NULL: not batched */
    int ncols, n;
    struct brow *row;   /* BATCH_ROWS held rows */
};

struct db_batch {
    sqlite3 *db;
    int64_t trace_id;           /* every row's trace_id */
    sqlite3_stmt *st[S_NR];
    struct batch_rows rows[S_NR];
    int open;                   /* the statement of the row batch_row() handed out */
    int row_open;               /* that row is not run() yet */
    int in_txn;                 /* batch_begin() began a transaction not yet ended */
    int failed;
    int fail_code;              /* SQLite's primary result code of the first failure */
    int quiet;                  /* failures expected (db_writer_abandon): not said */
    int wait_ms;                /* how long a statement waits for another writer */
    int no_wait;                /* batch_begin(b, 0): this attempt does not wait */
    int64_t waited_us;          /* how long the current wait has slept */
    int said;                   /* progress lines said in the current wait */
    int gave_up_ms;             /* the first wait that ran out: how long it was */
    void (*say)(void *arg, const char *line); /* where lines for the user go; NULL: nowhere */
    void *say_arg;
};

/* Prepares every statement and the batched forms on b->db. 0, or -1 with
 * a message in err ("path: ..." when the database is not one of ours). */
int batch_prepare(struct db_batch *b, const char *path, char *err, size_t errlen);
/* Finalizes what batch_prepare made (any part of it). */
void batch_finalize(struct db_batch *b);

/* Records a failure of the last SQLite call, doing what (said once). */
void batch_fail(struct db_batch *b, const char *what);
/* Records running out of memory (fail_code SQLITE_NOMEM; said once as
 * "out of memory"). Returns -1. */
int batch_out_of_memory(struct db_batch *b);
/* Runs sql; 0, or -1 after batch_fail. */
int batch_exec(struct db_batch *b, const char *sql);
/* Makes every statement on b->db that finds the database locked by
 * another writer wait up to wait_ms (the contract above). Before any
 * statement, in place of a busy timeout. */
void batch_wait_for_writers(struct db_batch *b, int wait_ms);
/* Begins a write transaction (BEGIN IMMEDIATE: it holds SQLite's write
 * lock from here to its COMMIT) unless one is open. With wait 0 only if no
 * other writer holds the lock. 0: begun (or open); 1: another writer holds
 * the lock (wait 0 only; nothing failed); -1: failed (after batch_fail, or
 * at once when b failed before). */
int batch_begin(struct db_batch *b, int wait);
/* Steps and resets s. */
void batch_step(struct db_batch *b, sqlite3_stmt *s, const char *what);
/* Sends the rows held for statement id (at BATCH_ROWS, or fewer at a commit). */
void batch_flush(struct db_batch *b, int id);
/* Sends every statement's held rows. */
void batch_flush_all(struct db_batch *b);

/* The next row of statement id to fill; run() holds it. */
static inline struct brow *batch_row(struct db_batch *b, int id)
{
    struct batch_rows *br = &b->rows[id];
    /* One row at a time (the contract above), of a batched statement,
     * which is sent as it reaches BATCH_ROWS. */
    BUG_ON(b->row_open || !br->row || br->n >= BATCH_ROWS);
    b->open = id;
    b->row_open = 1;
    return &br->row[br->n];
}

static inline void batch_hold(struct db_batch *b, struct brow *r, const char *what)
{
    (void)r;
    (void)what;
    BUG_ON(!b->row_open); /* run() takes the row batch_row() handed out */
    b->row_open = 0;
    struct batch_rows *br = &b->rows[b->open];
    if (++br->n == BATCH_ROWS)
        batch_flush(b, b->open);
}

/* Binders: the same call takes a statement or a held row. */
static inline void bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
    sqlite3_bind_int64(s, i, v);
}
static inline void bind_txt(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}
static inline void bind_null(sqlite3_stmt *s, int i)
{
    sqlite3_bind_null(s, i);
}
static inline void row_i64(struct brow *r, int i, int64_t v)
{
    r->v[i - 1] = (struct bval){ .kind = BV_INT, .i = v };
}
static inline void row_txt(struct brow *r, int i, const char *v)
{
    r->v[i - 1] = (struct bval){ .kind = v ? BV_TEXT : BV_NULL, .t = v };
}
static inline void row_null(struct brow *r, int i)
{
    r->v[i - 1] = (struct bval){ .kind = BV_NULL };
}
#define B_INT(s, i, v) _Generic((s), struct brow *: row_i64, default: bind_i64)(s, i, (int64_t)(v))
#define B_TXT(s, i, v) _Generic((s), struct brow *: row_txt, default: bind_txt)(s, i, v)
#define B_NULL(s, i) _Generic((s), struct brow *: row_null, default: bind_null)(s, i)
#define B_OPT(s, i, ok, v) ((ok) ? B_INT(s, i, v) : B_NULL(s, i))
#define run(b, s, what) _Generic((s), struct brow *: batch_hold, default: batch_step)(b, s, what)

#endif
