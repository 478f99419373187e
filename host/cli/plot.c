/*
 * `runq plot KIND`: the kinds by name, each kind's flags and help, the
 * checks made before anything is opened (a usage error exits 2 in one
 * line) and the database's open. The figure is host/export/plot.c's
 * plot_draw (the temp directory, the script, gnuplot, OUT), each kind's
 * reads and lines host/export/plot_kinds.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "host/cli/cli.h"
#include "host/cli/db_flags.h"
#include "host/export/plot.h"

static const struct plot_kind {
    struct flags_word word; /* first: flags_word reads the table */
    plot_kind_fn *draw;
    int width, height; /* the default size, pixels */
} kinds[] = {
    { { "timeline", "who ran on each CPU in a window: a box per slice, one colour per task, wakeups "
                    "marked, data gaps hatched \"lost\"" }, plot_timeline, 1200, 500 },
    { { "latency", "the wake latency (wake -> run) distribution of one or more traces: histogram and CDF, "
                   "one series per trace" }, plot_latency, 900, 800 },
    { { "experiment", "an experiment's metric against a varied parameter: the mean over the repeats with "
                      "min..max bars, one series per value of the other axes" }, plot_experiment, 1000, 600 },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])
#define PLOT_STR_(x) #x
#define PLOT_STR(x) PLOT_STR_(x)
#define PLOT_MAX_TRACES_S PLOT_STR(PLOT_MAX_TRACES)

static const char series_note[] = "A latency series is named by its trace's scenario parameters, else its policy,\n"
                                  "else 'trace N'. Every figure is made from SQL over docs/sql.md's tables.\n";

static void plot_help(void)
{
    printf("usage: runq plot KIND [--db FILE] [-o OUT.png|OUT.svg] [--size WxH] ...\n"
           "       runq plot timeline [--trace ID] [--from MS] [--to MS]\n"
           "       runq plot latency [--trace ID ...] [--task NAME] [--cdf | --hist]\n"
           "       runq plot experiment [ID] [--metric TASK.METRIC] [--x AXIS]\n\n"
           "Draws a figure of a trace database with gnuplot (Debian's gnuplot-nox: make deps).\n"
           "PNG or SVG by OUT's extension. OUT, a file, is replaced whole or not at all; a\n"
           "character device or a FIFO is written in place, a symbolic link refused.\n"
           "'runq plot KIND --help' lists KIND's flags.\n\n"
           "kinds:\n");
    flags_words_print(&kinds[0].word, NKINDS, sizeof kinds[0]);
    printf("\n%s", series_note);
}

static bool parse_ms(const char *s, double *ms)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= 0) || v > 1e9)
        return false;
    *ms = v;
    return true;
}

static bool parse_id(const char *s, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 1)
        return false;
    *id = v;
    return true;
}

/* The flags' FLAG_FUNCs (host/cli/flags.h): nonzero, err empty, for "--F
 * takes (the row's takes), not 'v'". */
static int ms_flag(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return !parse_ms(v, value);
}

/* --trace of latency, repeatable: appended to the plot_opts value is. */
static int traces_flag(const char *v, void *value, char *err, size_t errlen)
{
    struct plot_opts *o = value;
    if (o->ntraces == PLOT_MAX_TRACES) {
        snprintf(err, errlen, "at most %d --trace", PLOT_MAX_TRACES);
        return 1;
    }
    if (!parse_id(v, &o->trace[o->ntraces]))
        return 1;
    o->ntraces++;
    return 0;
}

