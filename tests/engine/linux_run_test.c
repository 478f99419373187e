/*
 * The Linux engine's runner (host/engine/linux/run.c, host/engine/linux/refuse.c) on this host's
 * Linux: what it refuses and why, and that a run does what the scenario
 * says, checked by what Linux itself reports (getpriority,
 * sched_getscheduler, sched_getaffinity inside the ready hook) and by
 * counts, never by a latency bound: the host is noisy.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "host/base/clock.h"
#include "host/engine/linux/run.h"
#include "tests/harness.h"

static struct scn_result res;
static char notes_text[4096];

/* Ends a notes stream: its text into notes_text, the stream's memory freed. */
static void notes_close(FILE *f, char **buf)
{
    fclose(f); /* sets *buf */
    snprintf(notes_text, sizeof notes_text, "%s", *buf ? *buf : "");
    free(*buf);
    *buf = NULL;
}
static struct linux_run_info info;

/* Parses text as a scenario file called "t.scn". */
static int parse(const char *text, struct scenario *s, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f) {
        snprintf(err, errlen, "fmemopen: %s", strerror(errno));
        return -1;
    }
    int rc = scn_parse(f, "t.scn", s, err, errlen);
    fclose(f);
    return rc;
}

static unsigned host_cpus(void)
{
    return (unsigned)__builtin_popcountll(linux_online_cpus());
}

/* ---- refusals ---- */

struct refusal {
    const char *text;
    const char *want[2]; /* substrings of the reason; NULL: accepted */
};

