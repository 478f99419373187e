/*
 * An experiment's table, from the database alone (contract in
 * experiment.h): the rows of scenario and scenario_metric of one
 * experiment, grouped by cell, read by db/q_experiment.c. `runq experiment` prints it when its runs
 * are stored, `runq report experiment` again later: one code path, so the
 * two cannot differ.
 *
 * A value is the mean over the cell's repeats that succeeded, with its
 * spread [min..max] when there are several. Shares and the stall share
 * print as percentages, lateness as a time, work as iterations a second.
 *
 * Linux runs carry what other processes took of their CPUs (scenario.
 * foreign_ns, disturbed; docs/experiments.md, "Measurement you can
 * trust"): the column "foreign" shows it, and a disturbed run's values
 * are left out of its cell when the cell has a clean run on its engine
 * (the runs column says how many). A column whose runs split into two
 * groups far apart (xt_bistable) shows each group, not one mean.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "host/experiment/experiment.h"
#include "db/q_experiment.h"
#include "db/query.h"
#include "db/qx_linux.h"
#include "db/visible.h"
#include "host/base/xalloc.h"
#include "host/scenario/scenario.h"

#define XT_MAX_COLS 32
#define XT_MAX_ENGINES 4
#define XT_MAX_CELLS 4096
#define XT_NV (XT_MAX_ENGINES * XT_MAX_COLS)
/* The bistable rule (xt_bistable): the gap between the two groups is
 * more than XT_BISTABLE_GAP times the wider group's range, and at least
 * XT_BISTABLE_FLOOR of the largest magnitude. */
#define XT_BISTABLE_GAP 3.0
#define XT_BISTABLE_FLOOR 0.2

/* A column's two groups, when its runs split (xt_bistable). */
struct xt_modes {
    double mean[2];
    int n[2];
};

/* A cell's values: column k of engine e at e * ncols + k (an experiment
 * on several engines has a group of the columns for each). */
struct xt_cell {
    int cell;
    char params[256];
    int runs, ok;
    /* ok runs marked disturbed: left out (their engine has a clean run
     * of the cell), or kept (it has none) */
    int left_out, kept_disturbed;
    double fmean, fmin, fmax; /* the foreign share of the ok runs that have one */
    int fn;
    double mean[XT_NV], min[XT_NV], max[XT_NV];
    int n[XT_NV];
    bool bistable[XT_NV];
    struct xt_modes modes[XT_NV];
};

/*
 * Bistable: v[0..n-1], sorted, split into a lower and an upper group of
 * at least two values each, where the gap between them (the upper's
 * least less the lower's largest) is more than XT_BISTABLE_GAP times the
 * wider group's range (largest less least) and at least XT_BISTABLE_FLOOR
 * of the largest magnitude of all. With more than one such split, the
 * widest gap. True with *at the upper group's first index; fewer than
 * four values are never bistable. docs/experiments.md, "Bistable cells".
 */
static bool xt_bistable(const double *v, int n, int *at)
{
    double top = n ? fmax(fabs(v[0]), fabs(v[n - 1])) : 0, best = 0;
    bool found = false;
    for (int i = 2; i <= n - 2; i++) {
        double gap = v[i] - v[i - 1], spread = fmax(v[i - 1] - v[0], v[n - 1] - v[i]);
        if (gap > XT_BISTABLE_GAP * spread && gap >= XT_BISTABLE_FLOOR * top && gap > best) {
            best = gap;
            *at = i;
            found = true;
        }
    }
    return found;
}

/* Column k of cell c from its runs' values v[0..n-1] (sorted): mean,
 * spread, and the two groups if it is bistable. */
static void xt_fill(struct xt_cell *c, int k, const double *v, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    c->n[k] = n;
    if (!n)
        return;
    c->mean[k] = sum / n;
    c->min[k] = v[0];
    c->max[k] = v[n - 1];
    int at;
    if (!(c->bistable[k] = xt_bistable(v, n, &at)))
        return;
    for (int g = 0; g < 2; g++) {
        int lo = g ? at : 0, hi = g ? n : at;
        double gs = 0;
        for (int i = lo; i < hi; i++)
            gs += v[i];
        c->modes[k].n[g] = hi - lo;
        c->modes[k].mean[g] = gs / (hi - lo);
    }
}

/* A stored column's metric by its name; a name this runq does not know
 * (a database written by another) prints as a count. */
