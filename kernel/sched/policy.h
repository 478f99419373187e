/*
 * The scheduling policy interface: the one ops table through which the core
 * (kernel/sched/core.c) drives a policy, in the spirit of Linux's
 * struct sched_class.
 *
 * A policy knows entities and the queue they are on, nothing else: no locks,
 * no CPUs, no interrupts, no clocks. The core calls every op with the queue's
 * lock held and passes time in as run-time deltas. This header includes only
 * freestanding C headers, so rr.c and eevdf.c compile unchanged into the
 * kernel, the host unit tests, the fuzzer and `runq sim`.
 *
 * The queue owns the entity on the CPU. An entity on a queue is either the
 * queue's current entity or on its list, never both and never neither.
 * A decision is made in one order only:
 *
 *     if the current entity blocks/exits:   leave(q, curr, ...)
 *     next = pick(q)                        current (if any) still current
 *     if next != curr and curr remains:     put_back(q)
 *     if next != curr:                      take(q, next)
 *
 * That sequence is written once, in sched_decide() (decide.h), which every
 * caller uses. take() refuses, with BUG_ON, to run while an entity is
 * still current, so an order that loses the current entity from the
 * queue's sums cannot be written.
 *
 * What a policy shows of itself (V, lag, deadlines...) goes through
 * describe_queue() and describe(): the core, the trace and the shell print
 * those views and never read a policy's own fields.
 *
 * Classes. The real-time class (rt.h) implements this same table on its
 * own part of the queue (q->rt, with its own current, q->rt.curr) and is
 * asked before the fair policy. q->curr is the fair policy's current: NULL
 * while an RT entity has the CPU (Linux's cfs_rq->curr, put back when RT
 * takes over). Which class an entity is in, and every question that spans
 * both (who runs, whether a wakeup preempts across them, the RT budget),
 * is the class layer's: decide.h. The core calls that layer, never a
 * class's op directly.
 */
#ifndef RUNQ_SCHED_POLICY_H
#define RUNQ_SCHED_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rr.h"
#include "eevdf.h"
#include "rt.h"

#define SCHED_NICE_MIN (-20)
#define SCHED_NICE_MAX 19
/* Departures one decision can report (see departed below). A pick passes
 * every delayed entity whose lag is paid, so one pick can finish as many as
 * the queue holds: with 8, tests/trace/bench_trace_e2e.sh's churn of 40 tasks
 * overflowed a dozen times in 2 s, each overflow a loss in the trace. */
#define SCHED_DEPARTED_MAX 64

/* Why an entity joins a queue. */
enum sched_join_reason {
    SCHED_JOIN_NEW,     /* a task that has never run */
    SCHED_JOIN_WAKE,    /* woken from a block or sleep */
    SCHED_JOIN_MIGRATE, /* moved here from another CPU's queue */
};

/* Why an entity leaves a queue. */
enum sched_leave_reason {
    SCHED_LEAVE_BLOCK,   /* blocked or asleep (waits for an event or a deadline) */
    SCHED_LEAVE_EXIT,    /* exited: its state is discarded */
    SCHED_LEAVE_MIGRATE, /* moving to another CPU's queue, keeping its state */
};

/* One schedulable thing: embedded in struct task in the kernel. */
struct sched_entity {
    int id;            /* task id, for messages only */
    int nice;          /* SCHED_NICE_MIN..SCHED_NICE_MAX */
    uint64_t slice_ns; /* requested slice; 0 means the policy's default */
    bool on_queue;     /* on a queue: its list or current */
    struct rr_entity rr;
    struct eevdf_entity ee;
    struct rt_entity rt; /* rt.prio != 0: the entity is in the RT class */
};

/* In the real-time class (rt.h), not the fair one. */
static inline bool sched_is_rt(const struct sched_entity *se)
{
    return se->rt.prio != 0;
}

/* Fixed facts about the queue's world, given at init. */
struct sched_params {
    unsigned ncpus;   /* CPUs in the system (scales EEVDF's base slice) */
    uint64_t tick_ns; /* period of the scheduler tick */
};