static void refusals(void)
{
    static char s_buf[sizeof(struct scenario)];
    struct scenario *s = (struct scenario *)s_buf;
    char err[512], text[256];
    long long rt_runtime = -2;
    FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
    if (f) {
        if (fscanf(f, "%lld", &rt_runtime) != 1)
            rt_runtime = -2;
        fclose(f);
    }
    unsigned hz = linux_hz();
    CHECK(hz == 100 || hz == 250 || hz == 300 || hz == 1000, "linux_hz() says %u", hz);
    snprintf(text, sizeof text, "cpus 1\nknob rt_runtime_us %lld\ntask a\n", rt_runtime);
    char hz_ok[64], hz_bad[64], tick_bad[64];
    snprintf(hz_ok, sizeof hz_ok, "cpus 1\nhz %u\ntask a\n", hz);
    snprintf(hz_bad, sizeof hz_bad, "cpus 1\nhz %u\ntask a\n", hz == 100 ? 1000 : 100);
    snprintf(tick_bad, sizeof tick_bad, "cpus 1\ntick %s\ntask a\n", hz == 100 ? "1ms" : "10ms");
    char cpus_bad[64];
    snprintf(cpus_bad, sizeof cpus_bad, "# more CPUs than the host\ncpus %u\ntask a\n", host_cpus() + 1);
    const struct refusal cases[] = {
        { "cpus 1\npolicy rr\ntask a\n", { "t.scn:2: policy rr", "SCHED_RR is an RT policy" } },
        { "cpus 1\nfeature HRTICK on\ntask a\n", { "feature HRTICK on", "/sys/kernel/debug/sched/features" } },
        { "cpus 1\nknob replace_on_release 0\ntask a\n", { "t.scn:2: knob replace_on_release", "no Linux counterpart" } },
        { "cpus 1\nknob rt_runtime_us 123456\ntask a\n", { "t.scn:2: knob rt_runtime_us 123456",
                                                          "sysctl kernel.sched_rt_runtime_us=123456" } },
        { "cpus 1\nknob rt_period_us 2000000\ntask a\n", { "t.scn:2: knob rt_period_us", "sched_rt_period_us" } },
        { text, { NULL, NULL } },
        { hz_ok, { NULL, NULL } },
        { hz_bad, { "t.scn:2: hz", "CONFIG_HZ" } },
        { tick_bad, { "t.scn:2: tick", "CONFIG_HZ" } },
        { cpus_bad, { "t.scn:2: cpus", "scenario CPU n is host CPU n" } },
        { "task a\n", { "t.scn: cpus 4 (the default)", NULL } },
        { "cpus 1\nquantum 10us\nrun 1ms\ntask a\n", { NULL, NULL } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct refusal *c = &cases[i];
        if (strstr(c->text, "rt_runtime_us") && rt_runtime == -2)
            continue;
        if (!strncmp(c->text, "task a", 6) && host_cpus() >= 4)
            continue; /* the default 4 CPUs fit this host */
        CHECK(parse(c->text, s, err, sizeof err) == 0, "case %zu does not parse: %s", i, err);
        err[0] = '\0';
        int rc = linux_refuses(s, err, sizeof err);
        if (!c->want[0]) {
            CHECK(rc == 0, "case %zu (%s) refused: %s", i, c->text, err);
            continue;
        }
        CHECK(rc < 0, "case %zu (%s) not refused", i, c->text);
        for (int w = 0; w < 2; w++)
            CHECK(!c->want[w] || strstr(err, c->want[w]), "case %zu: '%s' lacks '%s'", i, err, c->want[w]);
    }

    /* A task mask past the host's CPUs: the parser keeps masks within
     * cpus, so cpus is lowered under it, as an engine would get it. */
    CHECK(host_cpus() < 32, "this test wants a host of fewer than 32 CPUs");
    CHECK(parse("cpus 32\nrun 1ms\ntask a cpu=31\n", s, err, sizeof err) == 0, "%s", err);
    s->cpus = 1;
    CHECK(linux_refuses(s, err, sizeof err) < 0 && strstr(err, "t.scn:3: task a: cpu 31"), "mask: '%s'", err);

    /* Without root, an RT priority and a negative nice are refused by a
     * trial, naming their lines. */
    if (geteuid() == 0) {
        int p[2];
        CHECK(pipe(p) == 0, "pipe");
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            char out[2][512] = { "", "" };
            close(p[0]);
            if (setresuid(65534, 65534, 65534) == 0) {
                struct rlimit none = { 0, 0 };
                setrlimit(RLIMIT_RTPRIO, &none);
                setrlimit(RLIMIT_NICE, &none);
                if (parse("cpus 1\nrun 1ms\ntask a\ntask r class=rt prio=20\n", s, out[0], sizeof out[0]) == 0)
                    linux_refuses(s, out[0], sizeof out[0]);
                if (parse("cpus 1\nrun 1ms\ntask a\ntask n nice=-5\n", s, out[1], sizeof out[1]) == 0)
                    linux_refuses(s, out[1], sizeof out[1]);
            }
            if (write(p[1], out, sizeof out) != (ssize_t)sizeof out)
                _exit(1);
            _exit(0);
        }
        char got[2][512] = { "", "" };
        close(p[1]);
        ssize_t n = read(p[0], got, sizeof got);
        close(p[0]);
        waitpid(pid, NULL, 0);
        CHECK(n == (ssize_t)sizeof got, "the unprivileged child said nothing");
        CHECK(strstr(got[0], "t.scn:4: class=rt prio=20") && strstr(got[0], "CAP_SYS_NICE"), "rt: '%s'", got[0]);
        CHECK(strstr(got[1], "t.scn:4: nice=-5") && strstr(got[1], "CAP_SYS_NICE"), "nice: '%s'", got[1]);
    }
    harness_detail("%zu scenarios, this Linux at %u Hz", sizeof cases / sizeof cases[0] + 1, hz);
}

/* ---- runs ---- */

#define MAX_TARGETS 4096
static struct {
    uint64_t v[2][MAX_TARGETS];
    unsigned n[2];
    unsigned other; /* instances other than 0 and 1: must not happen */
} targets;