static enum scn_metric_kind kind_of(const char *metric)
{
    int m = scn_metric_lookup(metric);
    return m < 0 ? SCN_KIND_COUNT : scn_metric_kind((enum scn_metric)m);
}

static void fmt_value(char *buf, size_t len, enum scn_metric_kind k, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    switch (k) {
    case SCN_KIND_SHARE:
        snprintf(buf, len, "%.2f%%", v * 100);
        break;
    case SCN_KIND_TIME:
        if (v < 1e3)
            snprintf(buf, len, "%.0fns", v);
        else if (v < 1e6)
            snprintf(buf, len, "%.1fus", v / 1e3);
        else
            snprintf(buf, len, "%.2fms", v / 1e6);
        break;
    case SCN_KIND_RATE:
        if (v >= 1e6)
            snprintf(buf, len, "%.2fM/s", v / 1e6);
        else
            snprintf(buf, len, "%.0f/s", v);
        break;
    case SCN_KIND_COUNT:
        snprintf(buf, len, "%.0f", v);
        break;
    }
}

/* The plain number a CSV or JSON cell holds: the stored value, a share as
 * a fraction, a time in ns. */
static void fmt_raw(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%.10g", v);
}

/* Column k of a cell as the text table shows it: the mean, and its
 * spread when more than one repeat gave a value; a bistable column's two
 * groups, each its mean and runs, instead. */
static void fmt_cell(char *buf, size_t len, const struct xt_cell *c, int k, const char *metric)
{
    char a[32], b[32], m[32];
    if (c->bistable[k]) {
        fmt_value(a, sizeof a, kind_of(metric), c->modes[k].mean[0]);
        fmt_value(b, sizeof b, kind_of(metric), c->modes[k].mean[1]);
        snprintf(buf, len, "bistable: %s (%d) / %s (%d)", a, c->modes[k].n[0], b, c->modes[k].n[1]);
        return;
    }
    fmt_value(m, sizeof m, kind_of(metric), c->mean[k]);
    if (c->n[k] > 1) {
        fmt_value(a, sizeof a, kind_of(metric), c->min[k]);
        fmt_value(b, sizeof b, kind_of(metric), c->max[k]);
        snprintf(buf, len, "%s [%s..%s]", m, a, b);
    } else {
        snprintf(buf, len, "%s", m);
    }
}

/* The foreign column: the share of the window other processes took on
 * the runs' CPUs, mean and spread over the runs that measured it. */
static void fmt_foreign(char *buf, size_t len, const struct xt_cell *c)
{
    char a[32], b[32], m[32];
    fmt_value(m, sizeof m, SCN_KIND_SHARE, c->fmean);
    if (c->fn > 1) {
        fmt_value(a, sizeof a, SCN_KIND_SHARE, c->fmin);
        fmt_value(b, sizeof b, SCN_KIND_SHARE, c->fmax);
        snprintf(buf, len, "%s [%s..%s]", m, a, b);
    } else {
        snprintf(buf, len, "%s", m);
    }
}

/* The runs column: the runs whose values the row shows, then those it
 * does not, and disturbed runs it had to keep. */
static void fmt_runs(char *buf, size_t len, const struct xt_cell *c)
{
    char notes[3][48];
    int n = 0;
    if (c->ok < c->runs)
        snprintf(notes[n++], sizeof notes[0], "%d failed", c->runs - c->ok);
    if (c->left_out)
        snprintf(notes[n++], sizeof notes[0], "%d disturbed left out", c->left_out);
    if (c->kept_disturbed)
        snprintf(notes[n++], sizeof notes[0], "%d disturbed, no clean run", c->kept_disturbed);
    snprintf(buf, len, "%d%s%s%s%s%s%s", c->ok - c->left_out, n ? " (" : "", n ? notes[0] : "", n > 1 ? "; " : "",
             n > 1 ? notes[1] : "", n > 2 ? "; " : "", n > 2 ? notes[2] : "");
    if (n)
        snprintf(buf + strlen(buf), len - strlen(buf), ")");
}

static int column_index(char cols[][64], int ncols, const char *task, const char *metric)
{
    char key[64];
    snprintf(key, sizeof key, "%s.%s", task, metric);
    for (int i = 0; i < ncols; i++)
        if (!strcmp(cols[i], key))
            return i;
    return -1;
}