/* One CPU's queue, as the policy sees it. */
struct sched_queue {
    struct sched_entity *curr; /* the fair policy's entity on the CPU, counted
                                * in the queue; NULL if none, or RT runs */
    unsigned nr_queued;        /* fair entities runnable on the list; curr and
                                * delayed ones (EEVDF, eevdf.h) excluded */
    unsigned touched;          /* entities the last pick examined (a counter) */
    struct sched_params params;
    struct rr_queue rr;
    struct eevdf_queue ee;
    struct rt_queue rt; /* the RT class's part, with its own current */
    /* The policy's notes to the decision, which sched_decide() collects
     * and clears (decide.h):
     *  - departed: entities that left the queue on the policy's own
     *    initiative, not by a leave() (EEVDF finishing a delayed dequeue
     *    whose lag is paid); beyond SCHED_DEPARTED_MAX only counted, in
     *    departed_lost;
     *  - cut_short_by: a waking entity that wakeup_preempt let preempt
     *    only because its wakeup cut the current entity's protected turn
     *    short (EEVDF's PREEMPT_SHORT); compared, never dereferenced. */
    struct sched_entity *departed[SCHED_DEPARTED_MAX];
    unsigned nr_departed, departed_lost;
    const struct sched_entity *cut_short_by;
};

/* A policy's view of a queue, for the trace and `sched queue`. A policy
 * without virtual time leaves vtime false and the numbers 0. */
struct sched_queue_view {
    bool vtime;             /* V, vruntime, deadline and lag mean something */
    uint64_t V;             /* the queue's virtual time (weighted average) */
    uint64_t base_slice_ns; /* slice of an entity that asks for none; 0: none */
    unsigned nr_eligible;   /* runnable entities that may be picked now
                             * (only if asked: it may cost a walk) */
};

/* A policy's view of one entity: se on q (current, listed or delayed), or
 * on no queue (then the lag is the one it left with). */
struct sched_entity_view {
    uint32_t weight;   /* 0: the policy has no weights */
    uint64_t slice_ns; /* the slice the policy uses for it */
    uint64_t vruntime, deadline;
    int64_t lag;       /* V − vruntime, virtual ns */
    bool eligible;     /* may be picked now */
    bool delayed;      /* blocked, but still queued by the policy */
    uint64_t vprot;    /* current only: its protected stretch lasts while
                        * its vruntime is short of this (RUN_TO_PARITY); 0 otherwise */
};

/* A visit of for_each_queued: true to go on to the next entity. */
typedef bool sched_visit_fn(struct sched_entity *se, void *arg);

struct sched_policy {
    const char *name;

    /* Empty queue. */
    void (*init)(struct sched_queue *q, const struct sched_params *p);
    /* Prepare a new entity (nice/slice already set) before its first join. */
    void (*init_entity)(struct sched_queue *q, struct sched_entity *se);

    /* se, not on any queue, becomes runnable here: it goes on the list.
     * Also (WAKE only) se still on q because EEVDF delayed its departure
     * (se->on_queue true): it just becomes runnable again. */
    void (*join)(struct sched_queue *q, struct sched_entity *se, enum sched_join_reason why);
    /* se (current or on the list) leaves the queue. EEVDF with
     * DELAY_DEQUEUE may keep a BLOCKing entity that owes service on the
     * queue, delayed (se->on_queue stays true, it is no longer current,
     * never picked); see eevdf.h for when it really leaves. */
    void (*leave)(struct sched_queue *q, struct sched_entity *se, enum sched_leave_reason why);
    /* The current entity, still runnable, goes back onto the list. */
    void (*put_back)(struct sched_queue *q);
    /* se leaves the list and becomes current. BUG if an entity is current. */
    void (*take)(struct sched_queue *q, struct sched_entity *se);

    /* The entity that should run now, among the list and current; NULL if
     * the queue is empty. Moves nothing, except that EEVDF finishes the
     * departure of delayed entities it would have picked (their on_queue
     * becomes false); tick and wakeup_preempt may do the same. Sets
     * q->touched. */
    struct sched_entity *(*pick)(struct sched_queue *q);

