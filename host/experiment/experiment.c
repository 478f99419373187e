/*
 * `runq experiment FILE`: runs a scenario (docs/scenarios.md), or the
 * matrix its vary axes make, each cell --repeat times with seeds seed,
 * seed+1, ..., on an engine, and stores every run in the database; then
 * prints the experiment's table from the database (experiment_table.c).
 * docs/experiments.md is the guide.
 *
 * In order:
 *   1. the flags, the scenario, the --vary axes (a --vary replaces the
 *      file's axis of the same key);
 *   2. the runs: cell c (axis values, the first axis slowest) × repeat r,
 *      numbered c × repeats + r; with --shard I/N only those whose number
 *      is I-1 modulo N;
 *   3. the engines (a table, xp_engines[]; --engine names one or several,
 *      and every run of the first goes before the second's): `kernel`
 *      runs `runq boot --deterministic --record DB` (this binary) with the
 *      scenario's `scn` lines, up to --jobs at once (icount runs do not
 *      disturb each other: guest time is counted in instructions), one at
 *      a time in real-time mode; `linux` runs the scenario as threads of a
 *      child process on the host's Linux and records it from tracefs
 *      (host/engine/linux/engine.h), one at a time unless --jobs says more (real
 *      time: runs side by side share the host's CPUs); `sim` runs the
 *      policy on paper in this process;
 *   4. each run's results, tasks and metrics go into the database as it
 *      ends (db/experiment.c), with its trace's id: a failed run is stored
 *      too, status failed, with why;
 *   5. the table.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/experiment/experiment.h"
#include "host/experiment/orphans.h"
#include "host/engine/sim/sim.h"
#include "db/experiment.h"
#include "eevdf_features.h"
#include "host/base/xalloc.h"
#include "host/engine/linux/engine.h"
#include "host/engine/linux/hostrules.h"
#include "host/scenario/scenario.h"

#define XP_DEFAULT_DB "runq.db"
#define XP_MAX_JOBS 64
#define XP_MAX_LINES 96
#define XP_DEFAULT_TIMEOUT 900
#define XP_MAX_ENGINES 3
#define XP_MAX_RERUNS 100
#define XP_STR_(x) #x
#define XP_STR(x) XP_STR_(x)

struct xp_engine;

struct xp_opts {
    const char *file, *db;
    char engine[64]; /* as given: "kernel", "kernel,linux,sim" */
    int nengines;
    const struct xp_engine *engines[XP_MAX_ENGINES];
    int repeat, jobs, timeout, shard_i, shard_n, rerun;
    bool seed_given, realtime, quiet, dry_run, no_record, jobs_given, allow_rt_hog;
    uint64_t seed;
    enum dbq_format fmt;
    int nvary;
    const char *vary[SCN_MAX_VARY];
};

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "runq experiment: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return 2;
}

static const struct xp_engine *engine_lookup(const char *name);

/* The flags' checks (struct flag's fn): nonzero with err left empty is
 * "--NAME takes <the row's takes>, not 'V'"; with err, "--NAME V: err". */

/* --engine E[,E...]: each an engine of xp_engines[], at most once. */
static int set_engines(const char *v, void *value, char *err, size_t errlen)
{
    struct xp_opts *o = value;
    char list[64], *save;
    if (strlen(v) >= sizeof list)
        return -1;
    snprintf(list, sizeof list, "%s", v);
    o->nengines = 0;
    for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        const struct xp_engine *x = engine_lookup(e);
        if (!x)
            return -1;
        for (int i = 0; i < o->nengines; i++)
            if (o->engines[i] == x) {
                snprintf(err, errlen, "names %s twice", e);
                return -1;
            }
        BUG_ON(o->nengines >= XP_MAX_ENGINES); /* each engine at most once */
        o->engines[o->nengines++] = x;
    }
    if (!o->nengines)
        return -1;
    snprintf(o->engine, sizeof o->engine, "%s", v);
    return 0;
}

/* --vary KEY=V1,V2, repeatable (each checked by apply_vary_flags). */
static int add_vary(const char *v, void *value, char *err, size_t errlen)
{
    struct xp_opts *o = value;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return -1;
    if (o->nvary == SCN_MAX_VARY) {
        snprintf(err, errlen, "at most %d --vary axes", SCN_MAX_VARY);
        return -1;
    }
    o->vary[o->nvary++] = v;
    return 0;
}

/* A count in [lo, hi] into an int (scn_parse_count's digits). */
static int set_count(const char *v, int *out, uint64_t lo, uint64_t hi)
{
    uint64_t n;
    if (!scn_parse_count(v, hi, &n) || n < lo)
        return -1;
    *out = (int)n;
    return 0;
}

static int set_repeat(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return set_count(v, value, 1, 1000);
}

static int set_jobs(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct xp_opts *o = value;
    if (set_count(v, &o->jobs, 1, XP_MAX_JOBS))
        return -1;
    o->jobs_given = true;
    return 0;
}

static int set_rerun(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return set_count(v, value, 0, XP_MAX_RERUNS);
}

static int set_timeout(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return set_count(v, value, 1, 86400);
}

static int set_seed(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct xp_opts *o = value;
    if (!scn_parse_count(v, UINT64_MAX, &o->seed))
        return -1;
    o->seed_given = true;
    return 0;
}

static int set_db(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!*v)
        return -1;
    *(const char **)value = v;
    return 0;
}

