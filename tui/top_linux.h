/*
 * runq top --linux (tui/top_linux.c): the live view of the host's own
 * scheduler, its flags and its help.
 */
#ifndef RUNQ_CLI_TOP_LINUX_H
#define RUNQ_CLI_TOP_LINUX_H

#include <stdint.h>

struct top_linux_opts {
    uint64_t cpus;      /* CPUs to show (bit n: CPU n); 0: every online one */
    int tenths;         /* refresh period, tenths of a second */
    int frames;         /* print this many frames as text and end; 0: the curses screen */
    const char *record; /* also record those CPUs into this database; NULL: store nothing */
};

/* The flags of `runq top --linux` (argv as cmd_top has it, --linux
 * anywhere in it) into o. Returns -1 to go on, or the exit status: 0 after
 * --help, 2 after a usage error (both printed). */
int top_linux_flags(int argc, char **argv, struct top_linux_opts *o);

/* Runs the view until q, a signal or its frames are out. Returns the exit
 * status: 0, or 1 when Linux's scheduler cannot be seen (not root, no BTF)
 * or the recording failed (said on stderr). */
int top_linux(const struct top_linux_opts *o);

#endif
