/*
 * The panels of `runq top`, one draw function each, and the layout that
 * places them. They read the model's snapshot and the view state; they
 * change nothing but the screen (and ui->task_rows, for paging).
 *
 *   header     policy, switches, rates, loss, recording state
 *   cpus       one row a CPU: current task, runnable, V, utilisation, the tracer's own share, moves in
 *              and out a second, switches/s
 *   tasks      the task table (tui/table.h says what each column means)
 *   hist       wake-latency histogram of the selected task (log2 buckets)
 *   map        the timeline, like perf sched map: a column a CPU, a row a switch
 *   footer     keys, or the line being typed, or the last action's result
 *   help, menu overlays
 *
 * The screen is erased and drawn whole each time; ncurses sends only what
 * changed, so nothing flickers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncurses.h>

#include "db/visible.h"
#include "host/base/xalloc.h"
#include "tui/ui.h"

#define MIN_TASK_ROWS 4
#define NORMAL ((int)A_NORMAL)


/* Prints at (y, x), at most w columns. Every panel's text goes through
 * here, names from the database among it: made visible (db/visible.h),
 * since ncurses' addstr of a control byte moves the cursor or sends it on. */
static void put(int y, int x, int w, int attr, const char *fmt, ...)
{
    char buf[512], shown[4 * sizeof buf];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (w <= 0)
        return;
    text_visible(shown, sizeof shown, buf);
    attron(attr);
    mvaddnstr(y, x, shown, w);
    attroff(attr);
}

static void fill(int y, int x, int w, int attr)
{
    attron(attr);
    for (int i = 0; i < w; i++)
        mvaddch(y, x + i, ' ');
    attroff(attr);
}

static const struct top_task *selected(const struct top_ui *ui)
{
    if (!ui->nrows || ui->sel >= ui->nrows)
        return NULL;
    return &ui->s->tasks[ui->rows[ui->sel]];
}

