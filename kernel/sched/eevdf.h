/*
 * Policy eevdf: Earliest Eligible Virtual Deadline First, as Linux runs
 * ordinary tasks since 6.6. Per-entity and per-queue state, and read-only
 * accessors for `sched queue`, trace events and tests. The derivation of
 * V, lag and eligibility is at the top of eevdf.c and in docs/eevdf.md.
 *
 * Units: real time in ns; virtual time in "virtual ns", where one ns on the
 * CPU is 1024/weight virtual ns. Virtual times are u64 that may wrap; only
 * their differences, as s64, mean anything.
 *
 * Who owns what: every field below is written by eevdf.c only. The core
 * reads through the accessors.
 *
 * Delayed dequeue (feature DELAY_DEQUEUE). leave(q, se, SCHED_LEAVE_BLOCK)
 * of an entity that is not eligible (negative lag) does not take it off the
 * queue: it stays in the tree, counted in V, with se->on_queue still true
 * and eevdf_delayed(se) true, until its lag is paid. It is never returned
 * by pick and never counted in q->nr_queued (which counts runnable
 * entities). Its departure is finished by whichever comes first:
 *   - pick (also reached from tick and wakeup_preempt) would have chosen
 *     it: it leaves then, se->on_queue becomes false, and the pick goes on;
 *   - the core wakes it: join(q, se, SCHED_JOIN_WAKE) on the same queue
 *     just makes it runnable again (re-placed at zero lag if DELAY_ZERO and
 *     it is owed something);
 *   - the core moves it or it exits: leave(q, se, MIGRATE or EXIT).
 * So the core keeps one rule: a blocked task with se->on_queue true is
 * still on that queue, and waking it is join(WAKE) there.
 */
#ifndef RUNQ_SCHED_EEVDF_H
#define RUNQ_SCHED_EEVDF_H

#include <stdbool.h>
#include <stdint.h>

struct sched_queue;
struct sched_entity;

__extension__ typedef __int128 eevdf_s128;

struct eevdf_entity {
    uint64_t vruntime; /* virtual runtime */
    uint64_t deadline; /* virtual deadline: vruntime + slice * 1024 / weight at request */
    uint64_t vprot;    /* while current: protected until vruntime reaches this */
    int64_t vlag;      /* while off the queue: the lag it left with (virtual ns) */
    uint64_t slice;    /* effective slice, ns (request clamped, or the base) */
    uint64_t sum_exec; /* ns charged in all; at its last take: prev_sum_exec */
    uint64_t prev_sum_exec;
    uint32_t weight;   /* from nice */
    uint32_t wmult;    /* 2^32 / weight */
    bool delayed;      /* blocked, still queued until its lag is paid */
    struct eevdf_queue *queue; /* the queue it is on, or NULL */

    /* Tree node (eevdf_tree.c): ordered by (deadline, seq). */
    struct eevdf_entity *left, *right;
    uint64_t seq;          /* insertion order: equal deadlines run FIFO */
    uint64_t min_vruntime; /* smallest vruntime in this subtree */
    uint64_t min_slice;    /* smallest slice in this subtree */
    uint64_t max_slice;    /* largest slice in this subtree */
    int height;
};

struct eevdf_queue {
    struct eevdf_entity *root; /* every entity on the queue but current */
    /* V's ingredients, over the tree and current: sum = Σ w·(v − v0),
     * load = Σ w. v0 follows the smallest vruntime so keys stay small. */
    eevdf_s128 sum;
    uint64_t load;
    uint64_t v0;
    uint64_t seq;        /* next insertion number */
    unsigned nr_delayed; /* delayed entities in the tree */
    uint64_t base_slice; /* ns: 700 us x (1 + ilog2(min(ncpus, 8))) */
    /* HRTICK: when current's timer is due, in current's own charged run
     * time (its sum_exec), or UINT64_MAX: none. Set as Linux's
     * hrtick_start_fair() sets it (at take, and after a join or leave);
     * cleared by a pick, as __schedule()'s hrtick_clear(), and not set
     * again by a pick that keeps current (no set_next_entity()). */
    uint64_t timer_at;
    /* The entity that was current when it blocked and was delayed, until
     * the next pick: Linux's cfs_rq->curr until put_prev_entity(), which
     * that pick may still return (see eevdf_pick). NULL: none. */
    struct eevdf_entity *delayed_curr;
};

/* V when the sum does not fit 64 bits (eevdf_avg_of's rare case). */
uint64_t eevdf_avg_slow(const struct eevdf_queue *eq);

/* Base slice for a machine of ncpus CPUs, ns. */
uint64_t eevdf_base_slice(unsigned ncpus);
/* A requested slice as the policy will use it: 0 stays 0 (the base),
 * anything else clamped to EEVDF_SLICE_MIN..EEVDF_SLICE_MAX. */
uint64_t eevdf_clamp_slice(uint64_t slice_ns);
#define EEVDF_SLICE_MIN 100000ull    /* 0.1 ms */
#define EEVDF_SLICE_MAX 100000000ull /* 100 ms */

/* Virtual time for delta_ns of real time at se's weight: delta*1024/w in
 * 32.32 fixed point (exact at nice 0). */
uint64_t eevdf_calc_vdelta(uint64_t delta_ns, uint32_t weight, uint32_t wmult);

