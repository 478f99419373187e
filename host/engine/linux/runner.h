/*
 * The Linux runner's insides, shared by its three files (run.h is the
 * contract): run.c runs the threads, setup.c gives each its attributes
 * and makes the pipes, measure.c reads the counters and makes the result.
 */
#ifndef RUNQ_LINUX_RUNNER_H
#define RUNQ_LINUX_RUNNER_H

#include <pthread.h>
#include <time.h>

#include "host/base/clock.h"
#include "host/engine/linux/run.h"

/* A run step's loop does a round of this many empty iterations and a
 * pause between two looks at its CPU clock, as the kernel's does. */
#define LX_ROUND 256
/* The start line is this far ahead of the release, and this much more a
 * thread: every thread is back asleep before the window opens. */
#define LX_LEAD_NS 2000000ull
#define LX_LEAD_PER_THREAD_NS 50000ull
/* The conductor looks at *stop at least this often. */
#define LX_STOP_POLL_NS 10000000ull
#define LX_EXIT_TIMEOUT_NS 5000000000ull
/* Lateness samples kept, all threads together (16 bytes each). */
#define LX_SAMPLES_MAX (1u << 22)
/* info.check_ns is the median of this many thread-CPU-clock reads. */
#define LX_CHECK_READS 1001

struct lx_sample {
    uint64_t late, at; /* its lateness, and when it ran (to drop those after t_end) */
};

struct lx_run;

/* One thread's state. The thread writes its own counters; the conductor
 * reads them with atomic loads at t_end. */
struct lx_thread {
    struct lx_run *run;
    const struct scn_task *t;
    unsigned instance, index;
    pthread_t th;
    bool created;
    pid_t tid;
    uint64_t arrive_at;  /* t_start + arrive: the first periodic target */
    unsigned char *buf;  /* its pipe bytes */
    struct lx_sample *samples;
    size_t cap, n;
    /* written at its arrival, read after `arrived` (acquire) */
    uint64_t started, cpu0, vcsw0, ivcsw0;
    int start_cpu;
    int arrived;
    /* running counters (relaxed atomics) */
    uint64_t iters, reads, missed, dropped;
    /* written as it ends, read after `exited` (acquire): a thread gone has
     * no /proc entry and no CPU clock to read */
    uint64_t cpu_last, vcsw_last, ivcsw_last;
    int exited;
    char error[96]; /* a failed syscall that ended it, set before exited */
    /* read by the conductor at t_end */
    uint64_t cpu_end, vcsw_end, ivcsw_end, reads_end, iters_end, missed_end, dropped_end;
};

struct lx_run {
    const struct scenario *s;
    const struct linux_run_opts *o;
    unsigned n;
    struct lx_thread *k;
    int (*fds)[SCN_MAX_INSTANCES][2]; /* [pipe][copy] read, write */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned born;  /* threads at the start line */
    int go;         /* the start line is open (or abort: stop is set too) */
    uint64_t t_start, t_end_nominal;
    int stop;
    int alive;
    int stop_signal;
    struct lx_alt *alt; /* the recorder's A/B (alternate.c); NULL: none */
};

int lx_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* ---- alternate.c: the recorder against itself in one run ---- */

/* Before the window opens; false: out of memory. */
bool lx_alt_start(struct lx_run *run);
/* The conductor's step at now: toggles if an edge is due; returns when
 * it must next be called (until, or the next edge if sooner). */
uint64_t lx_alt_step(struct lx_run *run, uint64_t now, uint64_t until);
/* The notes, after the threads stopped and before lx_fill_result. */
void lx_alt_report(struct lx_run *run, uint64_t t_end);
void lx_alt_free(struct lx_run *run);

/* One line on o->notes, if there is one. */
void lx_note(const struct lx_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline uint64_t lx_ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static inline uint64_t lx_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return lx_ts_ns(&ts);
}

/* The thread's counters are written by it alone and read by the
 * conductor: relaxed atomics, whole 64-bit values. */
static inline void lx_put(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint64_t lx_get(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* ---- setup.c ---- */

/* Gives k's thread (waiting at the start line) its name, affinity, nice,
 * slice or RT class, and reads each back into lt; a refusal or a
 * difference is an error naming the task line, an adjustment a note. */
int lx_setup_thread(struct lx_run *run, struct lx_thread *k, struct linux_thread *lt, char *err, size_t errlen);
/* Makes every copy of every pipe into run->fds, sized as the scenario
 * says (notes when Linux rounds the size up). */
int lx_make_pipes(struct lx_run *run, char *err, size_t errlen);

/* ---- measure.c ---- */

/* The median cost of one thread-CPU-clock read, in ns. */
uint64_t lx_measure_check_ns(void);
/* Every thread's counters as at t_end (call at t_end, before stopping). */
void lx_read_at_end(struct lx_run *run);
/* The threads' measurements into r, samples after t_end left out. */
void lx_fill_result(struct lx_run *run, uint64_t t_end, struct scn_result *r, const struct linux_run_info *info);
/* How many lateness samples a thread of task line t may make in a run. */
size_t lx_samples_wanted(const struct scenario *s, const struct scn_task *t);

#endif
