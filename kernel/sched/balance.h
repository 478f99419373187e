/*
 * Moving tasks on the scheduler's own initiative (balance.c): where a
 * woken task runs, a CPU about to go idle pulling a waiting task, and the
 * periodic balance. Each is a feature switch of eevdf_features.h
 * (BALANCE_WAKE with WA_IDLE and WA_WEIGHT, BALANCE_NEWIDLE,
 * BALANCE_PERIODIC), all off by default: off, these functions move
 * nothing. What to decide is balance_rules.c's (the same source runq
 * sim and the fuzzers run); these fill its picture of the machine and
 * move what it chooses. The core (core.c) calls them with its locks as said below;
 * every move goes through the core's one way of moving a task (send_to,
 * via move_queued for a queued one), which traces it (MIGRATE, with its
 * reason) and refuses, with BUG_ON, a CPU outside the task's set.
 */
#ifndef RUNQ_SCHED_BALANCE_H
#define RUNQ_SCHED_BALANCE_H
#include "../lib/types.h"
#include "../../trace/format.h"
#include "rq.h"
#include "task.h"

/* The CPU woken t (Waking, on no queue, not the current task of its
 * home) should join: its home, or another CPU of its set, by Linux's
 * select_task_rq_fair() without energy awareness. waker: the CPU the
 * wakeup runs on. *why: the rule that chose (meaningful when the answer
 * is not t->cpu). t's home's lock held. */
unsigned balance_wake_cpu(const struct task *t, unsigned waker, enum trace_migrate_reason *why);

/* rq (CPU `cpu`, whose lock is held) found nothing to run: pulls one
 * waiting task from the busiest CPU onto its own wake stack, as Linux's
 * sched_balance_newidle(). True if one is coming (drain the stack and
 * decide again). */
bool balance_newidle(struct rq *rq, unsigned cpu, u64 now);

/* Woken tasks are joining rq at now: ends the idle stretch a newidle
 * balance began, for the average it is cut off by. Lock held. */
void balance_note_wake(struct rq *rq, u64 now);

/* When rq's periodic balance is next due, arming it if it is not
 * (busy: something runs there), or UINT64_MAX when BALANCE_PERIODIC is
 * off. balance_periodic() runs it if due (from the timer interrupt).
 * Lock held. */
u64 balance_next(struct rq *rq, bool busy, u64 now);
void balance_periodic(struct rq *rq, unsigned cpu, u64 now);

/* A new CPU's balance state (sched_init_cpu). */
void balance_init_cpu(struct rq *rq);

/* Linux's available_idle_cpu(): the CPU runs its idle task, idling, and
 * has no wakeup on its way. Read without its lock: a hint. */
bool balance_cpu_idle(unsigned cpu);

/* ---- core.c's, for balance.c ---- */

/* May t run on cpu (its set, cpus_allowed)? */
bool cpu_allowed(const struct task *t, unsigned cpu);
/* Blocked but kept queued by EEVDF (DELAY_DEQUEUE): it cannot move. */
bool delayed(const struct task *t);
/* t, queued on rq and not running, leaves for dst's queue carrying its
 * lag; traced MIGRATE (why), LEAVE and JOIN migrate. False if it cannot
 * go now. rq's lock held. */
bool move_queued(struct rq *rq, struct task *t, unsigned dst, enum trace_migrate_reason why);

#endif
