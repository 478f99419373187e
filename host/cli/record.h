/*
 * runq record's two forms, between host/cli/record.c, which takes the
 * command and picks the form, and host/cli/record_linux.c, the --linux
 * form's top (the recording itself is host/engine/linux/record.h's).
 */
#ifndef RUNQ_CLI_RECORD_H
#define RUNQ_CLI_RECORD_H

struct linux_record_opts;

/* The flags of runq record --linux (argv as cmd_record has it, --linux
 * anywhere in it) into o. Returns -1 to go on, or the exit status: 0 after
 * --help, 2 after a usage error (both printed). */
int record_linux_flags(int argc, char **argv, struct linux_record_opts *o);

/* Records the host's Linux as o says, until its duration or a signal,
 * and prints the trace id. Returns the exit status, 0 or 1. */
int record_linux(struct linux_record_opts *o);

#endif
