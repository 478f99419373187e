/*
 * The tracer task: frames the rings' records into packets and sends them
 * over the trace port, and hands the command lines the host sends back
 * (trace/control.h) to host.c, which queues the ones that may block for
 * the host task.
 *
 * It wakes every TRACER_PERIOD_MIN_NS while there is much to send, and
 * backs off to TRACER_PERIOD_MAX_NS while there is little, so it adds one
 * short task to CPU 0's queue (its events are in the trace like any other
 * task's). Waking every 2 ms whatever the load, its own wakeups made 99 %
 * of an idle system's records (sleep 10000 under --deterministic: 2,488
 * records a second, now 341). While the
 * port is not open it sends nothing and the rings fill: records that do
 * not fit are counted as dropped, in every packet header, never waited
 * for.
 */
#include "trace.h"
#include "tracer.h"
#include "host.h"
#include "ring.h"
#include "../../trace/control.h"
#include "../arch/x86_64/apic.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/trap.h"
#include "../sched/cpus.h"
#include "../sched/knob.h"
#include "../drivers/virtio_serial.h"
#include "../lib/alloc.h"
#include "../lib/crc32c.h"
#include "../lib/printf.h"
#include "../lib/string.h"
#include "../sched/eevdf_features.h"
#include "../sched/sched.h"
#include "../sched/knob.h"

#define TRACER_PERIOD_MIN_NS (2 * NSEC_PER_MSEC)
/* The rings must hold what the CPUs write between two rounds: at the
 * 200k records/s tests/trace/bench_trace_e2e.sh reaches, 16 ms is about 50 KiB
 * a CPU of TRACE_RING_SIZE's 256. */
#define TRACER_PERIOD_MAX_NS (16 * NSEC_PER_MSEC)
/* A round that framed less than this was quiet: the next sleep doubles. */
#define TRACER_QUIET_BYTES 4096u
#define OUT_SIZE (512u * 1024u)
#define SHUTDOWN_LIMIT_NS (5 * NSEC_PER_SEC)
/*
 * The tracer's guarantee against fair tasks: it runs at nice -20, the
 * highest weight there is (88761), so whatever runs beside it on CPU 0 it
 * gets at least 88761 / (88761 + the other tasks' weights) of the CPU,
 * which EEVDF gives every task: 15 % beside 500 nice-0 spinners, 1/501
 * beside 500 at nice -20, and its rounds need far less (tens of
 * microseconds every 2 to 16 ms; beside those 500 nice -20 spinners it
 * dropped nothing). At nice 0 the same spinners left it a 43,000th of
 * CPU 0: the rings overflowed and the trace never reached END. Against
 * fair tasks only a weight is a guarantee; one that holds against any
 * load is a class above the policy (issue 18). It keeps the default slice:
 * at 100 us, a tracer with a backlog was preempted every 100 us, each
 * preemption a few more records in the ring it was draining, and it fell
 * behind for good (274,088 dropped beside 500 nice-0 spinners). Under
 * sched=rr (the deliberately flawed round robin) nice changes nothing:
 * the tracer waits its turn behind every runnable task, a tick each.
 */
#define TRACER_NICE (-20)
/* The host's lines a round takes at most; the rest wait in the port (the
 * host's writes wait behind them) for the next round, which comes at the
 * shortest period. Taking every line there was, a flood kept the tracer
 * in that loop, past its share of CPU 0, and it never drained: 500 `run
 * spin` lines stopped the trace 43 us in. */
#define TRACER_LINES_PER_ROUND 16u

extern struct trace_ring trace_rings[MAX_CPUS];

static u8 *out;             /* framed packets waiting for the port */
static u32 out_len, out_off;
static u8 payload[TRACE_PKT_MAX_PAYLOAD];
static u32 global_seq;
static bool stream_sent;
static const char *boot_cmdline = "";
static volatile bool stopping, stopped;
static u64 packets_sent, bytes_framed;

