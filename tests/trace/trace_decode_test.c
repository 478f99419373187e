/*
 * Unit tests for the trace decoder (trace/decode.c): framing, CRCs, resync,
 * sequence numbers and the loss it counts. Prints "PASS name" or
 * "FAIL name: why" per test; exits 1 if any failed (tests/harness.h).
 *
 * Build:
 *   cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
 *      -iquote . -o build/tests/trace_decode_test tests/trace/trace_decode_test.c trace/decode.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/decode.h"
#include "tests/harness.h"

/* ---- a stream builder ---- */

static uint8_t stream[1 << 20];
static size_t slen;
static uint32_t seqs[TRACE_DEC_NCPU], drops[TRACE_DEC_NCPU];
static uint8_t payload[TRACE_PKT_MAX_PAYLOAD];
static size_t plen;

static void reset(void)
{
    slen = plen = 0;
    memset(seqs, 0, sizeof seqs);
    memset(drops, 0, sizeof drops);
}

/* A tick record with ts and curr = marker, so tests can see which arrived. */
static void add_tick(uint64_t ts, int32_t marker)
{
    struct trace_rec_tick r = { 0 };
    trace_rec_init(&r.h, TRACE_REC_TICK, sizeof r, ts);
    r.curr = marker;
    memcpy(payload + plen, &r, sizeof r);
    plen += sizeof r;
}

static void add_raw(const void *p, size_t n)
{
    memcpy(payload + plen, p, n);
    plen += n;
}

/* Frames the pending payload as the next packet of cpu; returns its offset. */
static size_t packet(uint16_t cpu)
{
    unsigned ci = trace_dec_cpu_index(cpu);
    struct trace_pkt_hdr h;
    trace_pkt_seal(&h, cpu, seqs[ci]++, drops[ci], payload, (uint16_t)plen);
    size_t at = slen;
    memcpy(stream + slen, &h, sizeof h);
    memcpy(stream + slen + sizeof h, payload, plen);
    slen += sizeof h + plen;
    plen = 0;
    return at;
}

/* A packet of cpu's holding one tick. */
static size_t tick_packet(uint16_t cpu, uint64_t ts, int32_t marker)
{
    add_tick(ts, marker);
    return packet(cpu);
}

static void garbage(size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        stream[slen++] = (uint8_t)(seed + i * 7);
}

/* ---- a decoding harness ---- */

static struct trace_decoder D;
static int32_t seen[4096];
static size_t nseen;
static uint64_t resync_bytes;

static void on_record(void *ctx, const struct trace_pkt_hdr *h, const struct trace_rec_hdr *r)
{
    (void)ctx;
    (void)h;
    if (r->type == TRACE_REC_TICK && nseen < 4096)
        seen[nseen++] = ((const struct trace_rec_tick *)r)->curr;
}

static void on_resync(void *ctx, uint64_t n)
{
    (void)ctx;
    resync_bytes += n;
}

/* Decodes stream[0..slen) in chunks of `chunk` bytes (0: all at once). */
static void decode(size_t chunk)
{
    static const struct trace_dec_ops ops = { .record = on_record, .resync = on_resync };
    nseen = 0;
    resync_bytes = 0;
    trace_decoder_free(&D);
    if (trace_decoder_init(&D, &ops, NULL) != 0)
        abort();
    if (!chunk)
        chunk = slen ? slen : 1;
    for (size_t o = 0; o < slen; o += chunk)
        trace_decoder_feed(&D, stream + o, slen - o < chunk ? slen - o : chunk);
    trace_decoder_finish(&D);
}

static int seen_is(const int32_t *want, size_t n)
{
    if (nseen != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (seen[i] != want[i])
            return 0;
    return 1;
}

/* ---- tests ---- */

static void crc32c_matches_the_check_value(void)
{
    CHECK(trace_crc32c("123456789", 9) == 0xE3069283u, "crc %08x", trace_crc32c("123456789", 9));
    uint32_t c = trace_crc32c_update(0, "1234", 4);
    c = trace_crc32c_update(c, "56789", 5);
    CHECK(c == 0xE3069283u, "incremental crc %08x", c);
}

/* The decoder's fast CRC (the crc32 instruction) against the table, at
 * every length and alignment of a block of varied bytes. */
static void the_fast_crc_agrees_with_the_table(void)
{
    static uint8_t buf[600];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    CHECK(trace_dec_crc32c("123456789", 9) == 0xE3069283u, "fast crc %08x", trace_dec_crc32c("123456789", 9));
    unsigned bad = 0;
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len + off <= sizeof buf; len++)
            bad += trace_dec_crc32c(buf + off, len) != trace_crc32c(buf + off, len);
    CHECK(bad == 0, "%u lengths differ", bad);
}

