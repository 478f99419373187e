/*
 * `runq sim`: the scheduling policies run on the host, one quantum at a
 * time, on a workload written in a small text format (docs/sim.md).
 *
 * Two parts, one file each, and the format in host/scenario/:
 *   host/engine/sim/sim_gen.c    a random workload from a seed (`runq sim -s SEED`)
 *   host/engine/sim/sim.c        the subcommand: flags, the simulation loop, the output
 *   host/scenario/        the workload format: parse a file, print it back
 *
 * Every duration is in ns. The workload says what to run; nothing in it
 * depends on the policy code, so the parser and the generator can be read
 * without knowing EEVDF.
 */
#ifndef RUNQ_CLI_SIM_H
#define RUNQ_CLI_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host/scenario/scenario.h"

/* A workload is a scenario (host/scenario/scenario.h): the format grew out of
 * runq sim's, which it still reads unchanged. */

/* runq sim prints a schedule of at most this many quanta; longer
 * scenarios run through sim_scenario (runq experiment --engine sim). */
#define SIM_PRINT_MAX_QUANTA 100000

/* 0 if runq sim can run w; -1 with err "file:line: why" if not (it models
 * one CPU: a task that may run on several, or tasks on two CPUs). */
int sim_refuses(const struct scenario *w, char *err, size_t errlen);

/* Runs w on paper and fills r with what it measured (the engine "sim":
 * runtime, switches, lateness; no loop iterations). 0, or -1 with err if
 * runq sim refuses w. Not reentrant. */
int sim_scenario(const struct scenario *w, struct scn_result *r, char *err, size_t errlen);

/* A random problem: 2 to 5 tasks with random nice values, slices, arrivals
 * and patterns. The same seed gives the same workload everywhere: the
 * generator is its own xorshift, not rand(). */
void sim_generate(uint64_t seed, struct scenario *w);

#endif
