/*
 * Recording Linux's scheduler (what becomes what: lxrec.h).
 *
 * Two phases, so that the run is disturbed as little as possible:
 *
 *   during the run  a reader thread, pinned away from the scenario's
 *                   CPUs, copies every CPU's raw pages out of the kernel
 *                   every DRAIN_MS, as they are (4 KiB each), into
 *                   memory: a busy pipe ping-pong makes ~200,000 events a
 *                   second, which would fill the kernel's buffer within
 *                   seconds, and decoding them here would cost the CPU
 *                   the run is measured on;
 *   after it       lxrec_write decodes the pages one at a time per CPU,
 *                   merges the CPUs by time (each CPU's pages are in time
 *                   order, and trace_clock mono is one clock for all),
 *                   and turns each event into runq's records.
 *
 * Who runs on each CPU since when, and each thread's state, are the trace
 * state (db/tstate.h) that the records written so far make: each PICK,
 * LEAVE and JOIN is applied to it as it is written (its keyframes are not:
 * they come from BPF's samples, and what an event becomes must not depend
 * on whether BPF was there). It knows only what the events said: a
 * thread's state starts unknown, and after a gap on its CPU it is unknown
 * again, so nothing is made up across a loss (no LEAVE migrate for a
 * thread not known to be queued, no run_ns without its pick).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "db/derive.h"
#include "db/qx_linux.h"
#include "db/tstate.h"
#include "db/writer.h"
#include "host/engine/linux/bpfrec.h"
#include "host/engine/linux/ftrace.h"
#include "host/engine/linux/hostrules.h"
#include "host/engine/linux/lxrec.h"
#include "host/engine/linux/tracefs.h"
#include "trace/format.h"
#include "weights.h"

_Static_assert(LXREC_PSEUDO_BASE + 2 * 256 == DERIVE_MAX_TID, "the pseudo tasks sit at the top of the writer's ids");
_Static_assert(TRACEFS_MAX_CPUS == TRACE_MAX_CPUS, "one CPU limit");

#define DRAIN_MS 50
#define MAX_HELD_BYTES (1ull << 30) /* raw pages kept: beyond, dropped and counted as loss */
#define COUNTER_PERIOD_NS 100000000ull
#define PAGE_SIZE_MAX (1u << 20)

/* Linux's values the events carry (include/linux/sched.h, trace_events.h). */
#define LX_STATE_DEAD 0x30u     /* EXIT_DEAD | EXIT_ZOMBIE: prev exited */
#define LX_FLAG_IRQ 0x18u       /* TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ */
#define LX_PRIO_FAIR_MIN 100    /* prio < 100: an RT task */

/* ---- the events read ---- */

enum lx_kind { K_SWITCH, K_WAKING, K_WAKEUP, K_WAKEUP_NEW, K_MIGRATE, K_EXIT, K_NR };

static const char *const kind_event[K_NR] = {
    "sched/sched_switch", "sched/sched_waking",       "sched/sched_wakeup",
    "sched/sched_wakeup_new", "sched/sched_migrate_task", "sched/sched_process_exit",
};

/* The fields each kind needs, in the order struct lx_ev takes them. */
enum { F_A, F_B, F_C, F_D, F_E, F_NR };
static const char *const kind_fields[K_NR][F_NR] = {
    [K_SWITCH] = { "prev_pid", "prev_prio", "prev_state", "next_pid", "next_prio" },
    [K_WAKING] = { "pid", "target_cpu" },
    [K_WAKEUP] = { "pid", "target_cpu" },
    [K_WAKEUP_NEW] = { "pid", "target_cpu" },
    [K_MIGRATE] = { "pid", "orig_cpu", "dest_cpu" },
    [K_EXIT] = { "pid" },
};

/* One event, its fields by position (kind_fields): a switch's prev_pid,
 * prev_prio, prev_state, next_pid, next_prio; a wake's pid, target_cpu;
 * a migration's pid, orig_cpu, dest_cpu; an exit's pid. */
struct lx_ev {
    uint64_t ts;
    unsigned cpu;
    enum lx_kind kind;
    unsigned flags;     /* common_flags */
    int32_t common_pid; /* the task the event ran in */
    int64_t v[F_NR];
};

struct lx_page {
    uint32_t lost_before; /* pages dropped (memory full) just before this one */
    uint32_t n;
    uint8_t data[];
};

struct lx_pages {
    struct lx_page **p;
    size_t n, cap;
    uint32_t lost_pending;
};

struct lxrec {
    struct tracefs *tfs;
    struct ftrace_page_layout layout;
    struct ftrace_format fmt[K_NR];
    const struct ftrace_field *fl[K_NR][F_NR];
    const struct ftrace_field *f_type, *f_flags, *f_pid; /* common_*, the same in every format */
    unsigned ncpus;
    int fd[TRACEFS_MAX_CPUS];
    struct lx_pages pages[TRACEFS_MAX_CPUS];
    uint8_t *readbuf;
    size_t held_bytes;
    pthread_t reader;
    int reader_running;
    atomic_int stop;
    uint64_t avoid, rt_cpus;
    uint64_t overrun, commit_overrun, dropped_events; /* per_cpu/cpuN/stats, summed, at stop */
    uint64_t foreign_cpus;   /* the CPUs foreign_ns and unknown_ns hold (lxrec_foreign_ns) */
    uint64_t foreign_ns[64], unknown_ns[64];
    struct bpfrec *bpf;  /* the EEVDF internals; NULL: not recorded, for the reason in bpf_why */
    char bpf_why[256];
    struct ftrace_stats st;
    struct lxrec_counts c;
};

/* ---- during the run ---- */

static void keep_page(struct lxrec *r, unsigned cpu, const uint8_t *buf, size_t n)
{
    struct lx_pages *ps = &r->pages[cpu];
    struct lx_page *pg = NULL;
    bool room = r->held_bytes + n <= MAX_HELD_BYTES;
    if (room && ps->n == ps->cap) {
        /* grown only when the larger array is had: a failed realloc
         * keeps the pages held so far, and their count */
        size_t cap = ps->cap ? 2 * ps->cap : 256;
        struct lx_page **p = realloc(ps->p, cap * sizeof *p);
        if (p) {
            ps->p = p;
            ps->cap = cap;
        } else {
            room = false;
        }
    }
    if (room)
        pg = malloc(sizeof *pg + n);
    if (!pg) {
        /* Out of room: this page is lost, and said so before the next. */
        r->c.pages_lost_memory++;
        ps->lost_pending++;
        return;
    }
    pg->lost_before = ps->lost_pending;
    pg->n = (uint32_t)n;
    memcpy(pg->data, buf, n);
    ps->lost_pending = 0;
    ps->p[ps->n++] = pg;
    r->held_bytes += n;
}

/* Reads every CPU's raw buffer until it is empty (EAGAIN). */
static void drain(struct lxrec *r)
{
    bpfrec_poll(r->bpf);
    for (unsigned k = 0; k < r->ncpus; k++) {
        for (;;) {
            ssize_t n = read(r->fd[k], r->readbuf, r->layout.page_size);
            if (n <= 0)
                break; /* EAGAIN: drained; anything else: tried again next round */
            keep_page(r, k, r->readbuf, (size_t)n);
        }
    }
}

static void *reader_main(void *arg)
{
    struct lxrec *r = arg;
    /* Off the scenario's CPUs, where there is a CPU to go to: the reader
     * would otherwise take time from the threads being measured. */
    cpu_set_t set;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t avoid = pass ? r->rt_cpus : r->avoid;
        CPU_ZERO(&set);
        for (unsigned k = 0; k < r->ncpus && k < 64; k++)
            if (!(avoid >> k & 1))
                CPU_SET(k, &set);
        if (CPU_COUNT(&set))
            break;
    }
    if (CPU_COUNT(&set)) {
        sched_setaffinity(0, sizeof set, &set);
    } else {
        /* RT tasks may take every CPU: above them, asleep but for a
         * drain every DRAIN_MS. */
        struct sched_param top = { .sched_priority = 99 };
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &top);
    }
    struct timespec nap = { .tv_sec = 0, .tv_nsec = DRAIN_MS * 1000000L };
    while (!atomic_load(&r->stop)) {
        drain(r);
        nanosleep(&nap, NULL);
    }
    return NULL;
}

/* Reads a small tracefs file into buf (terminated). 0, or -1 with err,
 * also when it does not fit: a format cut short would lose fields. */
static int read_small(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t n = 0;
    ssize_t got = 0;
    while (fd >= 0 && n < len - 1 && (got = read(fd, buf + n, len - 1 - n)) > 0)
        n += (size_t)got;
    if (fd >= 0)
        close(fd);
    if (fd < 0 || got < 0 || n == len - 1) {
        snprintf(err, errlen, "%s: %s", path, fd < 0 || got < 0 ? strerror(errno) : "larger than this reader takes");
        return -1;
    }
    buf[n] = '\0';
    return 0;
}

