/*
 * The BPF recorder's host side (contract in bpfrec.h).
 *
 * Samples are copied out of the ring buffer into arena chunks (one
 * malloc per 16 MiB, not one per sample: a ping-pong makes 200,000 a
 * second) and indexed per CPU. The ring buffer delivers each CPU's
 * samples in the order they were reserved, which is time order for one
 * CPU, so the index needs no sort.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bug.h"
#include "host/engine/linux/bpfrec.h"

#define CHUNK_BYTES (16u << 20)
#define MAX_HELD_BYTES (1ull << 30) /* as lxrec's pages: beyond, dropped and counted */
#define MAX_CPUS 256

uint64_t lxb_weight(const struct lxb_ent *e)
{
    uint64_t w = e->weight >> 10; /* SCHED_FIXEDPOINT_SHIFT on 64-bit */
    return e->weight && w < 2 ? 2 : w;
}

/* The sums with curr added, as avg_vruntime() and vruntime_eligible()
 * make them (kernel/sched/fair.c): curr is not in the tree. */
static void sums(const struct lxb_rq *q, const struct lxb_ent *c, __int128 *avg, __int128 *load)
{
    *avg = q->sum_w_vruntime;
    *load = (__int128)q->sum_weight;
    if ((c->flags & LXB_E_VALID) && (c->flags & LXB_E_ON_RQ)) {
        uint64_t w = lxb_weight(c);
        *avg += (__int128)(int64_t)(c->vruntime - q->zero_vruntime) * (__int128)w;
        *load += w;
    }
}

uint64_t lxb_queue_v(const struct lxb_rq *q, const struct lxb_ent *curr)
{
    __int128 avg, load;
    sums(q, curr, &avg, &load);
    if (load) {
        if (avg < 0)
            avg -= load - 1; /* rounds down, as the kernel's div_s64 after this step */
        avg /= load;
    }
    return q->zero_vruntime + (uint64_t)(int64_t)avg;
}

int lxb_queue_eligible(const struct lxb_rq *q, const struct lxb_ent *curr, uint64_t vruntime)
{
    __int128 avg, load;
    sums(q, curr, &avg, &load);
    return avg >= (__int128)(int64_t)(vruntime - q->zero_vruntime) * load;
}

uint64_t lxb_avg_vruntime(const struct lxb_sample *s)
{
    return lxb_queue_v(&s->q, &s->curr);
}

int lxb_eligible(const struct lxb_sample *s, uint64_t vruntime)
{
    return lxb_queue_eligible(&s->q, &s->curr, vruntime);
}

#ifdef RUNQ_HAVE_BPF

#include <bpf/libbpf.h>

#include "lxbpf.skel.h" /* build/bpf/, made by bpftool gen skeleton from sched.bpf.o */

struct index {
    const struct lxb_sample **s;
    size_t n, cap;
};

struct bpfrec {
    struct lxbpf *obj;
    struct ring_buffer *rb;
    char **chunk;
    size_t nchunks, used; /* bytes used in the last chunk */
    uint64_t held;
    struct index cpu[MAX_CPUS];
    struct bpfrec_counts c;
    int stopped;
    bool latest_only;
    struct lxb_sample *last[MAX_CPUS]; /* latest_only: each CPU's last switch */
};

/* libbpf's own messages, kept so a failure is one line of ours, not its log. */
static char libbpf_last[256];

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_WARN) {
        char line[256];
        vsnprintf(line, sizeof line, fmt, ap);
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(libbpf_last, sizeof libbpf_last, "%s", line);
    }
    return 0;
}

static void *room(struct bpfrec *b, size_t n)
{
    BUG_ON(n > CHUNK_BYTES); /* a sample is at most one struct lxb_sample (bpf/sched.bpf.c) */
    if (!b->nchunks || b->used + n > CHUNK_BYTES) {
        if (b->held + CHUNK_BYTES > MAX_HELD_BYTES)
            return NULL;
        char **c = realloc(b->chunk, (b->nchunks + 1) * sizeof *c);
        if (!c)
            return NULL;
        b->chunk = c;
        if (!(c[b->nchunks] = malloc(CHUNK_BYTES)))
            return NULL;
        b->nchunks++;
        b->used = 0;
        b->held += CHUNK_BYTES;
    }
    void *p = b->chunk[b->nchunks - 1] + b->used;
    b->used += (n + 7) & ~(size_t)7;
    return p;
}

