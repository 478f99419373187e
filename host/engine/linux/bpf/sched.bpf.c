/*
 * The BPF recorder: copies Linux's own EEVDF state at each switch and
 * wakeup on the sampled CPUs into a ring buffer (wire.h says what), for
 * host/engine/linux/bpfrec.c to read. It computes nothing: V, lag and eligibility
 * are derived on the host from the raw sums, with the kernel's formulas.
 *
 * CO-RE: the kernel types below name only the fields read, marked
 * preserve_access_index, so libbpf relocates each access to this
 * kernel's layout from its BTF; one object serves every kernel with BTF.
 * Fields that moved or were renamed between kernels are read through
 * "flavours" (struct cfs_rq___old) after bpf_core_field_exists().
 *
 * Programs are tp_btf (BTF-typed raw tracepoints): this host refuses
 * fentry/fexit and has no kprobes. Each reads under the scheduler's rq
 * lock, held at these tracepoints, so the queue copied is consistent.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "host/engine/linux/bpf/wire.h"

#define PAI __attribute__((preserve_access_index))

struct load_weight {
    unsigned long weight;
} PAI;

struct rb_node {
    struct rb_node *rb_right;
    struct rb_node *rb_left;
} PAI;

struct rb_root {
    struct rb_node *rb_node;
} PAI;

struct rb_root_cached {
    struct rb_root rb_root;
} PAI;

struct cfs_rq;

struct sched_entity {
    struct load_weight load;
    struct rb_node run_node;
    __u64 deadline;
    unsigned char on_rq;
    unsigned char sched_delayed;
    unsigned char custom_slice;
    __u64 vruntime;
    __s64 vlag;
    __u64 slice;
    int depth;
    struct sched_entity *parent;
    struct cfs_rq *cfs_rq;
    struct cfs_rq *my_q;
} PAI;

struct cfs_rq {
    unsigned int nr_queued;
    __s64 sum_w_vruntime;
    __u64 sum_weight;
    __u64 zero_vruntime;
    struct rb_root_cached tasks_timeline;
    struct sched_entity *curr;
} PAI;

/* Before 7.0's names (6.6 .. 6.18 vanilla). */
struct cfs_rq___old {
    unsigned int nr_running;
    __s64 avg_vruntime;
    __u64 avg_load;
    __u64 min_vruntime;
} PAI;

struct sched_entity___nodelay {
    unsigned char on_rq;
} PAI;

struct task_struct {
    unsigned int __state;
    int on_rq;
    int pid;
    int tgid;
    int prio;
    unsigned int policy;
    struct sched_entity se;
} PAI;

const volatile struct lxb_config cfg = {};

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 16 << 20);
} samples SEC(".maps");

/* The sample being built, one per CPU (too large for the BPF stack). */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct lxb_sample);
} scratch SEC(".maps");

/* The walk's stack, per CPU. */
struct walk {
    __u64 node[LXB_STACK];
};
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct walk);
} stack SEC(".maps");

/* [0] samples the ring buffer refused (full), [1] samples whose queue was cut. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 2);
    __type(key, __u32);
    __type(value, __u64);
} lost SEC(".maps");

static __always_inline void count(__u32 k)
{
    __u64 *n = bpf_map_lookup_elem(&lost, &k);
    if (n)
        __sync_fetch_and_add(n, 1);
}

/* Reads of kernel memory are direct loads through BTF-typed pointers
 * (the verifier turns each into a fault-safe PROBE_MEM load, a few ns),
 * not bpf_probe_read_kernel calls: the recorder runs at every switch and
 * wakeup on the scheduling CPU, inside the latency it measures, and a
 * helper call a field made it cost 1.4-1.9 us an event (bpf_stats).
 * An address found as a number (a node of the tree, container_of) is
 * typed again with bpf_rdonly_cast, to the kernel's type id of the
 * struct, which CO-RE relocates. */
extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id) __ksym;

static __always_inline const struct sched_entity *as_se(__u64 a)
{
    return bpf_rdonly_cast((const void *)a, bpf_core_type_id_kernel(struct sched_entity));
}

