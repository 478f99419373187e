/*
 * An experiment's table, from the database alone (contract in
 * experiment.h): the rows of scenario and scenario_metric of one
 * experiment, grouped by cell. `runq experiment` prints it when its runs
 * are stored, `runq report experiment` again later: one code path, so the
 * two cannot differ.
 *
 * A value is the mean over the cell's repeats that succeeded, with its
 * spread [min..max] when there are several. Shares and the stall share
 * print as percentages, lateness as a time, work as iterations a second.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/experiment.h"
#include "db/query.h"
#include "db/visible.h"
#include "scenario/scenario.h"

#define XT_MAX_COLS 32
#define XT_MAX_ENGINES 4
#define XT_MAX_CELLS 4096

/* A cell's values: column k of engine e at e * ncols + k (an experiment
 * on several engines has a group of the columns for each). */
struct xt_cell {
    int cell;
    char params[256];
    int runs, ok;
    double mean[XT_MAX_ENGINES * XT_MAX_COLS], min[XT_MAX_ENGINES * XT_MAX_COLS], max[XT_MAX_ENGINES * XT_MAX_COLS];
    int n[XT_MAX_ENGINES * XT_MAX_COLS];
};

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
 * spread when more than one repeat gave a value. */
static void fmt_cell(char *buf, size_t len, const struct xt_cell *c, int k, const char *metric)
{
    char a[32], b[32], m[32];
    fmt_value(m, sizeof m, kind_of(metric), c->mean[k]);
    if (c->n[k] > 1) {
        fmt_value(a, sizeof a, kind_of(metric), c->min[k]);
        fmt_value(b, sizeof b, kind_of(metric), c->max[k]);
        snprintf(buf, len, "%s [%s..%s]", m, a, b);
    } else {
        snprintf(buf, len, "%s", m);
    }
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
int experiment_table(sqlite3 *db, const char *prog, int64_t id, enum dbq_format fmt, FILE *out)
{
    sqlite3_stmt *s = NULL;
    char cols[XT_MAX_COLS][64], file[512] = "", engine[64] = "", axes[256] = "", shard[512] = "";
    char engines[XT_MAX_ENGINES][16];
    int ncols = 0, ncells = 0, repeats = 0, nengines = 0, rc = 1;
    struct xt_cell *cells = NULL;

    /* A database from before schema version 5 has no experiment table
     * (readers migrate nothing). */
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'experiment'", -1, &s,
                           NULL) != SQLITE_OK)
        goto sqlerr;
    bool has = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    s = NULL;
    if (!has) {
        fprintf(stderr, "runq %s: the database holds no experiment (it has no experiment table)\n", prog);
        return 1;
    }
    if (id <= 0) {
        if (sqlite3_prepare_v2(db, "SELECT MAX(experiment_id) FROM experiment", -1, &s, NULL) != SQLITE_OK)
            goto sqlerr;
        if (sqlite3_step(s) == SQLITE_ROW)
            id = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        s = NULL;
        if (id <= 0) {
            fprintf(stderr, "runq %s: the database holds no experiment\n", prog);
            return 1;
        }
    }
    if (sqlite3_prepare_v2(db, "SELECT file, engine, axes, cells, repeats, shard, columns FROM experiment WHERE "
                               "experiment_id = ?", -1, &s, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        fprintf(stderr, "runq %s: no experiment %lld in the database\n", prog, (long long)id);
        sqlite3_finalize(s);
        return 1;
    }
#define COPY(dst, col) snprintf(dst, sizeof dst, "%s", sqlite3_column_text(s, col) ? (const char *)sqlite3_column_text(s, col) : "")
    COPY(file, 0);
    COPY(engine, 1);
    COPY(axes, 2);
    COPY(shard, 5);
#undef COPY
    ncells = sqlite3_column_int(s, 3);
    repeats = sqlite3_column_int(s, 4);
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
        snprintf(all, sizeof all, "%s", sqlite3_column_text(s, 6) ? (const char *)sqlite3_column_text(s, 6) : "");
        /* A column is TASK.METRIC (the table reads the metric after the
         * dot); one without, in an edited database, is not a column: it
         * was read from NULL + 1. */
        for (char *c = strtok_r(all, ",", &save); c && ncols < XT_MAX_COLS; c = strtok_r(NULL, ",", &save))
            if (strchr(c, '.'))
                snprintf(cols[ncols++], sizeof cols[0], "%s", c);
    }
    sqlite3_finalize(s);
    s = NULL;
    if (ncells < 1 || ncells > XT_MAX_CELLS) {
        fprintf(stderr, "runq %s: experiment %lld says it has %d cells: the database is damaged\n", prog,
                (long long)id, ncells);
        return 1;
    }
    cells = calloc((size_t)ncells, sizeof *cells);
    if (!cells) {
        fprintf(stderr, "runq %s: out of memory\n", prog);
        return 1;
    }
    for (int c = 0; c < ncells; c++) {
        cells[c].cell = -1;
        for (int k = 0; k < XT_MAX_ENGINES * XT_MAX_COLS; k++)
            cells[c].mean[k] = cells[c].min[k] = cells[c].max[k] = NAN;
    }
    /* The runs of each cell, and their parameters. */
    if (sqlite3_prepare_v2(db, "SELECT cell, MAX(params), COUNT(*), SUM(status = 'ok') FROM scenario WHERE "
                               "experiment_id = ? GROUP BY cell ORDER BY cell", -1, &s, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_int64(s, 1, id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int c = sqlite3_column_int(s, 0);
        if (c < 0 || c >= ncells)
            continue;
        cells[c].cell = c;
        snprintf(cells[c].params, sizeof cells[c].params, "%s",
                 sqlite3_column_text(s, 1) ? (const char *)sqlite3_column_text(s, 1) : "");
        cells[c].runs = sqlite3_column_int(s, 2);
        cells[c].ok = sqlite3_column_int(s, 3);
    }
    sqlite3_finalize(s);
    s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT s.cell, m.task, m.metric, AVG(m.value), MIN(m.value), MAX(m.value), "
                               "COUNT(m.value), s.engine FROM scenario s JOIN scenario_metric m USING (scenario_id) "
                               "WHERE s.experiment_id = ? AND s.status = 'ok' GROUP BY s.cell, s.engine, m.task, "
                               "m.metric", -1, &s, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_int64(s, 1, id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int c = sqlite3_column_int(s, 0), e = nengines == 1 ? 0 : -1;
        int k = column_index(cols, ncols, (const char *)sqlite3_column_text(s, 1),
                             (const char *)sqlite3_column_text(s, 2));
        for (int i = 0; i < nengines && e < 0; i++)
            if (sqlite3_column_text(s, 7) && !strcmp(engines[i], (const char *)sqlite3_column_text(s, 7)))
                e = i;
        if (c < 0 || c >= ncells || k < 0 || e < 0)
            continue;
        k += e * ncols;
        int n = sqlite3_column_int(s, 6);
        cells[c].n[k] = n;
        if (n) {
            cells[c].mean[k] = sqlite3_column_double(s, 3);
            cells[c].min[k] = sqlite3_column_double(s, 4);
            cells[c].max[k] = sqlite3_column_double(s, 5);
        }
    }
    sqlite3_finalize(s);
    s = NULL;

    /* Columns: ncols of each engine's; in CSV and JSON an engine's are
     * named ENGINE:TASK.METRIC when there are several. */
    int nv = nengines * ncols;
#define EPFX(k) (nengines > 1 ? engines[(k) / ncols] : ""), (nengines > 1 ? ":" : "")
    if (fmt == DBQ_TABLE) {
        int width[XT_MAX_ENGINES * XT_MAX_COLS + 1];
        char cellbuf[128];
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
        fprintf(out, "  runs\n");
        for (int c = 0; c < ncells; c++) {
            if (cells[c].cell < 0)
                continue; /* not run here (another shard's) */
            fprintf(out, "%-*s", width[0], cells[c].params[0] ? cells[c].params : "-");
            for (int k = 0; k < nv; k++) {
                fmt_cell(cellbuf, sizeof cellbuf, &cells[c], k, strchr(cols[k % ncols], '.') + 1);
                fprintf(out, "  %-*s", width[k + 1], cellbuf);
            }
            fprintf(out, "  %d", cells[c].ok);
            if (cells[c].ok < cells[c].runs)
                fprintf(out, " (%d failed)", cells[c].runs - cells[c].ok);
            fprintf(out, "\n");
        }
        /* A shard's table, or a merge that lacks shards: say which cells
         * have no row, rather than leave them out silently. */
        int missing = 0;
        for (int c = 0; c < ncells; c++)
            if (cells[c].cell < 0)
                fprintf(out, "%s%d", missing++ ? "," : "cells without runs here: ", c);
        if (missing)
            fprintf(out, " (of 0..%d)\n", ncells - 1);
    } else if (fmt == DBQ_CSV) {
        fprintf(out, "experiment,cell,params");
        for (int k = 0; k < nv; k++)
            for (int part = 0; part < 3; part++) {
                char name[256];
                snprintf(name, sizeof name, "%s%s%s%s", EPFX(k), cols[k % ncols], part ? part == 1 ? "_min" : "_max" : "");
                fputc(',', out);
                dbq_csv_field(out, name, false);
            }
        fprintf(out, ",runs,failed\n");
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
            fprintf(out, ",%d,%d\n", cells[c].ok, cells[c].runs - cells[c].ok);
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
                fprintf(out, ":{\"mean\":%.10g,\"min\":%.10g,\"max\":%.10g,\"n\":%d}", cells[c].mean[k],
                        cells[c].min[k], cells[c].max[k], cells[c].n[k]);
            }
            fprintf(out, ",\"runs\":%d,\"failed\":%d}", cells[c].ok, cells[c].runs - cells[c].ok);
        }
        fprintf(out, "]\n");
    }
#undef EPFX
    rc = 0;
    goto done;
sqlerr:
    fprintf(stderr, "runq %s: %s\n", prog, sqlite3_errmsg(db));
    sqlite3_finalize(s);
done:
    free(cells);
    return rc;
}