static void on_target(void *ctx, unsigned instance, uint64_t t)
{
    (void)ctx;
    if (instance < 2 && targets.n[instance] < MAX_TARGETS)
        targets.v[instance][targets.n[instance]++] = t;
    else if (instance >= 2)
        __atomic_add_fetch(&targets.other, 1, __ATOMIC_RELAXED);
}

static int run_text(const char *text, const struct linux_run_opts *o, char *err, size_t errlen)
{
    static char s_buf[sizeof(struct scenario)];
    struct scenario *s = (struct scenario *)s_buf;
    if (parse(text, s, err, errlen) < 0)
        return -1;
    return linux_run(s, o, &res, &info, err, errlen);
}

static void periodic_targets(void)
{
    static char s_buf[sizeof(struct scenario)];
    struct scenario *s = (struct scenario *)s_buf;
    const char *text = "cpus 2\nquantum 10us\nrun 1s\nseed 7\ntask p*2 cpu=0-1 pattern=run:100us,every:5ms:30%\n";
    struct linux_run_opts o = { .target = on_target };
    char err[512];

    memset(&targets, 0, sizeof targets);
    CHECK(parse(text, s, err, sizeof err) == 0, "%s", err);
    CHECK(linux_run(s, &o, &res, &info, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(res.engine, "linux") && res.has_iters, "engine '%s'", res.engine);
    for (unsigned i = 0; i < 2; i++) {
        const struct scn_stats *st = &res.task[i].st;
        uint64_t expect = (info.t_end - info.t_start) / 5000000;
        CHECK(st->wakeups * 10 >= expect * 9 && st->wakeups * 10 <= expect * 11, "p%u: %lu wakeups, %lu periods",
              i, (unsigned long)st->wakeups, (unsigned long)expect);
        /* Every target is the last plus scn_draw_period from this
         * instance's own stream; the first is its arrival plus one. */
        uint64_t rng = scn_rng_init(7, i), t = info.t_start;
        unsigned within = 0;
        CHECK(targets.n[i] > 0, "p%u drew no targets", i);
        for (unsigned k = 0; k < targets.n[i]; k++) {
            t += scn_draw_period(&rng, 5000000, 300);
            CHECK(targets.v[i][k] == t, "p%u target %u is %lu, the draws say %lu", i, k,
                  (unsigned long)targets.v[i][k], (unsigned long)t);
            within += t <= info.t_end;
        }
        /* Each target within the window was slept for or missed; the last
         * one's wake may fall just past the end. */
        CHECK(st->wakeups + st->missed + 1 >= within && st->wakeups + st->missed <= within,
              "p%u: %lu wakeups + %lu missed, %u targets in the window", i, (unsigned long)st->wakeups,
              (unsigned long)st->missed, within);
    }
    CHECK(targets.other == 0, "targets for instances that do not exist");
    CHECK(res.line[0].wakeups == res.task[0].st.wakeups + res.task[1].st.wakeups && res.line[0].ntasks == 2,
          "the line has %lu wakeups, its tasks %lu + %lu", (unsigned long)res.line[0].wakeups,
          (unsigned long)res.task[0].st.wakeups, (unsigned long)res.task[1].st.wakeups);
    CHECK(res.line[0].late[4] >= res.task[0].st.late[4] && res.line[0].late[4] >= res.task[1].st.late[4],
          "the line's max is below a task's");
    harness_detail("%lu and %lu wakeups, %u targets drawn as the seed says, check %lu ns",
                   (unsigned long)res.task[0].st.wakeups, (unsigned long)res.task[1].st.wakeups,
                   targets.n[0] + targets.n[1], (unsigned long)info.check_ns);
}

static void pipe_pingpong(void)
{
    char err[512], *notes = NULL;
    size_t nlen = 0;
    FILE *nf = open_memstream(&notes, &nlen);
    struct linux_run_opts o = { .notes = nf };
    /* main writes twice for each read: a write counted as a read would
     * show; echo's 2-byte read may take two read() calls, and is one. */
    const char *text = "cpus 2\nrun 300ms\npipe ping size=64\npipe pong\n"
                       "task main cpu=1 pattern=write:ping,write:ping,read:pong\n"
                       "task echo cpu=1 pattern=read:ping:2,write:pong\n";

    int rc = run_text(text, &o, err, sizeof err);
    notes_close(nf, &notes);
    CHECK(rc == 0, "%s", err);
    const struct scn_stats *m = &res.task[0].st, *e = &res.task[1].st;
    CHECK(m->reads > 100, "main read %lu times", (unsigned long)m->reads);
    CHECK(m->reads + 1 >= e->reads && e->reads + 1 >= m->reads, "main %lu reads, echo %lu",
          (unsigned long)m->reads, (unsigned long)e->reads);
    /* Each blocks at most once a read or write it makes, and did block. */
    CHECK(m->vcsw > 0 && e->vcsw > 0 && m->vcsw <= 2 * m->reads + 10 && e->vcsw <= 2 * e->reads + 10 &&
              m->ivcsw <= 2 * m->reads + 10,
          "main vcsw %lu ivcsw %lu, echo vcsw %lu, for %lu reads", (unsigned long)m->vcsw, (unsigned long)m->ivcsw,
          (unsigned long)e->vcsw, (unsigned long)m->reads);
    CHECK(res.line[0].reads == m->reads && res.line[0].vcsw == m->vcsw, "the line's counts are not its task's");
    CHECK(info.thread[0].cpumask == 2 && info.thread[1].cpumask == 2, "masks %lx %lx",
          (unsigned long)info.thread[0].cpumask, (unsigned long)info.thread[1].cpumask);
    CHECK(strstr(notes_text, "pipe ping: size 64 asked, the Linux pipe holds 4096"), "notes: %s", notes_text);
    harness_detail("%lu handoffs, main vcsw %lu ivcsw %lu", (unsigned long)m->reads, (unsigned long)m->vcsw,
                   (unsigned long)m->ivcsw);
}

static int check_affinity(void *ctx, const struct linux_thread *t, unsigned n, char *err, size_t errlen)
{
    (void)ctx;
    for (unsigned i = 0; i < n; i++) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(t[i].tid, sizeof set, &set) < 0 || CPU_COUNT(&set) != 1 || !CPU_ISSET(1, &set)) {
            snprintf(err, errlen, "%s (tid %d) may run on %d CPUs, not just CPU 1", t[i].name, (int)t[i].tid,
                     CPU_COUNT(&set));
            return -1;
        }
    }
    return 0;
}

