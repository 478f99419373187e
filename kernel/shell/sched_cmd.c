/*
 * The shell's sched command: counters, the seed's probe and share
 * experiments, and live settings. The summary lines of probe and share are
 * parsed by labs and checks: their format is fixed (docs/kernel.md).
 */
#include "shell.h"
#include "../arch/x86_64/clock.h"
#include "../sched/cpus.h"
#include "../lib/printf.h"
#include "../lib/string.h"
#include "../cmdline.h"
#include "../sched/decide.h"
#include "../sched/eevdf_features.h"
#include "../sched/knob.h"
#include "../sched/probe.h"
#include "../sched/rq.h"
#include "../sched/sched.h"
#include "../trace/trace.h"

#define DEFAULT_WINDOW_MS 1000
#define DEFAULT_PROBE_SAMPLES 100

/* Prints x/y with two decimals. */
static void fmt_ratio(char *buf, size_t size, u64 x, u64 y)
{
    if (!y) {
        snprintf(buf, size, "-");
        return;
    }
    u64 hundredths = (x * 100 + y / 2) / y;
    snprintf(buf, size, "%lu.%02lu", hundredths / 100, hundredths % 100);
}

/* The counters over the next ms milliseconds; ms = 0: since boot. */
static bool sched_window(u64 ms)
{
    static struct sched_stats before[MAX_CPUS];
    for (unsigned i = 0; i < ncpus; i++) {
        if (ms)
            stats_snapshot(&cpus[i].rq.stats, &before[i]);
        else
            memset(&before[i], 0, sizeof before[i]);
    }
    if (ms)
        task_sleep_ns(ms * NSEC_PER_MSEC);
    if (ms)
        kprintf("sched window_ms=%lu policy=%s hz=%u\n", ms, sched_policy_current->name, sched_hz);
    else
        kprintf("sched since_boot_ms=%lu policy=%s hz=%u\n", clock_ns() / NSEC_PER_MSEC, sched_policy_current->name,
                sched_hz);
    for (unsigned i = 0; i < ncpus; i++) {
        struct sched_stats now, d;
        stats_snapshot(&cpus[i].rq.stats, &now);
        stats_diff(&now, &before[i], &d);
        char touched[16], runnable[16];
        fmt_ratio(touched, sizeof touched, d.touched, d.decisions);
        fmt_ratio(runnable, sizeof runnable, d.tick_runnable, d.ticks);
        kprintf("cpu%u decisions=%lu cost_avg_ns=%lu cost_max_ns=%lu touched_avg=%s wakes=%lu "
                "wake_p50_us=<%lu wake_p99_us=<%lu displaced=%lu displaced_p50_us=<%lu "
                "displaced_p99_us=<%lu ticks=%lu runnable_avg=%s\n",
                i, d.decisions, d.decisions ? d.decision_ns / d.decisions : 0, d.decision_max_ns, touched,
                d.wake.n, stats_percentile_us(&d.wake, 500), stats_percentile_us(&d.wake, 990), d.displaced.n,
                stats_percentile_us(&d.displaced, 500), stats_percentile_us(&d.displaced, 990), d.ticks,
                runnable);
    }
    return true;
}

static bool parse_range(const char *s, long lo, long hi, long *out, const char *what)
{
    if (!parse_long(s, out) || *out < lo || *out > hi) {
        kprintf("sched: %s must be %ld..%ld, not '%s'\n", what, lo, hi, s);
        return false;
    }
    return true;
}

/* What tracing cost the measured CPU, said once after a measurement made
 * with tracing on: its figures include it. A wakeup's records (its wake,
 * join, the picks and leaves around it) are on its path, so their time is
 * in its latency, while over the window they are a small share of the CPU. */
static void probe_effect_line(unsigned cpu, unsigned wakeups, u64 records, u64 ns, u64 window_ns)
{
    u64 per_wake = wakeups ? ns / wakeups : 0, permille = window_ns ? (ns * 1000 + window_ns / 2) / window_ns : 0;
    kprintf("probe effect: tracing on: cpu%u wrote %lu trace records in the %lu ms measured, about %lu ns each "
            "(1 in %d timed), %lu.%lu us a wakeup: its latency includes them, and %lu.%lu %% of the CPU "
            "('trace off' measures without)\n",
            cpu, records, window_ns / NSEC_PER_MSEC, records ? ns / records : 0, TRACE_COST_EVERY, per_wake / 1000,
            per_wake / 100 % 10, permille / 10, permille % 10);
}

