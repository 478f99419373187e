/*
 * Recording Linux's scheduler into the trace database: tracefs's raw
 * per-CPU pages (host/engine/linux/tracefs.h, host/engine/linux/ftrace.h) while a scenario runs,
 * then Linux's events as runq's records (trace/format.h), fed to the
 * writer (db/writer.h) as one trace, in time order.
 *
 * How Linux's events become records:
 *   - one STREAM (policy "eevdf", ncpus the host's, tick_hz its HZ,
 *     cmdline "linux <release>"); no tracepoint says V, lag or deadlines,
 *     so a record has TRACE_RF_NO_EEVDF unless the BPF recorder
 *     (host/engine/linux/bpfrec.h) sampled the same moment: then its PICK, JOIN and
 *     LEAVE carry Linux's own numbers and each pick of a scenario thread
 *     is followed by a KEYFRAME of its queue; none is ever invented;
 *   - TASK_NEW at the trace's first time for each scenario thread, and for
 *     each CPU n two pseudo tasks: its idle task (LXREC_IDLE_TID(n),
 *     TRACE_TF_IDLE, "idle") and "other" (LXREC_OTHER_TID(n)), which
 *     stands for every task that is not the scenario's (kernel threads,
 *     other programs, runq's own threads) while it runs on CPU n;
 *   - sched_switch: LEAVE of prev (preempt, release, block or exit) and
 *     PICK of next, on the CPUs the scenario uses and on any CPU a
 *     scenario thread ran on (from then on): a switch between two "other"
 *     tasks is no event, unless who ran there was not known (the trace's
 *     start, after a gap): then it is the PICK of "other";
 *   - sched_waking: WAKE (the waker: the scenario thread, "other" of its
 *     CPU, or none with TRACE_WF_TIMER in an interrupt); sched_wakeup:
 *     JOIN wake; sched_wakeup_new: JOIN new; sched_migrate_task: a
 *     MIGRATE with the rule the call path shows (wake, newidle,
 *     periodic, else unknown: lxrec.c's move_reason) and no per-CPU
 *     loads, then for a queued thread LEAVE migrate + JOIN migrate; sched_process_exit:
 *     TASK_EXIT after the thread's last switch;
 *   - a page that says events were lost, or could not be read, is a gap
 *     (db_writer_gap) before that CPU's next event: unknown, never idle.
 * What is dropped (events about no scenario thread and no tracked CPU)
 * is counted in the stats, as are the pages, events, malformed pages and
 * each loss counter of per_cpu/cpuN/stats that is not zero.
 */
#ifndef RUNQ_LINUX_LXREC_H
#define RUNQ_LINUX_LXREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "db/derive.h"

/* The pseudo tasks' ids: the top of the task ids the writer takes
 * (db/derive.h's DERIVE_MAX_TID, 2^22, where the ids are defined for every
 * reader), which Linux hands out only when its pid_max is at its limit
 * (4194304) and it has wrapped; lxrec_write refuses a scenario thread
 * whose id falls there. */
#define LXREC_PSEUDO_BASE DERIVE_LINUX_PSEUDO_BASE
#define LXREC_IDLE_TID(cpu) DERIVE_LINUX_IDLE_TID(cpu)
#define LXREC_OTHER_TID(cpu) DERIVE_LINUX_OTHER_TID(cpu)

struct lxrec;

struct lxrec_opts {
    unsigned buffer_kb; /* per CPU; 0: 16384 */
    uint64_t rt_cpus;   /* the CPUs RT tasks of the run may take (a subset of avoid_cpus) */
    /* Record Linux's EEVDF state too (host/engine/linux/bpfrec.h): switches on
     * bpf_cpus (0: all) and wakeups touching process bpf_tgid's threads
     * (0: any). Without it, or when BPF cannot be had, the trace is
     * tracefs's alone (lxrec_internals_missing says why). */
    bool internals;
    uint64_t bpf_cpus;
    int bpf_tgid;
};

