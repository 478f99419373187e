/*
 * runq record as functions: the stream recorder for runq boot, which
 * records a deterministic run's stream file in its own process
 * (host/engine/kernel/boot.c), and runq record --linux's two halves (host/cli/record_linux.c).
 */
#ifndef RUNQ_CLI_RECORD_H
#define RUNQ_CLI_RECORD_H

#include <stdbool.h>

/* What `runq record` (the stream form) was asked for. */
struct record_opts {
    const char *db;           /* the database to add the trace to */
    const char *sock, *file;  /* the stream: exactly one of them; file "-" is stdin */
    bool follow;              /* at the file's end wait for more, until END or a signal */
    bool require_end;         /* a stream without its END record is a failure */
};

/* Records the stream o names into o->db; says in *stored whether the
 * trace reached the database, marked complete or incomplete: with
 * require_end the exit status is 1 for a stream without its END record
 * too, and only a trace that was not stored makes the stream file worth
 * keeping. Returns the exit status (0, 1, 128+signal). */
int record_stream(const struct record_opts *o, bool *stored);

/* cmd_record's stream form (argv as `runq record` takes it): the flags,
 * then record_stream(). (runq boot's record_file() still builds this
 * argv; record_stream() is the call it wants.) */
int record_main(int argc, char **argv, bool *stored);

struct linux_record_opts;

/* The flags of runq record --linux (argv as cmd_record has it, --linux
 * anywhere in it) into o. Returns -1 to go on, or the exit status: 0 after
 * --help, 2 after a usage error (both printed). */
int record_linux_flags(int argc, char **argv, struct linux_record_opts *o);

/* Records the host's Linux as o says, until its duration or a signal,
 * and prints the trace id. Returns the exit status, 0 or 1. */
int record_linux(struct linux_record_opts *o);

#endif
