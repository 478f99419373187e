/*
 * The trace database writer (contract in writer.h).
 *
 * Derived tables come from two small state machines:
 *
 *   per CPU   the task on it and since when. A PICK whose next differs
 *             from the task on the CPU closes that task's sched_slice and
 *             opens one for next. A gap closes the open slice at the CPU's
 *             last record (end_state NULL, end_reason 'gap') and forgets
 *             who runs; the next PICK or KEYFRAME says again.
 *
 *   per task  its thread_state and since when: Running (PICK as next),
 *             at a LEAVE what its reason means (db/events.c's
 *             leave_meaning: R+ preempt, R yield and migrate, X exit, S
 *             the others), R again at a WAKE (or a JOIN when the WAKE
 *             was lost). A row is written when a state ends. A gap on the
 *             task's CPU ends its state at the CPU's last record and starts
 *             '?', which lasts until a record says what the task does.
 *             A WAKE opens a pending wakeup, written when the task next
 *             runs (ts_run) or, with ts_run NULL, at a gap or the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/events.h"
#include "db/recorder_lock.h"
#include "db/writer.h"

#define MAX_TID (1 << 22)
#define COMMIT_EVERY 200000 /* records a transaction */

/* A task's thread_state (db/events.h); before its first record it has
 * none, and no row to write. */
#define TS_NONE THREAD_NSTATES

struct wtask {
    int64_t utid; /* 0: not seen yet */
    int32_t tid;
    char name[TRACE_NAME_LEN + 1];
    int nice, cpu, idle, pinned, has_info, dirty;
    uint64_t slice_ns, start_ts, end_ts;
    int64_t parent_utid;
    /* thread_state */
    enum thread_state st;
    uint64_t st_ts;
    int st_cpu;
    int64_t st_waker;
    /* wakeup */
    int wake_pending;
    uint64_t wake_ts;
    int64_t waker;
    int waker_cpu, wake_cpu;
    /* how its running slice ends (from LEAVE) */
    const char *end_state, *end_reason;
};

struct wcpu {
    int seen, known;
    int32_t curr;
    uint64_t slice_start, first_ts, last_ts, records;
};

enum stmt_id {
    S_PICK, S_PLACE, S_LEAVE, S_TICK, S_SNAP, S_COUNTER, S_SET, S_MARK, S_SLICE, S_STATE, S_WAKEUP,
    S_GAP, S_THREAD, S_CPU, S_STAT, S_STAT_DEL, S_TRACE_UPD, S_STREAM, S_NR
};

static const char *const stmt_sql[S_NR] = {
    [S_PICK] = "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,"
               "lag,nr_eligible,nr_runnable,touched,cost_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_PLACE] = "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,vruntime,deadline,lag_before,"
                "lag_after,v,weight,nr_runnable) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_LEAVE] = "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns,deadline) "
                "VALUES(?,?,?,?,?,?,?,?,?,?)",
    [S_TICK] = "INSERT INTO sched_tick(trace_id,ts,cpu,utid,v,nr_runnable) VALUES(?,?,?,?,?,?)",
    [S_SNAP] = "INSERT INTO queue_snapshot(trace_id,ts,cpu,v,utid,is_current,eligible,delayed,nice,"
               "weight,vruntime,deadline,lag,slice_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_COUNTER] = "INSERT INTO counter(trace_id,ts,cpu,name,value) VALUES(?,?,?,?,?)",
    [S_SET] = "INSERT INTO sched_set(trace_id,ts,utid,what,name,old_value,new_value) VALUES(?,?,?,?,?,?,?)",
    [S_MARK] = "INSERT INTO mark(trace_id,ts,cpu,source,name) VALUES(?,?,?,?,?)",
    [S_SLICE] = "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_state,end_reason,priority) "
                "VALUES(?,?,?,?,?,?,?,?)",
    [S_STATE] = "INSERT INTO thread_state(trace_id,ts,dur,utid,state,cpu,waker_utid) VALUES(?,?,?,?,?,?,?)",
    [S_WAKEUP] = "INSERT INTO wakeup(trace_id,utid,ts_wake,ts_run,latency,waker,cpu,waker_cpu) "
                 "VALUES(?,?,?,?,?,?,?,?)",
    [S_GAP] = "INSERT INTO data_gap(trace_id,cpu,ts_start,ts_end,packets_lost,records_dropped) "
              "VALUES(?,?,?,?,?,?)",
    [S_THREAD] = "INSERT OR REPLACE INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,pinned,"
                 "parent_utid,start_ts,end_ts) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_CPU] = "INSERT OR REPLACE INTO cpu(trace_id,cpu,packets,records,first_ts,last_ts) VALUES(?,?,?,?,?,?)",
    [S_STAT] = "INSERT INTO stats(trace_id,name,idx,severity,value,description) VALUES(?,?,?,?,?,?)",
    [S_STAT_DEL] = "DELETE FROM stats WHERE trace_id=?",
    [S_TRACE_UPD] = "UPDATE trace SET records=?,start_ts=?,end_ts=?,status=?,end_reason=? WHERE trace_id=?",
    [S_STREAM] = "UPDATE trace SET format_version=?,ncpus=?,tick_hz=?,tsc_hz=?,keyframe_ns=?,policy=?,"
                 "features=?,feature_names=?,cmdline=? WHERE trace_id=?",
};

#define BATCH_ROWS 32
#define BATCH_COLS 14 /* the widest batched statement */

/* The statements written BATCH_ROWS rows at a time (NULL: one at a time),
 * by the table's name for errors. */
static const char *const stmt_what[S_NR] = {
    [S_PICK] = "eevdf_pick", [S_PLACE] = "eevdf_place", [S_LEAVE] = "eevdf_leave", [S_TICK] = "sched_tick",
    [S_SNAP] = "queue_snapshot", [S_COUNTER] = "counter", [S_SLICE] = "sched_slice",
    [S_STATE] = "thread_state", [S_WAKEUP] = "wakeup",
};

struct brow;
struct batch {
    sqlite3_stmt *many; /* BATCH_ROWS rows of VALUES; NULL: not batched */
    int ncols, n;
    struct brow *row;   /* BATCH_ROWS held rows */
};

#define MAX_EXTRA_STATS 16
struct extra_stat {
    char name[48], severity[16], description[96];
    uint64_t value;
};