/* The page layout and the events' formats, from the instance's files. */
static int load_formats(struct lxrec *r, char *err, size_t errlen)
{
    char path[256], text[16384]; /* a format is ~2 KiB, sched_switch's print fmt the most of it */
    const char *dir = tracefs_dir(r->tfs);
    snprintf(path, sizeof path, "%s/buffer_subbuf_size_kb", dir);
    unsigned kb = 4; /* before Linux 6.8 a sub-buffer was one 4 KiB page, and had no file */
    if (read_small(path, text, sizeof text, err, errlen) == 0)
        kb = (unsigned)strtoul(text, NULL, 10);
    snprintf(path, sizeof path, "%s/events/header_page", dir);
    if (kb == 0 || kb * 1024u > PAGE_SIZE_MAX || read_small(path, text, sizeof text, err, errlen) ||
        ftrace_page_layout_parse(text, kb * 1024u, &r->layout)) {
        snprintf(err, errlen, "%s: not a page layout this reader knows (sub-buffer %u KiB)", path, kb);
        return -1;
    }
    for (int k = 0; k < K_NR; k++) {
        snprintf(path, sizeof path, "%s/events/%s/format", dir, kind_event[k]);
        if (read_small(path, text, sizeof text, err, errlen))
            return -1;
        if (ftrace_format_parse(text, &r->fmt[k])) {
            snprintf(err, errlen, "%s: not an event format (no ID or no field)", path);
            return -1;
        }
        for (int f = 0; f < F_NR && kind_fields[k][f]; f++)
            if (!(r->fl[k][f] = ftrace_field_find(&r->fmt[k], kind_fields[k][f]))) {
                snprintf(err, errlen, "%s: no field %s", path, kind_fields[k][f]);
                return -1;
            }
    }
    r->f_type = ftrace_field_find(&r->fmt[K_SWITCH], "common_type");
    r->f_flags = ftrace_field_find(&r->fmt[K_SWITCH], "common_flags");
    r->f_pid = ftrace_field_find(&r->fmt[K_SWITCH], "common_pid");
    if (!r->f_type || !r->f_flags || !r->f_pid) {
        snprintf(err, errlen, "sched_switch's format has no common_type, common_flags or common_pid");
        return -1;
    }
    return 0;
}

struct lxrec *lxrec_start(const struct lxrec_opts *o, uint64_t avoid_cpus, char *err, size_t errlen)
{
    struct lxrec *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (unsigned k = 0; k < TRACEFS_MAX_CPUS; k++)
        r->fd[k] = -1;
    r->avoid = avoid_cpus;
    r->rt_cpus = o ? o->rt_cpus : 0;
    struct tracefs_opts to = { .buffer_kb = o ? o->buffer_kb : 0 };
    if (!(r->tfs = tracefs_create(&to, err, errlen)) || load_formats(r, err, errlen))
        goto fail;
    r->ncpus = tracefs_ncpus(r->tfs);
    if (!(r->readbuf = malloc(r->layout.page_size))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (unsigned k = 0; k < r->ncpus; k++)
        if ((r->fd[k] = tracefs_open_raw(r->tfs, k, err, errlen)) < 0)
            goto fail;
    if (o && o->internals)
        r->bpf = bpfrec_start(o->bpf_cpus, o->bpf_tgid, r->bpf_why, sizeof r->bpf_why);
    else
        snprintf(r->bpf_why, sizeof r->bpf_why, "not asked for");
    if (tracefs_set_on(r->tfs, 1, err, errlen))
        goto fail;
    int e = pthread_create(&r->reader, NULL, reader_main, r);
    if (e) {
        snprintf(err, errlen, "cannot start the trace reader: %s", strerror(e));
        goto fail;
    }
    r->reader_running = 1;
    return r;
fail:
    lxrec_free(r);
    return NULL;
}

/* Adds per_cpu/cpuN/stats' loss counters of every CPU to r. */
static void read_loss(struct lxrec *r)
{
    for (unsigned k = 0; k < r->ncpus; k++) {
        char path[256], text[1024], e[256];
        snprintf(path, sizeof path, "%s/per_cpu/cpu%u/stats", tracefs_dir(r->tfs), k);
        if (read_small(path, text, sizeof text, e, sizeof e))
            continue;
        static const struct { const char *key; size_t off; } keys[] = {
            { "\noverrun:", offsetof(struct lxrec, overrun) },
            { "\ncommit overrun:", offsetof(struct lxrec, commit_overrun) },
            { "\ndropped events:", offsetof(struct lxrec, dropped_events) },
        };
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            const char *p = strstr(text, keys[i].key);
            if (p)
                *(uint64_t *)((char *)r + keys[i].off) += strtoull(p + strlen(keys[i].key), NULL, 10);
        }
    }
}

int lxrec_stop(struct lxrec *r, char *err, size_t errlen)
{
    if (r->reader_running) {
        atomic_store(&r->stop, 1);
        pthread_join(r->reader, NULL);
        r->reader_running = 0;
    }
    if (!r->tfs)
        return 0;
    int rc = tracefs_set_on(r->tfs, 0, err, errlen);
    bpfrec_stop(r->bpf);
    drain(r);
    read_loss(r);
    for (unsigned k = 0; k < r->ncpus; k++)
        r->fd[k] = -1; /* the instance closes them */
    if (tracefs_remove(r->tfs) != 0 && rc == 0) {
        snprintf(err, errlen, "the tracing instance could not be removed (said above)");
        rc = -1;
    }
    r->tfs = NULL;
    return rc;
}

void lxrec_free(struct lxrec *r)
{
    if (!r)
        return;
    char e[256];
    lxrec_stop(r, e, sizeof e);
    for (unsigned k = 0; k < TRACEFS_MAX_CPUS; k++) {
        for (size_t i = 0; i < r->pages[k].n; i++)
            free(r->pages[k].p[i]);
        free(r->pages[k].p);
    }
    bpfrec_free(r->bpf);
    free(r->readbuf);
    free(r);
}

const char *lxrec_internals_missing(const struct lxrec *r)
{
    return r->bpf ? NULL : r->bpf_why;
}

int lxrec_internals_on(struct lxrec *r, bool on, char *err, size_t errlen)
{
    if (!r->bpf) {
        snprintf(err, errlen, "no BPF recorder in this run (%s)", r->bpf_why);
        return -1;
    }
    if (bpfrec_attach(r->bpf, on) < 0) {
        snprintf(err, errlen, "the BPF recorder could not be %s: %s", on ? "attached again" : "detached",
                 strerror(errno));
        return -1;
    }
    return 0;
}

void lxrec_counts(const struct lxrec *r, struct lxrec_counts *c)
{
    *c = r->c;
    c->pages = r->st.pages;
    c->pages_malformed = r->st.pages_malformed;
    c->events = r->st.events;
    c->missed = r->st.missed;
}

/* ---- after it: the pages, per CPU, as events in time order ---- */

struct cursor {
    size_t page;              /* next page to decode */
    struct ftrace_event *ev;  /* the current page's events */
    int nev, pos;
    int gap;                  /* events were lost before ev[pos] */
    uint64_t gap_missed;      /* how many, as far as the kernel said */
};

/* The current event of CPU k's cursor, decoding pages as needed; NULL at
 * the end of its pages. */
static const struct ftrace_event *cursor_peek(struct lxrec *r, struct cursor *cu, unsigned k)
{
    while (cu->pos >= cu->nev) {
        if (cu->page >= r->pages[k].n)
            return NULL;
        const struct lx_page *pg = r->pages[k].p[cu->page++];
        struct ftrace_page_loss loss;
        cu->nev = ftrace_page_decode(&r->layout, pg->data, pg->n, cu->ev, &loss, &r->st);
        cu->pos = 0;
        if (pg->lost_before || loss.lost || cu->nev < 0) {
            cu->gap = 1;
            cu->gap_missed += loss.missed;
        }
        if (cu->nev < 0)
            cu->nev = 0; /* malformed: none of it is used */
    }
    return &cu->ev[cu->pos];
}

/* The event's kind and fields; false for an event none of ours. */
static bool parse_event(const struct lxrec *r, const struct ftrace_event *fe, unsigned cpu, struct lx_ev *ev)
{
    int64_t type, flags, pid;
    if (!ftrace_get_int(r->f_type, fe->data, fe->len, &type) || !ftrace_get_int(r->f_flags, fe->data, fe->len, &flags) ||
        !ftrace_get_int(r->f_pid, fe->data, fe->len, &pid))
        return false;
    int k = 0;
    while (k < K_NR && r->fmt[k].id != (unsigned)type)
        k++;
    if (k == K_NR)
        return false;
    memset(ev, 0, sizeof *ev);
    ev->ts = fe->ts;
    ev->cpu = cpu;
    ev->kind = (enum lx_kind)k;
    ev->flags = (unsigned)flags;
    ev->common_pid = (int32_t)pid;
    for (int f = 0; f < F_NR && r->fl[k][f]; f++)
        if (!ftrace_get_int(r->fl[k][f], fe->data, fe->len, &ev->v[f]))
            return false;
    return true;
}

