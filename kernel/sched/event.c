#include "event.h"
#include "sched.h"
#include "../arch/x86_64/clock.h"

void event_init(struct event *e)
{
    spin_init(&e->lock, "event");
    e->pending = false;
    e->head = e->tail = NULL;
}

static void remove_waiter(struct event *e, struct task *t)
{
    struct task **pp = &e->head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->ev_next) {
        if (*pp == t) {
            *pp = t->ev_next;
            if (e->tail == t)
                e->tail = prev;
            t->ev_next = NULL;
            return;
        }
    }
}

bool event_wait_until(struct event *e, u64 deadline)
{
    struct task *self = current();
    u64 flags = spin_lock_irqsave(&e->lock);
    if (e->pending) {
        e->pending = false;
        spin_unlock_irqrestore(&e->lock, flags);
        return true;
    }
    self->ev_signalled = false;
    self->ev_next = NULL;
    if (e->tail)
        e->tail->ev_next = self;
    else
        e->head = self;
    e->tail = self;
    spin_unlock_irqrestore(&e->lock, flags);

    /* The signaller takes us off the list and sets ev_signalled under the
     * lock, then wakes us: Blocking is published before we look again. */
    for (;;) {
        task_prepare_block();
        flags = spin_lock_irqsave(&e->lock);
        bool done = self->ev_signalled || (deadline && clock_ns() >= deadline);
        spin_unlock_irqrestore(&e->lock, flags);
        if (done) {
            task_cancel_block();
            break;
        }
        task_block(deadline);
    }

    flags = spin_lock_irqsave(&e->lock);
    bool got = self->ev_signalled;
    if (!got)
        remove_waiter(e, self);
    spin_unlock_irqrestore(&e->lock, flags);
    return got;
}

bool event_wait(struct event *e)
{
    return event_wait_until(e, 0);
}

void event_signal(struct event *e)
{
    u64 flags = spin_lock_irqsave(&e->lock);
    struct task *t = e->head;
    if (t) {
        e->head = t->ev_next;
        if (!e->head)
            e->tail = NULL;
        t->ev_next = NULL;
        t->ev_signalled = true;
    } else {
        e->pending = true;
    }
    spin_unlock_irqrestore(&e->lock, flags);
    if (t)
        task_wake(t);
}
