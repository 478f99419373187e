/*
 * The tracing instance's life: a directory of its own under tracefs,
 * instances/runq-<pid>, so that the user's own tracing (the top-level
 * buffer, other instances) is never touched, set up to record Linux's
 * scheduler events and removed again whatever happens.
 *
 * Order: tracefs_create() mounts tracefs if it is not, removes instances
 * left by runq processes that no longer run, makes ours with tracing off,
 * sets it up (trace_clock mono, buffer size, overwrite off, the events)
 * and registers the atexit removal; the caller opens the per-CPU raw
 * files (tracefs_open_raw) and turns tracing on (tracefs_set_on);
 * tracefs_remove() turns it off, closes the raw files (an instance with
 * an open file cannot be removed: EBUSY) and removes the directory.
 *
 * Contract: one instance per process at a time. tracefs_remove_live()
 * removes the live instance if there is one and does nothing otherwise,
 * so an exit on any path (atexit, the normal path after a stop flag set
 * by SIGINT, an error) leaves nothing behind. A process killed outright leaves its
 * instance; the next tracefs_create() on the machine removes it.
 */
#ifndef RUNQ_LINUX_TRACEFS_H
#define RUNQ_LINUX_TRACEFS_H

#include <stddef.h>

#define TRACEFS_ROOT "/sys/kernel/tracing"
#define TRACEFS_INSTANCE_PREFIX "runq-"
#define TRACEFS_MAX_CPUS 256

struct tracefs;

struct tracefs_opts {
    unsigned buffer_kb; /* per CPU; 0: 16384 */
};

/* Creates and sets up this process's instance, tracing off. NULL with a
 * one-line message in err that says what is missing and the command that
 * fixes it (not root; tracefs not mounted and cannot be). */
struct tracefs *tracefs_create(const struct tracefs_opts *o, char *err, size_t errlen);

/* The instance's directory, e.g. /sys/kernel/tracing/instances/runq-42. */
const char *tracefs_dir(const struct tracefs *t);

/* Writes value to the instance's file rel (e.g. "tracing_on"). 0, or -1
 * with err. */
int tracefs_write(struct tracefs *t, const char *rel, const char *value, char *err, size_t errlen);

/* Tracing on (1) or off (0). 0, or -1 with err. */
int tracefs_set_on(struct tracefs *t, int on, char *err, size_t errlen);

/* The CPU count the instance has (per_cpu/cpuN directories 0..n-1). */
unsigned tracefs_ncpus(const struct tracefs *t);

/* Opens per_cpu/cpu<cpu>/trace_pipe_raw, O_RDONLY | O_NONBLOCK; the
 * instance keeps the fd and closes it at removal. fd, or -1 with err. */
int tracefs_open_raw(struct tracefs *t, unsigned cpu, char *err, size_t errlen);

/* Tracing off, the raw files closed, the directory removed, t freed
 * (t is invalid after it). 0, or -1 after saying on stderr what is left
 * and the command that removes it. */
int tracefs_remove(struct tracefs *t);

/* Removes the live instance if there is one: safe from atexit() and
 * after any error. */
void tracefs_remove_live(void);

#endif
