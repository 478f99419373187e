/*
 * The Linux engine (contract in engine.h): the runner's threads, the
 * recorder started at the runner's start line, so the trace holds the
 * whole window, and the trace written once the threads are done. Then the
 * engine's ops (host/engine/engine.h): each run in a child process, which
 * writes its answer to a file its parent reads when it ends; and the
 * host's rules, which the other engines of an experiment take.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"
#include "eevdf_features.h"
#include "host/engine/linux/engine.h"
#include "host/engine/linux/hostrules.h"
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

/* RUNQ_BPF_ALTERNATE_MS=N (benches only, tests/engine/bench_linux_bpf.sh): the
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
                     int64_t *trace, struct engine_foreign *foreign, char *err, size_t errlen)
{
    static struct engine_foreign unused;
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

/* ---- the engine's ops (host/engine/engine.h) ---- */

/* What this Linux cannot run, and RT spinners on every CPU unless
 * --allow-rt-hog (host/engine/linux/run.h). */
static int linux_engine_refuses(const struct engine_settings *e, const struct scenario *s, char *err, size_t errlen)
{
    if (linux_refuses(s, err, errlen) < 0 || linux_refuses_rt_hog(s, e->allow_rt_hog, err, errlen) < 0)
        return -1;
    /* Only a scenario that will run earns the warning: a refusal's one
     * line stays the only line. */
    static bool told;
    if (!told && linux_root_task_group())
        fprintf(stderr, "runq: linux: runq runs in the root task group (no session of its own), so other programs "
                        "share the scenario's queues and runq report fidelity cannot replay those picks; "
                        "run it under setsid for a queue of its own\n");
    told = true;
    return 0;
}

/* One at a time unless --jobs says more: in real time, runs side by side
 * share the host's CPUs and disturb each other. */
static int linux_engine_jobs(const struct engine_settings *e)
{
    return e->jobs ? e->jobs : 1;
}

/* What a run's child leaves for its parent in r->aux: the result as this
 * very binary lays it out (parent and child are one program). */
struct linux_answer {
    int ok;
    int64_t trace;
    struct engine_foreign foreign;
    char why[512];
    char internals_missing[256]; /* "": Linux's EEVDF state was recorded */
    struct scn_result res;
};

/* A run: a child process (its threads, priorities and affinities stay out
 * of the caller's; a crash ends the run, not the experiment) that runs the
 * scenario, records it into the database and writes its answer. Ctrl-C
 * reaches it too (one process group): it ends the run early and removes
 * its tracing instance. Its notes (what Linux adjusted) go to r->log,
 * shown when the run fails. */
