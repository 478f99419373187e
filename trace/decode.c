/*
 * The incremental trace decoder (contract in decode.h).
 *
 * The window holds bytes not yet consumed. parse() looks at its start: a
 * good header whose payload is complete and matches its CRC is a packet;
 * a good header whose payload has not arrived yet means "wait"; anything
 * else is one garbage byte, skipped. A bad payload CRC skips one byte too,
 * not the packet's length: a length read from a packet whose payload is
 * wrong may itself be right, but a cut inside the payload would then make
 * the reader swallow the next good packet.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace/decode.h"

#define HDR_SIZE sizeof(struct trace_pkt_hdr)
#define WINDOW (2 * (HDR_SIZE + TRACE_PKT_MAX_PAYLOAD))

/* ---- payload CRC ----
 * format.h's CRC with the crc32 instruction where the host has SSE4.2. On
 * tests/trace/trace_bench.sh's stream the table was 2.9 % of runq record's
 * profile, the instruction 0.2 % (perf). trace_decode_test checks both
 * agree. */
uint32_t trace_dec_crc32c(const void *buf, size_t len)
{
#if defined(__x86_64__)
    static int hw = -1;
    if (hw < 0) {
        __builtin_cpu_init();
        hw = __builtin_cpu_supports("sse4.2") && !getenv("RUNQ_NO_HW_CRC");
    }
    if (hw)
        return trace_crc32c_x86(buf, len);
#endif
    return trace_crc32c(buf, len);
}

int trace_decoder_init(struct trace_decoder *d, const struct trace_dec_ops *ops, void *ctx)
{
    memset(d, 0, sizeof *d);
    if (ops)
        d->ops = *ops;
    d->ctx = ctx;
    d->cap = WINDOW;
    d->buf = malloc(d->cap);
    return d->buf ? 0 : -1;
}

void trace_decoder_free(struct trace_decoder *d)
{
    free(d->buf);
    d->buf = NULL;
}

/* Is there a plausible header at p (n >= HDR_SIZE bytes)? */
static int header_ok(const uint8_t *p)
{
    const struct trace_pkt_hdr *h = (const struct trace_pkt_hdr *)p;
    if (h->magic != TRACE_PKT_MAGIC)
        return 0;
    if (h->cpu >= TRACE_MAX_CPUS && h->cpu != TRACE_CPU_GLOBAL)
        return 0;
    return trace_pkt_hdr_crc(h) == h->hcrc;
}

/* Checks the variable part of a record whose size is >= its fixed size. */
static int record_ok(const struct trace_rec_hdr *r)
{
    switch (r->type) {
    case TRACE_REC_STREAM: {
        const struct trace_rec_stream *s = (const struct trace_rec_stream *)r;
        return (size_t)sizeof *s + s->feature_names_len + s->cmdline_len <= r->size;
    }
    case TRACE_REC_KEYFRAME: {
        const struct trace_rec_keyframe *k = (const struct trace_rec_keyframe *)r;
        return sizeof *k + (size_t)k->nr * sizeof(struct trace_kf_entry) <= r->size;
    }
    case TRACE_REC_MIGRATE: {
        const struct trace_rec_migrate *m = (const struct trace_rec_migrate *)r;
        return sizeof *m + (size_t)m->ncpus * sizeof(struct trace_migrate_cpu) <= r->size;
    }
    default:
        return 1;
    }
}

static void end_skip_run(struct trace_decoder *d)
{
    if (d->skip_run && d->ops.resync)
        d->ops.resync(d->ctx, d->skip_run);
    d->skip_run = 0;
}

static void skip_bytes(struct trace_decoder *d, size_t n)
{
    if (!n)
        return;
    if (!d->skip_run)
        d->c.resyncs++;
    d->skip_run += n;
    d->c.bytes_skipped += n;
}

/* Does the stream-wide packet h begin with a stream header? */
static int opens_with_header(const struct trace_pkt_hdr *h, const uint8_t *payload)
{
    const struct trace_rec_hdr *r = (const struct trace_rec_hdr *)payload;
    return h->cpu == TRACE_CPU_GLOBAL && h->len >= sizeof(struct trace_rec_stream) &&
           r->type == TRACE_REC_STREAM && r->size >= sizeof(struct trace_rec_stream) && r->size <= h->len;
}

/* Counts good packet h, dropped whole, in the stream's and its CPU's
 * counter at offset off of struct trace_dec_counts, and its bytes. */
static void drop_packet(struct trace_decoder *d, const struct trace_pkt_hdr *h, size_t off)
{
    unsigned ci = trace_dec_cpu_index(h->cpu);
    ++*(uint64_t *)((char *)&d->c + off);
    ++*(uint64_t *)((char *)&d->cpu[ci] + off);
    d->c.bytes_dropped += HDR_SIZE + h->len;
}

/* Where packet h stands in its CPU's numbering: 0 to deliver it (lost and
 * dropped set), -1 to drop it (counted). A new stream is a stream-wide
 * packet numbered 0 that opens with a stream header and is not the same
 * bytes as the last one (that is a duplicate): the header alone is not
 * enough, since producers repeat it (format.h). */
