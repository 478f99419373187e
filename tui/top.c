/*
 * `runq top`: the loop. Reads the model at each refresh, keeps the view
 * state (selection, sort, filter, ...), reads keys, sends actions. The
 * numbers come from tui/model.c, the panels from tui/draw.c, the terminal
 * from tui/term.c, the action lines go out through tui/control.c.
 *
 * Time: a live trace (status 'recording') is shown at its newest record;
 * a finished one is replayed from its start (or --at) at --speed trace
 * seconds a wall second, and stops at its end.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ncurses.h>

#include "bug.h"
#include "host/base/clock.h"
#include "host/base/xalloc.h"
#include "tui/control.h"
#include "tui/top.h"

#define MIN_DELAY_MS 50
#define MAX_DELAY_MS 10000

static int64_t now_ms(void)
{
    return (int64_t)(mono_ns() / 1000000);
}

int top_parse_dec(const char *s, double lo, double hi, double *out)
{
    if (!*s || strspn(s, "0123456789.") != strlen(s) || strchr(s, '.') != strrchr(s, '.') || strlen(s) > 12)
        return -1;
    double v = strtod(s, NULL);
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* ---- the rows ---- */

static void rebuild_rows(struct top_ui *ui)
{
    const struct top_snapshot *s = ui->s;
    if (ui->rows_cap < s->ntasks + 1) {
        ui->rows = xreallocarray(ui->rows, s->ntasks + 1, sizeof *ui->rows);
        ui->rows_cap = s->ntasks + 1;
    }
    if (ui->tagged_cap < s->ntasks) {
        ui->tagged = xreallocarray(ui->tagged, s->ntasks, sizeof *ui->tagged);
        memset(ui->tagged + ui->tagged_cap, 0, (s->ntasks - ui->tagged_cap) * sizeof *ui->tagged);
        ui->tagged_cap = s->ntasks;
    }
    ui->nrows = top_visible(s, ui->filter, ui->rows);
    top_sort(s, ui->rows, ui->nrows, ui->sort, ui->invert);
    if (ui->follow && ui->sel_utid) {
        for (size_t i = 0; i < ui->nrows; i++)
            if (s->tasks[ui->rows[i]].utid == ui->sel_utid)
                ui->sel = i;
    }
    if (ui->sel >= ui->nrows)
        ui->sel = ui->nrows ? ui->nrows - 1 : 0;
    ui->sel_utid = ui->nrows ? s->tasks[ui->rows[ui->sel]].utid : 0;
}

static void select_row(struct top_ui *ui, long r)
{
    if (r < 0)
        r = 0;
    if (ui->nrows && (size_t)r >= ui->nrows)
        r = (long)ui->nrows - 1;
    ui->sel = ui->nrows ? (size_t)r : 0;
    ui->sel_utid = ui->nrows ? ui->s->tasks[ui->rows[ui->sel]].utid : 0;
}

/* Next row matching ui->line, starting at start (wrapping); false if none. */
static bool search_from(struct top_ui *ui, size_t start)
{
    for (size_t k = 0; k < ui->nrows; k++) {
        size_t i = (start + k) % ui->nrows;
        if (top_match(&ui->s->tasks[ui->rows[i]], ui->line)) {
            select_row(ui, (long)i);
            return true;
        }
    }
    return false;
}

/* ---- actions ---- */

static void send_line(struct top_ui *ui, const char *line)
{
    char err[120];
    const char *path = ui->s->h.control;
    if (!*path) {
        snprintf(ui->msg, sizeof ui->msg, "actions need a live recording (%s)",
                 ui->s->h.has_control_column ? "this trace has no control socket" : "no control socket");
        return;
    }
    if (top_control_send(path, line, err, sizeof err) != 0)
        snprintf(ui->msg, sizeof ui->msg, "not sent: %.120s", err);
    else
        snprintf(ui->msg, sizeof ui->msg, "sent: %s", line);
}

/* The tasks an action applies to: the tagged ones, else the selected one. */
static size_t targets(const struct top_ui *ui, int *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < ui->nrows && n < max; i++)
        if ((size_t)ui->rows[i] < ui->tagged_cap && ui->tagged[ui->rows[i]])
            out[n++] = ui->rows[i];
    if (!n && ui->nrows && ui->sel < ui->nrows)
        out[n++] = ui->rows[ui->sel];
    return n;
}