struct db_writer {
    sqlite3 *db;
    sqlite3_stmt *st[S_NR];
    int64_t trace_id, next_utid;
    int in_txn, saw_end, failed;
    int quiet;                 /* db_writer_abandon: its own failures are expected */
    char *reserve;             /* the room kept for db_writer_abandon (NULL: none) */
    int lock_fd;               /* holds this trace's recorder lock (recorder_lock.h); -1: none */
    int fail_code;             /* SQLite's primary result code of the first failure */
    uint64_t records, batch, start_ts, end_ts;
    uint64_t records_committed; /* records at the last successful commit */
    int have_ts;
    struct wtask **tasks; /* by tid; allocated lazily */
    size_t ntasks;
    int32_t *dirty;
    size_t ndirty, dirty_cap;
    struct wcpu cpu[TRACE_DEC_NCPU];
    const struct trace_decoder *dec;
    struct extra_stat extra[MAX_EXTRA_STATS];
    struct batch batch_of[S_NR];
    int open_batch;
    int nextra;
    uint64_t bad_tid, wakeups_unmatched;
};

/* ---- sqlite helpers ---- */

static void db_fail(struct db_writer *w, const char *what)
{
    if (!w->failed && !w->quiet) {
        fprintf(stderr, "runq record: database: %s: %s\n", what, sqlite3_errmsg(w->db));
        w->fail_code = sqlite3_errcode(w->db) & 0xff;
    }
    w->failed = 1;
}

static int exec(struct db_writer *w, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (!w->failed && !w->quiet) {
            fprintf(stderr, "runq record: database: %s\n", msg ? msg : sqlite3_errmsg(w->db));
            w->fail_code = sqlite3_errcode(w->db) & 0xff;
        }
        sqlite3_free(msg);
        w->failed = 1;
        return -1;
    }
    return 0;
}

static void begin(struct db_writer *w)
{
    if (!w->in_txn && exec(w, "BEGIN") == 0)
        w->in_txn = 1;
}

/* Binders. Text is bound SQLITE_STATIC: run() steps and resets the
 * statement before the caller's buffer goes away, and the batched tables
 * only ever get static strings (names of enum values). u64 values are
 * stored as their int64 bit pattern (virtual times may exceed INT64_MAX
 * only after wrapping, which docs/sql.md notes).
 *
 * The busy tables are written BATCH_ROWS rows a statement
 * (INSERT ... VALUES (...), (...), ...): per row, binding into a held row
 * and one step for many rows cost much less than a step each (make bench,
 * tests/trace_bench.sh). The same binders take a statement or a held row
 * (struct brow); run() sends the statement or holds the row. */
struct bval {
    enum { BV_NULL, BV_INT, BV_TEXT } kind;
    int64_t i;
    const char *t;
};
struct brow {
    struct bval v[BATCH_COLS];
};

static void bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
    sqlite3_bind_int64(s, i, v);
}
static void bind_txt(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}
static void bind_null(sqlite3_stmt *s, int i)
{
    sqlite3_bind_null(s, i);
}
static void row_i64(struct brow *r, int i, int64_t v)
{
    r->v[i - 1] = (struct bval){ .kind = BV_INT, .i = v };
}
static void row_txt(struct brow *r, int i, const char *v)
{
    r->v[i - 1] = (struct bval){ .kind = v ? BV_TEXT : BV_NULL, .t = v };
}
static void row_null(struct brow *r, int i)
{
    r->v[i - 1] = (struct bval){ .kind = BV_NULL };
}
#define B_INT(s, i, v) _Generic((s), struct brow *: row_i64, default: bind_i64)(s, i, (int64_t)(v))
#define B_TXT(s, i, v) _Generic((s), struct brow *: row_txt, default: bind_txt)(s, i, v)
#define B_NULL(s, i) _Generic((s), struct brow *: row_null, default: bind_null)(s, i)
#define B_OPT(s, i, ok, v) ((ok) ? B_INT(s, i, v) : B_NULL(s, i))

static void step_stmt(struct db_writer *w, sqlite3_stmt *s, const char *what)
{
    if (sqlite3_step(s) != SQLITE_DONE)
        db_fail(w, what);
    sqlite3_reset(s);
}

static void bind_row(sqlite3_stmt *s, int first, const struct brow *r, int ncols)
{
    for (int c = 0; c < ncols; c++) {
        const struct bval *v = &r->v[c];
        if (v->kind == BV_INT)
            sqlite3_bind_int64(s, first + c, v->i);
        else if (v->kind == BV_TEXT)
            sqlite3_bind_text(s, first + c, v->t, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(s, first + c);
    }
}

/* Sends the rows held for statement id: BATCH_ROWS in one statement, fewer
 * (at a commit) one by one. */
static void batch_flush(struct db_writer *w, int id)
{
    struct batch *b = &w->batch_of[id];
    if (b->n == BATCH_ROWS) {
        for (int r = 0; r < b->n; r++)
            bind_row(b->many, 1 + r * b->ncols, &b->row[r], b->ncols);
        step_stmt(w, b->many, stmt_what[id]);
    } else {
        for (int r = 0; r < b->n; r++) {
            bind_row(w->st[id], 1, &b->row[r], b->ncols);
            step_stmt(w, w->st[id], stmt_what[id]);
        }
    }
    b->n = 0;
}

static void batch_flush_all(struct db_writer *w)
{
    for (int id = 0; id < S_NR; id++)
        if (w->batch_of[id].many)
            batch_flush(w, id);
}

/* The next row of statement id to fill; run() holds it. */
static struct brow *row_begin(struct db_writer *w, int id)
{
    struct batch *b = &w->batch_of[id];
    w->open_batch = id;
    return &b->row[b->n];
}

static void run_row(struct db_writer *w, struct brow *r, const char *what)
{
    (void)r;
    (void)what;
    struct batch *b = &w->batch_of[w->open_batch];
    if (++b->n == BATCH_ROWS)
        batch_flush(w, w->open_batch);
}
#define run(w, s, what) _Generic((s), struct brow *: run_row, default: step_stmt)(w, s, what)

/* ---- tasks ---- */

static struct wtask *task_get(struct db_writer *w, int32_t tid, uint64_t ts)
{
    if (tid < 0 || tid >= MAX_TID) {
        if (tid != TRACE_TASK_NONE)
            w->bad_tid++;
        return NULL;
    }
    if ((size_t)tid >= w->ntasks) {
        size_t n = w->ntasks ? w->ntasks : 256;
        while (n <= (size_t)tid)
            n *= 2;
        struct wtask **p = realloc(w->tasks, n * sizeof *p);
        if (!p) {
            fprintf(stderr, "runq record: out of memory\n");
            exit(1);
        }
        memset(p + w->ntasks, 0, (n - w->ntasks) * sizeof *p);
        w->tasks = p;
        w->ntasks = n;
    }
    struct wtask *t = w->tasks[tid];
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t) {
            fprintf(stderr, "runq record: out of memory\n");
            exit(1);
        }
        w->tasks[tid] = t;
    }
    if (!t->utid) {
        t->utid = w->next_utid++;
        t->tid = tid;
        t->start_ts = ts;
        t->cpu = -1;
        t->st = TS_NONE;
    }
    if (!t->dirty) {
        if (w->ndirty == w->dirty_cap) {
            w->dirty_cap = w->dirty_cap ? w->dirty_cap * 2 : 64;
            w->dirty = realloc(w->dirty, w->dirty_cap * sizeof *w->dirty);
            if (!w->dirty) {
                fprintf(stderr, "runq record: out of memory\n");
                exit(1);
            }
        }
        w->dirty[w->ndirty++] = tid;
        t->dirty = 1;
    }
    return t;
}