static int linux_engine_start(const struct engine_settings *e, struct engine_run *r, const char *dir,
                              struct scn_result *res, char *err, size_t errlen)
{
    (void)res;
    pid_t pid = engine_fork_run(e, r, dir, "err", "answer", err, errlen);
    if (pid == 0) {
        /* A SIGTERM sets *e->stop (the caller's handler, inherited),
         * which stops the run as a Ctrl-C does. */
        static struct linux_answer a;
        char source[600];
        FILE *notes = fopen(r->log, "w");
        snprintf(source, sizeof source, "linux:%s%s%s", e->file, r->params[0] ? " " : "", r->params);
        struct linux_engine_opts lo = { .db = e->db, .source = source, .stop = e->stop, .notes = notes,
                                        .allow_rt_hog = e->allow_rt_hog,
                                        .internals_missing = a.internals_missing,
                                        .internals_missing_len = sizeof a.internals_missing };
        a.ok = linux_engine_run(&r->sc, &lo, &a.res, &a.trace, &a.foreign, a.why, sizeof a.why) == 0;
        if (notes)
            fclose(notes);
        int fd = open(r->aux, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        bool wrote = fd >= 0 && write(fd, &a, sizeof a) == (ssize_t)sizeof a;
        if (fd >= 0)
            close(fd);
        _exit(wrote ? 0 : 1);
    }
    return pid < 0 ? -1 : 0;
}

static int linux_engine_finish(const struct engine_settings *e, struct engine_run *r, int st, struct scn_result *res,
                               int64_t *trace, char *why, size_t len)
{
    static struct linux_answer a;
    int fd = open(r->aux, O_RDONLY);
    bool got = fd >= 0 && read(fd, &a, sizeof a) == (ssize_t)sizeof a;
    if (fd >= 0)
        close(fd);
    *trace = got ? a.trace : 0;
    if (!got) {
        snprintf(why, len, "the Linux run ended without an answer (%s %d)",
                 WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        return -1;
    }
    /* Said once an experiment: every run of it records the same way. */
    static bool told;
    if (a.trace && a.internals_missing[0] && !told && !e->quiet) {
        fprintf(stderr, "runq experiment: linux: EEVDF internals not recorded (tracefs only): %s\n",
                a.internals_missing);
        told = true;
    }
    /* A bench's recorder A/B (RUNQ_BPF_ALTERNATE_MS, alternate.c): its
     * figures are the run's notes that say so. */
    FILE *notes = fopen(r->log, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (notes && (n = getline(&line, &cap, notes)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        if (!strncmp(line, "recorder A/B", 12) && !e->quiet)
            fprintf(stderr, "runq experiment: linux: %s\n", line);
    }
    free(line);
    if (notes)
        fclose(notes);
    if (!a.ok) {
        snprintf(why, len, "%s", a.why);
        return -1;
    }
    *res = a.res;
    r->foreign = a.foreign;
    return 0;
}

/* Whether base sets runq's switch f itself: a feature line, a vary of
 * feature.NAME, or of switch (which sets them all). */
static bool scenario_sets(const struct scenario *s, int f)
{
    char key[SCN_KEY_MAX];
    snprintf(key, sizeof key, "feature.%s", eevdf_feature_name((enum eevdf_feature)f));
    for (int a = 0; a < s->nvary; a++)
        if (!strcmp(s->vary[a].key, "switch") || !strcmp(s->vary[a].key, key))
            return true;
    for (int i = 0; i < s->nfeatures; i++)
        if (s->features[i].feature == f)
            return true;
    return false;
}

/* This host's rules (hostrules.h): the line that says them, and each of
 * runq's switches they name with a value other than runq's default. */
static void linux_engine_host_rules(const struct scenario *base, struct engine_host_rules *h)
{
    const struct hostrules *r = hostrules_read();
    char copy[HOSTRULES_NAMES_MAX];
    memset(h, 0, sizeof *h);
    hostrules_describe(r, h->describe, sizeof h->describe);
    snprintf(copy, sizeof copy, "%s", r->names);
    unsigned bit = 0;
    for (char *save = NULL, *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save), bit++) {
        int f = eevdf_feature_lookup(name);
        /* Linux's own features are named from BTF even when their mask
         * could not be read: then their bits say nothing. */
        bool known = r->features_known || !strcmp(name, "LAG_CLAMP_MAX_SLICE");
        if (f < 0 || !known || scenario_sets(base, f) || bit >= 32)
            continue;
        bool on = r->mask >> bit & 1;
        if (on == eevdf_feature_default((enum eevdf_feature)f)) {
            h->agree++;
            continue;
        }
        BUG_ON(h->n >= SCN_MAX_FEATURES); /* at most 32: one a bit of the mask */
        h->feature[h->n] = eevdf_feature_name((enum eevdf_feature)f);
        h->on[h->n++] = on;
    }
}

/* Alike in shape to every ops table, the engines' and the policies'
 * (designated initializers): each names its own functions. */
const struct engine_ops linux_engine_ops = {
    .name = "linux",
    .log_name = "notes",
    .refuses = linux_engine_refuses,
    .jobs = linux_engine_jobs,
    .start = linux_engine_start,
    .finish = linux_engine_finish,
    .host_rules = linux_engine_host_rules,
};
