/*
 * The `runq top` model: what the view shows, computed from the trace
 * database. No ncurses here; tests/tui/top_model_test.c drives it directly.
 *
 * How it reads. The recorder only appends rows (and builds no index until
 * the trace is finished), so the model's reader (db/qx_top.h) keeps one
 * rowid cursor per table and
 * each update reads only the rows added since, in rowid order, which is the
 * order the recorder wrote them in: time order. Cost per update is the new
 * rows, never the size of the database, so following a live recording at
 * 100k events/s stays cheap and a long trace opens at once.
 *
 * Each table is read in one pass: its rows only make a newer (time, rank)
 * win or add to a count, or need order only among themselves. While a gap
 * row is ahead, picks, keyframes, settings and marks are merged with the
 * gaps row by row in time order (db/qx_top.c, dbq_top_advance: the
 * reader holds every statement, prepared once). An update leaves
 * the state that applying every row up to t in time order would, except
 * that a keyframe names a CPU's current task only where no later pick of
 * the same update has.
 *
 * Replay is the same with a time limit: an update to time t consumes rows
 * whose time is <= t and stops at the first later one. Going back in time
 * means reopening (top_model_open with an earlier `from`).
 *
 * Rows are read as db/events.h's typed events (its brief columns), and
 * what a pick, place, leave, tick or keyframe does to a task and a CPU
 * is the trace state's (db/tstate.h, TSTATE_ANY_ORDER: the rows come
 * table by table), the one `runq step`'s replay keeps too: a LEAVE's
 * reason means what its leave_meaning says, here as in the recorder and
 * the replay. The model adds what only the view has: the stints and
 * their rates and counts, the histograms, the timeline, the settings.
 *
 * What comes from where:
 *   task state, lag, deadline   eevdf_place, eevdf_leave, eevdf_pick,
 *                               queue_snapshot (keyframes), through the
 *                               trace state: the latest event wins; ties
 *                               at one timestamp rank leave < place <
 *                               pick < keyframe
 *   %CPU, CPU util, switches    stints between the picks that change a
 *                               CPU's task (sched_slice without reading
 *                               it), cut at data_gap rows, plus the stint
 *                               open since the CPU's last switch
 *   vol / invol                 the task's switches out (the picks
 *                               that take the CPU from it) less the
 *                               involuntary ones / leaves whose reason
 *                               is involuntary (leave_meaning: preempted):
 *                               as the kernel counts nvcsw and nivcsw, and
 *                               as the view thread_switches
 *   wake latency                wakeup.latency, into a log-linear histogram
 *   bounce latency              bounce.latency (schema 8: a fair task put
 *                               back because a higher class took its CPU,
 *                               until it ran), a histogram of its own
 *   moves in, out (a CPU's);    migration rows (schema 12): a count on each
 *   a task's last move          end, and the task's newest; where the task
 *                               is (its CPU) is still the trace state's,
 *                               from the move's LEAVE and JOIN `migrate`
 *   knobs                       sched_set rows of what 'knob', the newest
 *   V, runnable count           the newest of pick, place, leave, tick,
 *                               keyframe on that CPU; on a Linux trace
 *                               (its engine counts nothing) the count
 *                               only from a keyframe, else unknown
 *   nice, slice, features       thread rows, then sched_set as it happens
 * Rates (%CPU, switches/s, moves/s, events/s, utilisation) are taken over
 * the last TOP_RATE_WINDOW_NS of trace time.
 *
 * Lag for a task on the CPU is its vruntime charged as the kernel charges
 * it at each tick since its newest event (alone on its queue, V itself;
 * else the time run, scaled by 1024/weight), with its deadline renewed a
 * slice further at each tick that finds it reached, then the time since
 * the last tick, against the CPU's newest V: `sched queue`'s numbers,
 * which are as of the last charge. Queued tasks' vruntimes do not move,
 * so their lag is exact as of V.
 */
#ifndef RUNQ_TUI_MODEL_H
#define RUNQ_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/events.h"

#define TOP_RATE_WINDOW_NS 1000000000ull
#define TOP_MAP_ROWS 512   /* switch events kept for the timeline strip */
#define TOP_MAX_CPUS 256
#define TOP_T_LIVE UINT64_MAX
#define TOP_MAX_KNOBS 8
#define TOP_TICKS 128 /* ticks kept a CPU */
#define TOP_COSTS 32  /* trace-cost readings kept a CPU: one every 100 ms (a keyframe's) */
/* The most tasks the model holds: the first TOP_MAX_TASKS of the trace's
 * thread rows (by utid) are shown, the rest left out and said so
 * (top_header.tasks_capped). Each task costs about 1.3 kB (its struct and
 * its run time in every rate sample), 4 kB once it has woken and bounced:
 * at most 135 MB here, where a trace naming 10^6 threads took 3 GB. A
 * teaching kernel's trace has hundreds; docs/top.md says the bound. */
