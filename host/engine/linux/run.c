/*
 * The Linux engine's run (contract in run.h): each scenario task instance
 * is a thread of this process, and runs its pattern as runq's kernel's
 * interpreter does (kernel/sched/scn.c), on the host's own scheduler. In
 * the order a run goes:
 *
 *   1. Refuse what this Linux cannot run (refuse.c). Measure the probe's
 *      own cost: one thread-CPU-clock read, what a run step checks.
 *   2. Make the pipes (one pipe2() per copy) and the threads. Each thread
 *      names itself nothing: the conductor (the calling thread) names it,
 *      sets its affinity, nice, slice (sched_setattr) or RT class, and
 *      reads every one back, while it waits at the start line. A setting
 *      Linux refuses ends the run with the reason; one it adjusts (a slice
 *      clamped, a pipe rounded up to a page) is a line on notes.
 *   3. The conductor leaves the scenario's CPUs if this process may use
 *      another, so that nothing of the engine's runs beside the threads
 *      it measures. ready() (the recorder starts, its reader off the
 *      scenario's CPUs too), then the start line opens: t_start
 *      is a little ahead, so every thread is back asleep before it; each
 *      begins its pattern at t_start + its arrival.
 *   4. The conductor sleeps out the window (or until *stop), then at t_end
 *      reads every thread's CPU clock, its switch counts
 *      (/proc/self/task/TID/status) and its counters, as the kernel reads
 *      its tasks' at its end, and only then tells them to stop: a flag,
 *      and a signal to each (repeated every ms: one may be between looking
 *      at the flag and blocking) that breaks a sleep or a pipe wait.
 *   5. The threads are joined; each thread's lateness samples up to t_end
 *      make its percentiles, and a line's are over all its tasks' samples
 *      (scn_stats_lateness, every engine's rule).
 *
 * Timer slack: a fair thread's hrtimer sleeps may end up to its slack
 * (50 us by default) late, on purpose, to batch wakeups; that would be
 * lateness of Linux's choosing, not the scheduler's, so each thread asks
 * for 1 ns (prctl PR_SET_TIMERSLACK; RT threads have none anyway).
 *
 * setup.c sets each thread up, measure.c reads the counters and makes the
 * result; runner.h holds what the three share.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "host/base/xalloc.h"
#include "host/engine/linux/runner.h"

static bool stopped(const struct lx_run *run)
{
    return __atomic_load_n(&run->stop, __ATOMIC_ACQUIRE);
}

/* A stop signal only has to break a blocking call (EINTR): it does nothing. */
static void on_stop_signal(int sig)
{
    (void)sig;
}

/* ---- a thread's pattern ---- */

/* Sleeps until deadline (CLOCK_MONOTONIC): true if the deadline woke it,
 * false if the run stopped first. An absolute sleep, so the due time the
 * lateness is measured from is exactly the one Linux was asked for. */
static bool sleep_until(struct lx_run *run, uint64_t deadline)
{
    struct timespec ts = { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) };
    for (;;) {
        if (stopped(run))
            return false;
        int e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (e == 0)
            return true;
        if (e != EINTR)
            return false;
    }
}

/* A wakeup's lateness: when it runs again less when its sleep should have
 * ended (clock read first thing after the wake, as the kernel uses the
 * pick's own clock). */
static void keep_lateness(struct lx_thread *k, uint64_t due)
{
    uint64_t ran = mono_ns();
    if (k->n < k->cap)
        k->samples[k->n++] = (struct lx_sample){ ran > due ? ran - due : 0, ran };
    else if (ran <= k->run->t_end_nominal)
        lx_put(&k->dropped, k->dropped + 1);
}

/* Spins for ns of this thread's CPU time (forever if 0) until stop:
 * rounds of empty iterations, each followed by a look at the CPU clock
 * (the check whose cost info.check_ns is). */
static void run_for(struct lx_thread *k, uint64_t ns)
{
    uint64_t until = ns ? lx_thread_cpu_ns() + ns : 0;
    uint64_t iters = k->iters;
    for (;;) {
        for (int i = 0; i < LX_ROUND; i++)
            __asm__ volatile("");
#if defined(__x86_64__) || defined(__i386__)
        __asm__ volatile("pause");
#endif
        lx_put(&k->iters, ++iters);
        if (stopped(k->run) || (until && lx_thread_cpu_ns() >= until))
            return;
    }
}

