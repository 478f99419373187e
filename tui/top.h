/*
 * `runq top`: the view's own state (what is selected, sorted, filtered,
 * shown), shared by the loop (tui/top.c) and the panels (tui/draw.c), and
 * the loop's entry for the command (host/cli/top.c). The
 * numbers themselves come from the model (tui/model.h), which knows nothing
 * of this.
 */
#ifndef RUNQ_TUI_TOP_H
#define RUNQ_TUI_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/model.h"
#include "tui/table.h"
#include "tui/term.h"

enum top_view { VIEW_TASKS, VIEW_LATENCY, VIEW_MAP, VIEW_NR };

/* What the footer line is doing: keys, or reading a line or a choice. */
enum top_input { IN_NONE, IN_SEARCH, IN_FILTER, IN_SLICE, IN_MARK, IN_SORT_MENU, IN_FEATURE_MENU };

struct top_ui {
    const struct top_model *m;
    const struct top_snapshot *s;
    struct term_caps caps;

    int *rows; /* visible tasks, sorted: indexes into s->tasks */
    size_t nrows, rows_cap;
    size_t sel, scroll; /* selected row, first row shown */
    int64_t sel_utid;
    int hscroll;        /* columns scrolled off after the first two */
    bool *tagged;       /* by task index */
    size_t tagged_cap;

    enum top_col sort;
    bool invert, follow, paused, show_cpus, help, live;
    enum top_view view;
    int delay_ms;
    double speed;       /* replay: trace seconds a wall second */

    enum top_input input;
    char line[64];      /* what is being typed */
    char filter[64];
    int menu_sel;
    char msg[160];      /* last action's result, shown in the footer */
    int task_rows;      /* rows the task table had at the last draw (PgUp/PgDn) */
};

/* What `runq top` was asked for (host/cli/top.c reads it from the flags). */
struct top_opts {
    const char *db;   /* the trace database */
    long long trace;  /* which trace; 0: the newest */
    int delay_ms;     /* refresh period */
    double speed;     /* replay: trace seconds a wall second */
    double at;        /* replay from this trace time (s since boot); < 0: from the start, or live */
};

/* Opens the trace and runs the view until q or a signal. Errors go to
 * stderr as one line, "runq top: ...". Returns the exit status: 0, 1
 * (no such database or trace, no terminal), 128+signal. */
int top_run(const struct top_opts *o);

/* A decimal number in [lo, hi] into *out: digits with at most one '.',
 * no sign, no exponent. 0, or -1 (out untouched). For the flags and for
 * the numbers typed into the view. */
int top_parse_dec(const char *s, double lo, double hi, double *out);

/* Draws the whole screen from ui (one function a panel, in draw.c). */
void top_draw(struct top_ui *ui);

/* The view's actions: the keys that do each, what it does, and the
 * function that does it (given the key; returns 1 to quit). This one table
 * drives the key dispatch, the help screen and `runq top --help`, whose
 * list docs/top.md must match (tests/cli_test.sh checks). */
#define TOP_ACTION_KEYS 6
struct top_action {
    int keys[TOP_ACTION_KEYS]; /* ncurses key codes; unused ones 0 */
    const char *what;
    int (*run)(struct top_ui *ui, int key);
};
extern const struct top_action top_actions[];
extern const size_t top_nactions;
/* A key's name as the help shows it: "q", "F10", "Up", "Space". buf holds
 * it unless the name is a constant. */
const char *top_key_name(int code, char *buf, size_t size);
/* An action's keys as the help shows them: "q  F10", "Up Down PgUp". */
void top_action_keys(const struct top_action *a, char *buf, size_t size);

#endif