/* ---- after it: events into records ---- */

struct xtask {
    const struct lxrec_task *t;
    /* The CPU whose gap makes its state unknown: where it runs or is
     * queued, or where the newest waking or migration sent it. */
    int cpu;
    /* The lag it brings to its next placement, from its waking sample:
     * its vlag, or V − vruntime if it was still queued (delayed). */
    bool brought_known;
    int64_t brought;
    /* The BPF program samples a waking only while the task is still
     * queued (delayed): one fully dequeued brings the vlag its dequeue
     * left, which place_entity() reads but does not change, so the
     * wakeup sample's vlag is it (brought_at_wakeup). */
    bool brought_at_wakeup;
    /* At its last block: still queued (delayed) 1, dequeued 0, unknown -1. */
    int left_queued;
    /* The CPU its newest sched_waking came from, until its sched_wakeup
     * (or a move): try_to_wake_up() places it on that CPU, between the
     * two; -1: no wakeup under way. */
    int waking_cpu;
};

struct xcpu {
    bool tracked;     /* its occupancy is recorded: a scenario CPU, or one a scenario thread ran on */
    bool seen;
    bool occ_known, occ_idle;
    uint64_t occ_since;
    uint64_t ctr[5];  /* enum ctr */
};

enum ctr { C_SWITCHES, C_WAKES, C_IDLE_NS, C_BUSY_NS, C_MIGRATIONS, C_NR };
static const char *const ctr_name[C_NR] = { "switches", "wakes", "idle_ns", "busy_ns", "migrations" };

struct sample {
    uint64_t ts;
    unsigned cpu;
    uint64_t v[C_NR];
};

/* The recorder's own check of what it read: the tree's weights, scaled
 * down, add up to the kernel's sum_weight, and their keys to its
 * sum_w_vruntime (a walk cut short, or a kernel whose weight scaling runq
 * does not know, would not). */
static bool sums_agree(const struct lxb_sample *p)
{
    if (!(p->q.flags & LXB_Q_VALID) || (p->q.flags & LXB_Q_CUT) || !p->q.nents)
        return true;
    uint64_t w = 0;
    __int128 wv = 0;
    for (unsigned i = 0; i < p->q.nents && i < LXB_MAXQ; i++) {
        uint64_t ew = lxb_weight(&p->ents[i]);
        w += ew;
        wv += (__int128)(int64_t)(p->ents[i].vruntime - p->q.zero_vruntime) * (__int128)ew;
    }
    return w == p->q.sum_weight && wv == (__int128)p->q.sum_w_vruntime;
}

/* A CPU's BPF samples are matched by one cursor a kind of event. */
enum { SC_SWITCH, SC_WAKEUP, SC_WAKING, SC_MIGRATE, SC_NR };

struct xlate {
    struct lxrec *r;
    const struct lxrec_meta *m;
    struct db_writer *w;
    struct xtask *task; /* sorted by tid */
    unsigned ncpus;
    struct xcpu *cpu;
    /* The state the records written so far make (follow): over the
     * scenario's threads and each CPU's idle and "other", by runq's ids. */
    struct tstate_ids ids;
    struct tstate ts;
    struct sample *samples;
    size_t nsamples, samples_cap;
    uint64_t next_sample;
    uint64_t gaps, switches_unseen;
    /* The BPF samples (host/engine/linux/bpfrec.h): per CPU, the next switch and the
     * next wakeup sample not yet matched to a tracefs event. */
    size_t (*bcur)[SC_NR];
    struct dbq_linux_group *groups; /* linux_group rows, written after the trace */
    size_t ngroups, groups_cap;
    uint64_t picks_ee, picks_bare, samples_used, sums_disagree;
    uint64_t moves_bare; /* moves of scenario threads with no BPF sample beside them (their rule from tracefs alone) */
    bool bpf_lossless; /* no BPF sample was lost (ring full, memory) */
};

