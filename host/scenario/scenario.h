/*
 * Scenarios: one text file that says what runs and what is measured, run
 * by any engine (docs/scenarios.md): on paper (`runq sim`, the policy code
 * on the host, a quantum at a time), in runq's kernel under QEMU (its
 * interpreter, kernel/sched/scn.c), and on the host's own Linux as
 * threads of one process (host/engine/linux/run.h).
 * The format grew out of `runq sim`'s workload format, which it still
 * reads unchanged: a workload is a scenario that uses none of the new
 * directives.
 *
 * Four parts, one file each:
 *   host/scenario/parse.c   the format: parse a file, print a scenario back
 *   host/scenario/duration.c  durations as text, read and written (no
 *                      policy code: the Linux reference links it alone)
 *   host/scenario/result.c  what an engine measured, and the metrics from it
 *   host/scenario/kprog.c   the kernel engine's program and its answer
 *                      (trace/scenario.h)
 *
 * Nothing here knows an engine. What an engine cannot run it refuses
 * itself, naming the line (scenario.lines says where each machine
 * directive was given).
 *
 * Every duration is in ns.
 */
#ifndef RUNQ_SCENARIO_H
#define RUNQ_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/scenario.h"

#define SCN_MAX_TASKS SCN_PROG_MAX_GROUPS      /* task lines */
#define SCN_MAX_INSTANCES SCN_PROG_MAX_TASKS   /* tasks once counts are expanded */
#define SCN_MAX_STEPS SCN_PROG_MAX_STEPS
#define SCN_MAX_PIPES SCN_PROG_MAX_PIPES
#define SCN_NAME_MAX 8
#define SCN_MAX_FEATURES 32
#define SCN_MAX_KNOBS 8    /* at least the kernel's knobs (kernel/sched/knob.h; parse.c asserts it) */
#define SCN_MAX_MEASURES 32
#define SCN_MAX_VARY 8
#define SCN_MAX_VALUES 64
#define SCN_VALUE_MAX 32   /* a vary value's spelling */
#define SCN_KEY_MAX 48     /* a vary key: "hz", "probe.slice", "feature.HRTICK", "replace_on_release" */
/* `runq sim` steps through at most this many quanta. */
#define SCN_SIM_MAX_QUANTA 20000000

/* One step of a task's pattern. */
enum scn_step_kind {
    SCN_RUN = SCN_PROG_RUN,     /* wants the CPU for ns of CPU time */
    SCN_SLEEP = SCN_PROG_SLEEP, /* off the queue for ns of wall time */
    SCN_EVERY = SCN_PROG_EVERY, /* sleeps until its next periodic target */
    SCN_YIELD = SCN_PROG_YIELD, /* gives way where the step before ends; no time */
    SCN_EXIT = SCN_PROG_EXIT,   /* leaves for good; only ever the last step */
    SCN_READ = SCN_PROG_READ,   /* takes bytes from a pipe, blocking while it is empty */
    SCN_WRITE = SCN_PROG_WRITE, /* puts bytes in a pipe, blocking while it is full */
};

struct scn_step {
    enum scn_step_kind kind;
    uint64_t ns;              /* run, sleep: the time; every: the period */
    unsigned jitter_permille; /* every: each period drawn within ±this; sleep: each length */
    int pipe;                 /* read, write: index into pipes[] */
    unsigned bytes;           /* read, write: how many */
};

/* `pipe NAME [size=B] [shared]`: a bounded byte channel. Unless shared,
 * each task instance k of a line that uses it has its own copy k, so K
 * pairs written as `task a*K` and `task b*a` get K pipes; every line that
 * uses an unshared pipe must then have the same count. */
struct scn_pipe {
    char name[SCN_NAME_MAX + 1];
    int line;
    unsigned size; /* bytes it holds */
    bool shared;   /* one pipe for all instances */
};

