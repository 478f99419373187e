/*
 * The tracing instance (what and in what order: tracefs.h).
 *
 * Why each setting: trace_clock mono makes the events' times
 * CLOCK_MONOTONIC ns, which the scenario runner's clock_gettime() reads
 * too, so the measured window can be put into the trace; overwrite off
 * makes a full buffer drop the newest events and count them (the reader
 * sees the loss on the next page) where overwrite would silently eat the
 * oldest; the events are the six that say who runs, who wakes whom, who
 * moves and who exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "host/base/xalloc.h"
#include "host/engine/linux/tracefs.h"

#define TRACEFS_MAGIC 0x74726163 /* "trac": statfs's f_type of a tracefs mount */
#define DEFAULT_BUFFER_KB 16384u
#define FIX_HINT "run as root, or mount it: mount -t tracefs nodev " TRACEFS_ROOT "; or run with --no-record"

static const char *const events[] = {
    "sched/sched_switch", "sched/sched_waking",       "sched/sched_wakeup",
    "sched/sched_wakeup_new", "sched/sched_migrate_task", "sched/sched_process_exit",
};

struct tracefs {
    char dir[128];
    unsigned ncpus;
    int raw[TRACEFS_MAX_CPUS]; /* -1: not open */
};

/* The one live instance of this process, for tracefs_remove_live(). */
static struct tracefs *live;

const char *tracefs_dir(const struct tracefs *t)
{
    return t->dir;
}

unsigned tracefs_ncpus(const struct tracefs *t)
{
    return t->ncpus;
}