static struct xtask *scen(const struct xlate *x, int64_t tid)
{
    unsigned lo = 0, hi = x->m->ntasks;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (x->task[mid].t->tid == tid)
            return &x->task[mid];
        if (x->task[mid].t->tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* runq's id of Linux task pid on CPU cpu (a scenario thread keeps its own). */
static int32_t who(const struct xlate *x, int64_t pid, unsigned cpu)
{
    return pid == 0 ? LXREC_IDLE_TID(cpu) : scen(x, pid) ? (int32_t)pid : LXREC_OTHER_TID(cpu);
}

/* Applies a PICK, LEAVE or JOIN just written to the trace state. */
static void follow(struct xlate *x, struct event e)
{
    tstate_apply(&x->ts, &e, NULL);
}

/* The trace state before the first record: every task the records name
 * (the scenario's threads, each CPU's idle task and "other"), none seen
 * yet. 0, or -1 out of memory. */
static int follow_init(struct xlate *x)
{
    for (unsigned i = 0; i < x->m->ntasks; i++)
        if (tstate_ids_add(&x->ids, x->task[i].t->tid, false) < 0)
            return -1;
    for (unsigned c = 0; c < x->ncpus; c++)
        if (tstate_ids_add(&x->ids, LXREC_IDLE_TID(c), true) < 0 ||
            tstate_ids_add(&x->ids, LXREC_OTHER_TID(c), false) < 0)
            return -1;
    return tstate_init(&x->ts, &x->ids, (int)x->ncpus, TSTATE_IN_ORDER);
}

/* Thread t's state as its records so far make it. */
static enum thread_state state_of(struct xlate *x, const struct xtask *t)
{
    const struct tstate_task *k = tstate_task(&x->ts, t->t->tid);
    BUG_ON(!k); /* lxrec_write puts every scenario thread in ids */
    return k->state;
}

/* Running or queued already, or gone: a wake wins it nothing (it came
 * before the thread could block). */
static bool wake_moot(enum thread_state s)
{
    return s == THREAD_RUNNING || tstate_queued(s) || s == THREAD_DEAD;
}

/* A record of ours: with its EEVDF fields filled (ee) from a BPF sample,
 * or without them. A decision's cost is never known on Linux. */
static void put_ee(struct xlate *x, unsigned cpu, struct trace_rec_hdr *h, enum trace_rec_type type, size_t size,
                   uint64_t ts, bool ee)
{
    trace_rec_init(h, type, (uint16_t)size, ts);
    h->flags = (uint8_t)((ee ? 0 : TRACE_RF_NO_EEVDF) | TRACE_RF_NO_COST);
    db_writer_record(x->w, cpu, h);
}

static void put(struct xlate *x, unsigned cpu, struct trace_rec_hdr *h, enum trace_rec_type type, size_t size,
                uint64_t ts)
{
    put_ee(x, cpu, h, type, size, ts, false);
}

/* ---- the BPF samples beside the events ---- */

/* A sample and its tracefs event come from one tracepoint call: measured
 * here, 99.7 % within 1 us, 99.9 % within 3 us, the rest within 30 (an
 * interrupt between the two probes). The same switch (a pipe pair's A->B)
 * recurs every few us, so a sample lost (ring buffer full) must not hand
 * its event the next one's numbers: the nearest sample within MATCH_NS
 * is taken, and one further away leaves the event bare (counted). */
#define MATCH_NS 10000ull

static int sample_class(const struct lxb_sample *p)
{
    return p->kind == LXB_SWITCH    ? SC_SWITCH
           : p->kind == LXB_WAKING  ? SC_WAKING
           : p->kind == LXB_MIGRATE ? SC_MIGRATE
                                    : SC_WAKEUP;
}

/* The BPF sample of CPU c for the tracefs event at ts: of class cls, for
 * a switch from prev to next, the waking or wakeup of next, or the move
 * of prev (next -1). Each CPU's samples and events are both in time
 * order, so a cursor per class moves forward only; a sample it passes is
 * never used (counted as the difference between samples kept and used).
 * NULL: none. */
static const struct lxb_sample *take_sample(struct xlate *x, unsigned c, int cls, uint64_t ts, int64_t prev,
                                            int64_t next)
{
    const struct lxb_sample *const *s;
    BUG_ON(c >= x->ncpus || cls < 0 || cls >= SC_NR); /* bcur has a cursor per class of each CPU */
    size_t n = bpfrec_cpu_samples(x->r->bpf, c, &s);
    size_t *pos = &x->bcur[c][cls];
    while (*pos < n && (sample_class(s[*pos]) != cls || s[*pos]->ts + MATCH_NS < ts))
        (*pos)++;
    size_t best = n;
    uint64_t best_dt = UINT64_MAX;
    for (size_t i = *pos; i < n && s[i]->ts <= ts + MATCH_NS; i++) {
        const struct lxb_sample *p = s[i];
        if (sample_class(p) == cls && ((cls != SC_SWITCH && cls != SC_MIGRATE) || p->prev_pid == prev) &&
            p->next_pid == next) {
            uint64_t dt = p->ts > ts ? p->ts - ts : ts - p->ts;
            if (dt < best_dt) {
                best = i;
                best_dt = dt;
            }
        }
    }
    if (best < n) {
        const struct lxb_sample *p = s[best];
        *pos = best + 1;
        x->samples_used++;
        if (!sums_agree(p))
            x->sums_disagree++;
        return p;
    }
    return NULL;
}

/* The level above sample s's queue, when there is one (autogroup): the
 * group's entity as the queue it sits in sees it. Kept for write_groups;
 * a row short (no memory) is a row less, never a wrong one. */
static void keep_group(struct xlate *x, unsigned c, uint64_t ts, const struct lxb_sample *s)
{
    const struct lxb_ent *g = &s->group;
    if (!(g->flags & LXB_E_VALID) || !(s->up.flags & LXB_Q_VALID))
        return;
    if (x->ngroups == x->groups_cap) {
        size_t cap = x->groups_cap ? 2 * x->groups_cap : 1024;
        struct dbq_linux_group *p = realloc(x->groups, cap * sizeof *p);
        if (!p)
            return;
        x->groups = p;
        x->groups_cap = cap;
    }
    uint64_t V = lxb_queue_v(&s->up, &s->up_curr);
    x->groups[x->ngroups++] = (struct dbq_linux_group){
        .ts = ts, .cpu = c, .depth = g->depth, .weight = lxb_weight(g), .vruntime = g->vruntime,
        .deadline = g->deadline, .slice = g->slice, .v = V, .lag = (int64_t)(V - g->vruntime),
        .nr_queued = s->up.nr_queued, .eligible = lxb_queue_eligible(&s->up, &s->up_curr, g->vruntime),
        .current = (s->up_curr.flags & LXB_E_VALID) && s->up_curr.vruntime == g->vruntime &&
                   s->up_curr.deadline == g->deadline && s->up_curr.weight == g->weight };
}

/* A queued entity's id in the trace: a scenario thread's own, else the
 * CPU's "other" (another thread of runq's process, or a group's entity). */
static int32_t ent_id(const struct xlate *x, const struct lxb_ent *e, unsigned cpu)
{
    return e->pid > 0 && scen(x, e->pid) ? e->pid : LXREC_OTHER_TID(cpu);
}

/* A nice for an entity's weight: the scenario's for its threads, the
 * table's inverse for a task's weight found there, else 0. */
static int ent_nice(const struct xlate *x, const struct lxb_ent *e)
{
    const struct xtask *t = e->pid > 0 ? scen(x, e->pid) : NULL;
    if (t)
        return t->t->nice;
    for (int i = 0; i < 40; i++)
        if (sched_weight_table[i] == lxb_weight(e))
            return i - 20;
    return 0;
}

/* The pick's EEVDF fields from switch sample s, when s's queue is next's
 * and next is its current: false otherwise (the pick stays without). */
static bool pick_internals(const struct lxb_sample *s, int64_t next, struct trace_rec_pick *k)
{
    if (!s || !(s->q.flags & LXB_Q_VALID) || s->q_of != LXB_QOF_NEXT || s->q.curr_pid != next || !next)
        return false;
    uint64_t V = lxb_avg_vruntime(s);
    unsigned elig = lxb_eligible(s, s->curr.vruntime);
    for (unsigned i = 0; i < s->q.nents; i++)
        elig += (unsigned)lxb_eligible(s, s->ents[i].vruntime);
    k->V = V;
    k->next_vruntime = s->next.vruntime;
    k->next_deadline = s->next.deadline;
    k->next_lag = (int64_t)(V - s->next.vruntime);
    k->nr_eligible = (uint16_t)(elig > UINT16_MAX ? UINT16_MAX : elig);
    k->nr_runnable = (uint16_t)(s->q.nr_queued > UINT16_MAX ? UINT16_MAX : s->q.nr_queued);
    return true;
}

static void kf_entry(const struct xlate *x, struct trace_kf_entry *k, const struct lxb_sample *s, uint64_t V,
                     const struct lxb_ent *e, unsigned cpu, unsigned kflags)
{
    *k = (struct trace_kf_entry){ .task = ent_id(x, e, cpu), .nice = (int8_t)ent_nice(x, e),
                                  .weight = (uint32_t)lxb_weight(e), .vruntime = e->vruntime,
                                  .deadline = e->deadline, .lag = (int64_t)(V - e->vruntime),
                                  .slice_ns = e->slice };
    k->kflags = (uint8_t)(kflags | (lxb_eligible(s, e->vruntime) ? TRACE_KF_ELIGIBLE : 0) |
                          (e->flags & LXB_E_DELAYED ? TRACE_KF_DELAYED : 0));
}

/* The queue right after the pick, as a KEYFRAME on CPU c at ts: its
 * current first, then the tree. vprot, which ends a protected stretch, is
 * kept only while an entity runs (it shares its place with vlag): known
 * for the current, and for prev when it was preempted (still runnable,
 * its stretch's end not yet overwritten). Threads of runq's process that
 * are not the scenario's, and group entities, are one "other" entry. */
static void put_queue(struct xlate *x, unsigned c, uint64_t ts, const struct lxb_sample *s, int32_t curr_id,
                      bool prev_preempted)
{
    struct {
        struct trace_rec_keyframe k;
        struct trace_kf_entry e[LXB_MAXQ + 1];
    } b;
    memset(&b, 0, sizeof b);
    uint64_t V = lxb_avg_vruntime(s);
    b.k.cpu = (uint16_t)c;
    b.k.curr = curr_id;
    b.k.V = V;
    unsigned n = 0;
    bool other = false;
    if ((s->curr.flags & LXB_E_VALID) && (s->curr.flags & LXB_E_ON_RQ)) {
        unsigned prot = TRACE_KF_PROT_KNOWN | (s->curr.vruntime < s->curr.vlag ? TRACE_KF_PROTECTED : 0);
        kf_entry(x, &b.e[n], s, V, &s->curr, c, TRACE_KF_CURRENT | prot);
        other |= b.e[n].task == LXREC_OTHER_TID(c);
        n++;
    }
    for (unsigned i = 0; i < s->q.nents && i < LXB_MAXQ; i++) {
        const struct lxb_ent *e = &s->ents[i];
        if (ent_id(x, e, c) == LXREC_OTHER_TID(c)) {
            if (other)
                continue;
            other = true;
        }
        unsigned prot = 0;
        if (prev_preempted && e->pid == s->prev_pid)
            prot = TRACE_KF_PROT_KNOWN | (e->vruntime < e->vlag ? TRACE_KF_PROTECTED : 0);
        kf_entry(x, &b.e[n++], s, V, e, c, prot);
    }
    BUG_ON(n > LXB_MAXQ + 1); /* current and the tree: what b.e holds */
    b.k.nr = (uint16_t)n;
    put_ee(x, c, &b.k.h, TRACE_REC_KEYFRAME, sizeof b.k + n * sizeof b.e[0], ts, true);
}

static void put_task(struct xlate *x, enum trace_rec_type type, uint64_t ts, int32_t tid, const char *name, int nice,
                     uint64_t slice, unsigned cpu, unsigned tflags, const struct lxrec_task *t)
{
    struct trace_rec_task k = { .task = tid, .parent = TRACE_TASK_NONE, .nice = (int8_t)nice,
                                .tflags = (uint8_t)tflags, .cpu = (uint16_t)cpu, .slice_ns = slice };
    memcpy(k.name, name, strnlen(name, TRACE_NAME_LEN)); /* NUL-padded, not always terminated */
    if (t && t->rt) {
        k.sclass = TRACE_CLASS_RT;
        k.rt_prio = (uint8_t)t->rt_prio;
        k.rt_policy = (uint8_t)t->rt_policy;
    }
    put(x, TRACE_CPU_GLOBAL, &k.h, type, sizeof k, ts);
}

/* s: the switch's sample, whose prev is tid, for its EEVDF fields (the
 * lag a dequeued task keeps is its vlag, as update_entity_lag() left it;
 * one still queued, preempted or delayed, has V − vruntime now); NULL:
 * none. */
static void put_leave(struct xlate *x, unsigned ring, uint64_t ts, int32_t tid, unsigned cpu,
                      enum trace_leave_reason why, uint64_t run_ns, const struct lxb_sample *s)
{
    struct trace_rec_leave k = { .task = tid, .cpu = (uint16_t)cpu, .reason = (uint8_t)why, .run_ns = run_ns };
    if (why == TRACE_LEAVE_RELEASE)
        k.by = TRACE_CLASS_RT;
    bool ee = s && s->prev_fair && s->prev.pid == tid && s->q_of != LXB_QOF_NONE && (s->q.flags & LXB_Q_VALID) &&
              (s->prev.flags & LXB_E_VALID);
    if (ee) {
        k.V = lxb_avg_vruntime(s);
        k.vruntime = s->prev.vruntime;
        k.deadline = s->prev.deadline;
        k.lag = s->prev.flags & LXB_E_ON_RQ ? (int64_t)(k.V - k.vruntime) : (int64_t)s->prev.vlag;
    }
    put_ee(x, ring, &k.h, TRACE_REC_LEAVE, sizeof k, ts, ee);
    follow(x, (struct event){ .ts = (int64_t)ts, .kind = EVENT_LEAVE, .cpu = (int)cpu,
                              .leave = { .utid = tid, .reason = why } });
}

/* A JOIN of version-2 size: the wakeup check Linux made is not in any
 * tracepoint, so its columns stay unknown rather than "not asked". The
 * weight is a fair task's from its nice, by Linux's own table
 * (kernel/sched/weights.c holds sched_prio_to_weight's values); an RT
 * task's, or another's, is 0. */
/* A JOIN of scenario thread t on cpu. s: the wakeup sample, taken right
 * after place_entity(), for the placement (vruntime, deadline, V, and
 * lag_after = V − vruntime); the lag it brought (lag_before) is the one
 * its waking sample saw (t->brought). Both or neither: a JOIN with one
 * half made up is not written. */
static void put_join(struct xlate *x, unsigned ring, uint64_t ts, struct xtask *t, unsigned cpu,
                     enum trace_join_reason why, const struct lxb_sample *s)
{
    int32_t tid = t->t->tid;
    struct trace_rec_join k = { .task = tid, .cpu = (uint16_t)cpu, .reason = (uint8_t)why };
    if (!t->t->rt && t->t->nice >= -20 && t->t->nice <= 19)
        k.weight = sched_weight_table[t->t->nice + 20];
    if (why == TRACE_JOIN_WAKE && t->brought_at_wakeup && s && s->next.pid == tid && (s->next.flags & LXB_E_VALID)) {
        t->brought = (int64_t)s->next.vlag;
        t->brought_known = true;
    }
    bool ee = s && s->next.pid == tid && (s->q.flags & LXB_Q_VALID) && (s->next.flags & LXB_E_VALID) &&
              (why == TRACE_JOIN_NEW || t->brought_known);
    if (ee) {
        k.V = lxb_avg_vruntime(s);
        k.vruntime = s->next.vruntime;
        k.deadline = s->next.deadline;
        k.lag_before = why == TRACE_JOIN_NEW ? 0 : t->brought;
        k.lag_after = (int64_t)(k.V - k.vruntime);
        k.weight = (uint32_t)lxb_weight(&s->next);
        k.nr_runnable = (uint16_t)(s->q.nr_queued > UINT16_MAX ? UINT16_MAX : s->q.nr_queued);
        /* Current as the wakeup sample saw it, after Linux's wakeup
         * check (sched_wakeup fires after wakeup_preempt()): its vprot
         * (the word it shares with vlag while it runs) already cut if
         * PREEMPT_SHORT cut it. Linux's answer itself is not recorded. */
        k.check = TRACE_JC_UNKNOWN;
        k.curr = TRACE_TASK_NONE;
        k.jflags = lxb_eligible(s, k.vruntime) ? TRACE_JF_WAKEE_ELIGIBLE : 0;
        const struct lxb_ent *c = &s->curr;
        if ((c->flags & LXB_E_VALID) && c->pid != tid) {
            k.curr = ent_id(x, c, cpu);
            k.curr_vruntime = c->vruntime;
            k.curr_deadline = c->deadline;
            k.curr_vprot = c->vlag;
            k.jflags |= (uint8_t)((lxb_eligible(s, c->vruntime) ? TRACE_JF_CURR_ELIGIBLE : 0) |
                                  (c->vruntime < c->vlag ? TRACE_JF_CURR_PROTECTED : 0));
        }
    }
    put_ee(x, ring, &k.h, TRACE_REC_JOIN, ee ? sizeof k : TRACE_JOIN_V2_SIZE, ts, ee);
    follow(x, (struct event){ .ts = (int64_t)ts, .kind = EVENT_JOIN, .cpu = (int)cpu,
                              .join = { .utid = tid, .reason = why } });
}

static void put_mark(struct xlate *x, uint64_t ts, const char *name)
{
    struct {
        struct trace_rec_mark m;
        char name[TRACE_MARK_NAME_MAX];
    } k = { .m = { .cpu = TRACE_CPU_GLOBAL, .source = TRACE_MARK_HOST } };
    size_t n = strnlen(name, TRACE_MARK_NAME_MAX);
    memcpy(k.name, name, n);
    put(x, TRACE_CPU_GLOBAL, &k.m.h, TRACE_REC_MARK, sizeof k.m + n, ts);
}

/* The header: the host's rules as its features (host/engine/linux/hostrules.h), and
 * as its command line "linux RELEASE base_slice_ns=N preempt=MODE", each
 * part when known. */
static void put_stream(struct xlate *x, uint64_t ts)
{
    struct {
        struct trace_rec_stream s;
        char tail[HOSTRULES_NAMES_MAX + 128];
    } k = { .s = { .magic = TRACE_STREAM_MAGIC, .version = TRACE_FORMAT_VERSION, .ncpus = (uint16_t)x->ncpus,
                   .tick_hz = x->m->hz, .policy = "eevdf" } };
    const struct hostrules *hr = hostrules_read();
    size_t nn = strlen(hr->names);
    memcpy(k.tail, hr->names, nn);
    k.s.features = hr->mask;
    k.s.feature_names_len = (uint16_t)nn;
    char cmd[128];
    int n = snprintf(cmd, sizeof cmd, "linux %s", x->m->kernel_version ? x->m->kernel_version : "");
    if (hr->base_slice_ns && n < (int)sizeof cmd)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " base_slice_ns=%llu", (unsigned long long)hr->base_slice_ns);
    if (hr->preempt[0] && n < (int)sizeof cmd)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " preempt=%.*s", (int)strcspn(hr->preempt, ","),
                      hr->preempt);
    k.s.cmdline_len = (uint16_t)(n < (int)sizeof cmd ? n : (int)sizeof cmd - 1);
    memcpy(k.tail + nn, cmd, k.s.cmdline_len);
    put(x, TRACE_CPU_GLOBAL, &k.s.h, TRACE_REC_STREAM, sizeof k.s + nn + k.s.cmdline_len, ts);
}

