/*
 * Pipes (pipe.h). A waiter puts itself on the pipe's list and publishes
 * Blocking (task_prepare_block) with the lock held, then drops the lock
 * and blocks: a change that comes in between takes it off the list and
 * wakes it, which turns the Blocking back to Queued, so task_block()
 * returns at once and the waiter looks again. Nothing is lost in that
 * window; TestPipeRing passes bytes round a ring of tasks on every CPU
 * with small pipes so that both sides block, and fails on a stall or a
 * lost, extra or reordered byte.
 */
#include "pipe.h"
#include "sched.h"
#include "../lib/bug.h"
#include "../lib/string.h"

void pipe_init(struct pipe *p, u8 *buf, u32 size)
{
    BUG_ON(!buf || size == 0);
    spin_init(&p->lock, "pipe");
    p->buf = buf;
    p->size = size;
    p->head = p->count = 0;
    p->readers = p->writers = NULL;
    p->bytes_in = p->bytes_out = 0;
}

/* Wakes every task on *list and empties it. Lock held, preemption off:
 * a woken task on this CPU gets its decision at preempt_enable(). The
 * list is walked under the lock because a woken task may wait again, on
 * another list, as soon as it runs. */
static void wake_all(struct task **list)
{
    for (struct task *t = *list, *next; t; t = next) {
        next = t->pipe_next;
        t->pipe_next = NULL;
        t->pipe_waiting = false;
#ifdef RUNQ_BUG_PIPE_LOST_WAKEUP
        /* Test-proving bug: one wakeup in 500 is forgotten (the waiter
         * stays off the list, asleep). TestPipeRing must fail. */
        static u32 n;
        if (++n % 500 == 0)
            continue;
#endif
        task_wake(t);
    }
    *list = NULL;
}

static void remove_waiter(struct task **list, struct task *self)
{
    for (struct task **pp = list; *pp; pp = &(*pp)->pipe_next)
        if (*pp == self) {
            *pp = self->pipe_next;
            self->pipe_next = NULL;
            self->pipe_waiting = false;
            return;
        }
}

/* Waits on *list until woken (lock held on entry and on return; flags
 * are the saved interrupt state). */
static u64 wait_on(struct pipe *p, struct task **list, u64 flags)
{
    struct task *self = current();
    if (!self->pipe_waiting) {
        self->pipe_next = *list;
        *list = self;
        self->pipe_waiting = true;
    }
    task_prepare_block();
    spin_unlock_irqrestore(&p->lock, flags);
    preempt_enable();
    task_block(0);
    preempt_disable();
    return spin_lock_irqsave(&p->lock);
}

u32 pipe_read(struct pipe *p, void *dst, u32 n, const volatile bool *stop)
{
    u8 *out = dst;
    u32 got = 0;
    if (n == 0)
        return 0;
    preempt_disable();
    u64 flags = spin_lock_irqsave(&p->lock);
    while (p->count == 0 && !(stop && *stop))
        flags = wait_on(p, &p->readers, flags);
    remove_waiter(&p->readers, current()); /* woken by something else, or stopped */
    while (got < n && p->count > 0) {
        if (out)
            out[got] = p->buf[p->head];
        p->head = (p->head + 1) % p->size;
        p->count--;
        got++;
    }
    p->bytes_out += got;
    if (got)
        wake_all(&p->writers);
    spin_unlock_irqrestore(&p->lock, flags);
    preempt_enable();
    return got;
}

u32 pipe_write(struct pipe *p, const void *src, u32 n, const volatile bool *stop)
{
    const u8 *in = src;
    u32 put = 0;
    preempt_disable();
    u64 flags = spin_lock_irqsave(&p->lock);
    while (put < n) {
        while (p->count == p->size && !(stop && *stop))
            flags = wait_on(p, &p->writers, flags);
        if (p->count == p->size) /* stopped */
            break;
        u32 before = put;
        while (put < n && p->count < p->size) {
            p->buf[(p->head + p->count) % p->size] = in ? in[put] : 0;
            p->count++;
            put++;
        }
        p->bytes_in += put - before;
        wake_all(&p->readers);
    }
    remove_waiter(&p->writers, current());
    spin_unlock_irqrestore(&p->lock, flags);
    preempt_enable();
    return put;
}
