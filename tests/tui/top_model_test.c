/*
 * The `runq top` model and table, without a terminal: a small trace written
 * by hand into a database (the real schema), then what the view would show
 * at chosen times. Prints "PASS name" / "FAIL name: why" (tests/harness.h).
 *
 * Build (from the top of the tree; build/gen/schema_sql.o comes from make):
 *   cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
 *      -iquote . -iquote kernel/sched -iquote kernel/lib -o build/tests/top_model_test \
 *      tests/tui/top_model_test.c tui/model.c tui/table.c tui/control.c db/recorder_lock.c db/events.c \
 *      trace/decode.c kernel/sched/weights.c build/gen/schema_sql.o -lsqlite3 -lm
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/un.h>

#include <sqlite3.h>

#include "db/dbfile.h"
#include "db/events.h"
#include "db/recorder_lock.h"
#include "db/tstate.h"
#include "tui/control.h"
#include "tui/model.h"
#include "tui/step.h"
#include "tui/table.h"
#include "tests/harness.h"

extern const char db_schema_sql[];

/* The fixture database, written by main; the tests that add traces of
 * their own open it here (once). */
static sqlite3 *fixture_db;
static sqlite3 *fixture(void);

static void exec(sqlite3 *db, const char *fmt, ...)
{
    char *sql;
    va_list ap;
    va_start(ap, fmt);
    sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "top_model_test: SQL failed: %s\n%s\n", msg, sql);
        exit(1);
    }
    sqlite3_free(sql);
}

#define MS 1000000LL
#define S 1000000000LL

/* One trace of the shape below; eevdf = 0 writes it as the round robin
 * would (EEVDF columns NULL). Two CPUs:
 *   cpu0: a runs 0..1.5 s, is preempted; b runs from 1.5 s
 *   cpu1: c runs 0..0.5 s and blocks; idle after; c is woken 3 times
 *   b's nice goes 0 -> 5 at 1.2 s; RUN_TO_PARITY goes off at 1.1 s
 */
/* Added to every virtual time write_trace writes (V, vruntime, deadline;
 * not lags), modulo 2^64 as the kernel's wrap. */
static uint64_t vt_shift;

static void write_trace(sqlite3 *db, int id, int eevdf, const char *status)
{
    const char *pol = eevdf ? "eevdf" : "rr";
    int u = id * 10; /* utids of this trace: u+1.. */
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,features,feature_names,start_ts,"
             "end_ts,records) VALUES(%d,'now','%s',2,250,'%s',3,'PLACE_LAG,RUN_TO_PARITY',0,%lld,100)",
         id, status, pol, 2 * S);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(%d,%d,0,'idle/0',0,0,0,1,0),(%d,%d,1,'idle/1',0,0,1,1,0),"
             "(%d,%d,10,'alpha',0,0,0,0,0),(%d,%d,11,'beta',5,0,0,0,0),(%d,%d,12,'gamma',0,300000,1,0,0)",
         u + 1, id, u + 2, id, u + 3, id, u + 4, id, u + 5, id);
    /* v, vruntime, deadline, lag as NULL under rr */
#define N(x) (eevdf ? sqlite3_mprintf("%lld", (long long)(x)) : sqlite3_mprintf("NULL"))
#define NV(x) N((int64_t)((uint64_t)(x) + vt_shift))
    char *v[16];
    v[0] = NV(0), v[1] = NV(0), v[2] = NV(3 * MS), v[3] = N(0);
    exec(db, "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,vruntime,deadline,lag_before,lag_after,v,weight,"
             "nr_runnable) VALUES(%d,0,0,%d,'new',%s,%s,%s,%s,%s,1024,1)", id, u + 3, v[1], v[2], v[3], v[3], v[0]);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,lag,nr_runnable) "
             "VALUES(%d,0,0,%d,%d,'idle',%s,%s,%s,%s,1)", id, u + 1, u + 3, v[0], v[1], v[2], v[3]);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,lag,nr_runnable) "
             "VALUES(%d,0,1,%d,%d,'idle',%s,%s,%s,%s,1)", id, u + 2, u + 5, v[0], v[1], v[2], v[3]);
    /* b joins cpu0 at 0.2 s */
    v[4] = NV(4900000), v[5] = NV(7900000), v[6] = N(100000), v[7] = NV(5000000);
    exec(db, "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,vruntime,deadline,lag_before,lag_after,v,weight,"
             "nr_runnable) VALUES(%d,%lld,0,%d,'wake',%s,%s,%s,%s,%s,1024,2)",
         id, 200 * MS, u + 4, v[4], v[5], v[6], v[6], v[7]);
    /* c blocks at 0.5 s on cpu1; idle runs there after */
    v[8] = N(-20000);
    exec(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns) VALUES"
             "(%d,%lld,1,%d,'block',%s,%s,%s,%lld)", id, 500 * MS, u + 5, v[4], v[8], v[7], 500 * MS);
    exec(db, "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_state,end_reason) VALUES"
             "(%d,0,%lld,1,%d,'S','block')", id, 500 * MS, u + 5);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,nr_runnable) VALUES"
             "(%d,%lld,1,%d,%d,'block',NULL,1)", id, 500 * MS, u + 5, u + 2);
    /* wakeups of c: 1 us, 2 us, 1 ms */
    exec(db, "INSERT INTO wakeup(trace_id,utid,ts_wake,ts_run,latency,cpu) VALUES"
             "(%d,%d,%lld,%lld,1000,1),(%d,%d,%lld,%lld,2000,1),(%d,%d,%lld,%lld,1000000,1)",
         id, u + 5, 100 * MS, 100 * MS + 1000, id, u + 5, 200 * MS, 200 * MS + 2000, id, u + 5, 300 * MS,
         301 * MS);
    exec(db, "INSERT INTO sched_set(trace_id,ts,utid,what,name,old_value,new_value) VALUES"
             "(%d,%lld,NULL,'feature','RUN_TO_PARITY',1,0),(%d,%lld,%d,'nice',NULL,0,5)",
         id, 1100 * MS, id, 1200 * MS, u + 4);
    /* a is preempted by b at 1.5 s */
    v[9] = NV(5100000), v[10] = N(-100000);
    exec(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns) VALUES"
             "(%d,%lld,0,%d,'preempt',%s,%s,%s,%lld)", id, 1500 * MS, u + 3, v[9], v[10], v[7], 1500 * MS);
    exec(db, "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_state,end_reason) VALUES"
             "(%d,0,%lld,0,%d,'R+','preempt')", id, 1500 * MS, u + 3);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,lag,nr_runnable) "
             "VALUES(%d,%lld,0,%d,%d,'preempt',%s,%s,%s,%s,2)", id, 1500 * MS, u + 3, u + 4, v[7], v[4], v[5], v[6]);
    v[11] = NV(5050000), v[12] = NV(5250000);
    exec(db, "INSERT INTO sched_tick(trace_id,ts,cpu,utid,v,nr_runnable) VALUES(%d,%lld,0,%d,%s,2)", id,
         1500 * MS + 200000, u + 4, v[11]);
    exec(db, "INSERT INTO sched_tick(trace_id,ts,cpu,utid,v,nr_runnable) VALUES(%d,%lld,0,%d,%s,2)", id, 2 * S,
         u + 4, v[12]);
    exec(db, "INSERT INTO mark(trace_id,ts,cpu,source,name) VALUES(%d,%lld,NULL,'host','phase2')", id, 1 * S);
    for (int i = 0; i < 13; i++)
        sqlite3_free(v[i]);
#undef NV
#undef N
}

static char dbpath[256];

static sqlite3 *make_db(void)
{
    snprintf(dbpath, sizeof dbpath, "/tmp/top_model_test.%d.db", (int)getpid());
    unlink(dbpath);
    sqlite3 *db;
    if (sqlite3_open(dbpath, &db) != SQLITE_OK)
        exit(1);
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "%s", db_schema_sql);
    return db;
}

static struct top_model *open_at(int64_t id, uint64_t from)
{
    char err[256] = "";
    struct top_model *m = top_model_open(dbpath, id, from, err, sizeof err);
    if (!m)
        fprintf(stderr, "open: %s\n", err);
    return m;
}

static const struct top_task *task(const struct top_model *m, const char *name)
{
    const struct top_snapshot *s = top_model_snapshot(m);
    for (size_t i = 0; i < s->ntasks; i++)
        if (!strcmp(s->tasks[i].name, name))
            return &s->tasks[i];
    return NULL;
}

static int update(struct top_model *m, uint64_t t)
{
    char err[256] = "";
    if (top_model_update(m, t, err, sizeof err) != 0) {
        fprintf(stderr, "update: %s\n", err);
        return -1;
    }
    return 0;
}

/* ---- the tests ---- */

static void top_model_state_lag_deadline_eligibility(void)
{
    struct top_model *m = open_at(1, 0);
    CHECK(m, "open failed");
    CHECK(update(m, 1500 * MS + 200000) == 0, "update failed");
    const struct top_task *a = task(m, "alpha"), *b = task(m, "beta"), *c = task(m, "gamma");
    CHECK(a && b && c, "tasks missing");
    CHECK(b->state == THREAD_RUNNING, "beta should run, is %s", top_state_name(b->state));
    CHECK(a->state == THREAD_PREEMPTED, "alpha should be R+, is %s", top_state_name(a->state));
    CHECK(c->state == THREAD_SLEEPING, "gamma should sleep, is %s", top_state_name(c->state));
    /* queued alpha: lag = V - vruntime exactly, deadline relative to V */
    CHECK(a->lag == 5050000 - 5100000, "alpha lag %lld", (long long)a->lag);
    CHECK(a->deadline_rel == 3000000 - 5050000, "alpha deadline %lld", (long long)a->deadline_rel);
    CHECK(!a->eligible, "alpha has negative lag: not eligible");
    /* running beta: vruntime moved 200 us at weight 1024 since its pick */
    CHECK(b->lag == 5050000 - (4900000 + 200000), "beta lag %lld", (long long)b->lag);
    /* a sleeper keeps the lag it left with */
    CHECK(c->lag == -20000, "gamma lag %lld", (long long)c->lag);
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(s->cpus[0].curr >= 0 && !strcmp(s->tasks[s->cpus[0].curr].name, "beta"), "cpu0 current");
    CHECK(s->cpus[1].curr >= 0 && s->tasks[s->cpus[1].curr].is_idle, "cpu1 idle");
    CHECK(s->cpus[0].has_v && s->cpus[0].v == 5050000, "cpu0 V %lld", (long long)s->cpus[0].v);
    CHECK(s->cpus[0].nr_runnable == 2, "cpu0 runnable %d", s->cpus[0].nr_runnable);
    CHECK(a->invol == 1 && a->vol == 0 && c->vol == 1, "switch counts a %llu/%llu c %llu",
          (unsigned long long)a->vol, (unsigned long long)a->invol, (unsigned long long)c->vol);
    CHECK(!strcmp(s->h.last_mark, "phase2"), "mark '%s'", s->h.last_mark);
    top_model_close(m);
}

