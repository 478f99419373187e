/*
 * The Linux recorder's test program (tests/engine/linux_trace_test.sh runs it).
 *
 *   linux_pingpong DB [--ms N]   two threads, "ping" and "pong", both
 *       pinned to the last CPU, pass one byte back and forth over two
 *       pipes for N ms (default 1000) while host/engine/linux/lxrec.c records every
 *       CPU into DB. Each thread reads its own schedstat (ns on a CPU) and
 *       the clock when its window starts and ends; the program prints
 *       "trace ID" and, for each thread, "tid TID NAME RUN_NS T0 T1", so
 *       the script can hold the trace against what Linux itself counted;
 *       first "recording pid PID", PID naming the instance runq-PID.
 *   linux_pingpong DB --wait     records with no threads until SIGINT or
 *       SIGTERM (at most 60 s), then stops the way a runq stopped by ^C
 *       does: the recording ends, its instance goes, the trace is stored
 *       as interrupted, and it exits 130 saying so.
 *   linux_pingpong --hostile     the page decoder (host/engine/linux/ftrace.c) on a
 *       page it builds, then on that page truncated and corrupted, and on
 *       random mutations of it: every bad page must be counted malformed,
 *       none may crash (ASan watches), the good one decodes exactly.
 *
 * Exit: 0; 1 a failure (said on stderr); 3 the recording could not start
 * (no root or tracefs: the script skips); 130 interrupted.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host/base/clock.h"
#include "host/engine/linux/ftrace.h"
#include "host/engine/linux/lxrec.h"
#include "trace/format.h"

#define HOST_HZ 250 /* CONFIG_HZ of the test machine: the trace only stores it */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    stop_flag = sig;
}

/* ---- the ping-pong ---- */

struct player {
    const char *name;
    int in, out; /* pipe ends */
    int cpu, serves;
    uint64_t deadline;
    pthread_barrier_t *go;
    pid_t tid;
    uint64_t run0, run1, t0, t1;
    int failed;
};

/* The first field of the thread's schedstat: its time on a CPU, ns. */
static uint64_t schedstat_run(pid_t tid)
{
    char path[64];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", (long)tid);
    FILE *f = fopen(path, "re");
    if (!f || fscanf(f, "%llu", &v) != 1)
        v = 0;
    if (f)
        fclose(f);
    return v;
}

static void *play(void *arg)
{
    struct player *p = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(p->cpu, &set);
    p->failed = pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0;
    pthread_setname_np(pthread_self(), p->name);
    p->tid = gettid();
    pthread_barrier_wait(p->go);
    p->t0 = mono_ns();
    p->run0 = schedstat_run(p->tid);
    char b = 'x';
    if (p->serves) {
        while (mono_ns() < p->deadline && !stop_flag)
            if (write(p->out, &b, 1) != 1 || read(p->in, &b, 1) != 1)
                break;
        b = 'q';
        if (write(p->out, &b, 1) != 1)
            p->failed = 1;
    } else {
        while (read(p->in, &b, 1) == 1 && b != 'q')
            if (write(p->out, &b, 1) != 1)
                break;
    }
    p->run1 = schedstat_run(p->tid);
    p->t1 = mono_ns();
    return NULL;
}