/*
 * Read-only views. q must be the queue se is on (or, for eevdf_lag, se may
 * be off every queue: it then reports the lag se left with).
 */
uint64_t eevdf_V(const struct sched_queue *q);               /* floor of the weighted average */
int64_t eevdf_lag(const struct sched_queue *q, const struct sched_entity *se); /* V − v */
bool eevdf_eligible(const struct sched_queue *q, const struct sched_entity *se); /* exact: v ≤ avg */
bool eevdf_protected(const struct sched_entity *se); /* current, inside its protected stretch */
/* se's own numbers, one reader a field of struct eevdf_entity, as Linux's
 * page-flags.h makes its PageX() readers: eevdf_vruntime(se) returns
 * se->ee.vruntime, and so eevdf_deadline, eevdf_weight, eevdf_slice and
 * eevdf_delayed (blocked, still queued). The core, the tests and the
 * host's sim read an entity through these, never through its struct; this
 * one table declares them here and defines them in eevdf.c. */
#define EEVDF_FIELD_READERS(X) \
    X(uint64_t, vruntime)      \
    X(uint64_t, deadline)      \
    X(uint32_t, weight)        \
    X(uint64_t, slice)         \
    X(bool, delayed)
#define EEVDF_FIELD_READER_DECLARE(type, field) type eevdf_##field(const struct sched_entity *se);
EEVDF_FIELD_READERS(EEVDF_FIELD_READER_DECLARE)
#undef EEVDF_FIELD_READER_DECLARE
unsigned eevdf_nr_delayed(const struct sched_queue *q);
unsigned eevdf_nr_eligible(const struct sched_queue *q); /* current and queued, not delayed, v ≤ avg */
/* The same count against a V already read (eevdf_avg_of). */
unsigned eevdf_nr_eligible_at(const struct sched_queue *q, uint64_t V);

/* v <= V, for a V already computed: the same answer as vt_eligible (for
 * an integer key, key * load <= sum exactly when key <= floor(sum / load))
 * without its 128-bit product, so that a view reads V once. */
static inline bool eevdf_eligible_at(const struct eevdf_queue *eq, uint64_t V, uint64_t v)
{
    return eq->load == 0 || (int64_t)(v - V) <= 0;
}

/*
 * V, the floor of the weighted average v0 + sum / load: avg_vruntime()
 * itself (eevdf.c defines it as this), inline so that the trace's emit
 * points (kernel/trace/emit.c) read it without a call. Its usual case,
 * a sum that fits 64 bits, is one division; the other is
 * eevdf_avg_slow(). Under icount instructions are guest time: through
 * the policy's views (describe_queue, describe) a PICK spent about 150
 * instructions on its numbers (tests/kernel/bench_trace_emit.sh).
 */
static inline uint64_t eevdf_avg_of(const struct eevdf_queue *eq)
{
    if (eq->load == 0)
        return eq->v0;
    int64_t n = (int64_t)eq->sum;
    if ((eevdf_s128)n == eq->sum && eq->load <= (uint64_t)INT64_MAX) {
        int64_t d = (int64_t)eq->load, q = n / d;
        return eq->v0 + (uint64_t)(q - (n % d < 0));
    }
    return eevdf_avg_slow(eq);
}

/*
 * The pick without side effects, two ways. Both return the entity EEVDF
 * would choose among the tree and current, delayed entities included (the
 * op pick retires those and looks again), honouring current's protection.
 * eevdf_pick_fast walks the augmented tree in O(log n) and sets q->touched;
 * eevdf_pick_reference recomputes V and every eligibility from scratch in
 * O(n). They must always agree; tests and the fuzzer check that they do.
 */
struct sched_entity *eevdf_pick_fast(struct sched_queue *q);
struct sched_entity *eevdf_pick_reference(const struct sched_queue *q);

/*
 * A queue rebuilt from recorded state, so that another scheduler's
 * decision can be replayed through this policy's own pick (`runq report
 * fidelity` replays Linux's): eevdf_policy.pick(q) afterwards is the
 * decision eevdf would make on that queue.
 *
 * q: freshly initialised (eevdf_policy.init), empty. curr: the entity that
 * was running when the decision began, or NULL; if its ee.delayed is set
 * it blocked and its dequeue was delayed (it goes in the tree, remembered
 * as eevdf_leave() leaves it: a pick may still return it first). queued:
 * the n entities in the tree, delayed ones included; on equal deadlines
 * the earlier in queued runs first. Every entity is off every queue, with
 * nice, ee.vruntime, ee.deadline, ee.slice, ee.weight (>= 2), ee.vprot
 * (current: protected while its vruntime is short of it) and ee.delayed
 * set; the rest is derived. No clock, no CPU: only the queue.
 */
void eevdf_restore(struct sched_queue *q, struct sched_entity *curr, struct sched_entity *const *queued, unsigned n);

/* Walk the whole queue and BUG_ON any broken invariant: tree order and
 * balance, cached minima, sums, counts, back pointers. O(n), for tests. */
void eevdf_check(const struct sched_queue *q);

/* Call fn for every entity in the tree (not current), in deadline order,
 * until fn returns false; false if fn stopped the walk. */
bool eevdf_for_each_queued(const struct sched_queue *q, bool (*fn)(struct sched_entity *se, void *arg), void *arg);

#endif