static bool sched_probe(int argc, char **argv)
{
    long n, samples = DEFAULT_PROBE_SAMPLES, slice_us = 0;
    if (argc < 3 || argc > 5) {
        kprintf("usage: sched probe SPINNERS [SAMPLES [WAITER_SLICE_US]]\n");
        return false;
    }
    if (!parse_range(argv[2], 0, PROBE_MAX_SPINNERS, &n, "SPINNERS"))
        return false;
    if (argc >= 4 && !parse_range(argv[3], 1, PROBE_MAX_SAMPLES, &samples, "SAMPLES"))
        return false;
    if (argc == 5 && !parse_range(argv[4], 100, 100000, &slice_us, "WAITER_SLICE_US"))
        return false;
    struct probe_result r;
    bool ok = probe_run_slice((unsigned)n, (unsigned)samples, (u64)slice_us * NSEC_PER_USEC, &r);
    char shares[PROBE_MAX_SPINNERS * 6 + 2];
    struct strbuf sb;
    strbuf_init(&sb, shares, sizeof shares);
    for (unsigned i = 0; i < r.spinners; i++)
        strbuf_printf(&sb, "%s%u", i ? "," : "", r.share_permille[i]);
    if (!r.spinners)
        strbuf_printf(&sb, "-");
    kprintf("probe policy=%s spinners=%u samples=%u wake_p50_us=%lu wake_p99_us=%lu wake_max_us=%lu "
            "share_permille=%s\n",
            sched_policy_current->name, r.spinners, r.samples, r.p50_ns / 1000, r.p99_ns / 1000, r.max_ns / 1000,
            shares);
    if (r.trace_records)
        probe_effect_line(probe_cpu(), r.samples, r.trace_records, r.trace_ns, r.window_ns);
    return ok;
}

static bool sched_share(int argc, char **argv)
{
    int nices[PROBE_MAX_SPINNERS];
    unsigned n = 0;
    if (argc < 3) {
        kprintf("usage: sched share NICE [NICE...]\n");
        return false;
    }
    for (int i = 2; i < argc; i++) {
        long v;
        if (n == PROBE_MAX_SPINNERS) {
            kprintf("sched share: at most %d spinners\n", PROBE_MAX_SPINNERS);
            return false;
        }
        if (!parse_range(argv[i], -20, 19, &v, "NICE"))
            return false;
        nices[n++] = (int)v;
    }
    unsigned pm[PROBE_MAX_SPINNERS];
    if (!share_run(nices, n, DEFAULT_WINDOW_MS * NSEC_PER_MSEC, pm))
        return false;
    char nl[PROBE_MAX_SPINNERS * 5 + 2], pl[PROBE_MAX_SPINNERS * 6 + 2];
    struct strbuf a, b;
    strbuf_init(&a, nl, sizeof nl);
    strbuf_init(&b, pl, sizeof pl);
    for (unsigned i = 0; i < n; i++) {
        strbuf_printf(&a, "%s%d", i ? "," : "", nices[i]);
        strbuf_printf(&b, "%s%u", i ? "," : "", pm[i]);
    }
    kprintf("share policy=%s nices=%s window_ms=%d permille=%s\n", sched_policy_current->name, nl,
            DEFAULT_WINDOW_MS, pl);
    return true;
}

/* The task `sched SUB ID ...` names (SUB is argv[1]), or NULL once it has
 * said there is none; the idle tasks only if idle_ok. */
static struct task *named_task(char **argv, long id, bool idle_ok)
{
    struct task *t = task_find((int)id);
    if (!t || (!idle_ok && t->is_idle)) {
        kprintf("sched %s: no task %ld\n", argv[1], id);
        return NULL;
    }
    return t;
}

/* The words of `sched SUB ID VALUE` (nice, slice): the task, its id and
 * the value, lo..hi; NULL once it has said what is wrong. */
