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
    /* the terminal's: lines scrolled past the view's first, and its
     * height (a scroll key moves half of it) */
    int scroll, rows;
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

/* ---- the commands ---- */

/* Keys a terminal sends that are no character (tui/step_curses.c maps
 * ncurses' codes to them). */
enum step_key {
    STEP_KEY_UP = 0x100,
    STEP_KEY_DOWN,
    STEP_KEY_LEFT,
    STEP_KEY_RIGHT,
    STEP_KEY_PGUP,
    STEP_KEY_PGDN,
};

/* What a command takes after its letter. */
enum step_arg {
    STEP_ARG_NONE,
    STEP_ARG_COUNT,  /* an optional count, in --plain ("n 10"); a key moves one */
    STEP_ARG_LINE,   /* a line: the terminal asks for it with the prompt */
    STEP_ARG_LETTER, /* an optional letter: on a terminal, the next key */
};

/*
 * runq step's commands, one row each: the one table the command
 * interpreter (step_command), the terminal's keys (tui/step_curses.c),
 * its bottom line, the help (step_keys_help) and docs/step.md's list of
 * keys (tests/tui/top_model_test.c checks them) are all made from. A row:
 *
 *   X(WORD, KEY, KEY2, ARG, SYNTAX, PROMPT, LABEL, KEEP_SCROLL, HELP, ACT)
 *
 * WORD: the --plain command's letter, and its key on a terminal (0: a
 * terminal's key only, which scrolls); KEY, KEY2: more keys for it (0:
 * none); ARG: what follows the letter; SYNTAX: the command as the help
 * writes it; PROMPT: the terminal's question for a line; LABEL: its word
 * on the terminal's bottom line (NULL: not there; rows in a row with one
 * label share it, "n/p event"); KEEP_SCROLL: the terminal keeps its
 * scroll after it (else back to the top); HELP: what it does, a line
 * (or two, split by a newline);
 * ACT: the function in tui/step.c that does it.
 */
#define STEP_COMMANDS(X)                                                                                            \
    X('n', STEP_KEY_RIGHT, 'l', STEP_ARG_COUNT, "n [K]", NULL, "event", false, "next event (K events on)",          \
      cmd_next)                                                                                                     \
    X('p', STEP_KEY_LEFT, 'h', STEP_ARG_COUNT, "p [K]", NULL, "event", false, "previous event (K events back)",     \
      cmd_next)                                                                                                     \
    X('N', 0, 0, STEP_ARG_NONE, "N", NULL, "pick", false, "next pick on the focus CPU", cmd_pick)                   \
    X('P', 0, 0, STEP_ARG_NONE, "P", NULL, "pick", false, "previous pick on the focus CPU", cmd_pick)               \
    X('b', 0, 0, STEP_ARG_LINE, "b TIME", "time (+us from the start, or 12ms, 1.5s; @ns absolute): ", "time", false, \
      "the last event at or before TIME: from the trace's\n"                                                         \
      "start 1500 (us), +12.5ms, 1s; or absolute, as SQL's ts:\n"                                                    \
      "@196052144 (ns), @196ms",                                                                                    \
      cmd_time)                                                                                                     \
    X('a', 0, 0, STEP_ARG_LINE, "a HOW", "align by (time, event, mark NAME, wake TASK): ", NULL, false,             \
      "--compare: align by time, event, mark NAME, wake TASK", cmd_align)                                          \
    X('g', 0, 0, STEP_ARG_LINE, "g N", "event number: ", "event", false, "go to event N", cmd_goto)                 \
    X('/', 0, 0, STEP_ARG_LINE, "/ TEXT", "search forward: ", "search", false,                                      \
      "search forward (task name, PICK, WAKE, ...)", cmd_search)                                                    \
    X('?', 0, 0, STEP_ARG_LINE, "? TEXT", "search back: ", NULL, false, "search back", cmd_search)                  \
    X('m', 0, 0, STEP_ARG_LETTER, "m [A]", NULL, "mark", true, "set mark A (a..z; a when none)", cmd_mark)          \
    X('\'', 0, 0, STEP_ARG_LETTER, "' [A]", NULL, "back", false, "return to mark A", cmd_mark)                      \
    X('c', 0, 0, STEP_ARG_LINE, "c N, c -", "cpu (- follows the events): ", "cpu", false,                          \
      "focus CPU N (number line, N/P), or follow the events", cmd_cpu)                                              \
    X('r', 0, 0, STEP_ARG_NONE, "r", NULL, "rewind", false, "rewind to the first event", cmd_rewind)                \
    X('q', 0, 0, STEP_ARG_NONE, "q", NULL, "quit", false, "quit", cmd_quit)                                         \
    X(0, ' ', STEP_KEY_PGDN, STEP_ARG_NONE, NULL, NULL, NULL, true, "scroll down half a screen", cmd_scroll)        \
    X(0, STEP_KEY_PGUP, 0, STEP_ARG_NONE, NULL, NULL, NULL, true, "scroll up half a screen", cmd_scroll)            \
    X(0, STEP_KEY_DOWN, 'j', STEP_ARG_NONE, NULL, NULL, NULL, true, "scroll down a line", cmd_scroll)               \
    X(0, STEP_KEY_UP, 'k', STEP_ARG_NONE, NULL, NULL, NULL, true, "scroll up a line", cmd_scroll)