static int set_shard(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct xp_opts *o = value;
    uint64_t i, k;
    char a[24], *slash = strchr(v, '/');
    if (!slash || (size_t)(slash - v) >= sizeof a)
        return -1;
    memcpy(a, v, (size_t)(slash - v));
    a[slash - v] = '\0';
    if (!scn_parse_count(a, 100000, &i) || !scn_parse_count(slash + 1, 100000, &k) || i < 1 || i > k)
        return -1;
    o->shard_i = (int)i;
    o->shard_n = (int)k;
    return 0;
}

/* -1 to go on, else the exit status. */
static int xp_args(int argc, char **argv, struct xp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->db = XP_DEFAULT_DB;
    char none[1];
    int defaulted = set_engines("kernel", o, none, sizeof none);
    BUG_ON(defaulted != 0);
    o->repeat = 1;
    o->timeout = XP_DEFAULT_TIMEOUT;
    bool csv = false, json = false;
    const struct flag flags[] = {
        FLAG_FN("engine", o, "E[,E...]", "where it runs: kernel (runq's, under QEMU; default), linux (the\n"
                "host's), sim (on paper); several: each cell on each, one table", set_engines,
                .takes = "kernel, linux or sim, or several with commas"),
        FLAG_FN("vary", o, "KEY=V1,V2", "an axis of the matrix (replaces the file's vary KEY); repeatable", add_vary,
                .takes = "KEY=V1,V2,..."),
        FLAG_FN("repeat", &o->repeat, "N", "run each cell N times, with seeds SEED..SEED+N-1 (default 1)",
                set_repeat, .takes = "1..1000"),
        FLAG_FN("seed", o, "N", "the first repeat's seed (default: the file's seed, else 0)", set_seed,
                .takes = "a whole number 0..18446744073709551615"),
        FLAG_FN("db", &o->db, "FILE.db", "store runs and traces here (default runq.db)", set_db,
                .takes = "a file name"),
        FLAG_FN("jobs", o, "N", "runs at once (kernel: default the host's CPUs, 1 with --realtime;\nlinux: default 1)",
                set_jobs, .takes = "1.." XP_STR(XP_MAX_JOBS)),
        FLAG_ON("csv", &csv, "print the table as CSV"),
        FLAG_ON("json", &json, "print the table as JSON"),
        FLAG_FN("shard", o, "I/N", "run only shard I of N of the runs (merge the databases with runq\nmerge)",
                set_shard, .takes = "I/N (1 <= I <= N)"),
        FLAG_FN("timeout", &o->timeout, "S", "give up on a kernel run after S wall-clock seconds (default 900)",
                set_timeout, .takes = "1..86400 seconds"),
        FLAG_ON("realtime", &o->realtime, "kernel runs without icount: real time, noisy, one at a time"),
        FLAG_ON("no-record", &o->no_record, "store metrics only, no trace (linux without root or tracefs; its\n"
                "foreign CPU time is then not measured)"),
        FLAG_ON("allow-rt-hog", &o->allow_rt_hog, "linux: let RT tasks that never sleep hold every host CPU (the\n"
                "host gets what RT throttling leaves)"),
        FLAG_FN("rerun-disturbed", &o->rerun, "N",
                "linux: run a disturbed run (other processes took more than\n" XP_STR(XP_DISTURBED_PERCENT)
                "% of the window on its CPUs) again, up to N times; it stays,\nmarked (default 0)",
                set_rerun, .takes = "0.." XP_STR(XP_MAX_RERUNS)),
        FLAG_ON("dry-run", &o->dry_run, "check everything, print the cells (and the kernel's lines), run\nnothing"),
        FLAG_ON("quiet", &o->quiet, "no progress line"),
        FLAG_TABLE_END,
    };
    const struct command_spec spec = {
        .name = "experiment",
        .usage = "experiment [flags] FILE",
        .about = "Runs the scenario in FILE (docs/scenarios.md), or the matrix of its vary axes,\n"
                 "each cell --repeat times, stores every run in the database, and prints one row\n"
                 "per cell: each measured column's mean and [min..max] over the repeats.\n"
                 "On Linux, the column foreign is the share of a run's window that other\n"
                 "processes took on its CPUs (or the trace cannot account for); a run past\n"
                 XP_STR(XP_DISTURBED_PERCENT) "% is disturbed: kept, and left out of its cell's values when the cell has a\n"
                 "clean run. A column whose repeats split into two groups far apart is shown as\n"
                 "the two (bistable), not one mean. docs/experiments.md is the guide.\n",
        .flags = flags,
        .max_pos = 1,
        .too_many = "one scenario FILE only",
    };
    int npos, rc = flags_parse(&spec, argc, argv, &o->file, &npos);
    if (rc >= 0)
        return rc;
    if (csv && json)
        return usage("give --csv or --json, not both");
    o->fmt = csv ? DBQ_CSV : json ? DBQ_JSON : DBQ_TABLE;
    if (!o->file)
        return usage("need a scenario FILE; see runq experiment --help");
    bool kernel = false, linux_ = false;
    for (int i = 0; i < o->nengines; i++) {
        kernel |= engine_lookup("kernel") == o->engines[i];
        linux_ |= engine_lookup("linux") == o->engines[i];
    }
    if (o->realtime && !kernel)
        return usage("--realtime is the kernel engine's (on paper there is no real time; Linux runs in nothing else)");
    if (o->allow_rt_hog && !linux_)
        return usage("--allow-rt-hog is the linux engine's (RT tasks of runq's kernel or on paper hold no host CPU)");
    if (o->rerun && !linux_)
        return usage("--rerun-disturbed is the linux engine's (no other process shares runq's kernel or the paper)");
    if (o->realtime && o->jobs > 1)
        return usage("--realtime runs one at a time: runs side by side would disturb each other's timing");
    return -1;
}

/* ---- the matrix ---- */

