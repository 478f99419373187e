/*
 * The table of `runq` subcommands.
 *
 * `runq NAME args...` calls cmd_NAME(argc, argv) with argv[0] == "NAME" and
 * exits with what it returns. Every subcommand keeps the same contract:
 *
 *   - returns the process exit status: 0 success, 1 failure, 2 usage error
 *     (bad flag or value), 128+signal when interrupted;
 *   - `--help` (or `-h`) prints its help to stdout and returns 0;
 *   - a usage error prints one line to stderr, starting "runq NAME: ", and
 *     returns 2.
 *
 * To add a subcommand, add one X(name, "summary") line below and define
 * `int cmd_name(int argc, char **argv)` in host/cli/name.c (`run` is the one
 * exception: it shares host/cli/boot.c with `boot`). The prototype, the
 * dispatch entry and the line in `runq help` all come from that one line.
 * An entry point reads the flags, prints the help, and calls the module
 * that does the work; host/cli/ is the top of the host, so no other module
 * includes this header. docs/architecture.md lists each command's file,
 * and tests/layers.sh checks both.
 */
#ifndef RUNQ_CLI_H
#define RUNQ_CLI_H

#include <stddef.h>

#define RUNQ_COMMANDS(X)                                                        \
    X(boot, "boot the kernel in QEMU, run commands or tests, exit with the verdict") \
    X(run,  "boot the kernel to its interactive shell") \
    X(sim,  "run a policy on the host on a workload file and print the schedule") \
    X(record, "store a trace stream from QEMU's socket or a file in an SQLite database") \
    X(sql,    "run read-only SQL on a trace database") \
    X(report, "canned reports on a trace: latency, share, decisions, loss; fidelity: Linux's picks replayed") \
    X(top,    "live top-like view of a trace: lag, deadline, V, wake latency; replays finished ones") \
    X(step,   "step through a recorded trace decision by decision, with why each task won") \
    X(lab,    "scheduler labs: predict, run deterministically, compare, step through; check answers") \
    X(experiment, "run a scenario, or a matrix of it, on the kernel, the host's Linux or paper; print its table") \
    X(merge,  "merge runq databases into one, renumbering ids; shards of an experiment become one") \
    X(export, "write a trace for Perfetto (ftrace text): CPU tracks, wakeups, EEVDF counters, gaps") \
    X(plot,   "draw a figure of a trace database as PNG or SVG: timeline, latency, experiment")

#define RUNQ_DECLARE_CMD(name, summary) int cmd_##name(int argc, char **argv);
RUNQ_COMMANDS(RUNQ_DECLARE_CMD)
#undef RUNQ_DECLARE_CMD

/* `runq run --engine ...` (host/cli/experiment.c): runq experiment's flags
 * under run's name, usage and help, then the experiment's work; cmd_run
 * hands it its argv when --engine is among the flags. */
int run_on_engine(int argc, char **argv);

struct cli_cmd {
    const char *name;
    const char *summary;            /* one line, shown by `runq help` */
    int (*fn)(int argc, char **argv);
};

/* Built from RUNQ_COMMANDS in host/cli/main.c, in table order. */
extern const struct cli_cmd cli_cmds[];
extern const size_t cli_ncmds;

#endif
