/*
 * libFuzzer target for the trace decoder (trace/decode.c).
 *
 * Holds the decoder to its contract on any input: it never crashes or reads
 * out of bounds (ASan/UBSan), it never delivers a record from a packet
 * whose CRCs fail or outside that packet's payload, and every input byte is
 * accounted for exactly once: in a delivered packet, skipped, or truncated.
 * The first input byte picks the feed chunk size, so split headers and
 * payloads are exercised too.
 *
 * Build and run (corpus seeded from trace_gen output):
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -iquote . \
 *       -o build/tests/trace_fuzz tests/trace/trace_fuzz.c trace/decode.c
 *   mkdir -p build/trace_corpus && build/tests/trace_gen --ms 20 --out build/trace_corpus/gen
 *   build/tests/trace_fuzz -max_total_time=60 build/trace_corpus
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/decode.h"

static const uint8_t *cur_payload;
static size_t cur_len;
static uint64_t packet_bytes;

static void on_packet(void *ctx, const struct trace_pkt_hdr *h, const uint8_t *payload, uint32_t lost,
                      uint32_t dropped)
{
    (void)ctx;
    (void)lost;
    (void)dropped;
    if (h->magic != TRACE_PKT_MAGIC || trace_pkt_hdr_crc(h) != h->hcrc ||
        trace_crc32c(payload, h->len) != h->crc)
        abort(); /* a packet that failed its CRC was delivered */
    if (payload != (const uint8_t *)(h + 1))
        abort();
    cur_payload = payload;
    cur_len = h->len;
    packet_bytes += sizeof *h + h->len;
}

static void on_record(void *ctx, const struct trace_pkt_hdr *h, const struct trace_rec_hdr *r)
{
    (void)ctx;
    const uint8_t *p = (const uint8_t *)r;
    if ((const uint8_t *)(h + 1) != cur_payload || p < cur_payload ||
        p + r->size > cur_payload + cur_len)
        abort(); /* a record outside the CRC-checked payload */
    if (r->size < trace_rec_min_size(r->type) || trace_rec_min_size(r->type) == 0)
        abort();
    if (r->type == TRACE_REC_KEYFRAME) {
        const struct trace_rec_keyframe *k = (const void *)r;
        volatile int64_t sum = 0;
        const struct trace_kf_entry *e = (const void *)(k + 1);
        for (unsigned i = 0; i < k->nr; i++)
            sum += e[i].lag; /* ASan checks the entries are inside */
        (void)sum;
    }
}

/* libFuzzer's entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct trace_dec_ops ops = { .packet = on_packet, .record = on_record };
    struct trace_decoder d;
    if (size == 0)
        return 0;
    size_t chunk = (size_t)data[0] * 37 + 1;
    data++;
    size--;
    packet_bytes = 0;
    if (trace_decoder_init(&d, &ops, NULL) != 0)
        return 0;
    for (size_t o = 0; o < size; o += chunk)
        trace_decoder_feed(&d, data + o, size - o < chunk ? size - o : chunk);
    trace_decoder_finish(&d);
    if (d.c.bytes != size || packet_bytes + d.c.bytes_dropped + d.c.bytes_skipped + d.c.bytes_truncated != size)
        abort(); /* a byte not accounted for, or counted twice */
    trace_decoder_free(&d);
    return 0;
}
