/*
 * The seed's experiments, shared by the shell (sched probe, sched share)
 * and the boot self-tests.
 *
 * probe: N spinners (tasks that never yield) pinned to one CPU, a waiter
 * pinned beside them asleep on an event, and the caller, on another CPU,
 * signalling it after random gaps (xorshift64 from a fixed seed, so runs
 * are reproducible and the gaps cannot line up with the tick or a slice)
 * and timing how long until the waiter runs.
 *
 * share: one spinner per nice value pinned to one CPU for a window; each
 * one's share of that CPU in per mille.
 */
#ifndef RUNQ_SCHED_PROBE_H
#define RUNQ_SCHED_PROBE_H
#include "../lib/types.h"

#define PROBE_MAX_SPINNERS 16
#define PROBE_MAX_SAMPLES 1000

struct probe_result {
    unsigned spinners, samples;
    u64 p50_ns, p99_ns, max_ns;
    unsigned over_1ms; /* wakeups that waited longer than 1 ms (not printed) */
    unsigned share_permille[PROBE_MAX_SPINNERS];
    u64 window_ns;
    /* the probe effect: records the loaded CPU wrote in the window, and
     * about how long they took it (kernel/trace/trace.h's trace_cost) */
    u64 trace_records, trace_ns;
};

/* The variant of the probe's random gaps: the boot's seed=N (0: the
 * documented one). Set once at boot, before any probe runs. */
void probe_set_seed(u64 seed);

/* The CPU the experiments load: 1 if there is one, else 0. */
unsigned probe_cpu(void);

/* Runs the probe from the calling task (which must not be on probe_cpu()
 * unless there is only one CPU). False with a message if it cannot. */
bool probe_run(unsigned spinners, unsigned samples, struct probe_result *r);
/* The same with the waiter asking for its own slice (0: the default). */
bool probe_run_slice(unsigned spinners, unsigned samples, u64 waiter_slice_ns, struct probe_result *r);

/* Runs n spinners with the given nice values for window_ns. */
bool share_run(const int *nices, unsigned n, u64 window_ns, unsigned *permille);
/* The same, and counts the decisions probe_cpu() made in the window. */
bool share_run_counted(const int *nices, unsigned n, u64 window_ns, unsigned *permille, u64 *decisions);

#endif
