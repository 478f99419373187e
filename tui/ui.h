/*
 * `runq top`'s view state and what draws it: the selection, sort, filter
 * and input of the view (struct top_ui), the shape of an action, and the
 * panels' entry (draw.c). The loop (top.c) owns the state and the actions
 * table and hands both to the panels; the panels include this header, not
 * the loop's, so the two files do not lean on each other.
 */
#ifndef RUNQ_TUI_UI_H
#define RUNQ_TUI_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/model.h"
#include "tui/table.h"
#include "tui/term.h"

struct top_action;

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
    /* The actions table (top.c's top_actions), for the help screen: the
     * panels are given it rather than reaching up for it. */
    const struct top_action *actions;
    size_t nactions;
};

/* Draws the whole screen from ui (one function a panel, in draw.c). */
void top_draw(struct top_ui *ui);

/* The view's actions: the keys that do each, what it does, and the
 * function that does it (given the key; returns 1 to quit). This one table
 * drives the key dispatch, the help screen and `runq top --help`, whose
 * list docs/top.md must match (tests/cli/cli_test.sh checks). */
#define TOP_ACTION_KEYS 6
struct top_action {
    int keys[TOP_ACTION_KEYS]; /* ncurses key codes; unused ones 0 */
    const char *what;
    int (*run)(struct top_ui *ui, int key);
};
/* A key's name as the help shows it (draw.c): "q", "F10", "Up", "Space". buf holds
 * it unless the name is a constant. */
const char *top_key_name(int code, char *buf, size_t size);
/* An action's keys as the help shows them (draw.c): "q  F10", "Up Down PgUp". */
void top_action_keys(const struct top_action *a, char *buf, size_t size);

#endif
