/*
 * runq top --linux (tui/top_linux.c): the live view of the host's own
 * scheduler. Its flags and help, which fill struct top_linux_opts, are
 * host/cli/top_linux.h's.
 */
#ifndef RUNQ_TUI_TOP_LINUX_H
#define RUNQ_TUI_TOP_LINUX_H

#include <stdint.h>

struct top_linux_opts {
    uint64_t cpus;      /* CPUs to show (bit n: CPU n); 0: every online one */
    int tenths;         /* refresh period, tenths of a second */
    int frames;         /* print this many frames as text and end; 0: the curses screen */
    const char *record; /* also record those CPUs into this database; NULL: store nothing */
};

/* Runs the view until q, a signal or its frames are out. Returns the exit
 * status: 0, or 1 when Linux's scheduler cannot be seen (not root, no BTF)
 * or the recording failed (said on stderr). */
int top_linux(const struct top_linux_opts *o);

#endif