static void fmt_count(char *b, size_t n, double v)
{
    if (v >= 1e6)
        snprintf(b, n, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(b, n, "%.1fk", v / 1e3);
    else
        snprintf(b, n, "%.0f", v);
}

/* ---- header ---- */

static int draw_header(const struct top_ui *ui, int y, int w)
{
    const struct top_header *h = &ui->s->h;
    char ev[16];
    fmt_count(ev, sizeof ev, h->events_per_s);
    int x = 0;
    char buf[256], lostbuf[48], resbuf[48], engine[96] = "";
    /* loss is always shown; highlighted when there is any */
    uint64_t lost = h->lost_packets + h->dropped_records;
    snprintf(lostbuf, sizeof lostbuf, "lost %llu", (unsigned long long)lost);
    snprintf(resbuf, sizeof resbuf, "resyncs %llu", (unsigned long long)h->resyncs);
    /* Two spaces between the parts where they fit; one on a narrow
     * terminal, so loss stays on the screen at 80 columns. */
    const char *sp = "  ";
    if (strcmp(h->engine, "runq-kernel") != 0) /* not runq's own kernel: say whose */
        snprintf(engine, sizeof engine, "%s%s%s", h->engine, *h->engine_version ? " " : "", h->engine_version);
    for (int pass = 0; pass < 2; pass++) {
        snprintf(buf, sizeof buf, "trace %lld%s%s%s%s%s%d Hz%s%d CPUs%sup %.3fs%s%s ev/s%s", (long long)h->trace_id,
                 sp, engine, *engine ? sp : "", h->policy, sp, h->tick_hz, sp, h->ncpus, sp, (double)h->now / 1e9, sp,
                 ev, sp);
        if (10 + (int)(strlen(buf) + strlen(lostbuf) + strlen(sp) + strlen(resbuf)) <= w)
            break;
        sp = " ";
    }
    put(y, x, w, term_attr(TR_TITLE), "runq top");
    x += *sp == ' ' && sp[1] ? 10 : 9;
    put(y, x, w - x, NORMAL, "%s", buf);
    x += (int)strlen(buf);
    put(y, x, w - x, lost ? term_attr(TR_WARN) : NORMAL, "%s", lostbuf);
    x += (int)(strlen(lostbuf) + strlen(sp));
    put(y, x, w - x, h->resyncs ? term_attr(TR_WARN) : NORMAL, "%s", resbuf);
    y++;

    /* feature switches: on as NAME, off as -NAME (dim); wraps up to twice */
    int lines = 1;
    x = 0;
    put(y, 0, w, term_attr(TR_TITLE), "features");
    x = 9;
    if (!h->policy[0] || !strcmp(h->policy, "?")) { /* no trace read yet: no policy to name */
        put(y, x, w - x, term_attr(TR_DIM), "- (not known yet)");
    } else if (!h->eevdf) {
        put(y, x, w - x, term_attr(TR_DIM), "- (round robin: EEVDF switches do not apply)");
    } else if (!h->nfeatures) {
        put(y, x, w - x, term_attr(TR_DIM), "- (the trace does not state them)");
    } else {
        for (int f = 0; f < h->nfeatures; f++) {
            bool on = h->features & (1u << f);
            int len = (int)strlen(h->feature[f]) + (on ? 0 : 1);
            if (x + len > w && lines < 3) { /* three lines hold them all at 80 columns */
                y++;
                lines++;
                x = 9;
            }
            put(y, x, w - x, on ? NORMAL : term_attr(TR_DIM), "%s%s", on ? "" : "-", h->feature[f]);
            x += len + 1;
        }
    }
    y++;

    /* the scheduler's knobs, when the trace states them (format 4) */
    if (h->nknobs) {
        int64_t v, rt, period;
        char line[160] = "";
        if (top_knob(h, "replace_on_release", &v))
            snprintf(line, sizeof line, "replace_on_release %s  ", v ? "on" : "off");
        if (top_knob(h, "rt_runtime_us", &rt) && top_knob(h, "rt_period_us", &period))
            snprintf(line + strlen(line), sizeof line - strlen(line), "rt budget %lldus of %lldus",
                     (long long)rt, (long long)period);
        put(y, 0, w, term_attr(TR_TITLE), "knobs");
        put(y, 9, w - 9, NORMAL, "%s", line);
        y++;
    }

    /* recording state, view state */
    char state[160];
    if (ui->live)
        snprintf(state, sizeof state, "live  %s", h->status);
    else
        snprintf(state, sizeof state, "replay x%g  %.3f/%.3fs  %s%s%s%s", ui->speed, (double)h->now / 1e9,
                 (double)h->end_ts / 1e9, h->status, *h->end_reason ? " (" : "", h->end_reason,
                 *h->end_reason ? ")" : "");
    put(y, 0, w, term_attr(TR_TITLE), "state");
    x = 9;
    put(y, x, w - x, NORMAL, "%s", state);
    x += (int)strlen(state) + 2;
    if (ui->paused) {
        put(y, x, w - x, term_attr(TR_WARN), "PAUSED");
        x += 8;
    }
    if (h->tasks_capped) { /* model.h, TOP_MAX_TASKS */
        snprintf(buf, sizeof buf, "ONLY THE FIRST %d TASKS", TOP_MAX_TASKS);
        put(y, x, w - x, term_attr(TR_WARN), "%s", buf);
        x += (int)strlen(buf) + 2;
    }
    snprintf(buf, sizeof buf, "sort %s%s  every %dms%s%s%s%s%s", top_cols[ui->sort].header,
             ui->invert ? " (inverted)" : "", ui->delay_ms, *ui->filter ? "  filter '" : "", ui->filter,
             *ui->filter ? "'" : "", ui->follow ? "  follow" : "", *h->last_mark ? "  mark " : "");
    put(y, x, w - x, NORMAL, "%s%s", buf, h->last_mark);
    return lines + 2;
}

/* ---- per-CPU rows ---- */

/* A bar of `width` cells filled to frac: eighths of a block in UTF-8. */
static void draw_bar(const struct top_ui *ui, int y, int x, int width, double frac)
{
    if (width <= 0)
        return;
    int role = frac < 0.5 ? TR_GOOD : frac < 0.9 ? TR_MID : TR_HIGH;
    int eighths = (int)(frac * width * 8 + 0.5);
    move(y, x);
    attron(term_attr(role));
    for (int i = 0; i < width; i++) {
        int e = eighths - i * 8;
        if (ui->caps.utf8) {
            static const char *const part[] = { " ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█" };
            addstr(part[e <= 0 ? 0 : e >= 8 ? 8 : e]);
        } else {
            addch(e >= 4 ? '|' : ' ');
        }
    }
    attroff(term_attr(role));
}

#define TRACE_SHARE_ATTR term_attr(TR_DIM)
#define CPU_RIGHT 29 /* the columns right of the bar: TRACE, MVIN/s, MVOUT/s, SW/s */

static int draw_cpus(const struct top_ui *ui, int y, int h, int w)
{
    const struct top_snapshot *s = ui->s;
    int n = s->h.ncpus;
    if (h < 2 || n <= 0)
        return 0;
    fill(y, 0, w, term_attr(TR_COLHDR));
    put(y, 0, w, term_attr(TR_COLHDR), "CPU CURRENT    RUN            V  UTIL");
    put(y, w - CPU_RIGHT, CPU_RIGHT, term_attr(TR_COLHDR), " TRACE MVIN/s MVOUT/s   SW/s");
    int shown = n < h - 1 ? n : h - 1;
    for (int i = 0; i < shown; i++) {
        const struct top_cpu *c = &s->cpus[i];
        int row = y + 1 + i;
        if (i == shown - 1 && shown < n) {
            put(row, 0, w, term_attr(TR_DIM), "... %d more CPUs (1 hides these rows)", n - shown + 1);
            break;
        }
        const char *curr = c->curr < 0 ? "?" : s->tasks[c->curr].is_idle ? "idle" : s->tasks[c->curr].name;
        char v[32] = "-", nr[8] = "-"; /* "-": not known (a Linux trace has neither) */
        if (s->h.eevdf && c->has_v)
            snprintf(v, sizeof v, "%.3fms", (double)c->v / 1e6);
        if (c->has_nr)
            snprintf(nr, sizeof nr, "%d", c->nr_runnable);
        put(row, 0, w, NORMAL, "%3d %-10.10s %3s %12s ", c->cpu, curr, nr, v);
        int bx = 32, bw = w - bx - 8 - CPU_RIGHT;
        if (bw > 4) {
            put(row, bx, 1, NORMAL, "[");
            draw_bar(ui, row, bx + 1, bw, c->util);
            put(row, bx + 1 + bw, 8, NORMAL, "]%4.0f%%", c->util * 100);
        }
        /* the tracer's own share (model.h): "-" where the trace cannot say */
        if (c->trace_share < 0)
            put(row, w - CPU_RIGHT, 7, TRACE_SHARE_ATTR, "%6s", "-");
        else
            put(row, w - CPU_RIGHT, 7, TRACE_SHARE_ATTR, "%5.1f%%", c->trace_share * 100);
        /* moves: "-" where the trace does not record them (model.h) */
        if (s->h.moves_known)
            put(row, w - 22, 15, NORMAL, "%6.0f %7.0f", c->moves_in_per_s, c->moves_out_per_s);
        else
            put(row, w - 22, 15, NORMAL, "%6s %7s", "-", "-");
        put(row, w - 7, 7, NORMAL, "%6.0f", c->switches_per_s);
    }
    return shown + 1;
}

/* ---- task table ---- */

/* Columns shown: TID and NAME always, then from hscroll on while they fit. */
static int visible_cols(const struct top_ui *ui, int w, enum top_col *cols)
{
    int n = 0, x = 1;
    for (int c = 0; c < TOP_COL_NR; c++) {
        if (c >= 2 && c < 2 + ui->hscroll)
            continue;
        if (x + top_cols[c].width > w)
            break;
        cols[n++] = (enum top_col)c;
        x += top_cols[c].width + 1;
    }
    return n;
}

static void draw_tasks(struct top_ui *ui, int y, int h, int w)
{
    const struct top_snapshot *s = ui->s;
    enum top_col cols[TOP_COL_NR];
    int ncols = visible_cols(ui, w, cols);
    fill(y, 0, w, term_attr(TR_COLHDR));
    int x = 1;
    for (int k = 0; k < ncols; k++) {
        const struct top_col_def *d = &top_cols[cols[k]];
        int attr = cols[k] == ui->sort ? term_attr(TR_SORTCOL) : term_attr(TR_COLHDR);
        put(y, x, d->width, attr, d->right ? "%*s" : "%-*s", d->width, d->header);
        x += d->width + 1;
    }
    int rows = h - 1;
    ui->task_rows = rows > 0 ? rows : 1;
    if (ui->sel >= ui->scroll + (size_t)ui->task_rows)
        ui->scroll = ui->sel - (size_t)ui->task_rows + 1;
    if (ui->sel < ui->scroll)
        ui->scroll = ui->sel;
    if (!ui->nrows) {
        put(y + 1, 1, w - 1, term_attr(TR_DIM), *ui->filter ? "no task matches the filter" : "no tasks yet");
        return;
    }
    for (int r = 0; r < rows && ui->scroll + (size_t)r < ui->nrows; r++) {
        size_t i = ui->scroll + (size_t)r;
        int ti = ui->rows[i];
        const struct top_task *t = &s->tasks[ti];
        bool tag = (size_t)ti < ui->tagged_cap && ui->tagged[ti];
        int attr = i == ui->sel ? term_attr(TR_SELECT) : tag ? term_attr(TR_TAG) : NORMAL;
        if (i == ui->sel)
            fill(y + 1 + r, 0, w, attr);
        put(y + 1 + r, 0, 1, attr, "%s", tag ? "*" : " ");
        x = 1;
        for (int k = 0; k < ncols; k++) {
            const struct top_col_def *d = &top_cols[cols[k]];
            char cell[64];
            top_cell(s, t, cols[k], cell, sizeof cell);
            int a = attr;
            if (i != ui->sel && !strcmp(cell, "-"))
                a = term_attr(TR_DIM);
            put(y + 1 + r, x, d->width, a, d->right ? "%*.*s" : "%-*.*s", d->width, d->width, cell);
            x += d->width + 1;
        }
    }
}

/* ---- latency histogram ---- */

static void bucket_label(char *b, size_t n, unsigned k)
{
    double v = (double)(1ull << k);
    if (v < 1e3)
        snprintf(b, n, "%.0fns", v);
    else if (v < 1e6)
        snprintf(b, n, "%.0fus", v / 1e3);
    else if (v < 1e9)
        snprintf(b, n, "%.0fms", v / 1e6);
    else
        snprintf(b, n, "%.0fs", v / 1e9);
}

static void draw_hist(const struct top_ui *ui, int y, int h, int w)
{
    const struct top_task *t = selected(ui);
    fill(y, 0, w, term_attr(TR_COLHDR));
    if (!t) {
        put(y, 0, w, term_attr(TR_COLHDR), "wake latency: no task selected");
        return;
    }
    char p50[16], p99[16], mx[16];
    top_fmt_ns(p50, sizeof p50, (int64_t)t->lat_p50);
    top_fmt_ns(p99, sizeof p99, (int64_t)t->lat_p99);
    top_fmt_ns(mx, sizeof mx, (int64_t)t->lat_max);
    if (t->lat_n)
        put(y, 0, w, term_attr(TR_COLHDR), "wake latency of %s (tid %d): %llu wakeups  p50 %s  p99 %s  max %s",
            t->name, t->tid, (unsigned long long)t->lat_n, p50, p99, mx);
    else /* no percentiles of nothing: "0 wakeups p50 0ns" read as a measured 0 */
        put(y, 0, w, term_attr(TR_COLHDR), "wake latency of %s (tid %d)", t->name, t->tid);
    if (!t->lat_n) {
        put(y + 1, 1, w - 1, term_attr(TR_DIM), "no wakeups yet");
        return;
    }
    uint64_t b[TOP_LAT_LOG2], most = 0;
    top_lat_log2(t->lat_hist, b);
    int lo = -1, hi = -1;
    for (int k = 0; k < TOP_LAT_LOG2; k++)
        if (b[k]) {
            if (lo < 0)
                lo = k;
            hi = k;
            if (b[k] > most)
                most = b[k];
        }
    int rows = h - 1;
    if (hi - lo + 1 > rows)
        lo = hi - rows + 1; /* the tail matters most: drop the fastest buckets */
    int bw = w - 30;
    for (int k = lo; k <= hi; k++) {
        int row = y + 1 + (k - lo);
        char a[16], z[16];
        bucket_label(a, sizeof a, (unsigned)k);
        bucket_label(z, sizeof z, (unsigned)k + 1);
        put(row, 0, w, NORMAL, "%6s-%-6s ", a, z);
        if (bw > 0) {
            put(row, 14, 1, NORMAL, "|");
            draw_bar(ui, row, 15, bw, most ? (double)b[k] / (double)most : 0);
            put(row, 15 + bw, w - 15 - bw, NORMAL, "| %llu", (unsigned long long)b[k]);
        }
    }
}

/* ---- timeline ---- */

static void draw_map(const struct top_ui *ui, int y, int h, int w)
{
    const struct top_snapshot *s = ui->s;
    int n = s->h.ncpus;
    fill(y, 0, w, term_attr(TR_COLHDR));
    put(y, 0, w, term_attr(TR_COLHDR), "timeline: a row a switch (newest last), a column a CPU, * the CPU that switched, . idle");
    int rows = h - 1;
    int cellw = 4, mapw = 12 + n * cellw;
    size_t first = s->nmap > (size_t)rows ? s->nmap - (size_t)rows : 0;
    /* legend: the codes seen in the rows shown */
    bool *seen = NULL;
    if (s->ntasks && mapw + 12 < w)
        seen = xcalloc(s->ntasks, sizeof *seen);
    for (size_t i = first; i < s->nmap; i++) {
        struct top_map_row r = top_model_map_row(ui->m, i);
        int row = y + 1 + (int)(i - first);
        put(row, 0, 12, NORMAL, "%11.6f ", (double)r.ts / 1e9);
        for (int c = 0; c < n && 12 + (c + 1) * cellw <= w; c++) {
            int ti = r.curr[c];
            const char *code = ti >= 0 && s->tasks[ti].code[0] ? s->tasks[ti].code : ".";
            bool sel = ti >= 0 && ui->nrows && ui->sel < ui->nrows && ui->rows[ui->sel] == ti;
            put(row, 12 + c * cellw, cellw, sel ? term_attr(TR_SELECT) : ti < 0 ? term_attr(TR_DIM) : NORMAL,
                "%c%-3s", c == r.cpu ? '*' : ' ', code);
            if (seen && ti >= 0)
                seen[ti] = true;
        }
    }
    if (seen) {
        int row = y + 1, lx = mapw + 2;
        for (size_t i = 0; i < s->ntasks && row < y + h; i++)
            if (seen[i])
                put(row++, lx, w - lx, NORMAL, "%-3s %s", s->tasks[i].code, s->tasks[i].name);
        free(seen);
    }
    if (!s->nmap)
        put(y + 1, 1, w - 1, term_attr(TR_DIM), "no switches yet");
}

/* ---- footer, help, menus ---- */

static void draw_footer(const struct top_ui *ui, int y, int w)
{
    fill(y, 0, w, NORMAL);
    static const char *const prompt[] = {
        [IN_SEARCH] = "Search: ", [IN_FILTER] = "Filter: ", [IN_SLICE] = "Slice (us): ", [IN_MARK] = "Mark name: ",
    };
    if (ui->input == IN_SEARCH || ui->input == IN_FILTER || ui->input == IN_SLICE || ui->input == IN_MARK) {
        put(y, 0, w, term_attr(TR_KEY), "%s", prompt[ui->input]);
        int x = (int)strlen(prompt[ui->input]);
        put(y, x, w - x, NORMAL, "%s_   Enter: done  Esc: cancel%s", ui->line,
            ui->input == IN_SEARCH ? "  F3: next" : "");
        return;
    }
    if (*ui->msg) {
        put(y, 0, w, (int)A_BOLD, "%s", ui->msg);
        return;
    }
    static const char *const keys[][2] = {
        { "F1", "Help" }, { "F3", "Search" }, { "F4", "Filter" }, { "F6", "SortBy" }, { "Tab", "View" },
        { "z", "Pause" }, { "n/N", "Nice" }, { "F10", "Quit" },
    };
    int x = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && x < w; k++) {
        put(y, x, w - x, term_attr(TR_KEY), "%s", keys[k][0]);
        x += (int)strlen(keys[k][0]);
        put(y, x, w - x, NORMAL, "%-7s", keys[k][1]);
        x += 7;
    }
}

