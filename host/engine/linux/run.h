/*
 * The Linux engine's runner: a scenario (host/scenario/scenario.h) run as
 * threads of this process on the host's own Linux, each scenario task
 * instance one thread with its nice, slice, affinity or RT class set
 * through Linux's own calls, measured the way runq's kernel measures it
 * (kernel/sched/scn.c): the same steps, the same periodic targets from the
 * same seed (trace/scenario.h), the same lateness rule (scn_stats_lateness).
 *
 *   host/engine/linux/refuse.c  what this host's Linux cannot run as written, and its tick
 *   host/engine/linux/run.c     the run: threads, start line, window, results
 *
 * The recorder (host/engine/linux/lxrec.*) and the glue (host/engine/linux/engine.c) call these.
 * Scenario CPU n is host CPU n; a task with no cpu= may use CPUs
 * 0..cpus-1.
 */
#ifndef RUNQ_LINUX_RUN_H
#define RUNQ_LINUX_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "host/scenario/scenario.h"

/* One scenario task as Linux made it: what was asked and what Linux took
 * (every value read back after it was set). */
struct linux_thread {
    unsigned instance;   /* its place once counts are expanded */
    pid_t tid;           /* Linux's thread id (the trace's pid) */
    char name[16];       /* its instance name (hog3), also its comm */
    int task;            /* its task line (index into scenario.tasks) */
    int cpu;             /* first CPU of its mask */
    uint64_t cpumask;    /* the affinity set, as sched_getaffinity reads it */
    int nice;            /* getpriority's answer */
    uint64_t slice_asked_ns, slice_got_ns; /* sched_attr.sched_runtime asked, and read back (a fair task's slice) */
    bool rt;
    unsigned rt_prio, rt_policy; /* SCN_PROG_RT_FIFO / RR */
};

struct linux_run_opts {
    /* Set by a signal handler: end the run early (linux_run returns -1,
     * err "interrupted ..."). May be NULL. */
    const volatile sig_atomic_t *stop;
    /* Called once every thread exists with its attributes set and waits
     * at the start line, before the window opens; a nonzero return aborts
     * the run with err filled. The recorder starts here. May be NULL. */
    int (*ready)(void *ctx, const struct linux_thread *t, unsigned n, char *err, size_t errlen);
    /* The window has closed (before the threads are joined). May be NULL. */
    void (*ended)(void *ctx);
    /* For tests: called by instance's own thread each time it draws a
     * periodic target (missed ones too), CLOCK_MONOTONIC ns. Concurrent
     * calls for different instances. NULL in a real run. */
    void (*target)(void *ctx, unsigned instance, uint64_t target_ns);
    void *ctx;
    /* One line per adjustment the engine made ("probe: slice 50us asked,
     * Linux gives 100us"), or NULL. */
    FILE *notes;
    /* Run RT tasks that never sleep on every CPU (linux_refuses_rt_hog). */
    bool allow_rt_hog;
    /* For benches (make bench): every alternate_ns of the window, the
     * conductor calls alternate(ctx, on) to turn the recorder off, then
     * on again, and notes each task line's wake p50 and iterations a
     * second in each state, as with/without ratios measured in one run
     * (host/engine/linux/alternate.c). 0 or NULL: never. A nonzero return (err
     * filled) stops the alternation with a note; the run goes on. */
    uint64_t alternate_ns;
    int (*alternate)(void *ctx, bool on, char *err, size_t errlen);
};

struct linux_run_info {
    uint64_t t_start, t_end; /* CLOCK_MONOTONIC ns of the measured window */
    /* The probe's own cost: one check of a run loop (a thread-CPU-clock
     * read), the median of many, measured before the run. A run step
     * overshoots by about this much. */
    uint64_t check_ns;
    char kernel[65];         /* uname -r */
    unsigned hz, host_cpus;  /* linux_hz(); online CPUs */
    struct linux_thread thread[SCN_MAX_INSTANCES];
    unsigned nthreads;
};

/* 0 if this host's Linux can run s as written; else -1 with the reason in
 * err, "name:line: ..." naming the scenario line (its directive's, or the
 * task line's). Looks, changes nothing: a write permission is tested by
 * opening for writing, an RT priority by a trial thread that exits. */
int linux_refuses(const struct scenario *s, char *err, size_t errlen);

/* 0 unless s's RT tasks that never sleep (no sleep, every, read or exit
 * step) could hold every CPU this process may use at once, leaving the
 * host's own threads only what RT throttling leaves: then -1 with err
 * naming the task line, unless allowed (--allow-rt-hog). Refused even
 * when allowed at prio 99: the engine's conductor and trace reader run
 * at SCHED_FIFO 99 to stay above the scenario's tasks. */
int linux_refuses_rt_hog(const struct scenario *s, bool allowed, char *err, size_t errlen);

/* True when this process sits in the root task group while the host
 * groups sessions (autogroup on, /proc/self/autogroup empty): started from
 * init's session (a service, a CI runner), not from a shell's. The
 * scenario's threads then share their CPU's queue with every other such
 * program, and a pick beside them cannot be replayed (runq report
 * fidelity's "other in queue"); `setsid` gives the run a queue of its own. */
bool linux_root_task_group(void);

/* Runs s (refusing it first as linux_refuses and linux_refuses_rt_hog
 * do); fills r (engine
 * "linux", has_iters true) and info. 0, or -1 with err; after a stop
 * request r and info hold what was measured up to it. o may be NULL.
 * The calling thread (the conductor) moves off the scenario's CPUs for
 * the run when it may use another CPU, before ready() (so a thread
 * ready() starts is born there too), and back when it returns. */
int linux_run(const struct scenario *s, const struct linux_run_opts *o, struct scn_result *r,
              struct linux_run_info *info, char *err, size_t errlen);

/* CONFIG_HZ of the running kernel: from /boot/config-$(uname -r) or
 * /proc/config.gz, else measured (jiffies over 200 ms); 0 if unknown.
 * Cached after the first call. */
unsigned linux_hz(void);

/* The host's online CPUs as a mask (bits 0..63), from
 * /sys/devices/system/cpu/online; 0 if unreadable. */
uint64_t linux_online_cpus(void);

/* A CPU list as Linux writes them ("0-1", "0,2-3") into a mask of CPUs
 * 0..63: false for anything else, a CPU past 63, or an empty list. */
bool linux_parse_cpulist(const char *s, uint64_t *mask);

#endif