/* --vary KEY=V1,V2 into the scenario's axes (replacing one of that key),
 * each value checked as the parser checks the file's. */
static int apply_vary_flags(const struct xp_opts *o, struct scenario *s)
{
    static struct scenario copy;
    for (int i = 0; i < o->nvary; i++) {
        const char *eq = strchr(o->vary[i], '=');
        struct scn_vary v = { 0 };
        if ((size_t)(eq - o->vary[i]) >= sizeof v.key)
            return usage("--vary %s: the key is too long", o->vary[i]);
        memcpy(v.key, o->vary[i], (size_t)(eq - o->vary[i]));
        char vals[512], *save;
        snprintf(vals, sizeof vals, "%s", eq + 1);
        for (char *x = strtok_r(vals, ",", &save); x; x = strtok_r(NULL, ",", &save)) {
            if (v.nvalues == SCN_MAX_VALUES || strlen(x) >= SCN_VALUE_MAX)
                return usage("--vary %s: at most %d values of at most %d characters", v.key, SCN_MAX_VALUES,
                             SCN_VALUE_MAX - 1);
            strcpy(v.values[v.nvalues++], x);
        }
        for (int k = 0; k < v.nvalues; k++) {
            char err[512], inner[512];
            copy = *s;
            if (scn_apply(&copy, v.key, v.values[k], err, sizeof err) < 0)
                return usage("--vary %s: %s", v.key, err);
            if (scn_check(&copy, inner, sizeof inner) < 0)
                return usage("--vary %s=%s: %s", v.key, v.values[k], inner);
        }
        int at = s->nvary;
        char key[SCN_KEY_MAX], other[SCN_KEY_MAX];
        scn_param_key(v.key, key, sizeof key); /* knob.NAME and NAME are one axis */
        for (int a = 0; a < s->nvary; a++) {
            scn_param_key(s->vary[a].key, other, sizeof other);
            if (!strcmp(other, key))
                at = a;
        }
        if (at == SCN_MAX_VARY)
            return usage("at most %d vary axes in all", SCN_MAX_VARY);
        s->vary[at] = v;
        if (at == s->nvary)
            s->nvary++;
    }
    return 0;
}

static int ncells(const struct scenario *s)
{
    int n = 1;
    for (int a = 0; a < s->nvary; a++)
        n *= s->vary[a].nvalues;
    return n;
}

/* Cell c of base into *out, and its parameters "k=v k=v". */
static int cell_scenario(const struct scenario *base, int c, struct scenario *out, char *params, size_t plen,
                         char *err, size_t errlen)
{
    int idx[SCN_MAX_VARY];
    size_t n = 0;
    *out = *base;
    for (int a = base->nvary - 1; a >= 0; a--) {
        idx[a] = c % base->vary[a].nvalues;
        c /= base->vary[a].nvalues;
    }
    params[0] = '\0';
    for (int a = 0; a < base->nvary; a++) {
        const char *v = base->vary[a].values[idx[a]];
        if (scn_apply(out, base->vary[a].key, v, err, errlen) < 0)
            return -1;
        char key[SCN_KEY_MAX];
        scn_param_key(base->vary[a].key, key, sizeof key);
        n += (size_t)snprintf(params + n, n < plen ? plen - n : 0, "%s%s=%s", a ? " " : "", key, v);
    }
    out->nvary = 0; /* a cell is one scenario */
    return scn_check(out, err, errlen);
}

/* The table's columns: the file's measure lines, or the defaults. */
static int columns(const struct scenario *s, struct scn_measure *m, char *text, size_t len)
{
    int n = s->nmeasures;
    if (n)
        memcpy(m, s->measures, (size_t)n * sizeof *m);
    else
        n = scn_default_measures(s, m, SCN_MAX_MEASURES);
    size_t k = 0;
    text[0] = '\0';
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(text + k, k < len ? len - k : 0, "%s%s.%s", i ? "," : "", s->tasks[m[i].task].name,
                              scn_metric_name(m[i].metric));
    return n;
}

/* ---- one run ---- */

/* The shell lines that set the machine before the scenario's own (trace/
 * scenario.h): each EEVDF switch, then each knob in an order the kernel
 * accepts. Into lines[SCN_MAX_FEATURES + SCN_MAX_KNOBS]; returns how many. */
#define XP_SETUP_MAX (SCN_MAX_FEATURES + SCN_MAX_KNOBS)
static int setup_lines(const struct scenario *sc, char lines[XP_SETUP_MAX][80])
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

struct xp_run {
    int number, cell, repeat;
    const struct xp_engine *engine;
    uint64_t seed;
    char params[256];
    struct scenario sc;
    pid_t pid;
    char out[512], err[512];
    int attempt;                 /* 0: the run; n: its nth rerun (--rerun-disturbed) */
    struct linux_foreign foreign; /* what others took of its CPUs (a Linux run's; else not known) */
};

/*
 * An engine: what it refuses, and how a run starts and ends. A run either
 * ends inside start() (pid left 0, *res filled or why said: on paper) or
 * is a child process (pid set) whose end finish() reads. At most jobs()
 * runs of one engine at once; engines never overlap (one's runs all end
 * before the next's begin), so a Linux run never shares the host with a
 * kernel run's QEMU.
 */