static __always_inline const struct task_struct *task_of(const struct sched_entity *se)
{
    return bpf_rdonly_cast((const char *)se - bpf_core_field_offset(struct task_struct, se),
                           bpf_core_type_id_kernel(struct task_struct));
}

static __always_inline const struct sched_entity *se_of_node(__u64 node)
{
    return as_se(node - bpf_core_field_offset(struct sched_entity, run_node));
}

/* Linux's fair class: SCHED_NORMAL (0), SCHED_BATCH (3), SCHED_IDLE (5),
 * at a prio of 100 or more (below it: RT or deadline). */
static __always_inline int is_fair(const struct task_struct *p)
{
    if (!p)
        return 0;
    unsigned int pol = p->policy;
    return p->prio >= 100 && (pol == 0 || pol == 3 || pol == 5);
}

/* Reads se's fields into e. */
static __always_inline void read_ent(struct lxb_ent *e, const struct sched_entity *se)
{
    e->flags = 0;
    if (!se)
        return;
    e->flags = LXB_E_VALID;
    if (se->on_rq)
        e->flags |= LXB_E_ON_RQ;
    if (bpf_core_field_exists(se->sched_delayed) && se->sched_delayed)
        e->flags |= LXB_E_DELAYED;
    if (bpf_core_field_exists(se->custom_slice) && se->custom_slice)
        e->flags |= LXB_E_CUSTOM;
    e->depth = (unsigned char)se->depth;
    e->weight = se->load.weight;
    e->vruntime = se->vruntime;
    e->deadline = se->deadline;
    e->vlag = se->vlag;
    e->slice = se->slice;
    if (se->my_q) {
        e->flags |= LXB_E_GROUP;
        e->pid = -1;
    } else {
        e->pid = task_of(se)->pid;
    }
}

static __always_inline void read_task(struct lxb_ent *e, const struct task_struct *p)
{
    read_ent(e, p ? &p->se : (const struct sched_entity *)0);
}

/* A queue's sums and current entity, into q and curr (no walk). */
static __always_inline void read_sums(struct lxb_rq *q, struct lxb_ent *curr_e, const struct cfs_rq *rq)
{
    q->flags = 0;
    q->nents = 0;
    curr_e->flags = 0;
    if (!rq)
        return;
    q->flags = LXB_Q_VALID;
    if (bpf_core_field_exists(rq->sum_w_vruntime)) {
        q->zero_vruntime = rq->zero_vruntime;
        q->sum_w_vruntime = rq->sum_w_vruntime;
        q->sum_weight = rq->sum_weight;
    } else {
        const struct cfs_rq___old *o = (const void *)rq;
        q->flags |= LXB_Q_OLD_NAMES;
        q->zero_vruntime = o->min_vruntime;
        q->sum_w_vruntime = o->avg_vruntime;
        q->sum_weight = o->avg_load;
    }
    if (bpf_core_field_exists(rq->nr_queued))
        q->nr_queued = rq->nr_queued;
    else
        q->nr_queued = ((const struct cfs_rq___old *)rq)->nr_running;
    const struct sched_entity *curr = rq->curr;
    read_ent(curr_e, curr);
    q->curr_pid = curr ? curr_e->pid : -2;
}

/* One step of the tree walk (a bpf_loop callback, so that the verifier
 * checks one step rather than every path through LXB_MAXQ of them): takes
 * a node off the stack, reads its entity, pushes its children. */
struct walk_ctx {
    unsigned sp;
};

