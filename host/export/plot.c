/*
 * `runq plot KIND`: a figure of a trace database as a PNG or an SVG file
 * (docs/plot.md). The kinds (host/export/plot_kinds.c) read the database and
 * write gnuplot's input; this file is everything around them, in order:
 *
 *   1. the flags, checked before anything is opened (a usage error
 *      exits 2 in one line);
 *   2. a temp directory of our own, and in it the script: the terminal
 *      (by OUT's extension, at the size asked), then the kind's titles,
 *      data files and plot lines;
 *   3. OUT opened as host/base/outfile.h says (a temp file beside it, or a
 *      device or FIFO in place);
 *   4. gnuplot run on the script by fork/exec, no shell between, in the
 *      temp directory, its stdout the file of step 3 and its stderr kept
 *      for the one line we print if it fails;
 *   5. the temp file renamed to OUT only once gnuplot succeeded, so OUT
 *      is either the old file or the whole new one, never half a figure;
 *   6. the temp directory removed.
 *
 * No path reaches the script: gnuplot writes the figure to its stdout
 * and reads the data files by their names in its working directory. The
 * only text in it that runq did not write is the database's (a policy,
 * task names, an experiment's parameters), and every such string goes
 * through plot_quote; data files hold numbers only.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/cli/cli.h"
#include "host/cli/db_flags.h"
#include "host/base/outfile.h"
#include "host/export/plot.h"
#include "db/query.h"
#include "db/visible.h"

#define GNUPLOT_APT "sudo apt-get install -y gnuplot-nox"

static const struct plot_kind {
    const char *name, *what;
    int (*draw)(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);
    int width, height; /* the default size, pixels */
} kinds[] = {
    { "timeline", "who ran on each CPU in a window: a box per slice, one colour per task, wakeups "
                  "marked, data gaps hatched \"lost\"", plot_timeline, 1200, 500 },
    { "latency", "the wake latency (wake -> run) distribution of one or more traces: histogram and CDF, "
                 "one series per trace", plot_latency, 900, 800 },
    { "experiment", "an experiment's metric against a varied parameter: the mean over the repeats with "
                    "min..max bars, one series per value of the other axes", plot_experiment, 1000, 600 },
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
    for (size_t i = 0; i < NKINDS; i++)
        printf("  %-10s %s\n", kinds[i].name, kinds[i].what);
    printf("\n%s", series_note);
}

/* The length of the character at p: 1 for ASCII, else db/visible.h's
 * well-formed UTF-8 length, 0 for a byte that starts none. */
static size_t char_len(const unsigned char *p)
{
    return *p < 0x80 ? 1 : text_utf8_len((const char *)p);
}

void plot_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = char_len(p);
        bool control = *p < 0x20 || *p == 0x7f || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0); /* C0, DEL, C1 */
        if (*p == '\'')
            fputs("''", f);
        else if (!n || control)
            fputc('?', f);
        else
            fwrite(p, 1, n, f);
        p += n ? n : 1;
    }
    fputc('\'', f);
}

FILE *plot_data_file(struct plot_job *j, char *name, size_t len)
{
    char path[PATH_MAX];
    snprintf(name, len, "d%d.dat", j->nfiles++);
    snprintf(path, sizeof path, "%s/%s", j->dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "runq plot: %s: %s\n", path, strerror(errno));
    return f;
}

/* Removes dir and the files in it (only files: the job makes no more). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
                    unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* Runs `gnuplot SCRIPT` in dir, with stdin on /dev/null, stdout on outfd
 * and stderr in errpath. Returns gnuplot's exit status, 127 when there
 * is no gnuplot to run (errno from exec in *exec_errno), -1 when it
 * could not start. */
