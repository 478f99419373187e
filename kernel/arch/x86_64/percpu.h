/*
 * Per-CPU data, the architecture's part. Each CPU's GS base points at its
 * per-CPU area, which begins with a struct percpu_head whose first field
 * points at the area itself, so percpu_area() is one load and works in any
 * context. What else an area holds belongs to the layer above (the
 * scheduler's struct cpu, kernel/sched/cpus.h); this layer knows only the
 * areas' base and size, and what it needs itself to start and reach a
 * CPU: its APIC id and whether it is online.
 */
#ifndef RUNQ_PERCPU_H
#define RUNQ_PERCPU_H
#include "../../lib/types.h"
#include "layout.h"

struct percpu_head {
    void *self;  /* must stay first: %gs:0 */
    unsigned id; /* index of this CPU */
};

extern unsigned ncpus;
/* Written once by the CPU that starts CPU i, before it starts. */
extern u32 cpu_apic_id[MAX_CPUS];

/* The per-CPU areas: an array of stride-byte areas at base, each beginning
 * with a struct percpu_head. Once, on the boot CPU, before percpu_install. */
void percpu_init(void *base, size_t stride);
/* Makes area i this CPU's per-CPU data (sets GS base). */
void percpu_install(unsigned i);

static inline void *percpu_area(void)
{
    void *a;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(a));
    return a;
}

/* This CPU's index; 0 before any per-CPU data exists (boot). */
int cpu_id_or_boot(void);

/* CPU i has come up and can take interrupts (it says so itself). */
void cpu_set_online(unsigned i);
bool cpu_online(unsigned i);

#endif
