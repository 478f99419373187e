/*
 * The scenario interpreter: runs a scenario the host compiled into `scn`
 * lines (trace/scenario.h has the lines, the answer and the draws;
 * docs/scenarios.md the format they come from). Not an experiment written
 * into the kernel: the tasks, their CPUs, nice values, slices and
 * patterns all come from the lines.
 *
 * The shell task feeds it one line at a time (scn_line) and runs it on
 * `scn start`, which returns after the run with the results printed on
 * the console. One scenario at a time: the shell is one task.
 */
#ifndef RUNQ_SCHED_SCN_H
#define RUNQ_SCHED_SCN_H
#include "../lib/types.h"

/* One `scn` line's words after "scn". False with a console message if it
 * is malformed or cannot be run; the scenario being built is then
 * dropped, so a later `scn start` fails too. */
bool scn_line(int argc, char **argv);

#endif