/* Reads or writes all of bytes on fd, in as many calls as it takes, until
 * stop. True if they all went; *failed (and k->error) on an error other
 * than a signal's. */
static bool pipe_io(struct lx_thread *k, bool reading, int fd, unsigned bytes, bool *failed)
{
    unsigned done = 0;
    while (done < bytes && !stopped(k->run)) {
        ssize_t n = reading ? read(fd, k->buf, bytes - done) : write(fd, k->buf, bytes - done);
        if (n > 0) {
            done += (unsigned)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            snprintf(k->error, sizeof k->error, "%s: %s", reading ? "read" : "write",
                     n == 0 ? "end of file" : strerror(errno));
            *failed = true;
            return false;
        }
    }
    return done == bytes;
}

static void thread_counters(uint64_t *cpu, uint64_t *vcsw, uint64_t *ivcsw)
{
    struct rusage ru;
    *cpu = lx_thread_cpu_ns();
    /* The same counters /proc/TID/status shows (p->nvcsw, p->nivcsw). */
    getrusage(RUSAGE_THREAD, &ru);
    *vcsw = (uint64_t)ru.ru_nvcsw;
    *ivcsw = (uint64_t)ru.ru_nivcsw;
}

static void thread_pattern(struct lx_thread *k)
{
    struct lx_run *run = k->run;
    const struct scn_task *t = k->t;
    uint64_t rng = scn_rng_init(run->s->seed, k->instance), target = k->arrive_at, missed = 0, reads = 0;
    bool failed = false;

    if (!t->nsteps)
        run_for(k, 0);
    /* The steps taken as the kernel takes them (kernel/sched/scn.c), alike on
     * purpose: one scenario, each engine its own clock, sleep and pipes. */
    for (int step = 0; t->nsteps && !stopped(run) && !failed; step = (step + 1) % t->nsteps) {
        const struct scn_step *st = &t->steps[step];
        uint64_t due;
        switch (st->kind) {
        case SCN_RUN:
            run_for(k, st->ns);
            break;
        case SCN_SLEEP:
            due = mono_ns() + scn_draw_period(&rng, st->ns, st->jitter_permille);
            if (sleep_until(run, due))
                keep_lateness(k, due);
            break;
        case SCN_EVERY: {
            /* The next target is the last plus a drawn period; one already
             * here or past is missed, as in every engine. */
            uint64_t now = mono_ns();
            do {
                target += scn_draw_period(&rng, st->ns, st->jitter_permille);
                if (run->o && run->o->target)
                    run->o->target(run->o->ctx, k->instance, target);
                if (target <= now)
                    lx_put(&k->missed, ++missed);
            } while (target <= now);
            if (sleep_until(run, target))
                keep_lateness(k, target);
            break;
        }
        case SCN_YIELD:
            sched_yield();
            break;
        case SCN_READ:
        case SCN_WRITE: {
            /* A read takes all its bytes, in as many reads as it needs;
             * one that got them counts (it ends a handoff). */
            int copies = (int)scn_pipe_copies(run->s, st->pipe);
            const int *fd = run->fds[st->pipe][k->index % (unsigned)copies];
            bool reading = st->kind == SCN_READ;
            if (pipe_io(k, reading, fd[reading ? 0 : 1], st->bytes, &failed) && reading)
                lx_put(&k->reads, ++reads);
            break;
        }
        case SCN_EXIT:
            return;
        }
    }
}

