/*
 * A CPU's run queue (the seed's step 1): everything a decision needs and
 * nothing it does not.
 *
 *  - q: the policy's view, holding only runnable tasks (its list) and the
 *    one on the CPU (q.curr). A task that blocks leaves it, so a decision
 *    never steps over a task that cannot run.
 *  - sleep_head: tasks asleep until a deadline, soonest first. The one-shot
 *    timer is armed for the head; expiry looks only at the head.
 *  - idle: this CPU's idle task, kept apart. While it runs bring-up code it
 *    is an ordinary task in q and takes turns; only once it idles
 *    (idle_idling) is it the last resort when q is empty.
 *  - wake_stack: tasks woken since the last decision. Any CPU, from any
 *    context, pushes with a compare-and-swap; only this CPU takes it, whole,
 *    with one exchange at its next decision. Nothing is ever popped one at
 *    a time, so the stack has no ABA problem.
 *
 * Everything but wake_stack is protected by lock, taken with interrupts off.
 */
#ifndef RUNQ_SCHED_RQ_H
#define RUNQ_SCHED_RQ_H
#include "../lib/spinlock.h"
#include "policy.h"
#include "stats.h"

struct task;

struct rq {
    struct spinlock lock;
    struct sched_queue q;
    struct task *curr;       /* running on this CPU: a task in q, or idle */
    struct task *idle;
    bool idle_idling;
    struct task *sleep_head; /* by deadline */
    struct task *wake_stack; /* lock-free; see above */
    struct task *dead;       /* exited task to free after the switch away from it */
    u64 next_tick;           /* 0 while no policy task runs (tickless idle) */
    u64 slice_end;           /* policy timer (HRTICK); 0 if none */
    unsigned ntasks;         /* tasks homed here (placement of unpinned tasks) */
    u64 rt_period_end;       /* when the RT budget's period ends (core.c) */
    struct task *move_out;   /* put back by this decision, to move to move_dst once
                              * switched away from (its stack is in use until then) */
    unsigned move_dst;
    u8 move_why;             /* enum trace_migrate_reason of move_out's move */
    struct sched_stats stats;
    /* Odd while the books (a task's runtime_ns and exec_start, and curr)
     * are being changed: a reader on another CPU takes them without the
     * lock (task_runtime_ns_unlocked), which a busy queue would keep it
     * waiting for (under TCG a spinning vCPU can wait for milliseconds). */
    u32 books_seq;
};

#endif
