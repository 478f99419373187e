/*
 * Trace state: who is where, rebuilt from a trace's events. One model
 * for both readers of a trace: `runq step`'s replay (db/replay.c: the
 * events in the kernel's order, seekable by checkpoints of this state)
 * and `runq top`'s model (tui/model.c: each table's new rows, read table
 * by table); and for the Linux recorder (host/engine/linux/lxrec.c),
 * which applies each PICK, LEAVE and JOIN it writes, in order, and asks
 * it who runs on a CPU since when and whether a thread runs, is queued
 * or is gone. What a JOIN, a LEAVE, a PICK, a TICK or a keyframe does to
 * a CPU's queue and to a task is written here, once; the readers add
 * their own views (step: the queue in display order and current's
 * numbers solved from V; top: rates, counts, histograms and current's
 * numbers charged at each tick).
 *
 * Not the writer's derived tables (db/derive.h says why): table
 * thread_state's intervals follow rules of their own (a WAKE makes a
 * sleeper R, a gap makes every task of its CPU '?'), and the writer
 * holds a bounded set of tasks, letting go of the dead, where a state
 * here keeps every task of its ids.
 *
 * What it holds:
 *   - per task: its state (enum thread_state: run, R, R+, S, delayed, X)
 *     and the CPU it runs, is queued or last ran on; the queue that
 *     holds it, if any, with its place in the round robin's list and
 *     whether it is delayed (DELAY_DEQUEUE); its EEVDF numbers (vruntime,
 *     deadline, lag, weight, slice), each as the newest event that spoke
 *     of it gave it, and known or not;
 *   - per CPU: its V, its runnable count, the task the newest pick or
 *     keyframe named, the task on it now, and its queue.
 *
 * The rules, one event at a time:
 *
 *   JOIN     the task is placed on this CPU's queue (and so off any
 *            other's): runnable, with the JOIN's vruntime, deadline,
 *            weight and slice, at the tail of the round robin's list
 *            unless it was already queued there as current or delayed
 *   LEAVE    as its reason's leave_meaning says (db/events.h): the state;
 *            back on the queue at the tail of the list (preempt, yield,
 *            release), still queued but not runnable (delayed), or off
 *            it; the CPU's current is nobody until the next pick; the
 *            numbers it carries (a LEAVE without them makes them unknown)
 *   PICK     next runs and is on this CPU's queue; prev, still running
 *            here without a LEAVE, is runnable again; V and, with it,
 *            next's vruntime and deadline as the pick saw them. A CPU's
 *            idle task is picked without being queued.
 *   TICK     V, and the runnable count
 *   KEYFRAME the CPU's V (without one, not known) and its whole queue:
 *            its first row takes every task queued before the keyframe
 *            off the queue, each row puts its task back with its
 *            numbers (a weight of 0, the round robin's, is none: the
 *            default); the current row names the task on the CPU. An
 *            idle CPU's row names its idle task, which is on no queue.
 *   WAKE, SET, MARK: nothing here.
 * A task that comes onto a queue by a PICK or a LEAVE (no JOIN seen: the
 * trace began, or lost records, after it joined) starts with no numbers
 * and the default weight; a PICK's at the head of the list. (In order
 * only: out of order, what is not there yet may come.)
 *
 * The order. A replay applies events in the kernel's order
 * (TSTATE_IN_ORDER): each one is the newest, and wins. `runq top` reads
 * each table's new rows in one pass (db/qx_top.h), so the rows of one
 * update come table by table, not in time order (TSTATE_ANY_ORDER): then
 * a task's state, its place on a queue and its numbers each keep the
 * time and rank of the event that set them, and an event older than
 * that changes nothing of it. Ties at one time rank leave < place < pick
 * < keyframe (the kernel writes a keyframe after the decision it
 * follows). A CPU's V and count keep their time: the newer, or at the
 * same time the one applied last, wins. The task a CPU runs is named by a
 * pick at or after the last naming, or by a keyframe strictly after it.
 * So the state after every row up to a time is the state that applying
 * them in time order would leave, whatever the order they came in
 * (tests/tui/top_model_test.c holds it), but for what only order can tell:
 * the round robin's list order (seq), the slice, an estimated deadline
 * (tstate_settle), a CPU's curr, and what a task that comes onto a queue
 * without a JOIN no longer has (above).
 *
 * Invariants (BUG_ON): a task's `on` names the one queue that holds it,
 * and that queue holds it once; in order, a CPU's curr is the task it
 * last named, or nobody.
 *
 * Times are ns; virtual times are EEVDF's virtual ns, modulo 2^64
 * (db/vtime.h). Task ids are utids.
 */
