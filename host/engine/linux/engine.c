/*
 * The Linux engine (contract in engine.h): the runner's threads, the
 * recorder started at the runner's start line, so the trace holds the
 * whole window, and the trace written once the threads are done.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/engine/linux/engine.h"
#include "host/engine/linux/lxrec.h"
#include "host/engine/linux/run.h"

struct engine_ctx {
    const struct scenario *s;
    struct lxrec *rec; /* NULL: not recording */
    bool record;
    FILE *notes;
    char *why_out;
    size_t why_len;
};

/* The runner's start line: every thread exists and waits. The recording
 * starts now, so its first events are the threads leaving the line. */
static int on_ready(void *ctx, const struct linux_thread *t, unsigned n, char *err, size_t errlen)
{
    struct engine_ctx *c = ctx;
    (void)t;
    (void)n;
    if (!c->record)
        return 0;
    /* The recorder's reader thread keeps off the scenario's CPUs when the
     * host has another, else off its RT tasks' (lxrec.h). */
    uint64_t used = 0, rt = 0;
    for (unsigned i = 0; i < n; i++) {
        used |= t[i].cpumask;
        rt |= t[i].rt ? t[i].cpumask : 0;
    }
    /* The EEVDF internals: switches on the scenario's CPUs, wakeups of
     * this process's threads (the scenario's, and runq's own, which the
     * trace shows as "other"). */
    struct lxrec_opts ro = { .rt_cpus = rt, .internals = true, .bpf_cpus = used, .bpf_tgid = getpid() };
    c->rec = lxrec_start(&ro, used, err, errlen);
    if (!c->rec)
        return -1;
    const char *why = lxrec_internals_missing(c->rec);
    if (why && c->notes)
        fprintf(c->notes, "linux: EEVDF internals not recorded (tracefs only): %s\n", why);
    if (c->why_out && c->why_len)
        snprintf(c->why_out, c->why_len, "%s", why ? why : "");
    return 0;
}

static int on_alternate(void *ctx, bool on, char *err, size_t errlen)
{
    struct engine_ctx *c = ctx;
    if (!c->rec) {
        snprintf(err, errlen, "not recording (no --db)");
        return -1;
    }
    /* RUNQ_BPF_ALTERNATE_DRY=1: the same windows, nothing toggled (an
     * A/A run: the measure's own bias and spread). */
    const char *dry = getenv("RUNQ_BPF_ALTERNATE_DRY");
    if (dry && !strcmp(dry, "1"))
        return 0;
    return lxrec_internals_on(c->rec, on, err, errlen);
}

/* RUNQ_BPF_ALTERNATE_MS=N (benches only, tests/bench_linux_bpf.sh): the
 * recorder off and on every N ms of the window, as host/engine/linux/alternate.c
 * measures it; 0 when unset or not a number from 10 to 10000. */
static uint64_t alternate_ns(void)
{
    const char *v = getenv("RUNQ_BPF_ALTERNATE_MS");
    char *end;
    if (!v || !*v)
        return 0;
    unsigned long ms = strtoul(v, &end, 10);
    return *end || ms < 10 || ms > 10000 ? 0 : ms * 1000000ull;
}

int linux_engine_run(const struct scenario *s, const struct linux_engine_opts *o, struct scn_result *r,
                     int64_t *trace, struct linux_foreign *foreign, char *err, size_t errlen)
{
    static struct linux_foreign unused;
    if (!foreign)
        foreign = &unused;
    memset(foreign, 0, sizeof *foreign);
    static struct linux_run_info info;
    struct engine_ctx c = { .s = s, .record = o->db != NULL, .notes = o->notes, .why_out = o->internals_missing,
                            .why_len = o->internals_missing_len };
    if (o->internals_missing && o->internals_missing_len)
        o->internals_missing[0] = '\0';
    struct linux_run_opts ro = { .stop = o->stop, .ready = on_ready, .ctx = &c, .notes = o->notes,
                                 .allow_rt_hog = o->allow_rt_hog, .alternate_ns = alternate_ns(),
                                 .alternate = on_alternate };
    *trace = 0;
    memset(&info, 0, sizeof info);
    int rc = linux_run(s, &ro, r, &info, err, errlen);
    if (!c.rec)
        return rc;
    char werr[512];
    if (lxrec_stop(c.rec, werr, sizeof werr) < 0 && rc == 0) {
        snprintf(err, errlen, "%s", werr);
        rc = -1;
    }
    /* A run stopped by a signal keeps what was recorded, as an
     * incomplete trace (nothing lost); a run that failed otherwise has
     * nothing worth a trace. */
    bool stopped = o->stop && *o->stop;
    if (rc == 0 || stopped) {
        static struct lxrec_task tasks[SCN_MAX_INSTANCES];
        for (unsigned i = 0; i < info.nthreads; i++) {
            const struct linux_thread *t = &info.thread[i];
            tasks[i] = (struct lxrec_task){ .tid = t->tid, .name = t->name, .nice = t->nice,
                                            .slice_ns = t->slice_got_ns, .rt = t->rt, .rt_prio = t->rt_prio,
                                            .rt_policy = t->rt_policy, .cpu = t->cpu };
        }
        uint64_t cpus = 0;
        for (unsigned i = 0; i < info.nthreads; i++)
            cpus |= info.thread[i].cpumask;
        struct lxrec_meta m = { .db = o->db, .source = o->source, .kernel_version = info.kernel,
                                .ncpus = info.host_cpus, .hz = info.hz, .scn_cpus = cpus, .tasks = tasks,
                                .ntasks = info.nthreads, .t_start = info.t_start, .t_end = info.t_end,
                                .end_reason = rc == 0 ? NULL : "interrupted" };
        char werr2[512];
        if (lxrec_write(c.rec, &m, trace, rc == 0 ? err : werr2, rc == 0 ? errlen : sizeof werr2) < 0)
            rc = -1;
        foreign->cpus = cpus;
        foreign->known = rc == 0;
        for (unsigned k = 0; k < 64 && rc == 0; k++)
            if (cpus >> k & 1) {
                uint64_t other = 0, unknown = 0;
                foreign->known &= lxrec_foreign_ns(c.rec, k, &other, &unknown);
                foreign->cpu_ns[k] = other + unknown;
                foreign->ns += other + unknown;
                foreign->unknown_ns += unknown;
            }
    }
    lxrec_free(c.rec);
    return rc;
}