/* A task line: `count` identical tasks (hog*8). */
struct scn_task {
    char name[SCN_NAME_MAX + 1];
    int line;          /* where it was declared, for messages; 0 if generated */
    unsigned count;    /* 1 unless NAME*N */
    int count_of;      /* NAME*LINE: 1 + the task line whose count it keeps; 0: none */
    int nice;          /* weight= is turned into the nice with that weight */
    uint64_t slice_ns; /* requested slice; 0: the policy's default */
    uint64_t arrive_ns;
    uint64_t cpumask;  /* the CPUs it may run on (bit n: CPU n); 0: any */
    bool rt;           /* class=rt: the RT class, above the fair policy; no nice, no slice */
    unsigned rt_prio;  /* prio=: 1..SCN_PROG_RT_PRIO_MAX (99 highest); 0: not given */
    unsigned rt_policy; /* rt=: SCN_PROG_RT_FIFO (default) or SCN_PROG_RT_RR */
    int nsteps;        /* 0: runs forever */
    struct scn_step steps[SCN_MAX_STEPS]; /* starts with run or every; repeats unless exit ends it */
};

struct scn_feature_setting {
    int feature; /* enum eevdf_feature */
    bool on;
    int line; /* where it was given; 0: by a vary axis */
};

/* `knob NAME VALUE`: a scheduler setting of the kernel's knob table
 * (kernel/sched/knob.h: replace_on_release, rt_runtime_us, rt_period_us),
 * its name and range checked here as the kernel checks them. */
struct scn_knob_setting {
    int knob; /* enum sched_knob */
    int64_t value;
    int line; /* where it was given; 0: by a vary axis */
};

/* What a metric's value is, for its printing: a share (a fraction,
 * printed as %), a time in ns, a rate (a second), or a count. */
enum scn_metric_kind { SCN_KIND_SHARE, SCN_KIND_TIME, SCN_KIND_RATE, SCN_KIND_COUNT };

/* What the metrics a `measure` line names are (docs/scenarios.md):
 * X(ID, "name", kind, "what"). */
#define SCN_METRICS(X)                                                                   \
    X(WAKEUPS, "wakeups", COUNT, "wakeups measured")                                     \
    X(MISSED, "missed", COUNT, "periodic targets already past when it slept")            \
    X(STALL, "stall", SHARE, "share of wakeups later than the stall threshold")          \
    X(MISSED_SHARE, "missed_share", SHARE, "share of periodic targets missed: missed / (wakeups - dropped + missed)") \
    X(STALL_GRID, "stall_grid", SHARE, "the stall share with missed targets counted late (--missed-late)") \
    X(LATE_P50, "p50", TIME, "lateness, median")                                         \
    X(LATE_P90, "p90", TIME, "lateness, 90th percentile")                                \
    X(LATE_P99, "p99", TIME, "lateness, 99th percentile")                                \
    X(LATE_P999, "p99.9", TIME, "lateness, 99.9th percentile")                           \
    X(LATE_MAX, "max", TIME, "lateness, the largest")                                    \
    X(SHARE, "share", SHARE, "share of a CPU it got")                                    \
    X(ASKED, "asked", SHARE, "share of a CPU its pattern asks for")                      \
    X(WORK, "work", RATE, "loop iterations a second (a run step's work)")                \
    X(VCSW, "vcsw", COUNT, "voluntary switches: it blocked or yielded")                  \
    X(IVCSW, "ivcsw", COUNT, "involuntary switches: it was still runnable")              \
    X(INVOL, "invol", SHARE, "involuntary share of its switches")                        \
    X(HANDOFFS, "handoffs", RATE, "pipe reads a second that got their bytes (each ends a handoff), the line's tasks together")

enum scn_metric {
#define SCN_METRIC_ENUM(id, name, kind, what) SCN_M_##id,
    SCN_METRICS(SCN_METRIC_ENUM)
#undef SCN_METRIC_ENUM
    SCN_NR_METRICS
};

/* A column of the results table: a metric of a task line (a group). */
struct scn_measure {
    int task; /* index into tasks[] */
    enum scn_metric metric;
};