static void records_arrive_in_order_whatever_the_chunk_size(void)
{
    reset();
    for (int p = 0; p < 20; p++) {
        for (int k = 0; k < 5; k++)
            add_tick((uint64_t)(p * 5 + k), p * 5 + k);
        packet((uint16_t)(p % 3));
    }
    static const size_t chunks[] = { 0, 1, 2, 3, 23, 24, 25, 97, 4096 };
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        decode(chunks[c]);
        CHECK(nseen == 100, "chunk %zu: %zu records", chunks[c], nseen);
        for (size_t i = 0; i < nseen; i++)
            CHECK(seen[i] == (int32_t)i, "chunk %zu: record %zu is %d", chunks[c], i, seen[i]);
        CHECK(D.c.packets == 20 && D.c.bytes_skipped == 0 && D.c.packets_lost == 0 &&
                  D.c.bytes_truncated == 0 && D.c.crc_errors == 0,
              "chunk %zu: unexpected loss counted", chunks[c]);
    }
}

static void garbage_between_packets_is_skipped_and_counted(void)
{
    reset();
    garbage(13, 1);
    tick_packet(0, 1, 1);
    garbage(100, 0x52); /* bytes equal to the magic's first byte tempt the scan */
    tick_packet(0, 2, 2);
    stream[slen++] = 'R';
    stream[slen++] = 'Q';
    tick_packet(1, 3, 3);
    decode(7);
    int32_t want[] = { 1, 2, 3 };
    CHECK(seen_is(want, 3), "records %zu", nseen);
    CHECK(D.c.bytes_skipped == 115, "skipped %llu", (unsigned long long)D.c.bytes_skipped);
    CHECK(D.c.resyncs == 3, "resyncs %llu", (unsigned long long)D.c.resyncs);
    CHECK(resync_bytes == 115, "resync callback saw %llu", (unsigned long long)resync_bytes);
    CHECK(D.c.packets_lost == 0, "no packet was lost");
}

static void a_flipped_payload_bit_loses_only_that_packet(void)
{
    reset();
    tick_packet(0, 1, 1);
    add_tick(2, 2);
    add_tick(3, 3);
    size_t at = packet(0);
    tick_packet(0, 4, 4);
    stream[at + sizeof(struct trace_pkt_hdr) + 30] ^= 0x10;
    decode(0);
    int32_t want[] = { 1, 4 };
    CHECK(seen_is(want, 2), "records %zu", nseen);
    CHECK(D.c.crc_errors == 1, "crc errors %llu", (unsigned long long)D.c.crc_errors);
    CHECK(D.c.bytes_skipped == sizeof(struct trace_pkt_hdr) + 2 * sizeof(struct trace_rec_tick),
          "skipped %llu", (unsigned long long)D.c.bytes_skipped);
    CHECK(D.c.packets_lost == 1 && D.cpu[0].packets_lost == 1 && D.c.gaps == 1,
          "the sequence gap shows the lost packet: lost %llu", (unsigned long long)D.c.packets_lost);
}

static void a_flipped_header_bit_is_caught_by_the_header_crc(void)
{
    reset();
    tick_packet(0, 1, 1);
    size_t at = tick_packet(0, 2, 2);
    tick_packet(0, 3, 3);
    stream[at + 5] ^= 0x01; /* len: would swallow the next packet if trusted */
    decode(0);
    int32_t want[] = { 1, 3 };
    CHECK(seen_is(want, 2), "records %zu", nseen);
    CHECK(D.c.crc_errors == 0 && D.c.resyncs == 1, "header errors are resyncs, not crc errors");
    CHECK(D.c.packets_lost == 1, "lost %llu", (unsigned long long)D.c.packets_lost);
}

