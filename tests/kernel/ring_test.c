/*
 * The kernel's trace ring (kernel/trace/ring.c), compiled for the host:
 * records built in place (ring_reserve/ring_commit), records copied in
 * (ring_put), and the consumer's bulk ring_take, over many laps of the
 * ring so that records land across its end (the reserve's spare path) in
 * every phase. Each record's bytes are a function of its sequence number,
 * so a byte out of place, a record lost or one read twice is caught.
 * Prints PASS name / FAIL name: why; exits 1 on a failure (tests/harness.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/trace/ring.h"
#include "trace/format.h"
#include "tests/harness.h"

static u8 ring_buf[TRACE_RING_SIZE] __attribute__((aligned(64)));

static u8 byte_of(u64 seq, unsigned i)
{
    return (u8)(seq * 131 + i * 7 + 1);
}

/* Record seq: 12..108 bytes, its header saying so, the rest a pattern. */
static u16 size_of(u64 seq)
{
    return (u16)(sizeof(struct trace_rec_hdr) + (seq * 37) % 97);
}

static void fill(u8 *p, u64 seq)
{
    struct trace_rec_hdr h = { .type = TRACE_REC_MARK, .flags = 0, .size = size_of(seq), .ts_ns = seq };
    memcpy(p, &h, sizeof h);
    for (unsigned i = sizeof h; i < h.size; i++)
        p[i] = byte_of(seq, i);
}

/* Checks the records in buf[0..n) continue the sequence at *next. */
static int verify(const u8 *buf, u32 n, u64 *next, char *why, size_t wlen)
{
    u32 off = 0;
    while (off < n) {
        struct trace_rec_hdr h;
        memcpy(&h, buf + off, sizeof h);
        if (h.ts_ns != *next || h.size != size_of(*next)) {
            snprintf(why, wlen, "record %llu: header says %llu, %u bytes", (unsigned long long)*next,
                     (unsigned long long)h.ts_ns, h.size);
            return 0;
        }
        for (unsigned i = sizeof h; i < h.size; i++)
            if (buf[off + i] != byte_of(*next, i)) {
                snprintf(why, wlen, "record %llu: byte %u differs", (unsigned long long)*next, i);
                return 0;
            }
        off += h.size;
        (*next)++;
    }
    return off == n;
}

static void records_survive_many_laps(void)
{
    struct trace_ring r = { 0 };
    r.buf = ring_buf;
    static u8 out[TRACE_PKT_MAX_PAYLOAD], spare[128];
    u64 written = 0, next = 0, spares = 0;
    char why[120];
    /* Write in bursts of varied length, read in packets, until 20 laps. */
    while (r.head < 20ull * TRACE_RING_SIZE) {
        unsigned burst = 1 + (unsigned)(written % 3000); /* at most ~180 KB: never full */
        for (unsigned k = 0; k < burst; k++) {
            u16 size = size_of(written);
            if (written % 3 == 0) { /* the copy-in path, as keyframes use */
                u8 tmp[128];
                fill(tmp, written);
                if (!ring_put(&r, tmp, size))
                    break;
            } else {
                u8 *p = ring_reserve(&r, size, spare);
                if (!p)
                    break;
                spares += p == spare;
                fill(p, written);
                ring_commit(&r, p, size);
            }
            written++;
        }
        u32 n;
        while ((n = ring_take(&r, out, sizeof out)) != 0)
            CHECK(verify(out, n, &next, why, sizeof why), "%s", why);
    }
    CHECK(next == written, "read %llu of %llu records", (unsigned long long)next, (unsigned long long)written);
    CHECK(spares > 0, "no record was built in the spare: the wrap was never reached");
    CHECK(r.dropped == 0, "%u dropped with room to spare", r.dropped);
    harness_detail("%llu records, %llu across the end", (unsigned long long)written,
           (unsigned long long)spares);
}

static void a_full_ring_drops_and_counts(void)
{
    struct trace_ring r = { 0 };
    r.buf = ring_buf;
    static u8 spare[128], out[TRACE_PKT_MAX_PAYLOAD];
    u64 seq = 0;
    u8 *p;
    while ((p = ring_reserve(&r, size_of(seq), spare)) != NULL) {
        fill(p, seq);
        ring_commit(&r, p, size_of(seq));
        seq++;
    }
    CHECK(r.dropped == 1, "dropped %u, want 1", r.dropped);
    CHECK(TRACE_RING_SIZE - ring_used(&r) < size_of(seq), "refused with %u bytes free",
          TRACE_RING_SIZE - ring_used(&r));
    u8 tmp[128];
    fill(tmp, seq);
    CHECK(!ring_put(&r, tmp, size_of(seq)) && r.dropped == 2, "ring_put into a full ring: dropped %u", r.dropped);
    /* Taking makes room again, and what was written is intact. */
    u64 next = 0;
    char why[120];
    u32 n = ring_take(&r, out, sizeof out);
    CHECK(n > 0 && verify(out, n, &next, why, sizeof why), "after a full ring: %s", why);
    CHECK(ring_reserve(&r, size_of(seq), spare) != NULL, "no room after a take");
}

static void a_take_never_splits_a_record(void)
{
    struct trace_ring r = { 0 };
    r.buf = ring_buf;
    static u8 spare[128], out[256];
    for (u64 seq = 0; seq < 100; seq++) {
        u8 *p = ring_reserve(&r, size_of(seq), spare);
        fill(p, seq);
        ring_commit(&r, p, size_of(seq));
    }
    u64 next = 0;
    char why[120];
    u32 n;
    while ((n = ring_take(&r, out, 150)) != 0) {
        CHECK(n <= 150, "took %u bytes into 150", n);
        CHECK(verify(out, n, &next, why, sizeof why), "%s", why);
    }
    CHECK(next == 100, "read %llu of 100", (unsigned long long)next);
}

static const struct harness_test tests[] = {
    HARNESS_TEST(records_survive_many_laps),
    HARNESS_TEST(a_full_ring_drops_and_counts),
    HARNESS_TEST(a_take_never_splits_a_record),
};

HARNESS_MAIN(tests)