static long walk_one(__u32 i, void *arg)
{
    struct walk_ctx *c = arg;
    __u32 zero = 0;
    struct lxb_sample *s = bpf_map_lookup_elem(&scratch, &zero);
    struct walk *w = bpf_map_lookup_elem(&stack, &zero);
    if (!s || !w || c->sp == 0)
        return 1;
    if (i >= LXB_MAXQ) {
        s->q.flags |= LXB_Q_CUT;
        return 1;
    }
    c->sp--;
    const struct sched_entity *se = se_of_node(w->node[c->sp & (LXB_STACK - 1)]);
    read_ent(&s->ents[i & (LXB_MAXQ - 1)], se);
    s->q.nents = i + 1;
    __u64 l = (__u64)se->run_node.rb_left, r = (__u64)se->run_node.rb_right;
    if (c->sp + 2 > LXB_STACK) {
        s->q.flags |= LXB_Q_CUT;
        return 1;
    }
    if (l)
        w->node[c->sp++ & (LXB_STACK - 1)] = l;
    if (r)
        w->node[c->sp++ & (LXB_STACK - 1)] = r;
    return 0;
}

/* The queue's sums and every entity of its tree (in no order). */
static __always_inline void read_rq(struct lxb_sample *s, const struct cfs_rq *rq, int walk)
{
    read_sums(&s->q, &s->curr, rq);
    if (!rq)
        return;
    if (!walk)
        return;
    __u32 zero = 0;
    struct walk *w = bpf_map_lookup_elem(&stack, &zero);
    if (!w)
        return;
    struct walk_ctx c = { .sp = 0 };
    __u64 root = (__u64)rq->tasks_timeline.rb_root.rb_node;
    if (root)
        w->node[c.sp++] = root;
    bpf_loop(LXB_MAXQ + 1, walk_one, &c, 0);
}

/* The level above task p's queue: its group's entity and that one's queue. */
static __always_inline void read_up(struct lxb_sample *s, const struct task_struct *p)
{
    const struct sched_entity *g = p ? p->se.parent : 0;
    read_ent(&s->group, g);
    read_sums(&s->up, &s->up_curr, g ? g->cfs_rq : 0);
}

static __always_inline int wanted_cpu(__u32 cpu)
{
    return !cfg.cpus || (cpu < 64 && (cfg.cpus >> cpu & 1));
}

static __always_inline int wanted_task(const struct task_struct *p)
{
    return p && (!cfg.tgid || p->tgid == cfg.tgid);
}

static __always_inline void emit(struct lxb_sample *s)
{
    unsigned n = s->q.nents;
    if (n > LXB_MAXQ)
        n = LXB_MAXQ;
    if (s->q.flags & LXB_Q_CUT)
        count(1);
    __u64 size = LXB_SAMPLE_FIXED + (__u64)n * sizeof(struct lxb_ent);
    if (bpf_ringbuf_output(&samples, s, size, BPF_RB_NO_WAKEUP))
        count(0);
}

/* The CPU's scratch sample, begun: its kind, CPU and time. NULL when the
 * map gives none. */
static __always_inline struct lxb_sample *sample_begin(enum lxb_kind kind, __u32 cpu)
{
    __u32 zero = 0;
    struct lxb_sample *s = bpf_map_lookup_elem(&scratch, &zero);
    if (s) {
        s->kind = kind;
        s->cpu = cpu;
        s->mflags = 0;
        s->ts = bpf_ktime_get_ns();
    }
    return s;
}

/* The levels above the task's queue are kept at picks only (lxrec's
 * linux_group): a sample of another kind says it has none. */
static __always_inline void no_levels_above(struct lxb_sample *s)
{
    s->group.flags = 0;
    s->up.flags = 0;
    s->up_curr.flags = 0;
}

/* ---- the __schedule() window, for the newidle pull ---- */

/* Each CPU inside __schedule() and not yet switching: set at
 * sched_entry_tp (its first line), cleared at sched_switch (after
 * pick_next_task(), just before context_switch()) and at sched_exit_tp
 * (its last line, when nothing switched). Linux's newly-idle pull runs in
 * that stretch: __schedule() -> pick_next_task() -> pick_next_task_fair()
 * (or balance_fair() from put_prev_task_balance()) -> sched_balance_newidle()
 * -> sched_balance_rq(CPU_NEWLY_IDLE) -> detach_tasks() -> detach_task() ->
 * set_task_cpu(), on the pulling CPU, towards itself. Written and read by
 * its own CPU only. */
__u8 in_sched[LXB_MAXCPU];

