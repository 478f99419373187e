/*
 * `runq top`: the flags and the help. The view itself is tui/top.c; the
 * host's own Linux (runq top --linux), tui/top_linux.c, its flags
 * host/cli/top_linux.c.
 */
#include <stdio.h>
#include <string.h>

#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/cli/top_linux.h"
#include "tui/top_linux.h"
#include "tui/top.h"

#define DEFAULT_DB "runq.db"
#define DEFAULT_DELAY_MS 250

/* A decimal in [lo, hi] (top_parse_dec) into a double. */
#define DEC_FLAG(fn, lo, hi)                                                                                   \
    static int fn(const char *v, void *value, char *err, size_t errlen)                                        \
    {                                                                                                          \
        (void)err, (void)errlen;                                                                               \
        return top_parse_dec(v, lo, hi, value);                                                                \
    }
DEC_FLAG(parse_delay, 0.5, 100)
DEC_FLAG(parse_speed, 0.01, 1000)
DEC_FLAG(parse_at, 0, 1e9)
DEC_FLAG(parse_wait, 0, 3600)

static int parse_trace(const char *v, void *value, char *err, size_t errlen)
{
    double d;
    (void)err, (void)errlen;
    if (top_parse_dec(v, 1, 1e15, &d) != 0 || strchr(v, '.'))
        return -1;
    *(long long *)value = (long long)d;
    return 0;
}

/* The keys, from the view's action table (docs/top.md's must match it:
 * tests/cli/cli_test.sh), and what follows them. */
static void top_help_keys(FILE *out)
{
    for (size_t k = 0; k < top_nactions; k++) {
        char keys[64];
        top_action_keys(&top_actions[k], keys, sizeof keys);
        fprintf(out, "  %-28s %s\n", keys, top_actions[k].what);
    }
    fprintf(out, "\nActions (n N s f m) go to the kernel through the recorder of a live trace.\n"
                 "docs/top.md describes every column.\n\n"
                 "runq top --linux [--cpus LIST] [--record FILE] shows the host's own Linux\n"
                 "scheduler live instead, with its EEVDF state (runq top --linux --help).\n");
}

static const struct command_spec top_spec = {
    .name = "top",
    .usage = "top [--db FILE] [--trace ID] [--delay TENTHS] [--speed X] [--at SECONDS] [--wait SECONDS]",
    .about = "A live, top-like view of the scheduler: each task's lag, virtual deadline and\n"
             "eligibility, each CPU's V and load, wake latency as it happens, and a timeline\n"
             "of the last switches. On a trace that is still recording it follows the newest\n"
             "events; on a finished trace it replays from the start.\n",
    .after = "keys (h in the view lists them all):\n",
    .after_fn = top_help_keys,
};

int cmd_top(int argc, char **argv)
{
    if (flags_mode(argc, argv, "linux")) {
        struct top_linux_opts lo;
        int rc = top_linux_flags(argc, argv, &lo);
        return rc >= 0 ? rc : top_linux(&lo);
    }
    const char *db = DEFAULT_DB;
    long long trace = 0;
    double delay = DEFAULT_DELAY_MS / 100.0, speed = 1, at = -1, wait = 0;
    const struct flag flags[] = {
        FLAG_STR("db", &db, "FILE", "trace database (default " DEFAULT_DB ")"),
        FLAG_FN("trace", &trace, "ID", "which trace (default: the newest)", parse_trace,
                .takes = "a trace id (1, 2, ...)"),
        FLAG_FN("delay", &delay, "TENTHS", "refresh every TENTHS tenths of a second (default 2.5)", parse_delay,
                .takes = "tenths of a second, 0.5..100"),
        FLAG_FN("speed", &speed, "X", "replay X trace seconds a wall second (default 1)", parse_speed,
                .takes = "a speed of 0.01..1000"),
        FLAG_FN("at", &at, "SECONDS", "replay from this trace time (seconds since boot)", parse_at,
                .takes = "seconds since boot"),
        FLAG_FN("wait", &wait, "SECONDS", "wait up to SECONDS for the database and its first trace\n"
                "(runq run starts the view before the recording exists)", parse_wait,
                .takes = "seconds, 0..3600"),
        FLAG_TABLE_END,
    };
    int npos, rc = flags_parse(&top_spec, flags, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    if (!*db)
        return flags_usage_error(&top_spec, "--db needs a file name");
    const struct top_opts o = {
        .db = db, .trace = trace, .delay_ms = (int)(delay * 100 + 0.5), .speed = speed, .at = at, .wait_s = wait,
    };
    return top_run(&o);
}
