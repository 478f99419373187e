/*
 * Each thread's attributes, set from the conductor while the thread waits
 * at the start line, each read back (runner.h has the contract): the
 * scenario's CPU set, nice, slice (a fair task's sched_attr.sched_runtime)
 * or RT class and priority. Linux refusing one is an error with its
 * reason; Linux adjusting one (a slice clamped, a pipe rounded up) is a
 * note, so a result is never read as what was asked when it was not.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/engine/linux/runner.h"

/* Linux's struct sched_attr (include/uapi/linux/sched/types.h), its first
 * version (48 bytes): glibc 2.36 has no wrapper for sched_setattr. */
struct lx_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};
_Static_assert(sizeof(struct lx_sched_attr) == 48, "SCHED_ATTR_SIZE_VER0");

static int set_attr(pid_t tid, struct lx_sched_attr *a)
{
    a->size = sizeof *a;
    return (int)syscall(SYS_sched_setattr, tid, a, 0u);
}

static int get_attr(pid_t tid, struct lx_sched_attr *a)
{
    memset(a, 0, sizeof *a);
    return (int)syscall(SYS_sched_getattr, tid, a, (unsigned)sizeof *a, 0u);
}

static uint64_t mask_of(const cpu_set_t *set)
{
    uint64_t m = 0;
    for (int c = 0; c < 64; c++)
        if (CPU_ISSET(c, set))
            m |= 1ull << c;
    return m;
}

/* Gives k's thread its scenario attributes and reads each back into lt. */
int lx_setup_thread(struct lx_run *run, struct lx_thread *k, struct linux_thread *lt, char *err, size_t errlen)
{
    const struct scenario *s = run->s;
    const struct scn_task *t = k->t;
    struct lx_sched_attr a;
    cpu_set_t set;
    char dur[2][32];
    int e;

    lt->instance = k->instance;
    lt->tid = k->tid;
    lt->task = (int)(t - s->tasks);
    scn_instance_name(s, k->instance, lt->name, sizeof lt->name);
    if ((e = pthread_setname_np(k->th, lt->name)))
        return lx_err(err, errlen, "%s:%d: %s: pthread_setname_np: %s", s->name, t->line, lt->name, strerror(e));

    uint64_t mask = t->cpumask ? t->cpumask : (s->cpus >= 64 ? ~0ull : (1ull << s->cpus) - 1);
    CPU_ZERO(&set);
    for (int c = 0; c < 64; c++)
        if (mask >> c & 1)
            CPU_SET(c, &set);
    if (sched_setaffinity(k->tid, sizeof set, &set) < 0)
        return lx_err(err, errlen, "%s:%d: %s: sched_setaffinity(0x%" PRIx64 "): %s", s->name, t->line, lt->name,
                      mask, strerror(errno));
    CPU_ZERO(&set);
    if (sched_getaffinity(k->tid, sizeof set, &set) < 0)
        return lx_err(err, errlen, "%s: sched_getaffinity: %s", lt->name, strerror(errno));
    lt->cpumask = mask_of(&set);
    if (lt->cpumask != mask)
        return lx_err(err, errlen, "%s:%d: %s: asked for CPUs 0x%" PRIx64 ", Linux set 0x%" PRIx64, s->name, t->line,
                      lt->name, mask, lt->cpumask);
    lt->cpu = __builtin_ctzll(lt->cpumask);

    lt->rt = t->rt;
    lt->rt_prio = t->rt_prio;
    lt->rt_policy = t->rt_policy;
    lt->slice_asked_ns = t->slice_ns;
    if (t->rt) {
        memset(&a, 0, sizeof a);
        a.sched_policy = t->rt_policy == SCN_PROG_RT_RR ? SCHED_RR : SCHED_FIFO;
        a.sched_priority = t->rt_prio;
        if (set_attr(k->tid, &a) < 0)
            return lx_err(err, errlen, "%s:%d: %s: sched_setattr(%s, %u): %s%s", s->name, t->line, lt->name,
                          t->rt_policy == SCN_PROG_RT_RR ? "SCHED_RR" : "SCHED_FIFO", t->rt_prio, strerror(errno),
                          errno == EPERM ? " (RT priorities need root or CAP_SYS_NICE)" : "");
    } else {
        if (setpriority(PRIO_PROCESS, (id_t)k->tid, t->nice) < 0)
            return lx_err(err, errlen, "%s:%d: %s: setpriority(nice %d): %s%s", s->name, t->line, lt->name, t->nice,
                          strerror(errno), t->nice < 0 ? " (a negative nice needs root or CAP_SYS_NICE)" : "");
        if (t->slice_ns) {
            /* The slice is sched_attr.sched_runtime of a fair task; the
             * same call sets its nice, so it carries the nice too. */
            memset(&a, 0, sizeof a);
            a.sched_policy = SCHED_OTHER;
            a.sched_nice = t->nice;
            a.sched_runtime = t->slice_ns;
            if (set_attr(k->tid, &a) < 0)
                return lx_err(err, errlen, "%s:%d: %s: sched_setattr(slice %" PRIu64 " ns): %s", s->name, t->line,
                              lt->name, t->slice_ns, strerror(errno));
        }
    }

    /* Read back what Linux took. */
    if (get_attr(k->tid, &a) < 0)
        return lx_err(err, errlen, "%s: sched_getattr: %s", lt->name, strerror(errno));
    unsigned want_policy = !t->rt ? SCHED_OTHER : t->rt_policy == SCN_PROG_RT_RR ? SCHED_RR : SCHED_FIFO;
    if (a.sched_policy != want_policy || (t->rt && a.sched_priority != t->rt_prio))
        return lx_err(err, errlen, "%s:%d: %s: Linux has it at policy %u priority %u, not the scenario's", s->name,
                      t->line, lt->name, a.sched_policy, a.sched_priority);
    /* A fair task's sched_runtime reads back as its slice (get_params()
     * in kernel/sched/syscalls.c: p->se.slice), which __setparam_fair()
     * clamped to 0.1..100 ms. */
    lt->slice_got_ns = t->rt ? 0 : a.sched_runtime;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)k->tid);
    if (nice == -1 && errno)
        return lx_err(err, errlen, "%s: getpriority: %s", lt->name, strerror(errno));
    lt->nice = nice;
    if (!t->rt && nice != t->nice)
        return lx_err(err, errlen, "%s:%d: %s: asked for nice %d, Linux has %d", s->name, t->line, lt->name, t->nice,
                      nice);
    if (t->slice_ns && lt->slice_got_ns != t->slice_ns) {
        scn_format_duration(dur[0], sizeof dur[0], t->slice_ns);
        scn_format_duration(dur[1], sizeof dur[1], lt->slice_got_ns);
        lx_note(run, "%s: slice %s asked, Linux gives %s (__setparam_fair() clamps a slice to 100us..100ms)", lt->name,
             dur[0], dur[1]);
    }
    return 0;
}

