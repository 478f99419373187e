/*
 * A CPU's trace ring: single producer (its CPU, interrupts off while it
 * writes a record), single consumer (the tracer task, any CPU). Bytes, with
 * wrap-around; head and tail count bytes since boot and never wrap in
 * practice (64 bits). Records are published whole: the producer stores
 * head with release after the record's bytes, the consumer loads it with
 * acquire, and the mirror for tail, so neither ever sees half a record or
 * overwrites unread bytes.
 */
#ifndef RUNQ_KTRACE_RING_H
#define RUNQ_KTRACE_RING_H
#include "../lib/types.h"

#define TRACE_RING_SIZE (256u * 1024u) /* power of two */

struct trace_ring {
    u8 *buf;
    u64 head;    /* written by the producer */
    u64 tail;    /* written by the consumer */
    u32 dropped; /* records that did not fit: producer, free-running */
    u32 seq;     /* packets framed from this ring: consumer */
    /* producer's own bookkeeping for keyframes and counters */
    u64 last_periodic;
    u32 dropped_at_periodic;
    u32 keyframe_asked; /* any CPU sets it (trace_ask_keyframes), the producer clears it */
    /* producer: what writing cost (trace_cost_of) */
    u64 records, timed, timed_ns;
};

/* Producer: appends one record, or counts it dropped. Caller has
 * interrupts off and is the ring's CPU. */
bool ring_put(struct trace_ring *r, const void *rec, u32 size);
/*
 * Producer, for a record built where it will stay (no copy): ring_reserve
 * returns the ring's own bytes when `size` fit there without wrapping,
 * `spare` (the caller's buffer, size bytes) when they would wrap, and NULL
 * when the ring is full (the record is counted dropped). ring_commit
 * publishes what was reserved. The caller is the ring's CPU with
 * interrupts off from reserve to commit. Inline: a record on the
 * scheduler's path pays no call and no copy (under icount, every
 * instruction is guest time).
 */
/* Producer: n records that were not written, counted (the count travels
 * in every packet header). */
static inline void ring_count_dropped(struct trace_ring *r, u32 n)
{
    __atomic_store_n(&r->dropped, r->dropped + n, __ATOMIC_RELAXED);
}

static inline void *ring_reserve(struct trace_ring *r, u32 size, void *spare)
{
    u64 head = r->head, tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!r->buf || TRACE_RING_SIZE - (head - tail) < size, 0)) {
        ring_count_dropped(r, 1);
        return NULL;
    }
    u32 off = (u32)(head & (TRACE_RING_SIZE - 1));
    return off + size <= TRACE_RING_SIZE ? r->buf + off : spare;
}

void ring_commit_spare(struct trace_ring *r, const void *rec, u32 size);

static inline void ring_commit(struct trace_ring *r, const void *rec, u32 size)
{
    if (rec < (const void *)r->buf || rec >= (const void *)(r->buf + TRACE_RING_SIZE))
        ring_commit_spare(r, rec, size);
    else
        __atomic_store_n(&r->head, r->head + size, __ATOMIC_RELEASE);
}

/* Consumer: copies whole records (at most max bytes) out; returns bytes. */
u32 ring_take(struct trace_ring *r, u8 *out, u32 max);
/* Bytes waiting (consumer's view). */
u32 ring_used(const struct trace_ring *r);

#endif
