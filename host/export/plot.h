/*
 * `runq plot`: figures of a trace database, drawn by gnuplot.
 *
 *   host/export/plot.c       the subcommand: flags, help, the temp directory, the
 *                    script's preamble, gnuplot run by fork/exec, its
 *                    stdout OUT as host/base/outfile.h writes a file
 *   host/export/plot_kinds.c the kinds: each reads the database through
 *                    db/qx_plot.h, writes its data files and the rest of
 *                    the script
 *
 * A kind draws on the terminal plot.c set up (PNG or SVG, the size asked,
 * text not "enhanced", so a task called a_b prints as a_b) and names each
 * series in the legend: the test reads the SVG's legend back.
 */
#ifndef RUNQ_CLI_PLOT_H
#define RUNQ_CLI_PLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#define PLOT_MAX_TRACES 8 /* latency: series on one set of axes */

struct plot_opts {
    const char *db_path;
    int64_t trace[PLOT_MAX_TRACES]; /* --trace, in the order given */
    int ntraces;
    double from_ms, to_ms;          /* timeline: the window, from the trace's start */
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

/* Each kind: 0, or 1 after a one-line error "runq plot: ..." on stderr. */
int plot_timeline(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);
int plot_latency(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);
int plot_experiment(sqlite3 *db, const struct plot_opts *o, struct plot_job *j);

#endif
