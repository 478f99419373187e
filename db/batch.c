/*
 * The writer's prepared statements and batched rows (contract in batch.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/batch.h"
#include "db/events.h"

static const char *const stmt_sql[S_NR] = {
    [S_PICK] = "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,"
               "lag,nr_eligible,nr_runnable,touched,cost_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_PLACE] = "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,vruntime,deadline,lag_before,"
                "lag_after,v,weight,nr_runnable," EVENT_JOIN_CHECK_COLUMNS ") "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_LEAVE] = "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns,deadline,by_class) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
    [S_TICK] = "INSERT INTO sched_tick(trace_id,ts,cpu,utid,v,nr_runnable) VALUES(?,?,?,?,?,?)",
    [S_SNAP] = "INSERT INTO queue_snapshot(trace_id,ts,cpu,v,utid,is_current,eligible,delayed,nice,"
               "weight,vruntime,deadline,lag,slice_ns,protected) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_COUNTER] = "INSERT INTO counter(trace_id,ts,cpu,name,value) VALUES(?,?,?,?,?)",
    [S_SET] = "INSERT INTO sched_set(trace_id,ts,utid,what,name,old_value,new_value) VALUES(?,?,?,?,?,?,?)",
    [S_MARK] = "INSERT INTO mark(trace_id,ts,cpu,source,name) VALUES(?,?,?,?,?)",
    [S_SLICE] = "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_state,end_reason,priority) "
                "VALUES(?,?,?,?,?,?,?,?)",
    [S_STATE] = "INSERT INTO thread_state(trace_id,ts,dur,utid,state,cpu,waker_utid) VALUES(?,?,?,?,?,?,?)",
    [S_WAKEUP] = "INSERT INTO wakeup(trace_id,utid,ts_wake,ts_run,latency,waker,cpu,waker_cpu) "
                 "VALUES(?,?,?,?,?,?,?,?)",
    [S_BOUNCE] = "INSERT INTO bounce(trace_id,utid,ts_bounce,ts_run,latency,cpu,run_cpu,by_class) "
                 "VALUES(?,?,?,?,?,?,?,?)",
    [S_GAP] = "INSERT INTO data_gap(trace_id,cpu,ts_start,ts_end,packets_lost,records_dropped,records_late) "
              "VALUES(?,?,?,?,?,?,?)",
    [S_THREAD] = "INSERT OR REPLACE INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,pinned,"
                 "parent_utid,start_ts,end_ts,class,rt_prio,rt_policy) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_CPU] = "INSERT OR REPLACE INTO cpu(trace_id,cpu,packets,records,first_ts,last_ts) VALUES(?,?,?,?,?,?)",
    [S_STAT] = "INSERT INTO stats(trace_id,name,idx,severity,value,description) VALUES(?,?,?,?,?,?)",
    [S_STAT_DEL] = "DELETE FROM stats WHERE trace_id=?",
    [S_TRACE_UPD] = "UPDATE trace SET records=?,start_ts=?,end_ts=?,status=?,end_reason=? WHERE trace_id=?",
    [S_STREAM] = "UPDATE trace SET format_version=?,ncpus=?,tick_hz=?,tsc_hz=?,keyframe_ns=?,policy=?,"
                 "features=?,feature_names=?,cmdline=? WHERE trace_id=?",
    [S_MIGRATE] = "INSERT INTO migration(trace_id,ts,utid,src_cpu,dst_cpu,reason,queued,src_nr,src_running,src_load,"
                  "dst_nr,dst_running,dst_load) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_MIGRATE_LOAD] = "INSERT INTO migration_load(trace_id,ts,utid,cpu,nr_running,running,load) VALUES(?,?,?,?,?,?,?)",
};

/* The statements written BATCH_ROWS rows at a time (NULL: one at a time),
 * by the table's name for errors. */
static const char *const stmt_what[S_NR] = {
    [S_PICK] = "eevdf_pick", [S_PLACE] = "eevdf_place", [S_LEAVE] = "eevdf_leave", [S_TICK] = "sched_tick",
    [S_SNAP] = "queue_snapshot", [S_COUNTER] = "counter", [S_SLICE] = "sched_slice",
    [S_STATE] = "thread_state", [S_WAKEUP] = "wakeup", [S_BOUNCE] = "bounce",
    [S_MIGRATE] = "migration", [S_MIGRATE_LOAD] = "migration_load",
};

/* One line for the user through b->say (db/ prints nothing itself). */
static void say(struct db_batch *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct db_batch *b, const char *fmt, ...)
{
    if (!b->say)
        return;
    char *line;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return; /* no memory even for the line */
    b->say(b->say_arg, line);
    free(line);
}

/* Keeps the first failure (code: SQLite's primary result code) and says
 * it, unless quiet: "database: what: msg" (what may be NULL), or for
 * SQLITE_BUSY how long it waited, which says more than "database is
 * locked". */
static void fail_with(struct db_batch *b, int code, const char *what, const char *msg)
{
    if (!b->failed && !b->quiet) {
        b->fail_code = code;
        if (b->fail_code == SQLITE_BUSY && b->gave_up_ms)
            say(b, "database: another recorder held the database for %d s; gave up waiting for it",
                b->gave_up_ms / 1000);
        else
            say(b, "database: %s%s%s", what ? what : "", what ? ": " : "", msg);
    }
    b->failed = 1;
}

void batch_fail(struct db_batch *b, const char *what)
{
    fail_with(b, sqlite3_errcode(b->db) & 0xff, what, sqlite3_errmsg(b->db));
}

