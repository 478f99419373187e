/*
 * Kernel tasks. Every task has a home CPU (its queue), chosen at creation
 * (pinned, or the CPU with the fewest tasks), and a set of CPUs it may run
 * on (cpus_allowed). A task moves to another CPU when its set no longer
 * holds its home (it moves at once if it is queued, else when it next
 * wakes), when a higher class takes its CPU and the knob
 * replace_on_release sends it to an idle one (core.c, "moving tasks"),
 * and, with the balancing switches on, when balance.c places it at a
 * wakeup or pulls it to another CPU. A moving task goes through its new CPU's wake stack,
 * state Waking, like a wakeup; the core's locking rule "a task's fields
 * change under its home queue's lock" holds because t->cpu itself changes
 * only under the old home's lock, while the task is on no queue.
 *
 * RunState (the state word) says where a task is with its queue, and every
 * change between Queued, Blocking, Sleeping and Waking is a compare-and-swap
 * so that of two wakers, or of a waker and a sleep deadline, exactly one
 * wins (docs/kernel.md has the diagram):
 *
 *   Queued   -> Blocking   the task itself, about to block (task_prepare_block)
 *   Blocking -> Queued     a waker came first: the block is called off
 *   Blocking -> Sleeping   its CPU, in schedule(): the task leaves the queue
 *   Sleeping -> Waking     one waker, or the sleep deadline: push on wake stack
 *   Waking   -> Queued     its CPU, draining the wake stack: joins the queue
 */
#ifndef RUNQ_SCHED_TASK_H
#define RUNQ_SCHED_TASK_H
#include "../lib/types.h"
#include "policy.h"
#include "../trace/trace.h"

enum run_state {
    RUN_QUEUED,
    RUN_BLOCKING,
    RUN_SLEEPING,
    RUN_WAKING,
    RUN_DEAD,
};

#define TASK_NAME_LEN 16

struct task {
    struct sched_entity se;
    int id;
    char name[TASK_NAME_LEN];
    u64 rsp;     /* saved stack pointer while switched out */
    void *stack; /* TASK_STACK_SIZE bytes; NULL for a CPU's boot context */
    unsigned cpu;       /* home CPU: the queue it is on or joins next */
    u64 cpus_allowed;   /* bit n: it may run on CPU n */
    bool pinned;        /* created on one CPU */
    bool moving;        /* on its new home's wake stack, to join it by migrating */
    u8 join_why;        /* enum trace_join_reason of its last join by the wake stack */
    bool is_idle;
    u32 state; /* enum run_state; changed only as above */

    u64 sleep_deadline; /* while blocking with a deadline; 0 = none */
    bool on_sleep_list;
    struct task *sleep_next, *sleep_prev;
    struct task *wake_next; /* wake stack link */
    struct trace_rec_join join_rec; /* its last join by waking, for the trace (trace.h) */

    /* accounting, written by the home CPU */
    u64 runtime_ns;
    u64 exec_start;   /* when its run time was last charged */
    u64 stint_start;  /* when it last went on the CPU */
    u64 wake_ts;      /* when woken, until it runs (0: not waiting) */
    u64 displaced_ts; /* when preempted, until it runs again */
    u64 woken_run_ts; /* when it last ran after a wakeup: the pick's clock */
    u64 nvcsw, nivcsw; /* switches away from it: it blocked or yielded / it was displaced */

    /* event wait (event.c) */
    struct task *ev_next;
    bool ev_signalled;

    /* pipe wait (pipe.c): on a pipe's list of readers or writers */
    struct task *pipe_next;
    bool pipe_waiting;

    void (*fn)(void *);
    void *arg;
    struct task *all_next;    /* list of all tasks (ps) */
    struct task *zombie_next; /* exited, waiting to be recycled (task.c) */
};

#endif
