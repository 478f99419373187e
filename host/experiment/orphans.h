/*
 * Runs that end with the runq experiment that started them (issue 30).
 *
 * A run is a child process: a kernel run is `runq boot` (which starts
 * QEMU and `runq record`, each dying with it: host/engine/kernel/boot.c), a Linux run a
 * fork of runq experiment whose threads run the scenario and whose
 * recorder owns a tracing instance (host/engine/linux/engine.h). Killed with SIGKILL,
 * runq experiment can end none of them itself; so each run's child asks
 * Linux for SIGTERM when its parent dies (PR_SET_PDEATHSIG), on which
 * runq boot stops QEMU and a Linux run stops its threads and removes its
 * instance, as on a Ctrl-C.
 *
 * What can still outlive a runq experiment (its child ended by SIGKILL
 * too, or a run stuck past its SIGTERM) is found at the next start: every
 * process that carries this runq experiment's mark in its environment
 * (RUNQ_EXPERIMENT=PID:START, which exec passes on: runq boot, its QEMU
 * and its recorder) whose runq experiment no longer runs is ended. A
 * Linux run's child does not exec, so it carries no mark: PDEATHSIG ends
 * it, and its tracing instance, if it is left, is removed at the next
 * Linux run (host/engine/linux/tracefs.c, stale runq-PID instances).
 */
#ifndef RUNQ_CLI_ORPHANS_H
#define RUNQ_CLI_ORPHANS_H

#include <sys/types.h>

/* In a run's child, right after fork: SIGTERM when parent (the runq
 * experiment that forked it, from its one thread) dies, and the mark in
 * the environment for what it execs. If parent died before the request
 * took effect, the child exits at once (status 127). */
void orphans_die_with(pid_t parent);

/* Ends (SIGTERM, SIGKILL 3 s later) every process marked by a runq
 * experiment that no longer runs; a line on stderr for each. Processes
 * this user may not signal or read are left alone. */
void orphans_reap(void);

#endif