/* The hog's CPU time by Linux's own account (schedstat's first field) and
 * the monotonic clock, at the start line and after the window. */
static struct {
    pid_t tid;
    uint64_t ss[2], t[2];
} hog_ss;

static uint64_t schedstat_ns(pid_t tid)
{
    char path[64];
    unsigned long long ns = 0;
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &ns) != 1)
            ns = 0;
        fclose(f);
    }
    return ns;
}

static int hog_ready(void *ctx, const struct linux_thread *t, unsigned n, char *err, size_t errlen)
{
    hog_ss.tid = t[0].tid;
    hog_ss.ss[0] = schedstat_ns(t[0].tid);
    hog_ss.t[0] = mono_ns();
    return check_affinity(ctx, t, n, err, errlen);
}

static void hog_ended(void *ctx)
{
    (void)ctx;
    hog_ss.ss[1] = schedstat_ns(hog_ss.tid);
    hog_ss.t[1] = mono_ns();
}

/* A hog alone on its CPU: its runtime is what Linux says it ran in the
 * window. Not how much of the window it got: that depends on whatever
 * else the machine runs (make test runs suites side by side, and a
 * bound of 90 % failed under load); so the runner's figure is held
 * against schedstat's between the start line and the window's end, which
 * must hold it and exceed it by at most the time outside the window. */
