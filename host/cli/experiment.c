/*
 * `runq experiment [flags] FILE`: the flags, the help and the checks that
 * need only the flags; the matrix and its runs are
 * host/experiment/experiment.c's (experiment_run), the engines
 * host/engine/'s, looked up by name (host/engine/engines.h).
 */
#include <string.h>

#include "bug.h"
#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/engine/engines.h"
#include "host/experiment/experiment.h"
#include "host/scenario/scenario.h"

#define XP_STR_(x) #x
#define XP_STR(x) XP_STR_(x)

/* The flags' checks (struct flag's fn): nonzero with err left empty is
 * "--NAME takes <the row's takes>, not 'V'"; with err, "--NAME V: err". */

/* --engine E[,E...]: each an engine of host/engine/engines.h, at most once. */
static int set_engines(const char *v, void *value, char *err, size_t errlen)
{
    struct experiment_opts *o = value;
    char list[64], *save;
    if (strlen(v) >= sizeof list)
        return -1;
    snprintf(list, sizeof list, "%s", v);
    o->nengines = 0;
    for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        const struct engine_ops *x = engine_lookup(e);
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
    o->engine = v;
    return 0;
}

/* --vary KEY=V1,V2, repeatable (each value checked by experiment_run). */
static int add_vary(const char *v, void *value, char *err, size_t errlen)
{
    struct experiment_opts *o = value;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return -1;
    return flag_push(o->vary, &o->nvary, SCN_MAX_VARY, v, "at most %d --vary axes", err, errlen);
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
    return set_count(v, value, 1, XP_MAX_REPEAT);
}

