/*
 * trace_hostile: writes trace streams that are valid in every CRC and hostile
 * in what they say, to stdout, for tests/trace/trace_hostile.sh. Each is a way an
 * input could make `runq record` do too much work, hold too much memory, or
 * store wrong data without saying so (issue 13's attack):
 *
 *   make ids N          N distinct task ids, spread over the whole id range
 *   make gaps N         N packets each after a lost one, naming the largest id
 *   make silent-cpu N   a keyframe period of 2^62 ns, CPU 1 silent after one
 *                       record, N records of CPU 0 over 20 s of trace time
 *   make bad-cpu        packets of CPU 200 and records naming CPU 65535 in a
 *                       stream whose header has 2 CPUs
 *   mangle dup          every packet twice (stdin to stdout)
 *   mangle twice        the whole stream twice, as `cat a a`
 *   mangle swap CPU I   CPU's packets I and I+1 in each other's place
 *   mangle delay CPU D  each of CPU's packets D packets later
 *   mangle replay A B   after packet B, packets A..B-1 again (A < B)
 *   mangle count        prints how many packets the stream has
 *
 * Generated streams use only what the format allows; the host's bounds
 * (docs/trace-format.md, "Bounds") are what they attack.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/xalloc.h"
#include "trace/format.h"

#define MS 1000000ull

/* ---- writing packets ---- */

struct cpu_out {
    uint8_t buf[TRACE_PKT_MAX_PAYLOAD];
    size_t len;
    uint32_t seq;
};
static struct cpu_out outs[3]; /* CPU 0, CPU 1, stream-wide */

static struct cpu_out *out_of(uint16_t cpu)
{
    return cpu == TRACE_CPU_GLOBAL ? &outs[2] : &outs[cpu ? 1 : 0];
}

static void packet(uint16_t cpu, uint32_t seq, const void *payload, size_t len)
{
    struct trace_pkt_hdr h;
    trace_pkt_seal(&h, cpu, seq, 0, payload, (uint16_t)len);
    fwrite(&h, sizeof h, 1, stdout);
    fwrite(payload, 1, len, stdout);
}

static void flush(uint16_t cpu)
{
    struct cpu_out *o = out_of(cpu);
    if (o->len)
        packet(cpu, o->seq++, o->buf, o->len);
    o->len = 0;
}

static void put(uint16_t cpu, const void *rec)
{
    const struct trace_rec_hdr *h = rec;
    struct cpu_out *o = out_of(cpu);
    if (o->len + h->size > 4096)
        flush(cpu);
    memcpy(o->buf + o->len, rec, h->size);
    o->len += h->size;
}

static void stream_header(uint16_t ncpus, uint64_t keyframe_ns)
{
    struct trace_rec_stream s;
    memset(&s, 0, sizeof s);
    trace_rec_init(&s.h, TRACE_REC_STREAM, sizeof s, 0);
    memcpy(s.magic, TRACE_STREAM_MAGIC, sizeof s.magic);
    s.version = TRACE_FORMAT_VERSION;
    s.ncpus = ncpus;
    s.tick_hz = 250;
    s.keyframe_ns = keyframe_ns;
    memcpy(s.policy, "rr", 2);
    put(TRACE_CPU_GLOBAL, &s);
    flush(TRACE_CPU_GLOBAL);
}

static void end(uint64_t ts)
{
    struct trace_rec_end e;
    trace_rec_init(&e.h, TRACE_REC_END, sizeof e, ts);
    put(TRACE_CPU_GLOBAL, &e);
    flush(TRACE_CPU_GLOBAL);
}

static void pick(uint16_t out_cpu, uint16_t cpu, int32_t prev, int32_t next, uint64_t ts)
{
    struct trace_rec_pick p;
    memset(&p, 0, sizeof p);
    trace_rec_init(&p.h, TRACE_REC_PICK, sizeof p, ts);
    p.h.flags = TRACE_RF_NO_EEVDF;
    p.prev = prev;
    p.next = next;
    p.cpu = cpu;
    p.nr_runnable = 1;
    put(out_cpu, &p);
}

