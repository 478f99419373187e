/*
 * runq record as a function, for runq boot, which records a deterministic
 * run's stream file in its own process (cli/boot.c).
 */
#ifndef RUNQ_CLI_RECORD_H
#define RUNQ_CLI_RECORD_H

#include <stdbool.h>

/* cmd_record (argv as `runq record` takes it), which also says in *stored
 * whether the trace reached the database, marked complete or incomplete:
 * with --require-end the exit status is 1 for a stream without its END
 * record too, and only a trace that was not stored makes the stream file
 * worth keeping. */
int record_main(int argc, char **argv, bool *stored);

#endif