static int set_jobs(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return set_count(v, value, 1, ENGINE_MAX_JOBS);
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

static int set_shard(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct experiment_opts *o = value;
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

static const struct command_spec run_engine_spec = {
    .name = "run",
    .usage = "run --engine E[,E...] [flags] FILE",
    .about = "Runs the scenario in FILE on an engine (kernel, linux: the host's own Linux,\n"
             "recorded through tracefs and BPF; sim) and prints its table, as runq\n"
             "experiment does, with the same flags. Without --engine, runq run boots the\n"
             "kernel to its shell (runq run --help).\n",
    .max_pos = 1,
    .too_many = "one scenario FILE only",
};

static const struct command_spec experiment_spec = {
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
    .max_pos = 1,
    .too_many = "one scenario FILE only",
};

/* One flag table and its checks for both `runq experiment` and `runq run
 * --engine` (as_run): the same options, each command its own name, usage
 * and help, and then experiment_run() with the options it parsed. */
static int experiment_cli(int argc, char **argv, bool as_run)
{
    struct experiment_opts o = { .db = XP_DEFAULT_DB, .repeat = 1, .timeout = XP_DEFAULT_TIMEOUT,
                                 .argc = argc, .argv = argv };
    char none[1];
    int defaulted = set_engines("kernel", &o, none, sizeof none);
    BUG_ON(defaulted != 0);
    bool csv = false, json = false;
    const struct flag flags[] = {
        FLAG_FN("engine", &o, "E[,E...]", "where it runs: kernel (runq's, under QEMU; default), linux (the\n"
                "host's), sim (on paper); several: each cell on each, one table", set_engines,
                .takes = "kernel, linux or sim, or several with commas"),
        FLAG_FN("vary", &o, "KEY=V1,V2", "an axis of the matrix (replaces the file's vary KEY); repeatable", add_vary,
                .takes = "KEY=V1,V2,..."),
        FLAG_FN("repeat", &o.repeat, "N", "run each cell N times, with seeds SEED..SEED+N-1 (default 1)",
                set_repeat, .takes = "1.." XP_STR(XP_MAX_REPEAT)),
        FLAG_SEED("seed", &o.seed, &o.seed_given, "N", "the first repeat's seed (default: the file's seed, else 0)"),
        FLAG_FILE("db", &o.db, "FILE.db", "store runs and traces here (default " XP_DEFAULT_DB ")"),
        FLAG_FN("jobs", &o.jobs, "N", "runs at once (kernel: default the host's CPUs, 1 with --realtime;\nlinux: default 1)",
                set_jobs, .takes = "1.." XP_STR(ENGINE_MAX_JOBS)),
        FLAG_ON("csv", &csv, "print the table as CSV"),
        FLAG_ON("json", &json, "print the table as JSON"),
        FLAG_FN("shard", &o, "I/N", "run only shard I of N of the runs (merge the databases with runq\nmerge)",
                set_shard, .takes = "I/N (1 <= I <= N)"),
        FLAG_FN("timeout", &o.timeout, "S", "give up on a kernel run after S wall-clock seconds (default "
                XP_STR(XP_DEFAULT_TIMEOUT) ")", set_timeout, .takes = "1..86400 seconds"),
        FLAG_ON("realtime", &o.realtime, "kernel runs without icount: real time, noisy, one at a time"),
        FLAG_ON("no-record", &o.no_record, "store metrics only, no trace (linux without root or tracefs; its\n"
                "foreign CPU time is then not measured)"),
        FLAG_ON("allow-rt-hog", &o.allow_rt_hog, "linux: let RT tasks that never sleep hold every host CPU (the\n"
                "host gets what RT throttling leaves)"),
        FLAG_FN("rerun-disturbed", &o.rerun, "N",
                "linux: run a disturbed run (other processes took more than\n" XP_STR(XP_DISTURBED_PERCENT)
                "% of the window on its CPUs) again, up to N times; it stays,\nmarked (default 0)",
                set_rerun, .takes = "0.." XP_STR(XP_MAX_RERUNS)),
        FLAG_ON("dry-run", &o.dry_run, "check everything, print the cells (and the kernel's lines), run\nnothing"),
        FLAG_ON("quiet", &o.quiet, "no progress line"),
        FLAG_ON("missed-late", &o.missed_late, XP_MISSED_LATE_HELP),
        FLAG_TABLE_END,
    };
    const struct command_spec *spec = as_run ? &run_engine_spec : &experiment_spec;
    int npos, rc = flags_parse(spec, flags, argc, argv, &o.file, &npos);
    if (rc >= 0)
        return rc;
    if (csv && json)
        return flags_usage_error(spec, "give --csv or --json, not both");
    o.fmt = csv ? DBQ_CSV : json ? DBQ_JSON : DBQ_TABLE;
    if (!o.file)
        return flags_usage_error(spec, as_run ? "need a scenario FILE; see runq run --help"
                                              : "need a scenario FILE; see runq experiment --help");
    bool kernel = false, linux_ = false;
    for (int i = 0; i < o.nengines; i++) {
        kernel |= engine_lookup("kernel") == o.engines[i];
        linux_ |= engine_lookup("linux") == o.engines[i];
    }
    if (o.realtime && !kernel)
        return flags_usage_error(spec, "--realtime is the kernel engine's (on paper there is no real time; Linux "
                                       "runs in nothing else)");
    if (o.allow_rt_hog && !linux_)
        return flags_usage_error(spec, "--allow-rt-hog is the linux engine's (RT tasks of runq's kernel or on paper "
                                       "hold no host CPU)");
    if (o.rerun && !linux_)
        return flags_usage_error(spec, "--rerun-disturbed is the linux engine's (no other process shares runq's "
                                       "kernel or the paper)");
    if (o.realtime && o.jobs > 1)
        return flags_usage_error(spec, "--realtime runs one at a time: runs side by side would disturb each other's "
                                       "timing");
    return experiment_run(&o);
}

int cmd_experiment(int argc, char **argv)
{
    return experiment_cli(argc, argv, false);
}

int run_on_engine(int argc, char **argv)
{
    return experiment_cli(argc, argv, true);
}
