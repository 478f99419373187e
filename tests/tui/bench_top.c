/*
 * bench_top: how long a `runq top` refresh takes on a big machine's trace.
 * Writes a synthetic trace (NTASKS tasks on NCPUS CPUs, RATE events a
 * second of trace time: picks, joins, leaves, slices, wakeups, ticks) into
 * the real schema, then follows it the way the view does at its default
 * refresh: every 250 ms of trace time, top_model_update plus the table's
 * filter and sort. Prints one line per setting. Run by tests/tui/bench_top.sh.
 * With BENCH_SHORT set in the environment (tests/benches_short.sh) only
 * the smallest setting, one second of trace: the code path, no figure.
 *
 * Build: make build/bench/bench_top (the Makefile's BENCH_TOP_OBJ).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/dbfile.h"
#include "host/base/clock.h"
#include "tui/model.h"
#include "tui/table.h"
#include "tests/xorshift.h"

extern const char db_schema_sql[];

static double now_s(void)
{
    return (double)mono_ns() / 1e9;
}

static uint64_t rng = 88172645463325252ull;

static void run(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "bench_top: %s\n", msg);
        exit(1);
    }
}

/* Writes `secs` of trace; returns the events written. */
static long write_trace(const char *path, int ncpus, int ntasks, long rate, int secs)
{
    sqlite3 *db;
    unlink(path);
    sqlite3_open(path, &db);
    run(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF");
    run(db, db_schema_sql);
    run(db, "BEGIN");
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO trace(trace_id,created,status,ncpus,tick_hz,policy,features,feature_names,start_ts,end_ts,"
             "records) VALUES(1,'now','recording',%d,250,'eevdf',1,'PLACE_LAG',0,%lld,0)",
             ncpus, (long long)secs * 1000000000ll);
    run(db, sql);
    sqlite3_stmt *th, *pick, *place, *leave, *slice, *wake, *tick;
    sqlite3_prepare_v2(db, "INSERT INTO thread(utid,trace_id,tid,name,nice,slice_ns,cpu,is_idle,start_ts) "
                           "VALUES(?,1,?,?,0,0,?,?,0)", -1, &th, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO eevdf_pick(trace_id,ts,cpu,prev_utid,next_utid,why,v,vruntime,deadline,lag,"
                           "nr_runnable) VALUES(1,?,?,?,?,'tick',?,?,?,?,?)", -1, &pick, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO eevdf_place(trace_id,ts,cpu,utid,reason,vruntime,deadline,lag_before,"
                           "lag_after,v,weight,nr_runnable) VALUES(1,?,?,?,'wake',?,?,0,?,?,1024,?)", -1, &place, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO eevdf_leave(trace_id,ts,cpu,utid,reason,vruntime,lag,v,run_ns) "
                           "VALUES(1,?,?,?,'preempt',?,?,?,0)", -1, &leave, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO sched_slice(trace_id,ts,dur,cpu,utid,end_state) VALUES(1,?,?,?,?,'R+')", -1,
                       &slice, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO wakeup(trace_id,utid,ts_wake,ts_run,latency,cpu) VALUES(1,?,?,?,?,?)", -1,
                       &wake, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO sched_tick(trace_id,ts,cpu,utid,v,nr_runnable) VALUES(1,?,?,?,?,?)", -1,
                       &tick, NULL);
    for (int i = 0; i < ntasks + ncpus; i++) {
        char name[24];
        bool idle = i < ncpus;
        snprintf(name, sizeof name, idle ? "idle/%d" : "task%d", idle ? i : i - ncpus);
        sqlite3_bind_int(th, 1, i + 1);
        sqlite3_bind_int(th, 2, i);
        sqlite3_bind_text(th, 3, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(th, 4, idle ? i : (i - ncpus) % ncpus);
        sqlite3_bind_int(th, 5, idle);
        sqlite3_step(th);
        sqlite3_reset(th);
    }
    /* a decision every `gap` ns somewhere: 5 rows each (leave, slice, place, pick, wakeup), plus ticks */
    long decisions = rate * secs / 5;
    uint64_t gap = (uint64_t)secs * 1000000000ull / (uint64_t)decisions;
    int64_t *curr = calloc((size_t)ncpus, sizeof *curr);
    uint64_t *since = calloc((size_t)ncpus, sizeof *since), next_tick = 0;
    for (int c = 0; c < ncpus; c++)
        curr[c] = c + 1;
    long events = 0;
    for (long d = 0; d < decisions; d++) {
        uint64_t ts = (uint64_t)d * gap;
        int c = (int)(xorshift64(&rng) % (uint64_t)ncpus);
        int64_t next = ncpus + 1 + (int64_t)((xorshift64(&rng) % (uint64_t)(ntasks / ncpus)) * (uint64_t)ncpus) + c;
        int64_t v = (int64_t)ts / 4;
        sqlite3_stmt *s;
        s = leave;
        sqlite3_bind_int64(s, 1, (int64_t)ts); sqlite3_bind_int(s, 2, c); sqlite3_bind_int64(s, 3, curr[c]);
        sqlite3_bind_int64(s, 4, v + 1000); sqlite3_bind_int64(s, 5, -1000); sqlite3_bind_int64(s, 6, v);
        sqlite3_step(s); sqlite3_reset(s);
        s = slice;
        sqlite3_bind_int64(s, 1, (int64_t)since[c]); sqlite3_bind_int64(s, 2, (int64_t)(ts - since[c]));
        sqlite3_bind_int(s, 3, c); sqlite3_bind_int64(s, 4, curr[c]);
        sqlite3_step(s); sqlite3_reset(s);
        s = place;
        sqlite3_bind_int64(s, 1, (int64_t)ts); sqlite3_bind_int(s, 2, c); sqlite3_bind_int64(s, 3, next);
        sqlite3_bind_int64(s, 4, v - 500); sqlite3_bind_int64(s, 5, v + 2000000); sqlite3_bind_int64(s, 6, 500);
        sqlite3_bind_int64(s, 7, v); sqlite3_bind_int(s, 8, 3);
        sqlite3_step(s); sqlite3_reset(s);
        s = pick;
        sqlite3_bind_int64(s, 1, (int64_t)ts); sqlite3_bind_int(s, 2, c); sqlite3_bind_int64(s, 3, curr[c]);
        sqlite3_bind_int64(s, 4, next); sqlite3_bind_int64(s, 5, v); sqlite3_bind_int64(s, 6, v - 500);
        sqlite3_bind_int64(s, 7, v + 2000000); sqlite3_bind_int64(s, 8, 500); sqlite3_bind_int(s, 9, 3);
        sqlite3_step(s); sqlite3_reset(s);
        s = wake;
        uint64_t lat = 1000 + xorshift64(&rng) % 2000000;
        sqlite3_bind_int64(s, 1, next); sqlite3_bind_int64(s, 2, (int64_t)(ts > lat ? ts - lat : 0));
        sqlite3_bind_int64(s, 3, (int64_t)ts); sqlite3_bind_int64(s, 4, (int64_t)lat); sqlite3_bind_int(s, 5, c);
        sqlite3_step(s); sqlite3_reset(s);
        curr[c] = next;
        since[c] = ts;
        events += 5;
        while (next_tick <= ts) {
            for (int k = 0; k < ncpus; k++) {
                sqlite3_bind_int64(tick, 1, (int64_t)next_tick); sqlite3_bind_int(tick, 2, k);
                sqlite3_bind_int64(tick, 3, curr[k]); sqlite3_bind_int64(tick, 4, (int64_t)next_tick / 4);
                sqlite3_bind_int(tick, 5, 3);
                sqlite3_step(tick); sqlite3_reset(tick);
                events++;
            }
            next_tick += 4000000;
        }
    }
    run(db, "COMMIT");
    sqlite3_finalize(th); sqlite3_finalize(pick); sqlite3_finalize(place); sqlite3_finalize(leave);
    sqlite3_finalize(slice); sqlite3_finalize(wake); sqlite3_finalize(tick);
    sqlite3_close(db);
    free(curr);
    free(since);
    return events;
}

static void bench(int ncpus, int ntasks, long rate, int secs)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/bench_top.%d.db", (int)getpid());
    long events = write_trace(path, ncpus, ntasks, rate, secs);
    char err[256];
    double t0 = now_s();
    struct top_model *m = top_model_open(path, 1, 0, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bench_top: %s\n", err);
        exit(1);
    }
    double t_open = now_s() - t0, worst = 0, total = 0, cpu0 = (double)clock() / CLOCKS_PER_SEC;
    int *idx = malloc(sizeof(int) * (size_t)(ntasks + ncpus + 1)), n = 0;
    for (uint64_t t = 250000000; t <= (uint64_t)secs * 1000000000ull; t += 250000000, n++) {
        double a = now_s();
        top_model_update(m, t, err, sizeof err);
        const struct top_snapshot *s = top_model_snapshot(m);
        size_t rows = top_visible(s, NULL, idx);
        top_sort(s, idx, rows, TOP_COL_PCPU, false);
        double d = now_s() - a;
        total += d;
        if (d > worst)
            worst = d;
    }
    double cpu = (double)clock() / CLOCKS_PER_SEC - cpu0;
    printf("%5d %6d %9ld %9.1f %9.2f %9.2f %9.2f %8.1f%%\n", ncpus, ntasks, rate, (double)events / 1e6, t_open * 1e3,
           total / n * 1e3, worst * 1e3, cpu / ((double)n * 0.25) * 100);
    free(idx);
    top_model_close(m);
    db_remove(path);
}

int main(void)
{
    printf("refresh every 250 ms of trace time: model update + filter + sort (no drawing)\n");
    printf(" CPUs  tasks  events/s  Mevents   open ms  mean ms   worst ms  %%core@250ms\n");
    if (getenv("BENCH_SHORT")) {
        bench(4, 12, 100000, 1);
        return 0;
    }
    bench(4, 12, 100000, 10);
    bench(16, 1000, 100000, 10);
    bench(16, 1000, 400000, 5);
    return 0;
}