static void draw_help(const struct top_ui *ui, int H, int W)
{
    (void)ui;
    put(0, 0, W, term_attr(TR_TITLE), "runq top: keys                                  (any key returns)");
    int y = 2;
    for (size_t k = 0; k < ui->nactions && y < H - 1; k++, y++) {
        char keys[64];
        top_action_keys(&ui->actions[k], keys, sizeof keys);
        put(y, 2, 28, term_attr(TR_TITLE), "%s", keys);
        put(y, 31, W - 31, NORMAL, "%s", ui->actions[k].what);
    }
    if (y + 1 < H)
        put(y + 1, 2, W - 2, term_attr(TR_DIM),
            "STATE: run on a CPU, R queued, R+ preempted, S asleep, D delayed (DELAY_DEQUEUE), X exited");
}

static void draw_menu(const struct top_ui *ui, int H, int W)
{
    const struct top_header *h = &ui->s->h;
    bool sort = ui->input == IN_SORT_MENU;
    int n = sort ? TOP_COL_NR : h->nfeatures;
    int bw = 34, bh = n + 2;
    if (bh > H - 2)
        bh = H - 2;
    int y0 = (H - bh) / 2, x0 = (W - bw) / 2;
    if (x0 < 0)
        x0 = 0;
    for (int r = 0; r < bh; r++)
        fill(y0 + r, x0, bw, term_attr(TR_KEY));
    put(y0, x0 + 1, bw - 2, term_attr(TR_KEY), sort ? "Sort by (Enter, Esc)" : "Feature switch (Enter toggles)");
    int first = ui->menu_sel >= bh - 2 ? ui->menu_sel - (bh - 3) : 0;
    for (int i = first, r = 1; i < n && r < bh - 1; i++, r++) {
        int attr = i == ui->menu_sel ? (int)(A_REVERSE | A_BOLD) : NORMAL;
        fill(y0 + r, x0 + 1, bw - 2, attr);
        if (sort)
            put(y0 + r, x0 + 2, bw - 4, attr, "%s", top_cols[i].header);
        else
            put(y0 + r, x0 + 2, bw - 4, attr, "%-26s %s", h->feature[i], h->features & (1u << i) ? "on" : "off");
    }
}