struct xp_engine {
    const char *name;
    int (*refuses)(const struct xp_opts *o, const struct scenario *s, char *err, size_t errlen);
    int (*start)(const struct xp_opts *o, struct xp_run *r, const char *dir, struct scn_result *res, char *err,
                 size_t errlen);
    /* A child's end: 0 with res filled and *trace its trace (0: none), or
     * -1 with why. */
    int (*finish)(const struct xp_opts *o, struct xp_run *r, int status, struct scn_result *res, int64_t *trace,
                  char *why, size_t len);
    int (*jobs)(const struct xp_opts *o);
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

/* ---- the engines ---- */

static int kernel_refuses(const struct xp_opts *o, const struct scenario *s, char *err, size_t errlen)
{
    (void)o;
    char *lines[XP_MAX_LINES];
    int n = scn_kprog(s, lines, XP_MAX_LINES, err, errlen);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    return n < 0 ? -1 : 0;
}

static int kernel_jobs(const struct xp_opts *o)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (o->realtime)
        return 1;
    if (o->jobs_given)
        return o->jobs;
    return (int)(n < 1 ? 1 : n > XP_MAX_JOBS ? XP_MAX_JOBS : n);
}

/* Starts run r's kernel: this binary's `boot`, its console to r->out. */
static int start_kernel(const struct xp_opts *o, struct xp_run *r, const char *dir, struct scn_result *res,
                        char *err, size_t errlen)
{
    (void)res;
    char *lines[XP_MAX_LINES];
    int n = scn_kprog(&r->sc, lines, XP_MAX_LINES, err, errlen);
    if (n < 0)
        return -1;
    char *argv[16 + 2 * (XP_MAX_LINES + XP_SETUP_MAX)];
    char cpus[16], hz[16], timeout[16], setup[XP_SETUP_MAX][80];
    int a = 0;
    argv[a++] = "runq";
    argv[a++] = "boot";
    if (!o->realtime)
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
    snprintf(timeout, sizeof timeout, "%d", o->timeout);
    argv[a++] = "--timeout";
    argv[a++] = timeout;
    if (!o->no_record) {
        argv[a++] = "--record";
        argv[a++] = (char *)o->db;
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
    snprintf(r->out, sizeof r->out, "%s/run%d.out", dir, r->number);
    snprintf(r->err, sizeof r->err, "%s/run%d.err", dir, r->number);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        orphans_die_with(parent); /* runq boot ends QEMU on the SIGTERM */
        int fo = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(r->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
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
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    r->pid = pid;
    return 0;
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
static int finish_kernel(const struct xp_opts *o, struct xp_run *r, int st, struct scn_result *res, int64_t *trace,
                         char *why, size_t len)
{
    (void)o;
    char *out = slurp(r->out), *errtext = slurp(r->err);
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
    free(out);
    free(errtext);
    return ok ? 0 : -1;
}

static int one_job(const struct xp_opts *o)
{
    (void)o;
    return 1;
}

/* On paper, in this process: the run is over when start returns. */
static int start_sim(const struct xp_opts *o, struct xp_run *r, const char *dir, struct scn_result *res, char *err,
                     size_t errlen)
{
    (void)o;
    (void)dir;
    r->pid = 0;
    return sim_scenario(&r->sc, res, err, errlen);
}

/* Linux runs one at a time unless --jobs says more: in real time, runs
 * side by side share the host's two CPUs and disturb each other. */
static int linux_jobs(const struct xp_opts *o)
{
    return o->jobs_given ? o->jobs : 1;
}

/* What a Linux run's child leaves for its parent in r->out: the result
 * as this very binary lays it out (parent and child are one program). */
struct xp_linux_answer {
    int ok;
    int64_t trace;
    struct linux_foreign foreign;
    char why[512];
    char internals_missing[256]; /* "": Linux's EEVDF state was recorded */
    struct scn_result res;
};

/* A Linux run: a child process (its threads, priorities and affinities
 * stay out of this one; a crash ends the run, not the experiment) that
 * runs the scenario, records it into the database and writes its answer.
 * Ctrl-C reaches it too (one process group): it ends the run early and
 * removes its tracing instance (host/engine/linux/engine.h). Its notes (what Linux
 * adjusted) go to r->err and are shown when the run fails. */
static int start_linux(const struct xp_opts *o, struct xp_run *r, const char *dir, struct scn_result *res, char *err,
                       size_t errlen)
{
    (void)res;
    snprintf(r->out, sizeof r->out, "%s/run%d.answer", dir, r->number);
    snprintf(r->err, sizeof r->err, "%s/run%d.err", dir, r->number);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* The SIGTERM sets stop_signal (this process's handler, from its
         * parent), which stops the run as a Ctrl-C does. */
        orphans_die_with(parent);
        static struct xp_linux_answer a;
        char source[600];
        FILE *notes = fopen(r->err, "w");
        snprintf(source, sizeof source, "linux:%s%s%s", o->file, r->params[0] ? " " : "", r->params);
        struct linux_engine_opts lo = { .db = o->no_record ? NULL : o->db, .source = source, .stop = &stop_signal,
                                        .notes = notes, .allow_rt_hog = o->allow_rt_hog,
                                        .internals_missing = a.internals_missing,
                                        .internals_missing_len = sizeof a.internals_missing };
        a.ok = linux_engine_run(&r->sc, &lo, &a.res, &a.trace, &a.foreign, a.why, sizeof a.why) == 0;
        if (notes)
            fclose(notes);
        int fd = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        bool wrote = fd >= 0 && write(fd, &a, sizeof a) == (ssize_t)sizeof a;
        if (fd >= 0)
            close(fd);
        _exit(wrote ? 0 : 1);
    }
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    r->pid = pid;
    return 0;
}

static int finish_linux(const struct xp_opts *o, struct xp_run *r, int st, struct scn_result *res, int64_t *trace,
                        char *why, size_t len)
{
    static struct xp_linux_answer a;
    int fd = open(r->out, O_RDONLY);
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
    if (a.trace && a.internals_missing[0] && !told && !o->quiet) {
        fprintf(stderr, "runq experiment: linux: EEVDF internals not recorded (tracefs only): %s\n",
                a.internals_missing);
        told = true;
    }
    /* A bench's recorder A/B (RUNQ_BPF_ALTERNATE_MS, host/engine/linux/alternate.c):
     * its figures are the run's notes that say so. */
    char *notes = slurp(r->err);
    for (char *line = notes, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!strncmp(line, "recorder A/B", 12) && !o->quiet)
            fprintf(stderr, "runq experiment: linux: %s\n", line);
        if (!nl)
            break;
    }
    free(notes);
    if (!a.ok) {
        snprintf(why, len, "%s", a.why);
        return -1;
    }
    *res = a.res;
    r->foreign = a.foreign;
    return 0;
}

/* What this Linux cannot run, and RT spinners on every CPU unless
 * --allow-rt-hog (host/engine/linux/run.h). */
static int linux_refuses_opts(const struct xp_opts *o, const struct scenario *s, char *err, size_t errlen)
{
    return linux_refuses(s, err, errlen) < 0 ? -1 : linux_refuses_rt_hog(s, o->allow_rt_hog, err, errlen);
}

static int sim_refuses_opts(const struct xp_opts *o, const struct scenario *s, char *err, size_t errlen)
{
    (void)o;
    return sim_refuses(s, err, errlen);
}

static const struct xp_engine xp_engines[] = {
    { "kernel", kernel_refuses, start_kernel, finish_kernel, kernel_jobs },
    { "linux", linux_refuses_opts, start_linux, finish_linux, linux_jobs },
    { "sim", sim_refuses_opts, start_sim, NULL, one_job },
};

static const struct xp_engine *engine_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof xp_engines / sizeof xp_engines[0]; i++)
        if (!strcmp(xp_engines[i].name, name))
            return &xp_engines[i];
    return NULL;
}

