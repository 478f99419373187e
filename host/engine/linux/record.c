/*
 * `runq record --linux` (contract in record.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host/base/clock.h"
#include "host/base/xalloc.h"
#include "host/engine/linux/lxrec.h"
#include "host/engine/linux/record.h"
#include "host/engine/linux/run.h"
#include "trace/format.h"

/* Threads named beyond this many are "other" too (said in a note). */
#define MAX_THREADS 4096

struct found {
    struct lxrec_task *t;
    char (*name)[TRACE_NAME_LEN + 1];
    unsigned n, skipped;
};

static bool read_comm(pid_t pid, pid_t tid, char *out, size_t len)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Adds thread tid of process pid, if it matches; it keeps what Linux
 * says of it now (nice; class and RT priority). */
static void add(struct found *f, const struct linux_record_opts *o, pid_t pid, pid_t tid)
{
    char comm[TRACE_NAME_LEN + 1];
    if (!read_comm(pid, tid, comm, sizeof comm) || (o->comm && strcmp(comm, o->comm) != 0))
        return;
    if (f->n == MAX_THREADS || tid >= LXREC_PSEUDO_BASE) {
        f->skipped++;
        return;
    }
    struct lxrec_task *t = &f->t[f->n];
    memcpy(f->name[f->n], comm, sizeof comm);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)tid);
    int pol = sched_getscheduler(tid);
    struct sched_param sp = { 0 };
    sched_getparam(tid, &sp);
    *t = (struct lxrec_task){ .tid = tid, .name = f->name[f->n], .nice = errno ? 0 : nice,
                              .rt = pol == SCHED_FIFO || pol == SCHED_RR, .rt_prio = (unsigned)sp.sched_priority,
                              .rt_policy = pol == SCHED_RR ? TRACE_RT_RR : TRACE_RT_FIFO, .cpu = -1 };
    f->n++;
}

static void add_process(struct found *f, const struct linux_record_opts *o, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));)
        if (all_digits(e->d_name))
            add(f, o, pid, (pid_t)atoi(e->d_name));
    closedir(d);
}

static int find_threads(struct found *f, const struct linux_record_opts *o, char *err, size_t errlen)
{
    if (o->pid) {
        if (kill(o->pid, 0) != 0 && errno == ESRCH) {
            snprintf(err, errlen, "no process %d", (int)o->pid);
            return -1;
        }
        add_process(f, o, o->pid);
    } else {
        DIR *d = opendir("/proc");
        if (!d) {
            snprintf(err, errlen, "/proc: %s", strerror(errno));
            return -1;
        }
        for (struct dirent *e; (e = readdir(d));)
            if (all_digits(e->d_name))
                add_process(f, o, (pid_t)atoi(e->d_name));
        closedir(d);
    }
    if (!f->n) {
        if (o->comm)
            snprintf(err, errlen, "no thread is named '%s' (a name is at most 15 bytes, as /proc/PID/comm has it)",
                     o->comm);
        else
            snprintf(err, errlen, "no thread of process %d could be read", (int)o->pid);
        return -1;
    }
    return 0;
}

int linux_record(const struct linux_record_opts *o, int64_t *trace, char *err, size_t errlen)
{
    *trace = 0;
    uint64_t online = linux_online_cpus(), cpus = o->cpus ? o->cpus : online;
    if (online && (cpus & ~online)) {
        snprintf(err, errlen, "--cpus names a CPU this host does not have online (online: mask %#llx)",
                 (unsigned long long)online);
        return -1;
    }
    struct found f = { .t = xcalloc(MAX_THREADS, sizeof *f.t), .name = xcalloc(MAX_THREADS, sizeof *f.name) };
    int rc = -1;
    struct lxrec *rec = NULL;
    if (find_threads(&f, o, err, errlen))
        goto out;
    struct lxrec_opts ro = { .internals = true, .bpf_cpus = cpus, .bpf_tgid = o->pid };
    if (!(rec = lxrec_start(&ro, cpus, err, errlen)))
        goto out;
    const char *why = lxrec_internals_missing(rec);
    if (o->notes) {
        fprintf(o->notes, "runq record: %u thread%s named%s; CPUs %#llx; EEVDF internals %s%s\n", f.n,
                f.n == 1 ? "" : "s", f.skipped ? " (more are \"other\")" : "", (unsigned long long)cpus,
                why ? "not recorded (tracefs only): " : "recorded (BPF)", why ? why : "");
        fflush(o->notes);
    }
    uint64_t t_start = mono_ns(), t_end;
    struct timespec nap = { 0, 20000000 };
    while (!(o->stop && *o->stop) && (!o->duration_ns || mono_ns() - t_start < o->duration_ns))
        nanosleep(&nap, NULL);
    t_end = mono_ns();
    bool cut = o->duration_ns && mono_ns() - t_start < o->duration_ns;
    if (lxrec_stop(rec, err, errlen) < 0)
        goto out;
    struct utsname u;
    char release[sizeof u.release] = "";
    if (uname(&u) == 0)
        snprintf(release, sizeof release, "%s", u.release);
    char source[128];
    snprintf(source, sizeof source, "linux:record%s", o->pid ? " --pid" : o->comm ? " --comm" : "");
    struct lxrec_meta m = { .db = o->db, .source = source, .kernel_version = release,
                            .ncpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN), .hz = linux_hz(), .scn_cpus = cpus,
                            .tasks = f.t, .ntasks = f.n, .t_start = t_start, .t_end = t_end,
                            .end_reason = cut ? "interrupted" : NULL };
    rc = lxrec_write(rec, &m, trace, err, errlen) < 0 ? -1 : 0;
out:
    lxrec_free(rec);
    free(f.t);
    free(f.name);
    return rc;
}
