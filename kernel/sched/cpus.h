/*
 * The CPUs as the scheduler sees them: each CPU's struct cpu is its
 * per-CPU area (arch/x86_64/percpu.h), the architecture's head first, then
 * the scheduler's state and the CPU's run queue. this_cpu() is one load in
 * any context. Fields are written only by their own CPU unless noted.
 */
#ifndef RUNQ_SCHED_CPUS_H
#define RUNQ_SCHED_CPUS_H
#include "../lib/types.h"
#include "../arch/x86_64/percpu.h"
#include "rq.h"

struct cpu {
    struct cpu *self; /* must stay first: %gs:0 (struct percpu_head) */
    unsigned id;      /* index in cpus[] */
    int preempt_count;  /* > 0: no involuntary switch on this CPU */
    bool need_resched;  /* a decision is due at the next chance (any CPU may set it only
                           through an IPI; see rq_kick) */
    bool in_sched;      /* inside schedule(): interrupts must not re-enter it */
    u8 resched_why;     /* enum sched_why of the decision need_resched asks for */
    bool resched_forced; /* a pick is due whatever wakeups bring (a tick, a timer,
                            a new task that preempts); without it, a decision
                            asked for by wakeups alone picks only if one of them
                            preempts, as Linux's try_to_wake_up() does */
    struct rq rq;
};
_Static_assert(offsetof(struct cpu, self) == offsetof(struct percpu_head, self) &&
                   offsetof(struct cpu, id) == offsetof(struct percpu_head, id),
               "struct cpu must begin with the architecture's per-CPU head");

extern struct cpu cpus[MAX_CPUS];

static inline struct cpu *this_cpu(void)
{
    return percpu_area();
}

#endif
