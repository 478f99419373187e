/*
 * The shell on COM1. It runs the boot script (the command line after "--")
 * and then reads commands from the console, one per line.
 */
#ifndef RUNQ_SHELL_H
#define RUNQ_SHELL_H
#include "../lib/types.h"

/* Starts the shell task on CPU 0. tests_ok: whether the boot self-tests
 * passed; poweroff reports it through QEMU's exit status. */
void shell_start(const char *script, bool tests_ok);

/* The most words a command line may have: a longer one is refused. */
#define SHELL_MAX_WORDS 16

/* Runs one command line (splitting it in place); false if the command
 * failed. */
bool shell_exec(char *line);
/* shell_exec for a line from the host (the trace port's control lines;
 * kmain gives it to the tracer): its answer gets a line of its own and a
 * prompt follows it. */
bool shell_exec_host(char *line);

/* Commands live in tables of this shape, one table per file. */
struct shell_cmd {
    const char *name;
    const char *usage;
    const char *help;
    bool (*run)(int argc, char **argv); /* false: failed (message printed) */
};

bool sched_cmd(int argc, char **argv); /* sched_cmd.c */
void sched_cmd_help(void);
bool vser_cmd(int argc, char **argv); /* vser_cmd.c */

/* Any command's failure after boot makes poweroff report failure too. */
extern bool shell_failed;

#endif
