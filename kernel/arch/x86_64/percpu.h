/*
 * Per-CPU data. Each CPU's GS base points at its struct cpu, whose first
 * field points at itself, so this_cpu() is one load and works in any
 * context. Fields are written only by their own CPU unless noted.
 */
#ifndef RUNQ_PERCPU_H
#define RUNQ_PERCPU_H
#include "../../lib/types.h"
#include "layout.h"
#include "../../sched/rq.h"

struct cpu {
    struct cpu *self; /* must stay first: %gs:0 */
    unsigned id;      /* index in cpus[] */
    u32 apic_id;
    volatile bool online;
    int preempt_count;  /* > 0: no involuntary switch on this CPU */
    bool need_resched;  /* a decision is due at the next chance (any CPU may set it only
                           through an IPI; see rq_kick) */
    bool in_sched;      /* inside schedule(): interrupts must not re-enter it */
    u8 resched_why;     /* enum sched_why of the decision need_resched asks for */
    struct rq rq;
};

extern struct cpu cpus[MAX_CPUS];
extern unsigned ncpus;

static inline struct cpu *this_cpu(void)
{
    struct cpu *c;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(c));
    return c;
}

/* Makes cpus[i] this CPU's per-CPU data (sets GS base). */
void percpu_install(unsigned i);

#endif