/* --size WxH into the int[2] value is. */
static int size_flag(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    char *end;
    long w = strtol(v, &end, 10), h = *end == 'x' ? strtol(end + 1, &end, 10) : -1;
    if (*end || w < 100 || h < 100 || w > 10000 || h > 10000)
        return 1;
    ((int *)value)[0] = (int)w, ((int *)value)[1] = (int)h;
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    int rc;
    int i = flags_word(argc, argv, "plot", "kind", &kinds[0].word, NKINDS, sizeof kinds[0], plot_help, &rc);
    if (i < 0)
        return rc;
    const struct plot_kind *k = &kinds[i];
    argc--, argv++; /* the kind's own argv: its flags parsed from argv[1] */

    struct plot_opts o = { .db_path = DB_FLAGS_DEFAULT_DB, .from_ms = -1, .to_ms = -1 };
    const char *out = NULL, *id = NULL;
    int size[2] = { k->width, k->height };
    bool timeline = !strcmp(k->word.name, "timeline"), latency = !strcmp(k->word.name, "latency");
#define PLOT_ROWS                                                                                             \
    FLAG_FILE("db", &o.db_path, "FILE", "database (default " DB_FLAGS_DEFAULT_DB ")"),                          \
    FLAG_FILE("output", &out, "OUT", "the figure, .png or .svg (default KIND.png)", .short_name = 'o'),           \
    FLAG_FN("size", size, "WxH", "in pixels (default: timeline 1200x500, latency 900x800,\nexperiment 1000x600)", \
            size_flag, .takes = "WIDTHxHEIGHT in pixels, each 100..10000 (1200x500)")
    const struct flag timeline_flags[] = {
        PLOT_ROWS,
        FLAG_NUM64("trace", &o.trace[0], "ID", "the trace (default the newest)", 1, INT64_MAX,
                   "a trace id (a positive number)"),
        FLAG_FN("from", &o.from_ms, "MS", "the window's start in ms from the trace's start (alone: a\n"
                "window of 20 ms; default: 20 ms around the probe's first stall,\nelse the first 20 ms)", ms_flag,
                .takes = "milliseconds from the trace's start (0, 2.5)"),
        FLAG_FN("to", &o.to_ms, "MS", "the window's end in ms from the trace's start (alone: the 20\nms before it)",
                ms_flag, .takes = "milliseconds from the trace's start (0, 2.5)"),
        FLAG_TABLE_END,
    };
    const struct flag latency_flags[] = {
        PLOT_ROWS,
        FLAG_FN("trace", &o, "ID", "a trace to draw, repeatable up to " PLOT_MAX_TRACES_S " times\n"
                "(default every trace, if " PLOT_MAX_TRACES_S " or fewer)", traces_flag,
                .takes = "a trace id (a positive number)"),
        FLAG_STR("task", &o.task, "NAME", "that task's wakeups only"),
        FLAG_ON("cdf", &o.cdf_only, "the CDF alone (default: the CDF and the histogram)"),
        FLAG_ON("hist", &o.hist_only, "the histogram alone"),
        FLAG_TABLE_END,
    };
    const struct flag experiment_flags[] = {
        PLOT_ROWS,
        FLAG_STR("metric", &o.metric, "T.M", "the metric, as its table names it (probe.stall;\n"
                 "default the table's first column)"),
        FLAG_STR("x", &o.x, "AXIS", "the vary axis along x (hog.slice; default the first);\n"
                 "every other axis makes a series of each value"),
        FLAG_TABLE_END,
    };
#undef PLOT_ROWS
    char name[32], usage[160], about[256];
    snprintf(name, sizeof name, "plot %s", k->word.name);
    snprintf(usage, sizeof usage, "plot %s%s [--db FILE] [-o OUT.png|OUT.svg] [--size WxH]%s", k->word.name,
             timeline ? "" : latency ? "" : " [ID]",
             timeline ? " [--trace ID] [--from MS] [--to MS]"
             : latency ? " [--trace ID ...] [--task NAME] [--cdf | --hist]" : " [--metric TASK.METRIC] [--x AXIS]");
    snprintf(about, sizeof about, "%c%s.\n%s", toupper((unsigned char)k->word.what[0]), k->word.what + 1,
             timeline || latency ? "" : "ID: the experiment (default the newest).\n");
    const struct command_spec spec = {
        .name = name,
        .usage = usage,
        .about = about,
        .after = latency ? series_note : NULL,
        .max_pos = !timeline && !latency,
    };
    int npos;
    rc = flags_parse(&spec, timeline ? timeline_flags : latency ? latency_flags : experiment_flags, argc, argv, &id,
                     &npos);
    if (rc >= 0)
        return rc;
    if (timeline && o.trace[0])
        o.ntraces = 1;
    if (id && !parse_id(id, &o.experiment))
        return flags_usage_error(&spec, "experiment takes an experiment id (a positive number), not '%s'", id);
    /* The window: a default one shows a few decisions (plot_timeline). */
    o.auto_window = o.from_ms < 0 && o.to_ms < 0;
    if (o.to_ms < 0)
        o.to_ms = (o.from_ms < 0 ? 0 : o.from_ms) + PLOT_WINDOW_MS;
    if (o.from_ms < 0)
        o.from_ms = o.to_ms > PLOT_WINDOW_MS ? o.to_ms - PLOT_WINDOW_MS : 0;
    if (o.to_ms <= o.from_ms)
        return flags_usage_error(&spec, "the window is empty: --to (%g ms) must be after --from (%g ms)", o.to_ms,
                                 o.from_ms);
    if (o.cdf_only && o.hist_only)
        return flags_usage_error(&spec, "--cdf and --hist each leave one panel; give one, or neither for both");
    char defout[64];
    if (!out) {
        snprintf(defout, sizeof defout, "%s.png", k->word.name);
        out = defout;
    }
    size_t outlen = strlen(out);
    bool svg = outlen > 4 && !strcasecmp(out + outlen - 4, ".svg");
    if (!svg && !(outlen > 4 && !strcasecmp(out + outlen - 4, ".png")))
        return flags_usage_error(&spec, "-o wants a file ending .png or .svg, not '%s'", out);

    o.out = out;
    o.svg = svg;
    o.width = size[0];
    o.height = size[1];
    sqlite3 *db = cli_db_open("plot", o.db_path);
    if (!db)
        return 1;
    rc = plot_draw(db, k->draw, &o);
    sqlite3_close(db);
    return rc;
}