static int run_gnuplot(const char *script, const char *dir, int outfd, const char *errpath, int *exec_errno)
{
    int pfd[2];
    *exec_errno = 0;
    /* exec's failure comes back through a close-on-exec pipe: a child
     * that exec'd gnuplot closes it unwritten. */
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int err = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(outfd, 1) < 0 || dup2(err, 2) < 0 || chdir(dir) != 0)
            _exit(126);
        char *argv[] = { "gnuplot", (char *)script, NULL };
        execvp("gnuplot", argv);
        int e = errno;
        ssize_t w = write(pfd[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(pfd[1]);
    int e = 0;
    ssize_t n;
    do
        n = read(pfd[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(pfd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (n == (ssize_t)sizeof e) {
        *exec_errno = e;
        return 127;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* The last line of gnuplot's stderr that says something: its error. */
static void gnuplot_error(const char *errpath, char *buf, size_t len)
{
    FILE *f = fopen(errpath, "r");
    char line[512];
    snprintf(buf, len, "no message");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strspn(line, " ^") < strlen(line))
            snprintf(buf, len, "%s", line);
    }
    fclose(f);
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
    const char *kind_name = argc > 1 ? argv[1] : NULL;
    if (kind_name && (!strcmp(kind_name, "--help") || !strcmp(kind_name, "-h"))) {
        plot_help();
        return 0;
    }
    if (!kind_name || kind_name[0] == '-') {
        fprintf(stderr, "runq plot: name a kind first (timeline, latency, experiment); see runq plot --help\n");
        return 2;
    }
    const struct plot_kind *k = NULL;
    for (size_t i = 0; i < NKINDS; i++)
        if (!strcmp(kinds[i].name, kind_name))
            k = &kinds[i];
    if (!k) {
        fprintf(stderr, "runq plot: no kind '%s': want timeline, latency or experiment\n", kind_name);
        return 2;
    }
    argc--, argv++; /* the kind's own argv: its flags parsed from argv[1] */

    struct plot_opts o = { .db_path = DB_FLAGS_DEFAULT_DB, .to_ms = 100 };
    const char *out = NULL, *id = NULL;
    int size[2] = { k->width, k->height };
    bool timeline = !strcmp(k->name, "timeline"), latency = !strcmp(k->name, "latency");
#define PLOT_ROWS                                                                                             \
    FLAG_FN("db", &o.db_path, "FILE", "database (default " DB_FLAGS_DEFAULT_DB ")", db_flags_file,            \
            .takes = "a file name"),                                                                          \
    FLAG_FN("output", &out, "OUT", "the figure, .png or .svg (default KIND.png)", db_flags_file,              \
            .takes = "a file name", .short_name = 'o'),                                                       \
    FLAG_FN("size", size, "WxH", "in pixels (default: timeline 1200x500, latency 900x800,\nexperiment 1000x600)", \
            size_flag, .takes = "WIDTHxHEIGHT in pixels, each 100..10000 (1200x500)")
    const struct flag timeline_flags[] = {
        PLOT_ROWS,
        FLAG_NUM64("trace", &o.trace[0], "ID", "the trace (default the newest)", 1, INT64_MAX,
                   "a trace id (a positive number)"),
        FLAG_FN("from", &o.from_ms, "MS", "the window's start in ms from the trace's start (default 0)", ms_flag,
                .takes = "milliseconds from the trace's start (0, 2.5)"),
        FLAG_FN("to", &o.to_ms, "MS", "the window's end in ms from the trace's start (default 100)", ms_flag,
                .takes = "milliseconds from the trace's start (0, 2.5)"),
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
    snprintf(name, sizeof name, "plot %s", k->name);
    snprintf(usage, sizeof usage, "plot %s%s [--db FILE] [-o OUT.png|OUT.svg] [--size WxH]%s", k->name,
             timeline ? "" : latency ? "" : " [ID]",
             timeline ? " [--trace ID] [--from MS] [--to MS]"
             : latency ? " [--trace ID ...] [--task NAME] [--cdf | --hist]" : " [--metric TASK.METRIC] [--x AXIS]");
    snprintf(about, sizeof about, "%c%s.\n%s", toupper((unsigned char)k->what[0]), k->what + 1,
             timeline || latency ? "" : "ID: the experiment (default the newest).\n");
    const struct command_spec spec = {
        .name = name,
        .usage = usage,
        .about = about,
        .flags = timeline ? timeline_flags : latency ? latency_flags : experiment_flags,
        .after = latency ? series_note : NULL,
        .max_pos = !timeline && !latency,
    };
    int npos, rc = flags_parse(&spec, argc, argv, &id, &npos);
    if (rc >= 0)
        return rc;
    if (timeline && o.trace[0])
        o.ntraces = 1;
    if (id && !parse_id(id, &o.experiment))
        return flags_usage_error(&spec, "experiment takes an experiment id (a positive number), not '%s'", id);
    if (o.to_ms <= o.from_ms)
        return flags_usage_error(&spec, "the window is empty: --to (%g ms) must be after --from (%g ms)", o.to_ms,
                                 o.from_ms);
    if (o.cdf_only && o.hist_only)
        return flags_usage_error(&spec, "--cdf and --hist each leave one panel; give one, or neither for both");
    int width = size[0], height = size[1];
    char defout[64];
    if (!out) {
        snprintf(defout, sizeof defout, "%s.png", k->name);
        out = defout;
    }
    size_t outlen = strlen(out);
    bool svg = outlen > 4 && !strcasecmp(out + outlen - 4, ".svg");
    if (!svg && !(outlen > 4 && !strcasecmp(out + outlen - 4, ".png")))
        return flags_usage_error(&spec, "-o wants a file ending .png or .svg, not '%s'", out);

    sqlite3 *db = cli_db_open("plot", o.db_path);
    if (!db)
        return 1;
    const char *tmpdir = getenv("TMPDIR");
    /* dir leaves room in the others for the names of the files in it */
    char dir[PATH_MAX - 64], script[PATH_MAX], errpath[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/runq-plot.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") >= (int)sizeof dir ||
        !mkdtemp(dir)) {
        fprintf(stderr, "runq plot: cannot make a temp directory %s: %s\n", dir, strerror(errno));
        sqlite3_close(db);
        return 1;
    }
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    snprintf(errpath, sizeof errpath, "%s/gnuplot.err", dir);
    rc = 1;
    struct plot_job job = { .gp = fopen(script, "w"), .dir = dir };
    if (!job.gp) {
        fprintf(stderr, "runq plot: %s: %s\n", script, strerror(errno));
        goto done;
    }
    fprintf(job.gp, "set encoding utf8\n");
    if (svg)
        fprintf(job.gp, "set terminal svg size %d,%d fixed noenhanced font 'sans,11' background '#ffffff'\n",
                width, height);
    else /* pngcairo draws better; the plain png terminal is gnuplot-nox's other PNG */
        fprintf(job.gp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                        "    set terminal pngcairo size %d,%d noenhanced font 'sans,10' background '#ffffff'\n"
                        "} else {\n    set terminal png size %d,%d noenhanced\n}\n",
                width, height, width, height);
    rc = k->draw(db, &o, &job);
    fprintf(job.gp, "unset output\n");
    if (fclose(job.gp) != 0 && !rc) {
        fprintf(stderr, "runq plot: %s: %s\n", script, strerror(errno));
        rc = 1;
    }
    struct outfile of;
    if (rc || (rc = outfile_open(&of, "plot", out)))
        goto done;
    int e;
    int st = run_gnuplot(script, dir, fileno(of.f), errpath, &e);
    struct stat sb;
    rc = 1;
    if (st == 127 && e) {
        fprintf(stderr, "runq plot: cannot run gnuplot (%s): install it with 'make deps' or '%s'\n",
                e == ENOENT ? "not found on PATH" : strerror(e), GNUPLOT_APT);
    } else if (st != 0) {
        char msg[512];
        gnuplot_error(errpath, msg, sizeof msg);
        fprintf(stderr, "runq plot: gnuplot failed (%s%d): %s\n", st < 0 ? "could not start, " : "exit ",
                st, msg);
    } else if (fstat(fileno(of.f), &sb) != 0 || (S_ISREG(sb.st_mode) && sb.st_size == 0)) {
        fprintf(stderr, "runq plot: gnuplot wrote no figure to %s\n", of.tmp ? of.tmp : out);
    } else {
        rc = 0;
    }
    if (rc)
        outfile_abort(&of);
    else
        rc = outfile_commit(&of);
done:
    remove_dir(dir);
    sqlite3_close(db);
    return rc;
}
