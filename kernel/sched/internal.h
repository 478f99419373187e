/*
 * What the scheduler's own files share and nothing else may call: the
 * core (core.c) and the task lifecycle (task.c) hand tasks to each other
 * here. Not for other modules: they use sched.h.
 */
#ifndef RUNQ_SCHED_INTERNAL_H
#define RUNQ_SCHED_INTERNAL_H
#include "task.h"

/* core.c: puts a new task, allocated and set up by task.c, on its queue. */
void sched_start_task(struct task *t);
/* core.c: where every new task's first switch lands (task.c points its
 * stack here): drops the queue lock, runs t->fn, exits. */
void task_start(struct task *t);

/* task.c: this CPU's boot context as a task (its idle task). */
struct task *task_alloc_boot(unsigned cpu);
/* task.c: frees an exited task later, off its own stack (any CPU). */
void task_reap_later(struct task *t);

#endif
