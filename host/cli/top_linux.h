/*
 * runq top --linux's top (host/cli/top_linux.c): its flags and its help.
 * The view itself is tui/top_linux.h's.
 */
#ifndef RUNQ_CLI_TOP_LINUX_H
#define RUNQ_CLI_TOP_LINUX_H

struct top_linux_opts;

/* The flags of `runq top --linux` (argv as cmd_top has it, --linux
 * anywhere in it) into o. Returns -1 to go on, or the exit status: 0 after
 * --help, 2 after a usage error (both printed). */
int top_linux_flags(int argc, char **argv, struct top_linux_opts *o);

#endif