static struct task *task_and_value(int argc, char **argv, const char *usage, long *id, long lo, long hi,
                                   const char *what, long *v)
{
    if (argc != 4) {
        kprintf("usage: %s\n", usage);
        return NULL;
    }
    if (!parse_range(argv[2], 1, 0x7fffffff, id, "ID") || !parse_range(argv[3], lo, hi, v, what))
        return NULL;
    return named_task(argv, *id, true);
}

static bool sched_nice(int argc, char **argv)
{
    long id, nice;
    struct task *t = task_and_value(argc, argv, "sched nice ID NICE", &id, -20, 19, "NICE", &nice);
    if (!t)
        return false;
    task_set_nice(t, (int)nice);
    kprintf("nice id=%ld nice=%ld\n", id, nice);
    return true;
}

struct queue_ctx {
    unsigned cpu;
    struct sched_queue_view qv;
};

/* Virtual times are printed relative to V, in virtual microseconds. */
static void fmt_vus(char *buf, size_t size, s64 vns)
{
    u64 a = vns < 0 ? -(u64)vns : (u64)vns;
    snprintf(buf, size, "%s%lu.%03lu", vns < 0 ? "-" : "", a / 1000, a % 1000);
}

static void queue_line(struct task *t, void *arg)
{
    struct queue_ctx *ctx = arg;
    if (t->cpu != ctx->cpu || !t->se.on_queue)
        return;
    struct rq *rq = &cpus[t->cpu].rq;
    const char *state = sched_running(&rq->q) == &t->se ? "running" : "queued";
    if (sched_is_rt(&t->se)) { /* no virtual time: its class and priority */
        kprintf("  %4d %-15s %4d %-8s rt prio=%u %s\n", t->id, t->name, t->se.nice, state, t->se.rt.prio,
                t->se.rt.policy == RT_RR ? "rr" : "fifo");
        return;
    }
    if (!ctx->qv.vtime) {
        kprintf("  %4d %-15s %4d %-8s\n", t->id, t->name, t->se.nice, state);
        return;
    }
    struct sched_queue_view qv;
    struct sched_entity_view v;
    sched_policy_current->describe_queue(&rq->q, false, &qv);
    sched_describe(sched_policy_current, &rq->q, &qv, &t->se, &v);
    u64 V = qv.V;
    char vr[24], dl[24], lag[24];
    fmt_vus(vr, sizeof vr, (s64)(v.vruntime - V));
    fmt_vus(dl, sizeof dl, (s64)(v.deadline - V));
    fmt_vus(lag, sizeof lag, v.lag);
    if (v.delayed)
        state = "delayed";
    kprintf("  %4d %-15s %4d %6u %8lu %-8s %12s %12s %12s %s\n", t->id, t->name, t->se.nice, v.weight,
            v.slice_ns / 1000, state, vr, dl, lag, v.eligible ? "yes" : "no");
}

static bool sched_queue(int argc, char **argv)
{
    long cpu = 0;
    if (argc > 3) {
        kprintf("usage: sched queue [CPU]\n");
        return false;
    }
    if (argc == 3 && !parse_range(argv[2], 0, ncpus - 1, &cpu, "CPU"))
        return false;
    struct rq *rq = &cpus[cpu].rq;
    struct queue_ctx ctx = { .cpu = (unsigned)cpu };
    u64 flags = spin_lock_irqsave(&rq->lock);
    sched_policy_current->describe_queue(&rq->q, false, &ctx.qv);
    /* One consistent picture: the queue cannot change while we print it
     * (the console lock is taken inside; no queue lock is taken there). */
    kprintf("queue cpu=%ld policy=%s runnable=%u%s", cpu, sched_policy_current->name, sched_nr_runnable(&rq->q),
            rq->idle_idling && !sched_running(&rq->q) ? " (idle)" : "");
    if (rq->q.rt.curr || rq->q.rt.nr_queued)
        kprintf(" rt=%u%s", rq->q.rt.nr_queued + (rq->q.rt.curr ? 1 : 0),
                sched_rt_throttled(&rq->q) ? " (rt throttled)" : "");
    if (ctx.qv.vtime)
        kprintf(" V=%lu.%03lu base_slice_us=%lu\n", ctx.qv.V / 1000, ctx.qv.V % 1000, ctx.qv.base_slice_ns / 1000);
    else
        kprintf("\n");
    if (ctx.qv.vtime)
        kprintf("    ID NAME            NICE WEIGHT SLICE_US STATE     VRUNTIME-V   DEADLINE-V          LAG ELIGIBLE\n");
    else
        kprintf("    ID NAME            NICE STATE\n");
    spin_unlock_irqrestore(&rq->lock, flags);
    tasks_for_each(queue_line, &ctx);
    return true;
}

