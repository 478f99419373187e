/*
 * The model behind `runq step`: a cursor on a trace's events, the commands
 * that move it, and the view at the cursor rendered as plain lines. No
 * ncurses here; tui/step_plain.c prints the lines for scripts and tests,
 * tui/step_curses.c puts them on a screen.
 *
 * The view at event i shows every CPU's queue after event i is applied
 * (db/replay.h says how it is rebuilt). When event i is a PICK it also says
 * why that task won, worked out from the queue just before the pick: under
 * EEVDF the eligible task with the earliest deadline, or current kept by
 * RUN_TO_PARITY, or a waker cutting in by PREEMPT_SHORT; under the round
 * robin the first runnable task in the list. Every other task on the queue
 * is listed with the reason it was passed over.
 *
 * What the trace does not hold is shown as "?" and explains nothing: a
 * Linux trace recorded from tracefs has no V, vruntime, deadline or lag,
 * so its queues show "?" in those columns and eligibility, draw no number
 * line, and a pick is explained by what the trace has (who ran, why Linux
 * switched, as far as sched_switch says) and the line that the EEVDF
 * state was not recorded.
 *
 * With two traces (--compare) the second view follows the first by guest
 * time: it sits on its last event at or before the first's.
 */
#ifndef RUNQ_TUI_STEP_H
#define RUNQ_TUI_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "db/replay.h"

struct step_view {
    struct replay rp;
    struct rp_state st;
    int cur;            /* the event shown, -1 before the first */
    char label[128];    /* "trace 2 (rr)"; another engine's named: "trace 1 (linux 6.18.44, eevdf)" */
};

#define STEP_MARKS 26

/* How view 1 follows view 0 (--compare): which of its events is "the same
 * moment" as view 0's. */
enum step_align {
    STEP_ALIGN_TIME,  /* the same time since each trace's start (default) */
    STEP_ALIGN_EVENT, /* the same event number */
    STEP_ALIGN_MARK,  /* the same time since each trace's first mark align_arg */
    STEP_ALIGN_WAKE,  /* the same wakeup of task align_arg: its Nth in each */
};

struct step {
    struct step_view v[2];
    int nviews;         /* 1, or 2 with --compare */
    enum step_align align;
    char align_arg[32]; /* the mark's or the task's name */
    int focus_cpu;      /* -1: follow the event's CPU */
    int marks[STEP_MARKS];
    char last_search[64];
    bool quit;
};

/* Lines of text, each without "\n" and fit for a terminal: step_text_add
 * writes a control byte of a name (the database's text) as \xHH
 * (db/visible.h). */
struct step_text {
    char **line;
    int n, cap;
};
void step_text_add(struct step_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void step_text_free(struct step_text *t);

/* Opens the views: traces a (and b when b_id >= 0; b_db NULL: the same
 * database). Returns 0, or -1 after printing "runq step: ...". */
int step_open(struct step *s, const char *db, int64_t a_id, const char *b_db, int64_t b_id);
void step_close(struct step *s);

/*
 * Runs one command line (the keys of the ncurses front end, as words):
 *   n [K] / p [K]      next / previous event (K times)
 *   N / P              next / previous PICK on the focus CPU
 *   b TIME             the last event at or before TIME: +T or T from the
 *                      trace's start (us; or 12ms, 1.5s), @T absolute, as
 *                      SQL's ts (ns; or with a unit)
 *   a HOW              how view 1 follows view 0: time, event, mark NAME,
 *                      wake TASK (--compare)
 *   g N                event number N
 *   / TEXT  ? TEXT     search forward / backward in event lines (task, type)
 *   m [A]  ' [A]       set mark A (default a) / return to it
 *   c N | c -          focus CPU N / follow the event's CPU
 *   r                  rewind to the first event
 *   q                  quit (sets s->quit)
 * Returns 0, or -1 with a one-line message in msg (the cursor does not move).
 */
int step_command(struct step *s, const char *cmd, char *msg, size_t msglen);

/* Sets how view 1 follows view 0 from "time", "event", "mark NAME" or
 * "wake TASK". 0, or -1 with why in msg (a mark or task neither trace
 * has). */
int step_set_align(struct step *s, const char *how, char *msg, size_t msglen);

/* Moves view 0 to event i and view 1 (if any) to the same moment, as
 * s->align says. */
void step_goto(struct step *s, int i);

/* Renders view k (its event, queues, number line, explanation) into t,
 * in `width` columns. */
void step_render(const struct step *s, int k, int width, struct step_text *t);

/* The explanation of the PICK at event i of view k, appended to t; nothing
 * when event i is not a PICK. */
void step_explain_pick(const struct step_view *v, int i, struct step_text *t);

/* The explanation of the JOIN by waking at event i, appended to t: from
 * the wakeup check it carries (trace format 3), why the woken task
 * preempted current or not, or why it was not asked, and the decision the
 * trace shows next; before format 3, only when no pick followed it (the
 * wakeup did not preempt: Linux takes no decision then), from the rebuilt
 * queue. Nothing for other events, or on a round-robin trace. */
void step_explain_join(const struct step_view *v, int i, struct step_text *t);

/* `runq step` front ends. */
int step_plain_main(struct step *s, FILE *in, FILE *out, int width);
int step_curses_main(struct step *s);

#endif