/* A few instructions of that stretch run with interrupts on (before
 * __schedule() disables them, after it enables them again), and a softirq
 * there may run the periodic balance, which also pulls towards this CPU.
 * So the balance softirq is watched too: set from softirq_entry to
 * softirq_exit of SCHED_SOFTIRQ, whose handler is sched_balance_softirq()
 * -> sched_balance_domains() (or nohz_idle_balance(), the same for an
 * idle CPU) -> sched_balance_rq() -> detach_tasks() -> set_task_cpu().
 * (x86's __preempt_count would say it too, but per-CPU symbols are not
 * in this kernel's kallsyms, so a BPF program cannot name it.) */
__u8 in_balance[LXB_MAXCPU];
#define LXB_SCHED_SOFTIRQ 7 /* include/linux/interrupt.h */

SEC("tp_btf/softirq_entry")
int on_softirq_entry(__u64 *ctx)
{
    if ((unsigned int)ctx[0] == LXB_SCHED_SOFTIRQ)
        in_balance[bpf_get_smp_processor_id() & (LXB_MAXCPU - 1)] = 1;
    return 0;
}

SEC("tp_btf/softirq_exit")
int on_softirq_exit(__u64 *ctx)
{
    if ((unsigned int)ctx[0] == LXB_SCHED_SOFTIRQ)
        in_balance[bpf_get_smp_processor_id() & (LXB_MAXCPU - 1)] = 0;
    return 0;
}

static __always_inline void sched_window(int open)
{
    __u32 cpu = bpf_get_smp_processor_id();
    in_sched[cpu & (LXB_MAXCPU - 1)] = (__u8)open;
}

SEC("tp_btf/sched_entry_tp")
int on_sched_entry(__u64 *ctx)
{
    sched_window(1);
    return 0;
}

SEC("tp_btf/sched_exit_tp")
int on_sched_exit(__u64 *ctx)
{
    sched_window(0);
    return 0;
}

SEC("tp_btf/sched_switch")
int on_switch(__u64 *ctx)
{
    const struct task_struct *prev = (const void *)ctx[1], *next = (const void *)ctx[2];
    sched_window(0);
    if (cfg.empty)
        return 0;
    __u32 cpu = bpf_get_smp_processor_id();
    if (!wanted_cpu(cpu) || !(wanted_task(prev) || wanted_task(next)))
        return 0;
    struct lxb_sample *s = sample_begin(LXB_SWITCH, cpu);
    if (!s)
        return 0;
    s->prev_state = (unsigned int)ctx[3];
    s->prev_pid = prev->pid;
    s->next_pid = next->pid;
    s->target_cpu = cpu;
    s->prev_fair = is_fair(prev);
    s->next_fair = s->next_pid && is_fair(next);
    read_task(&s->prev, s->prev_fair ? prev : 0);
    read_task(&s->next, s->next_fair ? next : 0);
    /* The queue of the sampled process's thread (the one runq traces), the
     * incoming one first: with autogroup, another session's task sits in
     * another group's queue. */
    int nw = s->next_fair && wanted_task(next), pw = s->prev_fair && wanted_task(prev);
    s->q_of = nw || (!pw && s->next_fair) ? LXB_QOF_NEXT : pw || s->prev_fair ? LXB_QOF_PREV : LXB_QOF_NONE;
    const struct task_struct *q = s->q_of == LXB_QOF_NEXT ? next : s->q_of == LXB_QOF_PREV ? prev : 0;
    read_rq(s, q ? q->se.cfs_rq : 0, 1);
    read_up(s, q);
    emit(s);
    return 0;
}