static int on_sample(void *ctx, void *data, size_t size)
{
    struct bpfrec *b = ctx;
    const struct lxb_sample *s = data;
    if (size < LXB_SAMPLE_FIXED || s->q.nents > LXB_MAXQ ||
        size < LXB_SAMPLE_FIXED + s->q.nents * sizeof(struct lxb_ent) || s->cpu >= MAX_CPUS ||
        s->kind < LXB_SWITCH || s->kind > LXB_MIGRATE) {
        b->c.malformed++;
        return 0;
    }
    if (b->latest_only) {
        if (s->kind != LXB_SWITCH)
            return 0;
        if (!b->last[s->cpu] && !(b->last[s->cpu] = malloc(sizeof *b->last[s->cpu]))) {
            b->c.lost_memory++;
            return 0;
        }
        memcpy(b->last[s->cpu], data, size);
        b->c.samples++;
        return 0;
    }
    struct index *ix = &b->cpu[s->cpu];
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? 2 * ix->cap : 4096;
        const struct lxb_sample **p = realloc(ix->s, cap * sizeof *p);
        if (!p) {
            b->c.lost_memory++;
            return 0;
        }
        ix->s = p;
        ix->cap = cap;
    }
    void *copy = room(b, size);
    if (!copy) {
        b->c.lost_memory++;
        return 0;
    }
    memcpy(copy, data, size);
    ix->s[ix->n++] = copy;
    b->c.samples++;
    return 0;
}

/* The program opened and its settings made: the CPUs and process it
 * samples, and whether the __schedule() window and the balance softirq
 * (the newidle and periodic rules, sched.bpf.c) are watched: their four
 * programs are loaded only then. NULL if it does not open. */
static struct lxbpf *open_program(uint64_t cpus, int tgid, bool window)
{
    struct lxbpf *obj = lxbpf__open();
    if (!obj)
        return NULL;
    obj->rodata->cfg.cpus = cpus;
    obj->rodata->cfg.tgid = tgid;
    /* RUNQ_BPF_EMPTY=1 (benches only, tests/engine/bench_linux_bpf.sh): programs
     * attached that return at once, the control beside the recorder's own
     * cost; every pick of such a run is bare. */
    const char *empty = getenv("RUNQ_BPF_EMPTY");
    obj->rodata->cfg.empty = empty && !strcmp(empty, "1");
    obj->rodata->cfg.window = window;
    bpf_program__set_autoload(obj->progs.on_sched_entry, window);
    bpf_program__set_autoload(obj->progs.on_sched_exit, window);
    bpf_program__set_autoload(obj->progs.on_softirq_entry, window);
    bpf_program__set_autoload(obj->progs.on_softirq_exit, window);
    return obj;
}

struct bpfrec *bpfrec_start(uint64_t cpus, int tgid, char *why, size_t whylen)
{
    const char *no = getenv("RUNQ_NO_BPF");
    if (no && *no && strcmp(no, "0") != 0) {
        snprintf(why, whylen, "RUNQ_NO_BPF is set (unset it to record them)");
        return NULL;
    }
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
        snprintf(why, whylen, "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s; CONFIG_DEBUG_INFO_BTF=y gives it)",
                 strerror(errno));
        return NULL;
    }
    if (geteuid() != 0) {
        snprintf(why, whylen, "BPF needs root (or CAP_BPF and CAP_PERFMON): run as root");
        return NULL;
    }
    libbpf_set_print(quiet_print);
    libbpf_last[0] = '\0';
    struct bpfrec *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    const char *step = "open";
    if (!(b->obj = open_program(cpus, tgid, true)))
        goto fail;
    step = "load (a kernel without the fields it reads, or a verifier refusal)";
    if (lxbpf__load(b->obj)) {
        /* A kernel without the bare tracepoints sched_entry_tp and
         * sched_exit_tp (before 6.16) refuses the window's programs:
         * again without them, and no move is called newidle or periodic.
         * (Asking the kernel's BTF first costs a parse of it, 0.45 s under
         * the sanitizer, at every start.) */
        lxbpf__destroy(b->obj);
        libbpf_last[0] = '\0';
        if (!(b->obj = open_program(cpus, tgid, false)) || lxbpf__load(b->obj))
            goto fail;
    }
    step = "attach";
    if (lxbpf__attach(b->obj))
        goto fail;
    step = "ring buffer";
    if (!(b->rb = ring_buffer__new(bpf_map__fd(b->obj->maps.samples), on_sample, b, NULL)))
        goto fail;
    return b;
fail:
    snprintf(why, whylen, "the BPF recorder failed at %s: %s", step,
             libbpf_last[0] ? libbpf_last : strerror(errno));
    bpfrec_free(b);
    return NULL;
}