static void sequence_gaps_and_ring_drops_are_counted_per_cpu(void)
{
    reset();
    tick_packet(2, 1, 1);
    seqs[2] += 3; /* three packets of CPU 2 never arrive */
    drops[2] += 7;
    tick_packet(2, 2, 2);
    tick_packet(0, 3, 3);
    drops[0] += 5; /* CPU 0's ring overflowed */
    tick_packet(0, 4, 4);
    decode(0);
    CHECK(nseen == 4, "records %zu", nseen);
    CHECK(D.cpu[2].packets_lost == 3 && D.cpu[2].records_dropped == 7, "cpu 2: lost %llu dropped %llu",
          (unsigned long long)D.cpu[2].packets_lost, (unsigned long long)D.cpu[2].records_dropped);
    CHECK(D.cpu[0].packets_lost == 0 && D.cpu[0].records_dropped == 5, "cpu 0");
    CHECK(D.c.gaps == 2, "gaps %llu", (unsigned long long)D.c.gaps);
}

/* A stream header record, as the kernel's first stream-wide packet holds. */
static void add_stream_header(uint16_t ncpus)
{
    struct trace_rec_stream s = { 0 };
    trace_rec_init(&s.h, TRACE_REC_STREAM, sizeof s, 0);
    memcpy(s.magic, TRACE_STREAM_MAGIC, sizeof s.magic);
    s.version = TRACE_FORMAT_VERSION;
    s.ncpus = ncpus;
    add_raw(&s, sizeof s);
}

/* Packets come once and in order: a duplicate and a replayed packet are
 * dropped; a repeated stream header numbered on restarts nothing; only a
 * stream-wide packet numbered 0 that opens with one does; nothing after
 * END is delivered. (Before: the duplicate and the replay were delivered,
 * each counted as a "reset", and so was everything after END.) */
static void packets_come_once_in_order_until_end(void)
{
    reset();
    add_stream_header(2);
    size_t p0 = packet(TRACE_CPU_GLOBAL);
    size_t n0 = slen - p0;
    memcpy(stream + slen, stream + p0, n0); /* the header packet twice: a duplicate, not a new stream */
    slen += n0;
    size_t p1 = tick_packet(0, 1, 1);
    size_t p2 = tick_packet(0, 2, 2);
    size_t n = p2 - p1; /* both packets hold one tick: the same size */
    memcpy(stream + slen, stream + p1, n); /* packet 1 again: behind packet 2 */
    slen += n;
    memcpy(stream + slen, stream + p2, n); /* packet 2 again: a duplicate */
    slen += n;
    add_stream_header(2); /* the header repeated, numbered on */
    packet(TRACE_CPU_GLOBAL);
    tick_packet(0, 3, 3);
    tick_packet(5, 4, 4); /* a CPU the header does not have */
    struct trace_rec_end e;
    trace_rec_init(&e.h, TRACE_REC_END, sizeof e, 5);
    add_raw(&e, sizeof e);
    add_tick(6, 6); /* after END in the same packet */
    packet(TRACE_CPU_GLOBAL);
    tick_packet(0, 7, 7);
    decode(0);
    static const int32_t want[] = { 1, 2, 3 };
    CHECK(seen_is(want, 3), "records %zu", nseen);
    CHECK(D.c.packets_behind == 1 && D.c.packets_duplicate == 2, "behind %llu duplicate %llu",
          (unsigned long long)D.c.packets_behind, (unsigned long long)D.c.packets_duplicate);
    CHECK(D.c.stream_restarts == 0 && D.c.packets_bad_cpu == 1 && D.c.packets_after_end == 1,
          "restarts %llu bad cpu %llu after end %llu", (unsigned long long)D.c.stream_restarts,
          (unsigned long long)D.c.packets_bad_cpu, (unsigned long long)D.c.packets_after_end);
    CHECK(D.c.packets_lost == 0 && D.c.gaps == 0, "lost %llu", (unsigned long long)D.c.packets_lost);

    /* A new stream: numbering starts over, nothing counted lost or behind. */
    reset();
    add_stream_header(2);
    packet(TRACE_CPU_GLOBAL);
    tick_packet(0, 1, 1);
    tick_packet(0, 2, 2);
    memset(seqs, 0, sizeof seqs); /* the producer restarted, on more CPUs */
    add_stream_header(3);
    packet(TRACE_CPU_GLOBAL);
    tick_packet(0, 3, 3);
    decode(0);
    static const int32_t again[] = { 1, 2, 3 };
    CHECK(seen_is(again, 3), "records %zu", nseen);
    CHECK(D.c.stream_restarts == 1 && D.c.packets_behind == 0 && D.c.packets_lost == 0,
          "restarts %llu behind %llu lost %llu", (unsigned long long)D.c.stream_restarts,
          (unsigned long long)D.c.packets_behind, (unsigned long long)D.c.packets_lost);
}

