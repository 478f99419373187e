/*
 * The scheduler core: tasks, decisions, the wake protocol and timers.
 * Policies are reached only through sched_policy_current (policy.h).
 */
#ifndef RUNQ_SCHED_H
#define RUNQ_SCHED_H
#include "../lib/types.h"
#include "task.h"

/* Why a decision is made (kept for the trace and the counters). */
enum sched_why {
    WHY_TICK,
    WHY_IPI,
    WHY_YIELD,
    WHY_BLOCK,
    WHY_SLICE,
    WHY_PREEMPT, /* preempt_enable or a local wakeup */
    WHY_IDLE,
    WHY_EXIT,
};

extern const struct sched_policy *sched_policy_current;
extern u64 sched_tick_ns;
extern unsigned sched_hz;

/* Boot CPU, once: choose the policy and tick, before any task exists. */
void sched_init(const struct sched_policy *policy, unsigned hz);
/* Each CPU: turns the running context into this CPU's idle task, which is
 * an ordinary task in the queue (running bring-up code) until idle_enter. */
void sched_init_cpu(unsigned cpu);
/* The calling CPU's idle task stops taking turns and idles forever. */
__attribute__((noreturn)) void idle_enter(void);

/* Creates a runnable task. cpu < 0: the CPU with the fewest tasks (not pinned). */
struct task *task_create(const char *name, void (*fn)(void *), void *arg, int cpu, int nice);
/* The same, in the RT class at rt_prio 1..99 with RT_FIFO or RT_RR (rt.h);
 * rt_prio 0 is task_create. */
struct task *task_create_rt(const char *name, void (*fn)(void *), void *arg, int cpu, unsigned rt_prio,
                            unsigned rt_policy);
/* Moves t to the RT class (rt_prio 1..99) or the fair one (0), running or
 * not, as Linux's __sched_setscheduler() does. Not while EEVDF keeps it
 * queued while blocked (delayed): then false, and *why says so. */
bool task_set_class(struct task *t, unsigned rt_prio, unsigned rt_policy, const char **why);
/* The CPUs t may run on: bit n for CPU n, 0 for all. If its home is not
 * among them it moves now when queued and waiting, else when it next wakes
 * or is put back. False (nothing changed) for no CPU that exists, or the
 * idle task. */
bool task_set_allowed(struct task *t, u64 mask);
__attribute__((noreturn)) void task_exit(void);
struct task *current(void);

void task_yield(void);
void task_sleep_ns(u64 ns);

/*
 * Blocking, in three steps, so that a wakeup between deciding to block and
 * blocking is never lost:
 *     task_prepare_block();       state Queued -> Blocking (a locked xchg)
 *     if (work is already there) task_cancel_block(); else task_block(deadline);
 * The waker publishes its work first and then calls task_wake().
 */
void task_prepare_block(void);
void task_cancel_block(void);
/* Switches away until woken, or until deadline (clock_ns; 0 = none). */
void task_block(u64 deadline);
/* Wakes t if it is blocking or asleep; true if this call won. Any context. */
bool task_wake(struct task *t);

void preempt_disable(void);
void preempt_enable(void);

/* Changes a task's nice (-20..19) / requested slice; false if out of range. */
bool task_set_nice(struct task *t, int nice);
bool task_set_slice(struct task *t, u64 slice_ns);
/* Run time including the current stint if it is running. */
u64 task_runtime_ns(struct task *t);
/* The same as at time now, taken on any CPU without t's queue lock (rq.h's
 * books_seq), so a reader never waits for a busy queue. */
u64 task_runtime_ns_unlocked(struct task *t, u64 now);


/* Iterates all tasks under the task-list lock (for ps, lookups). */
void tasks_for_each(void (*fn)(struct task *t, void *arg), void *arg);
struct task *task_find(int id); /* the task, or NULL; valid until it exits */

const char *run_state_name(u32 state);

#endif