static bool sched_slice(int argc, char **argv)
{
    long id, us;
    struct task *t = task_and_value(argc, argv, "sched slice ID US", &id, 100, 100000, "US", &us);
    if (!t)
        return false;
    task_set_slice(t, (u64)us * NSEC_PER_USEC);
    kprintf("slice id=%ld slice_us=%ld\n", id, us);
    return true;
}

static bool sched_feature(int argc, char **argv)
{
    if (argc == 2) {
        for (int f = 0; f < EEVDF_NR_FEATURES; f++)
            kprintf("  %-24s %-3s (default %s)  %s\n", eevdf_feature_name(f), eevdf_feature(f) ? "on" : "off",
                    eevdf_feature_default(f) ? "on" : "off", eevdf_feature_comment(f));
        return true;
    }
    bool on;
    if (argc != 4 || (strcmp(argv[3], "on") != 0 && strcmp(argv[3], "off") != 0)) {
        kprintf("usage: sched feature [NAME on|off]\n");
        return false;
    }
    on = strcmp(argv[3], "on") == 0;
    int f = eevdf_feature_lookup(argv[2]);
    if (f < 0) {
        kprintf("sched feature: no feature '%s' (sched feature lists them)\n", argv[2]);
        return false;
    }
    if (f == EEVDF_F_LAB_LEAVE_BUG && on && !boot_config.lab_bugs) {
        kprintf("sched feature: LAB_LEAVE_BUG puts a known bug back; boot with lab_bugs=1 to allow it\n");
        return false;
    }
    trace_set(NULL, TRACE_SET_FEATURE, eevdf_feature(f), on, eevdf_feature_name(f));
    eevdf_feature_set(argv[2], on);
    kprintf("feature %s=%s\n", eevdf_feature_name(f), on ? "on" : "off");
    return true;
}

/* sched knob [NAME VALUE]: the settings of knob.h. */
static bool sched_knob_cmd(int argc, char **argv)
{
    if (argc == 2) {
        for (int k = 0; k < KNOB_NR; k++)
            kprintf("  %-20s %-8ld (default %ld)  %s\n", sched_knob_name(k), sched_knob(k), sched_knob_default(k),
                    sched_knob_comment(k));
        return true;
    }
    long v;
    if (argc != 4 || !parse_long(argv[3], &v)) {
        kprintf("usage: sched knob [NAME VALUE]\n");
        return false;
    }
    int k = sched_knob_lookup(argv[2]);
    if (k < 0) {
        kprintf("sched knob: no knob '%s' (sched knob lists them)\n", argv[2]);
        return false;
    }
    const char *why = "";
    if (!sched_knob_set(k, v, &why)) {
        kprintf("sched knob: %s=%ld refused: %s\n", argv[2], v, why);
        return false;
    }
    kprintf("knob %s=%ld\n", sched_knob_name(k), v);
    return true;
}