static u32 all_types_mask(void)
{
    return ((1u << TRACE_REC_NR_TYPES) - 1) & ~1u;
}

/* Appends one framed packet (header + payload) to the out buffer. The
 * payload may already be in place, right after the header's room. */
static void frame(u16 cpu, u32 seq, u32 dropped, const u8 *data, u32 len)
{
    struct trace_pkt_hdr h;
    u8 *at = out + out_len + sizeof h;
    if (data != at)
        memcpy(at, data, len);
    trace_pkt_seal_with(&h, cpu, seq, dropped, at, (u16)len, crc32c);
    memcpy(out + out_len, &h, sizeof h);
    out_len += (u32)sizeof h + len;
    packets_sent++;
    bytes_framed += sizeof h + len;
}

static void frame_global(const u8 *data, u32 len)
{
    frame(TRACE_CPU_GLOBAL, global_seq++, 0, data, len);
}

static void frame_stream_header(void)
{
    struct trace_rec_stream *s = (struct trace_rec_stream *)payload;
    char *names = (char *)(s + 1);
    u32 nlen = 0;
    for (int f = 0; f < EEVDF_NR_FEATURES; f++) {
        const char *n = eevdf_feature_name(f);
        if (f)
            names[nlen++] = ',';
        memcpy(names + nlen, n, strlen(n));
        nlen += (u32)strlen(n);
    }
    u32 clen = (u32)strlen(boot_cmdline);
    if (clen > 1024)
        clen = 1024;
    memcpy(names + nlen, boot_cmdline, clen);
    u32 size = (u32)sizeof *s + nlen + clen;
    trace_rec_init(&s->h, TRACE_REC_STREAM, (u16)size, clock_ns());
    memcpy(s->magic, TRACE_STREAM_MAGIC, 8);
    s->version = TRACE_FORMAT_VERSION;
    s->ncpus = (u16)ncpus;
    s->tick_hz = sched_hz;
    s->tsc_hz = clock_tsc_khz() * 1000;
    s->keyframe_ns = TRACE_KEYFRAME_PERIOD_NS;
    memset(s->policy, 0, sizeof s->policy);
    memcpy(s->policy, sched_policy_current->name, strlen(sched_policy_current->name));
    s->features = eevdf_features_mask();
    s->feature_names_len = (u16)nlen;
    s->cmdline_len = (u16)clen;
    frame_global(payload, size);
}

/* Moves whole records from the rings into packets while there is room. */
/* A packet from each CPU in turn, starting one CPU further each time: when
 * the host falls behind and the out buffer fills, every ring gets the same
 * room. (Draining CPU by CPU gave CPU 0 the room and made the last CPUs'
 * rings overflow first: tests/trace/bench_trace_e2e.sh dropped 0/123/3130/10035
 * records on CPUs 0..3.) */
static void collect(void)
{
    static unsigned first;
    bool took = true;
    first = (first + 1) % ncpus;
    while (took) {
        took = false;
        for (unsigned i = 0; i < ncpus; i++) {
            if (OUT_SIZE - out_len < sizeof(struct trace_pkt_hdr) + TRACE_PKT_MAX_PAYLOAD)
                return;
            unsigned c = (first + i) % ncpus;
            struct trace_ring *r = &trace_rings[c];
            u8 *at = out + out_len + sizeof(struct trace_pkt_hdr); /* taken straight into place */
            u32 n = ring_take(r, at, TRACE_PKT_MAX_PAYLOAD);
            if (!n)
                continue;
            frame((u16)c, r->seq++, __atomic_load_n(&r->dropped, __ATOMIC_RELAXED), at, n);
            took = true;
        }
    }
}

static void send_some(void)
{
    if (out_off < out_len)
        out_off += (u32)vser_send(out + out_off, out_len - out_off);
    if (out_off == out_len) {
        out_off = out_len = 0;
    } else if (out_off > OUT_SIZE / 2) {
        memmove(out, out + out_off, out_len - out_off);
        out_len -= out_off;
        out_off = 0;
    }
}