static void hog_alone(void)
{
    char err[512];
    struct linux_run_opts o = { .ready = hog_ready, .ended = hog_ended };
    CHECK(run_text("cpus 2\nrun 300ms\ntask hog cpu=1\n", &o, err, sizeof err) == 0, "%s", err);
    const struct scn_stats *st = &res.task[0].st;
    CHECK(st->window_ns > 250000000 && st->window_ns < 400000000, "window %lu ns", (unsigned long)st->window_ns);
    uint64_t linux_ns = hog_ss.ss[1] - hog_ss.ss[0];
    uint64_t outside = (info.t_start - hog_ss.t[0]) + (hog_ss.t[1] - info.t_end);
    CHECK(st->runtime_ns > 0 && st->runtime_ns <= st->window_ns + 1000000, "runtime %lu ns of a %lu ns window",
          (unsigned long)st->runtime_ns, (unsigned long)st->window_ns);
    CHECK(st->runtime_ns <= linux_ns + 1000000 && linux_ns <= st->runtime_ns + outside + 1000000,
          "runtime %lu ns, schedstat %lu ns over the window and %lu ns outside it", (unsigned long)st->runtime_ns,
          (unsigned long)linux_ns, (unsigned long)outside);
    CHECK(st->iters > 0, "no iterations");
    CHECK(res.task[0].tid == info.thread[0].tid && !strcmp(info.thread[0].name, "hog"), "tid %d name %s",
          res.task[0].tid, info.thread[0].name);
    harness_detail("%.1f%% of the window, schedstat %.1f ms, %lu rounds",
                   100.0 * (double)st->runtime_ns / (double)st->window_ns, (double)linux_ns / 1e6,
                   (unsigned long)st->iters);
}

static void slice_clamp(void)
{
    static char s_buf[sizeof(struct scenario)];
    struct scenario *s = (struct scenario *)s_buf;
    char err[512], *notes = NULL;
    size_t nlen = 0;

    CHECK(parse("cpus 1\nrun 20ms\ntask a slice=3ms\ntask probe slice=100us\n", s, err, sizeof err) == 0, "%s", err);
    s->tasks[1].slice_ns = 50000; /* under Linux's clamp; the parser refuses it */
    FILE *nf = open_memstream(&notes, &nlen);
    struct linux_run_opts o = { .notes = nf };
    int rc = linux_run(s, &o, &res, &info, err, sizeof err);
    notes_close(nf, &notes);
    CHECK(rc == 0, "%s", err);
    CHECK(info.thread[0].slice_asked_ns == 3000000 && info.thread[0].slice_got_ns == 3000000, "a: asked %lu got %lu",
          (unsigned long)info.thread[0].slice_asked_ns, (unsigned long)info.thread[0].slice_got_ns);
    CHECK(info.thread[1].slice_asked_ns == 50000 && info.thread[1].slice_got_ns == 100000,
          "probe: asked %lu got %lu", (unsigned long)info.thread[1].slice_asked_ns,
          (unsigned long)info.thread[1].slice_got_ns);
    CHECK(strstr(notes_text, "probe: slice 50us asked, Linux gives 100us"), "notes: %s", notes_text);
    CHECK(!strstr(notes_text, "a: slice"), "a note for a slice Linux took as asked: %s", notes_text);
}

static int check_nice(void *ctx, const struct linux_thread *t, unsigned n, char *err, size_t errlen)
{
    const int *want = ctx;
    for (unsigned i = 0; i < n; i++) {
        errno = 0;
        int got = getpriority(PRIO_PROCESS, (id_t)t[i].tid);
        if (got != want[i] || t[i].nice != want[i] || errno) {
            snprintf(err, errlen, "%s: getpriority says %d, info %d, the scenario %d", t[i].name, got, t[i].nice,
                     want[i]);
            return -1;
        }
    }
    return 0;
}