const char *top_key_name(int code, char *buf, size_t size)
{
    static const struct {
        int code;
        const char *name;
    } named[] = {
        { ' ', "Space" }, { '\t', "Tab" }, { 27, "Esc" }, { KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" },
        { KEY_RIGHT, "Right" }, { KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" }, { KEY_END, "End" },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (named[i].code == code)
            return named[i].name;
    if (code >= KEY_F(1) && code <= KEY_F(12))
        snprintf(buf, size, "F%d", code - KEY_F(0));
    else if (code > ' ' && code < 0x7f)
        snprintf(buf, size, "%c", code);
    else
        snprintf(buf, size, "#%d", code);
    return buf;
}

void top_action_keys(const struct top_action *a, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < TOP_ACTION_KEYS && a->keys[k] && n < size; k++) {
        char name[16];
        /* single-character keys two spaces apart, named keys one */
        const char *sep = !k ? "" : strlen(top_key_name(a->keys[k - 1], name, sizeof name)) == 1 ? "  " : " ";
        int w = snprintf(buf + n, size - n, "%s%s", sep, top_key_name(a->keys[k], name, sizeof name));
        n += w > 0 ? (size_t)w : 0;
    }
}

void top_draw(struct top_ui *ui)
{
    int H, W;
    getmaxyx(stdscr, H, W);
    erase();
    if (H < 10 || W < 40) {
        put(0, 0, W, (int)A_BOLD, "runq top needs at least 40x10 (this is %dx%d)", W, H);
        refresh();
        return;
    }
    if (ui->help) {
        draw_help(ui, H, W);
        refresh();
        return;
    }
    int y = draw_header(ui, 0, W);
    int body = H - 1 - y; /* the footer takes the last line */
    if (ui->show_cpus) {
        int cpu_rows = ui->s->h.ncpus + 1;
        int room = body - MIN_TASK_ROWS - 1;
        if (ui->view != VIEW_TASKS)
            room = body / 3;
        if (cpu_rows > room)
            cpu_rows = room;
        y += draw_cpus(ui, y, cpu_rows, W);
        body = H - 1 - y;
    }
    switch (ui->view) {
    case VIEW_TASKS:
        draw_tasks(ui, y, body, W);
        break;
    case VIEW_LATENCY: {
        int th = body / 2 < MIN_TASK_ROWS + 1 ? MIN_TASK_ROWS + 1 : body / 2;
        draw_tasks(ui, y, th, W);
        draw_hist(ui, y + th, body - th, W);
        break;
    }
    case VIEW_MAP: {
        int th = body / 3 < MIN_TASK_ROWS + 1 ? MIN_TASK_ROWS + 1 : body / 3;
        draw_tasks(ui, y, th, W);
        draw_map(ui, y + th, body - th, W);
        break;
    }
    case VIEW_NR:
        break;
    }
    draw_footer(ui, H - 1, W);
    if (ui->input == IN_SORT_MENU || ui->input == IN_FEATURE_MENU)
        draw_menu(ui, H, W);
    refresh();
}