struct step_cmd {
    char word;
    int keys[3];        /* the terminal's: WORD, KEY, KEY2 (0: none) */
    enum step_arg arg;
    const char *syntax, *prompt, *label;
    bool keep_scroll;
    const char *help;
    /* key: the word, or the terminal's key of a row without one; arg:
     * what followed the word. 0, or -1 with a one-line message in msg. */
    int (*act)(struct step *s, int key, const char *arg, char *msg, size_t msglen);
};
extern const struct step_cmd step_cmds[];
extern const size_t step_ncmds;

/* The row of a terminal's key (a character, or a STEP_KEY_*); NULL none. */
const struct step_cmd *step_cmd_of_key(int key);

/* A key's name as the help and docs/step.md write it: "n", "Space",
 * "→", "PgDn". */
static inline const char *step_key_name(int key, char buf[2])
{
    switch (key) {
    case ' ': return "Space";
    case STEP_KEY_UP: return "↑";
    case STEP_KEY_DOWN: return "↓";
    case STEP_KEY_LEFT: return "←";
    case STEP_KEY_RIGHT: return "→";
    case STEP_KEY_PGUP: return "PgUp";
    case STEP_KEY_PGDN: return "PgDn";
    default:
        buf[0] = (char)key;
        buf[1] = 0;
        return buf;
    }
}

/* A row's keys into buf, each between quote and quote, one space apart:
 * "n → l", or with quote "`", docs/step.md's "`n` `→` `l`". */
static inline void step_keys_text(char *buf, size_t n, char word, int key, int key2, const char *quote)
{
    int keys[3] = { word, key, key2 };
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < 3 && at < n; k++) {
        char one[2];
        if (!keys[k])
            continue;
        int w = snprintf(buf + at, n - at, "%s%s%s%s", at ? " " : "", quote, step_key_name(keys[k], one), quote);
        at += w > 0 ? (size_t)w : 0;
    }
}

/* The keys and --plain commands, a row each, for `runq step --help`:
 * "keys (and --plain commands):" then "  SYNTAX  (KEYS)  HELP". A
 * constant string, made from step_cmds once. */
const char *step_keys_help(void);

/* The terminal's bottom line: " n/p event  N/P pick  ...  q quit ". */
void step_keys_line(char *buf, size_t n);

/*
 * Runs one command line: a row's word and what follows it (step_cmds;
 * "n 10", "b 12.5ms", "/ WAKE", "m a"). q sets s->quit. Returns 0, or -1
 * with a one-line message in msg (the cursor does not move).
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
/* Event i, a LEAVE or JOIN `migrate`: why its task moved, as a pick is
 * explained: the rule (the MIGRATE record's reason) and what the CPUs
 * held then, e.g. "moved from CPU 2 to CPU 0: newidle pull; CPU 2 had 3
 * runnable (2 waiting), CPU 0 was going idle", then every CPU's load.
 * Nothing for other events. */
void step_explain_move(const struct step_view *v, int i, struct step_text *t);

/* `runq step` front ends. */
int step_plain_main(struct step *s, FILE *in, FILE *out, int width);
int step_curses_main(struct step *s);

#endif