static int sequence(struct trace_decoder *d, const struct trace_pkt_hdr *h, const uint8_t *payload,
                    uint32_t *lost, uint32_t *dropped)
{
    unsigned ci = trace_dec_cpu_index(h->cpu);
    struct trace_cpu_seq *s = &d->seq[ci];
    *lost = *dropped = 0;
    if (s->seen) {
        uint32_t step = h->seq - s->seq;
        if (step == 0 || step > 0x80000000u) {
            int same = step == 0 && h->crc == s->crc;
            if (same || h->seq != 0 || !opens_with_header(h, payload)) {
                drop_packet(d, h, step == 0 ? offsetof(struct trace_dec_counts, packets_duplicate)
                                             : offsetof(struct trace_dec_counts, packets_behind));
                return -1;
            }
            /* A new stream: every CPU's numbering starts again. */
            d->c.stream_restarts++;
            d->cpu[ci].stream_restarts++;
            memset(d->seq, 0, sizeof d->seq);
            return sequence(d, h, payload, lost, dropped);
        }
        *lost = step - 1;
        *dropped = h->dropped - s->dropped;
        if (*dropped > 0x80000000u) /* the counter went backwards: not a drop */
            *dropped = 0;
    } else if (h->seq == 0) {
        /* We saw this CPU from its first packet: all its drops count. */
        *dropped = h->dropped;
    }
    s->seen = 1;
    s->seq = h->seq;
    s->dropped = h->dropped;
    s->crc = h->crc;
    return 0;
}

static void deliver(struct trace_decoder *d, const struct trace_pkt_hdr *h, const uint8_t *payload)
{
    unsigned ci = trace_dec_cpu_index(h->cpu);
    struct trace_dec_counts *pc = &d->cpu[ci];
    uint32_t lost, dropped;

    end_skip_run(d);
    if (d->ended) {
        drop_packet(d, h, offsetof(struct trace_dec_counts, packets_after_end));
        return;
    }
    if (d->ncpus && ci != TRACE_DEC_GLOBAL && ci >= d->ncpus) {
        drop_packet(d, h, offsetof(struct trace_dec_counts, packets_bad_cpu));
        return;
    }
    if (sequence(d, h, payload, &lost, &dropped) != 0)
        return;
    if (lost || dropped) {
        d->c.gaps++;
        pc->gaps++;
    }
    d->c.packets_lost += lost;
    pc->packets_lost += lost;
    d->c.records_dropped += dropped;
    pc->records_dropped += dropped;
    d->c.packets++;
    pc->packets++;
    if (d->ops.packet)
        d->ops.packet(d->ctx, h, payload, lost, dropped);

    size_t off = 0, len = h->len;
    while (off < len) {
        const struct trace_rec_hdr *r = (const struct trace_rec_hdr *)(payload + off);
        if (len - off < sizeof *r || r->size < sizeof *r || r->size > len - off) {
            d->c.bad_records++;
            pc->bad_records++;
            break;
        }
        uint16_t min = trace_rec_min_size(r->type);
        if (min == 0) {
            d->c.unknown_records++;
            pc->unknown_records++;
        } else if (r->size < min || !record_ok(r)) {
            d->c.bad_records++;
            pc->bad_records++;
            break;
        } else {
            d->c.records++;
            pc->records++;
            if (r->type == TRACE_REC_STREAM) {
                const struct trace_rec_stream *st = (const struct trace_rec_stream *)r;
                if (st->ncpus >= 1 && st->ncpus <= TRACE_MAX_CPUS)
                    d->ncpus = st->ncpus;
            }
            if (d->ops.record)
                d->ops.record(d->ctx, h, r);
            if (r->type == TRACE_REC_END) {
                d->ended = 1; /* the rest of this packet too belongs to no trace */
                break;
            }
        }
        off += r->size;
    }
}

/* Consumes what it can from the window; returns bytes consumed. At the
 * end (final), an incomplete packet is truncated rather than awaited. */