/* The trace's first records, at ts: the header, every task. */
static void put_start(struct xlate *x, uint64_t ts)
{
    put_stream(x, ts);
    unsigned first_cpu = 0;
    while (first_cpu < 63 && x->m->scn_cpus && !(x->m->scn_cpus >> first_cpu & 1))
        first_cpu++;
    for (unsigned i = 0; i < x->m->ntasks; i++) {
        const struct lxrec_task *t = x->task[i].t;
        unsigned cpu = t->cpu >= 0 && (unsigned)t->cpu < x->ncpus ? (unsigned)t->cpu : first_cpu;
        put_task(x, TRACE_REC_TASK_NEW, ts, t->tid, t->name ? t->name : "", t->nice, t->slice_ns, cpu, 0, t);
    }
    for (unsigned c = 0; c < x->ncpus; c++) {
        put_task(x, TRACE_REC_TASK_NEW, ts, LXREC_IDLE_TID(c), "idle", 0, 0, c, TRACE_TF_IDLE, NULL);
        put_task(x, TRACE_REC_TASK_NEW, ts, LXREC_OTHER_TID(c), "other", 0, 0, c, 0, NULL);
    }
}

/* Takes the counters of every CPU seen, as of ts. */
static void sample(struct xlate *x, uint64_t ts)
{
    for (unsigned c = 0; c < x->ncpus; c++) {
        const struct xcpu *xc = &x->cpu[c];
        if (!xc->seen)
            continue;
        if (x->nsamples == x->samples_cap) {
            x->samples_cap = x->samples_cap ? 2 * x->samples_cap : 256;
            struct sample *s = realloc(x->samples, x->samples_cap * sizeof *s);
            if (!s)
                return; /* a sample short: the counters go on */
            x->samples = s;
        }
        struct sample *s = &x->samples[x->nsamples++];
        s->ts = ts;
        s->cpu = c;
        memcpy(s->v, xc->ctr, sizeof s->v);
        /* the stint running now, up to ts */
        if (xc->occ_known && ts > xc->occ_since)
            s->v[xc->occ_idle ? C_IDLE_NS : C_BUSY_NS] += ts - xc->occ_since;
    }
}

/* CPU c lost events before ts: what runs there, and what its threads do,
 * is unknown until an event says. */
static void on_gap(struct xlate *x, unsigned c, uint64_t ts, uint64_t missed)
{
    db_writer_gap(x->w, c, ts, 0, missed > UINT32_MAX ? UINT32_MAX : (uint32_t)missed, 0);
    x->gaps++;
    tstate_gap(&x->ts, (int)c);
    x->cpu[c].occ_known = false;
    for (unsigned i = 0; i < x->m->ntasks; i++)
        if (x->task[i].cpu == (int)c)
            tstate_forget(&x->ts, x->task[i].t->tid);
}