static void *thread_main(void *arg)
{
    struct lx_thread *k = arg;
    struct lx_run *run = k->run;
    sigset_t only_stop;

    /* Only the stop signal: a Ctrl-C goes to the conductor, which sets *stop. */
    sigfillset(&only_stop);
    sigdelset(&only_stop, run->stop_signal);
    pthread_sigmask(SIG_SETMASK, &only_stop, NULL);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    pthread_mutex_lock(&run->lock);
    k->tid = (pid_t)syscall(SYS_gettid);
    run->born++;
    pthread_cond_broadcast(&run->cond);
    while (!run->go)
        pthread_cond_wait(&run->cond, &run->lock);
    pthread_mutex_unlock(&run->lock);

    /* A thread arriving at or after the end never arrives (the kernel
     * never creates it). */
    if (!stopped(run) && k->t->arrive_ns < run->s->run_ns && sleep_until(run, k->arrive_at)) {
        k->started = mono_ns();
        k->start_cpu = sched_getcpu();
        thread_counters(&k->cpu0, &k->vcsw0, &k->ivcsw0);
        __atomic_store_n(&k->arrived, 1, __ATOMIC_RELEASE);
        thread_pattern(k);
        thread_counters(&k->cpu_last, &k->vcsw_last, &k->ivcsw_last);
    }
    __atomic_store_n(&k->exited, 1, __ATOMIC_RELEASE);
    int alive = __atomic_sub_fetch(&run->alive, 1, __ATOMIC_ACQ_REL);
    BUG_ON(alive < 0); /* each thread was counted in before it was created */
    return NULL;
}

/* ---- the run ---- */

/* Stops the threads (flag, then a signal each ms to whichever still
 * lives) and joins them. -1 if some did not end within the timeout
 * (they are joined anyway: each looks at the flag every round). */
