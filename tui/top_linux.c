/*
 * runq top --linux: the live view of the host's own scheduler. The BPF
 * recorder (host/engine/linux/bpfrec.h), kept to each CPU's latest switch, gives the
 * queue as Linux holds it after its last pick there: each task's lag,
 * virtual deadline, slice, weight and eligibility against the queue's V.
 * It stores nothing unless --record FILE is given: then a second recorder
 * (host/engine/linux/record.h) records the same CPUs into FILE as runq record --linux
 * does, until the view ends. Its flags and help are host/cli/top_linux.c's.
 */
#include <curses.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/top_linux.h"
#include "db/visible.h"
#include "host/base/clock.h"
#include "host/engine/linux/bpfrec.h"
#include "host/engine/linux/record.h"
#include "host/engine/linux/run.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    stop = sig;
}

/* A task's name from /proc, made visible (it is another user's text). */
static void comm_of(int pid, char *out, size_t len)
{
    char path[64], raw[64] = "?";
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(raw, sizeof raw, f))
            snprintf(raw, sizeof raw, "?");
        fclose(f);
        raw[strcspn(raw, "\n")] = '\0';
    }
    text_visible(out, len, raw);
}

struct row {
    const struct lxb_ent *e;
    bool current;
};

static int by_deadline(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->current != y->current)
        return x->current ? -1 : 1;
    return (int64_t)(x->e->deadline - y->e->deadline) < 0 ? -1 : x->e->deadline != y->e->deadline;
}

/* Appends one line to out (a frame), at most len bytes in all. */
#define LINE(...) (n += (size_t)snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__))

static size_t frame_cpu(char *out, size_t len, unsigned cpu, const struct lxb_sample *s, uint64_t now)
{
    size_t n = 0;
    if (!s) {
        LINE("CPU %u: no switch seen yet\n\n", cpu);
        return n;
    }
    uint64_t V = lxb_avg_vruntime(s);
    double age = now > s->ts ? (double)(now - s->ts) / 1e6 : 0;
    LINE("CPU %u  V %llu  queued %u  last pick %.1f ms ago%s\n", cpu, (unsigned long long)V, s->q.nr_queued, age,
         s->q.flags & LXB_Q_CUT ? "  (queue longer than shown)" : "");
    LINE("  %7s %-16s %3s %4s %10s %10s %8s %6s %s\n", "PID", "NAME", "RUN", "ELIG", "LAG us", "DL-V us", "SLICE ms",
         "WEIGHT", "STATE");
    struct row rows[LXB_MAXQ + 1];
    unsigned nr = 0;
    if ((s->curr.flags & LXB_E_VALID) && (s->curr.flags & LXB_E_ON_RQ))
        rows[nr++] = (struct row){ &s->curr, true };
    for (unsigned i = 0; i < s->q.nents && i < LXB_MAXQ; i++)
        rows[nr++] = (struct row){ &s->ents[i], false };
    qsort(rows, nr, sizeof rows[0], by_deadline);
    for (unsigned i = 0; i < nr; i++) {
        const struct lxb_ent *e = rows[i].e;
        char name[64];
        if (e->flags & LXB_E_GROUP)
            snprintf(name, sizeof name, "[group]");
        else
            comm_of(e->pid, name, sizeof name);
        LINE("  %7d %-16.16s %3s %4s %+10.1f %+10.1f %8.3f %6llu %s\n", e->flags & LXB_E_GROUP ? 0 : e->pid, name,
             rows[i].current ? "*" : "", lxb_eligible(s, e->vruntime) ? "yes" : "no",
             (double)(int64_t)(V - e->vruntime) / 1e3, (double)(int64_t)(e->deadline - V) / 1e3, e->slice / 1e6,
             (unsigned long long)lxb_weight(e), e->flags & LXB_E_DELAYED ? "delayed" : "");
    }
    LINE("\n");
    return n;
}

struct recording {
    struct linux_record_opts o;
    int rc;
    int64_t trace;
    char err[512];
};

static void *record_thread(void *arg)
{
    struct recording *r = arg;
    r->rc = linux_record(&r->o, &r->trace, r->err, sizeof r->err);
    return NULL;
}

int top_linux(const struct top_linux_opts *o)
{
    uint64_t cpus = o->cpus ? o->cpus : linux_online_cpus();
    const char *record = o->record;
    long tenths = o->tenths, frames = o->frames;
    char why[256];
    struct bpfrec *b = bpfrec_start(cpus, 0, why, sizeof why);
    if (!b) {
        fprintf(stderr, "runq top: cannot see Linux's scheduler from inside: %s\n", why);
        return 1;
    }
    bpfrec_latest_only(b);
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    static struct recording rec;
    pthread_t rt;
    bool recording = false;
    if (record) {
        rec.o = (struct linux_record_opts){ .db = record, .cpus = cpus, .stop = &stop };
        recording = pthread_create(&rt, NULL, record_thread, &rec) == 0;
    }
    bool screen = frames == 0;
    if (screen) {
        initscr();
        cbreak();
        noecho();
        curs_set(0);
        timeout((int)(tenths * 100));
    }
    static char out[1 << 16];
    for (long k = 0; !stop && (screen || k < frames); k++) {
        struct timespec nap = { tenths / 10, (tenths % 10) * 100000000L };
        if (!screen) /* the screen waits in getch() */
            nanosleep(&nap, NULL);
        bpfrec_poll(b);
        uint64_t now = mono_ns();
        size_t n = 0;
        n += (size_t)snprintf(out + n, sizeof out - n, "runq top --linux: the host's own EEVDF state%s%s  (q quits)\n\n",
                              record ? ", recording into " : "", record ? record : "");
        for (unsigned c = 0; c < 64 && n < sizeof out; c++)
            if (cpus >> c & 1)
                n += frame_cpu(out + n, sizeof out - n, c, bpfrec_last_switch(b, c), now);
        if (screen) {
            erase();
            mvaddnstr(0, 0, out, (int)(n < sizeof out ? n : sizeof out - 1));
            refresh();
            int ch = getch();
            if (ch == 'q' || ch == 'Q')
                break;
        } else {
            fputs(out, stdout);
            fflush(stdout);
        }
    }
    if (screen)
        endwin();
    bpfrec_free(b);
    int rc = 0;
    if (recording) {
        stop = stop ? stop : SIGINT;
        pthread_join(rt, NULL);
        if (rec.rc < 0) {
            fprintf(stderr, "runq top: the recording into %s failed: %s\n", record, rec.err);
            rc = 1;
        } else {
            fprintf(stderr, "runq top: trace %lld recorded into %s\n", (long long)rec.trace, record);
        }
    }
    return rc;
}