static void top_model_cpu_share_util_switch_rates(void)
{
    struct top_model *m = open_at(1, 0);
    CHECK(m, "open failed");
    CHECK(update(m, 1 * S) == 0 && update(m, 2 * S) == 0, "update failed");
    const struct top_task *a = task(m, "alpha"), *b = task(m, "beta");
    /* over 1..2 s: alpha ran 1..1.5, beta 1.5..2 (still running) */
    CHECK(fabs(a->cpu_pct - 50) < 0.01, "alpha %%CPU %.2f", a->cpu_pct);
    CHECK(fabs(b->cpu_pct - 50) < 0.01, "beta %%CPU %.2f", b->cpu_pct);
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(fabs(s->cpus[0].util - 1) < 1e-6, "cpu0 util %.3f", s->cpus[0].util);
    CHECK(fabs(s->cpus[1].util) < 1e-6, "cpu1 util %.3f", s->cpus[1].util);
    CHECK(fabs(s->cpus[0].switches_per_s - 1) < 1e-6, "cpu0 switches/s %.3f", s->cpus[0].switches_per_s);
    /* no time passes: the rates stay */
    CHECK(update(m, 2 * S) == 0 && fabs(task(m, "alpha")->cpu_pct - 50) < 0.01, "rates kept");
    top_model_close(m);
}

/* Trace 21: two CPUs for 2 s, cost readings every 100 ms. CPU 0 writes
 * 10,000 records a second, the timed ones at 1,000 ns each (1 % of the
 * CPU), and runs the tracer task from 1.5 s to 2 s (half of the last
 * second): 51 %. CPU 1 writes 20,000 a second at 500 ns (1 %). CPU 2 has
 * no readings: not known. (Without the timed mean, or without the
 * tracer's run, the shares are 100 times or 50 points off.) */
static void top_model_trace_share_of_each_cpu(void)
{
    sqlite3 *db = fixture();
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,start_ts,end_ts,records,engine) "
             "VALUES(21,'now','complete',3,250,'eevdf',0,%lld,100,'runq-kernel')", 2 * S);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(2111,21,0,'idle/0',0,0,0,1,0),(2112,21,1,'idle/1',0,0,1,1,0),(2113,21,2,'idle/2',0,0,2,1,0),"
             "(2114,21,5,'tracer',-20,0,0,0,0)");
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
             "(21,%lld,0,2111,2114,'idle',1)", 1500 * MS);
    for (int k = 0; k <= 20; k++) {
        long long ts = k * 100 * MS, r0 = k * 1000, r1 = k * 2000;
        exec(db, "INSERT INTO counter(trace_id,ts,cpu,name,value) VALUES"
                 "(21,%lld,0,'decisions',%d),(21,%lld,0,'trace_records',%lld),(21,%lld,0,'trace_timed',%lld),"
                 "(21,%lld,0,'trace_timed_ns',%lld),(21,%lld,1,'trace_records',%lld),"
                 "(21,%lld,1,'trace_timed',%lld),(21,%lld,1,'trace_timed_ns',%lld)",
                 ts, k, ts, r0, ts, r0 / 64, ts, r0 / 64 * 1000, ts, r1, ts, r1 / 64, ts, r1 / 64 * 500);
    }
    struct top_model *m = open_at(21, 0);
    CHECK(m && update(m, 1 * S) == 0 && update(m, 2 * S) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(fabs(s->cpus[0].trace_share - 0.51) < 0.002, "cpu0 trace share %.4f", s->cpus[0].trace_share);
    CHECK(fabs(s->cpus[1].trace_share - 0.01) < 0.0002, "cpu1 trace share %.4f", s->cpus[1].trace_share);
    CHECK(s->cpus[2].trace_share < 0, "cpu2 has no readings: %.4f", s->cpus[2].trace_share);
    top_model_close(m);
}

/* Trace 3: a runs on cpu0 from 0; the CPU's records stop at 100 ms and
 * resume at 300 ms with b. The stint ends where the records stopped: a ran
 * 100 ms, not 300, and the gap is not a switch. (Ignoring data_gap rows
 * makes this fail with 300 ms and one switch.) */
static void top_model_gap_ends_the_stint(void)
{
    sqlite3 *db = fixture();
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,start_ts,end_ts,records) "
             "VALUES(7,'now','complete',1,250,'rr',0,%lld,5)", 400 * MS);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(71,7,0,'idle/0',0,0,0,1,0),(72,7,5,'a',0,0,0,0,0),(73,7,6,'b',0,0,0,0,0)");
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
             "(7,0,0,71,72,'idle',1),(7,%lld,0,NULL,73,'tick',1)", 300 * MS);
    exec(db, "INSERT INTO data_gap(trace_id,cpu,ts_start,ts_end,packets_lost,records_dropped) VALUES"
             "(7,0,%lld,%lld,2,0)", 100 * MS, 300 * MS);
    struct top_model *m = open_at(7, 0);
    CHECK(m && update(m, 400 * MS) == 0, "open/update failed");
    const struct top_task *a = task(m, "a");
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(a && a->run_ns == 100 * MS, "a ran %llu ns", a ? (unsigned long long)a->run_ns : 0ull);
    CHECK(s->cpus[0].switches == 0 && a->invol == 0, "cpu0 switches %llu", (unsigned long long)s->cpus[0].switches);
    CHECK(s->cpus[0].curr >= 0 && !strcmp(s->tasks[s->cpus[0].curr].name, "b"), "b runs after the gap");
    top_model_close(m);
}

/* Trace 9: two CPUs for 10 s. CPU 0 switches between a and b every
 * 100 ms; CPU 1 picked c at 1 ms (a keyframe says so) and then said
 * nothing, as a CPU busy with one task or halted in idle does. A view that
 * starts at 5 s still knows c runs on CPU 1, and counts its CPU time from
 * 5 s only. With a gap on CPU 1 at 3 s, who runs there is unknown. */
static void top_model_view_started_late_knows_each_cpu(void)
{
    sqlite3 *db = fixture();
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,start_ts,end_ts,records) "
             "VALUES(9,'now','complete',2,250,'eevdf',0,%lld,300)", 10 * S);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(91,9,0,'idle/0',0,0,0,1,0),(92,9,1,'idle/1',0,0,1,1,0),(93,9,5,'a',0,0,0,0,0),"
             "(94,9,6,'b',0,0,0,0,0),(95,9,7,'c',0,0,1,0,0)");
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
             "(9,%lld,1,92,95,'idle',1)", 1 * MS);
    exec(db, "INSERT INTO queue_snapshot(trace_id,ts,cpu,v,utid,is_current) VALUES(9,%lld,1,0,95,1)", 1 * MS);
    /* rows in time order, as the recorder writes them; c blocks at 8 s */
    for (int k = 0; k < 100; k++) {
        exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
                 "(9,%lld,0,%d,%d,'tick',2)", (long long)(k * 100 * MS), k % 2 ? 93 : 94, k % 2 ? 94 : 93);
        if (k == 80)
            exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
                     "(9,%lld,1,95,92,'block',0)", 8 * S);
    }
    struct top_model *m = open_at(9, 5 * S);
    CHECK(m && update(m, 6 * S) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(s->cpus[1].curr >= 0 && !strcmp(s->tasks[s->cpus[1].curr].name, "c"),
          "cpu1 runs %s, want c (known from 1 ms)", s->cpus[1].curr >= 0 ? s->tasks[s->cpus[1].curr].name : "?");
    CHECK(task(m, "c")->state == THREAD_RUNNING, "c's state %d", task(m, "c")->state);
    CHECK(s->cpus[1].util > 0.99, "cpu1 util %.3f over 5..6 s", s->cpus[1].util);
    /* counted from the view's start: c's stint runs 5 s..8 s, not 1 ms..8 s */
    CHECK(update(m, 9 * S) == 0, "update failed");
    CHECK(task(m, "c")->run_ns == 3 * S, "c ran %llu ns in the view, want 3 s", (unsigned long long)task(m, "c")->run_ns);
    top_model_close(m);
    exec(db, "INSERT INTO data_gap(trace_id,cpu,ts_start,ts_end,packets_lost,records_dropped) VALUES"
             "(9,1,%lld,%lld,1,0)", 2900 * MS, 3 * S);
    CHECK((m = open_at(9, 5 * S)) && update(m, 6 * S) == 0, "open/update failed");
    CHECK(top_model_snapshot(m)->cpus[1].curr < 0, "cpu1 known after a gap");
    top_model_close(m);
}

/* Trace 8: a is placed (deadline 1 ms), picked (deadline 2 ms: the pick
 * says its new one) and preempted (a leave carries no deadline), all in
 * one update. The queued task shows the pick's deadline. (Reading the
 * leave first, as the model does, and letting it guard the deadline too
 * shows 1 ms.) */
