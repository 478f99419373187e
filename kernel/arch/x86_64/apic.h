/*
 * Local APIC: the per-CPU one-shot timer and inter-processor interrupts.
 * The timer is always one-shot: the scheduler re-arms it for whatever comes
 * first (its tick, the head of the sleep list, the end of a slice), so an
 * idle CPU with nothing due is never interrupted.
 */
#ifndef RUNQ_APIC_H
#define RUNQ_APIC_H
#include "../../lib/types.h"

void lapic_init(u64 base); /* boot CPU: maps the base, enables; then per CPU: */
void lapic_enable_this_cpu(void);
u32 lapic_id(void);
void lapic_eoi(void);

/* Measures the timer's rate against the reference clock (clock.c). */
void lapic_calibrate(void);
/* Fires VEC_TIMER once, ns from now (clamped to the counter's range). */
void lapic_timer_oneshot(u64 ns);
void lapic_timer_stop(void);

void lapic_send_ipi(u32 apic_id, u8 vector);
void lapic_send_ipi_all_but_self(u8 vector);
void lapic_send_init(u32 apic_id);
void lapic_send_sipi(u32 apic_id, u32 page);

#endif