void bpfrec_poll(struct bpfrec *b)
{
    if (b && b->rb)
        ring_buffer__consume(b->rb);
}

void bpfrec_latest_only(struct bpfrec *b)
{
    b->latest_only = true;
}

const struct lxb_sample *bpfrec_last_switch(const struct bpfrec *b, unsigned cpu)
{
    return b && cpu < MAX_CPUS ? b->last[cpu] : NULL;
}

/* The programs' own loss counters, summed over CPUs. */
static void read_lost(struct bpfrec *b)
{
    int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0 || ncpu > 4096)
        return;
    uint64_t *v = calloc((size_t)ncpu, sizeof *v);
    for (uint32_t k = 0; v && k < 2; k++) {
        if (bpf_map__lookup_elem(b->obj->maps.lost, &k, sizeof k, v, (size_t)ncpu * sizeof *v, 0))
            continue;
        uint64_t sum = 0;
        for (int i = 0; i < ncpu; i++)
            sum += v[i];
        *(k == 0 ? &b->c.lost_full : &b->c.cut) = sum;
    }
    free(v);
}

int bpfrec_attach(struct bpfrec *b, bool on)
{
    if (!b || b->stopped || !b->obj) {
        errno = EINVAL;
        return -1;
    }
    if (!on) {
        lxbpf__detach(b->obj);
        return 0;
    }
    /* A CPU detached inside its __schedule() window or the balance
     * softirq would keep its flag up until its next switch: down now,
     * while nothing writes them. */
    memset(b->obj->bss->in_sched, 0, sizeof b->obj->bss->in_sched);
    memset(b->obj->bss->in_balance, 0, sizeof b->obj->bss->in_balance);
    int rc = lxbpf__attach(b->obj);
    if (rc) {
        errno = rc < 0 ? -rc : rc;
        return -1;
    }
    return 0;
}

void bpfrec_stop(struct bpfrec *b)
{
    if (!b || b->stopped || !b->obj)
        return;
    lxbpf__detach(b->obj);
    bpfrec_poll(b);
    read_lost(b);
    b->stopped = 1;
}

size_t bpfrec_cpu_samples(const struct bpfrec *b, unsigned cpu, const struct lxb_sample *const **out)
{
    if (!b || cpu >= MAX_CPUS) {
        *out = NULL;
        return 0;
    }
    *out = b->cpu[cpu].s;
    return b->cpu[cpu].n;
}

void bpfrec_counts(const struct bpfrec *b, struct bpfrec_counts *c)
{
    if (b)
        *c = b->c;
    else
        memset(c, 0, sizeof *c);
}

void bpfrec_free(struct bpfrec *b)
{
    if (!b)
        return;
    bpfrec_stop(b);
    ring_buffer__free(b->rb);
    lxbpf__destroy(b->obj);
    for (size_t i = 0; i < b->nchunks; i++)
        free(b->chunk[i]);
    free(b->chunk);
    for (unsigned k = 0; k < MAX_CPUS; k++) {
        free(b->cpu[k].s);
        free(b->last[k]);
    }
    free(b);
}

#else /* built without clang, libbpf-dev and bpftool */

struct bpfrec {
    int unused;
};

struct bpfrec *bpfrec_start(uint64_t cpus, int tgid, char *why, size_t whylen)
{
    (void)cpus;
    (void)tgid;
    snprintf(why, whylen, "this runq was built without BPF (sh scripts/deps.sh installs clang, libbpf-dev and "
                          "bpftool; then make)");
    return NULL;
}

void bpfrec_poll(struct bpfrec *b)
{
    (void)b;
}

void bpfrec_stop(struct bpfrec *b)
{
    (void)b;
}

int bpfrec_attach(struct bpfrec *b, bool on)
{
    (void)b;
    (void)on;
    errno = ENOSYS;
    return -1;
}

void bpfrec_latest_only(struct bpfrec *b)
{
    (void)b;
}

const struct lxb_sample *bpfrec_last_switch(const struct bpfrec *b, unsigned cpu)
{
    (void)b;
    (void)cpu;
    return NULL;
}

size_t bpfrec_cpu_samples(const struct bpfrec *b, unsigned cpu, const struct lxb_sample *const **out)
{
    (void)b;
    (void)cpu;
    *out = NULL;
    return 0;
}

void bpfrec_counts(const struct bpfrec *b, struct bpfrec_counts *c)
{
    (void)b;
    memset(c, 0, sizeof *c);
}

void bpfrec_free(struct bpfrec *b)
{
    (void)b;
}

#endif
