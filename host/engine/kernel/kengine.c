/*
 * runq's kernel as an engine (host/engine/engine.h). A run is this very
 * binary's `runq boot --deterministic --record DB` in a child, given the
 * scenario as shell lines (--cmd): first the machine's settings (each
 * EEVDF switch, each knob), then the scenario's `scn` program
 * (trace/scenario.h, host/scenario/kprog.c). Its console, which ends with
 * the kernel's result lines, goes to a file the run's end reads back
 * (scn_kresult); its stderr to another, where `runq record` says which
 * trace it stored.
 *
 * Up to --jobs at once, by default one per host CPU: under icount guest
 * time is counted in instructions, so runs side by side do not disturb
 * each other. With --realtime (no icount) one at a time.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eevdf_features.h"
#include "host/base/xalloc.h"
#include "host/engine/engine.h"
#include "host/scenario/scenario.h"

#define KENGINE_MAX_LINES 96

/* The shell lines that set the machine before the scenario's own (trace/
 * scenario.h): each EEVDF switch, then each knob in an order the kernel
 * accepts. Into lines[KENGINE_SETUP_MAX]; returns how many. */
#define KENGINE_SETUP_MAX (SCN_MAX_FEATURES + SCN_MAX_KNOBS)
static int setup_lines(const struct scenario *sc, char lines[KENGINE_SETUP_MAX][80])
{
    int n = 0, order[SCN_MAX_KNOBS];
    for (int i = 0; i < sc->nfeatures; i++)
        snprintf(lines[n++], sizeof lines[0], "sched feature %s %s",
                 eevdf_feature_name((enum eevdf_feature)sc->features[i].feature), sc->features[i].on ? "on" : "off");
    scn_knob_order(sc, order);
    for (int i = 0; i < sc->nknobs; i++)
        snprintf(lines[n++], sizeof lines[0], "sched knob %s %lld", scn_knob_name(sc->knobs[order[i]].knob),
                 (long long)sc->knobs[order[i]].value);
    return n;
}