static void top_model_deadline_survives_a_later_leave(void)
{
    sqlite3 *db = fixture();
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,start_ts,end_ts,records) "
             "VALUES(8,'now','complete',1,250,'eevdf',0,%lld,5)", 30 * MS);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(81,8,0,'idle/0',0,0,0,1,0),(82,8,5,'a',0,0,0,0,0),(83,8,6,'b',0,0,0,0,0)");
    exec(db, "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,vruntime,deadline,lag_before,lag_after,v,weight,"
             "nr_runnable) VALUES(8,0,0,82,'new',0,%lld,0,0,0,1024,1)", 1 * MS);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,lag,nr_runnable) "
             "VALUES(8,%lld,0,81,82,'idle',0,0,%lld,0,1),(8,%lld,0,82,83,'preempt',0,0,%lld,0,2)",
             10 * MS, 2 * MS, 20 * MS, 5 * MS);
    exec(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns) VALUES"
             "(8,%lld,0,82,'preempt',%lld,0,%lld,%lld)", 20 * MS, 10 * MS, 10 * MS, 10 * MS);
    struct top_model *m = open_at(8, 0);
    CHECK(m && update(m, 30 * MS) == 0, "open/update failed");
    const struct top_task *a = task(m, "a");
    CHECK(a && a->state == THREAD_PREEMPTED, "a should be R+");
    CHECK(a->deadline == 2 * MS, "a's deadline %lld, want the pick's 2 ms", (long long)a->deadline);
    CHECK(a->vruntime == 10 * MS, "a's vruntime %lld, want the leave's", (long long)a->vruntime);
    top_model_close(m);
}

static void top_model_wake_latency_percentiles(void)
{
    struct top_model *m = open_at(1, 0);
    CHECK(m && update(m, 2 * S) == 0, "open/update failed");
    const struct top_task *c = task(m, "gamma");
    CHECK(c->lat_n == 3 && c->lat_max == 1000000, "n %llu max %llu", (unsigned long long)c->lat_n,
          (unsigned long long)c->lat_max);
    CHECK(llabs((long long)c->lat_p50 - 2000) <= 2000 / 16, "p50 %llu", (unsigned long long)c->lat_p50);
    CHECK(c->lat_p99 == 1000000, "p99 %llu (capped at max)", (unsigned long long)c->lat_p99);
    uint64_t b[TOP_LAT_LOG2];
    top_lat_log2(c->lat_hist, b);
    CHECK(b[9] == 1 && b[10] == 1 && b[19] == 1, "log2 buckets %llu %llu %llu", (unsigned long long)b[9],
          (unsigned long long)b[10], (unsigned long long)b[19]);
    top_model_close(m);
}

static void top_model_histogram_within_1_16(void)
{
    for (uint64_t v = 0; v < (1ull << 40); v = v * 3 / 2 + 1) {
        uint64_t r = top_lat_slot_value(top_lat_slot(v));
        uint64_t d = r > v ? r - v : v - r;
        CHECK(d * 16 <= v + 16, "value %llu reads back as %llu", (unsigned long long)v, (unsigned long long)r);
    }
    static uint32_t h[TOP_LAT_SLOTS];
    for (uint64_t i = 1; i <= 1000; i++)
        h[top_lat_slot(i * 1000)]++;
    uint64_t p50 = top_lat_percentile(h, 1000, 50), p99 = top_lat_percentile(h, 1000, 99);
    CHECK(llabs((long long)p50 - 500000) <= 500000 / 16, "p50 of 1..1000 us: %llu", (unsigned long long)p50);
    CHECK(llabs((long long)p99 - 990000) <= 990000 / 16, "p99 of 1..1000 us: %llu", (unsigned long long)p99);
}

static void top_model_replay_nice_and_features_as_of_time(void)
{
    /* the thread row says nice 5 (the latest); a replay from 0 starts at 0 */
    struct top_model *m = open_at(1, 0);
    CHECK(m && update(m, 1 * S) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(task(m, "beta")->nice == 0, "beta nice at 1 s: %d", task(m, "beta")->nice);
    CHECK(s->h.features == 3, "features at 1 s: %u", s->h.features);
    CHECK(update(m, 1300 * MS) == 0, "update failed");
    CHECK(task(m, "beta")->nice == 5, "beta nice at 1.3 s: %d", task(m, "beta")->nice);
    CHECK(s->h.features == 1, "RUN_TO_PARITY off at 1.3 s: %u", s->h.features);
    top_model_close(m);
    /* The trace row holds the features as tracing began (the STREAM
     * record's), so a view that starts after a switch flipped (a
     * scenario's switches at its start, before a replay's --at) takes the
     * flip's new value: RUN_TO_PARITY went off at 1.1 s. (It showed it on:
     * only the knobs took their last word before the view's start.) */
    m = open_at(1, 1200 * MS);
    CHECK(m && update(m, 1300 * MS) == 0, "open at 1.2 s failed");
    CHECK(top_model_snapshot(m)->h.features == 1, "features of a view started at 1.2 s: %u",
          top_model_snapshot(m)->h.features);
    top_model_close(m);
}

static void top_model_timeline_codes_and_idle(void)
{
    struct top_model *m = open_at(1, 0);
    CHECK(m && update(m, 2 * S) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(s->nmap == 4, "%zu switches, want 4", s->nmap);
    struct top_map_row r0 = top_model_map_row(m, 0), r3 = top_model_map_row(m, 3);
    const struct top_task *a = task(m, "alpha"), *b = task(m, "beta");
    CHECK(!strcmp(a->code, "A0"), "alpha's code '%s'", a->code);
    CHECK(r0.cpu == 0 && r0.curr[0] == (int)(a - s->tasks) && r0.curr[1] == -1, "first row");
    CHECK(r3.ts == (uint64_t)(1500 * MS) && r3.cpu == 0 && r3.curr[0] == (int)(b - s->tasks) && r3.curr[1] == -1,
          "last row: beta on cpu0, cpu1 idle");
    top_model_close(m);
}

static void top_table_eevdf_cells_and_rr_dashes(void)
{
    char cell[64];
    struct top_model *m = open_at(1, 0), *r = open_at(2, 0);
    CHECK(m && r && update(m, 1500 * MS + 200000) == 0 && update(r, 1500 * MS + 200000) == 0, "open failed");
    const struct top_snapshot *s = top_model_snapshot(m), *rs = top_model_snapshot(r);
    top_cell(s, task(m, "alpha"), TOP_COL_LAG, cell, sizeof cell);
    CHECK(!strcmp(cell, "-50.0us"), "eevdf LAG '%s'", cell);
    top_cell(s, task(m, "alpha"), TOP_COL_ELIG, cell, sizeof cell);
    CHECK(!strcmp(cell, "no"), "eevdf ELIG '%s'", cell);
    top_cell(s, task(m, "gamma"), TOP_COL_DEADLINE, cell, sizeof cell);
    CHECK(!strcmp(cell, "-"), "a sleeper's DEADLINE '%s'", cell);
    top_cell(s, task(m, "gamma"), TOP_COL_SLICE, cell, sizeof cell);
    CHECK(!strcmp(cell, "300.0us"), "eevdf SLICE '%s'", cell);
    CHECK(!strcmp(rs->h.policy, "rr") && !rs->h.eevdf, "trace 2 is rr");
    static const enum top_col dash[] = { TOP_COL_LAG, TOP_COL_DEADLINE, TOP_COL_ELIG, TOP_COL_SLICE };
    for (size_t k = 0; k < 4; k++) {
        top_cell(rs, task(r, "alpha"), dash[k], cell, sizeof cell);
        CHECK(!strcmp(cell, "-"), "rr %s shows '%s', want '-'", top_cols[dash[k]].header, cell);
    }
    CHECK(rs->cpus[0].curr >= 0 && !strcmp(rs->tasks[rs->cpus[0].curr].name, "beta"), "rr state still tracked");
    /* Wake latency is not EEVDF's: the rr trace, with the same wakeups,
     * shows gamma's p50 as the eevdf trace does. */
    char eevdf_p50[64];
    top_cell(s, task(m, "gamma"), TOP_COL_P50, eevdf_p50, sizeof eevdf_p50);
    top_cell(rs, task(r, "gamma"), TOP_COL_P50, cell, sizeof cell);
    CHECK(!strcmp(eevdf_p50, "1.98us") && !strcmp(cell, eevdf_p50), "p50: rr '%s', eevdf '%s', want 1.98us", cell,
          eevdf_p50);
    top_model_close(m);
    top_model_close(r);
}

static void top_table_sort_and_filter(void)
{
    struct top_model *m = open_at(1, 0);
    CHECK(m && update(m, 1 * S) == 0 && update(m, 2 * S) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    int idx[16];
    size_t n = top_visible(s, NULL, idx);
    CHECK(n == 3, "%zu visible, want 3 (idle tasks hidden)", n);
    top_sort(s, idx, n, TOP_COL_TID, false);
    CHECK(s->tasks[idx[0]].tid == 10 && s->tasks[idx[2]].tid == 12, "TID ascending");
    top_sort(s, idx, n, TOP_COL_TID, true);
    CHECK(s->tasks[idx[0]].tid == 12, "TID inverted");
    top_sort(s, idx, n, TOP_COL_PCPU, false);
    CHECK(s->tasks[idx[2]].tid == 12, "gamma (0%%) last by %%CPU");
    top_sort(s, idx, n, TOP_COL_P99, false);
    CHECK(s->tasks[idx[0]].tid == 12, "gamma first by latency");
    n = top_visible(s, "ALP", idx);
    CHECK(n == 1 && s->tasks[idx[0]].tid == 10, "filter by name, any case");
    n = top_visible(s, "11", idx);
    CHECK(n == 1 && s->tasks[idx[0]].tid == 11, "filter by TID");
    n = top_visible(s, "zzz", idx);
    CHECK(n == 0, "filter with no match");
    top_model_close(m);
}

static void top_model_follows_a_growing_recording(void)
{
    /* A recording that grows after the view opened. Its recorder holds
     * the trace's lock, as runq record does (the descriptor before SQLite's
     * and closed after it: db/recorder_lock.h). */
    int lock = recorder_lock_open(dbpath, 1);
    CHECK(lock >= 0, "lock file");
    sqlite3 *w;
    CHECK(sqlite3_open(dbpath, &w) == SQLITE_OK, "writer");
    CHECK(recorder_lock_take(lock, 3) == 0, "recorder lock");
    exec(w, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,features,feature_names,start_ts,end_ts,"
            "records) VALUES(3,'now','recording',1,250,'eevdf',0,'',0,%lld,1)", 10 * MS);
    exec(w, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
            "(31,3,0,'idle/0',0,0,0,1,0),(32,3,5,'late',0,0,0,0,0)");
    struct top_model *m = open_at(0, TOP_T_LIVE);
    CHECK(m, "open newest failed");
    CHECK(top_model_snapshot(m)->h.trace_id == 3, "trace 0 means the newest");
    CHECK(update(m, TOP_T_LIVE) == 0, "update");
    CHECK(task(m, "late")->state == THREAD_UNKNOWN, "nothing known yet");
    exec(w, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,lag,nr_runnable) "
            "VALUES(3,%lld,0,31,32,'idle',0,0,100,0,1)", 20 * MS);
    exec(w, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
            "(33,3,6,'newer',0,0,0,0,%lld)", 20 * MS);
    exec(w, "UPDATE trace SET end_ts=%lld WHERE trace_id=3", 20 * MS);
    CHECK(update(m, TOP_T_LIVE) == 0, "update");
    CHECK(task(m, "late")->state == THREAD_RUNNING, "the new pick is seen");
    CHECK(task(m, "newer") != NULL, "the new thread is seen");
    CHECK(top_model_snapshot(m)->h.now == (uint64_t)(20 * MS), "shown at the newest record");
    CHECK(!strcmp(top_model_snapshot(m)->h.status, "recording"), "status");
    top_model_close(m);
    sqlite3_close(w);
    /* The recorder dies without a word: the row still says 'recording',
     * the view says what the next recorder will store. */
    close(lock);
    CHECK((m = open_at(3, TOP_T_LIVE)), "reopen");
    CHECK(update(m, TOP_T_LIVE) == 0, "update");
    CHECK(!strcmp(top_model_snapshot(m)->h.status, "incomplete") &&
              !strcmp(top_model_snapshot(m)->h.end_reason, "recorder_gone"),
          "a trace whose recorder is gone shown as %s (%s)", top_model_snapshot(m)->h.status,
          top_model_snapshot(m)->h.end_reason);
    top_model_close(m);
}

static void top_model_one_line_errors(void)
{
    char err[256] = "";
    CHECK(!top_model_open("/nonexistent/x.db", 0, 0, err, sizeof err) && strstr(err, "no such database"),
          "missing file: '%s'", err);
    char p[300];
    snprintf(p, sizeof p, "%s.other", dbpath);
    sqlite3 *o;
    sqlite3_open(p, &o);
    exec(o, "CREATE TABLE t(x)");
    sqlite3_close(o);
    err[0] = 0;
    CHECK(!top_model_open(p, 0, 0, err, sizeof err) && strstr(err, "not a runq trace database"),
          "other database: '%s'", err);
    FILE *f = fopen(p, "w");
    fputs("this is not sqlite at all, not even close................................................", f);
    fclose(f);
    err[0] = 0;
    CHECK(!top_model_open(p, 0, 0, err, sizeof err) && strstr(err, "not a runq trace database"),
          "garbage file: '%s'", err);
    CHECK(!strchr(err, '\n'), "one line");
    unlink(p);
    err[0] = 0;
    CHECK(!top_model_open(dbpath, 99, 0, err, sizeof err) && strstr(err, "no trace 99"), "no trace: '%s'", err);
}

/* An action is one line on the recorder's socket. */
static void top_control_sends_one_line(void)
{
    char path[108], err[160] = "", buf[64] = "";
    snprintf(path, sizeof path, "/tmp/top_model_test.%d.sock", (int)getpid());
    unlink(path);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strcpy(a.sun_path, path);
    CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 4) == 0, "listen");
    CHECK(top_control_send(path, "nice 8 3", err, sizeof err) == 0, "send: %s", err);
    int c = accept(l, NULL, NULL);
    ssize_t n = c >= 0 ? read(c, buf, sizeof buf - 1) : -1;
    CHECK(n == 9 && !strcmp(buf, "nice 8 3\n"), "got '%s'", buf);
    close(c);
    close(l);
    unlink(path);
    CHECK(top_control_send(path, "mark x", err, sizeof err) != 0 && *err, "no listener: an error");
    CHECK(top_control_send("", "mark x", err, sizeof err) != 0 && strstr(err, "live recording"), "no socket: '%s'", err);
    CHECK(top_control_send(path, "mark \x01", err, sizeof err) != 0, "control characters refused");
}