static int write_path(const char *path, const char *value, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    size_t n = strlen(value);
    if (fd < 0 || write(fd, value, n) != (ssize_t)n) {
        snprintf(err, errlen, "writing '%s' to %s: %s", value, path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int tracefs_write(struct tracefs *t, const char *rel, const char *value, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", t->dir, rel);
    return write_path(path, value, err, errlen);
}

int tracefs_set_on(struct tracefs *t, int on, char *err, size_t errlen)
{
    return tracefs_write(t, "tracing_on", on ? "1" : "0", err, errlen);
}

/* Is tracefs at TRACEFS_ROOT? If not, mounts it there. 0, or -1 with err. */
static int ensure_mounted(char *err, size_t errlen)
{
    struct statfs sf;
    if (statfs(TRACEFS_ROOT, &sf) == 0 && sf.f_type == TRACEFS_MAGIC)
        return 0;
    if (mount("nodev", TRACEFS_ROOT, "tracefs", 0, NULL) == 0)
        return 0;
    snprintf(err, errlen, "reading Linux's scheduler needs tracefs, which is not mounted at %s and cannot be (%s): " FIX_HINT,
             TRACEFS_ROOT, strerror(errno));
    return -1;
}

/* Removes the instance at dir: tracing off first, so no writer holds it. */
static int remove_dir(const char *dir)
{
    char path[512], e[256];
    snprintf(path, sizeof path, "%s/tracing_on", dir);
    write_path(path, "0", e, sizeof e); /* best effort: rmdir says if it failed */
    return rmdir(dir);
}

/* Instances named runq-<pid> whose process is gone: a runq killed outright
 * (SIGKILL, a crash) could not remove its own. A pid taken again by
 * another process keeps its instance: it may be a runq that is recording. */
static void remove_stale(void)
{
    DIR *d = opendir(TRACEFS_ROOT "/instances");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *p = de->d_name;
        if (strncmp(p, TRACEFS_INSTANCE_PREFIX, strlen(TRACEFS_INSTANCE_PREFIX)) != 0)
            continue;
        char *end;
        long pid = strtol(p + strlen(TRACEFS_INSTANCE_PREFIX), &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() || strlen(p) > 32)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char dir[128];
        snprintf(dir, sizeof dir, TRACEFS_ROOT "/instances/%.32s", p);
        if (remove_dir(dir) == 0)
            fprintf(stderr, "runq: removed the tracing instance %s, left by process %ld, which no longer runs\n", p, pid);
        else
            fprintf(stderr, "runq: the tracing instance %s, left by process %ld, cannot be removed: %s\n", p, pid,
                    strerror(errno));
    }
    closedir(d);
}

static unsigned count_cpus(const char *dir)
{
    unsigned n = 0;
    for (; n < TRACEFS_MAX_CPUS; n++) {
        char path[256];
        struct stat st;
        snprintf(path, sizeof path, "%s/per_cpu/cpu%u", dir, n);
        if (stat(path, &st) != 0)
            break;
    }
    return n;
}

/* The settings, in an order that keeps the buffer empty until tracing_on:
 * an instance is born with tracing on, so it goes off first. */
static int setup(struct tracefs *t, const struct tracefs_opts *o, char *err, size_t errlen)
{
    char kb[32];
    snprintf(kb, sizeof kb, "%u", o && o->buffer_kb ? o->buffer_kb : DEFAULT_BUFFER_KB);
    if (tracefs_set_on(t, 0, err, errlen) || tracefs_write(t, "trace_clock", "mono", err, errlen) ||
        tracefs_write(t, "buffer_size_kb", kb, err, errlen) ||
        tracefs_write(t, "options/overwrite", "0", err, errlen))
        return -1;
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        char rel[96];
        snprintf(rel, sizeof rel, "events/%s/enable", events[i]);
        if (tracefs_write(t, rel, "1", err, errlen))
            return -1;
    }
    t->ncpus = count_cpus(t->dir);
    if (!t->ncpus) {
        snprintf(err, errlen, "%s has no per_cpu/cpu0: not a tracing instance", t->dir);
        return -1;
    }
    return 0;
}

struct tracefs *tracefs_create(const struct tracefs_opts *o, char *err, size_t errlen)
{
    if (geteuid() != 0) {
        snprintf(err, errlen, "reading Linux's scheduler needs root and tracefs: " FIX_HINT);
        return NULL;
    }
    if (live) {
        snprintf(err, errlen, "this process already records (%s): one tracing instance at a time", live->dir);
        return NULL;
    }
    if (ensure_mounted(err, errlen))
        return NULL;
    remove_stale();
    struct tracefs *t = xcalloc(1, sizeof *t);
    for (unsigned k = 0; k < TRACEFS_MAX_CPUS; k++)
        t->raw[k] = -1;
    snprintf(t->dir, sizeof t->dir, TRACEFS_ROOT "/instances/" TRACEFS_INSTANCE_PREFIX "%ld", (long)getpid());
    if (mkdir(t->dir, 0700) != 0) {
        snprintf(err, errlen, "cannot create the tracing instance %s: %s", t->dir, strerror(errno));
        free(t);
        return NULL;
    }
    live = t;
    static bool registered;
    if (!registered)
        registered = atexit(tracefs_remove_live) == 0;
    if (setup(t, o, err, errlen)) {
        tracefs_remove(t);
        return NULL;
    }
    return t;
}

int tracefs_open_raw(struct tracefs *t, unsigned cpu, char *err, size_t errlen)
{
    char path[256];
    if (cpu >= t->ncpus) {
        snprintf(err, errlen, "CPU %u: the instance has %u", cpu, t->ncpus);
        return -1;
    }
    snprintf(path, sizeof path, "%s/per_cpu/cpu%u/trace_pipe_raw", t->dir, cpu);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (t->raw[cpu] >= 0)
        close(t->raw[cpu]);
    t->raw[cpu] = fd;
    return fd;
}

int tracefs_remove(struct tracefs *t)
{
    char e[256];
    if (!t)
        return 0;
    tracefs_set_on(t, 0, e, sizeof e);
    for (unsigned k = 0; k < TRACEFS_MAX_CPUS; k++)
        if (t->raw[k] >= 0) {
            close(t->raw[k]);
            t->raw[k] = -1;
        }
    int rc = 0;
    if (remove_dir(t->dir) != 0) {
        fprintf(stderr, "runq: the tracing instance %s cannot be removed: %s; remove it: rmdir %s\n", t->dir,
                strerror(errno), t->dir);
        rc = -1;
    }
    if (live == t)
        live = NULL;
    free(t);
    return rc;
}

void tracefs_remove_live(void)
{
    if (live)
        tracefs_remove(live);
}
