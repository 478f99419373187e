/*
 * What the BPF recorder (host/engine/linux/bpf/sched.bpf.c) hands the host through its
 * ring buffer: raw copies of the kernel's own scheduling state, taken at
 * three tracepoints, with nothing computed in the kernel. The host
 * (host/engine/linux/bpfrec.c) derives V, lag and eligibility from them with the
 * host kernel's own formulas (avg_vruntime(), vruntime_eligible()).
 *
 * Included by the BPF program (clang -target bpf) and by the host, so
 * only fixed-width types; both sides are little-endian x86-64.
 */
#ifndef RUNQ_LINUX_BPF_WIRE_H
#define RUNQ_LINUX_BPF_WIRE_H

/* Queued entities copied per sample; a longer queue is cut there and the
 * sample says so (LXB_F_CUT), which the host counts as loss. */
#define LXB_MAXQ 32
/* The tree walk's stack (a red-black tree of LXB_MAXQ nodes is at most
 * 2 log2(33) < 11 deep; the stack holds at most depth + 1 pointers). */
#define LXB_STACK 32

/* SWITCH at sched_switch; WAKING at sched_waking, before the wakee is
 * placed (its entity and its queue's sums, no walk: the lag it brings);
 * WAKEUP(_NEW) at sched_wakeup(_new), right after placement. */
enum lxb_kind { LXB_SWITCH = 1, LXB_WAKEUP = 2, LXB_WAKEUP_NEW = 3, LXB_WAKING = 4, LXB_MIGRATE = 5 };

/* lxb_sample.mflags, at sched_migrate_task: raw facts about the call
 * path, from which host/engine/linux/lxrec.c names the move's rule. */
#define LXB_M_WAKING 0x01u  /* p->__state is TASK_WAKING and p->on_rq 0: set_task_cpu() from try_to_wake_up() */
#define LXB_M_IN_SCHED 0x02u /* this CPU is inside __schedule() before its switch (sched_entry_tp .. sched_switch
                              * or sched_exit_tp), and not in the balance softirq */
#define LXB_M_IN_BALANCE 0x08u /* this CPU is serving SCHED_SOFTIRQ (softirq_entry .. softirq_exit, vector 7) */
#define LXB_M_WINDOW 0x04u  /* both are watched (sched_entry_tp, sched_exit_tp and the softirq tracepoints
                              * attached): without it neither flag is ever set */
#define LXB_MAXCPU 256      /* CPUs whose __schedule() window is kept */

/* lxb_ent.flags */
#define LXB_E_ON_RQ 0x01u     /* se.on_rq */
#define LXB_E_DELAYED 0x02u   /* se.sched_delayed (DELAY_DEQUEUE) */
#define LXB_E_GROUP 0x04u     /* a group's entity (se.my_q), not a task's */
#define LXB_E_CUSTOM 0x08u    /* se.custom_slice: the task asked for its slice */
#define LXB_E_VALID 0x10u     /* the entity was there to read */

/* One scheduling entity as the kernel holds it. */
struct lxb_ent {
    int pid;                  /* the task's id; -1 for a group's entity */
    unsigned char flags;      /* LXB_E_* */
    unsigned char depth;      /* se.depth: 0 in the CPU's root queue */
    unsigned short pad;
    unsigned long long weight;   /* se.load.weight as stored (scaled up by 1024 on 64-bit) */
    unsigned long long vruntime;
    unsigned long long deadline;
    unsigned long long vlag;     /* the vlag/vprot union, raw: vprot while it runs, vlag after it left */
    unsigned long long slice;
};

/* lxb_rq.flags */
#define LXB_Q_OLD_NAMES 0x01u /* min_vruntime / avg_vruntime / avg_load (before 7.0's names) */
#define LXB_Q_CUT 0x02u       /* the queue had more than LXB_MAXQ entities, or a deeper tree */
#define LXB_Q_VALID 0x04u

/* One cfs_rq: the sums V is made of, and its entities. */
struct lxb_rq {
    unsigned long long zero_vruntime; /* the base (min_vruntime on older kernels) */
    long long sum_w_vruntime;         /* Σ (vruntime − base) · w over the tree (avg_vruntime) */
    unsigned long long sum_weight;    /* Σ w over the tree (avg_load) */
    unsigned int nr_queued;           /* entities on it, curr included */
    unsigned int flags;               /* LXB_Q_* */
    int curr_pid;                     /* cfs_rq->curr's task (-1: a group, -2: none) */
    unsigned int nents;               /* ents[] filled: the tree, in no order */
};

#define LXB_QOF_NONE 0
#define LXB_QOF_NEXT 1 /* next's cfs_rq */
#define LXB_QOF_PREV 2 /* prev's cfs_rq */

/* A sample. At a switch: prev and next as they are when the tracepoint
 * fires (next already set as curr, prev back in the tree if it stays
 * runnable), q the queue of next if it is a fair task of the sampled
 * process, else prev's if prev is one, else next's or prev's (q_of), curr
 * its current entity. At a wakeup: task the placed entity, curr the
 * queue's current. */
struct lxb_sample {
    unsigned char kind;   /* enum lxb_kind */
    unsigned char prev_fair, next_fair;
    unsigned char q_of;   /* whose queue q is: LXB_QOF_* */
    unsigned int cpu;
    unsigned long long ts; /* bpf_ktime_get_ns: CLOCK_MONOTONIC, tracefs's "mono" clock */
    unsigned int prev_state;
    int prev_pid, next_pid; /* switch: the two tasks; wakeup: next_pid is the wakee */
    int target_cpu;
    unsigned int mflags;  /* a migrate sample: LXB_M_*, what the call path was; else 0 */
    struct lxb_ent prev, next, curr;
    struct lxb_rq q;
    /* The level above q (autogroup: q is a session's group queue): the
     * group's own entity (se.parent of q's task) and the queue it sits
     * in, its sums and current, not walked. group.flags is 0 when q is
     * the CPU's root queue, and in wakeup samples (used at picks only). */
    struct lxb_ent group, up_curr;
    struct lxb_rq up;
    struct lxb_ent ents[LXB_MAXQ];
};

/* The fixed part; a sample is this plus q.nents entities. */
#define LXB_SAMPLE_FIXED (sizeof(struct lxb_sample) - LXB_MAXQ * sizeof(struct lxb_ent))

/* The program's settings (its .rodata, set before load). */
struct lxb_config {
    unsigned long long cpus; /* CPUs sampled (bits 0..63); 0: all */
    int tgid;                /* only switches and wakeups touching this process's threads; 0: any */
    int empty;               /* benches only: every program returns at once (the cost of being attached) */
    int window;              /* sched_entry_tp and sched_exit_tp are attached (this kernel has them) */
};

#endif