static void on_switch(struct xlate *x, const struct lx_ev *e)
{
    unsigned c = e->cpu;
    struct xcpu *xc = &x->cpu[c];
    const struct tstate_cpu *on = &x->ts.cpu[c]; /* who runs here: the newest pick named it */
    int64_t prev = e->v[F_A], prev_prio = e->v[F_B], state = e->v[F_C], next = e->v[F_D], next_prio = e->v[F_E];
    xc->ctr[C_SWITCHES]++;
    if (xc->occ_known)
        xc->ctr[xc->occ_idle ? C_IDLE_NS : C_BUSY_NS] += e->ts - xc->occ_since;
    xc->occ_known = true;
    xc->occ_idle = next == 0;
    xc->occ_since = e->ts;

    struct xtask *ps = scen(x, prev), *ns = scen(x, next);
    xc->tracked |= ps || ns;
    int32_t P = who(x, prev, c), N = who(x, next, c);
    /* One "other" task for another is no event, unless who runs here is
     * not known (the trace's start, after a gap): then it says "other"
     * runs, as a CPU that runs only other programs must, for its time to
     * be theirs (foreign_cpu_ns) rather than unknown. */
    if (!xc->tracked || (P == N && on->known)) {
        x->r->c.dropped++; /* not a CPU of ours, or one "other" task for another */
        return;
    }
    /* prev_state: 0 in its low byte when prev is still runnable (Linux
     * marks a preemption with a bit above them); a yield looks the same
     * as a preemption here, as no tracepoint tells them apart. */
    bool dead = (state & LX_STATE_DEAD) != 0, runnable = (state & 0xff) == 0;
    enum trace_leave_reason why = dead       ? TRACE_LEAVE_EXIT
                                  : !runnable ? TRACE_LEAVE_BLOCK
                                  : next_prio < LX_PRIO_FAIR_MIN && prev_prio >= LX_PRIO_FAIR_MIN ? TRACE_LEAVE_RELEASE
                                                                                                   : TRACE_LEAVE_PREEMPT;
    const struct lxb_sample *smp = take_sample(x, c, SC_SWITCH, e->ts, prev, next);
    if (prev != 0)
        put_leave(x, c, e->ts, P, c, why, on->known && on->named == P ? e->ts - on->named_ts : 0,
                  ps ? smp : NULL);
    if (ps)
        ps->left_queued = smp && smp->prev_fair && smp->prev.pid == prev && (smp->prev.flags & LXB_E_VALID)
                              ? (smp->prev.flags & LXB_E_ON_RQ) != 0
                              : -1;
    struct trace_rec_pick k = { .prev = P, .next = N, .cpu = (uint16_t)c,
                                .why = prev == 0 ? TRACE_WHY_IDLE : dead ? TRACE_WHY_EXIT
                                       : runnable ? TRACE_WHY_PREEMPT : TRACE_WHY_BLOCK };
    bool ee = ns && pick_internals(smp, next, &k);
    if (ee)
        keep_group(x, c, e->ts, smp);
    if (ns && c < 64 && (x->m->scn_cpus >> c & 1)) /* the CPUs sampled */
        *(ee ? &x->picks_ee : &x->picks_bare) += 1;
    put_ee(x, c, &k.h, TRACE_REC_PICK, sizeof k, e->ts, ee);
    follow(x, (struct event){ .ts = (int64_t)e->ts, .kind = EVENT_PICK, .cpu = (int)c,
                              .pick = { .next = N, .prev = P } });
    if (smp && (smp->q.flags & LXB_Q_VALID) && smp->q_of != LXB_QOF_NONE && (ns || ps))
        put_queue(x, c, e->ts, smp, N, ps && why == TRACE_LEAVE_PREEMPT);
    if (ns)
        ns->cpu = (int)c;
    if (ps && dead)
        put_task(x, TRACE_REC_TASK_EXIT, e->ts, P, ps->t->name ? ps->t->name : "", ps->t->nice, ps->t->slice_ns,
                 c, 0, ps->t);
}

/* A CPU number from an event: the event's own CPU when it is none of the trace's. */
static unsigned cpu_or(const struct xlate *x, int64_t v, unsigned dflt)
{
    return v >= 0 && v < (int64_t)x->ncpus ? (unsigned)v : dflt;
}

static void on_waking(struct xlate *x, const struct lx_ev *e)
{
    struct xtask *t = scen(x, e->v[F_A]);
    if (!t || wake_moot(state_of(x, t))) {
        x->r->c.dropped++;
        return;
    }
    struct xtask *by = scen(x, e->common_pid);
    bool irq = (e->flags & LX_FLAG_IRQ) || e->common_pid == 0;
    struct trace_rec_wake k = { .waker = irq ? TRACE_TASK_NONE : by ? by->t->tid : LXREC_OTHER_TID(e->cpu),
                                .wakee = t->t->tid, .waker_cpu = (uint16_t)e->cpu,
                                .target_cpu = (uint16_t)cpu_or(x, e->v[F_B], e->cpu),
                                .wflags = irq ? TRACE_WF_TIMER : 0 };
    put(x, e->cpu, &k.h, TRACE_REC_WAKE, sizeof k, e->ts);
    const struct lxb_sample *smp = take_sample(x, e->cpu, SC_WAKING, e->ts, -1, t->t->tid);
    t->brought_known = smp && (smp->next.flags & LXB_E_VALID) && (smp->q.flags & LXB_Q_VALID);
    t->brought_at_wakeup = false;
    if (t->brought_known) {
        t->brought = smp->next.flags & LXB_E_ON_RQ ? (int64_t)(lxb_avg_vruntime(smp) - smp->next.vruntime)
                                                   : (int64_t)smp->next.vlag;
    } else if (x->r->bpf) {
        /* No sample: it was not queued when it woke. Certain if it left
         * dequeued; if it left delayed, it was dequeued since (picked
         * while delayed), unless its sample was lost. */
        t->brought_at_wakeup = t->left_queued == 0 || (t->left_queued == 1 && x->bpf_lossless);
    }
    t->cpu = k.target_cpu;
    t->waking_cpu = (int)e->cpu;
}

static void on_wakeup(struct xlate *x, const struct lx_ev *e, bool new_task)
{
    unsigned tc = cpu_or(x, e->v[F_B], e->cpu);
    if (!new_task)
        x->cpu[tc].ctr[C_WAKES]++;
    struct xtask *t = scen(x, e->v[F_A]);
    if (!t || wake_moot(state_of(x, t))) {
        x->r->c.dropped++;
        return;
    }
    put_join(x, e->cpu, e->ts, t, tc, new_task ? TRACE_JOIN_NEW : TRACE_JOIN_WAKE,
             take_sample(x, e->cpu, SC_WAKEUP, e->ts, -1, e->v[F_A]));
    t->brought_known = false;
    t->brought_at_wakeup = false;
    t->cpu = (int)tc;
    t->waking_cpu = -1;
}

/* The rule that made a move, as far as the call path shows it (Linux's
 * sched_migrate_task carries none); UNKNOWN where no rule matched, never
 * a guess. s: the move's BPF sample (NULL: none, or no BPF recorder);
 * on: the CPU that wrote the event; waking: a sched_waking of the task
 * came from that CPU and no sched_wakeup yet.
 *   - WAKE: try_to_wake_up() -> select_task_rq() -> set_task_cpu() (the
 *     sample saw it TASK_WAKING off every queue; without a sample, a
 *     move between its sched_waking and its sched_wakeup on the waking
 *     CPU, of a task on no queue). Which branch of select_task_rq_fair()
 *     chose the CPU (its idle previous CPU, select_idle_sibling(),
 *     wake_affine()) no tracepoint says: WAKE, not one of the three.
 *   - PERIODIC: a fair task moved inside the balance softirq
 *     (SCHED_SOFTIRQ: sched_balance_softirq() -> sched_balance_domains(),
 *     or nohz_idle_balance() for idle CPUs -> sched_balance_rq() ->
 *     detach_tasks() -> detach_task() -> set_task_cpu());
 *   - NEWIDLE: a fair task moved towards the CPU that moved it, inside
 *     that CPU's __schedule() and not in that softirq: only
 *     sched_balance_newidle() -> sched_balance_rq(CPU_NEWLY_IDLE) ->
 *     detach_task() -> set_task_cpu() moves a fair task there (the RT
 *     pull also runs there, for RT tasks);
 *   - otherwise UNKNOWN: the periodic balance's active balance (the
 *     stopper's active_load_balance_cpu_stop()), an affinity change
 *     (__set_cpus_allowed_ptr() -> affine_move_task() ->
 *     move_queued_task() or migration_cpu_stop()) and NUMA moves all
 *     look alike at this tracepoint. The engine itself changes no
 *     thread's CPUs while it records (lx_setup_thread runs before), so
 *     its runs have no AFFINITY moves to name. */