/* s (size bytes) as text_visible shows it, cut to fit (visible text is
 * its own visible form, so the second pass only cuts, never in an escape). */
static void visible_in_place(char *s, size_t size)
{
    char v[1024];
    text_visible(v, sizeof v, s);
    text_visible(s, size, v);
}
/* What the rows of the database fill: the cells, and the values of the
 * column being read (a column's values come together, sorted). */
struct xt_read {
    struct xt_cell *cells;
    int ncells, ncols, nengines;
    char (*cols)[64];
    char (*engines)[16];
    double *vals;
    int nval, capval, cur_c, cur_k;
};

static void xt_take_cell(const struct dbq_experiment_cell *r, void *arg)
{
    struct xt_read *x = arg;
    int c = r->cell;
    if (c < 0 || c >= x->ncells)
        return;
    struct xt_cell *cell = &x->cells[c];
    cell->cell = c;
    snprintf(cell->params, sizeof cell->params, "%s", r->params ? r->params : "");
    cell->runs = r->runs;
    cell->ok = r->ok;
    cell->left_out = r->left_out;
    cell->kept_disturbed = r->kept_disturbed;
    if ((cell->fn = r->foreign_n) > 0) {
        cell->fmean = r->foreign_mean;
        cell->fmin = r->foreign_min;
        cell->fmax = r->foreign_max;
    }
}

/* Fills the column being read once its values are all in. */
static void xt_flush(struct xt_read *x)
{
    if (x->cur_c >= 0)
        xt_fill(&x->cells[x->cur_c], x->cur_k, x->vals, x->nval);
    x->nval = 0;
}

static void xt_take_value(const struct dbq_experiment_value *v, void *arg)
{
    struct xt_read *x = arg;
    int e = x->nengines == 1 ? 0 : -1, c = v->cell;
    int k = column_index(x->cols, x->ncols, v->task, v->metric);
    for (int i = 0; i < x->nengines && e < 0; i++)
        if (v->engine && !strcmp(x->engines[i], v->engine))
            e = i;
    if (c < 0 || c >= x->ncells || k < 0 || e < 0)
        return;
    k += e * x->ncols;
    if (x->cur_c >= 0 && (c != x->cur_c || k != x->cur_k))
        xt_flush(x);
    if (x->nval == x->capval) {
        x->capval = x->capval ? 2 * x->capval : 64;
        x->vals = xreallocarray(x->vals, (size_t)x->capval, sizeof *x->vals);
    }
    x->vals[x->nval++] = v->value;
    x->cur_c = c;
    x->cur_k = k;
}

/*
 * Appends stored column c (TASK.METRIC) to cols[0..n-1], and returns the
 * new count. A stall share never stands alone: the missed share of its
 * task follows it, unless the stored columns name it next themselves
 * (a measure line that asks for it; it is then not added twice). With
 * missed_late the stall column is the stall share with missed targets
 * counted late, TASK.stall_grid, and named so. docs/experiments.md,
 * "Missed targets".
 */
static int xt_add_column(char cols[][64], int n, const char *c, bool missed_late)
{
    const char *metric = strchr(c, '.') + 1;
    int task_len = (int)(metric - 1 - c);
    bool stall = !strcmp(metric, "stall") || !strcmp(metric, "stall_grid");

    if (n > 0 && !strcmp(metric, "missed_share") && !strcmp(cols[n - 1], c))
        return n; /* the one added after the stall share before it */
    if (stall && missed_late)
        snprintf(cols[n++], sizeof cols[0], "%.*s.stall_grid", task_len, c);
    else
        snprintf(cols[n++], sizeof cols[0], "%s", c);
    if (stall && n < XT_MAX_COLS)
        snprintf(cols[n++], sizeof cols[0], "%.*s.missed_share", task_len, c);
    return n;
}

/* ---- moves a second by reason ---- */

/* The reasons a table shows (trace/format.h has nine). */
#define XT_MAX_REASONS 16

/* The rates of dbq_experiment_moves, at rate[(cell * nengines + engine)
 * * XT_MAX_REASONS + reason]; runs 0 where a cell had no run on it. */
struct xt_moves {
    int ncells, nengines, nreasons;
    char (*engines)[16];
    char reasons[XT_MAX_REASONS][24];
    struct dbq_moves_rate *rate;
};