static void a_late_reader_does_not_call_earlier_packets_lost(void)
{
    reset();
    seqs[1] = 1000;
    drops[1] = 50;
    tick_packet(1, 1, 1);
    tick_packet(1, 2, 2);
    decode(0);
    CHECK(nseen == 2 && D.c.packets_lost == 0 && D.c.records_dropped == 0 && D.c.gaps == 0,
          "lost %llu dropped %llu", (unsigned long long)D.c.packets_lost,
          (unsigned long long)D.c.records_dropped);
}

static void a_cut_stream_counts_the_truncated_bytes(void)
{
    reset();
    tick_packet(0, 1, 1);
    add_tick(2, 2);
    add_tick(3, 3);
    packet(0);
    slen -= 10;
    for (size_t chunk = 0; chunk < 3; chunk++) {
        decode(chunk);
        int32_t want[] = { 1 };
        CHECK(seen_is(want, 1), "records %zu", nseen);
        CHECK(D.c.bytes_truncated == sizeof(struct trace_pkt_hdr) + 2 * sizeof(struct trace_rec_tick) - 10,
              "truncated %llu", (unsigned long long)D.c.bytes_truncated);
        CHECK(D.c.bytes_skipped == 0, "skipped %llu", (unsigned long long)D.c.bytes_skipped);
    }
    /* Cut inside the header. */
    reset();
    tick_packet(0, 1, 1);
    tick_packet(0, 2, 2);
    slen -= sizeof(struct trace_rec_tick) + 10;
    decode(0);
    CHECK(nseen == 1 && D.c.bytes_truncated == 14, "header cut: truncated %llu",
          (unsigned long long)D.c.bytes_truncated);
}

/* A packet cut mid-payload near the end, with good packets after it that
 * are fewer bytes than it claims: the decoder waited for the claimed
 * length and at the end called everything after the cut truncated, the
 * END among it (issue 13). Only the cut packet's bytes are truncated. */
static void a_cut_near_the_end_keeps_the_packets_after_it(void)
{
    reset();
    tick_packet(0, 1, 1);
    for (int i = 0; i < 20; i++)
        add_tick(10 + (uint64_t)i, 100 + i);
    packet(0);
    size_t cut = 15 * sizeof(struct trace_rec_tick); /* B keeps 5 of its 20 ticks */
    slen -= cut;
    tick_packet(0, 40, 3);
    tick_packet(0, 50, 4);
    for (size_t chunk = 0; chunk < 3; chunk++) {
        decode(chunk == 2 ? 7 : chunk);
        int32_t want[] = { 1, 3, 4 };
        CHECK(seen_is(want, 3), "chunk %zu: %zu records, want ticks 1, 3, 4", chunk, nseen);
        CHECK(D.c.bytes_truncated == sizeof(struct trace_pkt_hdr) + 20 * sizeof(struct trace_rec_tick) - cut,
              "chunk %zu: truncated %llu", chunk, (unsigned long long)D.c.bytes_truncated);
    }
}

static void malformed_records_stop_the_packet_not_the_stream(void)
{
    reset();
    add_tick(1, 1);
    struct trace_rec_hdr bad;
    trace_rec_init(&bad, TRACE_REC_PICK, sizeof bad, 2); /* smaller than a PICK */
    add_raw(&bad, sizeof bad);
    add_tick(3, 3);
    packet(0);
    struct trace_rec_hdr unknown;
    trace_rec_init(&unknown, (enum trace_rec_type)200, sizeof unknown + 4, 4);
    add_raw(&unknown, sizeof unknown);
    add_raw("\0\0\0\0", 4);
    add_tick(5, 5);
    struct trace_rec_keyframe kf = { 0 };
    trace_rec_init(&kf.h, TRACE_REC_KEYFRAME, sizeof kf, 6);
    kf.nr = 3; /* claims entries it does not have */
    add_raw(&kf, sizeof kf);
    packet(0);
    decode(0);
    int32_t want[] = { 1, 5 };
    CHECK(seen_is(want, 2), "records %zu", nseen);
    CHECK(D.c.bad_records == 2 && D.c.unknown_records == 1, "bad %llu unknown %llu",
          (unsigned long long)D.c.bad_records, (unsigned long long)D.c.unknown_records);
}