/* sched rt ID PRIO [fifo|rr]: a task's class (PRIO 0: fair). */
static bool sched_rt_cmd(int argc, char **argv)
{
    long id, prio;
    unsigned policy = RT_FIFO;
    if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "fifo") != 0 && strcmp(argv[4], "rr") != 0)) {
        kprintf("usage: sched rt ID PRIO [fifo|rr]   (PRIO 1..99, 0: back to the fair class)\n");
        return false;
    }
    if (!parse_range(argv[2], 1, 0x7fffffff, &id, "ID") || !parse_range(argv[3], 0, RT_PRIO_MAX, &prio, "PRIO"))
        return false;
    if (argc == 5 && strcmp(argv[4], "rr") == 0)
        policy = RT_RR;
    struct task *t = named_task(argv, id, false);
    if (!t)
        return false;
    const char *why = "";
    if (!task_set_class(t, (unsigned)prio, policy, &why)) {
        kprintf("sched rt: task %ld cannot change class now: %s\n", id, why);
        return false;
    }
    if (prio)
        kprintf("rt id=%ld prio=%ld %s\n", id, prio, policy == RT_RR ? "rr" : "fifo");
    else
        kprintf("rt id=%ld fair\n", id);
    return true;
}

/* sched cpu ID CPU|all: the CPUs a task may run on (one, or all). */
static bool sched_cpu_cmd(int argc, char **argv)
{
    long id, cpu = -1;
    if (argc != 4) {
        kprintf("usage: sched cpu ID CPU|all\n");
        return false;
    }
    if (!parse_range(argv[2], 1, 0x7fffffff, &id, "ID"))
        return false;
    if (strcmp(argv[3], "all") != 0 && !parse_range(argv[3], 0, ncpus - 1, &cpu, "CPU"))
        return false;
    struct task *t = named_task(argv, id, false);
    if (!t)
        return false;
    task_set_allowed(t, cpu < 0 ? 0 : 1ull << cpu);
    kprintf("cpu id=%ld allowed=%s home=%u\n", id, argv[3], READ_ONCE(t->cpu));
    return true;
}

void sched_cmd_help(void)
{
    kprintf("  sched [MS]               counters over a window (default %d ms), a line per CPU\n",
            DEFAULT_WINDOW_MS);
    kprintf("  sched total              the same counters since boot\n");
    kprintf("  sched probe N [SAMPLES [WAITER_SLICE_US]]  wake latency beside N spinners (default %d\n"
            "                           samples); the waiter may ask for its own slice\n",
            DEFAULT_PROBE_SAMPLES);
    kprintf("  sched share NICE...      CPU shares of spinners with these nice values\n");
    kprintf("  sched nice ID NICE       set a task's nice (-20..19)\n");
    kprintf("  sched queue [CPU]        what the policy has on a CPU's queue (EEVDF: V, vruntime,\n"
            "                           deadline, lag, eligibility)\n");
    kprintf("  sched slice ID US        request a slice (100..100000 us; EEVDF)\n");
    kprintf("  sched feature [NAME on|off]  list or flip EEVDF's feature switches\n");
    kprintf("  sched knob [NAME VALUE]  list or set the RT budget and the re-place knob\n");
    kprintf("  sched rt ID PRIO [fifo|rr]  move a task to the RT class (PRIO 1..99; 0: fair)\n");
    kprintf("  sched cpu ID CPU|all     the CPUs a task may run on; it moves if queued, else when it\n"
            "                           next wakes or is preempted\n");
}

/* The subcommands that take their own words (argv[1] is the name); the
 * window forms and help are sched_cmd's, and sched_cmd_help lists them all. */
static const struct {
    const char *name;
    bool (*run)(int argc, char **argv);
} subcommands[] = {
    { "probe", sched_probe },
    { "share", sched_share },
    { "nice", sched_nice },
    { "queue", sched_queue },
    { "slice", sched_slice },
    { "feature", sched_feature },
    { "knob", sched_knob_cmd },
    { "rt", sched_rt_cmd },
    { "cpu", sched_cpu_cmd },
};

bool sched_cmd(int argc, char **argv)
{
    if (argc == 1)
        return sched_window(DEFAULT_WINDOW_MS);
    long ms;
    if (parse_long(argv[1], &ms)) {
        if (ms < 1 || ms > 600000) {
            kprintf("sched: window must be 1..600000 ms\n");
            return false;
        }
        return sched_window((u64)ms);
    }
    if (strcmp(argv[1], "total") == 0)
        return sched_window(0);
    for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc, argv);
    if (strcmp(argv[1], "help") == 0) {
        sched_cmd_help();
        return true;
    }
    kprintf("sched: unknown subcommand '%s' (try sched help)\n", argv[1]);
    return false;
}