/* Did other processes take more than XP_DISTURBED_PERCENT of r's window
 * on its CPUs? (false when that is not known) */
static bool disturbed(const struct xp_run *r)
{
    return r->foreign.known && (double)r->foreign.ns * 100 > (double)r->sc.run_ns * XP_DISTURBED_PERCENT;
}

/* One line on a disturbed run as it ends: what others took of its
 * window, on each of its CPUs ("CPU 0 0.3%, CPU 1 48.2%"), and whether it
 * runs again. */
static void say_disturbed(const struct xp_opts *o, const struct xp_run *r, bool again)
{
    char cpus[512], unknown[64] = "";
    size_t n = 0;
    double window = (double)r->sc.run_ns;
    cpus[0] = '\0';
    for (unsigned c = 0; c < 64; c++)
        if (r->foreign.cpus >> c & 1)
            n += (size_t)snprintf(cpus + n, n < sizeof cpus ? sizeof cpus - n : 0, "%sCPU %u %.1f%%", n ? ", " : "",
                                  c, 100.0 * (double)r->foreign.cpu_ns[c] / window);
    if (r->foreign.unknown_ns)
        snprintf(unknown, sizeof unknown, ", %.1f%% of it unaccounted for in the trace",
                 100.0 * (double)r->foreign.unknown_ns / window);
    fprintf(stderr, "%srunq experiment: run %d (%s%s%scell %d%s%s, repeat %d%s) disturbed: other processes took %.1f%% "
            "of its window on its CPUs (%s%s)%s\n",
            isatty(2) ? "\n" : "", r->number, o->nengines > 1 ? "engine " : "", o->nengines > 1 ? r->engine->name : "",
            o->nengines > 1 ? ", " : "", r->cell, r->params[0] ? ": " : "", r->params, r->repeat,
            r->attempt ? ", run again" : "", 100.0 * (double)r->foreign.ns / window, cpus, unknown,
            again ? "; running it again" : o->rerun ? "; kept, marked disturbed (no reruns left)"
                                                    : "; kept, marked disturbed");
}

/* Stores run r with result res (NULL: it failed, err says why). */
static int store(sqlite3 *db, int64_t xid, const struct xp_run *r, const struct scn_result *res, int64_t trace,
                 const char *why)
{
    static struct dbx_task tasks[SCN_MAX_INSTANCES];
    static struct dbx_metric metrics[SCN_MAX_TASKS * SCN_NR_METRICS];
    char *text = NULL, err[512];
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    int nm = 0;

    if (f) {
        scn_print(f, &r->sc);
        fclose(f);
    }
    if (res) {
        for (unsigned i = 0; i < res->ntasks; i++) {
            const struct scn_task_result *t = &res->task[i];
            struct dbx_task *d = &tasks[i];
            memset(d, 0, sizeof *d);
            d->instance = (int)i;
            d->idx = (int)t->index;
            d->cpu = t->cpu;
            d->task = r->sc.tasks[t->task].name;
            d->name = t->name;
            d->tid = t->tid;
            d->window_ns = t->st.window_ns;
            d->runtime_ns = t->st.runtime_ns;
            d->wakeups = t->st.wakeups;
            d->missed = t->st.missed;
            d->stalls = t->st.stalls;
            d->dropped = t->st.dropped;
            memcpy(d->late, t->st.late, sizeof d->late);
            d->vcsw = t->st.vcsw;
            d->ivcsw = t->st.ivcsw;
            d->reads = t->st.reads;
            d->has_iters = res->has_iters;
            d->iters = t->st.iters;
        }
        for (int t = 0; t < r->sc.ntasks; t++)
            for (int m = 0; m < SCN_NR_METRICS; m++) {
                metrics[nm].task = r->sc.tasks[t].name;
                metrics[nm].metric = scn_metric_name((enum scn_metric)m);
                metrics[nm].value = scn_metric_value(&r->sc, res, t, (enum scn_metric)m);
                nm++;
            }
    }
    struct dbx_scenario s = {
        .experiment_id = xid, .cell = r->cell, .repeat = r->repeat, .seed = r->seed, .run_ns = r->sc.run_ns,
        .trace_id = trace, .engine = r->engine->name, .params = r->params, .status = res ? "ok" : "failed",
        .error = why, .text = text, .ntasks = res ? (int)res->ntasks : 0, .tasks = tasks, .nmetrics = nm,
        .metrics = metrics, .foreign_known = r->foreign.known, .foreign_ns = r->foreign.ns,
        .disturbed = disturbed(r),
    };
    int rc = dbx_add_scenario(db, &s, err, sizeof err) < 0 ? -1 : 0;
    if (rc)
        fprintf(stderr, "runq experiment: %s\n", err);
    free(text);
    return rc;
}

