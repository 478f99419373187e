/*
 * Per-CPU scheduler counters (the seed's step 0). They are written under
 * the queue's lock (by the owning CPU; run-time charges also by a CPU
 * renicing a task there), with plain relaxed stores: there is one writer
 * at a time, so no update can be lost, and a reader on another CPU sees
 * each 64-bit value whole, from before an update or after it. Atomic
 * read-modify-writes would be locked instructions on every decision for
 * nothing.
 *
 * Waits are kept in log2 buckets of microseconds: bucket 0 holds waits
 * under 1 us, bucket b >= 1 holds [2^(b-1), 2^b) us. A percentile is
 * reported as its bucket's upper bound, "<2^b us".
 */
#ifndef RUNQ_SCHED_STATS_H
#define RUNQ_SCHED_STATS_H
#include "../lib/types.h"

#define WAIT_BUCKETS 32
#define RUNNABLE_BUCKETS 9 /* 0..7 runnable tasks, and 8 or more */

struct wait_hist {
    u64 n, sum_ns, max_ns;
    u64 bucket[WAIT_BUCKETS];
};

struct sched_stats {
    struct wait_hist wake;      /* woken (or sleep deadline) -> running */
    struct wait_hist displaced; /* preempted while runnable -> running again */
    u64 decisions, decision_ns, decision_max_ns;
    u64 touched; /* tasks looked at by decisions: policy pick + wakes drained */
    u64 switches;          /* decisions that changed the running task */
    u64 idle_ns, busy_ns;  /* time the idle task idled / anything else ran */
    u64 ticks, tick_runnable;
    u64 tick_runnable_hist[RUNNABLE_BUCKETS];
    u64 releases_rt;  /* fair tasks that lost the CPU to the RT class */
    u64 rt_ns;        /* time RT tasks ran (also in busy_ns) */
    u64 rt_throttled; /* times the RT budget ran out */
    u64 migrations;   /* tasks moved from this CPU's queue to another's */
};

void stats_record_wait(struct wait_hist *h, u64 ns);
void stats_record_decision(struct sched_stats *s, u64 ns, unsigned touched);
void stats_record_tick(struct sched_stats *s, unsigned runnable);

/* Copies a CPU's counters (another CPU may be writing: each field whole). */
void stats_snapshot(const struct sched_stats *s, struct sched_stats *out);
/* a - b, field by field (a later snapshot minus an earlier one). */
void stats_diff(const struct sched_stats *a, const struct sched_stats *b, struct sched_stats *out);
/* Upper bound in us of the bucket holding the given per-mille percentile; 0 if empty. */
u64 stats_percentile_us(const struct wait_hist *h, unsigned permille);

#endif
