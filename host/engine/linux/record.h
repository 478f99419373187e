/*
 * `runq record --linux`: whatever runs on some of the host's CPUs,
 * recorded into the trace schema as a scenario run is (host/engine/linux/lxrec.h),
 * Linux's EEVDF internals included when BPF can be had: runq's `perf
 * sched record`, with EEVDF's reasoning in it.
 *
 * The threads that exist when the recording starts and match the filter
 * (a process's threads, a command name, or every thread) are the trace's
 * named tasks; anything else that runs on the CPUs (threads started
 * later, the rest of the machine) is each CPU's "other", as in a
 * scenario's trace. The recorder's own thread keeps off the CPUs recorded
 * when there is one to spare.
 */
#ifndef RUNQ_LINUX_RECORD_H
#define RUNQ_LINUX_RECORD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct linux_record_opts {
    const char *db;
    uint64_t cpus;          /* CPUs recorded (0: every online one) */
    pid_t pid;              /* the threads of this process (0: not this filter) */
    const char *comm;       /* the threads of this name (NULL: not this filter) */
    uint64_t duration_ns;   /* 0: until *stop */
    const volatile sig_atomic_t *stop; /* set by a signal: end now */
    FILE *notes;            /* one line each: what was recorded, what could not be (may be NULL) */
};

/* Records until the duration passes or *stop is set, then writes one
 * trace. A stop before the duration marks the trace incomplete
 * ("interrupted"); with no duration a stop is the normal end. 0 with
 * *trace, or -1 with err (no root or tracefs: the fix named; a pid that
 * does not exist; no thread matching). Nothing stays attached or
 * instantiated after it returns. */
int linux_record(const struct linux_record_opts *o, int64_t *trace, char *err, size_t errlen);

#endif