/* db/events.c is the one way back from a stored reason to its enum: every
 * name of trace/format.h's tables parses back to its own value ("delayed"
 * and "dequeued" too, which a first letter could not tell apart), and
 * anything else to the kind's _NR. */
static void events_reason_names_parse_back(void)
{
    for (unsigned r = 0; r < TRACE_LEAVE_NR; r++)
        CHECK(event_leave_parse(trace_leave_reason_name(r)) == r, "leave %s", trace_leave_reason_name(r));
    for (unsigned r = 0; r < TRACE_JOIN_NR; r++)
        CHECK(event_join_parse(trace_join_reason_name(r)) == r, "join %s", trace_join_reason_name(r));
    for (unsigned r = 0; r < TRACE_JC_NR; r++)
        CHECK(event_join_check_parse(trace_join_check_name(r)) == r, "check %s", trace_join_check_name(r));
    for (unsigned r = 0; r < TRACE_WHY_NR; r++)
        CHECK(event_why_parse(trace_why_name(r)) == r, "why %s", trace_why_name(r));
    for (unsigned r = 0; r < TRACE_SET_NR; r++)
        CHECK(event_set_parse(trace_set_what_name(r)) == r, "set %s", trace_set_what_name(r));
    CHECK(event_leave_parse("?") == TRACE_LEAVE_NR && event_leave_parse(NULL) == TRACE_LEAVE_NR &&
              event_leave_parse("del") == TRACE_LEAVE_NR,
          "a name that is not a reason parses to TRACE_LEAVE_NR");
    /* what the recorder stores for each (docs/sql.md), and top shows */
    static const char *const want[][2] = {
        [TRACE_LEAVE_BLOCK] = { "S", "S" },  [TRACE_LEAVE_SLEEP] = { "S", "S" },
        [TRACE_LEAVE_YIELD] = { "R", "R" },  [TRACE_LEAVE_PREEMPT] = { "R+", "R+" },
        [TRACE_LEAVE_EXIT] = { "X", "X" },   [TRACE_LEAVE_MIGRATE] = { "R", "R" },
        [TRACE_LEAVE_DELAYED] = { "S", "D" }, [TRACE_LEAVE_DEQUEUED] = { "S", "S" },
        [TRACE_LEAVE_RELEASE] = { "R+", "R+" },
    };
    _Static_assert(sizeof want / sizeof want[0] == TRACE_LEAVE_NR, "a row for every LEAVE reason");
    for (unsigned r = 0; r < sizeof want / sizeof want[0]; r++) {
        enum thread_state st = leave_meaning_of(r)->state;
        CHECK(!strcmp(thread_state_sql_name(st), want[r][0]) && !strcmp(top_state_name(st), want[r][1]),
              "%s: %s / %s", trace_leave_reason_name(r), thread_state_sql_name(st), top_state_name(st));
        /* dequeued and migrate are about a queued task, not the one running */
        CHECK(leave_meaning_of(r)->switched_out == (r != TRACE_LEAVE_DEQUEUED && r != TRACE_LEAVE_MIGRATE),
              "%s switched out?", trace_leave_reason_name(r));
    }
}

/* A lab's moment is a typed query on the events in the kernel's order
 * (labs/engine/lab.c), not a search of their text. Trace 1 (write_trace): c
 * blocks at 0.5 s, the mark phase2 at 1 s, a is preempted at 1.5 s. */
static void events_typed_queries_find_moments(void)
{
    sqlite3 *db;
    CHECK(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "open");
    struct events tr;
    char err[200];
    int ok = events_load(&tr, db, 1, err, sizeof err) == 0;
    sqlite3_close(db);
    CHECK(ok, "events_load: %s", err);
    struct event_query q;
    int at = -1, after = -1, none = 0, bad = 0;
    if (event_query_parse("LEAVE reason=block", &q, err, sizeof err) == 0)
        at = events_find(&tr, 0, &q);
    int mark = events_find_mark(&tr, 0, "phase2");
    if (event_query_parse("leave", &q, err, sizeof err) == 0)
        after = events_find(&tr, mark, &q);
    if (event_query_parse("LEAVE reason=preempt task=gamma", &q, err, sizeof err) == 0)
        none = events_find(&tr, 0, &q);
    bad += event_query_parse("LEAVE reason=bogus", &q, err, sizeof err) != 0;
    bad += event_query_parse("WAKE reason=block", &q, err, sizeof err) != 0; /* a WAKE has no reason */
    bad += event_query_parse("FOO", &q, err, sizeof err) != 0;
    bad += event_query_parse("PICK cpu=x", &q, err, sizeof err) != 0;
    const struct event *b = at >= 0 ? &tr.ev[at] : NULL, *p = after >= 0 ? &tr.ev[after] : NULL;
    const struct event_thread *bt = b ? events_thread(&tr, b->leave.utid) : NULL;
    const struct event_thread *pt = p ? events_thread(&tr, p->leave.utid) : NULL;
    bool block_ok = b && b->kind == EVENT_LEAVE && b->ts == 500 * MS && bt && !strcmp(bt->name, "gamma");
    bool after_ok = mark >= 0 && p && p->ts == 1500 * MS && p->leave.reason == TRACE_LEAVE_PREEMPT && pt &&
                    !strcmp(pt->name, "alpha");
    bool ordered = true;
    for (int i = 1; i < tr.nev; i++) {
        const struct event *x = &tr.ev[i - 1], *y = &tr.ev[i];
        ordered &= x->ts < y->ts || (x->ts == y->ts && (x->cpu < y->cpu || (x->cpu == y->cpu && x->kind <= y->kind)));
    }
    events_free(&tr);
    CHECK(ordered, "events not in the kernel's order");
    CHECK(block_ok, "LEAVE reason=block: event %d", at);
    CHECK(after_ok, "the first leave after mark phase2 (%d): event %d", mark, after);
    CHECK(none == -1, "no leave of gamma is a preemption, found %d", none);
    CHECK(bad == 4, "%d of 4 bad queries refused", bad);
}

