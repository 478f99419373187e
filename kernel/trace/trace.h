/*
 * Kernel tracing: every scheduling event, as records of trace/format.h,
 * into a per-CPU ring (emit.c). These are the scheduler's emit points:
 * they read struct task and struct rq, and the core calls them. The
 * tracer task that sends the rings to the host is tracer.h's.
 *
 * Emitting takes no lock: each CPU writes only its own ring, with its
 * interrupts off for the few stores a record takes, so task and interrupt
 * context on one CPU never interleave; the tracer reads the ring from any
 * CPU (single producer, single consumer, head and tail published with
 * release/acquire). When a ring is full the record is dropped and counted;
 * nothing ever waits for the host. With tracing off (or the record type
 * masked out) an emit point costs one predictable branch on trace_mask.
 */
#ifndef RUNQ_KTRACE_H
#define RUNQ_KTRACE_H
#include "../lib/types.h"
#include "../../trace/format.h"

struct task;
struct rq;

/* Bit (1 << type) set: records of that type are emitted. 0: tracing off. */
extern u32 trace_mask;

static inline bool trace_on(enum trace_rec_type type)
{
    return __builtin_expect((trace_mask >> type) & 1, 0);
}

/*
 * What writing records has cost a CPU since boot (the probe effect that
 * sched probe and a scenario run print): the records its emit points
 * wrote, and one in TRACE_COST_EVERY of them timed from the record's clock
 * read to its publication (the views it reads, its stores). Timing every
 * one would cost a clock read a record; one in 64 costs a branch.
 */
#define TRACE_COST_EVERY 64
struct trace_cost {
    u64 records, timed, timed_ns;
};
void trace_cost_of(unsigned cpu, struct trace_cost *c);
/* The records written between two readings a and b, and about how long
 * they took (b's average over every timed one; 0 when none was timed). */
u64 trace_cost_ns(const struct trace_cost *a, const struct trace_cost *b);

#ifdef RUNQ_TRACE_SELFCOST
#include "../arch/x86_64/layout.h"
/* What emitting and draining cost, in guest ns (a variant build only: see
 * tests/kernel/bench_trace_emit.sh). [cpu][type]: records built in place; the
 * tracer's rounds are counted under type 0. */
struct trace_selfcost {
    u64 n, ns, bytes;
};
extern struct trace_selfcost trace_selfcost[MAX_CPUS][TRACE_REC_NR_TYPES];
#endif

/* A JOIN's numbers are taken at the join (trace/format.h, version 3),
 * while the queue is locked during the decision, into the record itself
 * (struct task's join_rec), which trace_join() emits after the decision.
 *
 * trace_join_note fills r with t's placement on rq now, right after its
 * join, lag_before being what it brought; the check part says "not
 * asked". trace_join_note_curr fills the check part from current as it is
 * now (the check is about to be asked), with the answer still to come,
 * and takes t's eligibility again (current's charge before the check
 * moves V). Queue lock held. */
void trace_join_note(struct rq *rq, const struct task *t, s64 lag_before, struct trace_rec_join *r);
/* The lag t has now, just before it joins rq (the JOIN's lag_before): the
 * policy's describe's, read as trace_join_note reads its numbers. */
s64 trace_join_lag(const struct rq *rq, const struct task *t);
void trace_join_note_curr(struct rq *rq, const struct task *t, struct trace_rec_join *r);

/* The emit points. rq is the CPU's queue, locked by the caller where the
 * argument is there. */
void trace_task(enum trace_rec_type type, const struct task *t);
void trace_wake(const struct task *waker, const struct task *wakee, bool timer);
/* note: the JOIN as trace_join_note took it; NULL, or one not filled
 * since t's last JOIN (tracing came on in between): its numbers now. */
void trace_join(struct rq *rq, const struct task *t, enum trace_join_reason why, struct trace_rec_join *note);
void trace_pick(struct rq *rq, const struct task *prev, const struct task *next, enum trace_pick_why why,
                u64 cost_ns, unsigned touched);
void trace_leave(struct rq *rq, const struct task *t, enum trace_leave_reason why, u64 run_ns);
/* t moves from its home to dst for why (mflags: TRACE_MF_*): with every
 * CPU's runnable count and fair load as they are now, read without their
 * locks (what the rule that chose saw, give or take a racing change).
 * t's home's lock held. */
void trace_migrate(const struct task *t, unsigned dst, enum trace_migrate_reason why, u8 mflags);
/* n records this CPU could not write: counted as the ring's drops, so the
 * host sees the loss (and a keyframe follows). Interrupts off. */
void trace_dropped(u32 n);
void trace_tick(struct rq *rq);
void trace_set(const struct task *t, enum trace_set_what what, s64 old_value, s64 new_value, const char *name);
void trace_mark(enum trace_mark_source source, const char *name);
/* Keyframe and counters of this CPU's queue, if their period has come (or
 * the ring dropped records since the last one, or trace_ask_keyframes
 * (tracer.h) asked). rq locked. */
void trace_periodic(struct rq *rq, u64 now);

#endif
