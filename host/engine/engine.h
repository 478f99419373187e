/*
 * The engine interface: what runs a scenario and says what it measured.
 * `runq experiment` looks an engine up by name (host/engine/engines.h)
 * and calls only these ops; each engine implements them in its folder:
 *
 *   host/engine/kernel/kengine.c  runq's kernel under QEMU: `runq boot
 *                                 --record` in a child, its console read back
 *   host/engine/linux/engine.c    the host's Linux: a child's threads,
 *                                 recorded from tracefs
 *   host/engine/sim/sengine.c     paper: the policy on the host, in this
 *                                 process
 *
 * A run's life, as the caller drives it:
 *   1. refuses(), for every cell before any run starts: a refusal is the
 *      caller's usage error, said with the cell;
 *   2. start(): either the run ends inside it (finish is NULL: on paper),
 *      or it leaves a child process in run->pid;
 *   3. the caller waits for that child (wait(), among its other runs') and
 *      gives its status to finish(), which reads what the run left.
 * At most jobs() runs of one engine are under way at once. The caller
 * never mixes engines (one's runs all end before the next's start), so a
 * Linux run never shares the host with a kernel run's QEMU.
 */
#ifndef RUNQ_ENGINE_H
#define RUNQ_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "host/scenario/scenario.h"

/* The most runs of one engine at once anyone may ask for. */
#define ENGINE_MAX_JOBS 64

/* What every run of an experiment is given: the same for all its runs. */
struct engine_settings {
    const char *file;     /* the scenario file, as given (a Linux trace's source names it) */
    const char *db;       /* the run database each run records its trace into; NULL: metrics only */
    int jobs;             /* runs at once, as asked; 0: the engine's own default */
    int timeout;          /* kernel: give up on a run after this many wall-clock seconds */
    bool realtime;        /* kernel: without icount (real time, noisy), so one run at a time */
    bool allow_rt_hog;    /* linux: RT tasks that never sleep may hold every host CPU */
    bool quiet;           /* no notes on stderr */
    /* Set (to the signal) when a signal asks the runs to stop: a run in
     * this process or a forked child (which inherits the handler that sets
     * it) ends early. */
    const volatile sig_atomic_t *stop;
    /* Called first in a run's child, right after fork, with the caller's
     * pid (runq experiment: orphans_die_with, so a run ends with it); NULL:
     * nothing. */
    void (*in_child)(pid_t parent);
};

/* What others took of a run's CPUs in its window (a Linux run's, from its
 * trace; else not known): the time that was neither the scenario's nor
 * idle, the time the trace cannot account for counted with it. */
struct engine_foreign {
    bool known;
    uint64_t cpus;       /* the scenario's CPUs */
    uint64_t ns;         /* the sum over them, unknown time included */
    uint64_t unknown_ns; /* of which the trace cannot account for */
    uint64_t cpu_ns[64]; /* each one's, unknown time included */
};

/* One run. The caller fills number, params and sc; the engine the rest. */
struct engine_run {
    int number;          /* the run's number in its experiment: names its files */
    char params[256];    /* its cell's parameters, "k=v k=v" ("": no axes) */
    struct scenario sc;  /* its cell, seed set */
    pid_t pid;           /* start(): the child that runs it; 0: none (over, or on paper) */
    /* start(): the files the run leaves in dir ("": none): log is the one a
     * failed run's message points to (ops->log_name says what it holds),
     * aux the engine's other one. The caller removes both after a good
     * run and keeps them after a failure. */
    char log[512], aux[512];
    struct engine_foreign foreign; /* finish(): what others took of its CPUs */
};

/* The host's own rules, from an engine that runs on the host (linux),
 * for the engines beside it in one experiment (issue 31). */
struct engine_host_rules {
    char describe[768]; /* one line for people: "LAG_CLAMP_MAX_SLICE on; base slice ..." */
    /* Each of runq's switches the host names and sets otherwise than
     * runq's default, unless the scenario sets it itself (a feature line,
     * a vary of feature.NAME, or of switch, which sets them all): what the
     * other engines take. */
    int n;
    const char *feature[SCN_MAX_FEATURES]; /* as scn_set_feature takes it */
    bool on[SCN_MAX_FEATURES];
    int agree; /* switches the host names with runq's default value */
};

struct engine_ops {
    const char *name;     /* "kernel": what --engine takes, a run's engine column */
    const char *log_name; /* what run->log holds, for a failure's message ("console"); NULL if it never fails in finish */
    /* 0 if it can run s, else -1 with why in err (one line, no newline). */
    int (*refuses)(const struct engine_settings *e, const struct scenario *s, char *err, size_t errlen);
    /* Runs of this engine at once (>= 1, at most ENGINE_MAX_JOBS). */
    int (*jobs)(const struct engine_settings *e);
    /* Starts run r, its files in dir. 0, or -1 with err: with finish NULL
     * the run is over (0: *res filled; -1: it failed, err says why); else
     * 0 means r->pid runs it, -1 that nothing started. */
    int (*start)(const struct engine_settings *e, struct engine_run *r, const char *dir, struct scn_result *res,
                 char *err, size_t errlen);
    /* A child's end (status as wait() gives it): 0 with *res filled and
     * *trace its trace's id in e->db (0: none), or -1 with why. NULL: the
     * runs end inside start(). */
    int (*finish)(const struct engine_settings *e, struct engine_run *r, int status, struct scn_result *res,
                  int64_t *trace, char *why, size_t len);
    /* --dry-run: what it would run for cell, the experiment's first (cell
     * 0, its first seed set), printed to out. NULL: nothing beyond the
     * cells. */
    void (*dry_run)(const struct engine_settings *e, const struct scenario *cell, FILE *out);
    /* Fills *h from the host this engine runs on, for scenario base. NULL:
     * it runs on no host's scheduler (the kernel, paper). */
    void (*host_rules)(const struct scenario *base, struct engine_host_rules *h);
};

/* The start of a run in a child, for an engine whose runs are children
 * (kernel, linux): r->log and r->aux named run<N>.<log_ext> and
 * run<N>.<aux_ext> in dir, stdio flushed, then a fork whose child has
 * called e->in_child before anything else. Returns 0 in the child; in the
 * caller the child's pid, also in r->pid, or -1 with "fork: ..." in err. */
pid_t engine_fork_run(const struct engine_settings *e, struct engine_run *r, const char *dir, const char *log_ext,
                      const char *aux_ext, char *err, size_t errlen);

/* The engines, each defined in its folder (above), each table by
 * designated initializers as the kernel's policies' (kernel/sched), not by
 * a macro over a naming convention: their functions are named apart
 * (kernel_refuses, linux_engine_refuses) and each lacks other ops (sim:
 * finish, dry_run, host_rules), which a row left out shows and a NULL in a
 * macro's Nth argument would hide. Callers find them by name through
 * host/engine/engines.h. */
extern const struct engine_ops kernel_engine_ops;
extern const struct engine_ops linux_engine_ops;
extern const struct engine_ops sim_engine_ops;

#endif
