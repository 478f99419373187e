/*
 * Events: one task waits, another signals. A signal with nobody waiting
 * stays pending and the next wait returns at once, so a signal is never
 * lost to a race with the waiter going to sleep. Several waiters are
 * woken one per signal, in the order they came.
 */
#ifndef RUNQ_SCHED_EVENT_H
#define RUNQ_SCHED_EVENT_H
#include "../lib/spinlock.h"
#include "task.h"

struct event {
    struct spinlock lock;
    bool pending;
    struct task *head, *tail; /* waiters, linked by ev_next */
};

void event_init(struct event *e);
/* Waits until signalled or until deadline (clock_ns; 0 = none). True if
 * signalled, false on timeout. */
bool event_wait_until(struct event *e, u64 deadline);
bool event_wait(struct event *e);
/* Wakes the longest waiter, or leaves the event pending. Any context. */
void event_signal(struct event *e);

#endif