static void task_new(uint16_t cpu, int32_t id, uint64_t ts)
{
    struct trace_rec_task t;
    memset(&t, 0, sizeof t);
    trace_rec_init(&t.h, TRACE_REC_TASK_NEW, sizeof t, ts);
    t.task = id;
    t.parent = TRACE_TASK_NONE;
    t.cpu = cpu;
    snprintf(t.name, sizeof t.name, "t%d", id);
    put(cpu, &t);
}

/* ---- make ---- */

static void make_ids(unsigned long n)
{
    stream_header(1, 100 * MS);
    /* Spread over 0 .. 2^22 - 1 (every id valid), in a fixed order. */
    uint64_t x = 1;
    for (unsigned long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int32_t id = (int32_t)((x >> 33) & ((1u << 22) - 1));
        pick(0, 0, TRACE_TASK_NONE, id, 1000 * (i + 1));
    }
    flush(0);
    end(1000 * (n + 2));
}

static void make_gaps(unsigned long n)
{
    stream_header(1, 100 * MS);
    task_new(0, (1 << 22) - 1, 1);
    flush(0);
    for (unsigned long i = 0; i < n; i++) {
        pick(0, 0, TRACE_TASK_NONE, (1 << 22) - 1, 1000 * (i + 2));
        outs[0].seq++; /* the packet before this one never arrives */
        flush(0);
    }
    end(1000 * (n + 3));
}

static void make_silent_cpu(unsigned long n)
{
    stream_header(2, 1ull << 62);
    pick(1, 1, TRACE_TASK_NONE, 2, 1);
    flush(1);
    uint64_t span = 20000 * MS;
    for (unsigned long i = 0; i < n; i++)
        pick(0, 0, TRACE_TASK_NONE, 1 + (int32_t)(i % 2), 2 + span / n * i);
    flush(0);
    end(span + 10);
}

static void make_bad_cpu(void)
{
    stream_header(2, 100 * MS);
    for (int i = 0; i < 100; i++) {
        pick(0, 0, TRACE_TASK_NONE, 1, 1000 * (uint64_t)(3 * i + 1));
        pick(0, 65535, TRACE_TASK_NONE, 1, 1000 * (uint64_t)(3 * i + 2)); /* a CPU the header lacks */
        flush(0);
        struct trace_rec_pick p;
        memset(&p, 0, sizeof p);
        trace_rec_init(&p.h, TRACE_REC_PICK, sizeof p, 1000 * (uint64_t)(3 * i + 3));
        p.h.flags = TRACE_RF_NO_EEVDF;
        p.next = 2;
        p.cpu = 200;
        packet(200, (uint32_t)i, &p, sizeof p); /* a packet of a CPU the header lacks */
    }
    end(1000000);
}

/* ---- mangle ---- */

struct pkt {
    size_t off, len; /* in the input, header included */
    uint16_t cpu;
};

static uint8_t *in;
static size_t in_len;
static struct pkt *pk;
static size_t npk;

/* Reads stdin and finds its packets (a clean stream: no garbage). */
static void read_packets(void)
{
    size_t cap = 0, pcap = 0;
    for (;;) {
        if (in_len + 65536 > cap)
            in = xrealloc(in, cap = (in_len + 65536) * 2);
        size_t k = fread(in + in_len, 1, cap - in_len, stdin);
        if (!k)
            break;
        in_len += k;
    }
    for (size_t off = 0; off + sizeof(struct trace_pkt_hdr) <= in_len;) {
        const struct trace_pkt_hdr *h = (const void *)(in + off);
        size_t len = sizeof *h + h->len;
        if (h->magic != TRACE_PKT_MAGIC || off + len > in_len) {
            fprintf(stderr, "trace_hostile: input is not a clean stream at byte %zu\n", off);
            exit(1);
        }
        if (npk == pcap)
            pk = xrealloc(pk, (pcap = pcap ? 2 * pcap : 1024) * sizeof *pk);
        pk[npk++] = (struct pkt){ off, len, h->cpu };
        off += len;
    }
}

