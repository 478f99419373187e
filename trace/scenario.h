/*
 * The scenario program: how the host hands a scenario to runq's kernel and
 * how the kernel answers. The one source of truth for both sides, as
 * trace/format.h is for the trace stream: the host compiles a scenario
 * file (host/scenario/kprog.c) into shell lines, the kernel's interpreter
 * (kernel/sched/scn.c, the shell's `scn`) runs them and prints one
 * result line per task, which the host reads back (host/experiment/experiment.c).
 * Freestanding: macros, an enum and static inline arithmetic that the
 * kernel, runq sim and the host engines all use, so every engine draws the
 * same periodic targets from the same seed.
 *
 * ---- The lines, host to kernel (each at most SCN_PROG_LINE_MAX - 1) ----
 *
 * Before them the host sets the machine with the shell's own lines, not
 * scn's: `sched feature NAME on|off` for each EEVDF switch and `sched knob
 * NAME VALUE` for each knob the scenario sets (kernel/sched/knob.h), in an
 * order the kernel accepts one at a time (scn_knob_order).
 *
 *   scn reset
 *   scn task NAME COUNT CPUMASK NICE SLICE_NS ARRIVE_NS [RT_PRIO RT_POLICY]
 *          a task line: COUNT tasks called NAME; CPUMASK in hex, bit n for
 *          CPU n, 0 for any; SLICE_NS 0 for the policy's default. With
 *          RT_PRIO (1..99, 99 highest) and RT_POLICY (fifo or rr) its tasks
 *          are in the RT class (NICE and SLICE_NS then 0); without, fair,
 *          so a line of before the RT class means what it meant. Each task
 *          starts on a CPU of CPUMASK (in turn) and may move within it
 *   scn pipe NAME COPIES SIZE
 *          a pipe (numbered from 0 in the order given): COPIES bounded byte
 *          channels of SIZE bytes each; task instance k of a line uses
 *          copy k % COPIES (a pipe per pair, or one for all)
 *   scn step STEP...
 *          appends steps to the last task line; STEP is r:NS (run NS of
 *          CPU time), s:NS[:JIT] (sleep NS, or a length drawn as a
 *          period is: a target about NS out), e:NS:JIT (sleep until the next
 *          periodic target, NS the period, JIT its jitter in per mille),
 *          y (yield), x (exit, last), i:P:N (read N bytes from pipe P,
 *          blocking while it is empty) or o:P:N (write N bytes to pipe P,
 *          blocking while it is full)
 *   scn start RUN_NS SEED STALL_NS
 *          runs the scenario for RUN_NS of guest time and prints results
 *
 * ---- The answer, kernel to host (the console) ---------------------------
 *
 *   scn begin tasks=N cpus=N run_ns=N
 *   scn task i=I group=G name=NAME tid=T cpu=C window_ns=N runtime_ns=N
 *            wakeups=N missed=N stalls=N dropped=N p50=N p90=N p99=N
 *            p999=N max=N iters=N vcsw=N ivcsw=N reads=N
 *   scn group g=G name=NAME tasks=N wakeups=N stalls=N dropped=N p50=N
 *            p90=N p99=N p999=N max=N
 *   scn end ok|failed
 *
 * (a result line is one line; it is folded here only). Lateness values
 * (p50 .. max) are ns; a wakeup's lateness is when it ran less when its
 * sleep should have ended (its periodic target, or the end of its sleep).
 * reads counts the pipe reads that got their bytes (each ends a handoff).
 * dropped counts wakeups that happened but whose lateness was not kept
 * (the sample store was full): they are in wakeups, not in the
 * percentiles, and never silently.
 */
#ifndef RUNQ_TRACE_SCENARIO_H
#define RUNQ_TRACE_SCENARIO_H

#include <stdint.h>

#define SCN_PROG_LINE_MAX 200
#define SCN_PROG_MAX_GROUPS 26
#define SCN_PROG_MAX_TASKS 64
#define SCN_PROG_MAX_STEPS 16
#define SCN_PROG_MAX_PIPES 8
#define SCN_PROG_PIPE_MAX 65536 /* bytes a pipe holds, at most */
#define SCN_PROG_NAME_MAX 8
/* A jitter is at most ±100 % of its period, less a little: a drawn period
 * is never 0. */
#define SCN_PROG_JITTER_MAX 999
/* RT priorities and policies (the kernel's rt.h: RT_FIFO 0, RT_RR 1). */
#define SCN_PROG_RT_PRIO_MAX 99
#define SCN_PROG_RT_FIFO 0
#define SCN_PROG_RT_RR 1
/* The RT_POLICY words of `scn task`, indexed by SCN_PROG_RT_*. */
#define SCN_PROG_RT_POLICY_NAMES { "fifo", "rr" }

enum scn_prog_step {
    SCN_PROG_RUN,
    SCN_PROG_SLEEP,
    SCN_PROG_EVERY,
    SCN_PROG_YIELD,
    SCN_PROG_EXIT,
    SCN_PROG_READ,
    SCN_PROG_WRITE,
};

/* The step letters of `scn step`, indexed by enum scn_prog_step. */
#define SCN_PROG_STEP_LETTERS "rseyxio"

/*
 * The random draws: a task's xorshift64 state starts from the scenario's
 * seed and the task's instance index (its place once counts are
 * expanded), so every engine gives instance i the same sequence.
 */
static inline uint64_t scn_rng_init(uint64_t seed, unsigned instance)
{
    uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(instance + 1) * 0xbf58476d1ce4e5b9ull);
    return x ? x : 0x2545f4914f6cdd1dull;
}

static inline uint64_t scn_rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* One period drawn uniformly from [period - j, period + j], j = period ×
 * jitter / 1000: the next target is the last one plus this (every:), or
 * now plus this (a jittered sleep:). */
static inline uint64_t scn_draw_period(uint64_t *x, uint64_t period,
                                                 unsigned jitter_permille)
{
    uint64_t j = period * jitter_permille / 1000;
    if (j == 0)
        return period;
    return period - j + scn_rng_next(x) % (2 * j + 1);
}

/* The percentile rule every engine and the SQL use: of n sorted values,
 * the one at index (n - 1) × per_mille / 1000, rounded down. */
static inline uint64_t scn_rank(uint64_t n, unsigned per_mille)
{
    return n ? (n - 1) * per_mille / 1000 : 0;
}

#endif