static void act_nice(struct top_ui *ui, int delta)
{
    int t[64];
    size_t n = targets(ui, t, 64);
    if (!n) {
        snprintf(ui->msg, sizeof ui->msg, "no task selected");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        const struct top_task *task = &ui->s->tasks[t[k]];
        int v = task->nice + delta;
        v = v < -20 ? -20 : v > 19 ? 19 : v;
        char line[64];
        snprintf(line, sizeof line, "nice %d %d", task->tid, v);
        send_line(ui, line);
    }
}

static void act_slice(struct top_ui *ui)
{
    int t[64];
    size_t n = targets(ui, t, 64);
    double us;
    if (top_parse_dec(ui->line, 100, 100000, &us) != 0 || strchr(ui->line, '.')) {
        snprintf(ui->msg, sizeof ui->msg, "slice: want whole microseconds, 100..100000");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        char line[64];
        snprintf(line, sizeof line, "slice %d %.0f", ui->s->tasks[t[k]].tid, us);
        send_line(ui, line);
    }
    if (!n)
        snprintf(ui->msg, sizeof ui->msg, "no task selected");
}

static void act_mark(struct top_ui *ui)
{
    if (!*ui->line || strspn(ui->line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
                          strlen(ui->line)) {
        snprintf(ui->msg, sizeof ui->msg, "mark: a name of letters, digits, _ . -");
        return;
    }
    char line[96];
    snprintf(line, sizeof line, "mark %s", ui->line);
    send_line(ui, line);
}

static void act_feature(struct top_ui *ui)
{
    const struct top_header *h = &ui->s->h;
    if (ui->menu_sel < 0 || ui->menu_sel >= h->nfeatures)
        return;
    char line[96];
    snprintf(line, sizeof line, "feature %s %s", h->feature[ui->menu_sel],
             h->features & (1u << ui->menu_sel) ? "off" : "on");
    send_line(ui, line);
}

/* Flips the knob replace_on_release (when a higher class takes a CPU, are
 * the fair tasks queued there re-placed on other CPUs, or kept?) with
 * the shell's `sched knob`, run by the kernel's host task. */
static void act_replace_on_release(struct top_ui *ui)
{
    int64_t v;
    if (!top_knob(&ui->s->h, "replace_on_release", &v)) {
        snprintf(ui->msg, sizeof ui->msg, "this trace states no replace_on_release (a SET knob: trace format 4)");
        return;
    }
    char line[64];
    snprintf(line, sizeof line, "run sched knob replace_on_release %d", v ? 0 : 1);
    send_line(ui, line);
}

/* ---- keys ---- */

static bool is_enter(int ch)
{
    return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

/* Keys while a line is being typed. */
static void key_line(struct top_ui *ui, int ch)
{
    size_t len = strlen(ui->line);
    enum top_input in = ui->input;
    if (ch == 27) { /* Esc */
        if (in == IN_FILTER) {
            ui->filter[0] = 0;
            rebuild_rows(ui);
        }
        ui->input = IN_NONE;
        return;
    }
    if (is_enter(ch)) {
        ui->input = IN_NONE;
        if (in == IN_SLICE)
            act_slice(ui);
        else if (in == IN_MARK)
            act_mark(ui);
        return;
    }
    if (in == IN_SEARCH && ch == KEY_F(3)) {
        search_from(ui, ui->sel + 1);
        return;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len)
            ui->line[len - 1] = 0;
    } else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof ui->line) {
        ui->line[len] = (char)ch;
        ui->line[len + 1] = 0;
    } else {
        return;
    }
    if (in == IN_SEARCH && *ui->line && !search_from(ui, ui->sel))
        snprintf(ui->msg, sizeof ui->msg, "no match for '%s'", ui->line);
    if (in == IN_FILTER) {
        snprintf(ui->filter, sizeof ui->filter, "%s", ui->line);
        rebuild_rows(ui);
    }
}

static void key_menu(struct top_ui *ui, int ch)
{
    int n = ui->input == IN_SORT_MENU ? TOP_COL_NR : ui->s->h.nfeatures;
    if (ch == KEY_UP && ui->menu_sel > 0)
        ui->menu_sel--;
    else if (ch == KEY_DOWN && ui->menu_sel + 1 < n)
        ui->menu_sel++;
    else if (ch == 27 || ch == 'q')
        ui->input = IN_NONE;
    else if (is_enter(ch)) {
        if (ui->input == IN_SORT_MENU) {
            BUG_ON(ui->menu_sel < 0 || ui->menu_sel >= TOP_COL_NR); /* opened at a column, moved within n */
            ui->sort = (enum top_col)ui->menu_sel;
            rebuild_rows(ui);
        } else {
            act_feature(ui);
        }
        ui->input = IN_NONE;
    }
}