static size_t parse(struct trace_decoder *d, int final)
{
    const uint8_t *b = d->buf;
    size_t pos = 0, n = d->len;

    while (n - pos >= HDR_SIZE) {
        if (!header_ok(b + pos)) {
            /* Scan for the next magic's first byte. */
            const uint8_t *m = memchr(b + pos + 1, TRACE_PKT_MAGIC & 0xff, n - pos - 1);
            size_t next = m ? (size_t)(m - b) : n;
            skip_bytes(d, next - pos);
            pos = next;
            continue;
        }
        const struct trace_pkt_hdr *h = (const struct trace_pkt_hdr *)(b + pos);
        size_t total = HDR_SIZE + h->len;
        if (n - pos < total) {
            if (!final)
                break;
            /* The stream ended inside this packet. Its header may be the
             * cut one while good packets follow in fewer bytes than it
             * claims: what is truncated is only up to the next good
             * header, so a cut cannot swallow the packets after it (the
             * END among them) at the end either. */
            size_t next = pos + 1;
            while (n - next >= HDR_SIZE && !header_ok(b + next))
                next++;
            if (n - next < HDR_SIZE)
                next = n;
            d->c.bytes_truncated += next - pos;
            pos = next;
            continue;
        }
        if (trace_dec_crc32c(b + pos + HDR_SIZE, h->len) != h->crc) {
            d->c.crc_errors++;
            d->cpu[trace_dec_cpu_index(h->cpu)].crc_errors++;
            skip_bytes(d, 1);
            pos += 1;
            continue;
        }
        deliver(d, h, b + pos + HDR_SIZE);
        pos += total;
    }
    if (final && pos < n) {
        /* Fewer bytes than a header: a cut header if they start like one. */
        size_t k = n - pos, mlen = k < 4 ? k : 4;
        uint32_t magic = TRACE_PKT_MAGIC;
        if (memcmp(b + pos, &magic, mlen) == 0)
            d->c.bytes_truncated += k;
        else
            skip_bytes(d, k);
        pos = n;
    }
    return pos;
}

void trace_decoder_feed(struct trace_decoder *d, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    d->c.bytes += n;
    while (n) {
        size_t room = d->cap - d->len, k = n < room ? n : room;
        memcpy(d->buf + d->len, p, k);
        d->len += k;
        p += k;
        n -= k;
        size_t used = parse(d, 0);
        d->len -= used;
        if (d->len)
            memmove(d->buf, d->buf + used, d->len);
    }
}

void trace_decoder_finish(struct trace_decoder *d)
{
    if (d->finished)
        return;
    d->finished = 1;
    parse(d, 1);
    d->len = 0;
    end_skip_run(d);
}

/* ---- names ---- */

#define NAME_OF(table, i) ((i) < sizeof table / sizeof table[0] && table[i] ? table[i] : "?")

const char *trace_rec_type_name(unsigned type)
{
    static const char *const names[] = {
#define TRACE_REC_NAME(name, val, what) [val] = #name,
        TRACE_RECORD_TYPES(TRACE_REC_NAME)
#undef TRACE_REC_NAME
    };
    return NAME_OF(names, type);
}

/* A name function for each reason table of format.h, X(ID, "name", what):
 * the name of row i, in wire order, "?" beyond the table. */
#define TRACE_ROW_NAME(id, name, what) name,
#define TRACE_TABLE_NAMES(fn, TABLE, nr)                                                                           \
    const char *fn(unsigned i)                                                                                     \
    {                                                                                                              \
        static const char *const names[] = { TABLE(TRACE_ROW_NAME) };                                             \
        _Static_assert(sizeof names / sizeof names[0] == (nr), #fn ": a name for every row of " #TABLE);          \
        return NAME_OF(names, i);                                                                                  \
    }

TRACE_TABLE_NAMES(trace_why_name, TRACE_PICK_WHYS, TRACE_WHY_NR)
TRACE_TABLE_NAMES(trace_join_reason_name, TRACE_JOIN_REASONS, TRACE_JOIN_NR)
TRACE_TABLE_NAMES(trace_join_check_name, TRACE_JOIN_CHECKS, TRACE_JC_NR)
TRACE_TABLE_NAMES(trace_leave_reason_name, TRACE_LEAVE_REASONS, TRACE_LEAVE_NR)
TRACE_TABLE_NAMES(trace_set_what_name, TRACE_SET_WHATS, TRACE_SET_NR)
TRACE_TABLE_NAMES(trace_counter_name, TRACE_COUNTER_NAMES, TRACE_CTR_NR)
TRACE_TABLE_NAMES(trace_class_name, TRACE_CLASSES, TRACE_CLASS_NR)
TRACE_TABLE_NAMES(trace_migrate_reason_name, TRACE_MIGRATE_REASONS, TRACE_MIGRATE_NR)

const char *trace_rt_policy_name(unsigned policy)
{
    return policy == TRACE_RT_FIFO ? "fifo" : policy == TRACE_RT_RR ? "rr" : "?";
}

void trace_task_class_of(const struct trace_rec_task *r, struct trace_task_class *out)
{
    *out = (struct trace_task_class){ .sclass = TRACE_CLASS_FAIR };
    if (r->h.size < sizeof *r) /* version 3: before classes, every task was fair */
        return;
    out->sclass = r->sclass;
    if (r->sclass != TRACE_CLASS_FAIR) {
        out->rt_prio = r->rt_prio;
        out->rt_policy = trace_rt_policy_name(r->rt_policy);
    }
}

const char *trace_mark_source_name(unsigned source)
{
    static const char *const names[] = { "shell", "host", "kernel" };
    return NAME_OF(names, source);
}

void trace_copy_str(char *out, const char *field, size_t n)
{
    size_t k = 0;
    while (k < n && field[k])
        k++;
    memcpy(out, field, k);
    out[k] = '\0';
}