static sqlite3 *fixture(void)
{
    if (!fixture_db && sqlite3_open(dbpath, &fixture_db) != SQLITE_OK) {
        fprintf(stderr, "top_model_test: cannot reopen %s\n", dbpath);
        exit(1);
    }
    return fixture_db;
}

/* Trace 10: trace 1 with every virtual time moved by 2^63 - 5 ms, so that
 * V and the vruntimes wrap past INT64_MAX between events: the lags and
 * relative deadlines must be trace 1's, taken modulo 2^64 as the kernel
 * takes them (db/vtime.h). Plain int64 subtraction gets them wrong, and
 * is undefined: the sanitizer build stops on it. */
static void top_model_lag_across_the_wrap(void)
{
    vt_shift = (uint64_t)INT64_MAX - 5 * MS;
    write_trace(fixture(), 10, 1, "complete");
    vt_shift = 0;
    struct top_model *m = open_at(10, 0);
    CHECK(m && update(m, 1500 * MS + 200000) == 0, "open/update failed");
    const struct top_task *a = task(m, "alpha"), *b = task(m, "beta");
    CHECK(a && b, "tasks missing");
    CHECK(a->lag == 5050000 - 5100000, "alpha lag %lld", (long long)a->lag);
    CHECK(a->deadline_rel == 3000000 - 5050000, "alpha deadline %lld", (long long)a->deadline_rel);
    CHECK(b->lag == 5050000 - (4900000 + 200000), "beta lag %lld", (long long)b->lag);
    CHECK(!a->eligible && b->lag == -50000, "eligibility across the wrap");
    top_model_close(m);
}

/* Trace 11, one CPU, as the recorder stores it (events and the slices it
 * derives): a yields at 10 ms, b at 15, a at 20; b is preempted at 25; a
 * blocks at 30 and, woken at once, is picked again (next == prev: its
 * slice goes on); a is preempted at 40, b sleeps at 50, a exits at 60.
 * The kernel counts a 3 voluntary (two yields, the exit) and 1
 * involuntary, b 2 and 1; so must VOL and INVOL, and the view
 * thread_switches. (Counting a yield involuntary, and every block
 * voluntary, shows a 2/2 and b 1/2.) */
static void top_model_switches_counted_as_the_kernel(void)
{
    sqlite3 *db = fixture();
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,start_ts,end_ts,records) "
             "VALUES(11,'now','complete',1,250,'eevdf',0,%lld,30)", 70 * MS);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(111,11,0,'idle/0',0,0,0,1,0),(112,11,5,'a',0,0,0,0,0),(113,11,6,'b',0,0,0,0,0)");
    static const struct {
        int ms, leaver;
        const char *reason;
        int next;
        const char *why, *slice_end; /* the slice the pick closes, or NULL */
    } step[] = {
        { 0, 0, NULL, 112, "idle", NULL },         { 10, 112, "yield", 113, "yield", "R" },
        { 15, 113, "yield", 112, "yield", "R" },   { 20, 112, "yield", 113, "yield", "R" },
        { 25, 113, "preempt", 112, "preempt", "R+" }, { 30, 112, "block", 112, "block", NULL },
        { 40, 112, "preempt", 113, "tick", "R+" }, { 50, 113, "sleep", 112, "block", "S" },
        { 60, 112, "exit", 111, "exit", "X" },
    };
    int curr = 111, since = 0;
    for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
        long long ts = step[i].ms * MS;
        if (step[i].leaver)
            exec(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns) VALUES"
                     "(11,%lld,0,%d,'%s',0,0,0,0)", ts, step[i].leaver, step[i].reason);
        exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,nr_runnable) VALUES"
                 "(11,%lld,0,%d,%d,'%s',0,2)", ts, curr, step[i].next, step[i].why);
        if (step[i].slice_end) {
            exec(db, "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_state,end_reason) VALUES"
                     "(11,%lld,%lld,0,%d,'%s','%s')", since * MS, (step[i].ms - since) * MS, curr, step[i].slice_end,
                 step[i].reason);
            since = step[i].ms;
        }
        curr = step[i].next;
    }
    struct top_model *m = open_at(11, 0);
    CHECK(m && update(m, 70 * MS) == 0, "open/update failed");
    const struct top_task *a = task(m, "a"), *b = task(m, "b");
    CHECK(a && b, "tasks missing");
    CHECK(a->vol == 3 && a->invol == 1 && b->vol == 2 && b->invol == 1, "VOL/INVOL a %llu/%llu b %llu/%llu, want 3/1 2/1",
          (unsigned long long)a->vol, (unsigned long long)a->invol, (unsigned long long)b->vol,
          (unsigned long long)b->invol);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT name, voluntary, involuntary FROM thread_switches WHERE trace_id = 11 "
                                 "AND NOT name LIKE 'idle%' ORDER BY name", -1, &st, NULL) == SQLITE_OK,
          "the view: %s", sqlite3_errmsg(db));
    for (int k = 0; k < 2; k++) {
        const struct top_task *t = k ? b : a;
        int row = sqlite3_step(st);
        CHECK(row == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), t->name) &&
                  (uint64_t)sqlite3_column_int64(st, 1) == t->vol && (uint64_t)sqlite3_column_int64(st, 2) == t->invol,
              "view and top differ for %s: view %lld/%lld", t->name, row == SQLITE_ROW ? sqlite3_column_int64(st, 1) : -1,
              row == SQLITE_ROW ? sqlite3_column_int64(st, 2) : -1);
    }
    sqlite3_finalize(st);
    top_model_close(m);
}

/* Trace 12: one slice a task for every LEAVE reason of trace/format.h,
 * and for the ends no LEAVE says (switch, gap, trace_end). The view
 * thread_switches classes each as db/events.c's leave_meaning does (what
 * runq top counts by): the two hold one rule in two languages. A reason
 * added to format.h, or moved in either, fails here. */
static void the_view_classes_every_leave_reason_as_leave_meaning(void)
{
    sqlite3 *db = fixture();
    exec(db, "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,start_ts,end_ts,records) "
             "VALUES(12,'now','complete',1,250,'eevdf',0,%lld,30)", 100 * MS);
    const char *other[] = { "switch", "gap", "trace_end" };
    int n = TRACE_LEAVE_NR + 3;
    for (int r = 0; r < n; r++) {
        const char *why = r < TRACE_LEAVE_NR ? trace_leave_reason_name((unsigned)r) : other[r - TRACE_LEAVE_NR];
        exec(db, "INSERT INTO thread(utid,trace_id,tid,name,cpu,is_idle,start_ts) VALUES(%d,12,%d,'%s',0,0,0)",
             1200 + r, 10 + r, why);
        exec(db, "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_reason) VALUES(12,%d,1,0,%d,'%s')", r, 1200 + r,
             why);
    }
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT voluntary, involuntary FROM thread_switches WHERE utid = ?", -1, &st, NULL) ==
              SQLITE_OK,
          "the view: %s", sqlite3_errmsg(db));
    for (int r = 0; r < n; r++) {
        sqlite3_bind_int(st, 1, 1200 + r);
        CHECK(sqlite3_step(st) == SQLITE_ROW, "no row for reason %d", r);
        int vol = sqlite3_column_int(st, 0), invol = sqlite3_column_int(st, 1);
        sqlite3_reset(st);
        const struct leave_meaning *lm = r < TRACE_LEAVE_NR ? leave_meaning_of((unsigned)r) : NULL;
        int want_invol = lm && lm->switched_out && lm->involuntary, want_vol = lm && lm->switched_out && !lm->involuntary;
        CHECK(vol == want_vol && invol == want_invol, "a slice ended '%s': the view says %d voluntary, %d involuntary; "
              "leave_meaning %d and %d", r < TRACE_LEAVE_NR ? trace_leave_reason_name((unsigned)r) : other[r - TRACE_LEAVE_NR],
              vol, invol, want_vol, want_invol);
    }
    sqlite3_finalize(st);
}

/* Trace 13: the bounce -> run population and the knobs (trace format
 * 4). gamma is bounced three times (10 us, 20 us, 2 ms; a fourth never
 * seen to run), beside its three wakeups; replace_on_release is on from
 * the start and off at 1 s. A view started at 1.5 s still knows the RT
 * budget, which the kernel stated once, at 0. */