static void start_input(struct top_ui *ui, enum top_input in)
{
    ui->input = in;
    ui->line[0] = 0;
    ui->msg[0] = 0;
    if (in == IN_FILTER)
        snprintf(ui->line, sizeof ui->line, "%s", ui->filter);
}

/* ---- the actions: one table for the keys and the help ---- */

static int do_quit(struct top_ui *ui, int ch)
{
    (void)ui;
    (void)ch;
    return 1;
}

static int do_help(struct top_ui *ui, int ch)
{
    (void)ch;
    ui->help = true;
    return 0;
}

static int do_move(struct top_ui *ui, int ch)
{
    long page = ui->task_rows > 1 ? ui->task_rows - 1 : 1, sel = (long)ui->sel;
    switch (ch) {
    case KEY_UP: sel -= 1; break;
    case KEY_DOWN: sel += 1; break;
    case KEY_PPAGE: sel -= page; break;
    case KEY_NPAGE: sel += page; break;
    case KEY_HOME: sel = 0; break;
    default: sel = (long)ui->nrows - 1; break; /* KEY_END */
    }
    select_row(ui, sel);
    return 0;
}

static int do_scroll(struct top_ui *ui, int ch)
{
    if (ch == KEY_LEFT && ui->hscroll > 0)
        ui->hscroll--;
    else if (ch == KEY_RIGHT && ui->hscroll < TOP_COL_NR - 3)
        ui->hscroll++;
    return 0;
}

static int do_sort_step(struct top_ui *ui, int ch)
{
    int step = ch == '<' ? TOP_COL_NR - 1 : 1;
    ui->sort = (enum top_col)((ui->sort + step) % TOP_COL_NR);
    rebuild_rows(ui);
    return 0;
}

static int do_sort_menu(struct top_ui *ui, int ch)
{
    (void)ch;
    ui->input = IN_SORT_MENU;
    ui->menu_sel = (int)ui->sort;
    return 0;
}

static int do_sort_by(struct top_ui *ui, int ch)
{
    ui->sort = ch == 'P' ? TOP_COL_PCPU : TOP_COL_P99;
    ui->invert = false;
    rebuild_rows(ui);
    return 0;
}

static int do_invert(struct top_ui *ui, int ch)
{
    (void)ch;
    ui->invert = !ui->invert;
    rebuild_rows(ui);
    return 0;
}

/* The line ch asks to type (top_actions' rows name the keys): / or F3 a
 * search, \ or F4 a filter, m a marker's name. */
static int do_line(struct top_ui *ui, int ch)
{
    enum top_input in = IN_NONE;
    switch (ch) {
    case '/':
    case KEY_F(3): in = IN_SEARCH; break;
    case '\\':
    case KEY_F(4): in = IN_FILTER; break;
    case 'm': in = IN_MARK; break;
    }
    BUG_ON(in == IN_NONE); /* top_actions binds do_line to these keys alone */
    start_input(ui, in);
    return 0;
}

/* Esc in the main view: the filter goes, as the help says (it used to
 * clear it only while the filter was being typed). */
static int do_clear(struct top_ui *ui, int ch)
{
    (void)ch;
    if (ui->filter[0]) {
        ui->filter[0] = 0;
        rebuild_rows(ui);
        snprintf(ui->msg, sizeof ui->msg, "filter cleared");
    }
    return 0;
}

static int do_tag(struct top_ui *ui, int ch)
{
    (void)ch;
    if (ui->nrows) {
        int ti = ui->rows[ui->sel];
        if ((size_t)ti < ui->tagged_cap)
            ui->tagged[ti] = !ui->tagged[ti];
        select_row(ui, (long)ui->sel + 1);
    }
    return 0;
}

/* The switch ch flips (top_actions' rows name the keys): F follows the
 * selection, z pauses, 1 shows the per-CPU rows. */
static int do_flip(struct top_ui *ui, int ch)
{
    bool *on = ch == 'F' ? &ui->follow : ch == 'z' ? &ui->paused : ch == '1' ? &ui->show_cpus : NULL;
    BUG_ON(!on); /* top_actions binds do_flip to these keys alone */
    *on = !*on;
    return 0;
}

static int do_delay(struct top_ui *ui, int ch)
{
    if (ch == '-')
        ui->delay_ms = ui->delay_ms * 2 > MAX_DELAY_MS ? MAX_DELAY_MS : ui->delay_ms * 2;
    else
        ui->delay_ms = ui->delay_ms / 2 < MIN_DELAY_MS ? MIN_DELAY_MS : ui->delay_ms / 2;
    return 0;
}

