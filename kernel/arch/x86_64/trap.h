/* Interrupts and exceptions: the IDT, the saved frame, vector numbers. */
#ifndef RUNQ_TRAP_H
#define RUNQ_TRAP_H
#include "../../lib/types.h"

/* Layout pushed by entry.S (lowest address first). */
struct trap_frame {
    u64 r15, r14, r13, r12, r11, r10, r9, r8;
    u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
    u64 vector, error;
    u64 rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

enum {
    VEC_TIMER = 32,    /* LAPIC one-shot timer: tick, sleepers, slice end */
    VEC_RESCHED = 33,  /* another CPU pushed onto our wake stack */
    VEC_HALT = 34,     /* panic on another CPU: stop here */
    VEC_SPURIOUS = 0xff,
};

/* What the layer above (the scheduler) does on the interrupts that drive
 * it: the timer, the reschedule IPI, and the way out of any interrupt (a
 * decision may be due). Set once, before interrupts are enabled; until
 * then those interrupts are only acknowledged. */
struct trap_hooks {
    void (*timer)(void);
    void (*resched)(void);
    void (*irq_exit)(void);
};
void trap_set_hooks(const struct trap_hooks *h);

void idt_init(void); /* builds the table (boot CPU, once) */
void idt_load(void); /* loads it on this CPU */
void trap_dispatch(struct trap_frame *f);

#endif