static void top_model_bounces_and_knobs(void)
{
    sqlite3 *db = fixture();
    write_trace(db, 13, 1, "complete");
    int g = 135; /* gamma's utid in trace 13 */
    exec(db, "INSERT INTO bounce(trace_id,utid,ts_bounce,ts_run,latency,cpu,run_cpu,by_class) VALUES"
             "(13,%d,%lld,%lld,10000,1,1,'rt'),(13,%d,%lld,%lld,20000,1,0,'rt'),(13,%d,%lld,%lld,2000000,1,1,'rt'),"
             "(13,%d,%lld,NULL,NULL,1,NULL,'rt')",
         g, 400 * MS, 400 * MS + 10000, g, 600 * MS, 600 * MS + 20000, g, 700 * MS, 702 * MS, g, 1900 * MS);
    exec(db, "INSERT INTO sched_set(trace_id,ts,utid,what,name,old_value,new_value) VALUES"
             "(13,0,NULL,'knob','replace_on_release',1,1),(13,0,NULL,'knob','rt_runtime_us',950000,950000),"
             "(13,0,NULL,'knob','rt_period_us',1000000,1000000),(13,%lld,NULL,'knob','replace_on_release',1,0)",
         1 * S);
    struct top_model *m = open_at(13, 0);
    CHECK(m && update(m, 800 * MS) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    const struct top_task *c = task(m, "gamma");
    int64_t v = -1;
    CHECK(c->bnc_n == 3 && c->bnc_max == 2000000 && c->bnc_p99 == 2000000 && c->lat_n == 3,
          "bounces %llu, max %llu, p99 %llu; wakeups %llu", (unsigned long long)c->bnc_n,
          (unsigned long long)c->bnc_max, (unsigned long long)c->bnc_p99, (unsigned long long)c->lat_n);
    char cell[16];
    top_cell(s, c, TOP_COL_BNC, cell, sizeof cell);
    CHECK(!strcmp(cell, "3"), "BOUNCE shows '%s'", cell);
    top_cell(s, task(m, "alpha"), TOP_COL_B99, cell, sizeof cell);
    CHECK(!strcmp(cell, "-"), "BNC99 of a task never bounced shows '%s'", cell);
    CHECK(top_knob(&s->h, "replace_on_release", &v) && v == 1, "replace_on_release at 0.8 s: %lld", (long long)v);
    CHECK(update(m, 1200 * MS) == 0, "update failed");
    CHECK(top_knob(&s->h, "replace_on_release", &v) && v == 0, "replace_on_release at 1.2 s: %lld", (long long)v);
    top_model_close(m);
    m = open_at(13, 1500 * MS);
    CHECK(m && update(m, 1600 * MS) == 0, "open/update at 1.5 s failed");
    s = top_model_snapshot(m);
    CHECK(top_knob(&s->h, "rt_runtime_us", &v) && v == 950000 && top_knob(&s->h, "replace_on_release", &v) && v == 0,
          "knobs of a view started at 1.5 s: %d known", s->h.nknobs);
    top_model_close(m);
}

/* Trace 23: three CPUs for 3 s, moves as runq's kernel records them
 * (format 5: a migration row, the LEAVE `migrate` of a queued mover on
 * its source, its JOIN `migrate` on the destination):
 *   0.5 s  c 2 -> 0 rt_release   (before the window)
 *   1.2 s  a 0 -> 1 newidle      (queued)
 *   1.4 s  b 0 -> 2 periodic     (queued)
 *   1.6 s  a 1 -> 2 wake_affine  (waking: only the JOIN)
 *   1.8 s  c 0 -> 1 unknown      (a rule the trace could not tell)
 * Over 1..2 s: CPU 0 in 0 out 3, CPU 1 in 2 out 1, CPU 2 in 2 out 0 a
 * second. Trace 24: the same workload recorded without moves (format
 * 4): not known. Trace 25, Linux's (no format version) with one move
 * row: known. */
static void move_rows(sqlite3 *db, int id, long long ts, int u, int src, int dst, const char *why, int queued)
{
    exec(db, "INSERT INTO migration(trace_id,ts,utid,src_cpu,dst_cpu,reason,queued) VALUES(%d,%lld,%d,%d,%d,'%s',%d)",
         id, ts, u, src, dst, why, queued);
    if (queued)
        exec(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,run_ns) VALUES(%d,%lld,%d,%d,'migrate',0)", id,
             ts, src, u);
    exec(db, "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,weight,nr_runnable) VALUES(%d,%lld,%d,%d,'migrate',"
             "1024,2)", id, ts, dst, u);
}

/* u leaves CPU cpu at ts (why) and next is picked there. */
static void switch_out(sqlite3 *db, int id, long long ts, int cpu, int u, const char *why, int next)
{
    exec(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,run_ns) VALUES(%d,%lld,%d,%d,'%s',0)", id, ts, cpu, u,
         why);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
             "(%d,%lld,%d,%d,%d,'block',0)", id, ts, cpu, u, next);
}

static void moves_trace(sqlite3 *db, int id, int format, const char *engine)
{
    int u = id * 10;
    exec(db, "INSERT INTO trace(trace_id,created,status,format_version,ncpus,tick_hz,policy,start_ts,end_ts,records,"
             "engine) VALUES(%d,'now','complete',NULLIF(%d,0),3,250,'rr',0,%lld,100,'%s')",
         id, format, 3 * S, engine);
    exec(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) VALUES"
             "(%d,%d,0,'idle/0',0,0,0,1,0),(%d,%d,1,'idle/1',0,0,1,1,0),(%d,%d,2,'idle/2',0,0,2,1,0),"
             "(%d,%d,5,'a',0,0,0,0,0),(%d,%d,6,'b',0,0,0,0,0),(%d,%d,7,'c',0,0,2,0,0),(%d,%d,8,'d',0,0,0,0,0)",
         u + 1, id, u + 2, id, u + 3, id, u + 4, id, u + 5, id, u + 6, id, u + 7, id);
    /* d runs on CPU 0 throughout, a and b queued behind it; c runs on CPU 2 */
    exec(db, "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,weight,nr_runnable) VALUES"
             "(%d,0,0,%d,'new',1024,1),(%d,0,0,%d,'new',1024,2),(%d,0,0,%d,'new',1024,3),(%d,0,2,%d,'new',1024,1)",
         id, u + 7, id, u + 4, id, u + 5, id, u + 6);
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
             "(%d,0,0,%d,%d,'idle',3),(%d,0,2,%d,%d,'idle',1)", id, u + 1, u + 7, id, u + 3, u + 6);
}

static void top_model_moves_a_second_on_each_cpu(void)
{
    sqlite3 *db = fixture();
    moves_trace(db, 23, 5, "runq-kernel");
    int u = 230;
    /* c, running on CPU 2, is released by a higher class at 0.5 s and
     * sent to CPU 0's queue */
    switch_out(db, 23, 500 * MS, 2, u + 6, "release", u + 3);
    move_rows(db, 23, 500 * MS, u + 6, 2, 0, "rt_release", 1);
    move_rows(db, 23, 1200 * MS, u + 4, 0, 1, "newidle", 1);
    move_rows(db, 23, 1400 * MS, u + 5, 0, 2, "periodic", 1);
    /* a sleeps on CPU 1 and is woken onto CPU 2 */
    exec(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,nr_runnable) VALUES"
             "(23,%lld,1,%d,%d,'idle',1)", 1300 * MS, u + 2, u + 4);
    switch_out(db, 23, 1500 * MS, 1, u + 4, "sleep", u + 2);
    move_rows(db, 23, 1600 * MS, u + 4, 1, 2, "wake_affine", 0);
    move_rows(db, 23, 1800 * MS, u + 6, 0, 1, "unknown", 1);

    struct top_model *m = open_at(23, 0);
    CHECK(m && update(m, 1 * S) == 0, "open/update failed");
    const struct top_snapshot *s = top_model_snapshot(m);
    CHECK(s->h.moves_known, "a format 5 trace records its moves");
    /* where a task is follows its move at once, before it runs there */
    CHECK(update(m, 1200 * MS) == 0, "update failed");
    CHECK(task(m, "a")->cpu == 1 && task(m, "a")->state == THREAD_RUNNABLE, "a at 1.2 s: CPU %d, %s",
          task(m, "a")->cpu, top_state_name(task(m, "a")->state));
    CHECK(update(m, 2 * S) == 0, "update failed");
    static const double in[3] = { 0, 2, 2 }, out[3] = { 3, 1, 0 };
    for (int c = 0; c < 3; c++)
        CHECK(s->cpus[c].moves_in_per_s == in[c] && s->cpus[c].moves_out_per_s == out[c],
              "CPU %d moves/s in %.3f out %.3f, want %.0f %.0f", c, s->cpus[c].moves_in_per_s,
              s->cpus[c].moves_out_per_s, in[c], out[c]);
    CHECK(s->cpus[0].moves_in == 1 && s->cpus[2].moves_out == 1, "since the view began: CPU 0 in %llu, CPU 2 out %llu",
          (unsigned long long)s->cpus[0].moves_in, (unsigned long long)s->cpus[2].moves_out);
    const struct top_task *a = task(m, "a"), *b = task(m, "b"), *c = task(m, "c");
    CHECK(a->cpu == 2 && b->cpu == 2 && c->cpu == 1, "CPUs a %d b %d c %d, want 2 2 1", a->cpu, b->cpu, c->cpu);
    char cell[32];
    static const struct {
        const char *task, *at2, *at25;
    } want[] = { { "a", "wake_aff", "wake_aff" }, { "b", "periodic", "-" }, { "c", "unknown", "unknown" },
                 { "d", "-", "-" } };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        top_cell(s, task(m, want[k].task), TOP_COL_MOVED, cell, sizeof cell);
        CHECK(!strcmp(cell, want[k].at2), "%s's MOVED at 2 s: '%s', want '%s'", want[k].task, cell, want[k].at2);
    }
    CHECK(a->moves == 2 && a->move_src == 1, "a moved %llu times, last from %d", (unsigned long long)a->moves,
          a->move_src);
    CHECK(update(m, 2500 * MS) == 0, "update failed");
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        top_cell(s, task(m, want[k].task), TOP_COL_MOVED, cell, sizeof cell);
        CHECK(!strcmp(cell, want[k].at25), "%s's MOVED at 2.5 s: '%s', want '%s'", want[k].task, cell,
              want[k].at25);
    }
    /* sorted by MOVED: the latest move first */
    int idx[16];
    size_t n = top_visible(s, NULL, idx);
    top_sort(s, idx, n, TOP_COL_MOVED, false);
    CHECK(n == 4 && !strcmp(s->tasks[idx[0]].name, "c") && !strcmp(s->tasks[idx[1]].name, "a"),
          "MOVED sorts %s, %s first", n ? s->tasks[idx[0]].name : "-", n > 1 ? s->tasks[idx[1]].name : "-");
    top_model_close(m);

    /* a view that starts at 1.5 s counts from there */
    CHECK((m = open_at(23, 1500 * MS)) && update(m, 2 * S) == 0, "open at 1.5 s failed");
    s = top_model_snapshot(m);
    CHECK(s->cpus[0].moves_out == 1 && s->cpus[2].moves_in == 1 && s->cpus[1].moves_in == 1,
          "from 1.5 s: CPU 0 out %llu, CPU 2 in %llu, CPU 1 in %llu", (unsigned long long)s->cpus[0].moves_out,
          (unsigned long long)s->cpus[2].moves_in, (unsigned long long)s->cpus[1].moves_in);
    top_model_close(m);

    moves_trace(db, 24, 4, "runq-kernel");
    CHECK((m = open_at(24, 0)) && update(m, 2 * S) == 0, "open trace 24 failed");
    CHECK(!top_model_snapshot(m)->h.moves_known, "a format 4 trace's moves are not known");
    top_model_close(m);
    moves_trace(db, 25, 0, "linux");
    move_rows(db, 25, 1200 * MS, 254, 0, 1, "unknown", 1);
    CHECK((m = open_at(25, 0)) && update(m, 1 * S) == 0 && update(m, 2 * S) == 0, "open trace 25 failed");
    s = top_model_snapshot(m);
    CHECK(s->h.moves_known && s->cpus[1].moves_in_per_s == 1, "a Linux trace with a move row: known %d, CPU 1 in %.3f",
          s->h.moves_known, s->cpus[1].moves_in_per_s);
    top_model_close(m);
}