static int do_speed(struct top_ui *ui, int ch)
{
    if (ch == '[' && ui->speed > 0.01)
        ui->speed /= 2;
    else if (ch == ']' && ui->speed < 1000)
        ui->speed *= 2;
    return 0;
}

static int do_view(struct top_ui *ui, int ch)
{
    (void)ch;
    ui->view = (enum top_view)((ui->view + 1) % VIEW_NR);
    return 0;
}

static int do_nice(struct top_ui *ui, int ch)
{
    act_nice(ui, ch == 'n' ? -1 : +1);
    return 0;
}

static int do_slice(struct top_ui *ui, int ch)
{
    (void)ch;
    if (!ui->s->h.eevdf)
        snprintf(ui->msg, sizeof ui->msg, "slices are EEVDF's: this trace runs %s", ui->s->h.policy);
    else
        start_input(ui, IN_SLICE);
    return 0;
}

static int do_feature(struct top_ui *ui, int ch)
{
    (void)ch;
    if (!ui->s->h.nfeatures) {
        snprintf(ui->msg, sizeof ui->msg, "this trace names no feature switches");
    } else {
        ui->input = IN_FEATURE_MENU;
        ui->menu_sel = 0;
    }
    return 0;
}

static int do_knob(struct top_ui *ui, int ch)
{
    (void)ch;
    act_replace_on_release(ui);
    return 0;
}

const struct top_action top_actions[] = {
    { { 'q', KEY_F(10) }, "quit", do_quit },
    { { 'h', '?', KEY_F(1) }, "this help (any key returns)", do_help },
    { { KEY_UP, KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END }, "move the selection", do_move },
    { { KEY_LEFT, KEY_RIGHT }, "scroll the table's columns", do_scroll },
    { { '<', '>' }, "sort by the previous / next column", do_sort_step },
    { { KEY_F(6) }, "choose the sort column from a list", do_sort_menu },
    { { 'P' }, "sort by %CPU", do_sort_by },
    { { 'L' }, "sort by wake latency (99th percentile)", do_sort_by },
    { { 'I' }, "invert the sort order", do_invert },
    { { '/', KEY_F(3) }, "search a name or TID (F3 again: next match)", do_line },
    { { '\\', KEY_F(4) }, "filter by name or TID (Esc clears)", do_line },
    { { 27 }, "clear the filter", do_clear },
    { { ' ' }, "tag or untag the selected task (actions apply to tagged tasks)", do_tag },
    { { 'F' }, "follow the selected task as the order changes", do_flip },
    { { 'z' }, "pause / resume", do_flip },
    { { '+', '=' }, "refresh more often (halve the delay)", do_delay },
    { { '-' }, "refresh less often (double the delay)", do_delay },
    { { '[', ']' }, "replay slower / faster", do_speed },
    { { '1' }, "show / hide the per-CPU rows", do_flip },
    { { '\t' }, "next view: tasks, latency histogram, timeline", do_view },
    { { 'n', 'N' }, "nice down / up (-1 / +1) in the kernel", do_nice },
    { { 's' }, "set the task's slice (microseconds)", do_slice },
    { { 'f' }, "toggle an EEVDF feature switch", do_feature },
    { { 'R' }, "flip replace_on_release: re-place or keep fair tasks a higher class bounced", do_knob },
    { { 'm' }, "drop a named marker into the trace", do_line },
};
const size_t top_nactions = sizeof top_actions / sizeof top_actions[0];

/* The action bound to ch, or NULL. */
static const struct top_action *action_of(int ch)
{
    for (size_t i = 0; i < top_nactions; i++)
        for (size_t k = 0; k < TOP_ACTION_KEYS && top_actions[i].keys[k]; k++)
            if (top_actions[i].keys[k] == ch)
                return &top_actions[i];
    return NULL;
}

/* Returns 1 to quit. */
static int key(struct top_ui *ui, int ch)
{
    if (ui->help) {
        ui->help = false;
        return 0;
    }
    if (ui->input == IN_SORT_MENU || ui->input == IN_FEATURE_MENU) {
        key_menu(ui, ch);
        return 0;
    }
    if (ui->input != IN_NONE) {
        key_line(ui, ch);
        return 0;
    }
    ui->msg[0] = 0;
    const struct top_action *a = action_of(ch);
    return a ? a->run(ui, ch) : 0;
}