static int64_t utid_of(struct db_writer *w, int32_t tid, uint64_t ts)
{
    struct wtask *t = task_get(w, tid, ts);
    return t ? t->utid : 0;
}

static uint64_t dur(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

/* Ends t's current state at ts (writing its row) and starts `st`. */
static void state_set(struct db_writer *w, struct wtask *t, enum thread_state st, uint64_t ts, int cpu,
                      int64_t waker)
{
    if (st == THREAD_DELAYED)
        st = THREAD_SLEEPING; /* the table has no delayed state: it is S (docs/sql.md) */
    if (t->st == st && st != THREAD_RUNNING && st != THREAD_UNKNOWN)
        return;
    if (t->st != TS_NONE && t->st != THREAD_DEAD && !t->idle) {
        struct brow *s = row_begin(w, S_STATE);
        B_INT(s, 1, w->trace_id);
        B_INT(s, 2, t->st_ts);
        B_INT(s, 3, dur(t->st_ts, ts));
        B_INT(s, 4, t->utid);
        B_TXT(s, 5, thread_state_sql_name(t->st));
        B_OPT(s, 6, t->st_cpu >= 0, t->st_cpu);
        B_OPT(s, 7, t->st_waker > 0, t->st_waker);
        run(w, s, "thread_state");
    }
    t->st = st;
    t->st_ts = ts;
    t->st_cpu = cpu;
    t->st_waker = waker;
}

static void wakeup_write(struct db_writer *w, struct wtask *t, int ran, uint64_t ts_run)
{
    struct brow *s = row_begin(w, S_WAKEUP);
    B_INT(s, 1, w->trace_id);
    B_INT(s, 2, t->utid);
    B_INT(s, 3, t->wake_ts);
    B_OPT(s, 4, ran, ts_run);
    B_OPT(s, 5, ran, dur(t->wake_ts, ts_run));
    B_OPT(s, 6, t->waker > 0, t->waker);
    B_INT(s, 7, t->wake_cpu);
    B_INT(s, 8, t->waker_cpu);
    run(w, s, "wakeup");
    t->wake_pending = 0;
    if (!ran)
        w->wakeups_unmatched++;
}

/* ---- CPUs ---- */

static void slice_close(struct db_writer *w, unsigned ci, uint64_t ts, const char *end_state,
                        const char *end_reason)
{
    struct wcpu *c = &w->cpu[ci];
    if (!c->known)
        return;
    struct wtask *t = task_get(w, c->curr, ts);
    if (t) {
        struct brow *s = row_begin(w, S_SLICE);
        B_INT(s, 1, w->trace_id);
        B_INT(s, 2, c->slice_start);
        B_INT(s, 3, dur(c->slice_start, ts));
        B_INT(s, 4, ci);
        B_INT(s, 5, t->utid);
        B_TXT(s, 6, end_state);
        B_TXT(s, 7, end_reason);
        B_OPT(s, 8, t->has_info, 120 + t->nice);
        run(w, s, "sched_slice");
    }
    c->known = 0;
}

static void slice_open(struct db_writer *w, unsigned ci, int32_t tid, uint64_t ts)
{
    struct wcpu *c = &w->cpu[ci];
    c->known = 1;
    c->curr = tid;
    c->slice_start = ts;
    struct wtask *t = task_get(w, tid, ts);
    if (t) {
        t->end_state = NULL;
        t->end_reason = NULL;
    }
}

/* ---- records ---- */

static void on_pick(struct db_writer *w, unsigned ci, const struct trace_rec_pick *r)
{
    bool ee = !(r->h.flags & TRACE_RF_NO_EEVDF);
    uint64_t ts = r->h.ts_ns;
    struct wtask *prev = task_get(w, r->prev, ts), *next = task_get(w, r->next, ts);
    struct brow *s = row_begin(w, S_PICK);
    B_INT(s, 1, w->trace_id);
    B_INT(s, 2, ts);
    B_INT(s, 3, r->cpu);
    B_OPT(s, 4, prev, prev ? prev->utid : 0);
    B_OPT(s, 5, next, next ? next->utid : 0);
    B_TXT(s, 6, trace_why_name(r->why));
    B_OPT(s, 7, ee, r->V);
    B_OPT(s, 8, ee, r->next_vruntime);
    B_OPT(s, 9, ee, r->next_deadline);
    B_OPT(s, 10, ee, r->next_lag);
    B_OPT(s, 11, ee, r->nr_eligible);
    B_INT(s, 12, r->nr_runnable);
    B_INT(s, 13, r->touched);
    B_INT(s, 14, r->cost_ns);
    run(w, s, "eevdf_pick");

    unsigned pc = r->cpu < TRACE_MAX_CPUS ? r->cpu : ci;
    struct wcpu *c = &w->cpu[pc];
    if (c->known && c->curr == r->next)
        return; /* current kept */
    if (c->known) {
        struct wtask *old = task_get(w, c->curr, ts);
        slice_close(w, pc, ts, old && old->end_state ? old->end_state : "R",
                    old && old->end_reason ? old->end_reason : "switch");
        /* Switched away without a LEAVE (the idle task): runnable. */
        if (old && old->st == THREAD_RUNNING)
            state_set(w, old, THREAD_RUNNABLE, ts, (int)pc, 0);
    }
    if (next) {
        slice_open(w, pc, r->next, ts);
        state_set(w, next, THREAD_RUNNING, ts, (int)pc, 0);
        if (next->wake_pending)
            wakeup_write(w, next, 1, ts);
    }
}

static void on_leave(struct db_writer *w, const struct trace_rec_leave *r)
{
    bool ee = !(r->h.flags & TRACE_RF_NO_EEVDF);
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = task_get(w, r->task, ts);
    if (!t)
        return;
    struct brow *s = row_begin(w, S_LEAVE);
    B_INT(s, 1, w->trace_id);
    B_INT(s, 2, ts);
    B_INT(s, 3, r->cpu);
    B_INT(s, 4, t->utid);
    B_TXT(s, 5, trace_leave_reason_name(r->reason));
    B_OPT(s, 6, ee, r->vruntime);
    B_OPT(s, 7, ee, r->lag);
    B_OPT(s, 8, ee, r->V);
    B_INT(s, 9, r->run_ns);
    B_OPT(s, 10, ee && r->h.size >= sizeof *r, r->deadline); /* version 1 had none */
    run(w, s, "eevdf_leave");

    enum thread_state st = leave_meaning_of(r->reason)->state;
    t->end_state = thread_state_sql_name(st);
    t->end_reason = trace_leave_reason_name(r->reason);
    state_set(w, t, st, ts, r->cpu, 0);
    if (st == THREAD_DEAD) {
        t->end_ts = ts;
        t->has_info = 1;
    }
}

static void on_join(struct db_writer *w, const struct trace_rec_join *r)
{
    bool ee = !(r->h.flags & TRACE_RF_NO_EEVDF);
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = task_get(w, r->task, ts);
    if (!t)
        return;
    struct brow *s = row_begin(w, S_PLACE);
    B_INT(s, 1, w->trace_id);
    B_INT(s, 2, ts);
    B_INT(s, 3, r->cpu);
    B_INT(s, 4, t->utid);
    B_TXT(s, 5, trace_join_reason_name(r->reason));
    B_OPT(s, 6, ee, r->vruntime);
    B_OPT(s, 7, ee, r->deadline);
    B_OPT(s, 8, ee, r->lag_before);
    B_OPT(s, 9, ee, r->lag_after);
    B_OPT(s, 10, ee, r->V);
    B_INT(s, 11, r->weight);
    B_INT(s, 12, r->nr_runnable);
    run(w, s, "eevdf_place");
    if (t->st != THREAD_RUNNING && t->st != THREAD_RUNNABLE && t->st != THREAD_PREEMPTED)
        state_set(w, t, THREAD_RUNNABLE, ts, r->cpu, 0);
}

static void on_wake(struct db_writer *w, const struct trace_rec_wake *r)
{
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = task_get(w, r->wakee, ts);
    if (!t)
        return;
    int64_t waker = r->waker == TRACE_TASK_NONE ? 0 : utid_of(w, r->waker, ts);
    if (t->wake_pending) /* woken twice without running: the first never ran */
        wakeup_write(w, t, 0, 0);
    t->wake_pending = 1;
    t->wake_ts = ts;
    t->waker = waker;
    t->waker_cpu = r->waker_cpu;
    t->wake_cpu = r->target_cpu;
    if (t->st == THREAD_SLEEPING || t->st == THREAD_UNKNOWN || t->st == TS_NONE)
        state_set(w, t, THREAD_RUNNABLE, ts, r->target_cpu, waker);
}

static void on_task(struct db_writer *w, const struct trace_rec_task *r)
{
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = task_get(w, r->task, ts);
    if (!t)
        return;
    trace_copy_str(t->name, r->name, TRACE_NAME_LEN);
    t->nice = r->nice;
    t->slice_ns = r->slice_ns;
    t->cpu = r->cpu;
    t->idle = !!(r->tflags & TRACE_TF_IDLE);
    t->pinned = !!(r->tflags & TRACE_TF_PINNED);
    t->has_info = 1;
    if (r->h.type == TRACE_REC_TASK_NEW) {
        t->start_ts = ts;
        t->parent_utid = r->parent == TRACE_TASK_NONE ? 0 : utid_of(w, r->parent, ts);
    } else if (r->h.type == TRACE_REC_TASK_EXIT) {
        t->end_ts = ts;
        state_set(w, t, THREAD_DEAD, ts, -1, 0);
    }
}

/* One queue_snapshot row of keyframe k: entry e, or (e NULL) the idle
 * task the CPU runs, which has no scheduling numbers. */
static void snap_row(struct db_writer *w, const struct trace_rec_keyframe *k, const struct wtask *t,
                     const struct trace_kf_entry *e)
{
    bool ee = !(k->h.flags & TRACE_RF_NO_EEVDF), en = ee && e;
    struct brow *s = row_begin(w, S_SNAP);
    B_INT(s, 1, w->trace_id);
    B_INT(s, 2, k->h.ts_ns);
    B_INT(s, 3, k->cpu);
    B_OPT(s, 4, ee, k->V);
    B_INT(s, 5, t->utid);
    B_INT(s, 6, e ? !!(e->kflags & TRACE_KF_CURRENT) : 1);
    B_OPT(s, 7, en, !!(e->kflags & TRACE_KF_ELIGIBLE));
    B_OPT(s, 8, en, !!(e->kflags & TRACE_KF_DELAYED));
    B_OPT(s, 9, e, e->nice);
    B_OPT(s, 10, e, e->weight);
    B_OPT(s, 11, en, e->vruntime);
    B_OPT(s, 12, en, e->deadline);
    B_OPT(s, 13, en, e->lag);
    B_OPT(s, 14, en, e->slice_ns);
    run(w, s, "queue_snapshot");
}

static void on_keyframe(struct db_writer *w, const struct trace_rec_keyframe *k)
{
    uint64_t ts = k->h.ts_ns;
    unsigned ci = k->cpu < TRACE_MAX_CPUS ? k->cpu : 0;
    const struct trace_kf_entry *e = (const struct trace_kf_entry *)(k + 1);
    bool have_current = false;
    for (unsigned i = 0; i < k->nr; i++)
        have_current |= (e[i].kflags & TRACE_KF_CURRENT) != 0;
    /* The kernel lists the tasks its policy holds; the idle task is not
     * one, so a keyframe of an idle CPU names it only as curr. It gets its
     * row all the same: every keyframe says who runs, even on a CPU that
     * only idles. */
    struct wtask *idle = have_current ? NULL : task_get(w, k->curr, ts);
    if (idle)
        snap_row(w, k, idle, NULL);
    for (unsigned i = 0; i < k->nr; i++) {
        struct wtask *t = task_get(w, e[i].task, ts);
        if (!t)
            continue;
        snap_row(w, k, t, &e[i]);
        /* Rebuild what a gap or a late start left unknown. */
        if (t->st == THREAD_UNKNOWN || t->st == TS_NONE)
            state_set(w, t, (e[i].kflags & TRACE_KF_DELAYED) ? THREAD_SLEEPING : THREAD_RUNNABLE, ts, k->cpu, 0);
    }
    struct wcpu *c = &w->cpu[ci];
    if (!c->known) {
        struct wtask *t = task_get(w, k->curr, ts);
        if (t) {
            slice_open(w, ci, k->curr, ts);
            if (t->st != THREAD_RUNNING)
                state_set(w, t, THREAD_RUNNING, ts, (int)ci, 0);
        }
    }
}

static void on_stream(struct db_writer *w, const struct trace_rec_stream *r)
{
    const char *tail = (const char *)(r + 1);
    char policy[TRACE_POLICY_LEN + 1];
    trace_copy_str(policy, r->policy, TRACE_POLICY_LEN);
    sqlite3_stmt *s = w->st[S_STREAM];
    B_INT(s, 1, r->version);
    B_INT(s, 2, r->ncpus);
    B_INT(s, 3, r->tick_hz);
    B_INT(s, 4, r->tsc_hz);
    B_INT(s, 5, r->keyframe_ns);
    sqlite3_bind_text(s, 6, policy, -1, SQLITE_TRANSIENT);
    B_INT(s, 7, r->features);
    sqlite3_bind_text(s, 8, tail, r->feature_names_len, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 9, tail + r->feature_names_len, r->cmdline_len, SQLITE_TRANSIENT);
    B_INT(s, 10, w->trace_id);
    run(w, s, "trace header");
}

void db_writer_record(struct db_writer *w, unsigned cpu, const struct trace_rec_hdr *r)
{
    uint64_t ts = r->ts_ns;
    unsigned ci = trace_dec_cpu_index((uint16_t)cpu);
    if (w->failed) {
        if (r->type == TRACE_REC_END)
            w->saw_end = 1; /* the recorder reads on to the end, storing nothing */
        return;
    }
    begin(w);
    if (r->type != TRACE_REC_STREAM) {
        if (!w->have_ts || ts < w->start_ts)
            w->start_ts = ts;
        if (!w->have_ts || ts > w->end_ts)
            w->end_ts = ts;
        w->have_ts = 1;
    }
    struct wcpu *c = &w->cpu[ci];
    if (!c->seen) {
        c->seen = 1;
        c->first_ts = ts;
    }
    c->last_ts = ts > c->last_ts ? ts : c->last_ts;
    c->records++;

    switch (r->type) {
    case TRACE_REC_STREAM: on_stream(w, (const void *)r); break;
    case TRACE_REC_END: w->saw_end = 1; break;
    case TRACE_REC_TASK_NEW:
    case TRACE_REC_TASK_EXIT:
    case TRACE_REC_TASK_RENAME: on_task(w, (const void *)r); break;
    case TRACE_REC_WAKE: on_wake(w, (const void *)r); break;
    case TRACE_REC_JOIN: on_join(w, (const void *)r); break;
    case TRACE_REC_PICK: on_pick(w, ci, (const void *)r); break;
    case TRACE_REC_LEAVE: on_leave(w, (const void *)r); break;
    case TRACE_REC_TICK: {
        const struct trace_rec_tick *k = (const void *)r;
        struct brow *s = row_begin(w, S_TICK);
        int64_t u = utid_of(w, k->curr, ts);
        B_INT(s, 1, w->trace_id);
        B_INT(s, 2, ts);
        B_INT(s, 3, k->cpu);
        B_OPT(s, 4, u, u);
        B_OPT(s, 5, !(r->flags & TRACE_RF_NO_EEVDF), k->V);
        B_INT(s, 6, k->nr_runnable);
        run(w, s, "sched_tick");
        break;
    }
    case TRACE_REC_SET: {
        const struct trace_rec_set *k = (const void *)r;
        char name[TRACE_SET_NAME_LEN + 1];
        trace_copy_str(name, k->name, TRACE_SET_NAME_LEN);
        struct wtask *t = task_get(w, k->task, ts);
        if (t && k->what == TRACE_SET_NICE)
            t->nice = (int)k->new_value;
        if (t && k->what == TRACE_SET_SLICE)
            t->slice_ns = (uint64_t)k->new_value;
        sqlite3_stmt *s = w->st[S_SET];
        B_INT(s, 1, w->trace_id);
        B_INT(s, 2, ts);
        B_OPT(s, 3, t, t ? t->utid : 0);
        sqlite3_bind_text(s, 4, trace_set_what_name(k->what), -1, SQLITE_STATIC);
        B_TXT(s, 5, name[0] ? name : NULL);
        B_INT(s, 6, k->old_value);
        B_INT(s, 7, k->new_value);
        run(w, s, "sched_set");
        break;
    }
    case TRACE_REC_MARK: {
        const struct trace_rec_mark *k = (const void *)r;
        size_t n = r->size - sizeof *k;
        sqlite3_stmt *s = w->st[S_MARK];
        B_INT(s, 1, w->trace_id);
        B_INT(s, 2, ts);
        B_OPT(s, 3, k->cpu != TRACE_CPU_GLOBAL, k->cpu);
        sqlite3_bind_text(s, 4, trace_mark_source_name(k->source), -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 5, (const char *)(k + 1), (int)strnlen((const char *)(k + 1), n),
                          SQLITE_TRANSIENT);
        run(w, s, "mark");
        break;
    }
    case TRACE_REC_COUNTERS: {
        const struct trace_rec_counters *k = (const void *)r;
        size_t n = (r->size - (sizeof *k - sizeof k->value)) / 8;
        const uint8_t *v = (const uint8_t *)k->value;
        for (size_t i = 0; i < n && i < TRACE_CTR_NR; i++) {
            uint64_t x;
            memcpy(&x, v + 8 * i, 8);
            struct brow *s = row_begin(w, S_COUNTER);
            B_INT(s, 1, w->trace_id);
            B_INT(s, 2, ts);
            B_INT(s, 3, k->cpu);
            B_TXT(s, 4, trace_counter_name((unsigned)i));
            B_INT(s, 5, x);
            run(w, s, "counter");
        }
        break;
    }
    case TRACE_REC_KEYFRAME: on_keyframe(w, (const void *)r); break;
    default: break;
    }
    w->records++;
    if (++w->batch >= COMMIT_EVERY)
        db_writer_commit(w);
}

void db_writer_gap(struct db_writer *w, unsigned cpu, uint64_t ts_next, uint32_t packets_lost,
                   uint32_t records_dropped)
{
    unsigned ci = trace_dec_cpu_index((uint16_t)cpu);
    struct wcpu *c = &w->cpu[ci];
    uint64_t from = c->seen ? c->last_ts : ts_next;
    if (w->failed)
        return;
    begin(w);
    sqlite3_stmt *s = w->st[S_GAP];
    B_INT(s, 1, w->trace_id);
    B_INT(s, 2, ci == TRACE_DEC_GLOBAL ? -1 : (int)ci);
    B_INT(s, 3, from);
    B_INT(s, 4, ts_next);
    B_INT(s, 5, packets_lost);
    B_INT(s, 6, records_dropped);
    run(w, s, "data_gap");
    if (ci == TRACE_DEC_GLOBAL)
        return;
    slice_close(w, ci, from, NULL, "gap");
    /* Every task of this CPU: what it did during the gap is unknown. */
    for (size_t i = 0; i < w->ntasks; i++) {
        struct wtask *t = w->tasks[i];
        if (!t || !t->utid || t->st == THREAD_DEAD)
            continue;
        if (t->st_cpu != (int)ci && t->cpu != (int)ci)
            continue;
        if (t->wake_pending)
            wakeup_write(w, t, 0, 0);
        if (t->st == TS_NONE)
            continue;
        if (t->st_ts > from) {
            /* It changed state during the gap (woken from another CPU):
             * true then, but whether it ran since is unknown. */
            t->st = THREAD_UNKNOWN;
            t->st_cpu = (int)ci;
            t->st_waker = 0;
        } else {
            state_set(w, t, THREAD_UNKNOWN, from, (int)ci, 0);
        }
    }
}

/* ---- commit, stats ---- */

static void stat_row(struct db_writer *w, const char *name, int idx, const char *sev, uint64_t v,
                     const char *desc)
{
    sqlite3_stmt *s = w->st[S_STAT];
    B_INT(s, 1, w->trace_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    B_OPT(s, 3, idx >= 0, idx);
    sqlite3_bind_text(s, 4, sev, -1, SQLITE_STATIC);
    B_INT(s, 5, v);
    B_TXT(s, 6, desc);
    run(w, s, "stats");
}

static void write_stats(struct db_writer *w)
{
    sqlite3_stmt *s = w->st[S_STAT_DEL];
    B_INT(s, 1, w->trace_id);
    run(w, s, "stats");
    if (w->dec) {
        const struct trace_dec_counts *c = &w->dec->c;
        static const struct {
            const char *name, *sev, *desc;
            size_t off;
            int per_cpu;
        } rows[] = {
#define ROW(f, sev, pc, desc) { #f, sev, desc, offsetof(struct trace_dec_counts, f), pc }
            ROW(bytes, "info", 0, "bytes read"),
            ROW(packets, "info", 1, "good packets"),
            ROW(records, "info", 1, "records decoded"),
            ROW(bytes_skipped, "data_loss", 0, "garbage bytes skipped while resynchronising"),
            ROW(resyncs, "data_loss", 0, "times the reader lost and found the packet framing"),
            ROW(crc_errors, "data_loss", 1, "packets dropped for a bad payload CRC"),
            ROW(packets_lost, "data_loss", 1, "packets missing by sequence number"),
            ROW(records_dropped, "data_loss", 1, "records the kernel's ring dropped"),
            ROW(gaps, "data_loss", 1, "places where something was lost"),
            ROW(bytes_truncated, "data_loss", 0, "bytes of a packet cut off at the end"),
            ROW(seq_resets, "error", 1, "sequence numbers going backwards"),
            ROW(bad_records, "error", 1, "malformed records in good packets"),
            ROW(unknown_records, "info", 1, "records of unknown types, skipped"),
#undef ROW
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            uint64_t v;
            memcpy(&v, (const char *)c + rows[i].off, sizeof v);
            stat_row(w, rows[i].name, -1, rows[i].sev, v, rows[i].desc);
            if (!rows[i].per_cpu)
                continue;
            for (unsigned k = 0; k < TRACE_MAX_CPUS; k++) {
                uint64_t pv;
                memcpy(&pv, (const char *)&w->dec->cpu[k] + rows[i].off, sizeof pv);
                if (pv && (w->dec->seq[k].seen || pv))
                    stat_row(w, rows[i].name, (int)k, rows[i].sev, pv, rows[i].desc);
            }
        }
    }
    stat_row(w, "bad_task_ids", -1, "error", w->bad_tid, "records naming an impossible task id");
    stat_row(w, "wakeups_unmatched", -1, "info", w->wakeups_unmatched,
             "wakeups whose run was not seen (gap, trace end, woken twice)");
    for (int i = 0; i < w->nextra; i++)
        stat_row(w, w->extra[i].name, -1, w->extra[i].severity, w->extra[i].value,
                 w->extra[i].description);
}

static void write_threads(struct db_writer *w)
{
    sqlite3_stmt *s = w->st[S_THREAD];
    for (size_t i = 0; i < w->ndirty; i++) {
        struct wtask *t = w->tasks[w->dirty[i]];
        B_INT(s, 1, t->utid);
        B_INT(s, 2, w->trace_id);
        B_INT(s, 3, t->tid);
        B_TXT(s, 4, t->has_info ? t->name : NULL);
        B_OPT(s, 5, t->has_info, t->nice);
        B_OPT(s, 6, t->has_info, t->slice_ns);
        B_OPT(s, 7, t->cpu >= 0, t->cpu);
        B_INT(s, 8, t->idle);
        B_OPT(s, 9, t->has_info, t->pinned);
        B_OPT(s, 10, t->parent_utid > 0, t->parent_utid);
        B_INT(s, 11, t->start_ts);
        B_OPT(s, 12, t->end_ts, t->end_ts);
        run(w, s, "thread");
        t->dirty = 0;
    }
    w->ndirty = 0;
}

static void write_trace_row(struct db_writer *w, const char *status, const char *end_reason)
{
    sqlite3_stmt *s = w->st[S_CPU];
    for (unsigned k = 0; k < TRACE_MAX_CPUS; k++) {
        if (!w->cpu[k].seen)
            continue;
        B_INT(s, 1, w->trace_id);
        B_INT(s, 2, k);
        B_INT(s, 3, w->dec ? w->dec->cpu[k].packets : 0);
        B_INT(s, 4, w->cpu[k].records);
        B_INT(s, 5, w->cpu[k].first_ts);
        B_INT(s, 6, w->cpu[k].last_ts);
        run(w, s, "cpu");
    }
    s = w->st[S_TRACE_UPD];
    B_INT(s, 1, w->records);
    B_OPT(s, 2, w->have_ts, w->start_ts);
    B_OPT(s, 3, w->have_ts, w->end_ts);
    sqlite3_bind_text(s, 4, status, -1, SQLITE_STATIC);
    B_TXT(s, 5, end_reason);
    B_INT(s, 6, w->trace_id);
    run(w, s, "trace");
}

static int commit_with(struct db_writer *w, const char *status, const char *end_reason)
{
    if (w->failed)
        return -1;
    begin(w);
    batch_flush_all(w);
    write_threads(w);
    write_stats(w);
    write_trace_row(w, status, end_reason);
    if (w->failed)
        return -1;
    if (exec(w, "COMMIT") != 0)
        return -1;
    w->in_txn = 0;
    w->batch = 0;
    w->records_committed = w->records;
    return 0;
}

int db_writer_commit(struct db_writer *w)
{
    return commit_with(w, "recording", NULL);
}

int db_writer_finish(struct db_writer *w, const char *status, const char *end_reason)
{
    if (w->failed)
        return -1;
    begin(w);
    uint64_t end = w->end_ts;
    for (unsigned k = 0; k < TRACE_MAX_CPUS; k++)
        slice_close(w, k, end > w->cpu[k].last_ts ? end : w->cpu[k].last_ts, NULL, "trace_end");
    for (size_t i = 0; i < w->ntasks; i++) {
        struct wtask *t = w->tasks[i];
        if (!t || !t->utid)
            continue;
        if (t->wake_pending)
            wakeup_write(w, t, 0, 0);
        if (t->st != TS_NONE && t->st != THREAD_DEAD)
            state_set(w, t, TS_NONE, end, t->st_cpu, 0);
    }
    if (commit_with(w, status, end_reason) != 0)
        return -1;
    /* Building an index once, sorted, is much cheaper than keeping it up
     * to date during ingest (29 s against 10 s for tests/trace_bench.sh's
     * stream); later traces of the same database do pay for keeping them.
     * All in one transaction, so a reader sees all the indexes or none
     * (no faster than one each: measured, within this machine's noise). */
    if (exec(w, "BEGIN") != 0)
        return 1;
    if (exec(w, db_indexes_sql) != 0) {
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
        return 1;
    }
    return exec(w, "COMMIT") == 0 ? 0 : 1;
}

int db_writer_failed(const struct db_writer *w)
{
    return w->failed ? (w->fail_code ? w->fail_code : SQLITE_ERROR) : 0;
}

uint64_t db_writer_records_committed(const struct db_writer *w)
{
    return w->records_committed;
}

/* A full disk leaves no room even for the few pages that mark the trace
 * incomplete: the WAL cannot start over while its last frames wait for a
 * checkpoint, and a checkpoint needs room in the database file. So the
 * writer holds RESERVE_BYTES of the disk in a file beside the database
 * ("<db>-reserve-<trace id>") while it records, and gives them back for
 * that last transaction. Without the file (no room even for it), the mark
 * may not fit; the recorder says so. */
#define RESERVE_BYTES (1 << 20)

/* "<db>-reserve-<trace id>", malloc'd; NULL when out of memory. */
static char *reserve_path(const char *path, int64_t trace_id)
{
    char *p;
    return asprintf(&p, "%s-reserve-%lld", path, (long long)trace_id) < 0 ? NULL : p;
}

static void reserve_room(struct db_writer *w, const char *path)
{
    if (!(w->reserve = reserve_path(path, w->trace_id)))
        return;
    int fd = open(w->reserve, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0 && posix_fallocate(fd, 0, RESERVE_BYTES) == 0) {
        close(fd);
        return;
    }
    if (fd >= 0) {
        close(fd);
        unlink(w->reserve);
    }
    free(w->reserve);
    w->reserve = NULL;
}

static void release_room(struct db_writer *w)
{
    if (w->reserve)
        unlink(w->reserve);
    free(w->reserve);
    w->reserve = NULL;
}

/* Marks trace trace_id incomplete with end_reason; its recorder takes no
 * more commands (control NULL). 0 or -1. */
static int mark_incomplete(struct db_writer *w, int64_t trace_id, const char *end_reason)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(w->db,
                           "UPDATE trace SET status = 'incomplete', end_reason = ?, control = NULL WHERE trace_id = ?",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, end_reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, trace_id);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(s);
    return rc;
}

int db_writer_abandon(struct db_writer *w, const char *end_reason, uint64_t not_stored)
{
    /* SQLite may have rolled the transaction back itself (a full disk
     * usually does); then there is nothing to roll back. */
    if (!sqlite3_get_autocommit(w->db))
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    w->in_txn = 0;
    release_room(w);
    /* First the whole story: the loss counts of the whole stream, the
     * records not stored among them, and the status. */
    int failed = w->failed;
    w->failed = 0;
    w->quiet = 1;
    if (exec(w, "BEGIN") == 0) {
        write_stats(w);
        stat_row(w, "records_not_stored", -1, "data_loss", not_stored,
                 "records read after the database stopped taking them (a full disk, an I/O error)");
        if (!w->failed && mark_incomplete(w, w->trace_id, end_reason) == 0 && exec(w, "COMMIT") == 0) {
            w->quiet = 0;
            w->failed = failed;
            return 0;
        }
        if (!sqlite3_get_autocommit(w->db))
            sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    }
    /* Then the least: the status alone, a few bytes. */
    int rc = mark_incomplete(w, w->trace_id, end_reason);
    w->quiet = 0;
    w->failed = failed;
    return rc == 0 ? 1 : -1;
}

int db_writer_set_control(struct db_writer *w, const char *path)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(w->db, "UPDATE trace SET control = ? WHERE trace_id = ?", -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (path)
        sqlite3_bind_text(s, 1, path, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, 1);
    sqlite3_bind_int64(s, 2, w->trace_id);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(s);
    return rc;
}

/* ---- open, close ---- */

/* Traces left 'recording' by a recorder that is gone (its lock byte free)
 * become 'incomplete', end_reason 'recorder_gone', and its reserve file
 * goes. Inside the opening transaction. 0, or -1 on an SQLite error. */
static int sweep_gone_recorders(struct db_writer *w, const char *path)
{
    if (w->lock_fd < 0)
        return 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(w->db, "SELECT trace_id FROM trace WHERE status = 'recording'", -1, &q, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        if (recorder_lock_held(w->lock_fd, id) != 0)
            continue; /* running, or cannot tell: leave it */
        rc = mark_incomplete(w, id, "recorder_gone");
        char *reserve = reserve_path(path, id);
        if (reserve)
            unlink(reserve);
        free(reserve);
    }
    sqlite3_finalize(q);
    return rc;
}

/* The BATCH_ROWS-row form of statement id: its VALUES group repeated. */
static int batch_open(struct db_writer *w, int id, char *err, size_t errlen)
{
    struct batch *b = &w->batch_of[id];
    const char *sql = stmt_sql[id], *values = strstr(sql, "VALUES(");
    b->ncols = sqlite3_bind_parameter_count(w->st[id]);
    if (!values || b->ncols > BATCH_COLS) {
        snprintf(err, errlen, "internal: cannot batch %s", stmt_what[id]);
        return -1;
    }
    size_t head = (size_t)(values - sql) + 6, group = strlen(values + 6);
    char *many = malloc(head + BATCH_ROWS * (group + 1) + 1), *p = many;
    b->row = calloc(BATCH_ROWS, sizeof *b->row);
    if (!many || !b->row) {
        free(many);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(p, sql, head);
    p += head;
    for (int r = 0; r < BATCH_ROWS; r++) {
        if (r)
            *p++ = ',';
        memcpy(p, values + 6, group);
        p += group;
    }
    *p = 0;
    int rc = sqlite3_prepare_v3(w->db, many, -1, SQLITE_PREPARE_PERSISTENT, &b->many, NULL);
    free(many);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(w->db));
        return -1;
    }
    return 0;
}

