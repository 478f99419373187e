/*
 * What the scheduler's own files share and nothing else may call: the
 * task lifecycle (task.c) makes and frees tasks for the core (core.c),
 * which alone puts them on queues; task.c calls nothing of core.c's. Not
 * for other modules: they use sched.h.
 */
#ifndef RUNQ_SCHED_INTERNAL_H
#define RUNQ_SCHED_INTERNAL_H
#include "task.h"

/* core.c: where every new task's first switch lands (task.c points its
 * stack here): drops the queue lock, runs t->fn, exits. */
void task_start(struct task *t);

/* task.c: a new task, allocated (or recycled) and set up to start in fn
 * on its home CPU (cpu, or the one with the fewest tasks when cpu < 0),
 * not yet on a queue: task_create() starts it. */
struct task *task_make(const char *name, void (*fn)(void *), void *arg, int cpu, int nice, unsigned rt_prio,
                       unsigned rt_policy);
/* task.c: this CPU's boot context as a task (its idle task). */
struct task *task_alloc_boot(unsigned cpu);
/* task.c: frees an exited task later, off its own stack (any CPU). */
void task_reap_later(struct task *t);

#endif