static __always_inline int on_wake(const struct task_struct *p, enum lxb_kind kind)
{
    if (cfg.empty)
        return 0;
    __u32 cpu = bpf_get_smp_processor_id();
    if (!wanted_task(p) || !is_fair(p) || (!cfg.tgid && !wanted_cpu(cpu)))
        return 0;
    /* At waking, only a task still queued (delayed) is sampled: the lag
     * it brings is V - vruntime now, and requeue_delayed_entity() may
     * clip it (DELAY_ZERO) before sched_wakeup. One fully dequeued
     * brings its vlag, still there at sched_wakeup (lxrec takes it from
     * that sample): a ring-buffer write less on every wakeup's path. */
    if (kind == LXB_WAKING && !p->se.on_rq)
        return 0;
    const struct cfs_rq *rq = p->se.cfs_rq;
    struct lxb_sample *s = sample_begin(kind, cpu);
    if (!s)
        return 0;
    s->prev_state = 0;
    s->prev_pid = -1;
    s->next_pid = p->pid;
    s->target_cpu = -1;
    s->prev_fair = 0;
    s->next_fair = 1;
    s->q_of = LXB_QOF_NEXT;
    read_task(&s->prev, 0);
    read_task(&s->next, p);
    read_rq(s, rq, kind != LXB_WAKING);
    no_levels_above(s);
    emit(s);
    return 0;
}

SEC("tp_btf/sched_waking")
int on_waking(__u64 *ctx)
{
    return on_wake((const void *)ctx[0], LXB_WAKING);
}

SEC("tp_btf/sched_wakeup")
int on_wakeup(__u64 *ctx)
{
    return on_wake((const void *)ctx[0], LXB_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int on_wakeup_new(__u64 *ctx)
{
    return on_wake((const void *)ctx[0], LXB_WAKEUP_NEW);
}

#define LXB_TASK_WAKING 0x0200u /* include/linux/sched.h */

/* What the call path of a move was (LXB_M_*): a task TASK_WAKING and
 * not on a queue is being placed by try_to_wake_up() -> select_task_rq()
 * -> set_task_cpu() (try_to_wake_up() sets TASK_WAKING before it picks
 * the CPU; no other path moves a task in that state: migration_cpu_stop()
 * only sets its wake_cpu); a move made inside the balance softirq is
 * the periodic balance's; one made on this CPU inside its __schedule()
 * window, outside that softirq, is one __schedule() made. */
static __always_inline unsigned int call_path(const struct task_struct *p, __u32 cpu)
{
    unsigned int m = 0;
    if (p->__state == LXB_TASK_WAKING && !p->on_rq)
        m |= LXB_M_WAKING;
    if (cfg.window) {
        m |= LXB_M_WINDOW;
        if (in_balance[cpu & (LXB_MAXCPU - 1)])
            m |= LXB_M_IN_BALANCE;
        else if (in_sched[cpu & (LXB_MAXCPU - 1)])
            m |= LXB_M_IN_SCHED;
    }
    return m;
}

/* A move between CPUs (set_task_cpu(), before migrate_task_rq_fair()):
 * a task that was queued has just been dequeued from the source queue,
 * its vlag kept by update_entity_lag(); its cfs_rq is still the
 * source's. Its numbers as it leaves are prev's of the sample, with the
 * source queue's sums (no walk): lxrec's LEAVE `migrate`. Where it lands
 * no tracepoint marks (activate_task() on the destination), so the JOIN
 * on the destination has none. */
SEC("tp_btf/sched_migrate_task")
int on_migrate(__u64 *ctx)
{
    const struct task_struct *p = (const void *)ctx[0];
    if (cfg.empty)
        return 0;
    if (!wanted_task(p))
        return 0;
    __u32 cpu = bpf_get_smp_processor_id();
    struct lxb_sample *s = sample_begin(LXB_MIGRATE, cpu);
    if (!s)
        return 0;
    int fair = is_fair(p);
    s->prev_state = 0;
    s->prev_pid = p->pid;
    s->next_pid = -1;
    s->target_cpu = (int)ctx[1];
    s->mflags = call_path(p, cpu);
    s->prev_fair = (unsigned char)fair;
    s->next_fair = 0;
    s->q_of = fair ? LXB_QOF_PREV : LXB_QOF_NONE;
    read_task(&s->prev, fair ? p : 0);
    read_task(&s->next, 0);
    read_rq(s, fair ? p->se.cfs_rq : 0, 0);
    no_levels_above(s);
    emit(s);
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