static enum trace_migrate_reason move_reason(const struct lxb_sample *s, unsigned on, unsigned to, bool queued,
                                             bool waking)
{
    if (s) {
        if (s->mflags & LXB_M_WAKING)
            return TRACE_MIGRATE_WAKE;
        if ((s->mflags & LXB_M_IN_BALANCE) && s->prev_fair)
            return TRACE_MIGRATE_PERIODIC;
        if ((s->mflags & LXB_M_IN_SCHED) && s->prev_fair && on == to)
            return TRACE_MIGRATE_NEWIDLE;
        return TRACE_MIGRATE_UNKNOWN;
    }
    return waking && !queued ? TRACE_MIGRATE_WAKE : TRACE_MIGRATE_UNKNOWN;
}

static void on_migrate(struct xlate *x, const struct lx_ev *e)
{
    unsigned from = cpu_or(x, e->v[F_B], e->cpu), to = cpu_or(x, e->v[F_C], e->cpu);
    x->cpu[from].ctr[C_MIGRATIONS]++;
    struct xtask *t = scen(x, e->v[F_A]);
    if (!t) {
        x->r->c.dropped++;
        return;
    }
    /* Only a thread known to be queued moves between queues; one waking
     * or asleep only gets its next CPU (the JOIN says where it lands). */
    bool queued = tstate_queued(state_of(x, t));
    /* its numbers as it left the source queue (prev is the task), and
     * the call path's facts */
    const struct lxb_sample *s = take_sample(x, e->cpu, SC_MIGRATE, e->ts, t->t->tid, -1);
    /* Each CPU's load at the move is not recorded: ncpus 0, and the
     * migration row's load columns NULL (docs/sql.md says why). */
    struct trace_rec_migrate m = { .task = t->t->tid, .src = (uint16_t)from, .dst = (uint16_t)to,
                                   .reason = (uint8_t)move_reason(s, e->cpu, to, queued,
                                                                  t->waking_cpu == (int)e->cpu),
                                   .mflags = queued ? TRACE_MF_QUEUED : 0 };
    put(x, e->cpu, &m.h, TRACE_REC_MIGRATE, sizeof m, e->ts);
    if (!s && x->r->bpf)
        x->moves_bare++;
    if (queued) {
        put_leave(x, e->cpu, e->ts, t->t->tid, from, TRACE_LEAVE_MIGRATE, 0, s);
        put_join(x, e->cpu, e->ts, t, to, TRACE_JOIN_MIGRATE, NULL);
    }
    t->cpu = (int)to;
    t->waking_cpu = -1;
}

static void on_event(struct xlate *x, const struct lx_ev *e)
{
    BUG_ON(e->cpu >= x->ncpus || (unsigned)e->kind >= K_NR); /* translate and parse_event checked both */
    struct xcpu *xc = &x->cpu[e->cpu];
    xc->seen = true;
    /* Every event names the task that was current when it was written
     * (an interrupt's too). One that is not who the last switch put on
     * this CPU means a switch was never written: Linux's ring buffer
     * drops an event it takes for recursion without counting it (seen on
     * 6.18, a switch out of idle after a remote wakeup, now and then).
     * What ran since the last event is then unknown: a gap, as for a
     * counted loss, never a stint made up. */
    const struct tstate_cpu *on = &x->ts.cpu[e->cpu];
    if (on->known && xc->tracked && who(x, e->common_pid, e->cpu) != on->named) {
        x->switches_unseen++;
        on_gap(x, e->cpu, e->ts, 0);
    }
    switch (e->kind) {
    case K_SWITCH: on_switch(x, e); break;
    case K_WAKING: on_waking(x, e); break;
    case K_WAKEUP: on_wakeup(x, e, false); break;
    case K_WAKEUP_NEW: on_wakeup(x, e, true); break;
    case K_MIGRATE: on_migrate(x, e); break;
    case K_EXIT:
        /* The thread's TASK_EXIT follows its last switch (prev_state
         * dead), where it leaves the CPU for good; this event alone is
         * not that moment, as the exit path can still be preempted. */
        if (!scen(x, e->v[F_A]))
            x->r->c.dropped++;
        break;
    default: break;
    }
}

/* Marks and counter samples due at or before ts. */
static void due(struct xlate *x, uint64_t ts, int *marks_done)
{
    const uint64_t mts[2] = { x->m->t_start, x->m->t_end };
    static const char *const mname[2] = { "start", "end" };
    while (*marks_done < 2 && mts[*marks_done] <= ts) {
        if (mts[*marks_done])
            put_mark(x, mts[*marks_done], mname[*marks_done]);
        (*marks_done)++;
    }
    while (x->next_sample <= ts) {
        sample(x, x->next_sample);
        x->next_sample += COUNTER_PERIOD_NS;
    }
}

/* Merges the CPUs' events by time and turns them into records. Returns
 * the last time seen. */
static uint64_t translate(struct xlate *x, struct cursor *cu)
{
    struct lxrec *r = x->r;
    int marks_done = 0, started = 0;
    uint64_t last = 0;
    for (;;) {
        const struct ftrace_event *best = NULL;
        unsigned bc = 0;
        for (unsigned k = 0; k < r->ncpus; k++) {
            const struct ftrace_event *fe = cursor_peek(r, &cu[k], k);
            if (fe && (!best || fe->ts < best->ts)) {
                best = fe;
                bc = k;
            }
        }
        if (!best)
            break;
        uint64_t ts = best->ts;
        if (!started) {
            uint64_t t0 = x->m->t_start && x->m->t_start < ts ? x->m->t_start : ts;
            put_start(x, t0);
            x->next_sample = t0 + COUNTER_PERIOD_NS;
            started = 1;
        }
        due(x, ts, &marks_done);
        struct lx_ev ev;
        if (bc >= x->ncpus || !parse_event(r, best, bc, &ev)) {
            r->c.dropped++; /* a CPU the trace does not have, or an event that is not ours */
        } else {
            if (cu[bc].gap) {
                on_gap(x, bc, ts, cu[bc].gap_missed);
                cu[bc].gap = 0;
                cu[bc].gap_missed = 0;
            }
            on_event(x, &ev);
        }
        last = ts > last ? ts : last;
        cu[bc].pos++;
    }
    if (!started)
        return 0;
    uint64_t end = x->m->t_end > last ? x->m->t_end : last;
    due(x, end, &marks_done);
    sample(x, end);
    return end;
}

/* Row i of the counters: sample i / C_NR's counter i % C_NR. */
static void counter_row(size_t i, struct dbq_linux_counter *c, void *arg)
{
    const struct xlate *x = arg;
    BUG_ON(i / C_NR >= x->nsamples); /* write_counters asks for nsamples * C_NR rows */
    const struct sample *s = &x->samples[i / C_NR];
    *c = (struct dbq_linux_counter){ .ts = s->ts, .cpu = (int)s->cpu, .name = ctr_name[i % C_NR],
                                     .value = s->v[i % C_NR] };
}

/* The counters and the group levels, each in a transaction of its own
 * after the trace. */
static int write_counters(const struct xlate *x, int64_t trace_id, char *err, size_t errlen)
{
    return dbq_linux_put_counters(x->m->db, trace_id, x->nsamples * C_NR, counter_row, (void *)x, err, errlen);
}

static int write_groups(const struct xlate *x, int64_t trace_id, char *err, size_t errlen)
{
    return dbq_linux_put_groups(x->m->db, trace_id, x->groups, x->ngroups, err, errlen);
}

static int task_cmp(const void *a, const void *b)
{
    pid_t x = ((const struct xtask *)a)->t->tid, y = ((const struct xtask *)b)->t->tid;
    return (x > y) - (x < y);
}