/* Records the ping-pong (ms > 0) or nothing until a signal (ms 0). */
static int record(const char *db, unsigned ms)
{
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int ncpus = get_nprocs(), cpu = ncpus - 1;
    char err[512];
    struct lxrec *r = lxrec_start(NULL, 1ull << cpu, err, sizeof err);
    if (!r) {
        fprintf(stderr, "linux_pingpong: %s\n", err);
        return 3;
    }
    printf("recording pid %ld\n", (long)getpid());
    fflush(stdout);

    struct player pl[2] = { { .name = "ping", .serves = 1 }, { .name = "pong" } };
    struct lxrec_task tasks[2];
    int fds[2][2], rc = 0;
    uint64_t t_start = mono_ns(), t_end;
    if (ms == 0) {
        for (int i = 0; i < 600 && !stop_flag; i++)
            usleep(100 * 1000);
        t_end = mono_ns();
    } else {
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 3);
        pthread_t th[2];
        if (pipe(fds[0]) || pipe(fds[1])) {
            fprintf(stderr, "linux_pingpong: pipe: %s\n", strerror(errno));
            lxrec_free(r);
            return 1;
        }
        for (int i = 0; i < 2; i++) {
            pl[i].in = fds[i][0];
            pl[i].out = fds[1 - i][1];
            pl[i].cpu = cpu;
            pl[i].go = &go;
            pthread_create(&th[i], NULL, play, &pl[i]);
        }
        t_start = mono_ns();
        pl[0].deadline = t_start + (uint64_t)ms * 1000000ull;
        pthread_barrier_wait(&go);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        t_end = mono_ns();
        pthread_barrier_destroy(&go);
        for (int i = 0; i < 2; i++) {
            close(fds[i][0]);
            close(fds[i][1]);
            rc |= pl[i].failed;
            tasks[i] = (struct lxrec_task){ .tid = pl[i].tid, .name = pl[i].name, .cpu = cpu };
        }
    }
    if (lxrec_stop(r, err, sizeof err)) {
        fprintf(stderr, "linux_pingpong: %s\n", err);
        rc = 1;
    }
    struct utsname u;
    uname(&u);
    struct lxrec_meta m = { .db = db, .source = "linux:tests/linux_pingpong", .kernel_version = u.release,
                            .ncpus = (unsigned)ncpus, .hz = HOST_HZ, .scn_cpus = 1ull << cpu,
                            .tasks = tasks, .ntasks = ms ? 2 : 0, .t_start = t_start, .t_end = t_end,
                            .end_reason = stop_flag ? "interrupted" : NULL };
    int64_t id = 0;
    if (lxrec_write(r, &m, &id, err, sizeof err)) {
        fprintf(stderr, "linux_pingpong: %s\n", err);
        rc = 1;
    }
    struct lxrec_counts c;
    lxrec_counts(r, &c);
    lxrec_free(r);
    printf("trace %lld\n", (long long)id);
    printf("pages %llu malformed %llu events %llu missed %llu dropped %llu\n", (unsigned long long)c.pages,
           (unsigned long long)c.pages_malformed, (unsigned long long)c.events, (unsigned long long)c.missed,
           (unsigned long long)c.dropped);
    for (int i = 0; ms && i < 2; i++)
        printf("tid %ld %s %llu %llu %llu\n", (long)pl[i].tid, pl[i].name,
               (unsigned long long)(pl[i].run1 - pl[i].run0), (unsigned long long)pl[i].t0,
               (unsigned long long)pl[i].t1);
    if (stop_flag) {
        fprintf(stderr, "linux_pingpong: interrupted: the recording stopped, its tracing instance is removed and "
                        "trace %lld is stored as interrupted\n", (long long)id);
        return 130;
    }
    return rc;
}

/* ---- the decoder on hostile pages ---- */

/* This machine's events/header_page (Linux 6.18, x86-64). */
static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                                  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                                  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                                  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char migrate_format[] = "name: sched_migrate_task\nID: 371\nformat:\n"
                                     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                                     "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
                                     "\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
                                     "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
                                     "\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n"
                                     "print fmt: \"comm=%s\", __get_str(comm)\n";

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "linux_pingpong --hostile: %s\n", what);
        failures++;
    }
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* A page of 5 data events and every other kind of entry; want[] their times. */
static size_t build_page(uint8_t *pg, unsigned size, uint64_t want[5])
{
    memset(pg, 0, size);
    uint64_t ts = 1000000000ull;
    put64(pg, ts);
    uint8_t *d = pg + 16;
    size_t o = 0;
    /* data, 8 bytes, delta 100 */
    put32(d + o, 2u | 100u << 5);
    put32(d + o + 4, 0x11111111u);
    put32(d + o + 8, 0x22222222u);
    o += 12;
    want[0] = ts += 100;
    /* time extend by 2^27 + 5, then data with delta 0 */
    put32(d + o, 30u | 5u << 5);
    put32(d + o + 4, 1);
    o += 8;
    ts += (1ull << 27) + 5;
    put32(d + o, 1u);
    put32(d + o + 4, 7);
    o += 8;
    want[1] = ts;
    /* a discarded event (padding with a length): skipped, time unchanged */
    put32(d + o, 29u | 1u << 5);
    put32(d + o + 4, 12);
    o += 16;
    /* a long event (type_len 0): 40 bytes of data */
    put32(d + o, 0u | 7u << 5);
    put32(d + o + 4, 44);
    o += 48;
    want[2] = ts += 7;
    /* absolute time stamp, then data delta 3 */
    uint64_t abs = 5000000000ull;
    put32(d + o, 31u | (uint32_t)(abs & ((1u << 27) - 1)) << 5);
    put32(d + o + 4, (uint32_t)(abs >> 27));
    o += 8;
    put32(d + o, 1u | 3u << 5);
    o += 8;
    want[3] = abs + 3;
    put32(d + o, 1u | 1u << 5);
    o += 8;
    want[4] = abs + 4;
    put64(pg + 8, o);
    return o;
}