static void progress(const struct xp_opts *o, int done, int total, double t0, int failed)
{
    if (o->quiet)
        return;
    double el = now_s() - t0, left = done ? el / done * (total - done) : 0;
    bool tty = isatty(2);
    fprintf(stderr, "%sruns %d/%d done%s%.0d%s, %.0f s elapsed%s", tty ? "\r" : "", done, total,
            failed ? ", " : "", failed, failed ? " failed" : "", el, done < total ? "" : "\n");
    if (done < total && done)
        fprintf(stderr, ", about %.0f s left%s", left, tty ? "   " : "\n");
    else if (done < total)
        fprintf(stderr, "%s", tty ? "" : "\n");
}

/* The engine of the runs under way (the slots hold one engine's at a time). */
static const struct xp_engine *slot_engine(const struct xp_run *slot, int n)
{
    for (int j = 0; j < n; j++)
        if (slot[j].pid)
            return slot[j].engine;
    return NULL;
}

/* The host's rules runq's kernel and sim take when the host's Linux runs
 * the same file beside them (issue 31): each of runq's switches that the
 * host's rules name (host/engine/linux/hostrules.h) and whose value there differs
 * from runq's default, unless the scenario sets it (a feature line, a
 * vary of feature.NAME, or of switch, which sets them all). */
struct host_adopt {
    int n;
    int feature[EEVDF_NR_FEATURES];
    bool on[EEVDF_NR_FEATURES];
    int agree; /* switches the host names with runq's default value */
};

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

static void host_adopt_compute(const struct scenario *base, struct host_adopt *h)
{
    const struct hostrules *r = hostrules_read();
    char copy[HOSTRULES_NAMES_MAX];
    snprintf(copy, sizeof copy, "%s", r->names);
    memset(h, 0, sizeof *h);
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
        h->feature[h->n] = f;
        h->on[h->n++] = on;
    }
}

static void host_adopt_apply(const struct host_adopt *h, struct scenario *s)
{
    for (int i = 0; i < h->n; i++)
        scn_set_feature(s, eevdf_feature_name((enum eevdf_feature)h->feature[i]), h->on[i]);
}

static bool uses(const struct xp_opts *o, const char *engine)
{
    for (int i = 0; i < o->nengines; i++)
        if (o->engines[i] == engine_lookup(engine))
            return true;
    return false;
}

/* --dry-run: the matrix as it would run, and the kernel's lines for its
 * first cell; nothing runs and no database is opened. */
static int dry_run(const struct xp_opts *o, const struct scenario *base, int nc, int total)
{
    static struct scenario cell;
    char params[256], err[512];
    int mine = 0;
    for (int k = 0; k < total; k++)
        mine += !o->shard_n || k % o->shard_n == o->shard_i - 1;
    printf("%s: %d cell%s x %d repeat%s (seeds %llu..%llu) = %d run%s, %d here, engine %s\n", o->file, nc,
           nc == 1 ? "" : "s", o->repeat, o->repeat == 1 ? "" : "s", (unsigned long long)o->seed,
           (unsigned long long)(o->seed + (uint64_t)o->repeat - 1), total, total == 1 ? "" : "s", mine, o->engine);
    for (int c = 0; c < nc; c++) {
        cell_scenario(base, c, &cell, params, sizeof params, err, sizeof err);
        printf("  cell %d: %s\n", c, params[0] ? params : "(no axes)");
    }
    if (uses(o, "kernel")) {
        char *lines[XP_MAX_LINES];
        cell_scenario(base, 0, &cell, params, sizeof params, err, sizeof err);
        cell.seed = o->seed;
        int n = scn_kprog(&cell, lines, XP_MAX_LINES, err, sizeof err);
        printf("cell 0 in the kernel (runq boot --deterministic --policy %s --cpus %u", cell.policy, cell.cpus);
        if (cell.hz)
            printf(" --hz %u", cell.hz);
        printf("):\n");
        char setup[XP_SETUP_MAX][80];
        for (int i = 0, ns = setup_lines(&cell, setup); i < ns; i++)
            printf("  %s\n", setup[i]);
        for (int i = 0; i < n; i++) {
            printf("  %s\n", lines[i]);
            free(lines[i]);
        }
    }
    return 0;
}