/* A vary axis: `vary KEY V1,V2,...` in the file or --vary on the command
 * line. KEY is a machine directive (hz, cpus, policy, run, seed, stall),
 * feature.NAME, switch (one feature flipped: NAME, NO_NAME or default), a
 * knob by its name or as knob.NAME (replace_on_release), or TASK.OPTION
 * (probe.slice, hog.count, probe.prio, ...). */
struct scn_vary {
    char key[SCN_KEY_MAX];
    int line; /* 0: from the command line */
    int nvalues;
    char values[SCN_MAX_VALUES][SCN_VALUE_MAX];
};

/* Where each machine directive was given (0: its default), so an engine
 * that cannot honour one names the line. */
struct scn_lines {
    int policy, cpus, hz, tick, quantum, run, seed, stall;
};

struct scenario {
    char name[64];       /* the file's name, for messages */
    char policy[8];      /* "rr" or "eevdf" */
    unsigned cpus;       /* the machine's CPU count (EEVDF's base slice scales with it) */
    unsigned hz;         /* ticks a second; 0: not given (see tick_ns) */
    uint64_t quantum_ns; /* runq sim's step, one letter of its schedule; no other engine has one */
    uint64_t tick_ns;    /* the tick: 1 s / hz, or `tick D`; 0: one quantum (runq sim's old default) */
    uint64_t run_ns;     /* how long to run */
    uint64_t seed;       /* the draws of every jitter */
    uint64_t stall_ns;   /* a wakeup later than this is a stall */
    int nfeatures;       /* switches set, in order, each feature at most once */
    struct scn_feature_setting features[SCN_MAX_FEATURES];
    int nknobs;          /* knobs set, in order, each at most once */
    struct scn_knob_setting knobs[SCN_MAX_KNOBS];
    int ntasks;
    struct scn_task tasks[SCN_MAX_TASKS];
    int npipes;
    struct scn_pipe pipes[SCN_MAX_PIPES];
    int nmeasures; /* 0: every task line's default columns (scn_default_measures) */
    struct scn_measure measures[SCN_MAX_MEASURES];
    int nvary;
    struct scn_vary vary[SCN_MAX_VARY];
    struct scn_lines lines;
};

/* The defaults every scenario starts from: eevdf, 4 CPUs, 1 ms quantum,
 * tick = quantum, 32 quanta, seed 0, stall 1 ms, no tasks. */
void scn_init(struct scenario *s);

/*
 * Reads a scenario from f. name is what messages call the file. On
 * success returns 0 with s filled and checked (durations in range, every
 * time runq sim steps through a whole number of quanta, and so on: an
 * engine may trust it). On error returns -1 and leaves in err one line
 * "name:line: message" (no newline).
 */
int scn_parse(FILE *f, const char *name, struct scenario *s, char *err, size_t errlen);
/* The same, from a file by path ("-": standard input). */
int scn_load(const char *path, struct scenario *s, char *err, size_t errlen);

/* The checks that need the whole scenario (scn_parse runs them; call
 * again after changing s, e.g. after a vary cell is applied). 0, or -1
 * with err "name:line: message". */
int scn_check(const struct scenario *s, char *err, size_t errlen);

/* Records feature NAME as on/off in s (replacing an earlier setting of the
 * same feature). False if there is no such feature. */
bool scn_set_feature(struct scenario *s, const char *name, bool on);

/* Records knob NAME = value in s (replacing an earlier setting of it). 0,
 * or -1 with why ("no knob ...", "out of range ...") in err, no position. */
int scn_set_knob(struct scenario *s, const char *name, int64_t value, char *err, size_t errlen);
/* The name of knob k (enum sched_knob), as the kernel's `sched knob` takes it. */
const char *scn_knob_name(int k);
/* Knob k's value in s: its setting, or the kernel's default. */
int64_t scn_knob_value(const struct scenario *s, int k);
/* The knob called name (kernel/sched/knob.h's table), or -1: for engines
 * outside the scenario module, which may not include the kernel's header. */
int scn_knob_index(const char *name);
/* The knob settings in an order the kernel accepts one at a time (it
 * refuses an RT runtime longer than its period at every step, from its
 * defaults): indexes into s->knobs, into order[s->nknobs]. */