#ifndef RUNQ_DB_TSTATE_H
#define RUNQ_DB_TSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/events.h"

/* A task in state s waits on a queue to run (R, R+): the question the
 * writer's own state machine (db/derive.c) and the Linux recorder ask. */
static inline bool tstate_queued(enum thread_state s)
{
    return s == THREAD_RUNNABLE || s == THREAD_PREEMPTED;
}

/* The most tasks one CPU's queue holds (as a keyframe does: the
 * kernel's KF_MAX): a task placed on a full queue stays off every queue
 * (its state and numbers are still kept). */
#define TSTATE_MAX_QUEUE 64

/* The tasks a state is about: utid to index, and whether each is a CPU's
 * idle task. A state holds a record for each; the states of one trace
 * (a replay's checkpoints) share one set. */
struct tstate_slot {
    int64_t utid; /* 0: empty */
    int index;
};
struct tstate_ids {
    struct tstate_slot *slot; /* utid -> index, open addressing */
    size_t hcap;
    int64_t *utid; /* by index */
    bool *idle;
    int n, cap;
};

/* Adds utid (> 0; idle: it is a CPU's idle task) and returns its index;
 * the index it has when it is already in. -1 when out of memory (not
 * xmalloc: `runq top` shows that as its fault and goes on, db/qx_top.h),
 * or for a utid <= 0, which names no task. */
int tstate_ids_add(struct tstate_ids *ids, int64_t utid, bool idle);
/* Its index, or -1. */
int tstate_ids_find(const struct tstate_ids *ids, int64_t utid);
void tstate_ids_free(struct tstate_ids *ids);

/* When an event set something: its time and the rank of its kind
 * (TSTATE_ANY_ORDER's ties). */
struct tstate_stamp {
    uint64_t ts;
    int rank;
};

struct tstate_task {
    /* the task's life: `runq top`'s STATE and CPU */
    enum thread_state state;
    int cpu;              /* where it runs, is queued or last ran; -1 not known */
    struct tstate_stamp st;
    /* its place: `runq step`'s queues */
    int on;               /* the CPU whose queue holds it; -1 none */
    bool delayed;         /* on it but not runnable (DELAY_DEQUEUE) */
    uint64_t seq;         /* the round robin's list order: smaller is nearer the head */
    struct tstate_stamp at;
    /* EEVDF numbers: has_*: the number is in the trace (not under rr, not
     * from Linux's tracefs); a number read where has_* is false is none */
    bool has_vruntime, has_deadline;
    bool weight_known;    /* false: a row without its weight (a Linux trace's "other") */
    bool dl_estimated;    /* deadline renewed since the last record that had it (tstate_settle) */
    int64_t vruntime, deadline, weight, slice_ns;
    int64_t lag;          /* V - vruntime as of its newest event that gave it (a sleeper keeps it) */
    /* the vruntime's, and each other number's own: not every event that
     * speaks of one speaks of the others (a LEAVE may carry no deadline,
     * a PICK no weight, a JOIN without V no lag) */
    struct tstate_stamp ev, dl, wt, lg;
};

struct tstate_cpu {
    bool has_v;
    int64_t v;
    uint64_t v_ts;
    bool has_nr;          /* nr_runnable is known (not on a trace whose engine counts nothing) */
    int nr_runnable;      /* current included */
    uint64_t nr_ts;
    int64_t named;        /* the task the newest pick or keyframe named (0: none, or lost in a gap) */
    uint64_t named_ts;
    /* On the CPU: named, unless it left since (0: nobody). In order only:
     * out of order the LEAVE may come before the pick it follows, and
     * curr is named. */
    int64_t curr;
    bool known;           /* a keyframe or a pick has been seen (since the last gap) */
    bool has_kf;          /* a keyframe has been seen: kf_ts is its time */
    uint64_t kf_ts;
    int kf_n;             /* rows of that keyframe so far, idle task left out */
    int nq;               /* the queue: task indexes, in the order they came onto it */
    int q[TSTATE_MAX_QUEUE];
};