/* The pipes: copies of each, their size set and read back. */
int lx_make_pipes(struct lx_run *run, char *err, size_t errlen)
{
    const struct scenario *s = run->s;
    for (int p = 0; p < s->npipes; p++) {
        unsigned copies = scn_pipe_copies(s, p);
        int got = 0;
        for (unsigned c = 0; c < copies; c++) {
            int *fd = run->fds[p][c];
            if (pipe2(fd, O_CLOEXEC) < 0) {
                fd[0] = fd[1] = -1;
                return lx_err(err, errlen, "%s:%d: pipe %s: pipe2: %s", s->name, s->pipes[p].line, s->pipes[p].name,
                              strerror(errno));
            }
            /* Linux rounds a pipe up to a power of two pages, at least one
             * (round_pipe_size() in fs/pipe.c). */
            if ((got = fcntl(fd[1], F_SETPIPE_SZ, (int)s->pipes[p].size)) < 0)
                return lx_err(err, errlen, "%s:%d: pipe %s: F_SETPIPE_SZ %u: %s", s->name, s->pipes[p].line,
                              s->pipes[p].name, s->pipes[p].size, strerror(errno));
        }
        if (copies && (unsigned)got != s->pipes[p].size)
            lx_note(run, "pipe %s: size %u asked, the Linux pipe holds %d bytes (its minimum is a page), so a writer "
                      "blocks later than in runq's kernel",
                 s->pipes[p].name, s->pipes[p].size, got);
    }
    return 0;
}
