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

/* "--name value" or "--name=value" at argv[*i]: its value (then *i is past
 * it), or NULL: not this flag, or (with *err set, said on stderr) no
 * value after it. */
const char *record_flag_arg(const char *name, int argc, char **argv, int *i, int *err);

/* runq record --linux (cli/record_linux.c): argv as cmd_record has it. */
int record_linux_main(int argc, char **argv);

#endif
