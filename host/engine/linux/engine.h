/*
 * The Linux engine: a scenario run as threads of the host's Linux
 * (host/engine/linux/run.h) while its scheduler is recorded from tracefs
 * (host/engine/linux/lxrec.h) into the database, as one trace of engine `linux`.
 * `runq experiment --engine linux` calls it through linux_engine_ops
 * (host/engine/engine.h, defined in engine.c), which runs it in a child
 * process, one run at a time unless --jobs says more (docs/experiments.md,
 * "The Linux engine").
 */
#ifndef RUNQ_LINUX_ENGINE_H
#define RUNQ_LINUX_ENGINE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "host/engine/engine.h"
#include "host/engine/linux/run.h" /* linux_refuses(): what this Linux cannot run as written */
#include "host/scenario/scenario.h"

struct linux_engine_opts {
    const char *db;     /* record into this database; NULL: metrics only (--no-record) */
    const char *source; /* the trace's source: "linux:FILE PARAMS" */
    const volatile sig_atomic_t *stop; /* a signal asked to stop: the run ends early, the tracing instance goes */
    FILE *notes;        /* what Linux adjusted (a slice clamped, a pipe's size), one line each; may be NULL */
    bool allow_rt_hog;  /* --allow-rt-hog: RT tasks that never sleep may hold every CPU (run.h) */
    /* Filled with why Linux's EEVDF state was not recorded (one line,
     * lxrec_internals_missing), or "" when it was; may be NULL. */
    char *internals_missing;
    size_t internals_missing_len;
};

/* Runs s, recording it unless o->db is NULL. 0 with r filled, *trace
 * the trace's id (0: not recorded) and *foreign (may be NULL), or -1
 * with err: a refusal, no root or tracefs for the recording (with the
 * command that fixes it, and --no-record), a thread that could not be set
 * up, a stop. The tracing instance is gone when it returns, whatever
 * happened.
 *
 * *foreign is the time of the scenario's CPUs in the measured window that
 * was neither the scenario's nor idle, from the recorded switches
 * (lxrec_foreign_ns in host/engine/linux/lxrec.h): what tasks other than
 * the scenario's took, and what the trace cannot account for (counted
 * with it: it may have been theirs). Known only for a recorded run:
 * without a trace (--no-record) nothing this host offers measures it
 * finely enough (/proc/stat counts in 10 ms steps of sampled ticks), so it
 * is not measured (docs/experiments.md, "Measurement you can trust"). */
int linux_engine_run(const struct scenario *s, const struct linux_engine_opts *o, struct scn_result *r,
                     int64_t *trace, struct engine_foreign *foreign, char *err, size_t errlen);

#endif