static void nice_set(void)
{
    char err[512];
    int want[2] = { 5, geteuid() == 0 ? -3 : 2 };
    char text[128];
    /* a's slice is set by a second call, which carries the nice too. */
    snprintf(text, sizeof text, "cpus 1\nrun 20ms\ntask a nice=%d slice=3ms\ntask b nice=%d\n", want[0], want[1]);
    struct linux_run_opts o = { .ready = check_nice, .ctx = want };
    CHECK(run_text(text, &o, err, sizeof err) == 0, "%s", err);
    harness_detail("nice %d and %d", want[0], want[1]);
}

static int check_rt(void *ctx, const struct linux_thread *t, unsigned n, char *err, size_t errlen)
{
    (void)ctx;
    static const int want[2] = { SCHED_FIFO, SCHED_RR };
    for (unsigned i = 0; i < n; i++) {
        struct sched_param p;
        int policy = sched_getscheduler(t[i].tid);
        if (policy != want[i] || sched_getparam(t[i].tid, &p) < 0 || p.sched_priority != 10 || !t[i].rt) {
            snprintf(err, errlen, "%s: policy %d priority %d, want policy %d priority 10", t[i].name, policy,
                     p.sched_priority, want[i]);
            return -1;
        }
    }
    return 0;
}

static void rt_class(void)
{
    char err[512];
    if (geteuid() != 0) {
        harness_skip("not root: Linux gives RT priorities to root or CAP_SYS_NICE");
        return;
    }
    struct linux_run_opts o = { .ready = check_rt };
    CHECK(run_text("cpus 2\nquantum 10us\nrun 50ms\ntask r cpu=1 class=rt prio=10 pattern=run:1ms,sleep:4ms\n"
                   "task q cpu=1 class=rt prio=10 rt=rr pattern=run:1ms,sleep:4ms\n",
                   &o, err, sizeof err) == 0,
          "%s", err);
    CHECK(res.task[0].st.wakeups > 0, "the RT task never woke");
    int policy = sched_getscheduler(0);
    CHECK(policy == SCHED_OTHER, "the conductor kept policy %d after the run", policy);
}

static volatile sig_atomic_t stop_flag;

static void *stopper(void *arg)
{
    (void)arg;
    struct timespec d = { 0, 200000000 };
    nanosleep(&d, NULL);
    stop_flag = 1;
    return NULL;
}

static int ended_calls;
static void count_ended(void *ctx)
{
    (void)ctx;
    ended_calls++;
}

static void stop_early(void)
{
    char err[512] = "";
    pthread_t th;
    struct timespec t0, t1;
    struct linux_run_opts o = { .stop = &stop_flag, .ended = count_ended };

    stop_flag = 0;
    ended_calls = 0;
    CHECK(pthread_create(&th, NULL, stopper, NULL) == 0, "pthread_create");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = run_text("cpus 2\nquantum 10us\nrun 20s\npipe p\ntask hog cpu=0\ntask w cpu=1 pattern=run:1ms,every:10s\n"
                      "task r cpu=1 pattern=read:p\ntask wr cpu=1 pattern=run:1ms,sleep:10s,run:1ms,write:p\n",
                      &o, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_join(th, NULL);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(rc < 0 && strstr(err, "interrupted"), "rc %d err '%s'", rc, err);
    CHECK(s < 3.0, "the run took %.2f s after a stop at 0.2 s", s);
    CHECK(ended_calls == 1, "ended() called %d times", ended_calls);
    harness_detail("%s; %.2f s", err, s);
}

static const struct harness_test tests[] = {
    HARNESS_TEST(refusals),   HARNESS_TEST(periodic_targets), HARNESS_TEST(pipe_pingpong), HARNESS_TEST(hog_alone),
    HARNESS_TEST(slice_clamp), HARNESS_TEST(nice_set),        HARNESS_TEST(rt_class),      HARNESS_TEST(stop_early),
};

HARNESS_MAIN(tests)