int batch_out_of_memory(struct db_batch *b)
{
    if (!b->failed && !b->quiet) {
        b->fail_code = SQLITE_NOMEM;
        say(b, "out of memory");
    }
    b->failed = 1;
    return -1;
}

int batch_exec(struct db_batch *b, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(b->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fail_with(b, sqlite3_errcode(b->db) & 0xff, NULL, msg ? msg : sqlite3_errmsg(b->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* ---- waiting for another writer ---- */

/* The first progress line after WAIT_SAY_MS, then one every WAIT_SAY_EVERY_MS:
 * a recorder that stops reading says why. */
#define WAIT_SAY_MS 2000
#define WAIT_SAY_EVERY_MS 30000

/* SQLite's busy handler: n is how many times it was called in this wait;
 * nonzero means try again. It polls every millisecond at first, then
 * every 10: another recorder leaves the lock free only between two of its
 * commits, while it reads the next records (tens of milliseconds), and a
 * slow poll would miss that turn. The wait is counted in the sleeps it
 * made, so it is never shorter than it says. */
static int wait_for_writer(void *arg, int n)
{
    struct db_batch *b = arg;
    if (n == 0) {
        b->waited_us = 0;
        b->said = 0;
    }
    if (b->no_wait)
        return 0;
    int64_t waited_ms = b->waited_us / 1000;
    if (waited_ms >= b->wait_ms) {
        if (!b->gave_up_ms)
            b->gave_up_ms = (int)waited_ms;
        return 0;
    }
    if (waited_ms >= WAIT_SAY_MS + (int64_t)b->said * WAIT_SAY_EVERY_MS) {
        say(b, "waiting for another recorder's transaction (%lld s; gives up at %d s)", (long long)(waited_ms / 1000),
            b->wait_ms / 1000);
        b->said++;
    }
    useconds_t step = n < 20 ? 1000 : 10000;
    usleep(step);
    b->waited_us += step;
    return 1;
}

void batch_wait_for_writers(struct db_batch *b, int wait_ms)
{
    b->wait_ms = wait_ms;
    sqlite3_busy_handler(b->db, wait_for_writer, b);
}

int batch_begin(struct db_batch *b, int wait)
{
    if (b->failed)
        return -1;
    if (b->in_txn)
        return 0;
    b->no_wait = !wait;
    int rc = sqlite3_exec(b->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    b->no_wait = 0;
    if (rc == SQLITE_OK) {
        b->in_txn = 1;
        return 0;
    }
    if (rc == SQLITE_BUSY && !wait)
        return 1;
    batch_fail(b, "beginning a transaction");
    return -1;
}

void batch_step(struct db_batch *b, sqlite3_stmt *s, const char *what)
{
    if (sqlite3_step(s) != SQLITE_DONE)
        batch_fail(b, what);
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

/* BATCH_ROWS in one statement, fewer (at a commit) one by one. */
void batch_flush(struct db_batch *b, int id)
{
    struct batch_rows *br = &b->rows[id];
    BUG_ON(br->n > BATCH_ROWS || br->ncols > BATCH_COLS); /* what many and row hold (prepare_many) */
    if (br->n == BATCH_ROWS) {
        for (int r = 0; r < br->n; r++)
            bind_row(br->many, 1 + r * br->ncols, &br->row[r], br->ncols);
        batch_step(b, br->many, stmt_what[id]);
    } else {
        for (int r = 0; r < br->n; r++) {
            bind_row(b->st[id], 1, &br->row[r], br->ncols);
            batch_step(b, b->st[id], stmt_what[id]);
        }
    }
    br->n = 0;
}

void batch_flush_all(struct db_batch *b)
{
    for (int id = 0; id < S_NR; id++)
        if (b->rows[id].many)
            batch_flush(b, id);
}

/* The BATCH_ROWS-row form of statement id: its VALUES group repeated. */
static int prepare_many(struct db_batch *b, int id, char *err, size_t errlen)
{
    struct batch_rows *br = &b->rows[id];
    const char *sql = stmt_sql[id], *values = strstr(sql, "VALUES(");
    br->ncols = sqlite3_bind_parameter_count(b->st[id]);
    if (!values || br->ncols > BATCH_COLS) {
        snprintf(err, errlen, "internal: cannot batch %s", stmt_what[id]);
        return -1;
    }
    size_t head = (size_t)(values - sql) + 6, group = strlen(values + 6);
    char *many = malloc(head + BATCH_ROWS * (group + 1) + 1), *p = many;
    br->row = calloc(BATCH_ROWS, sizeof *br->row);
    if (!many || !br->row) {
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
    int rc = sqlite3_prepare_v3(b->db, many, -1, SQLITE_PREPARE_PERSISTENT, &br->many, NULL);
    free(many);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(b->db));
        return -1;
    }
    return 0;
}

int batch_prepare(struct db_batch *b, const char *path, char *err, size_t errlen)
{
    for (int i = 0; i < S_NR; i++)
        if (sqlite3_prepare_v3(b->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &b->st[i], NULL) !=
            SQLITE_OK) {
            snprintf(err, errlen, "%s: %s (is it a runq database?)", path, sqlite3_errmsg(b->db));
            return -1;
        }
    for (int i = 0; i < S_NR; i++)
        if (stmt_what[i] && prepare_many(b, i, err, errlen) != 0)
            return -1;
    return 0;
}

void batch_finalize(struct db_batch *b)
{
    for (int i = 0; i < S_NR; i++) {
        sqlite3_finalize(b->st[i]);
        sqlite3_finalize(b->rows[i].many);
        free(b->rows[i].row);
        b->st[i] = NULL;
        b->rows[i].many = NULL;
        b->rows[i].row = NULL;
    }
}