enum tstate_order {
    TSTATE_IN_ORDER,  /* every event is newer than the ones before (a replay) */
    TSTATE_ANY_ORDER, /* events come in any order; stamps decide (`runq top`) */
};

struct tstate {
    const struct tstate_ids *ids;
    enum tstate_order order;
    bool eevdf;           /* the policy is EEVDF (else the round robin) */
    bool counts;          /* the engine counts decisions (db/events.h, event_engine_counts) */
    bool has_numbers;     /* the trace carries EEVDF numbers at all (a Linux trace from tracefs: none) */
    int64_t base_slice_ns; /* EEVDF's base slice for the trace's CPUs (tstate_settle) */
    int ncpus;
    struct tstate_cpu *cpu; /* ncpus */
    struct tstate_task *task; /* by ids index: ntask of them */
    int ntask, task_cap;
    uint64_t seq;
};

/* A state for ncpus CPUs over the tasks of ids, none of them seen yet
 * (state ?, on no queue, numbers unknown, weight 1024). Returns 0, or -1
 * out of memory (tstate_free is harmless then). The caller sets eevdf,
 * counts, has_numbers and base_slice_ns. */
int tstate_init(struct tstate *st, const struct tstate_ids *ids, int ncpus, enum tstate_order order);
void tstate_free(struct tstate *st);

/* Gives st a record for each task ids has gained since (the tasks a live
 * trace adds). 0, or -1 out of memory (st is unchanged). */
int tstate_sync(struct tstate *st);

/* dst becomes src: both over the same ids and CPUs (dst from tstate_init
 * with them, then synced as far). */
void tstate_copy(struct tstate *dst, const struct tstate *src);

/* The record of utid, or NULL when st does not hold it. */
struct tstate_task *tstate_task(struct tstate *st, int64_t utid);

/*
 * Applies event e, and for a KEYFRAME its row kf (a keyframe is applied
 * a row at a time, in the order the recorder wrote them: current
 * first). An event on a CPU beyond st's, or about a task st does not
 * hold, moves only what it can (a CPU's V and count for an unknown
 * task). KEYFRAME, JOIN, LEAVE, PICK and TICK move something; the other
 * kinds nothing.
 */
void tstate_apply(struct tstate *st, const struct event *e, const struct event_kf_entry *kf);

/* A gap in CPU cpu's records: who runs there is not known until a pick
 * or a keyframe says. */
void tstate_gap(struct tstate *st, int cpu);

/* For a reader whose gaps lose more than the CPU's task (the Linux
 * recorder: a gap on a CPU makes what each thread tied to it does
 * unknown): what task utid does is not known from here. Its state
 * becomes THREAD_UNKNOWN, unless it is dead; its place on a queue, its
 * CPU and its numbers stay. In order only (BUG_ON): it has no event, so
 * no stamp. */
void tstate_forget(struct tstate *st, int64_t utid);

/*
 * For a state applied in the kernel's order (a replay), after each event
 * on cpu: the numbers the records do not carry, worked out from those
 * they do. V = sum(w*v)/sum(w) over the queue, current included, and
 * every other vruntime there is exact (a queued task's does not move),
 * so current's is V*W less the others', over its weight; a deadline
 * behind its vruntime was renewed while it ran, a slice at a time
 * (dl_estimated). They stay until a record says otherwise. Nothing under
 * the round robin or without V.
 */
void tstate_settle(struct tstate *st, int cpu);

/* One task of a queue, as shown. */
struct tstate_ent {
    int64_t utid;
    bool current, delayed;
    bool dl_estimated, has_vruntime, has_deadline, weight_known;
    int64_t vruntime, deadline, weight, slice_ns;
    uint64_t seq;
};

/* CPU cpu's queue in display order into out (TSTATE_MAX_QUEUE entries):
 * EEVDF by deadline (those whose deadline is unknown last, in the order
 * they joined), the round robin current first then list order; an idle
 * task only while it runs. Returns the count. */
int tstate_queue(const struct tstate *st, int cpu, struct tstate_ent *out);

#endif
