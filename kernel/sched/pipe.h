/*
 * Pipes: a bounded byte channel between tasks, as a Unix pipe. A read
 * takes what is there (at least one byte), blocking while the pipe is
 * empty; a write puts all its bytes in, blocking while the pipe is full.
 * Each side wakes the other's waiters through task_wake() (the RunState
 * protocol and the wake stack, task.h): no wakeup path of its own.
 *
 * Any number of readers and writers; a change wakes every waiter of the
 * other side, and each looks again under the lock (Linux's pipe_read()
 * and pipe_write() wake all their waiters the same way). A wakeup on this
 * CPU preempts at once if the policy says so: the pipe wakes under its
 * lock with preemption off and lets the decision happen when it is
 * released (preempt_enable), as Linux's wake_up_interruptible_sync_poll()
 * defers it to the end of the write.
 */
#ifndef RUNQ_SCHED_PIPE_H
#define RUNQ_SCHED_PIPE_H
#include "../lib/spinlock.h"
#include "task.h"

struct pipe {
    struct spinlock lock;
    u8 *buf;
    u32 size, head, count; /* ring of size bytes; count of them from head */
    struct task *readers, *writers; /* waiting, linked by pipe_next */
    u64 bytes_in, bytes_out;        /* since init */
};

/* An empty pipe over buf (size bytes, at least 1). */
void pipe_init(struct pipe *p, u8 *buf, u32 size);

/* Reads up to n bytes into dst (NULL: drop them), at least 1, blocking
 * while the pipe is empty. Returns how many; 0 only if *stop became true
 * while it waited (stop may be NULL: never). Task context only. */
u32 pipe_read(struct pipe *p, void *dst, u32 n, const volatile bool *stop);

/* Writes all n bytes of src (NULL: zero bytes), blocking while the pipe
 * is full. Returns n, or how many went in before *stop became true. Task
 * context only. */
u32 pipe_write(struct pipe *p, const void *src, u32 n, const volatile bool *stop);

#endif
