/*
 * `runq top`: the loop's entry for the command (host/cli/top.c) and its
 * actions table; the view's state and the panels are tui/ui.h's. The
 * numbers themselves come from the model (tui/model.h), which knows nothing
 * of this.
 */
#ifndef RUNQ_TUI_TOP_H
#define RUNQ_TUI_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/ui.h"

/* What `runq top` was asked for (host/cli/top.c reads it from the flags). */
struct top_opts {
    const char *db;   /* the trace database */
    long long trace;  /* which trace; 0: the newest */
    int delay_ms;     /* refresh period */
    double speed;     /* replay: trace seconds a wall second */
    double at;        /* replay from this trace time (s since boot); < 0: from the start, or live */
    double wait_s;    /* > 0: wait up to this long for the database and a trace in it (runq run
                         starts the view beside a recorder that has not made it yet); 0: fail at once */
};

/* Opens the trace and runs the view until q or a signal. Errors go to
 * stderr as one line, "runq top: ...". Returns the exit status: 0, 1
 * (no such database or trace, none yet after o->wait_s, no terminal),
 * 128+signal. */
int top_run(const struct top_opts *o);

/* A decimal number in [lo, hi] into *out: digits with at most one '.',
 * no sign, no exponent. 0, or -1 (out untouched). For the flags and for
 * the numbers typed into the view. */
int top_parse_dec(const char *s, double lo, double hi, double *out);

/* The view's actions (tui/ui.h says their shape): the one table behind the
 * key dispatch, the help screen and `runq top --help`. */
extern const struct top_action top_actions[];
extern const size_t top_nactions;

#endif