static void xt_take_moves(const struct dbq_moves_rate *r, void *arg)
{
    struct xt_moves *m = arg;
    int e = -1, k = -1;
    for (int i = 0; i < m->nengines && e < 0; i++)
        if (r->engine && !strcmp(m->engines[i], r->engine))
            e = i;
    for (int i = 0; i < m->nreasons && k < 0; i++)
        if (!strcmp(m->reasons[i], r->reason ? r->reason : ""))
            k = i;
    if (k < 0 && m->nreasons < XT_MAX_REASONS) {
        k = m->nreasons++;
        snprintf(m->reasons[k], sizeof m->reasons[k], "%s", r->reason ? r->reason : "");
    }
    if (r->cell < 0 || r->cell >= m->ncells || e < 0 || k < 0)
        return;
    struct dbq_moves_rate *to = &m->rate[((size_t)r->cell * (size_t)m->nengines + (size_t)e) * XT_MAX_REASONS + (size_t)k];
    *to = *r;
    to->engine = to->reason = NULL; /* they live only for the call */
}

static void fmt_rate(char *buf, size_t len, const struct dbq_moves_rate *r)
{
    if (!r->runs)
        snprintf(buf, len, "-");
    else if (r->runs > 1)
        snprintf(buf, len, "%.1f/s [%.1f..%.1f]", r->mean, r->min, r->max);
    else
        snprintf(buf, len, "%.1f/s", r->mean);
}

/* Under the text table: the moves a second of each reason (the runs'
 * migration tables), a row for each cell and engine, a column for each
 * reason any run moved a task for; nothing when none did.
 * docs/experiments.md, "Moves by reason". */
static int xt_moves_section(sqlite3 *db, int64_t id, const struct xt_cell *cells, int ncells, char (*engines)[16],
                            int nengines, FILE *out, char *err, size_t errlen)
{
    struct xt_moves m = { .ncells = ncells, .nengines = nengines, .engines = engines };
    m.rate = xcalloc((size_t)ncells * (size_t)nengines * XT_MAX_REASONS, sizeof *m.rate);
    if (dbq_experiment_moves(db, id, xt_take_moves, &m, err, errlen) != 0) {
        free(m.rate);
        return -1;
    }
    if (m.nreasons) {
        int pw = (int)strlen("params"), ew = (int)strlen("engine"), w[XT_MAX_REASONS];
        char buf[96];
        for (int c = 0; c < ncells; c++)
            if (cells[c].cell >= 0 && (int)strlen(cells[c].params) > pw)
                pw = (int)strlen(cells[c].params);
        for (int e = 0; e < nengines; e++)
            if ((int)strlen(engines[e]) > ew)
                ew = (int)strlen(engines[e]);
        for (int k = 0; k < m.nreasons; k++) {
            w[k] = (int)strlen(m.reasons[k]);
            for (size_t i = 0; i < (size_t)ncells * (size_t)nengines; i++) {
                fmt_rate(buf, sizeof buf, &m.rate[i * XT_MAX_REASONS + (size_t)k]);
                if ((int)strlen(buf) > w[k])
                    w[k] = (int)strlen(buf);
            }
        }
        fprintf(out, "moves a second by reason (each run's migration rows in its window):\n");
        fprintf(out, "%-*s  %-*s", pw, "params", ew, "engine");
        for (int k = 0; k < m.nreasons; k++) {
            char name[sizeof m.reasons[0]];
            text_visible(name, sizeof name, m.reasons[k]);
            fprintf(out, "  %-*s", k + 1 < m.nreasons ? w[k] : 0, name);
        }
        fprintf(out, "\n");
        for (int c = 0; c < ncells; c++)
            for (int e = 0; e < nengines && cells[c].cell >= 0; e++) {
                const struct dbq_moves_rate *r = &m.rate[((size_t)c * (size_t)nengines + (size_t)e) * XT_MAX_REASONS];
                bool any = false;
                for (int k = 0; k < m.nreasons; k++)
                    any |= r[k].runs > 0;
                if (!any)
                    continue; /* no recorded run of the cell on this engine */
                fprintf(out, "%-*s  %-*s", pw, cells[c].params[0] ? cells[c].params : "-", ew, engines[e]);
                for (int k = 0; k < m.nreasons; k++) {
                    fmt_rate(buf, sizeof buf, &r[k]);
                    fprintf(out, "  %-*s", k + 1 < m.nreasons ? w[k] : 0, buf);
                }
                fprintf(out, "\n");
            }
    }
    free(m.rate);
    return 0;
}

