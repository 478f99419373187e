/*
 * The terminal for `runq top`: ncurses set up and torn down, colour with a
 * monochrome fallback, UTF-8 with an ASCII fallback, and SIGINT/SIGTERM
 * turned into a flag the loop sees so the terminal is always restored.
 *
 * Colour is off when the terminal has none or NO_COLOR is set; UTF-8 is on
 * when the locale's codeset is UTF-8 and RUNQ_ASCII is not set.
 */
#ifndef RUNQ_TUI_TERM_H
#define RUNQ_TUI_TERM_H

#include <stdbool.h>

/* What a piece of text is; term_attr() says how it looks. */
enum term_role {
    TR_NORMAL,
    TR_TITLE,   /* the header's first words, panel titles */
    TR_COLHDR,  /* column header rows */
    TR_SORTCOL, /* the sort column's header */
    TR_SELECT,  /* the selected row */
    TR_TAG,     /* tagged rows */
    TR_WARN,    /* loss and errors: non-zero counters */
    TR_DIM,     /* dashes, switches that are off */
    TR_GOOD,    /* utilisation bar, low */
    TR_MID,     /* bar, middle */
    TR_HIGH,    /* bar, high */
    TR_KEY,     /* footer key names */
    TR_NR
};

struct term_caps {
    bool color, utf8;
};

/* Installs the signal handlers, starts ncurses. Returns 0, or -1 with a
 * one-line message printed (no terminal). */
int term_start(struct term_caps *caps);

/* Restores the terminal. Safe to call twice, and from atexit. */
void term_stop(void);

/* SIGINT, SIGTERM or SIGHUP received since term_start (the signal), else 0. */
int term_signalled(void);
/* The terminal is gone (stdin hung up, or closed): its reads give ERR at
 * once forever, which the view's loop would take for a quiet keyboard. */
bool term_hung_up(void);

/* The attributes for a role (colour pair, or bold/reverse/dim). */
int term_attr(enum term_role r);

#endif
