/*
 * The kernel command line (from hvm_start_info):
 *
 *     sched=rr|eevdf  hz=100|250|1000  test=all|NAME  cpus=N  lab_bugs=1  trace=on|off
 *     host_crash=on|off  seed=N  -- cmd; cmd; ...
 *
 * Defaults: sched=eevdf hz=250, every CPU the firmware lists. lab_bugs=1
 * allows the lab-only switches that put known bugs back (LAB_LEAVE_BUG).
 * host_crash=on lets the host's run lines name crash (trace/control.h):
 * for tests of the panic path only. seed=N varies the experiments' random
 * gaps (sched probe): 0, the default, gives the documented numbers; a lab
 * gives each student's scenarios the student's seed.
 *
 * Everything after " -- " is shell commands, separated by ';', run in order
 * by the shell before it reads the console. A bad option stops the boot
 * with a message naming it.
 */
#ifndef RUNQ_CMDLINE_H
#define RUNQ_CMDLINE_H
#include "lib/types.h"
#include "sched/policy.h"
#include "../trace/control.h"

#define CMDLINE_MAX RUNQ_CMDLINE_MAX

struct boot_config {
    const struct sched_policy *policy;
    unsigned hz;
    unsigned max_cpus;
    bool lab_bugs;
    bool trace;      /* trace=off: leave the trace port to the vser command */
    bool host_crash; /* host_crash=on: the host may run crash */
    u64 seed;        /* seed=N: the experiments' variant (0: the documented one) */
    char test[64];
    char script[CMDLINE_MAX]; /* commands after "--" */
};

void cmdline_parse(const char *line, struct boot_config *cfg);
extern struct boot_config boot_config;

#endif
