/*
 * `runq plot`: figures of a trace database, drawn by gnuplot.
 *
 *   host/cli/plot.c          the subcommand: the kinds by name, each kind's
 *                            flags and help, into a struct plot_opts
 *   host/export/plot.c       the temp directory, the script's preamble,
 *                            gnuplot run by fork/exec, its stdout OUT as
 *                            host/base/outfile.h writes a file (plot_draw)
 *   host/export/plot_kinds.c the kinds: each reads the database through
 *                            db/qx_plot.h, writes its data files and the
 *                            rest of the script
 *
 * A kind draws on the terminal plot_draw set up (PNG or SVG, the size asked,
 * text not "enhanced", so a task called a_b prints as a_b) and names each
 * series in the legend: the test reads the SVG's legend back.
 */
#ifndef RUNQ_EXPORT_PLOT_H
#define RUNQ_EXPORT_PLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#define PLOT_MAX_TRACES 8 /* latency: series on one set of axes */
#define PLOT_WINDOW_MS 20 /* timeline: a window that shows a few decisions */
#define PLOT_STALL_NS 1000000 /* timeline: a probe's wakeup this late is a stall (scenarios' default) */

/* What to draw, and where (host/cli/plot.c fills it from the flags and
 * has checked them). */
struct plot_opts {
    const char *db_path;            /* the database's name, for the messages */
    const char *out;                /* OUT, the figure: a name ending .png or .svg */
    bool svg;                       /* OUT's extension: .svg (else .png) */
    int width, height;              /* the figure's, in pixels */
    int64_t trace[PLOT_MAX_TRACES]; /* --trace, in the order given */
    int ntraces;
    double from_ms, to_ms;          /* timeline: the window, from the trace's start */
    bool auto_window;               /* timeline: none was asked: PLOT_WINDOW_MS around the
                                     * probe's first stall (else from 0) */
    const char *task;               /* latency: one task's wakeups (thread.name) */
    bool cdf_only, hist_only;       /* latency: one panel */
    int64_t experiment;             /* experiment: its id; 0: the newest */
    const char *metric, *x;         /* experiment: TASK.METRIC, the axis; NULL: the first */
};

/* Where a kind writes: the script (already holding the terminal and
 * output lines) and a directory of its own for data files. */
struct plot_job {
    FILE *gp;
    const char *dir;
    int nfiles;
};

/* Opens a new data file in the job's directory for writing; its name in
 * name, for the script, which gnuplot runs in that directory. A data
 * file holds numbers only. NULL after a one-line error. */
FILE *plot_data_file(struct plot_job *j, char *name, size_t len);

/* Writes s to f as a gnuplot string, the only way a string that runq
 * did not write may reach the script. In single quotes gnuplot
 * substitutes nothing (no backslash escape, no `command`, no @macro) and
 * '' is a quote; what is not printable UTF-8 (a C0 or C1 control
 * character, newline included, or a byte of no valid sequence) is
 * written '?', so no command ends inside the string and an SVG stays
 * well-formed XML. */
void plot_quote(FILE *f, const char *s);

/* A kind: reads db (opened read-only by the caller), writes its data
 * files and its lines of j's script. 0, or 1 after a one-line error
 * "runq plot: ..." on stderr. */
typedef int plot_kind_fn(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);
int plot_timeline(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);
int plot_latency(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);
int plot_experiment(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);

/* `runq plot KIND`'s figure: in a temp directory of its own (removed
 * after), the script (the terminal by o->svg at o's size, then kind's
 * lines), and gnuplot run on it with its stdout OUT, replaced only once
 * gnuplot succeeded (host/base/outfile.h). Returns 0, or 1 after one line
 * "runq plot: ..." on stderr: no temp directory, the kind's error, OUT
 * not opened, no gnuplot to run, gnuplot's own error (its last line), or
 * no figure written. */
int plot_draw(sqlite3 *db, plot_kind_fn *kind, const struct plot_opts *o);

#endif