#define TOP_MAX_TASKS 32768

/* Wake latency histogram: log-linear, 8 sub-buckets per power of two
 * (values < 8 ns exact), so percentiles are within 1/16 of the value. */
#define TOP_LAT_SUB_BITS 3
#define TOP_LAT_MAX_LOG2 44 /* ~4.8 hours; larger values land in the top bucket */
#define TOP_LAT_SLOTS ((TOP_LAT_MAX_LOG2 - 1) * 8)
/* The log2 view of it: bucket k holds [2^k, 2^(k+1)) ns (k = 0 holds 0 and 1). */
#define TOP_LAT_LOG2 TOP_LAT_MAX_LOG2

/* A task's state (enum thread_state, db/events.h) as top shows it: "?",
 * "run", "R", "R+", "S", "D", "X". */
const char *top_state_name(enum thread_state s);

struct top_task {
    int64_t utid;
    int tid;
    char name[24];
    char code[4];     /* timeline code, "" until it first appears there */
    int cpu;          /* where it runs or last ran (home CPU before that) */
    int nice;
    int64_t slice_ns; /* requested; 0 = policy default */
    bool is_idle;
    uint64_t start_ts, end_ts; /* end_ts 0: alive */
    enum thread_state state;

    /* EEVDF, valid when has_eevdf (never under the round robin) */
    bool has_eevdf, eligible;
    int64_t vruntime, deadline, weight;
    int64_t lag;        /* V - vruntime, virtual ns (positive: owed CPU) */
    int64_t deadline_rel; /* deadline - V; meaningful unless sleeping */

    /* since the view began */
    double cpu_pct;     /* over the rate window, 0..100 */
    uint64_t run_ns;    /* closed stints */
    uint64_t vol, invol; /* switches out: blocked, slept, exited or yielded vs preempted */
    /* The histograms are TOP_LAT_SLOTS counts, allocated at the task's
     * first value (NULL while its n is 0): most tasks of a big trace have
     * none in view, and two inline took 2.7 kB a task. */
    uint64_t lat_n, lat_max, lat_p50, lat_p99; /* ns */
    uint32_t *lat_hist;
    /* bounce -> run: released to a higher class until it ran again */
    uint64_t bnc_n, bnc_max, bnc_p99; /* ns */
    uint32_t *bnc_hist;
    /* its moves between CPUs since the view began (migration rows), and
     * the newest: when, from where, by which rule (TRACE_MIGRATE_NR: one
     * this build cannot name, Linux's `unknown` among them) */
    uint64_t moves;
    uint64_t move_ts;
    int move_src;
    enum trace_migrate_reason move_reason;

    /* bookkeeping (the model's own) */
    uint64_t slice_end, set_ts;
    bool lat_dirty, bnc_dirty; /* percentiles to recompute */
    uint64_t nout;      /* switches out (vol + invol) */
};

struct top_cpu {
    int cpu;
    int curr;           /* index into tasks, -1 unknown */
    uint64_t curr_since;
    int nr_runnable;    /* current included */
    bool has_nr;        /* nr_runnable is known: not from a trace whose engine counts nothing (Linux's) */
    bool has_v;
    int64_t v;
    double util;        /* 0..1 over the rate window */
    double switches_per_s;
    uint64_t busy_ns, switches; /* closed, since the view began */
    /* Tasks moved here from another CPU, and from here to another, since
     * the view began and a second over the rate window (each move counts
     * once on either end, so the two columns sum alike over the CPUs).
     * Meaningful when top_header.moves_known. */
    uint64_t moves_in, moves_out;
    double moves_in_per_s, moves_out_per_s;
    /* The tracer's own share of this CPU over the rate window (0..1; -1
     * not known: a trace without the cost counters, an older kernel's or
     * Linux's): what writing the trace took (the COUNTERS trace_records
     * times the timed ones' mean, docs/trace-format.md) and, on the
     * tracer task's CPU, that task's run (framing and sending). */
    double trace_share;
    /* the newest cost readings, oldest first from cost_first (the model's) */
    struct top_cost {
        uint64_t ts, records, timed, timed_ns;
    } costs[TOP_COSTS];
    unsigned cost_first, ncosts;
    /* The newest ticks, oldest first from tick_first: each charged the
     * CPU's current task (model.c, charge_at_ticks). A keyframe (100 ms)
     * re-anchors a running task, so TOP_TICKS covers the ticks since at
     * 1000 Hz. */
    struct top_tick {
        uint64_t ts;
        int64_t v;
        int nr_runnable;
    } ticks[TOP_TICKS];
    unsigned tick_first, nticks;
};