/* Records of type `type` of the sizes an older and the current format
 * gave it (old, cur) are good records; one shorter than old is not. */
static void both_versions_read(uint8_t type, uint16_t old, uint16_t cur)
{
    static uint8_t rec[256]; /* zeros: only the sizes matter to the decoder */
    reset();
    add_tick(1, 1);
    trace_rec_init((struct trace_rec_hdr *)rec, (enum trace_rec_type)type, old, 2);
    add_raw(rec, old);
    trace_rec_init((struct trace_rec_hdr *)rec, (enum trace_rec_type)type, cur, 3);
    add_raw(rec, cur);
    add_tick(4, 4);
    packet(0);
    trace_rec_init((struct trace_rec_hdr *)rec, (enum trace_rec_type)type, old - 4, 5);
    add_raw(rec, old - 4u);
    packet(0);
    decode(0);
    int32_t want[] = { 1, 4 };
    CHECK(seen_is(want, 2), "%s: records %zu", trace_rec_type_name(type), nseen);
    CHECK(D.c.records == 4 && D.c.bad_records == 1, "%s: records %llu bad %llu", trace_rec_type_name(type),
          (unsigned long long)D.c.records, (unsigned long long)D.c.bad_records);
}

/* A version-1 LEAVE (52 bytes, no deadline) is still a good record. */
static void a_version_1_leave_is_still_read(void)
{
    both_versions_read(TRACE_REC_LEAVE, TRACE_LEAVE_V1_SIZE, sizeof(struct trace_rec_leave));
}

/* A version-2 JOIN (68 bytes, no wakeup check) is still a good record. */
static void a_version_2_join_is_still_read(void)
{
    both_versions_read(TRACE_REC_JOIN, TRACE_JOIN_V2_SIZE, sizeof(struct trace_rec_join));
}

static void names_cover_every_enum_value(void)
{
    for (unsigned t = 1; t < TRACE_REC_NR_TYPES; t++)
        CHECK(strcmp(trace_rec_type_name(t), "?") != 0, "type %u", t);
    CHECK(strcmp(trace_why_name(TRACE_WHY_PREEMPT_SHORT), "preempt_short") == 0, "why");
    CHECK(strcmp(trace_leave_reason_name(TRACE_LEAVE_DELAYED), "delayed") == 0, "leave");
    CHECK(strcmp(trace_join_check_name(TRACE_JC_NONE), "none") == 0 &&
              strcmp(trace_join_check_name(TRACE_JC_PREEMPT), "preempt") == 0 &&
              strcmp(trace_join_check_name(TRACE_JC_KEPT), "kept") == 0 && strcmp(trace_join_check_name(TRACE_JC_NR), "?") == 0,
          "join check names");
    CHECK(strcmp(trace_why_name(99), "?") == 0, "out of range");
    CHECK(strcmp(trace_counter_name(TRACE_CTR_RING_USED), "ring_used") == 0, "counter");
}

static const struct harness_test tests[] = {
    HARNESS_TEST(crc32c_matches_the_check_value),
    HARNESS_TEST(the_fast_crc_agrees_with_the_table),
    HARNESS_TEST(records_arrive_in_order_whatever_the_chunk_size),
    HARNESS_TEST(garbage_between_packets_is_skipped_and_counted),
    HARNESS_TEST(a_flipped_payload_bit_loses_only_that_packet),
    HARNESS_TEST(a_flipped_header_bit_is_caught_by_the_header_crc),
    HARNESS_TEST(sequence_gaps_and_ring_drops_are_counted_per_cpu),
    HARNESS_TEST(packets_come_once_in_order_until_end),
    HARNESS_TEST(a_late_reader_does_not_call_earlier_packets_lost),
    HARNESS_TEST(a_cut_stream_counts_the_truncated_bytes),
    HARNESS_TEST(a_cut_near_the_end_keeps_the_packets_after_it),
    HARNESS_TEST(malformed_records_stop_the_packet_not_the_stream),
    HARNESS_TEST(a_version_1_leave_is_still_read),
    HARNESS_TEST(a_version_2_join_is_still_read),
    HARNESS_TEST(names_cover_every_enum_value),
};

int main(int argc, char **argv)
{
    int rc = harness_main(argc, argv, tests, HARNESS_COUNT(tests));

    trace_decoder_free(&D);
    return rc;
}
