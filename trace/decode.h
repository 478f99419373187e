/*
 * The incremental trace decoder: feed it bytes as they arrive, in pieces of
 * any size, and it calls back with every good packet and every record in
 * it, in stream order. It checks both CRCs, scans past garbage to the next
 * packet magic, follows each CPU's sequence numbers and dropped counter,
 * and counts every byte and record it could not deliver
 * (docs/trace-format.md, "How a reader finds packets").
 *
 * Contract:
 *   - a record is delivered only from a packet whose header CRC and payload
 *     CRC both matched, and only if it lies inside that payload and is at
 *     least its type's fixed size (variable parts checked too);
 *   - a packet is delivered at most once and in its CPU's order: one with
 *     the same seq as its CPU's last is a duplicate, one behind it a replay
 *     or a late arrival; both are dropped and counted. Only a new stream
 *     header (a STREAM record opening a stream-wide packet whose seq went
 *     back) starts every CPU's numbering over, counted as a restart;
 *   - nothing after the END record is delivered (it belongs to no trace),
 *     nor a packet of a CPU beyond the stream header's count;
 *   - pointers passed to callbacks are valid only during the callback;
 *   - no input can make it read out of bounds, loop, or allocate more than
 *     one window (about 128 KiB) — the fuzzer (tests/trace/trace_fuzz.c) holds it
 *     to that.
 */
#ifndef RUNQ_TRACE_DECODE_H
#define RUNQ_TRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"

/* Counters indexed by CPU: 0..TRACE_MAX_CPUS-1, and TRACE_DEC_GLOBAL for
 * the stream-wide pseudo-CPU 0xFFFF. */
#define TRACE_DEC_GLOBAL TRACE_MAX_CPUS
#define TRACE_DEC_NCPU (TRACE_MAX_CPUS + 1)

struct trace_dec_counts {
    uint64_t bytes;           /* fed in */
    uint64_t packets;         /* good packets delivered */
    uint64_t records;         /* records delivered */
    uint64_t bytes_skipped;   /* garbage scanned past (bad magic, header CRC, payload CRC) */
    uint64_t resyncs;         /* runs of skipped bytes */
    uint64_t crc_errors;      /* packets with a good header and a bad payload CRC */
    uint64_t packets_lost;    /* sequence number jumps */
    uint64_t records_dropped; /* increases of producers' dropped counters */
    uint64_t gaps;            /* packets after which something was lost */
    uint64_t stream_restarts; /* a new stream header started the sequence numbers over */
    uint64_t packets_duplicate; /* same CPU and seq as the last packet: dropped */
    uint64_t packets_behind;  /* seq behind the CPU's last (replayed or late): dropped */
    uint64_t packets_after_end; /* after the END record: belong to no trace, dropped */
    uint64_t packets_bad_cpu; /* from a CPU the stream header does not have: dropped */
    uint64_t bytes_dropped;   /* of the good packets above, dropped whole */
    uint64_t bytes_truncated; /* left at the end, not a whole packet */
    uint64_t bad_records;     /* malformed records in CRC-good packets */
    uint64_t unknown_records; /* types this reader does not know, skipped */
};

/* A good packet, before its records. lost: packets missing just before it
 * on this CPU; dropped: records the CPU dropped since its previous packet. */
typedef void (*trace_packet_fn)(void *ctx, const struct trace_pkt_hdr *h, const uint8_t *payload,
                                uint32_t lost, uint32_t dropped);
/* One record of the packet h (h->cpu is the producing ring). */
typedef void (*trace_record_fn)(void *ctx, const struct trace_pkt_hdr *h, const struct trace_rec_hdr *r);
/* A run of `skipped` garbage bytes ended at a good packet (or the end). */
typedef void (*trace_resync_fn)(void *ctx, uint64_t skipped);

struct trace_dec_ops {
    trace_packet_fn packet; /* any of them may be NULL */
    trace_record_fn record;
    trace_resync_fn resync;
};

struct trace_cpu_seq {
    uint8_t seen;
    uint32_t seq, dropped;
    uint32_t crc; /* the last packet's payload CRC: a duplicate has the same */
};

struct trace_decoder {
    struct trace_dec_ops ops;
    unsigned ncpus;  /* the stream header's CPU count; 0: no header yet */
    int ended;       /* the END record was delivered: nothing more is */
    void *ctx;
    uint8_t *buf; /* window: bytes not yet consumed */
    size_t len, cap;
    uint64_t skip_run; /* garbage bytes since the last good packet */
    struct trace_cpu_seq seq[TRACE_DEC_NCPU];
    struct trace_dec_counts c;
    struct trace_dec_counts cpu[TRACE_DEC_NCPU]; /* per CPU: packets, records,
                                                  * crc_errors, lost, dropped, gaps */
    int finished;
};

/* Returns 0, or -1 when out of memory. */
int trace_decoder_init(struct trace_decoder *d, const struct trace_dec_ops *ops, void *ctx);
void trace_decoder_free(struct trace_decoder *d);
/* Consumes n bytes, calling back for everything complete so far. */
void trace_decoder_feed(struct trace_decoder *d, const void *buf, size_t n);
/* End of stream: what is left is counted as truncated (or skipped). */
void trace_decoder_finish(struct trace_decoder *d);

/* trace_crc32c() of format.h, computed with the CPU's crc32 instruction
 * when it has one (RUNQ_NO_HW_CRC in the environment forces the table). */
uint32_t trace_dec_crc32c(const void *buf, size_t len);

/* Index into d->cpu for a packet's cpu field. */
static inline unsigned trace_dec_cpu_index(uint16_t cpu)
{
    return cpu == TRACE_CPU_GLOBAL ? TRACE_DEC_GLOBAL : cpu;
}

/* Names for the enums of format.h ("?" when out of range). */
const char *trace_rec_type_name(unsigned type);
const char *trace_why_name(unsigned why);
const char *trace_join_reason_name(unsigned reason);
/* A JOIN's wakeup check (enum trace_join_check): "none", "preempt", "kept". */
const char *trace_join_check_name(unsigned check);
const char *trace_leave_reason_name(unsigned reason);
const char *trace_set_what_name(unsigned what);
const char *trace_mark_source_name(unsigned source);
const char *trace_counter_name(unsigned counter);
/* A MIGRATE's reason (enum trace_migrate_reason): "newidle", ... */
const char *trace_migrate_reason_name(unsigned reason);
/* A scheduling class (enum trace_class): "fair", "rt". */
const char *trace_class_name(unsigned sclass);

/* What a TASK record says of its class (trace format 4). A version-3
 * record (TRACE_TASK_V3_SIZE bytes) has none: a fair task. rt_policy is
 * "fifo" or "rr" for an RT task, NULL for a fair one; a class or policy
 * out of range reads as the names' "?". */
struct trace_task_class {
    unsigned sclass;       /* enum trace_class */
    unsigned rt_prio;      /* 1..99; 0 for a fair task */
    const char *rt_policy; /* "fifo", "rr", or NULL (fair) */
};
void trace_task_class_of(const struct trace_rec_task *r, struct trace_task_class *out);
/* The policy name of a TRACE_RT_* value: "fifo", "rr", "?". */
const char *trace_rt_policy_name(unsigned policy);

/* Copies a fixed, maybe unterminated string field of n bytes into out
 * (size >= n + 1), stopping at the first NUL. */
void trace_copy_str(char *out, const char *field, size_t n);

#endif