/* One row of the timeline: after a switch on `cpu` at ts, who runs where. */
struct top_map_row {
    uint64_t ts;
    int cpu;
    const int *curr; /* ncpus task indexes, -1 idle/unknown */
};

struct top_header {
    int64_t trace_id;
    char policy[16];
    bool eevdf;
    char engine[16];         /* trace.engine: runq-kernel, linux (runq-kernel before schema 9) */
    char engine_version[64]; /* Linux's release; "" none */
    bool counts;             /* the engine counts decisions (db/events.h, event_engine_counts) */
    /* The trace records its moves (db/qx_top.h, dbq_top_moves_known, or a
     * migration row came since): else a CPU's moves are not known, shown
     * '-', never 0. */
    bool moves_known;
    uint32_t features;
    int nfeatures;
    char feature[32][32]; /* names in bit order */
    int tick_hz, ncpus;
    uint64_t start_ts, end_ts; /* of the recording so far */
    uint64_t now;              /* the time shown: ns since the guest booted */
    char status[16];           /* recording | complete | incomplete */
    char end_reason[16];
    uint64_t records;
    double events_per_s;       /* trace time */
    uint64_t lost_packets, dropped_records, resyncs;
    bool has_control_column;
    char control[256];         /* the recorder's control socket, "" none */
    char last_mark[64];
    bool tasks_capped;         /* the trace has more than TOP_MAX_TASKS tasks */
    /* scheduler knobs (SET knob, trace format 4), as of `now`: the
     * kernel states each when tracing starts */
    int nknobs;
    char knob[TOP_MAX_KNOBS][24];
    int64_t knob_value[TOP_MAX_KNOBS];
};

/* A knob's value as of the view's time; false when the trace has not
 * stated it. */
bool top_knob(const struct top_header *h, const char *name, int64_t *value);

struct top_snapshot {
    struct top_header h;
    struct top_task *tasks; /* all tasks seen, idle ones included */
    size_t ntasks;
    struct top_cpu *cpus;   /* h.ncpus */
    size_t nmap;            /* rows in the timeline, oldest first: top_model_map_row() */
};

struct top_model;

/* Opens path read-only. trace_id 0: the newest trace. The view begins at
 * trace time `from` (ns; 0: the trace's start; TOP_T_LIVE: two seconds
 * before its current end). Returns NULL with a one-line reason in err
 * (missing file, not a runq database, no such trace). */
struct top_model *top_model_open(const char *path, int64_t trace_id, uint64_t from, char *err,
                                 size_t errlen);

/* Reads what was added and moves the view to trace time t (TOP_T_LIVE: the
 * newest record). t before the current time is taken as the current time.
 * Returns 0, or -1 with the reason in err (the model stays usable). Any
 * read SQLite fails (a damaged page, an I/O error) fails the update, and
 * top_model_open, with "reading TABLE: SQLite's reason": a read that stops
 * early must not pass for the end of the trace. */
int top_model_update(struct top_model *m, uint64_t t, char *err, size_t errlen);

const struct top_snapshot *top_model_snapshot(const struct top_model *m);

/* Timeline row i (0 = oldest of the nmap kept). */
struct top_map_row top_model_map_row(const struct top_model *m, size_t i);

/* Index of the task with this utid, or -1. */
int top_model_find(const struct top_model *m, int64_t utid);

void top_model_close(struct top_model *m);

/* The histogram helpers, exposed for the tests. */
unsigned top_lat_slot(uint64_t ns);
uint64_t top_lat_slot_value(unsigned slot); /* a representative value: the slot's middle */
/* Percentile p (0..100) of a histogram with n values; 0 when n == 0. */
uint64_t top_lat_percentile(const uint32_t *hist, uint64_t n, double p);
/* Folds the histogram into log2 buckets: out[k] counts [2^k, 2^(k+1)) ns. */
void top_lat_log2(const uint32_t *hist, uint64_t out[TOP_LAT_LOG2]);

#endif