/* Starts recording every CPU's scheduler events; a reader thread drains
 * the per-CPU raw buffers into memory every ~50 ms (so the kernel buffer
 * does not overflow on busy runs) and pins itself to a CPU of
 * `avoid_cpus`' complement if there is one; else to a CPU no RT task may
 * take (o->rt_cpus' complement), beside fair tasks only; else it runs at
 * SCHED_FIFO 99, above every RT task linux_refuses_rt_hog lets run, so
 * that RT tasks on every CPU cannot hold it off. NULL with a one-line message
 * in err (no root or tracefs: what is missing and the command that fixes
 * it). */
struct lxrec *lxrec_start(const struct lxrec_opts *o, uint64_t avoid_cpus, char *err, size_t errlen);

/* NULL when the EEVDF internals are being recorded; else one line
 * saying why not and what would give them. */
const char *lxrec_internals_missing(const struct lxrec *r);

/* For benches: turns the BPF recorder off (its programs detached) or on
 * again mid-run; picks in the time off carry no internals. 0, or -1 with
 * err (no BPF recorder in this run, or the attach failed). */
int lxrec_internals_on(struct lxrec *r, bool on, char *err, size_t errlen);

/* Stops tracing, drains what is left, removes the instance. Call it on
 * the normal path, also after a stop flag (SIGINT). 0, or -1 with err
 * (the recording so far can still be written). */
int lxrec_stop(struct lxrec *r, char *err, size_t errlen);

struct lxrec_task {
    pid_t tid;
    const char *name;
    int nice;
    uint64_t slice_ns;
    bool rt;
    unsigned rt_prio;
    unsigned rt_policy; /* TRACE_RT_FIFO/RR */
    int cpu;            /* its home CPU; < 0: the first CPU of scn_cpus */
};

struct lxrec_meta {
    const char *db;             /* database path */
    const char *source;         /* trace.source text, e.g. "linux:scenarios/x.scn" */
    const char *kernel_version; /* uname -r */
    unsigned ncpus, hz;         /* host CPUs online, CONFIG_HZ */
    uint64_t scn_cpus;          /* mask of the CPUs the scenario uses */
    const struct lxrec_task *tasks;
    unsigned ntasks;            /* the scenario's threads */
    uint64_t t_start, t_end;    /* CLOCK_MONOTONIC ns of the measured window: MARK "start" and "end" (source host) */
    const char *end_reason;     /* NULL: the trace is complete ("end"); else incomplete, e.g. "interrupted" */
};

/* Writes the recording as one trace of the database (the writer's own
 * path: STREAM, TASK_NEW ..., records in time order, gaps, stats), then
 * its per-CPU counters (table counter, every 100 ms of trace time and at
 * the end: switches, wakes, idle_ns, busy_ns, migrations, cumulative from
 * the trace's start; migrations counts every move of a task's CPU away
 * from this one, wakeup placement included, as Linux's nr_migrations
 * does). Call after lxrec_stop. 0 with *trace_id, or -1 with err. */
int lxrec_write(struct lxrec *r, const struct lxrec_meta *m, int64_t *trace_id, char *err, size_t errlen);

/* What CPU cpu of the scenario did in the measured window (m->t_start..
 * t_end) besides running the scenario's threads or idling, from the
 * written trace's slices clipped to it, so a query over the trace gives
 * the same numbers: *other, the CPU time of tasks other than the
 * scenario's (other programs, kernel threads, runq's own threads: the
 * slices of "other"); *unknown, the window's time no slice covers (a gap;
 * a CPU that ran nothing the trace saw, as when the hypervisor did not
 * run it). lxrec_write stores them for each CPU of m->scn_cpus as the
 * stats rows foreign_cpu_ns and unknown_cpu_ns, idx = the CPU. false for
 * a CPU it did not (not the scenario's, no window, or not written). */
bool lxrec_foreign_ns(const struct lxrec *r, unsigned cpu, uint64_t *other, uint64_t *unknown);

/* Removes the instance if still there, frees r (NULL: nothing). */
void lxrec_free(struct lxrec *r);

/* What the decoding counted so far (lxrec_write fills it). */
struct lxrec_counts {
    uint64_t pages, pages_malformed, events, missed, pages_lost_memory, dropped;
};
void lxrec_counts(const struct lxrec *r, struct lxrec_counts *c);

#endif