/* ---- the trace state, in either order ---- */

/*
 * A scheduler on two CPUs as its trace records it, made up as it goes:
 * wakeups (a JOIN, and a preemption by it: LEAVE, PICK at the same
 * time), blocks (some delayed, dequeued later), preemptions, migrations
 * (LEAVE, JOIN), ticks and keyframes, some records without their
 * numbers (a Linux trace's lost samples). The recording begins mid-run:
 * a keyframe of each CPU first, no JOIN for what it lists. Rows are
 * events, a keyframe row each; kf[i] is row i's entry.
 */
#define GEN_ROWS 4000
#define GEN_TASKS 8 /* utids 1, 2: the CPUs' idle tasks */
struct gen {
    struct event ev[GEN_ROWS];
    struct event_kf_entry kf[GEN_ROWS];
    int n;
    uint64_t rng, ts;
    int64_t v[2];
    int curr[2], q[2][GEN_TASKS], nq[2];
    bool asleep[GEN_TASKS + 1], delayed[GEN_TASKS + 1];
};

static unsigned gen_rand(struct gen *g, unsigned n)
{
    g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(g->rng >> 33) % n;
}

/* A row at the current time; numbers: it carries V and the task's. */
static struct event *gen_row(struct gen *g, enum event_kind k, int cpu, bool numbers)
{
    struct event *e = &g->ev[g->n++];
    memset(e, 0, sizeof *e);
    e->ts = (int64_t)g->ts;
    e->kind = k;
    e->cpu = cpu;
    e->has_v = e->has_eevdf = numbers;
    g->v[cpu] += 1000;
    e->v = g->v[cpu];
    return e;
}

static void gen_keyframe(struct gen *g, int cpu)
{
    int rows[GEN_TASKS + 1], n = 0;
    rows[n++] = g->curr[cpu];
    for (int i = 0; i < g->nq[cpu]; i++)
        rows[n++] = g->q[cpu][i];
    for (int i = 0; i < n; i++) {
        struct event *e = gen_row(g, EVENT_KEYFRAME, cpu, true);
        e->v = g->v[cpu] - 1000 * i; /* one V for the whole keyframe */
        g->v[cpu] = e->v;
        int u = rows[i];
        g->kf[g->n - 1] = (struct event_kf_entry){ .utid = u, .current = i == 0, .delayed = g->delayed[u],
                                                   .has_eevdf = u > 2, .has_weight = u > 2, .weight = 100 * u,
                                                   .vruntime = g->v[cpu] - 7 * u, .deadline = g->v[cpu] + 9 * u,
                                                   .lag = 7 * u };
    }
}

/* cpu's next task: its queue's head (not a delayed one), else idle. */
static void gen_pick(struct gen *g, int cpu, int why)
{
    int next = cpu + 1;
    for (int i = 0; i < g->nq[cpu]; i++)
        if (!g->delayed[g->q[cpu][i]]) {
            next = g->q[cpu][i];
            g->q[cpu][i] = g->q[cpu][--g->nq[cpu]];
            break;
        }
    struct event *e = gen_row(g, EVENT_PICK, cpu, gen_rand(g, 10) != 0);
    e->pick.next = next;
    e->pick.prev = g->curr[cpu];
    e->pick.why = (enum trace_pick_why)why;
    e->pick.nr_runnable = g->nq[cpu] + 1;
    e->pick.vruntime = e->v - 5;
    e->pick.deadline = e->v + 50;
    g->curr[cpu] = next;
}

static void gen_leave(struct gen *g, int cpu, int u, enum trace_leave_reason why)
{
    struct event *e = gen_row(g, EVENT_LEAVE, cpu, gen_rand(g, 10) != 0);
    e->has_v = false; /* runq top's model reads no V of a LEAVE */
    e->leave.utid = u;
    e->leave.reason = why;
    e->leave.has_deadline = true;
    e->leave.vruntime = e->v + u;
    e->leave.lag = -u;
    e->leave.deadline = e->v + 70;
}

static void gen_join(struct gen *g, int cpu, int u, enum trace_join_reason why)
{
    struct event *e = gen_row(g, EVENT_JOIN, cpu, gen_rand(g, 10) != 0);
    e->join.utid = u;
    e->join.reason = why;
    e->join.nr_runnable = g->nq[cpu] + 2;
    e->join.weight = 50 * u;
    e->join.vruntime = e->v - 3 * u;
    e->join.deadline = e->v + 30 * u;
    g->q[cpu][g->nq[cpu]++] = u;
    g->delayed[u] = false;
}

static void gen_trace(struct gen *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->rng = seed;
    g->ts = 1000;
    /* mid-run: tasks 3..8 queued or running, in no JOIN */
    for (int u = 3; u <= GEN_TASKS; u++)
        g->q[u % 2][g->nq[u % 2]++] = u;
    for (int c = 0; c < 2; c++) {
        g->curr[c] = g->q[c][--g->nq[c]];
        gen_keyframe(g, c);
    }
    while (g->n < GEN_ROWS - 3 * GEN_TASKS) {
        int c = (int)gen_rand(g, 2), cur = g->curr[c], u = 3 + (int)gen_rand(g, GEN_TASKS - 2);
        bool idle = cur <= 2;
        unsigned what = gen_rand(g, 8);
        /* One decision's records share a time, and the keyframe the
         * kernel writes after one may (tstate.h's ranks); two decisions
         * never do. */
        if (what < 6 || gen_rand(g, 2))
            g->ts += 1 + gen_rand(g, 2000);
        switch (what) {
        case 0: { /* a tick */
            struct event *e = gen_row(g, EVENT_TICK, c, true);
            e->tick.utid = cur;
            e->tick.nr_runnable = g->nq[c] + !idle;
            break;
        }
        case 1: /* a wakeup, preempting when the CPU idles or now and then */
            if (!g->asleep[u])
                break;
            g->asleep[u] = false;
            gen_join(g, c, u, TRACE_JOIN_WAKE);
            if (idle || gen_rand(g, 2)) {
                if (!idle) {
                    gen_leave(g, c, cur, TRACE_LEAVE_PREEMPT);
                    g->q[c][g->nq[c]++] = cur;
                }
                gen_pick(g, c, TRACE_WHY_PREEMPT);
            }
            break;
        case 2: /* current blocks, delayed now and then (stays queued) */
            if (idle)
                break;
            if (gen_rand(g, 3) == 0) {
                gen_leave(g, c, cur, TRACE_LEAVE_DELAYED);
                g->delayed[cur] = true;
                g->q[c][g->nq[c]++] = cur;
            } else {
                gen_leave(g, c, cur, TRACE_LEAVE_BLOCK);
                g->asleep[cur] = true;
            }
            gen_pick(g, c, TRACE_WHY_BLOCK);
            break;
        case 3: /* preempted by the head of the queue */
            if (idle || !g->nq[c])
                break;
            gen_leave(g, c, cur, TRACE_LEAVE_PREEMPT);
            g->q[c][g->nq[c]++] = cur;
            gen_pick(g, c, TRACE_WHY_TICK);
            break;
        case 4: /* a queued task moves to the other CPU */
            for (int i = 0; i < g->nq[c]; i++)
                if (!g->delayed[g->q[c][i]]) {
                    int m = g->q[c][i];
                    g->q[c][i] = g->q[c][--g->nq[c]];
                    gen_leave(g, c, m, TRACE_LEAVE_MIGRATE);
                    gen_join(g, 1 - c, m, TRACE_JOIN_MIGRATE);
                    break;
                }
            break;
        case 5: /* a delayed task's lag is paid: off the queue */
            for (int i = 0; i < g->nq[c]; i++)
                if (g->delayed[g->q[c][i]]) {
                    int m = g->q[c][i];
                    g->q[c][i] = g->q[c][--g->nq[c]];
                    g->delayed[m] = false;
                    g->asleep[m] = true;
                    gen_leave(g, c, m, TRACE_LEAVE_DEQUEUED);
                    break;
                }
            break;
        default: /* a keyframe, after the decision at its time or on its own */
            gen_keyframe(g, c);
            break;
        }
    }
}

/* What out of order keeps as in order (db/tstate.h): each task's state,
 * CPU, numbers and place, each CPU's V, count and named task. "" when a
 * and b agree, else the first difference. */
static const char *tstate_differ(const struct tstate *a, const struct tstate *b, char *buf, size_t n)
{
    for (int c = 0; c < a->ncpus; c++) {
        const struct tstate_cpu *x = &a->cpu[c], *y = &b->cpu[c];
        if (x->has_v != y->has_v || (x->has_v && x->v != y->v) || x->has_nr != y->has_nr ||
            (x->has_nr && x->nr_runnable != y->nr_runnable) || x->named != y->named) {
            snprintf(buf, n, "cpu%d: V %d/%lld vs %d/%lld, nr %d/%d vs %d/%d, named %lld vs %lld", c, x->has_v,
                     (long long)x->v, y->has_v, (long long)y->v, x->has_nr, x->nr_runnable, y->has_nr,
                     y->nr_runnable, (long long)x->named, (long long)y->named);
            return buf;
        }
    }
    for (int i = 0; i < a->ntask; i++) {
        const struct tstate_task *x = &a->task[i], *y = &b->task[i];
        if (x->state != y->state || x->cpu != y->cpu || x->on != y->on || (x->on >= 0 && x->delayed != y->delayed) ||
            x->has_vruntime != y->has_vruntime || (x->has_vruntime && x->vruntime != y->vruntime) ||
            x->has_deadline != y->has_deadline || (x->has_deadline && x->deadline != y->deadline) ||
            x->weight != y->weight || x->weight_known != y->weight_known || x->lag != y->lag) {
            snprintf(buf, n,
                     "utid %lld: state %d/%d cpu %d/%d on %d/%d delayed %d/%d vruntime %d:%lld/%d:%lld "
                     "deadline %d:%lld/%d:%lld weight %lld/%lld lag %lld/%lld",
                     (long long)a->ids->utid[i], x->state, y->state, x->cpu, y->cpu, x->on, y->on, x->delayed,
                     y->delayed, x->has_vruntime, (long long)x->vruntime, y->has_vruntime, (long long)y->vruntime,
                     x->has_deadline, (long long)x->deadline, y->has_deadline, (long long)y->deadline,
                     (long long)x->weight, (long long)y->weight, (long long)x->lag, (long long)y->lag);
            return buf;
        }
    }
    return "";
}