    /* The current entity ran for delta_ns more nanoseconds. BUG if none is
     * current: charge before the current entity leaves. True if the policy
     * wants a decision (EEVDF: Linux's update_curr() rule). The caller
     * charges where it takes one of the steps below, never in between:
     * the deadline is renewed only by a charge. */
    bool (*charge)(struct sched_queue *q, uint64_t delta_ns);
    /* A scheduler tick while current ran (charged just before): true if a
     * decision is wanted. The decision may keep current: the tick only
     * asks, the pick decides (as Linux's entity_tick() only asks). */
    bool (*tick)(struct sched_queue *q);
    /* The current entity asks to give way (charged just before). */
    void (*yield)(struct sched_queue *q);
    /* se just joined by waking: true if it should preempt current now.
     * Not asked while a decision is already due (Linux returns early when
     * need-resched is set): the caller knows that, the policy does not. */
    bool (*wakeup_preempt)(struct sched_queue *q, struct sched_entity *se);
    /* Run time (ns) the current entity may still have, counted from its
     * last charge, before the policy wants a decision; 0: one is due now
     * (also after a join: ask then); UINT64_MAX: no timer (the core arms
     * its one-shot timer for it: HRTICK). */
    uint64_t (*timer_ns)(struct sched_queue *q);

    /* Change se's nice or requested slice; se may be on q (current or
     * listed) or on no queue (q is then NULL). */
    void (*set_nice)(struct sched_queue *q, struct sched_entity *se, int nice);
    void (*set_slice)(struct sched_queue *q, struct sched_entity *se, uint64_t slice_ns);

    /* Views (read only). describe_queue counts nr_eligible only if
     * count_eligible. describe takes qv, q's describe_queue view made
     * since q last changed, or NULL: with it, a view reads V once (the
     * trace describes the queue and then an entity at every record, and
     * under icount each instruction is guest time). for_each_queued calls
     * fn for every entity on the queue but current, delayed ones included,
     * in the policy's order, until fn returns false (a walk with a bound:
     * detach_tasks()'s loop_max); it returns false if fn stopped it. */
    void (*describe_queue)(const struct sched_queue *q, bool count_eligible, struct sched_queue_view *v);
    void (*describe)(const struct sched_queue *q, const struct sched_queue_view *qv, const struct sched_entity *se,
                     struct sched_entity_view *v);
    bool (*for_each_queued)(const struct sched_queue *q, sched_visit_fn *fn, void *arg);
};

extern const struct sched_policy rr_policy;
extern const struct sched_policy eevdf_policy;
extern const struct sched_policy rt_policy;

/* Defines NAME_policy from the functions NAME_init ... NAME_for_each_queued,
 * one for every op, in the manner of Linux's DEFINE_SCHED_CLASS. Every op is
 * named here, so a policy that lacks one fails to compile instead of leaving
 * a NULL for the core to call. */
#define SCHED_POLICY_DEFINE(NAME)                        \
    const struct sched_policy NAME##_policy = {          \
        .name = #NAME,                                   \
        .init = NAME##_init,                             \
        .init_entity = NAME##_init_entity,               \
        .join = NAME##_join,                             \
        .leave = NAME##_leave,                           \
        .put_back = NAME##_put_back,                     \
        .take = NAME##_take,                             \
        .pick = NAME##_pick,                             \
        .charge = NAME##_charge,                         \
        .tick = NAME##_tick,                             \
        .yield = NAME##_yield,                           \
        .wakeup_preempt = NAME##_wakeup_preempt,         \
        .timer_ns = NAME##_timer_ns,                     \
        .set_nice = NAME##_set_nice,                     \
        .set_slice = NAME##_set_slice,                   \
        .describe_queue = NAME##_describe_queue,         \
        .describe = NAME##_describe,                     \
        .for_each_queued = NAME##_for_each_queued,       \
    }

/* The doubly linked list of entities that rr.c (its run list) and rt.c (its
 * queue) each keep, written once: LINKS names the member of struct
 * sched_entity holding next and prev and the member of struct sched_queue
 * holding head and tail (rr, rt); COUNT is the count of listed entities,
 * an expression of q. Defines, in the policy that expands it:
 *  - list_insert_after(q, pos, se): se after pos, or at the head (pos NULL);
 *  - list_remove(q, se): se off the list, its links NULL;
 *  - LINKS_for_each_queued, the op: fn with each listed entity, head first,
 *    until fn returns false (fn may take that entity off the list). */
