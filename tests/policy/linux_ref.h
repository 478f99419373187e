/*
 * The differential test's reference side (issue 14): Linux 6.18's fair
 * class, one CPU, decided from the rules in kernel/sched/fair.c and
 * features.h, not from runq's kernel/sched/eevdf.c.
 *
 * Four files:
 *   tests/policy/linux_ref_parse.c  the subset of `runq sim`'s workload format the
 *                            reference reads (docs/sim.md), plus `yield`
 *   tests/policy/linux_ref_gen.c    random single-CPU workloads from a seed
 *   tests/policy/linux_ref.c        the decision procedure and its `runq sim -v`
 *                            style output
 *   tests/policy/linux_ref_main.c   the command line
 *
 * The workload is read again here, with its own small structure: only what
 * the reference needs, so that a slip in runq's parser cannot hide in both
 * sides. Shared with runq: Linux's weight table, the duration words
 * (host/scenario/duration.c) and the random stream (host/engine/sim/rng.h).
 * Every duration is in ns.
 */
#ifndef RUNQ_TESTS_LINUX_REF_H
#define RUNQ_TESTS_LINUX_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LREF_MAX_TASKS 26
#define LREF_MAX_SEGS 16
#define LREF_NAME_MAX 8
#define LREF_MAX_QUANTA 100000

/* Linux's sched_feat() switches that runq's eevdf_features.h also has,
 * with 6.18's defaults (features.h), and the later commits runq models as
 * switches: REQUEUE_UPDATE_CURR (333238da9a19, off as in 6.18) and
 * LAG_CLAMP_MAX_SLICE (6e3c0a4e1ad1, in 6.18-stable, so on, as in runq).
 * LAB_LEAVE_BUG is runq's own and refused. */
#define LREF_FEATURES(X)                 \
    X(PLACE_LAG, true)                   \
    X(PLACE_DEADLINE_INITIAL, true)      \
    X(RUN_TO_PARITY, true)               \
    X(PREEMPT_SHORT, true)               \
    X(DELAY_DEQUEUE, true)               \
    X(DELAY_ZERO, true)                  \
    X(HRTICK, false)                     \
    X(REQUEUE_UPDATE_CURR, false)        \
    X(LAG_CLAMP_MAX_SLICE, true)

enum lref_feature {
#define LREF_FEATURE_ENUM(name, on) LREF_F_##name,
    LREF_FEATURES(LREF_FEATURE_ENUM)
#undef LREF_FEATURE_ENUM
    LREF_NR_FEATURES
};

/* The feature called name, or -1. */
int lref_feature_lookup(const char *name);
const char *lref_feature_name(enum lref_feature f);
bool lref_feature_default(enum lref_feature f);

enum lref_seg_kind {
    LREF_SEG_RUN,   /* wants the CPU for ns of CPU time */
    LREF_SEG_SLEEP, /* off the queue for ns of wall time */
    LREF_SEG_YIELD, /* sched_yield() where the step before it ended; takes no time */
    LREF_SEG_EXIT,  /* only ever last */
};

struct lref_seg {
    enum lref_seg_kind kind;
    uint64_t ns;
};

struct lref_task_spec {
    char name[LREF_NAME_MAX + 1];
    int nice;
    uint64_t slice_ns; /* sched_attr::sched_runtime; 0: none (the base slice) */
    uint64_t arrive_ns;
    int nsegs;         /* 0: runs forever */
    struct lref_seg segs[LREF_MAX_SEGS];
};

struct lref_workload {
    unsigned cpus;       /* scales sysctl_sched_base_slice only */
    uint64_t quantum_ns;
    uint64_t tick_ns;    /* TICK_NSEC; 0: one quantum */
    uint64_t run_ns;
    int8_t feature[LREF_NR_FEATURES]; /* -1: the default, else 0/1 */
    int ntasks;
    struct lref_task_spec tasks[LREF_MAX_TASKS];
};

/* Defaults as `runq sim`'s: 4 CPUs, 1 ms quantum, tick = quantum, 32 quanta. */
void lref_workload_init(struct lref_workload *w);

/* Reads the format of docs/sim.md (policy must be eevdf) with one more
 * pattern step, `yield`. 0, or -1 with "name:line: message" in err. */
int lref_parse(FILE *f, const char *name, struct lref_workload *w, char *err, size_t errlen);

/* Writes w so that lref_parse, and `runq sim` when w has no yield, read it
 * back. */
void lref_workload_print(FILE *out, const struct lref_workload *w);

/* A random single-CPU workload from seed: 2..5 tasks, nice values,
 * requested slices, arrivals, run/sleep patterns, a tick of one to four
 * quanta; with switches, every feature on or off at random; with yields,
 * some run steps followed by a yield. */
void lref_generate(uint64_t seed, bool switches, bool yields, struct lref_workload *w);

/*
 * The departures from Linux runq had (issue 14's D1..D6 and the smaller
 * ones), all fixed since. Each can still be put into the reference, which
 * then decides as the old runq did in that respect only:
 * tests/policy/linux_diff.sh tries them one at a time to tell which old behaviour
 * a new difference looks like. (tests/bugs/linux/ puts them back into runq
 * instead, to prove the differential test catches each.)
 */
#define LREF_COMPATS(X)                                                                 \
    X(D1, "protection without RUN_TO_PARITY uses the CPU-scaled base slice")           \
    X(D2, "a shorter-sliced waker trims the protection even with PREEMPT_SHORT off")    \
    X(D3, "the tick picks early and asks only if the pick differs; no other resched")   \
    X(D4, "wakeup preemption finishes delayed entities and picks again")                \
    X(D5, "current is charged, and its deadline renewed, every quantum")               \
    X(D6, "HRTICK on by default, timer at the end of protection or the deadline")      \
    X(S1, "PREEMPT_SHORT needs the waker eligible and strictly earlier (6.12's rule)") \
    X(S2, "wakeup preemption is checked even with a resched pending")

enum lref_compat {
#define LREF_COMPAT_ENUM(name, what) LREF_C_##name,
    LREF_COMPATS(LREF_COMPAT_ENUM)
#undef LREF_COMPAT_ENUM
    LREF_NR_COMPATS
};

/* The departure called name ("D3"), or -1. */
int lref_compat_lookup(const char *name);

/* Runs w on one CPU as Linux 6.18 would, with the departures in the bit
 * mask compat, and prints what `runq sim -v` prints: the schedule, a
 * summary, and a block for every decision (every __schedule()). 0, or 1 if
 * out of memory. */
int lref_run(FILE *out, const struct lref_workload *w, uint32_t compat);

#endif