/* ---- the view ---- */

int top_run(const struct top_opts *o)
{
    const char *db = o->db;
    long long trace = o->trace;
    double at = o->at;
    char err[300] = "";
    /* a replay from --at starts reading a second earlier, so rates have a past */
    uint64_t at_ns = at >= 0 ? (uint64_t)(at * 1e9) : 0;
    uint64_t from = at_ns > TOP_RATE_WINDOW_NS ? at_ns - TOP_RATE_WINDOW_NS : 0;
    struct top_model *m = top_model_open(db, trace, from, err, sizeof err);
    /* --wait: the database (or its first trace) may not exist yet. Said
     * once, then looked for four times a second until it is there or the
     * time is up; what stops it then is the last error. */
    int64_t give_up = now_ms() + (int64_t)(o->wait_s * 1000);
    for (bool said = false; !m && o->wait_s > 0 && now_ms() < give_up;) {
        if (!said) {
            fprintf(stderr, "runq top: waiting up to %.0f s for %s (%s)\n", o->wait_s, db, err);
            said = true;
        }
        struct timespec nap = { 0, 250 * 1000 * 1000 };
        nanosleep(&nap, NULL);
        m = top_model_open(db, trace, from, err, sizeof err);
    }
    if (!m) {
        fprintf(stderr, "runq top: %s\n", err);
        return 1;
    }
    bool live = !strcmp(top_model_snapshot(m)->h.status, "recording") && at < 0;
    if (live) {
        top_model_close(m);
        if (!(m = top_model_open(db, trace, TOP_T_LIVE, err, sizeof err))) {
            fprintf(stderr, "runq top: %s\n", err);
            return 1;
        }
    }

    struct top_ui ui = {
        .m = m, .s = top_model_snapshot(m), .sort = TOP_COL_PCPU, .show_cpus = true, .live = live,
        .delay_ms = o->delay_ms, .speed = o->speed, .actions = top_actions, .nactions = top_nactions,
    };
    uint64_t t_view = at_ns > ui.s->h.now ? at_ns : ui.s->h.now;
    int rc = 0;
    if (top_model_update(m, live ? TOP_T_LIVE : t_view, err, sizeof err) != 0) {
        fprintf(stderr, "runq top: %s: %s\n", db, err);
        rc = 1;
        goto out;
    }
    rebuild_rows(&ui);
    if (term_start(&ui.caps) != 0) {
        rc = 1;
        goto out;
    }

    int64_t last_wall = now_ms(), next_refresh = last_wall + ui.delay_ms;
    int quit = 0;
    while (!quit && !term_signalled()) {
        int64_t now = now_ms();
        if (now >= next_refresh) {
            if (!ui.paused) {
                if (!live)
                    t_view += (uint64_t)((double)(now - last_wall) * 1e6 * ui.speed);
                /* A failed read (a damaged page) is the end of the view,
                 * not a line in the footer over a view that stopped
                 * moving: the message goes where a script sees it. */
                if (top_model_update(m, live ? TOP_T_LIVE : t_view, err, sizeof err) != 0) {
                    term_stop();
                    fprintf(stderr, "runq top: %s: %s\n", db, err);
                    rc = 1;
                    goto out;
                }
                if (t_view > ui.s->h.now)
                    t_view = ui.s->h.now; /* replay stops at the end */
                rebuild_rows(&ui);
            }
            last_wall = now;
            next_refresh = now + ui.delay_ms;
        }
        top_draw(&ui);
        int wait = (int)(next_refresh - now_ms());
        timeout(wait < 1 ? 1 : wait);
        int ch = getch();
        if (ch == ERR && term_hung_up())
            break;
        if (ch == ERR || ch == KEY_RESIZE)
            continue;
        quit = key(&ui, ch);
        /* more keys already typed: take them before drawing again */
        timeout(0);
        while (!quit && (ch = getch()) != ERR)
            if (ch != KEY_RESIZE)
                quit = key(&ui, ch);
    }
    int sig = term_signalled();
    term_stop();
    rc = sig ? 128 + sig : 0;
    if (ui.s->h.tasks_capped) /* said on the screen too; this stays after it */
        fprintf(stderr, "runq top: the trace has more than %d tasks: only the first %d (by utid) were shown\n",
                TOP_MAX_TASKS, TOP_MAX_TASKS);
out: /* every way out frees the rows: without a terminal they leaked */
    top_model_close(m);
    free(ui.rows);
    free(ui.tagged);
    return rc;
}