#define SCHED_LIST_DEFINE(LINKS, COUNT)                                                                     \
    static void list_insert_after(struct sched_queue *q, struct sched_entity *pos, struct sched_entity *se) \
    {                                                                                                       \
        struct sched_entity *next = pos ? pos->LINKS.next : q->LINKS.head;                                  \
        se->LINKS.prev = pos;                                                                               \
        se->LINKS.next = next;                                                                              \
        if (pos)                                                                                            \
            pos->LINKS.next = se;                                                                           \
        else                                                                                                \
            q->LINKS.head = se;                                                                             \
        if (next)                                                                                           \
            next->LINKS.prev = se;                                                                          \
        else                                                                                                \
            q->LINKS.tail = se;                                                                             \
        (COUNT)++;                                                                                          \
    }                                                                                                       \
                                                                                                            \
    static void list_remove(struct sched_queue *q, struct sched_entity *se)                                 \
    {                                                                                                       \
        if (se->LINKS.prev)                                                                                 \
            se->LINKS.prev->LINKS.next = se->LINKS.next;                                                    \
        else                                                                                                \
            q->LINKS.head = se->LINKS.next;                                                                 \
        if (se->LINKS.next)                                                                                 \
            se->LINKS.next->LINKS.prev = se->LINKS.prev;                                                    \
        else                                                                                                \
            q->LINKS.tail = se->LINKS.prev;                                                                 \
        se->LINKS.next = se->LINKS.prev = NULL;                                                             \
        (COUNT)--;                                                                                          \
    }                                                                                                       \
                                                                                                            \
    static bool LINKS##_for_each_queued(const struct sched_queue *q, sched_visit_fn *fn, void *arg)         \
    {                                                                                                       \
        for (struct sched_entity *se = q->LINKS.head, *next; se; se = next) {                               \
            next = se->LINKS.next;                                                                          \
            if (!fn(se, arg))                                                                               \
                return false;                                                                               \
        }                                                                                                   \
        return true;                                                                                        \
    }

/* The ops of a policy with no virtual time and no weights (rr, and the RT
 * class above the fair one), written once: defines NAME_timer_ns,
 * NAME_set_nice, NAME_set_slice and NAME_describe_queue in the policy that
 * expands it. No timer of its own (its turns end at a tick: rr's when the
 * slice is used, RT's RR quantum counts ticks, and the RT budget is
 * decide.c's); nice and the slice only stored (RT keeps nice for when the
 * task is fair again, and ignores it); a queue view with no V. Here, not in
 * rr.c, so the RT class does not depend on the fair policy that runs. Each
 * policy's describe stays its own: what it says of an entity differs. */
#define SCHED_NO_VTIME_DEFINE(NAME)                                                                            \
    static uint64_t NAME##_timer_ns(struct sched_queue *q)                                                     \
    {                                                                                                          \
        (void)q;                                                                                               \
        return UINT64_MAX;                                                                                     \
    }                                                                                                          \
                                                                                                               \
    static void NAME##_set_nice(struct sched_queue *q, struct sched_entity *se, int nice)                      \
    {                                                                                                          \
        (void)q;                                                                                               \
        se->nice = nice;                                                                                       \
    }                                                                                                          \
                                                                                                               \
    static void NAME##_set_slice(struct sched_queue *q, struct sched_entity *se, uint64_t slice_ns)            \
    {                                                                                                          \
        (void)q;                                                                                               \
        se->slice_ns = slice_ns;                                                                               \
    }                                                                                                          \
                                                                                                               \
    static void NAME##_describe_queue(const struct sched_queue *q, bool count_eligible,                        \
                                      struct sched_queue_view *v)                                              \
    {                                                                                                          \
        (void)q;                                                                                               \
        (void)count_eligible;                                                                                  \
        *v = (struct sched_queue_view){ .vtime = false };                                                      \
    }

#endif
