/*
 * The BPF recorder's host side: loads host/engine/linux/bpf/sched.bpf.c (built into
 * runq as a libbpf skeleton), attaches it to the scheduler's tp_btf
 * tracepoints, and keeps every sample (host/engine/linux/bpf/wire.h) it hands over,
 * per CPU in time order, for lxrec_write to put beside tracefs's events.
 *
 * It never stands alone: tracefs's events stay the trace's skeleton
 * (switches, wakes, migrations, exits, with their loss accounting), and
 * the samples fill the EEVDF columns those leave empty. Without BPF (no
 * BTF, no permission, a kernel without the fields, runq built without
 * clang/libbpf/bpftool, or RUNQ_NO_BPF=1 in the environment) the run
 * records as before and says once why its internals are missing.
 *
 * Nothing is pinned in bpffs: the programs and maps belong to this
 * process's file descriptors and go with it, however it ends.
 */
#ifndef RUNQ_LINUX_BPFREC_H
#define RUNQ_LINUX_BPFREC_H

#include <stddef.h>
#include <stdint.h>

#include "host/engine/linux/bpf/wire.h"

struct bpfrec;

/* Loads and attaches the programs: samples at switches on the CPUs of
 * `cpus` (0: all), and wakeups, touching process `tgid`'s threads (0:
 * any task). NULL with one line in why: what is missing and what would
 * give it. */
struct bpfrec *bpfrec_start(uint64_t cpus, int tgid, char *why, size_t whylen);

/* Keep only each CPU's latest switch sample (bpfrec_last_switch), not
 * every sample: for a live view that stores nothing. Call before polling. */
void bpfrec_latest_only(struct bpfrec *b);

/* CPU cpu's latest switch sample taken so far, or NULL. */
const struct lxb_sample *bpfrec_last_switch(const struct bpfrec *b, unsigned cpu);

/* Takes what the ring buffer holds now (never blocks); call it often
 * enough that the ring buffer (16 MiB) does not fill: lxrec's reader
 * does, every 50 ms. */
void bpfrec_poll(struct bpfrec *b);

/* Detaches the programs, then takes what is left. */
void bpfrec_stop(struct bpfrec *b);
/* For the recorder's A/B (host/engine/linux/alternate.c): detaches the programs
 * (off) or attaches them again (on). 0, or -1 (errno set). */
int bpfrec_attach(struct bpfrec *b, bool on);

/* CPU cpu's samples in time order (valid until bpfrec_free). */
size_t bpfrec_cpu_samples(const struct bpfrec *b, unsigned cpu, const struct lxb_sample *const **out);

struct bpfrec_counts {
    uint64_t samples;     /* kept */
    uint64_t lost_full;   /* the ring buffer was full: the sample never came */
    uint64_t cut;         /* a queue longer than LXB_MAXQ entities, copied in part */
    uint64_t lost_memory; /* runq's own memory limit was reached: dropped here */
    uint64_t malformed;   /* a sample shorter than it says, or of no known kind */
};
void bpfrec_counts(const struct bpfrec *b, struct bpfrec_counts *c);

void bpfrec_free(struct bpfrec *b);

/* ---- what the host derives from a sample, with Linux's formulas ---- */

/* scale_load_down(): the weight the sums use (nice 0 = 1024). */
uint64_t lxb_weight(const struct lxb_ent *e);

/* Queue q's V as avg_vruntime() computes it: base + Σ/W with its current
 * entity curr added when that is on the queue, the division rounded down. */
uint64_t lxb_queue_v(const struct lxb_rq *q, const struct lxb_ent *curr);

/* vruntime_eligible() on queue q: (V − v)·W ≥ 0 in the kernel's exact integers. */
int lxb_queue_eligible(const struct lxb_rq *q, const struct lxb_ent *curr, uint64_t vruntime);

/* The same for a sample's own queue (s->q, s->curr). */
uint64_t lxb_avg_vruntime(const struct lxb_sample *s);
int lxb_eligible(const struct lxb_sample *s, uint64_t vruntime);

#endif