/* The whole file at path, NUL-terminated (xmalloc'd), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            buf = xrealloc(buf, cap * 2);
            cap *= 2;
        }
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int kernel_refuses(const struct engine_settings *e, const struct scenario *s, char *err, size_t errlen)
{
    (void)e;
    char *lines[KENGINE_MAX_LINES];
    int n = scn_kprog(s, lines, KENGINE_MAX_LINES, err, errlen);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    return n < 0 ? -1 : 0;
}

static int kernel_jobs(const struct engine_settings *e)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (e->realtime)
        return 1;
    if (e->jobs)
        return e->jobs;
    return (int)(n < 1 ? 1 : n > ENGINE_MAX_JOBS ? ENGINE_MAX_JOBS : n);
}

/* Starts run r's kernel: this binary's `boot`, its console to r->log. */
static int kernel_start(const struct engine_settings *e, struct engine_run *r, const char *dir,
                        struct scn_result *res, char *err, size_t errlen)
{
    (void)res;
    char *lines[KENGINE_MAX_LINES];
    int n = scn_kprog(&r->sc, lines, KENGINE_MAX_LINES, err, errlen);
    if (n < 0)
        return -1;
    char *argv[16 + 2 * (KENGINE_MAX_LINES + KENGINE_SETUP_MAX)];
    char cpus[16], hz[16], timeout[16], setup[KENGINE_SETUP_MAX][80];
    int a = 0;
    argv[a++] = "runq";
    argv[a++] = "boot";
    if (!e->realtime)
        argv[a++] = "--deterministic";
    argv[a++] = "--policy";
    argv[a++] = r->sc.policy;
    snprintf(cpus, sizeof cpus, "%u", r->sc.cpus);
    argv[a++] = "--cpus";
    argv[a++] = cpus;
    if (r->sc.hz) {
        snprintf(hz, sizeof hz, "%u", r->sc.hz);
        argv[a++] = "--hz";
        argv[a++] = hz;
    }
    snprintf(timeout, sizeof timeout, "%d", e->timeout);
    argv[a++] = "--timeout";
    argv[a++] = timeout;
    if (e->db) {
        argv[a++] = "--record";
        argv[a++] = (char *)e->db;
    }
    for (int i = 0, ns = setup_lines(&r->sc, setup); i < ns; i++) {
        argv[a++] = "--cmd";
        argv[a++] = setup[i];
    }
    for (int i = 0; i < n; i++) {
        argv[a++] = "--cmd";
        argv[a++] = lines[i];
    }
    argv[a] = NULL;
    /* in the child, e->in_child first: runq boot ends QEMU on the SIGTERM */
    pid_t pid = engine_fork_run(e, r, dir, "out", "err", err, errlen);
    if (pid == 0) {
        int fo = open(r->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(r->aux, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fi = open("/dev/null", O_RDONLY);
        if (fo < 0 || fe < 0 || fi < 0)
            _exit(127);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    for (int i = 0; i < n; i++)
        free(lines[i]);
    return pid < 0 ? -1 : 0;
}

/* The trace id `runq record` reported on the run's stderr, or 0. */
static int64_t trace_id_of(const char *errtext)
{
    const char *p = errtext;
    long long id = 0;
    while (p && (p = strstr(p, "runq record: trace ")) != NULL) {
        if (sscanf(p, "runq record: trace %lld in ", &id) == 1)
            return id;
        p++;
    }
    return 0;
}

/* The last line of text that is not empty, for a failure's why. */
static void last_line(const char *text, char *buf, size_t len)
{
    const char *end = text + strlen(text), *start;
    while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    for (start = end; start > text && start[-1] != '\n'; start--)
        ;
    snprintf(buf, len, "%.*s", (int)(end - start), start);
}

/* A kernel run's end: its console holds the result lines, its stderr the
 * trace id `runq record` gave. */
static int kernel_finish(const struct engine_settings *e, struct engine_run *r, int st, struct scn_result *res,
                         int64_t *trace, char *why, size_t len)
{
    (void)e;
    char *out = slurp(r->log), *errtext = slurp(r->aux);
    *trace = errtext ? trace_id_of(errtext) : 0;
    bool ok = out && scn_kresult(&r->sc, out, res, why, len) == 0;
    if (ok && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        ok = false;
        last_line(errtext ? errtext : "", why, len);
        if (!why[0])
            snprintf(why, len, "runq boot exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    if (!ok && !why[0])
        last_line(errtext ? errtext : "", why, len);
    /* The probe effect, said once: every traced run's figures include
     * the records its CPUs wrote. */
    static bool told;
    if (ok && res->trace_records && res->trace_window_ns && !told) {
        told = true;
        uint64_t cpu_ns = res->trace_window_ns * res->trace_cpus;
        fprintf(stderr,
                "runq experiment: probe effect: the kernel traces every run: in run %d its %u busy CPU%s wrote %llu "
                "trace records, about %llu ns each (1 in 64 timed), %.2f %% of their time, in every figure of the "
                "kernel's cells (runq boot --deterministic without --record measures without)\n",
                r->number, res->trace_cpus, res->trace_cpus == 1 ? "" : "s", (unsigned long long)res->trace_records,
                (unsigned long long)(res->trace_ns / res->trace_records), 100.0 * res->trace_ns / cpu_ns);
    }
    free(out);
    free(errtext);
    return ok ? 0 : -1;
}

/* The lines cell's run would give runq boot (after refuses() passed). */
static void kernel_dry_run(const struct engine_settings *e, const struct scenario *cell, FILE *out)
{
    (void)e;
    char *lines[KENGINE_MAX_LINES], err[512];
    int n = scn_kprog(cell, lines, KENGINE_MAX_LINES, err, sizeof err);
    fprintf(out, "cell 0 in the kernel (runq boot --deterministic --policy %s --cpus %u", cell->policy, cell->cpus);
    if (cell->hz)
        fprintf(out, " --hz %u", cell->hz);
    fprintf(out, "):\n");
    char setup[KENGINE_SETUP_MAX][80];
    for (int i = 0, ns = setup_lines(cell, setup); i < ns; i++)
        fprintf(out, "  %s\n", setup[i]);
    for (int i = 0; i < n; i++) {
        fprintf(out, "  %s\n", lines[i]);
        free(lines[i]);
    }
}

/* Alike in shape to every ops table, the engines' and the policies'
 * (designated initializers): each names its own functions. */
const struct engine_ops kernel_engine_ops = {
    .name = "kernel",
    .log_name = "console",
    .refuses = kernel_refuses,
    .jobs = kernel_jobs,
    .start = kernel_start,
    .finish = kernel_finish,
    .dry_run = kernel_dry_run,
};
