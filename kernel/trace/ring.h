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
};

/* Producer: appends one record, or counts it dropped. Caller has
 * interrupts off and is the ring's CPU. */
bool ring_put(struct trace_ring *r, const void *rec, u32 size);
/* Consumer: copies whole records (at most max bytes) out; returns bytes. */
u32 ring_take(struct trace_ring *r, u8 *out, u32 max);
/* Bytes waiting (consumer's view). */
u32 ring_used(const struct trace_ring *r);

#endif