int experiment_table(sqlite3 *db, const char *prog, int64_t id, enum dbq_format fmt, bool missed_late, FILE *out)
{
    struct dbq_experiment xp;
    char cols[XT_MAX_COLS][64], file[512], engine[64], shard[512], err[1024];
    char engines[XT_MAX_ENGINES][16];
    int ncols = 0, ncells = 0, repeats = 0, nengines = 0, rc = 1;
    struct xt_cell *cells = NULL;
    struct xt_read x = { .cur_c = -1, .cur_k = -1 };

    if (dbq_experiment_read(db, id, &xp, err, sizeof err) != 0) {
        fprintf(stderr, "runq %s: %s\n", prog, err);
        return 1;
    }
    id = xp.id;
    snprintf(file, sizeof file, "%s", xp.file);
    snprintf(engine, sizeof engine, "%s", xp.engine);
    snprintf(shard, sizeof shard, "%s", xp.shard);
    ncells = xp.cells;
    repeats = xp.repeats;
    {
        char all[64], *save;
        snprintf(all, sizeof all, "%s", engine);
        for (char *e = strtok_r(all, ",", &save); e && nengines < XT_MAX_ENGINES; e = strtok_r(NULL, ",", &save))
            snprintf(engines[nengines++], sizeof engines[0], "%s", e);
        if (!nengines)
            snprintf(engines[nengines++], sizeof engines[0], "%s", "");
    }
    {
        char all[XT_MAX_COLS * 64], *save;
        snprintf(all, sizeof all, "%s", xp.columns);
        /* A column is TASK.METRIC (the table reads the metric after the
         * dot); one without, in an edited database, is not a column: it
         * was read from NULL + 1. */
        for (char *c = strtok_r(all, ",", &save); c && ncols < XT_MAX_COLS; c = strtok_r(NULL, ",", &save))
            if (strchr(c, '.'))
                ncols = xt_add_column(cols, ncols, c, missed_late);
    }
    if (ncells < 1 || ncells > XT_MAX_CELLS) {
        fprintf(stderr, "runq %s: experiment %lld says it has %d cells: the database is damaged\n", prog,
                (long long)id, ncells);
        return 1;
    }
    cells = xcalloc((size_t)ncells, sizeof *cells);
    for (int c = 0; c < ncells; c++) {
        cells[c].cell = -1;
        cells[c].fmean = cells[c].fmin = cells[c].fmax = NAN;
        for (int k = 0; k < XT_NV; k++)
            cells[c].mean[k] = cells[c].min[k] = cells[c].max[k] = NAN;
    }
    x.cells = cells, x.ncells = ncells, x.ncols = ncols, x.nengines = nengines, x.cols = cols, x.engines = engines;
    /* The runs of each cell, and their parameters; then every used run's
     * value of every column, a column's together and sorted, for its
     * mean, spread and groups (xt_fill). */
    if (dbq_experiment_cells(db, id, xt_take_cell, &x, err, sizeof err) != 0 ||
        dbq_experiment_values(db, id, xt_take_value, &x, err, sizeof err) != 0)
        goto sqlerr;
    xt_flush(&x);

    /* Columns: ncols of each engine's; in CSV and JSON an engine's are
     * named ENGINE:TASK.METRIC when there are several. */
    int nv = nengines * ncols;
    /* The foreign column is the Linux runs': shown when Linux is one of
     * the engines. */
    bool linux_ = false;
    for (int e = 0; e < nengines; e++)
        linux_ |= !strcmp(engines[e], "linux");
#define EPFX(k) (nengines > 1 ? engines[(k) / ncols] : ""), (nengines > 1 ? ":" : "")
    if (fmt == DBQ_TABLE) {
        int width[XT_MAX_ENGINES * XT_MAX_COLS + 1];
        char cellbuf[160];
        /* The table is read on a terminal: the database's text in it
         * visible (db/visible.h), as in every report. The columns' names
         * are looked up by, so they are made visible where printed. */
        visible_in_place(file, sizeof file);
        visible_in_place(engine, sizeof engine);
        visible_in_place(shard, sizeof shard);
        for (int c = 0; c < ncells; c++)
            visible_in_place(cells[c].params, sizeof cells[c].params);
        for (int e = 0; e < nengines; e++)
            visible_in_place(engines[e], sizeof engines[e]);
        fprintf(out, "experiment %lld: %s, engine %s, %d cell%s x %d repeat%s%s%s\n", (long long)id, file, engine,
                ncells, ncells == 1 ? "" : "s", repeats, repeats == 1 ? "" : "s", shard[0] ? ", shard " : "",
                shard);
        width[0] = (int)strlen("params");
        for (int c = 0; c < ncells; c++)
            if ((int)strlen(cells[c].params) > width[0])
                width[0] = (int)strlen(cells[c].params);
        int fwidth = (int)strlen("foreign");
        for (int c = 0; c < ncells && linux_; c++) {
            fmt_foreign(cellbuf, sizeof cellbuf, &cells[c]);
            if ((int)strlen(cellbuf) > fwidth)
                fwidth = (int)strlen(cellbuf);
        }
        for (int k = 0; k < nv; k++) {
            width[k + 1] = (int)strlen(cols[k % ncols]);
            if (nengines > 1 && k % ncols == 0 && (int)strlen(engines[k / ncols]) > width[k + 1])
                width[k + 1] = (int)strlen(engines[k / ncols]);
            for (int c = 0; c < ncells; c++) {
                fmt_cell(cellbuf, sizeof cellbuf, &cells[c], k, strchr(cols[k % ncols], '.') + 1);
                if ((int)strlen(cellbuf) > width[k + 1])
                    width[k + 1] = (int)strlen(cellbuf);
            }
        }
        if (nengines > 1) { /* the groups' line: each engine over its first column */
            fprintf(out, "%-*s", width[0], "");
            for (int k = 0; k < nv; k++)
                fprintf(out, "  %-*s", width[k + 1], k % ncols ? "" : engines[k / ncols]);
            fprintf(out, "\n");
        }
        fprintf(out, "%-*s", width[0], "params");
        for (int k = 0; k < nv; k++) {
            char name[sizeof cols[0]];
            text_visible(name, sizeof name, cols[k % ncols]);
            fprintf(out, "  %-*s", width[k + 1], name);
        }
        if (linux_)
            fprintf(out, "  %-*s", fwidth, "foreign");
        fprintf(out, "  runs\n");
        bool any_disturbed = false, any_bistable = false, any_unmeasured = false;
        for (int c = 0; c < ncells; c++) {
            if (cells[c].cell < 0)
                continue; /* not run here (another shard's) */
            fprintf(out, "%-*s", width[0], cells[c].params[0] ? cells[c].params : "-");
            for (int k = 0; k < nv; k++) {
                fmt_cell(cellbuf, sizeof cellbuf, &cells[c], k, strchr(cols[k % ncols], '.') + 1);
                fprintf(out, "  %-*s", width[k + 1], cellbuf);
                any_bistable |= cells[c].bistable[k];
            }
            if (linux_) {
                fmt_foreign(cellbuf, sizeof cellbuf, &cells[c]);
                fprintf(out, "  %-*s", fwidth, cellbuf);
                any_unmeasured |= cells[c].fn < cells[c].ok;
            }
            fmt_runs(cellbuf, sizeof cellbuf, &cells[c]);
            fprintf(out, "  %s\n", cellbuf);
            any_disturbed |= cells[c].left_out || cells[c].kept_disturbed;
        }
        /* A shard's table, or a merge that lacks shards: say which cells
         * have no row, rather than leave them out silently. */
        int missing = 0;
        for (int c = 0; c < ncells; c++)
            if (cells[c].cell < 0)
                fprintf(out, "%s%d", missing++ ? "," : "cells without runs here: ", c);
        if (missing)
            fprintf(out, " (of 0..%d)\n", ncells - 1);
        /* What the marks mean, under a table that has them. */
        if (any_disturbed)
            fprintf(out, "disturbed: other processes took (or the trace cannot account for) more than %d%% of a "
                         "Linux run's window on its CPUs (the foreign column, summed over them); its values are "
                         "left out of its cell's when the cell has a clean run (--rerun-disturbed N runs it "
                         "again)\n",
                    XP_DISTURBED_PERCENT);
        if (any_bistable)
            fprintf(out, "bistable: the runs split into two groups far apart, each shown as its mean (its runs), "
                         "not one mean (docs/experiments.md, \"Bistable cells\")\n");
        if (linux_ && any_unmeasured)
            fprintf(out, "foreign -: not measured (a Linux run without a recording, --no-record, or stored by a runq "
                         "that did not measure it)\n");
        if (xt_moves_section(db, id, cells, ncells, engines, nengines, out, err, sizeof err) != 0)
            goto sqlerr;
    } else if (fmt == DBQ_CSV) {
        fprintf(out, "experiment,cell,params");
        for (int k = 0; k < nv; k++)
            for (int part = 0; part < 3; part++) {
                char name[256];
                snprintf(name, sizeof name, "%s%s%s%s", EPFX(k), cols[k % ncols], part ? part == 1 ? "_min" : "_max" : "");
                fputc(',', out);
                dbq_csv_field(out, name, false);
            }
        fprintf(out, ",runs,failed,disturbed,left_out,foreign,foreign_min,foreign_max,bistable\n");
        for (int c = 0; c < ncells; c++) {
            if (cells[c].cell < 0)
                continue;
            fprintf(out, "%lld,%d,", (long long)id, c);
            dbq_csv_field(out, cells[c].params, true);
            for (int k = 0; k < nv; k++) {
                char a[32], b[32], m[32];
                fmt_raw(m, sizeof m, cells[c].mean[k]);
                fmt_raw(a, sizeof a, cells[c].min[k]);
                fmt_raw(b, sizeof b, cells[c].max[k]);
                fprintf(out, ",%s,%s,%s", m, a, b);
            }
            char a[32], b[32], m[32];
            fmt_raw(m, sizeof m, cells[c].fmean);
            fmt_raw(a, sizeof a, cells[c].fmin);
            fmt_raw(b, sizeof b, cells[c].fmax);
            fprintf(out, ",%d,%d,%d,%d,%s,%s,%s,", cells[c].ok - cells[c].left_out, cells[c].runs - cells[c].ok,
                    cells[c].left_out + cells[c].kept_disturbed, cells[c].left_out, m, a, b);
            /* the bistable columns, space-separated */
            char list[XT_NV * 80] = "";
            size_t n = 0;
            for (int k = 0; k < nv; k++)
                if (cells[c].bistable[k])
                    n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s%s%s",
                                          n ? " " : "", EPFX(k), cols[k % ncols]);
            dbq_csv_field(out, list, false);
            fputc('\n', out);
        }
    } else {
        fprintf(out, "[");
        bool first = true;
        for (int c = 0; c < ncells; c++) {
            if (cells[c].cell < 0)
                continue;
            fprintf(out, "%s{\"experiment\":%lld,\"cell\":%d,\"params\":", first ? "" : ",\n", (long long)id, c);
            dbq_json_string(out, cells[c].params);
            first = false;
            for (int k = 0; k < nv; k++) {
                char name[256];
                snprintf(name, sizeof name, "%s%s%s", EPFX(k), cols[k % ncols]);
                fputc(',', out);
                dbq_json_string(out, name);
                if (isnan(cells[c].mean[k])) {
                    fprintf(out, ":null");
                    continue;
                }
                fprintf(out, ":{\"mean\":%.10g,\"min\":%.10g,\"max\":%.10g,\"n\":%d", cells[c].mean[k],
                        cells[c].min[k], cells[c].max[k], cells[c].n[k]);
                if (cells[c].bistable[k])
                    fprintf(out, ",\"bistable\":[{\"mean\":%.10g,\"n\":%d},{\"mean\":%.10g,\"n\":%d}]",
                            cells[c].modes[k].mean[0], cells[c].modes[k].n[0], cells[c].modes[k].mean[1],
                            cells[c].modes[k].n[1]);
                fputc('}', out);
            }
            fprintf(out, ",\"runs\":%d,\"failed\":%d,\"disturbed\":%d,\"left_out\":%d,\"foreign\":",
                    cells[c].ok - cells[c].left_out, cells[c].runs - cells[c].ok,
                    cells[c].left_out + cells[c].kept_disturbed, cells[c].left_out);
            if (cells[c].fn)
                fprintf(out, "{\"mean\":%.10g,\"min\":%.10g,\"max\":%.10g,\"n\":%d}}", cells[c].fmean,
                        cells[c].fmin, cells[c].fmax, cells[c].fn);
            else
                fprintf(out, "null}");
        }
        fprintf(out, "]\n");
    }
#undef EPFX
    rc = 0;
    goto done;
sqlerr:
    fprintf(stderr, "runq %s: %s\n", prog, err);
done:
    free(x.vals);
    free(cells);
    return rc;
}