void scn_knob_order(const struct scenario *s, int *order);

/* The name vary axis key goes by in a cell's parameters (a run's
 * `params`): the key itself, but a knob by its own name (knob.NAME ->
 * NAME), as a trace's SET records name it, so `runq report compare` sees
 * one setting. */
void scn_param_key(const char *key, char *buf, size_t len);

/* Writes s in the scenario format, so scn_parse reads back the same s
 * (vary lines included). */
void scn_print(FILE *out, const struct scenario *s);

/* The longest duration any parser takes: an hour, in ns. */
#define SCN_DURATION_MAX 3600000000000ull

/* "0.8ms" -> 800000: a number (decimals allowed) and a unit, ns, us, ms or
 * s, or a bare 0. False unless the value is a whole number of ns, at most
 * SCN_DURATION_MAX (never a value that wrapped past 2^64 on the way). */
bool scn_parse_duration(const char *s, uint64_t *ns);
/* The shortest exact spelling of ns: "0", "800us", "1600us", "2ms", "1s". */
void scn_format_duration(char *buf, size_t len, uint64_t ns);
/* A time or a virtual time in microseconds, exact: "1600", "-533.333"
 * (ns -533333), no trailing zeros: runq sim -v's numbers, and the Linux
 * reference's, which prints in its form (tests/policy/linux_ref.h). */
void scn_format_us(char *buf, size_t len, int64_t ns);

/* A count or a seed: decimal digits only (no sign, space or suffix), at
 * most max, into *out. False for anything else, and for a number past
 * 2^64 - 1 (never a value strtoull clamped). */
bool scn_parse_count(const char *s, uint64_t max, uint64_t *out);
/* Whether name is a policy runq runs, on the kernel and on paper: "rr" or
 * "eevdf" (a scenario's policy line, runq boot's and runq sim's --policy,
 * a lab's policy). */
bool scn_policy_known(const char *name);

/* The metric called name ("p99", "stall", ...), or -1. */
int scn_metric_lookup(const char *name);
const char *scn_metric_name(enum scn_metric m);
const char *scn_metric_what(enum scn_metric m);
enum scn_metric_kind scn_metric_kind(enum scn_metric m);

/* The task line called name, or -1. */
int scn_task_lookup(const struct scenario *s, const char *name);
/* The pipe called name, or -1. */
int scn_pipe_lookup(const struct scenario *s, const char *name);
/* How many copies pipe p has: 1 if shared, else the count of the lines
 * that use it (scn_check makes them agree); 1 if no line uses it. */
unsigned scn_pipe_copies(const struct scenario *s, int p);
/* Whether task line t reads or writes a pipe. */
bool scn_uses_pipes(const struct scn_task *t);

/* How many tasks the counts make; at most SCN_MAX_INSTANCES once parsed. */
unsigned scn_ninstances(const struct scenario *s);
/* Instance i's task line and its index within that line. */
int scn_instance(const struct scenario *s, unsigned i, unsigned *index);
/* Instance i's name: the line's name, with its index if count > 1 (hog3). */
void scn_instance_name(const struct scenario *s, unsigned i, char *buf, size_t len);

/* The share of a CPU task line t's pattern asks for, in parts per
 * million: run / (run + sleep + period) over one round; 1e6 if it never
 * sleeps. */
uint64_t scn_asked_ppm(const struct scn_task *t);

/* Whether task line t has a periodic (every) step: lateness is measured
 * against its targets. */
bool scn_is_periodic(const struct scn_task *t);

/* The columns the table shows when the file has no measure line: for a
 * periodic or sleeping task line stall, p50, p99, share; for one that
 * never sleeps share and work. Fills out (at most max) and returns the
 * count. */
int scn_default_measures(const struct scenario *s, struct scn_measure *out, int max);

/*
 * Applies `key = value` to s, as the vary axis KEY takes VALUE, with the
 * parser's checks. 0, or -1 with err (no file position: the caller says
 * which axis).
 */
int scn_apply(struct scenario *s, const char *key, const char *value, char *err, size_t errlen);

/* ---- results (host/scenario/result.c) ---- */