struct db_writer *db_writer_open(const char *path, const char *source, char *err, size_t errlen)
{
    struct db_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* Before SQLite opens the file, and closed after it (recorder_lock.h).
     * Without it (a file system without such locks) all still works but
     * a recorder that dies leaves its trace 'recording'. */
    w->lock_fd = recorder_lock_open(path, 1);
    if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, w->db ? sqlite3_errmsg(w->db) : "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(w->db, 5000);
    char *msg = NULL;
    /* WAL: readers (runq top, runq sql) see every commit while we write. */
    if (sqlite3_exec(w->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                            "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;",
                     NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(w->db, db_schema_sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(w->db));
        sqlite3_free(msg);
        goto fail;
    }
    /* Databases made before the column existed get it (NULL in their
     * traces; the error when it is there already is the expected one). */
    sqlite3_exec(w->db, "ALTER TABLE eevdf_leave ADD COLUMN deadline INTEGER", NULL, NULL, NULL);
    sqlite3_exec(w->db, "ALTER TABLE trace ADD COLUMN control TEXT", NULL, NULL, NULL);
    for (int i = 0; i < S_NR; i++)
        if (sqlite3_prepare_v3(w->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL) !=
            SQLITE_OK) {
            snprintf(err, errlen, "%s: %s (is it a runq database?)", path, sqlite3_errmsg(w->db));
            goto fail;
        }
    for (int i = 0; i < S_NR; i++)
        if (stmt_what[i] && batch_open(w, i, err, errlen) != 0)
            goto fail;
    sqlite3_stmt *s;
    time_t now = time(NULL);
    struct tm tm;
    char created[32];
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* One write transaction for the sweep, the new row and its lock: no
     * other recorder can sweep the new trace before its lock is held. */
    if (sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sweep_gone_recorders(w, path) != 0 ||
        sqlite3_prepare_v2(w->db, "INSERT INTO trace(created,source,status,records) VALUES(?,?,'recording',0)",
                           -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(w->db));
        goto fail;
    }
    sqlite3_bind_text(s, 1, created, -1, SQLITE_TRANSIENT);
    B_TXT(s, 2, source);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(w->db));
        goto fail;
    }
    w->trace_id = sqlite3_last_insert_rowid(w->db);
    /* A lock that cannot be taken leaves the trace unguarded, as on a file
     * system without such locks; the descriptor stays open all the same:
     * closing it now would drop SQLite's locks. */
    if (w->lock_fd >= 0)
        (void)recorder_lock_take(w->lock_fd, w->trace_id);
    if (sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(w->db));
        goto fail;
    }
    /* utids are unique across the database, so joins need no trace_id. */
    if (sqlite3_prepare_v2(w->db, "SELECT COALESCE(MAX(utid),0)+1 FROM thread", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            w->next_utid = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    if (w->next_utid < 1)
        w->next_utid = 1;
    reserve_room(w, path);
    return w;
fail:
    db_writer_close(w);
    return NULL;
}

void db_writer_close(struct db_writer *w)
{
    if (!w)
        return;
    release_room(w);
    if (w->in_txn)
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    for (int i = 0; i < S_NR; i++) {
        sqlite3_finalize(w->st[i]);
        sqlite3_finalize(w->batch_of[i].many);
        free(w->batch_of[i].row);
    }
    sqlite3_close(w->db);
    if (w->lock_fd >= 0)
        close(w->lock_fd); /* after SQLite's: recorder_lock.h */
    for (size_t i = 0; i < w->ntasks; i++)
        free(w->tasks[i]);
    free(w->tasks);
    free(w->dirty);
    free(w);
}

int64_t db_writer_trace_id(const struct db_writer *w)
{
    return w->trace_id;
}

void db_writer_set_decoder(struct db_writer *w, const struct trace_decoder *d)
{
    w->dec = d;
}

void db_writer_set_stat(struct db_writer *w, const char *name, const char *severity, uint64_t value,
                        const char *description)
{
    int i;
    for (i = 0; i < w->nextra; i++)
        if (strcmp(w->extra[i].name, name) == 0)
            break;
    if (i == w->nextra) {
        if (w->nextra == MAX_EXTRA_STATS)
            return;
        w->nextra++;
    }
    snprintf(w->extra[i].name, sizeof w->extra[i].name, "%s", name);
    snprintf(w->extra[i].severity, sizeof w->extra[i].severity, "%s", severity);
    snprintf(w->extra[i].description, sizeof w->extra[i].description, "%s", description);
    w->extra[i].value = value;
}

int db_writer_saw_end(const struct db_writer *w)
{
    return w->saw_end;
}

uint64_t db_writer_records(const struct db_writer *w)
{
    return w->records;
}