static int hostile(void)
{
    struct ftrace_page_layout l;
    check(ftrace_page_layout_parse(header_page, 4096, &l) == 0 && l.data_off == 16 && l.commit_size == 8,
          "header_page not parsed to data at 16, commit 8 bytes");
    struct ftrace_format f;
    check(ftrace_format_parse(migrate_format, &f) == 0 && f.id == 371, "sched_migrate_task format not parsed");
    const struct ftrace_field *comm = ftrace_field_find(&f, "comm");
    uint8_t ev[48] = { 0 };
    put32(ev + 8, 28u | 6u << 16); /* comm at 28, 6 bytes */
    memcpy(ev + 28, "pong\0\0", 6);
    char name[16] = "";
    check(comm && comm->data_loc && ftrace_get_str(comm, ev, sizeof ev, name, sizeof name) && !strcmp(name, "pong"),
          "__data_loc comm not read as 'pong'");
    put32(ev + 8, 44u | 16u << 16); /* past the event */
    check(comm && !ftrace_get_str(comm, ev, sizeof ev, name, sizeof name), "a __data_loc past the event was read");

    static uint8_t pg[4096], bad[4096];
    static struct ftrace_event out[FTRACE_MAX_EVENTS(4096)];
    uint64_t want[5];
    size_t len = build_page(pg, sizeof pg, want);
    struct ftrace_stats st = { 0 };
    struct ftrace_page_loss loss;
    int n = ftrace_page_decode(&l, pg, sizeof pg, out, &loss, &st);
    check(n == 5, "the good page does not have 5 events");
    for (int i = 0; i < n && i < 5; i++)
        check(out[i].ts == want[i], "an event's time is wrong (delta, extend or absolute stamp)");
    check(n == 5 && out[2].len == 40, "the long event's length is wrong");
    /* loss: flag + count stored after the events */
    memcpy(bad, pg, sizeof bad);
    put64(bad + 8, len | 3ull << 30);
    put64(bad + 16 + len, 42);
    n = ftrace_page_decode(&l, bad, sizeof bad, out, &loss, &st);
    check(n == 5 && loss.lost && loss.missed == 42, "a page's stored missed count (42) not read");

    uint64_t good_malformed = st.pages_malformed;
    check(good_malformed == 0, "a good page was counted malformed");
    struct {
        const char *what;
        size_t off;
        uint32_t v;
        size_t n;
    } cases[] = {
        { "truncated below its header", 0, 0, 10 },
        { "commit past the page", 8, 5000, 4096 },
        { "a long event's length past the end", 16 + 44 + 4, 4000, 4096 },
        { "a long event shorter than its length word", 16 + 44 + 4, 2, 4096 },
        { "a discarded event's length past the end", 16 + 28 + 4, 4000, 4096 },
        { "a data event cut by the commit", 8, 14, 4096 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, pg, sizeof bad);
        if (cases[i].off || cases[i].v)
            put32(bad + cases[i].off, cases[i].v);
        uint64_t before = st.pages_malformed;
        n = ftrace_page_decode(&l, bad, cases[i].n, out, &loss, &st);
        if (n >= 0 || st.pages_malformed != before + 1)
            check(0, cases[i].what);
    }
    /* Random damage: any result is allowed but a crash or an event
     * outside the page. */
    srand(12345);
    uint64_t mutated = 0;
    for (int round = 0; round < 20000; round++) {
        memcpy(bad, pg, sizeof bad);
        for (int k = 1 + rand() % 4; k > 0; k--)
            bad[rand() % (16 + len + 8)] ^= (uint8_t)(1u << (rand() % 8));
        size_t nb = rand() % 8 ? sizeof bad : (size_t)(rand() % (int)sizeof bad);
        n = ftrace_page_decode(&l, bad, nb, out, &loss, &st);
        for (int i = 0; i < n; i++)
            if (out[i].data < bad || out[i].data + out[i].len > bad + nb)
                check(0, "an event outside the page");
        mutated++;
    }
    printf("hostile: %llu pages, %llu malformed (%zu built bad), %llu events\n", (unsigned long long)st.pages,
           (unsigned long long)st.pages_malformed, sizeof cases / sizeof cases[0], (unsigned long long)st.events);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--hostile"))
        return hostile();
    if (argc == 3 && !strcmp(argv[2], "--wait"))
        return record(argv[1], 0);
    if (argc == 2 || (argc == 4 && !strcmp(argv[2], "--ms") && atoi(argv[3]) > 0))
        return record(argv[1], argc == 4 ? (unsigned)atoi(argv[3]) : 1000);
    fprintf(stderr, "usage: linux_pingpong DB [--ms N] | DB --wait | --hostile\n");
    return 2;
}