/* A growable list of lateness samples, in ns. */
struct scn_samples {
    uint64_t *v;
    size_t n, cap;
    uint64_t dropped; /* samples that could not be kept (out of memory) */
};
void scn_samples_add(struct scn_samples *s, uint64_t ns);
void scn_samples_free(struct scn_samples *s);

/* What one task, or one task line (its tasks together), measured. The
 * field names are trace/scenario.h's result line's. */
struct scn_stats {
    uint64_t window_ns;  /* how long it was measured: from its arrival to the end */
    uint64_t runtime_ns; /* CPU time it got in that window */
    uint64_t wakeups, missed, stalls, dropped;
    uint64_t iters;      /* loop iterations of its run steps */
    uint64_t vcsw, ivcsw;
    uint64_t reads;      /* pipe reads that got their bytes */
    uint64_t late[5];    /* lateness p50, p90, p99, p99.9, max (scn_rank) */
    unsigned ntasks;     /* a line's: how many tasks */
};

struct scn_task_result {
    int task;        /* its task line */
    unsigned index;  /* its place in that line */
    char name[16];
    int tid;         /* the engine's id for it (the kernel's task id; -1: none) */
    int cpu;
    struct scn_stats st;
};

struct scn_result {
    char engine[16];   /* "kernel", "sim" */
    bool has_iters;    /* the engine counts loop iterations (on paper there are none) */
    unsigned ntasks;
    struct scn_task_result task[SCN_MAX_INSTANCES];
    struct scn_stats line[SCN_MAX_TASKS]; /* one per task line */
    /* kernel, tracing on: what writing trace records took the CPUs that
     * wrote any, over the run (the kernel's `scn trace` lines, summed);
     * 0 records: not traced, or another engine */
    uint64_t trace_records, trace_ns, trace_window_ns;
    unsigned trace_cpus;
};

/* One task's stats into its line's: one task more, the window (the same
 * for every task), and the sums of run time, missed deadlines, loop
 * iterations, switches and pipe reads. Wakeups and drops are the caller's:
 * an engine whose lines carry them adds nothing to them. */
void scn_stats_add_task(struct scn_stats *line, const struct scn_stats *task);

/* Sorts v and fills st's lateness percentiles and stalls from it: the
 * rule of trace/scenario.h, every engine the same. */
void scn_stats_lateness(struct scn_stats *st, uint64_t *v, size_t n, uint64_t stall_ns);

/* Task line t's value of metric m: a share as a fraction of a CPU (the
 * mean over the line's tasks), the stall share as a fraction of wakeups,
 * lateness in ns, work in iterations a second (per task), counts summed.
 * NAN if the engine cannot say (work on paper; lateness without
 * wakeups).
 *
 * The stall share counts wakeups only: a periodic target already past
 * when the task went to sleep is missed, never slept for, and so in
 * neither part of stalls / (wakeups - dropped). Two metrics say what
 * that leaves out, over the targets whose fate is known, T = wakeups -
 * dropped + missed (docs/experiments.md, "Missed targets"):
 *   missed_share  missed / T
 *   stall_grid    (stalls + missed) / T: every target of the grid
 *                 counted once, a missed one as late; --missed-late
 *                 shows it in the stall column's place. (cyclictest
 *                 skips a target already past as runq does: its share
 *                 is the stall share's definition.) */
double scn_metric_value(const struct scenario *s, const struct scn_result *r, int t, enum scn_metric m);

/* ---- the kernel engine (host/scenario/kprog.c) ---- */

/* The scenario as `scn` shell lines (trace/scenario.h), each at most
 * SCN_PROG_LINE_MAX - 1 bytes, into lines (an array of at most max
 * strings the caller frees). Returns how many, or -1 with err. */
int scn_kprog(const struct scenario *s, char **lines, int max, char *err, size_t errlen);

/* Reads the kernel's answer (the console text of a run) into r. 0, or -1
 * with err saying what was missing or wrong. */
int scn_kresult(const struct scenario *s, const char *console, struct scn_result *r, char *err, size_t errlen);

#endif