/* The rows [from, to) of a trace as `runq top` reads an update of them:
 * table by table (db/qx_top.c: places, ticks, leaves, picks, keyframes),
 * each in time order. */
static void apply_as_top(struct tstate *st, const struct gen *g, int from, int to)
{
    static const enum event_kind tables[] = { EVENT_JOIN, EVENT_TICK, EVENT_LEAVE, EVENT_PICK, EVENT_KEYFRAME };
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
        for (int i = from; i < to; i++)
            if (g->ev[i].kind == tables[k])
                tstate_apply(st, &g->ev[i], &g->kf[i]);
}

/* One model, either order: a replay applies a trace's events in time
 * order, `runq top` an update's rows table by table; at the end of each
 * of top's updates the two states agree on all that order does not
 * decide (db/tstate.h), and so does the state of rows in time order read
 * as top reads (TSTATE_ANY_ORDER). Three seeds, updates of random size. */
static void trace_state_is_the_same_in_either_order(void)
{
    static struct gen g;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        gen_trace(&g, seed);
        struct tstate_ids ids = { 0 };
        for (int u = 1; u <= GEN_TASKS; u++)
            CHECK(tstate_ids_add(&ids, u, u <= 2) == u - 1, "ids");
        struct tstate in, any, top;
        CHECK(tstate_init(&in, &ids, 2, TSTATE_IN_ORDER) == 0 && tstate_init(&any, &ids, 2, TSTATE_ANY_ORDER) == 0 &&
                  tstate_init(&top, &ids, 2, TSTATE_ANY_ORDER) == 0,
              "out of memory");
        struct tstate *all[] = { &in, &any, &top };
        for (int k = 0; k < 3; k++)
            all[k]->eevdf = all[k]->counts = all[k]->has_numbers = true;
        int from = 0, updates = 0;
        char why[512], differ[640] = "";
        while (from < g.n && !differ[0]) {
            /* an update reads up to a time: never half of one instant */
            int to = from + 1 + (int)gen_rand(&g, 200);
            while (to < g.n && g.ev[to].ts == g.ev[to - 1].ts)
                to++;
            if (to > g.n)
                to = g.n;
            for (int i = from; i < to; i++) {
                tstate_apply(&in, &g.ev[i], &g.kf[i]);
                tstate_apply(&any, &g.ev[i], &g.kf[i]);
            }
            apply_as_top(&top, &g, from, to);
            updates++;
            if (*tstate_differ(&in, &any, why, sizeof why))
                snprintf(differ, sizeof differ, "in order vs as it comes: %s", why);
            else if (*tstate_differ(&any, &top, why, sizeof why))
                snprintf(differ, sizeof differ, "in time order vs as runq top reads: %s", why);
            from = to;
        }
        for (int k = 0; k < 3; k++)
            tstate_free(all[k]);
        tstate_ids_free(&ids);
        CHECK(!differ[0], "seed %llu, update %d (rows to %d), %s", (unsigned long long)seed, updates, from, differ);
        CHECK(updates > 20, "only %d updates", updates);
    }
}

/* tstate_forget, the Linux recorder's gap rule: what a task does is not
 * known from then, its place and numbers stay; a dead task stays dead.
 * On a generated trace applied in order: the first task seen queued or
 * running is forgotten, then a dead one. */
static void trace_state_forgets_a_task_it_lost(void)
{
    static struct gen g;
    gen_trace(&g, 1);
    struct tstate_ids ids = { 0 };
    for (int u = 1; u <= GEN_TASKS; u++)
        CHECK(tstate_ids_add(&ids, u, u <= 2) == u - 1, "ids");
    struct tstate st;
    CHECK(tstate_init(&st, &ids, 2, TSTATE_IN_ORDER) == 0, "out of memory");
    st.eevdf = st.counts = st.has_numbers = true;
    int forgotten = -1;
    for (int i = 0; i < g.n && forgotten < 0; i++) {
        tstate_apply(&st, &g.ev[i], &g.kf[i]);
        for (int k = 2; k < GEN_TASKS && forgotten < 0; k++) /* not an idle task */
            if (st.task[k].state == THREAD_RUNNABLE && st.task[k].has_vruntime)
                forgotten = k;
    }
    CHECK(forgotten >= 0, "no task was ever queued with a vruntime");
    if (forgotten >= 0) {
        struct tstate_task before = st.task[forgotten];
        tstate_forget(&st, ids.utid[forgotten]);
        const struct tstate_task *t = &st.task[forgotten];
        CHECK(t->state == THREAD_UNKNOWN, "state %d after forget, want unknown", t->state);
        CHECK(t->on == before.on && t->cpu == before.cpu && t->vruntime == before.vruntime &&
                  t->has_vruntime == before.has_vruntime,
              "its place or numbers moved: on %d -> %d, cpu %d -> %d", before.on, t->on, before.cpu, t->cpu);
        st.task[forgotten].state = THREAD_DEAD;
        tstate_forget(&st, ids.utid[forgotten]);
        CHECK(st.task[forgotten].state == THREAD_DEAD, "a dead task came back as %d", st.task[forgotten].state);
    }
    tstate_free(&st);
    tstate_ids_free(&ids);
}

/* docs/step.md's list of keys is step.h's table of commands: each row
 * of its Keys table, in order, a row of STEP_COMMANDS (its keys, its
 * --plain command), and no other. */
static void step_keys_doc_matches_the_command_table(void)
{
    static const struct {
        char word;
        int key, key2;
        const char *syntax;
    } rows[] = {
#define ROW(word, key, key2, arg, syntax, prompt, label, keep, help, act) { word, key, key2, syntax },
        STEP_COMMANDS(ROW)
#undef ROW
    };
    FILE *f = fopen("docs/step.md", "r");
    CHECK(f, "docs/step.md: cannot open (run from the top of the tree)");
    char line[1024];
    bool in_keys = false;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## ", 3)) {
            in_keys = !strcmp(line, "## Keys\n");
            continue;
        }
        if (!in_keys || strncmp(line, "| `", 3))
            continue;
        /* | KEYS | PLAIN COMMAND | does | : the first two cells, trimmed */
        char *cell[2], *at = line + 1;
        for (int k = 0; k < 2; k++) {
            char *bar = strchr(at, '|');
            CHECK(bar, "a Keys row without its columns: %s", line);
            *bar = 0;
            while (*at == ' ')
                at++;
            for (char *e = bar; e > at && e[-1] == ' ';)
                *--e = 0;
            cell[k] = at;
            at = bar + 1;
        }
        const char *keys = cell[0], *plain = cell[1];
        char want_keys[128], want_plain[64] = "";
        CHECK(n < sizeof rows / sizeof rows[0], "docs/step.md lists keys the table has not: `%s`", keys);
        step_keys_text(want_keys, sizeof want_keys, rows[n].word, rows[n].key, rows[n].key2, "`");
        if (rows[n].syntax)
            snprintf(want_plain, sizeof want_plain, "`%s`", rows[n].syntax);
        CHECK(!strcmp(keys, want_keys) && !strcmp(plain, want_plain),
              "Keys row %zu is '%s' | '%s', the table's '%s' | '%s'", n + 1, keys, plain, want_keys, want_plain);
        n++;
    }
    fclose(f);
    CHECK(n == sizeof rows / sizeof rows[0], "docs/step.md lists %zu rows of keys, the table has %zu", n,
          sizeof rows / sizeof rows[0]);
}

/* In this order: the last six add the newest traces. */
static const struct harness_test tests[] = {
    HARNESS_TEST(events_reason_names_parse_back),
    HARNESS_TEST(events_typed_queries_find_moments),
    HARNESS_TEST(top_model_state_lag_deadline_eligibility),
    HARNESS_TEST(top_model_cpu_share_util_switch_rates),
    HARNESS_TEST(top_model_wake_latency_percentiles),
    HARNESS_TEST(top_model_histogram_within_1_16),
    HARNESS_TEST(top_model_replay_nice_and_features_as_of_time),
    HARNESS_TEST(top_model_timeline_codes_and_idle),
    HARNESS_TEST(top_table_eevdf_cells_and_rr_dashes),
    HARNESS_TEST(top_table_sort_and_filter),
    HARNESS_TEST(top_model_follows_a_growing_recording),
    HARNESS_TEST(top_model_one_line_errors),
    HARNESS_TEST(top_control_sends_one_line),
    HARNESS_TEST(top_model_gap_ends_the_stint),
    HARNESS_TEST(top_model_trace_share_of_each_cpu),
    HARNESS_TEST(top_model_deadline_survives_a_later_leave),
    HARNESS_TEST(top_model_view_started_late_knows_each_cpu),
    HARNESS_TEST(top_model_lag_across_the_wrap),
    HARNESS_TEST(top_model_switches_counted_as_the_kernel),
    HARNESS_TEST(the_view_classes_every_leave_reason_as_leave_meaning),
    HARNESS_TEST(top_model_bounces_and_knobs),
    HARNESS_TEST(top_model_moves_a_second_on_each_cpu),
    HARNESS_TEST(trace_state_is_the_same_in_either_order),
    HARNESS_TEST(trace_state_forgets_a_task_it_lost),
    HARNESS_TEST(step_keys_doc_matches_the_command_table),
};

int main(int argc, char **argv)
{
    sqlite3 *db = make_db();
    write_trace(db, 1, 1, "complete");
    write_trace(db, 2, 0, "complete");
    exec(db, "UPDATE thread SET nice=5 WHERE name='beta'");
    sqlite3_close(db);

    int rc = harness_main(argc, argv, tests, HARNESS_COUNT(tests));
    if (fixture_db)
        sqlite3_close(fixture_db);
    db_remove(dbpath);
    return rc;
}