static void emit_pkt(size_t i)
{
    fwrite(in + pk[i].off, 1, pk[i].len, stdout);
}

/* Index of CPU cpu's packet number i in the input, or npk. */
static size_t nth_of_cpu(unsigned cpu, unsigned long i)
{
    for (size_t k = 0; k < npk; k++)
        if (pk[k].cpu == cpu && i-- == 0)
            return k;
    return npk;
}

static int mangle(int argc, char **argv)
{
    read_packets();
    const char *how = argv[0];
    if (!strcmp(how, "count")) {
        printf("%zu\n", npk);
    } else if (!strcmp(how, "dup")) {
        for (size_t i = 0; i < npk; i++) {
            emit_pkt(i);
            emit_pkt(i);
        }
    } else if (!strcmp(how, "twice")) {
        for (int r = 0; r < 2; r++)
            for (size_t i = 0; i < npk; i++)
                emit_pkt(i);
    } else if (!strcmp(how, "swap") && argc == 3) {
        size_t a = nth_of_cpu((unsigned)atoi(argv[1]), strtoul(argv[2], NULL, 0));
        size_t b = a < npk ? nth_of_cpu((unsigned)atoi(argv[1]), strtoul(argv[2], NULL, 0) + 1) : npk;
        if (b >= npk) {
            fprintf(stderr, "trace_hostile: no such packets\n");
            return 1;
        }
        for (size_t i = 0; i < npk; i++)
            emit_pkt(i == a ? b : i == b ? a : i);
    } else if (!strcmp(how, "delay") && argc == 3) {
        unsigned cpu = (unsigned)atoi(argv[1]);
        size_t d = strtoul(argv[2], NULL, 0);
        /* A queue of the CPU's packets, each let out d packets after it came. */
        size_t *q = xrealloc(NULL, (npk + 1) * sizeof *q), *due = xrealloc(NULL, (npk + 1) * sizeof *due);
        size_t qh = 0, qt = 0;
        for (size_t i = 0; i < npk; i++) {
            while (qh < qt && due[qh] <= i)
                emit_pkt(q[qh++]);
            if (pk[i].cpu == cpu) {
                q[qt] = i;
                due[qt++] = i + d;
            } else {
                emit_pkt(i);
            }
        }
        while (qh < qt)
            emit_pkt(q[qh++]);
        free(q);
        free(due);
    } else if (!strcmp(how, "replay") && argc == 3) {
        size_t a = strtoul(argv[1], NULL, 0), b = strtoul(argv[2], NULL, 0);
        if (a >= b || b > npk) {
            fprintf(stderr, "trace_hostile: replay A B needs A < B <= %zu\n", npk);
            return 1;
        }
        for (size_t i = 0; i < npk; i++) {
            emit_pkt(i);
            if (i + 1 == b)
                for (size_t k = a; k < b; k++)
                    emit_pkt(k);
        }
    } else {
        fprintf(stderr, "trace_hostile: unknown mangle '%s' (see the header comment)\n", how);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "mangle"))
        return mangle(argc - 2, argv + 2);
    if (argc >= 3 && !strcmp(argv[1], "make")) {
        unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
        if (!strcmp(argv[2], "ids") && n)
            make_ids(n);
        else if (!strcmp(argv[2], "gaps") && n)
            make_gaps(n);
        else if (!strcmp(argv[2], "silent-cpu") && n)
            make_silent_cpu(n);
        else if (!strcmp(argv[2], "bad-cpu"))
            make_bad_cpu();
        else {
            fprintf(stderr, "trace_hostile: unknown stream '%s' or missing N\n", argv[2]);
            return 2;
        }
        return fflush(stdout) == 0 ? 0 : 1;
    }
    fprintf(stderr, "usage: trace_hostile make ids|gaps|silent-cpu N | make bad-cpu\n"
                    "       trace_hostile mangle count|dup|twice|swap CPU I|delay CPU D|replay A B < in > out\n");
    return 2;
}
