/*
 * `runq sim [flags] FILE` and `runq sim -s SEED [-c]`: the flags and the
 * help. The workload read or made up, the simulation and what it prints
 * are host/engine/sim/sim.c (sim_print), the generator sim_gen.c.
 */
#include <inttypes.h>
#include <string.h>

#include "eevdf_features.h"
#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/engine/sim/sim.h"

static int parse_run(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return scn_parse_duration(v, value) && *(uint64_t *)value ? 0 : -1;
}

/* --feature NAME=on|off, repeatable: each kept, in order, for sim_print,
 * which applies them as checked here. */
static int parse_feature(const char *v, void *value, char *err, size_t errlen)
{
    struct sim_opts *o = value;
    const char *eq = strchr(v, '=');
    char name[64];

    if (!eq || (strcmp(eq + 1, "on") != 0 && strcmp(eq + 1, "off") != 0) || (size_t)(eq - v) >= sizeof name)
        return -1;
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = '\0';
    if (eevdf_feature_lookup(name) < 0) {
        snprintf(err, errlen, "no feature '%s'", name);
        return -1;
    }
    return flag_push(o->features, &o->nfeatures, SCN_MAX_FEATURES, v, "more than %d --feature flags", err, errlen);
}

static const struct command_spec sim_spec = {
    .name = "sim",
    .usage = "sim [flags] FILE     run the workload in FILE ('-': stdin)\n"
             "       runq sim -s SEED [-c]     make up a problem; -c shows its answer",
    .about = "Runs the rr or eevdf policy on the host, a quantum at a time, and prints\n"
             "the schedule: who ran each quantum ('.': nobody). docs/sim.md describes\n"
             "the workload format.\n",
    .max_pos = 1,
    .too_many = "one workload FILE only",
};

/* The flags into o. Returns -1 to go on, or the exit status: 0 after
 * --help (printed), 2 after a usage error (printed). */
static int parse_args(int argc, char **argv, struct sim_opts *o)
{
    memset(o, 0, sizeof *o);
    const struct flag flags[] = {
        FLAG_ON("decisions", &o->decisions, "at every decision print V and each task's vruntime,\n"
                "deadline, lag, eligibility", .short_name = 'v'),
        FLAG_ON("numberline", &o->numberline,
                "at every decision draw V (*) and each task's vruntime (|)\nto deadline (<)"),
        FLAG_SEED("seed", &o->seed, &o->seeded, "SEED", "make up a random problem from SEED and print it",
                  .short_name = 's'),
        FLAG_ON("check", &o->check, "with -s: print the answer too (schedule and decisions)", .short_name = 'c'),
        FLAG_FN("policy", &o->policy, "rr|eevdf", "run this policy, whatever the workload says", flag_policy,
                .short_name = 'p', .takes = "rr or eevdf"),
        FLAG_FN("feature", o, "NAME=on|off", "set an EEVDF feature switch after the workload's;\nrepeatable",
                parse_feature, .short_name = 'f', .takes = "NAME=on or NAME=off"),
        FLAG_FN("run", &o->run_ns, "DURATION", "simulate this long (e.g. 3.2ms), whatever the workload says",
                parse_run, .short_name = 'r', .takes = "a duration such as 20ms"),
        FLAG_TABLE_END,
    };
    int npos, rc = flags_parse(&sim_spec, flags, argc, argv, &o->file, &npos);
    if (rc >= 0)
        return rc;
    if (o->seeded && o->file)
        return flags_usage_error(&sim_spec, "give a workload FILE or -s SEED, not both");
    if (!o->seeded && !o->file)
        return flags_usage_error(&sim_spec, "need a workload FILE or -s SEED; see runq sim --help");
    if (o->check && !o->seeded)
        return flags_usage_error(&sim_spec,
                                 "-c shows the answer to a -s problem; with a FILE the schedule is always printed");
    /* -s alone prints the problem, not its schedule: a -v there would
     * print nothing, and said nothing either. */
    if (o->seeded && !o->check && (o->decisions || o->numberline))
        return flags_usage_error(&sim_spec,
                                 "%s shows the answer's decisions: give -c too (runq sim -s %" PRIu64 " -c %s)",
                                 o->decisions ? "-v" : "--numberline", o->seed, o->decisions ? "-v" : "--numberline");
    return -1;
}

int cmd_sim(int argc, char **argv)
{
    struct sim_opts o;
    int rc = parse_args(argc, argv, &o);

    return rc >= 0 ? rc : sim_print(&o);
}