/* The stats rows: loss first (only what is not zero), then what was read. */
static void put_stats(struct xlate *x)
{
    struct lxrec *r = x->r;
    static const struct { const char *name, *desc; size_t off; } loss[] = {
        { "linux_overrun", "events Linux overwrote before they were read (per_cpu stats, all CPUs)",
          offsetof(struct lxrec, overrun) },
        { "linux_commit_overrun", "events Linux lost while writing one (per_cpu stats, all CPUs)",
          offsetof(struct lxrec, commit_overrun) },
        { "linux_dropped_events", "events Linux dropped with its buffer full (per_cpu stats, all CPUs)",
          offsetof(struct lxrec, dropped_events) },
    };
    for (size_t i = 0; i < sizeof loss / sizeof loss[0]; i++) {
        uint64_t v = *(const uint64_t *)((const char *)r + loss[i].off);
        if (v)
            db_writer_set_stat(x->w, loss[i].name, "data_loss", v, loss[i].desc);
    }
    if (r->st.missed)
        db_writer_set_stat(x->w, "linux_missed_events", "data_loss", r->st.missed,
                           "events the pages said were lost before them (a gap each)");
    if (r->c.pages_lost_memory)
        db_writer_set_stat(x->w, "linux_pages_lost_memory", "data_loss", r->c.pages_lost_memory,
                           "raw pages not kept: the recorder's memory limit was reached (a gap each)");
    if (x->switches_unseen)
        db_writer_set_stat(x->w, "linux_switches_unseen", "data_loss", x->switches_unseen,
                           "events whose task was not the one the last switch put on their CPU: a switch was "
                           "not written (a gap each)");
    if (r->st.pages_malformed)
        db_writer_set_stat(x->w, "linux_pages_malformed", "data_loss", r->st.pages_malformed,
                           "raw pages that could not be decoded, skipped whole (a gap each)");
    if (r->bpf) {
        struct bpfrec_counts b;
        bpfrec_counts(r->bpf, &b);
        if (b.lost_full)
            db_writer_set_stat(x->w, "bpf_lost_full", "data_loss", b.lost_full,
                               "EEVDF samples the BPF ring buffer had no room for: their picks and joins lack V, "
                               "lag and deadline");
        if (b.cut)
            db_writer_set_stat(x->w, "bpf_queue_cut", "data_loss", b.cut,
                               "EEVDF samples whose queue was longer than the BPF walk copies (LXB_MAXQ): "
                               "their snapshot lacks entities");
        if (b.lost_memory)
            db_writer_set_stat(x->w, "bpf_lost_memory", "data_loss", b.lost_memory,
                               "EEVDF samples not kept: the recorder's memory limit was reached");
        if (b.malformed)
            db_writer_set_stat(x->w, "bpf_malformed", "data_loss", b.malformed,
                               "EEVDF samples of a size or kind the host does not know: skipped");
        if (x->sums_disagree)
            db_writer_set_stat(x->w, "bpf_sums_disagree", "data_loss", x->sums_disagree,
                               "EEVDF samples whose queued entities do not add up to the kernel's sums: what was "
                               "read is not the queue (their V is the kernel's, their snapshot is not whole)");
        db_writer_set_stat(x->w, "bpf_moves_bare", "info", x->moves_bare,
                           "moves of a scenario thread no BPF sample was found for: their rule was told from "
                           "tracefs alone (wake, else unknown)");
        db_writer_set_stat(x->w, "bpf_samples", "info", b.samples, "EEVDF samples the BPF recorder handed over");
        BUG_ON(x->samples_used > b.samples); /* take_sample takes each kept sample once */
        db_writer_set_stat(x->w, "bpf_samples_unmatched", "info", b.samples - x->samples_used,
                           "EEVDF samples no tracefs event was found for (a switch or wakeup tracefs lost, or "
                           "about no scenario thread)");
    }
    db_writer_set_stat(x->w, "linux_picks_internals", "info", x->picks_ee,
                       "picks of a scenario thread, on the scenario's CPUs, with Linux's EEVDF state (V, lag, deadline)");
    db_writer_set_stat(x->w, "linux_picks_bare", "info", x->picks_bare,
                       "picks of a scenario thread, on the scenario's CPUs, without it (no BPF, or no sample matched)");
    db_writer_set_stat(x->w, "linux_pages_read", "info", r->st.pages, "raw ring buffer pages read from tracefs");
    db_writer_set_stat(x->w, "linux_events_decoded", "info", r->st.events, "events decoded from the pages");
    db_writer_set_stat(x->w, "linux_events_dropped", "info", r->c.dropped,
                       "events about no scenario thread and no tracked CPU's occupancy: not stored");
}

/* The stats rows foreign_cpu_ns and unknown_cpu_ns (lxrec.h), from the
 * written trace, in a transaction of their own after it (as the
 * counters). */
static int put_foreign(struct lxrec *r, const struct lxrec_meta *m, int64_t trace_id, char *err, size_t errlen)
{
    if (!m->t_start || m->t_end <= m->t_start)
        return 0; /* no window: nothing measured in it */
    uint64_t other[64], unknown[64];
    uint64_t cpus = m->scn_cpus & (r->ncpus >= 64 ? ~0ull : (1ull << r->ncpus) - 1);
    if (dbq_linux_put_foreign(m->db, trace_id, cpus, m->t_start, m->t_end,
                              "CPU time tasks other than the scenario's (other programs, kernel threads, runq's "
                              "own threads) took on this CPU in the measured window: the slices of \"other\"",
                              "time of the measured window no slice on this CPU covers: a gap, or nothing seen "
                              "running (the hypervisor did not run the CPU)",
                              other, unknown, err, errlen) != 0)
        return -1;
    memcpy(r->foreign_ns, other, sizeof other);
    memcpy(r->unknown_ns, unknown, sizeof unknown);
    r->foreign_cpus = cpus;
    return 0;
}

bool lxrec_foreign_ns(const struct lxrec *r, unsigned cpu, uint64_t *other, uint64_t *unknown)
{
    if (cpu >= 64 || !(r->foreign_cpus >> cpu & 1))
        return false;
    *other = r->foreign_ns[cpu];
    *unknown = r->unknown_ns[cpu];
    return true;
}

/* The writer's lines (its failure, its waits for another recorder), said
 * as runq record says them. */
static void lxrec_say(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "runq record: %s\n", line);
}

int lxrec_write(struct lxrec *r, const struct lxrec_meta *m, int64_t *trace_id, char *err, size_t errlen)
{
    if (r->reader_running || r->tfs) {
        snprintf(err, errlen, "lxrec_write before lxrec_stop");
        return -1;
    }
    struct xlate x = { .r = r, .m = m, .ncpus = m->ncpus && m->ncpus <= r->ncpus ? m->ncpus : r->ncpus };
    struct cursor *cu = calloc(r->ncpus ? r->ncpus : 1, sizeof *cu);
    x.task = calloc(m->ntasks ? m->ntasks : 1, sizeof *x.task);
    x.cpu = calloc(x.ncpus ? x.ncpus : 1, sizeof *x.cpu);
    x.bcur = calloc(x.ncpus ? x.ncpus : 1, sizeof *x.bcur);
    struct bpfrec_counts bc;
    bpfrec_counts(r->bpf, &bc);
    x.bpf_lossless = bc.lost_full == 0 && bc.lost_memory == 0;
    int rc = -1;
    if (!cu || !x.task || !x.cpu || !x.bcur) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (unsigned k = 0; k < r->ncpus; k++)
        if (!(cu[k].ev = malloc(FTRACE_MAX_EVENTS(r->layout.page_size) * sizeof *cu[k].ev))) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    for (unsigned i = 0; i < m->ntasks; i++) {
        if (m->tasks[i].tid <= 0 || m->tasks[i].tid >= LXREC_PSEUDO_BASE) {
            snprintf(err, errlen, "thread %ld: its id is outside what a trace can hold (1..%d)", (long)m->tasks[i].tid,
                     LXREC_PSEUDO_BASE - 1);
            goto out;
        }
        x.task[i] = (struct xtask){ .t = &m->tasks[i], .cpu = -1, .left_queued = -1, .waking_cpu = -1 };
    }
    qsort(x.task, m->ntasks, sizeof *x.task, task_cmp);
    if (follow_init(&x) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* The scenario's CPUs are followed from the start (lxrec.h), before
     * a thread of it first runs there: their "other" is the foreign CPU
     * time (put_foreign). */
    for (unsigned c = 0; c < x.ncpus && c < 64; c++)
        x.cpu[c].tracked = m->scn_cpus >> c & 1;
    if (!(x.w = db_writer_open(m->db, m->source, lxrec_say, NULL, err, errlen)))
        goto out;
    if (db_writer_set_engine(x.w, "linux", m->kernel_version) != 0) {
        snprintf(err, errlen, "%s: cannot name the trace's engine", m->db);
        goto out;
    }
    translate(&x, cu);
    put_stats(&x);
    int fin = db_writer_failed(x.w) ? -1
              : db_writer_finish(x.w, m->end_reason ? "incomplete" : "complete", m->end_reason ? m->end_reason : "end");
    if (fin < 0) {
        const char *why = db_writer_failure(x.w);
        snprintf(err, errlen, "%s: the trace could not be stored: %s", m->db, why ? why : "unknown error");
        goto out;
    }
    *trace_id = db_writer_trace_id(x.w);
    rc = write_counters(&x, *trace_id, err, errlen);
    if (rc == 0)
        rc = write_groups(&x, *trace_id, err, errlen);
    if (rc == 0)
        rc = put_foreign(r, m, *trace_id, err, errlen);
out:
    if (x.w)
        db_writer_close(x.w);
    for (unsigned k = 0; cu && k < r->ncpus; k++)
        free(cu[k].ev);
    free(cu);
    free(x.task);
    free(x.cpu);
    free(x.bcur);
    free(x.groups);
    free(x.samples);
    tstate_free(&x.ts);
    tstate_ids_free(&x.ids);
    return rc;
}