static bool rings_empty(void)
{
    for (unsigned c = 0; c < ncpus; c++)
        if (ring_used(&trace_rings[c]))
            return false;
    return true;
}

static void tracer_main(void *arg)
{
    (void)arg;
    char line[TRACE_CTL_LINE_MAX];
    u64 period = TRACER_PERIOD_MIN_NS;
    for (;;) {
        u64 framed_before = bytes_framed;
        vser_poll();
        unsigned lines = 0;
        while (lines < TRACER_LINES_PER_ROUND && vser_recv_line(line, sizeof line)) {
            host_line(line);
            lines++;
        }
        if (vser_ready()) {
            if (!stream_sent) {
                frame_stream_header();
                stream_sent = true;
            }
#ifdef RUNQ_TRACE_SELFCOST
            u64 t0 = clock_ns(), framed = bytes_framed;
#endif
            collect();
            send_some();
#ifdef RUNQ_TRACE_SELFCOST
            if (bytes_framed != framed) {
                struct trace_selfcost *sc = &trace_selfcost[this_cpu()->id][0];
                sc->ns += clock_ns() - t0;
                sc->n++;
                sc->bytes += bytes_framed - framed;
            }
#endif
        }
        if (stopping && (!vser_ready() || (rings_empty() && out_len == 0)))
            break;
        /* Busy, backed up behind the port, lines left, or stopping: soon
         * again. */
        if (bytes_framed - framed_before >= TRACER_QUIET_BYTES || out_len || stopping ||
            lines == TRACER_LINES_PER_ROUND)
            period = TRACER_PERIOD_MIN_NS;
        else if (period < TRACER_PERIOD_MAX_NS)
            period *= 2;
        task_sleep_ns(period);
    }
    if (vser_ready()) {
        static const u8 end_rec[sizeof(struct trace_rec_end)];
        struct trace_rec_end e;
        memcpy(&e, end_rec, sizeof e);
        trace_rec_init(&e.h, TRACE_REC_END, sizeof e, clock_ns());
        frame_global((const u8 *)&e, sizeof e);
        u64 give_up = clock_ns() + SHUTDOWN_LIMIT_NS;
        while ((out_len || !vser_flushed()) && clock_ns() < give_up) {
            send_some();
            task_sleep_ns(NSEC_PER_MSEC);
        }
    }
    stopped = true;
}

static void announce(struct task *t, void *arg)
{
    (void)arg;
    if (t->state != RUN_DEAD)
        trace_task(TRACE_REC_TASK_NEW, t);
}

void trace_init(const char *cmdline, trace_run_fn run, bool host_crash)
{
    boot_cmdline = cmdline;
    struct vser_stats st;
    vser_get_stats(&st);
    if (!st.port) {
        kprintf("trace: no trace port, tracing off\n");
        return;
    }
    for (unsigned c = 0; c < ncpus; c++)
        trace_rings[c].buf = kalloc(TRACE_RING_SIZE, 4096);
    out = kalloc(OUT_SIZE, 16);
    trace_mask = all_types_mask();
    tasks_for_each(announce, NULL); /* the tasks that exist already */
    sched_knobs_trace();            /* the settings, as they are now */
    task_create("tracer", tracer_main, NULL, 0, TRACER_NICE);
    host_init(run, host_crash);
    trace_ask_keyframes(); /* the other CPUs went idle before tracing began */
}

void trace_ask_keyframes(void)
{
    for (unsigned c = 0; c < ncpus; c++)
        __atomic_store_n(&trace_rings[c].keyframe_asked, 1, __ATOMIC_RELAXED);
    for (unsigned c = 0; c < ncpus; c++)
        if (cpu_online(c) && c != this_cpu()->id)
            lapic_send_ipi(cpu_apic_id[c], VEC_RESCHED);
}