int cmd_experiment(int argc, char **argv)
{
    struct xp_opts o;
    static struct scenario base;
    char err[1024], colnames[2048], axes[512] = "", shard[32] = "";
    struct scn_measure cols[SCN_MAX_MEASURES];
    int rc = xp_args(argc, argv, &o);

    if (rc >= 0)
        return rc;
    if (scn_load(o.file, &base, err, sizeof err) < 0) {
        fprintf(stderr, "runq experiment: %s\n", err);
        return 2;
    }
    if ((rc = apply_vary_flags(&o, &base)) != 0)
        return rc;
    if (!o.seed_given)
        o.seed = base.seed;
    if ((uint64_t)o.repeat - 1 > UINT64_MAX - o.seed)
        return usage("--repeat %d from seed %llu runs past the largest seed, 18446744073709551615", o.repeat,
                     (unsigned long long)o.seed);
    int nc = ncells(&base), total = nc * o.repeat * o.nengines;
    if (total > 100000)
        return usage("%d runs is too many (at most 100000)", total);
    columns(&base, cols, colnames, sizeof colnames);
    for (int a = 0, n = 0; a < base.nvary; a++)
        n += snprintf(axes + n, sizeof axes - (size_t)n, "%s%s", a ? "," : "", base.vary[a].key);
    if (o.shard_n)
        snprintf(shard, sizeof shard, "%d/%d", o.shard_i, o.shard_n);

    /* Every run is checked before any starts, on every engine: an
     * engine's refusal is a usage error, with the line. */
    static struct scenario probe;
    for (int c = 0; c < nc; c++) {
        char params[256];
        if (cell_scenario(&base, c, &probe, params, sizeof params, err, sizeof err) < 0) {
            fprintf(stderr, "runq experiment: cell %s: %s\n", params, err);
            return 2;
        }
        for (int e = 0; e < o.nengines; e++)
            if (o.engines[e]->refuses(&o, &probe, err, sizeof err) < 0) {
                char who[320];
                snprintf(who, sizeof who, "%s%s%s%s", o.nengines > 1 ? "engine " : "",
                         o.nengines > 1 ? o.engines[e]->name : "", o.nengines > 1 && params[0] ? ", " : "", params);
                fprintf(stderr, "runq experiment: %s%s%s\n", who, who[0] ? ": " : "", err);
                return 2;
            }
    }

    if (o.dry_run)
        return dry_run(&o, &base, nc, total);

    /* Runs a runq experiment killed outright left behind (orphans.h). */
    orphans_reap();
    sqlite3 *db = dbx_open(o.db, err, sizeof err);
    if (!db) {
        fprintf(stderr, "runq experiment: %s\n", err);
        return 1;
    }
    char command[2048];
    size_t cl = 0;
    command[0] = '\0';
    for (int i = 0; i < argc; i++)
        cl += (size_t)snprintf(command + cl, cl < sizeof command ? sizeof command - cl : 0, "%s%s", i ? " " : "runq ",
                               argv[i]);
    struct dbx_experiment xe = { o.file, o.engine, axes, shard[0] ? shard : NULL, colnames, command, nc, o.repeat };
    int64_t xid = dbx_add_experiment(db, &xe, err, sizeof err);
    if (xid < 0) {
        fprintf(stderr, "runq experiment: %s\n", err);
        sqlite3_close(db);
        return 1;
    }

    /* The runs this shard takes. */
    int mine = 0;
    for (int k = 0; k < total; k++)
        mine += !o.shard_n || k % o.shard_n == o.shard_i - 1;
    if (!o.quiet)
        fprintf(stderr, "runq experiment: experiment %lld, %d cell%s x %d repeat%s%s, %d run%s here, engine %s%s\n",
                (long long)xid, nc, nc == 1 ? "" : "s", o.repeat, o.repeat == 1 ? "" : "s",
                o.nengines > 1 ? " on each engine" : "", mine, mine == 1 ? "" : "s", o.engine,
                !uses(&o, "kernel") ? "" : o.realtime ? " (kernel in real time)" : " (kernel deterministic)");
    if (!o.quiet && uses(&o, "linux")) {
        char rules[768];
        hostrules_describe(hostrules_read(), rules, sizeof rules);
        fprintf(stderr, "runq experiment: linux's rules: %s\n", rules);
    }
    static struct host_adopt adopt;
    if (uses(&o, "linux") && (uses(&o, "kernel") || uses(&o, "sim"))) {
        host_adopt_compute(&base, &adopt);
        if (!o.quiet) {
            char set[512] = "";
            size_t n = 0;
            for (int i = 0; i < adopt.n; i++)
                n += (size_t)snprintf(set + n, n < sizeof set ? sizeof set - n : 0, "%s%s %s", i ? ", " : "",
                                      eevdf_feature_name((enum eevdf_feature)adopt.feature[i]),
                                      adopt.on[i] ? "on" : "off");
            fprintf(stderr, "runq experiment: kernel and sim take the host's rules: %s%s (%d more as runq's defaults "
                            "already have them; the scenario's own settings stand)\n",
                    adopt.n ? "" : "none differs from runq's defaults", set, adopt.agree);
        }
    }

    char dir[] = "/tmp/runq-experiment-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "runq experiment: a temporary directory: %s\n", strerror(errno));
        sqlite3_close(db);
        return 1;
    }
    int maxjobs = 1;
    for (int e = 0; e < o.nengines; e++)
        if (o.engines[e]->jobs(&o) > maxjobs)
            maxjobs = o.engines[e]->jobs(&o);
    struct xp_run *slot = xcalloc((size_t)maxjobs, sizeof *slot);
    /* Disturbed runs to run again (--rerun-disturbed), in the order seen. */
    struct xp_again {
        int number, attempt;
    } *again = NULL;
    int nagain = 0;
    double t0 = now_s();
    int next = 0, done = 0, failed = 0, running = 0, per_engine = nc * o.repeat;
    bool kept = false; /* a failed run's files are kept in dir */
    rc = 0;
    /* Ctrl-C, a TERM or a hangup (the terminal closed, the ssh session
     * gone): no new runs; the running ones (signalled too, as one process
     * group) end, and are stored as failed with why. A reader of stdout
     * gone must not kill this process before it has stored them. */
    struct sigaction sa = { 0 }, ign = { .sa_handler = SIG_IGN };
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &ign, NULL);
    bool forwarded = false;
    while ((done < mine || running) && rc == 0) {
        if (stop_signal && !running)
            break;
        /* A signal sent to this process alone (kill PID, not the
         * terminal's Ctrl-C to the group) reaches the runs too: a Linux
         * run must end and take its tracing instance away. */
        if (stop_signal && !forwarded) {
            for (int j = 0; j < maxjobs; j++)
                if (slot[j].pid)
                    kill(slot[j].pid, (int)stop_signal);
            forwarded = true;
        }
        /* Fill the free slots with the next runs, of one engine at a
         * time: the next engine's first run waits until every run of
         * the one before has ended. A disturbed run's rerun goes first:
         * its engine's runs are the ones under way. */
        while (!stop_signal && (nagain || next < total)) {
            int k = nagain ? again[0].number : next, attempt = 0;
            const struct xp_engine *eng = o.engines[k / per_engine];
            if (running && (running >= eng->jobs(&o) || slot_engine(slot, maxjobs) != eng))
                break;
            if (nagain) {
                attempt = again[0].attempt;
                memmove(again, again + 1, (size_t)--nagain * sizeof *again);
            } else {
                next++;
                if (o.shard_n && k % o.shard_n != o.shard_i - 1)
                    continue;
            }
            struct xp_run *r = NULL;
            for (int j = 0; j < maxjobs; j++)
                if (!slot[j].pid)
                    r = &slot[j];
            /* running < the engine's jobs <= maxjobs: a slot is free */
            BUG_ON(!r);
            r->number = k;
            r->attempt = attempt;
            memset(&r->foreign, 0, sizeof r->foreign);
            r->engine = eng;
            r->cell = k % per_engine / o.repeat;
            r->repeat = k % o.repeat;
            r->seed = o.seed + (uint64_t)r->repeat;
            cell_scenario(&base, r->cell, &r->sc, r->params, sizeof r->params, err, sizeof err);
            if (eng != engine_lookup("linux"))
                host_adopt_apply(&adopt, &r->sc);
            r->sc.seed = r->seed;
            static struct scn_result res;
            r->pid = 0;
            int started = eng->start(&o, r, dir, &res, err, sizeof err);
            if (!eng->finish) {
                /* Run and over (on paper). */
                bool ok = started == 0;
                if (store(db, xid, r, ok ? &res : NULL, 0, ok ? NULL : err) < 0)
                    rc = 1;
                failed += !ok;
                done++;
                progress(&o, done, mine, t0, failed);
                continue;
            }
            if (started < 0) {
                fprintf(stderr, "runq experiment: %s\n", err);
                rc = 1;
                break;
            }
            running++;
        }
        if (!running)
            continue;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0) {
            fprintf(stderr, "runq experiment: wait: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        struct xp_run *r = NULL;
        for (int j = 0; j < maxjobs; j++)
            if (slot[j].pid == pid)
                r = &slot[j];
        if (!r)
            continue;
        running--;
        BUG_ON(running < 0); /* each slot's pid was counted once when it started */
        static struct scn_result res;
        char why[512] = "";
        int64_t trace = 0;
        bool ok = r->engine->finish(&o, r, st, &res, &trace, why, sizeof why) == 0;
        if (!ok && stop_signal)
            snprintf(why, sizeof why, "interrupted (signal %d)", (int)stop_signal);
        if (!ok) {
            bool console = r->engine == engine_lookup("kernel");
            fprintf(stderr, "%srunq experiment: run %d (%s%s%scell %d%s%s, repeat %d) failed: %s (%s: %s)\n",
                    isatty(2) && !o.quiet ? "\n" : "", r->number, o.nengines > 1 ? "engine " : "",
                    o.nengines > 1 ? r->engine->name : "", o.nengines > 1 ? ", " : "", r->cell,
                    r->params[0] ? ": " : "", r->params, r->repeat, why, console ? "console" : "notes",
                    console ? r->out : r->err);
            kept = true;
        } else {
            unlink(r->out);
            unlink(r->err);
        }
        if (store(db, xid, r, ok ? &res : NULL, trace, ok ? NULL : why) < 0)
            rc = 1;
        if (ok && disturbed(r)) {
            /* Kept and marked: the table leaves it out of its cell when
             * the cell has a clean run; run again if asked. */
            bool more = r->attempt < o.rerun && !stop_signal;
            if (more) {
                again = xreallocarray(again, (size_t)nagain + 1, sizeof *again);
                again[nagain++] = (struct xp_again){ r->number, r->attempt + 1 };
                mine++;
            }
            if (!o.quiet)
                say_disturbed(&o, r, more);
        }
        failed += !ok;
        r->pid = 0;
        done++;
        progress(&o, done, mine, t0, failed);
    }
    free(slot);
    free(again);
    if (!kept)
        rmdir(dir);
    if (stop_signal && !o.quiet)
        fprintf(stderr, "runq experiment: stopped by signal %d after %d of %d runs; experiment %lld holds them\n",
                (int)stop_signal, done, mine, (long long)xid);
    if (rc == 0)
        rc = experiment_table(db, "experiment", xid, o.fmt, stdout);
    sqlite3_close(db);
    if (rc == 0 && failed)
        rc = 1;
    return stop_signal ? 128 + (int)stop_signal : rc;
}