static int stop_threads(struct lx_run *run)
{
    int ok = 0;
    pthread_mutex_lock(&run->lock);
    __atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
    run->go = 1;
    pthread_cond_broadcast(&run->cond);
    pthread_mutex_unlock(&run->lock);
    uint64_t give_up = mono_ns() + LX_EXIT_TIMEOUT_NS;
    while (__atomic_load_n(&run->alive, __ATOMIC_ACQUIRE) > 0) {
        for (unsigned i = 0; i < run->n; i++)
            if (run->k[i].created && !__atomic_load_n(&run->k[i].exited, __ATOMIC_ACQUIRE))
                pthread_kill(run->k[i].th, run->stop_signal);
        if (mono_ns() > give_up)
            ok = -1;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    for (unsigned i = 0; i < run->n; i++)
        if (run->k[i].created)
            pthread_join(run->k[i].th, NULL);
    return ok;
}

int linux_run(const struct scenario *s, const struct linux_run_opts *o, struct scn_result *r,
              struct linux_run_info *info, char *err, size_t errlen)
{
    static const struct linux_run_opts none = { 0 };
    struct lx_run run = { 0 };
    struct sigaction sa = { .sa_handler = on_stop_signal }, old_sa;
    struct utsname u;
    struct sched_param conductor_param;
    int conductor_policy = -1;
    /* The CPUs the conductor may use as it came, and those it moves to
     * (0: it stayed). */
    cpu_set_t conductor_cpus;
    uint64_t conductor_mask = 0, conductor_spare = 0;
    int rc = -1, e;

    if (!o)
        o = &none;
    memset(info, 0, sizeof *info);
    memset(r, 0, sizeof *r);
    if (linux_refuses(s, err, errlen) < 0 || linux_refuses_rt_hog(s, o->allow_rt_hog, err, errlen) < 0)
        return -1;
    if (uname(&u) == 0)
        snprintf(info->kernel, sizeof info->kernel, "%s", u.release);
    info->hz = linux_hz();
    info->host_cpus = (unsigned)__builtin_popcountll(linux_online_cpus());
    info->check_ns = lx_measure_check_ns();
    CPU_ZERO(&conductor_cpus);
    if (sched_getaffinity(0, sizeof conductor_cpus, &conductor_cpus) == 0)
        for (int c = 0; c < 64; c++)
            if (CPU_ISSET(c, &conductor_cpus))
                conductor_mask |= 1ull << c;

    run.s = s;
    run.o = o;
    run.n = scn_ninstances(s);
    run.stop_signal = SIGRTMIN;
    pthread_mutex_init(&run.lock, NULL);
    pthread_cond_init(&run.cond, NULL);
    run.k = xcalloc(run.n, sizeof *run.k);
    run.fds = xcalloc(s->npipes ? (size_t)s->npipes : 1, sizeof *run.fds);
    for (int p = 0; p < s->npipes; p++)
        for (int c = 0; c < SCN_MAX_INSTANCES; c++)
            run.fds[p][c][0] = run.fds[p][c][1] = -1;
    /* No SA_RESTART: the signal must end a sleep or a pipe wait (EINTR). */
    sigemptyset(&sa.sa_mask);
    sigaction(run.stop_signal, &sa, &old_sa);
    lx_note(&run, "every thread: timer slack 1ns (Linux's default 50us would add to each wakeup's lateness)");

    if (lx_make_pipes(&run, err, errlen) < 0)
        goto out;

    /* The threads, each with its sample store, waiting at the start line. */
    size_t budget = LX_SAMPLES_MAX / run.n;
    for (unsigned i = 0; i < run.n; i++) {
        struct lx_thread *k = &run.k[i];
        int line = scn_instance(s, i, &k->index);
        k->run = &run;
        k->t = &s->tasks[line];
        k->instance = i;
        k->start_cpu = -1;
        k->cap = lx_samples_wanted(s, k->t);
        if (k->cap > budget)
            k->cap = budget;
        unsigned maxbytes = 1;
        for (int j = 0; j < k->t->nsteps; j++)
            if (k->t->steps[j].kind == SCN_READ || k->t->steps[j].kind == SCN_WRITE)
                maxbytes = k->t->steps[j].bytes > maxbytes ? k->t->steps[j].bytes : maxbytes;
        k->buf = xcalloc(1, maxbytes);
        /* Not xmalloc: the run's largest allocation, and a thread without
         * room for samples still runs, its wakeups counted as dropped. */
        k->samples = k->cap ? malloc(k->cap * sizeof *k->samples) : NULL;
        if (k->cap && !k->samples) {
            lx_note(&run, "%s: no memory for %zu lateness samples: its wakeups are counted as dropped", k->t->name,
                    k->cap);
            k->cap = 0;
        }
        /* Touched now, so no page fault lands in the window. */
        if (k->samples)
            memset(k->samples, 0, k->cap * sizeof *k->samples);
        __atomic_add_fetch(&run.alive, 1, __ATOMIC_ACQ_REL);
        if ((e = pthread_create(&k->th, NULL, thread_main, k))) {
            __atomic_sub_fetch(&run.alive, 1, __ATOMIC_ACQ_REL);
            lx_err(err, errlen, "%s: pthread_create (instance %u of %u): %s", s->name, i, run.n, strerror(e));
            goto stop;
        }
        k->created = true;
    }
    pthread_mutex_lock(&run.lock);
    while (run.born < run.n)
        pthread_cond_wait(&run.cond, &run.lock);
    pthread_mutex_unlock(&run.lock);
    for (unsigned i = 0; i < run.n; i++)
        if (lx_setup_thread(&run, &run.k[i], &info->thread[i], err, errlen) < 0)
            goto stop;
    info->nthreads = run.n;

    /* The conductor (this thread) leaves the scenario's CPUs when this
     * process may use another: it wakes every LX_STOP_POLL_NS to look at
     * *stop, and what runs there but the scenario's threads is time taken
     * from them (docs/experiments.md, "Measurement you can trust"). The
     * recorder's reader, started from it by ready(), goes the same way
     * (lxrec.h). With no CPU to spare it stays where it may run. */
    uint64_t used = 0;
    for (unsigned i = 0; i < run.n; i++)
        used |= info->thread[i].cpumask;
    if (CPU_COUNT(&conductor_cpus) && (conductor_spare = conductor_mask & ~used) != 0) {
        cpu_set_t spare;
        CPU_ZERO(&spare);
        for (int c = 0; c < 64; c++)
            if (conductor_spare >> c & 1)
                CPU_SET(c, &spare);
        if (sched_setaffinity(0, sizeof spare, &spare) == 0) {
            lx_note(&run, "conductor: on CPUs 0x%" PRIx64 ", off the scenario's 0x%" PRIx64, conductor_spare, used);
        } else {
            lx_note(&run, "conductor: stays on the scenario's CPUs 0x%" PRIx64 ", sched_setaffinity: %s", used,
                    strerror(errno));
            conductor_spare = 0;
        }
    }

    /* With RT tasks the conductor would wait behind them, up to the RT
     * budget, to end the window: it goes above them, asleep all but twice. */
    bool any_rt = false;
    for (int i = 0; i < s->ntasks; i++)
        any_rt |= s->tasks[i].rt;
    if (any_rt && (e = pthread_getschedparam(pthread_self(), &conductor_policy, &conductor_param)) == 0) {
        struct sched_param top = { .sched_priority = 99 };
        if ((e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &top))) {
            conductor_policy = -1;
            lx_err(err, errlen, "%s: the conductor thread cannot take SCHED_FIFO 99 above the RT tasks: %s", s->name,
                   strerror(e));
            goto stop;
        }
        lx_note(&run, "conductor: SCHED_FIFO 99 for the run, so the RT tasks cannot hold off the window's end");
    }

    if (o->ready && o->ready(o->ctx, info->thread, run.n, err, errlen) != 0)
        goto stop;

    /* The start line. */
    pthread_mutex_lock(&run.lock);
    run.t_start = mono_ns() + LX_LEAD_NS + run.n * LX_LEAD_PER_THREAD_NS;
    run.t_end_nominal = run.t_start + s->run_ns;
    for (unsigned i = 0; i < run.n; i++)
        run.k[i].arrive_at = run.t_start + run.k[i].t->arrive_ns;
    run.go = 1;
    pthread_cond_broadcast(&run.cond);
    pthread_mutex_unlock(&run.lock);
    info->t_start = run.t_start;
    if (!lx_alt_start(&run))
        lx_note(&run, "recorder A/B: out of memory; not alternating");

    bool interrupted = false;
    for (uint64_t now; (now = mono_ns()) < run.t_end_nominal;) {
        if (o->stop && *o->stop) {
            interrupted = true;
            break;
        }
        uint64_t until = now + LX_STOP_POLL_NS < run.t_end_nominal ? now + LX_STOP_POLL_NS : run.t_end_nominal;
        until = lx_alt_step(&run, now, until);
        struct timespec ts = { (time_t)(until / 1000000000ull), (long)(until % 1000000000ull) };
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    uint64_t t_end = mono_ns();
    lx_read_at_end(&run);
    info->t_end = t_end;
    if (o->ended)
        o->ended(o->ctx);
    if (stop_threads(&run) < 0)
        lx_note(&run, "some threads took more than 5 s to stop");
    lx_alt_report(&run, t_end);
    lx_fill_result(&run, t_end, r, info);
    rc = 0;
    for (unsigned i = 0; i < run.n && rc == 0; i++)
        if (run.k[i].error[0])
            rc = lx_err(err, errlen, "%s: %s: %s", s->name, info->thread[i].name, run.k[i].error);
    if (rc == 0 && interrupted)
        rc = lx_err(err, errlen, "%s: interrupted after %" PRIu64 " of %" PRIu64 " ms", s->name,
                    t_end > run.t_start ? (t_end - run.t_start) / 1000000 : 0, s->run_ns / 1000000);
    goto out;

stop:
    stop_threads(&run);
out:
    lx_alt_free(&run);
    if (conductor_policy >= 0)
        pthread_setschedparam(pthread_self(), conductor_policy, &conductor_param);
    if (conductor_spare)
        sched_setaffinity(0, sizeof conductor_cpus, &conductor_cpus);
    sigaction(run.stop_signal, &old_sa, NULL);
    for (int p = 0; p < s->npipes; p++)
        for (int c = 0; c < SCN_MAX_INSTANCES; c++)
            for (int end = 0; end < 2; end++)
                if (run.fds[p][c][end] >= 0)
                    close(run.fds[p][c][end]);
    for (unsigned i = 0; i < run.n; i++) {
        free(run.k[i].buf);
        free(run.k[i].samples);
    }
    free(run.k);
    free(run.fds);
    pthread_cond_destroy(&run.cond);
    pthread_mutex_destroy(&run.lock);
    return rc;
}