void trace_shutdown(void)
{
    if (!out || stopped)
        return;
    stopping = true;
    u64 give_up = clock_ns() + 2 * SHUTDOWN_LIMIT_NS;
    while (!stopped && clock_ns() < give_up)
        task_sleep_ns(NSEC_PER_MSEC);
    trace_mask = 0;
}

static const char *const type_names[] = {
#define TRACE_TYPE_NAME(name, val, what) [val] = #name,
    TRACE_RECORD_TYPES(TRACE_TYPE_NAME)
#undef TRACE_TYPE_NAME
};

static int type_by_name(const char *name)
{
    for (int t = 1; t < TRACE_REC_NR_TYPES; t++) {
        const char *n = type_names[t];
        size_t i = 0;
        /* case-insensitive: pick, PICK */
        while (n[i] && name[i] && (n[i] == name[i] || n[i] == name[i] - 32))
            i++;
        if (!n[i] && !name[i])
            return t;
    }
    return -1;
}

static void trace_status(void)
{
    struct vser_stats st;
    vser_get_stats(&st);
    kprintf("trace %s port=%s packets=%lu bytes_sent=%lu mask=", trace_mask ? "on" : "off",
            !st.port ? "none" : st.open ? "open" : "closed", packets_sent, st.bytes_sent);
    bool first = true;
    for (int t = 1; t < TRACE_REC_NR_TYPES; t++)
        if ((trace_mask >> t) & 1) {
            kprintf("%s%s", first ? "" : ",", type_names[t]);
            first = false;
        }
    kprintf("%s\n", first ? "-" : "");
    kprintf("  crc32c=%s\n", crc32c_hw() ? "instruction" : "table (no SSE4.2; under TCG: -cpu qemu64,+sse4.2)");
#ifdef RUNQ_TRACE_SELFCOST
    for (unsigned c = 0; c < ncpus; c++)
        for (unsigned t = 0; t < TRACE_REC_NR_TYPES; t++) {
            const struct trace_selfcost *sc = &trace_selfcost[c][t];
            if (sc->n)
                kprintf("  selfcost cpu%u %s n=%lu ns=%lu bytes=%lu\n", c, t ? type_names[t] : "tracer_round",
                        sc->n, sc->ns, sc->bytes);
        }
#endif
    for (unsigned c = 0; c < ncpus; c++)
        kprintf("  cpu%u ring_used=%u dropped=%u packets=%u\n", c, ring_used(&trace_rings[c]),
                trace_rings[c].dropped, trace_rings[c].seq);
}

bool trace_cmd(int argc, char **argv)
{
    if (argc == 1 || (argc == 2 && strcmp(argv[1], "status") == 0)) {
        trace_status();
        return true;
    }
    if (!out) {
        kprintf("trace: no trace port (boot with the virtio-serial port org.runq.trace.0)\n");
        return false;
    }
    if (argc == 2 && strcmp(argv[1], "on") == 0) {
        bool was_off = !trace_mask;
        trace_mask = all_types_mask();
        if (was_off)
            trace_ask_keyframes();
    } else if (argc == 2 && strcmp(argv[1], "off") == 0) {
        trace_mask = 0;
    } else if (argc >= 3 && strcmp(argv[1], "mask") == 0) {
        u32 mask = 0;
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "all") == 0) {
                mask = all_types_mask();
                continue;
            }
            int t = type_by_name(argv[i]);
            if (t < 0 || t == TRACE_REC_STREAM || t == TRACE_REC_END) {
                kprintf("trace mask: unknown record type '%s'\n", argv[i]);
                return false;
            }
            mask |= 1u << t;
        }
        trace_mask = mask;
    } else {
        kprintf("usage: trace [status|on|off|mask TYPE...]\n");
        return false;
    }
    trace_status();
    return true;
}
