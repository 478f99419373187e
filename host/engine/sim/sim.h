/*
 * `runq sim`: the scheduling policies run on the host, one quantum at a
 * time, on a workload written in a small text format (docs/sim.md).
 *
 * Two parts, one file each, the command's top and the format elsewhere:
 *   host/engine/sim/sim_gen.c    a random workload from a seed (`runq sim -s SEED`)
 *   host/engine/sim/sim.c        the workload loaded, the simulation loop, the output
 *   host/cli/sim.c               the flags and the help, into a struct sim_opts
 *   host/scenario/               the workload format: parse a file, print it back
 *
 * Every duration is in ns. The workload says what to run; nothing in it
 * depends on the policy code, so the parser and the generator can be read
 * without knowing EEVDF.
 */
#ifndef RUNQ_ENGINE_SIM_H
#define RUNQ_ENGINE_SIM_H

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

/* 0 if runq sim can run w; -1 with err "file:line: why" if not (a task
 * reads or writes a pipe; more CPUs than it models). Several CPUs are
 * modelled, and balanced by kernel/sched/balance_rules.c, when a task
 * may run on several, tasks are pinned apart, or a balancing switch is
 * on (docs/sim.md); else one. */
int sim_refuses(const struct scenario *w, char *err, size_t errlen);

/* Runs w on paper and fills r with what it measured (the engine "sim":
 * runtime, switches, lateness; no loop iterations). 0, or -1 with err if
 * runq sim refuses w. Not reentrant. */
int sim_scenario(const struct scenario *w, struct scn_result *r, char *err, size_t errlen);

/* A random problem: 2 to 5 tasks with random nice values, slices, arrivals
 * and patterns. The same seed gives the same workload everywhere: the
 * generator is its own xorshift, not rand(). */
void sim_generate(uint64_t seed, struct scenario *w);

/* What `runq sim` is asked (host/cli/sim.c fills it from the flags, and
 * has checked them: exactly one of seeded and file; check only with
 * seeded). */
struct sim_opts {
    bool seeded;        /* the workload is sim_generate(seed)'s */
    uint64_t seed;
    const char *file;   /* else the workload's file; "-": stdin */
    bool check;         /* seeded: print the answer (the schedule and the decisions) after the problem */
    bool decisions;     /* after the schedule, at every decision V and each task's vruntime, deadline, lag */
    bool numberline;    /* after the schedule, at every decision the number line (EEVDF only) */
    const char *policy; /* "rr" or "eevdf" in place of the workload's; NULL: the workload's */
    uint64_t run_ns;    /* how long to simulate in place of the workload's run; 0: the workload's */
    int nfeatures;      /* EEVDF feature switches set after the workload's, in order: */
    const char *features[SCN_MAX_FEATURES]; /* each "NAME=on" or "NAME=off", NAME a feature's */
};

/* `runq sim`: the workload o names, with o's policy, run and features in
 * place of its own; a seeded one printed as a problem (scn_print) and,
 * with check, its answer; a file's schedule, then the decisions asked.
 * Everything on stdout; an error is one line "runq sim: ..." on stderr.
 * Returns the exit status: 0; 1 when out of memory; 2 when the file
 * cannot be read or parsed, a --run is not a whole number of quanta or
 * longer than SIM_PRINT_MAX_QUANTA, or sim_refuses() the workload. Not
 * reentrant. */
int sim_print(const struct sim_opts *o);

#endif
