#include "ring.h"
#include "../../trace/format.h"
#include "../lib/bug.h"
#include "../lib/string.h"

static void copy_in(struct trace_ring *r, u64 at, const void *src, u32 n)
{
    u32 off = (u32)(at & (TRACE_RING_SIZE - 1)), first = TRACE_RING_SIZE - off;
    if (first > n)
        first = n;
    memcpy(r->buf + off, src, first);
    memcpy(r->buf, (const u8 *)src + first, n - first);
}

static void copy_out(const struct trace_ring *r, u64 at, void *dst, u32 n)
{
    u32 off = (u32)(at & (TRACE_RING_SIZE - 1)), first = TRACE_RING_SIZE - off;
    if (first > n)
        first = n;
    memcpy(dst, r->buf + off, first);
    memcpy((u8 *)dst + first, r->buf, n - first);
}

bool ring_put(struct trace_ring *r, const void *rec, u32 size)
{
    /* rec itself is the spare: where it would wrap, commit copies it in. */
    void *p = ring_reserve(r, size, (void *)rec);
    if (!p)
        return false;
    if (p != rec)
        memcpy(p, rec, size);
    ring_commit(r, p, size);
    return true;
}

/* A reserved record that would have wrapped, built in the caller's spare
 * buffer: copied in now (the room was checked at reserve). */
void ring_commit_spare(struct trace_ring *r, const void *rec, u32 size)
{
    copy_in(r, r->head, rec, size);
    __atomic_store_n(&r->head, r->head + size, __ATOMIC_RELEASE);
}

/* The size field of the record at byte `at` (its header may wrap). */
static u16 size_at(const struct trace_ring *r, u64 at)
{
    u32 off = (u32)(at & (TRACE_RING_SIZE - 1)) + (u32)offsetof(struct trace_rec_hdr, size);
    u16 size;
    if (off + sizeof size <= TRACE_RING_SIZE) {
        memcpy(&size, r->buf + off, sizeof size);
        return size;
    }
    struct trace_rec_hdr h;
    copy_out(r, at, &h, sizeof h);
    return h.size;
}

/* Finds how many whole records fit, reading only their sizes, and copies
 * them in one go: per record, a copy is several instructions of setup,
 * and the tracer's instructions are guest time under icount. When all
 * that is waiting fits (the usual case: a tracer round takes a few KiB
 * of a 64 KiB packet), it is taken whole without reading a size: the
 * producer moves head by whole records only. */
u32 ring_take(struct trace_ring *r, u8 *out, u32 max)
{
    u64 tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    u32 n = 0;
    if (head - tail <= max) {
        n = (u32)(head - tail);
        copy_out(r, tail, out, n);
        __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
        return n;
    }
    while (head - (tail + n) >= sizeof(struct trace_rec_hdr)) {
        u16 size = size_at(r, tail + n);
        /* Only this ring's CPU writes it, whole records: a size smaller
         * than a header is a kernel bug (and would loop here forever). */
        BUG_ON(size < sizeof(struct trace_rec_hdr));
        if (n + size > max)
            break;
        n += size;
    }
    copy_out(r, tail, out, n);
    __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
    return n;
}

u32 ring_used(const struct trace_ring *r)
{
    return (u32)(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
}
