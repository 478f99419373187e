/*
 * Linux 6.18's fair class on one CPU, as a reference for `runq sim -v`
 * (issue 14). Written from the rules of kernel/sched/fair.c, core.c and
 * features.h of 6.18, function by function; the comments name the Linux
 * function each part follows. Nothing here comes from runq's eevdf.c: of
 * runq only the weight table (kernel/sched/weights.c, Linux's own numbers),
 * the text of numbers (host/scenario/duration.c: a workload's durations,
 * runq sim -v's microseconds) and the generator's random stream
 * (host/engine/sim/rng.h) are shared, none of them a scheduling rule.
 *
 * What was read: 6.18's versions of the functions named below, from the
 * patches that made them (Vincent Guittot's July 2025 series giving
 * set_protect_slice() its cfs_rq and adding update_protect_slice() and
 * __pick_eevdf(cfs_rq, protect); 79104becf42b's yield_task_fair(); the
 * 0-day listings of 6.18's check_preempt_wakeup_fair() and
 * yield_task_fair()), before 6.19's zero_vruntime and NEXT_BUDDY rework.
 * Checked in a second pass against stored copies of 6.17/6.18-era text:
 * update_curr() with update_deadline() and "if (resched ||
 * !protect_slice(curr))", entity_tick(), requeue_delayed_entity() (no
 * update_curr() before it: 333238da9a19, which adds one, came later; the
 * switch REQUEUE_UPDATE_CURR, off by default, has it),
 * dequeue_entity() with DELAY_DEQUEUE and DEQUEUE_DELAYED,
 * hrtick_start_fair() ("slice - ran"), __pick_eevdf()'s treatment of
 * cfs_rq->curr (a delayed curr is still curr until put_prev_entity()),
 * and features.h's defaults (HRTICK false, PLACE_REL_DEADLINE true). A
 * whole 6.18 fair.c was not available: mainline's mirror is too large to
 * fetch here, and the full copies found are vendor trees.
 *
 * One rule is 6.18-stable's rather than 6.18's, a switch with runq's
 * default: LAG_CLAMP_MAX_SLICE, 6e3c0a4e1ad1's entity_lag() clamp (the
 * longest slice queued plus a tick), written from the patch as posted to
 * LKML (cfs_rq_max_slice() over curr, if on_rq, and the tree) and the
 * stored text of entity_lag(); off, the switch gives 6.18's max(2 slices,
 * a tick), so the random half of the differential test checks both.
 *
 * Left out, on purpose: PLACE_REL_DEADLINE (only a non-sleep dequeue, a
 * migration or a setattr, uses it: one CPU never does), NEXT_BUDDY (off by
 * default), cgroups, and the other classes.
 *
 * The world is `runq sim`'s (docs/sim.md): time moves a quantum at a time
 * and every event falls on a quantum boundary. Linux's decision points are
 * kept inside that world. At each boundary, in this order:
 *
 *   1. the quantum just run is not charged yet: Linux charges current only
 *      when update_curr() runs (the tick, an enqueue, a dequeue, a wakeup
 *      check, a pick, a yield);
 *   2. on a tick boundary, entity_tick(): update_curr(), which may only
 *      *request* a resched (resched_curr_lazy); an HRTICK timer due by now
 *      fires here (hrtick() -> entity_tick(queued=1));
 *   3. if current's run step ended, it blocks (dequeue_entity() with
 *      DEQUEUE_SLEEP, maybe delayed), exits (DEQUEUE_SPECIAL: never
 *      delayed) or yields (yield_task_fair()); it will schedule();
 *   4. arrivals (wake_up_new_task: ENQUEUE_INITIAL) and wakeups
 *      (try_to_wake_up: a delayed entity is requeued, any other enqueued),
 *      in file order, each followed by wakeup_preempt();
 *   5. if a resched is pending, __schedule(): pick_task_fair() (which alone
 *      finishes delayed dequeues), put_prev_entity(), set_next_entity().
 *      Re-picking current is a decision too, and does not renew its
 *      protection (put_prev_set_next_task() returns early).
 *
 * A step-3 block before a step-4 wakeup at the same boundary is runq sim's
 * convention, kept so both sides read a workload alike. PREEMPT_LAZY is
 * not modelled: resched_curr_lazy() is a resched (the non-lazy models).
 *
 * Vruntimes start at 0 where Linux starts min_vruntime at -(1 << 20): a
 * translation, which changes no comparison and no floor (avg_vruntime()
 * floors a sum of weight * (v - min_vruntime), and moving the base by an
 * integer d moves the floor by exactly d), and prints in runq's frame.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host/scenario/scenario.h"
#include "linux_ref.h"
#include "weights.h"

typedef __int128 lref_s128;

#define LREF_NONE (-1)
#define LREF_NEVER UINT64_MAX
/* normalized_sysctl_sched_base_slice */
#define LREF_NORMALIZED_BASE_SLICE 700000ull

struct lref_se {
    uint32_t weight, wmult;
    uint64_t slice;
    bool custom_slice;
    uint64_t vruntime, deadline, vprot;
    int64_t vlag;
    bool on_rq, sched_delayed, in_tree;
    uint64_t seq; /* insertion order: rb_add() puts equal deadlines to the right */
    uint64_t sum_exec_runtime, prev_sum_exec_runtime;
};

enum lref_state { LREF_T_NEW, LREF_T_QUEUED, LREF_T_ASLEEP, LREF_T_EXITED };

struct lref_task {
    const struct lref_task_spec *spec;
    struct lref_se se;
    enum lref_state state;
    int seg;
    uint64_t left; /* CPU time left in this run step; LREF_NEVER: forever */
    uint64_t wake_at;
    unsigned quanta;
};

struct lref_rq {
    const struct lref_workload *w;
    uint32_t compat;
    bool feat[LREF_NR_FEATURES];
    struct lref_task t[LREF_MAX_TASKS];
    int n;
    int curr;               /* cfs_rq->curr: running, or blocked until the pick */
    uint64_t min_vruntime;  /* monotonic, as 6.18's update_min_vruntime() */
    uint64_t seq;
    unsigned nr_queued;     /* cfs_rq->nr_queued: delayed entities included */
    uint64_t now, exec_start;
    bool need_resched;
    uint64_t hrtick_at;
    uint64_t base_slice;    /* sysctl_sched_base_slice */
    uint64_t tick;          /* TICK_NSEC */
    uint64_t runq_timer;    /* D6: runq's timer, real ns from the last boundary */
    int departed[LREF_MAX_TASKS * 4];
    int ndeparted;
    FILE *log;
};

static bool compat(const struct lref_rq *rq, enum lref_compat c)
{
    return rq->compat & (1u << c);
}

static struct lref_se *se_of(struct lref_rq *rq, int i)
{
    return &rq->t[i].se;
}

static bool vt_before(uint64_t a, uint64_t b)
{
    return (int64_t)(a - b) < 0;
}

/* calc_delta_fair() -> __calc_delta(delta, NICE_0_LOAD, &se->load): the
 * factor 1024 * inv_weight is shifted down at most 10 bits to fit 32, all
 * of them zero, so this is delta * 1024 * wmult >> 32 exactly. */
static uint64_t calc_delta_fair(uint64_t delta, const struct lref_se *se)
{
    if (se->weight == SCHED_WEIGHT_NICE_0)
        return delta;
    return (uint64_t)(((lref_s128)delta * ((uint64_t)SCHED_WEIGHT_NICE_0 * se->wmult)) >> 32);
}

/* cfs_rq->avg_vruntime and ->avg_load, with current added when it is on
 * the queue, as avg_vruntime() and vruntime_eligible() add it. */
static void lref_sums(struct lref_rq *rq, lref_s128 *avg, int64_t *load)
{
    *avg = 0;
    *load = 0;
    for (int i = 0; i < rq->n; i++) {
        struct lref_se *se = se_of(rq, i);
        bool counted = se->in_tree || (i == rq->curr && se->on_rq);

        if (counted) {
            *avg += (lref_s128)(int64_t)(se->vruntime - rq->min_vruntime) * se->weight;
            *load += se->weight;
        }
    }
}

/* avg_vruntime(): the floor of the weighted mean; min_vruntime if empty. */
static uint64_t avg_vruntime(struct lref_rq *rq)
{
    lref_s128 avg;
    int64_t load;

    lref_sums(rq, &avg, &load);
    if (load) {
        if (avg < 0)
            avg -= load - 1;
        avg /= load;
    }
    return rq->min_vruntime + (uint64_t)(int64_t)avg;
}

/* vruntime_eligible(): v <= V without dividing. */
static bool vruntime_eligible(struct lref_rq *rq, uint64_t v)
{
    lref_s128 avg;
    int64_t load;

    lref_sums(rq, &avg, &load);
    return avg >= (lref_s128)(int64_t)(v - rq->min_vruntime) * load;
}

static bool entity_eligible(struct lref_rq *rq, int i)
{
    return vruntime_eligible(rq, se_of(rq, i)->vruntime);
}

/* update_min_vruntime(): min(current on the queue, the tree's smallest
 * vruntime), never moving back. */
static void update_min_vruntime(struct lref_rq *rq)
{
    uint64_t v = rq->min_vruntime;
    bool have = false;

    if (rq->curr != LREF_NONE && se_of(rq, rq->curr)->on_rq) {
        v = se_of(rq, rq->curr)->vruntime;
        have = true;
    }
    for (int i = 0; i < rq->n; i++) {
        struct lref_se *se = se_of(rq, i);
        if (se->in_tree && (!have || vt_before(se->vruntime, v))) {
            v = se->vruntime;
            have = true;
        }
    }
    if ((int64_t)(v - rq->min_vruntime) > 0)
        rq->min_vruntime = v;
}

/* __enqueue_entity() / __dequeue_entity(): the tree is every queued
 * entity but current, ordered by (deadline, insertion). */
static void enqueue_tree(struct lref_rq *rq, int i)
{
    se_of(rq, i)->in_tree = true;
    se_of(rq, i)->seq = rq->seq++;
}

static void dequeue_tree(struct lref_rq *rq, int i)
{
    se_of(rq, i)->in_tree = false;
}

/* entity_before(): a deadline comparison; rb order breaks ties. */
static bool tree_before(const struct lref_se *a, const struct lref_se *b)
{
    if (a->deadline != b->deadline)
        return vt_before(a->deadline, b->deadline);
    return a->seq < b->seq;
}

static int pick_first_entity(struct lref_rq *rq)
{
    int best = LREF_NONE;

    for (int i = 0; i < rq->n; i++)
        if (se_of(rq, i)->in_tree && (best == LREF_NONE || tree_before(se_of(rq, i), se_of(rq, best))))
            best = i;
    return best;
}

/* cfs_rq_min_slice(): the shortest slice among current (if queued) and
 * the tree, delayed entities included; ~0 if none. */
static uint64_t cfs_rq_min_slice(struct lref_rq *rq)
{
    uint64_t m = UINT64_MAX;

    for (int i = 0; i < rq->n; i++) {
        struct lref_se *se = se_of(rq, i);
        if ((se->in_tree || (i == rq->curr && se->on_rq)) && se->slice < m)
            m = se->slice;
    }
    return m;
}

static uint64_t min_vt(uint64_t a, uint64_t b)
{
    return vt_before(b, a) ? b : a;
}

/* set_protect_slice(): at the pick, protect se up to its deadline or for
 * the shortest queued slice (RUN_TO_PARITY), else the unscaled 0.7 ms. */
static void set_protect_slice(struct lref_rq *rq, int i)
{
    struct lref_se *se = se_of(rq, i);
    uint64_t slice = compat(rq, LREF_C_D1) ? rq->base_slice : LREF_NORMALIZED_BASE_SLICE;
    uint64_t vprot = se->deadline;

    if (rq->feat[LREF_F_RUN_TO_PARITY])
        slice = cfs_rq_min_slice(rq);
    if (slice > se->slice)
        slice = se->slice;
    if (slice != se->slice)
        vprot = min_vt(vprot, se->vruntime + calc_delta_fair(slice, se));
    se->vprot = vprot;
}

/* update_protect_slice(): a shorter slice has joined; never lengthens. */
static void update_protect_slice(struct lref_rq *rq, int i)
{
    struct lref_se *se = se_of(rq, i);

    se->vprot = min_vt(se->vprot, se->vruntime + calc_delta_fair(cfs_rq_min_slice(rq), se));
}

static bool protect_slice(const struct lref_se *se)
{
    return (int64_t)(se->vprot - se->vruntime) > 0;
}

static void cancel_protect_slice(struct lref_se *se)
{
    if (protect_slice(se))
        se->vprot = se->vruntime;
}

/* update_deadline(): a new request once vruntime reaches the deadline. */
static bool update_deadline(struct lref_rq *rq, struct lref_se *se)
{
    if (vt_before(se->vruntime, se->deadline))
        return false;
    if (!se->custom_slice)
        se->slice = rq->base_slice;
    se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
    return true;
}

/* update_curr(): charge current since exec_start; renew its deadline; and
 * unless it is alone, ask for a resched if the deadline was renewed or the
 * protection is over. may_resched is false only for runq's departures. */
static void update_curr(struct lref_rq *rq, bool may_resched)
{
    struct lref_se *curr;
    uint64_t delta;
    bool resched;

    if (rq->curr == LREF_NONE)
        return;
    curr = se_of(rq, rq->curr);
    delta = rq->now - rq->exec_start;
    if (delta == 0)
        return;
    rq->exec_start = rq->now;
    curr->sum_exec_runtime += delta;
    curr->vruntime += calc_delta_fair(delta, curr);
    resched = update_deadline(rq, curr);
    update_min_vruntime(rq);
    if (rq->nr_queued == 1)
        return;
    if (may_resched && !compat(rq, LREF_C_D3) && (resched || !protect_slice(curr)))
        rq->need_resched = true;
}

/* cfs_rq_max_slice() (6e3c0a4e1ad1): the longest slice among current (if
 * queued) and the tree, delayed entities included; 0 if none. */
static uint64_t cfs_rq_max_slice(struct lref_rq *rq)
{
    uint64_t m = 0;

    for (int i = 0; i < rq->n; i++) {
        struct lref_se *se = se_of(rq, i);
        if ((se->in_tree || (i == rq->curr && se->on_rq)) && se->slice > m)
            m = se->slice;
    }
    return m;
}

/* update_entity_lag(): V - v, clamped. Vanilla 6.18: to max(2 slices, a
 * tick). 6e3c0a4e1ad1 (7.0, in 6.18-stable; entity_lag() there), with
 * LAG_CLAMP_MAX_SLICE: to the longest slice queued plus a tick. Called
 * before the entity leaves the tree (or while it is still current and
 * on_rq), so its own slice counts. */
static void update_entity_lag(struct lref_rq *rq, int i)
{
    struct lref_se *se = se_of(rq, i);
    uint64_t span = 2 * se->slice > rq->tick ? 2 * se->slice : rq->tick;
    int64_t limit, vlag = (int64_t)(avg_vruntime(rq) - se->vruntime);

    if (rq->feat[LREF_F_LAG_CLAMP_MAX_SLICE])
        span = cfs_rq_max_slice(rq) + rq->tick;
    limit = (int64_t)calc_delta_fair(span, se);
    se->vlag = vlag < -limit ? -limit : vlag > limit ? limit : vlag;
}

/* place_entity(): at V, less the lag scaled by (W + w)/W so it survives
 * the join (PLACE_LAG); a new entity's first deadline half a slice out
 * (PLACE_DEADLINE_INITIAL). */
static void place_entity(struct lref_rq *rq, int i, bool initial)
{
    struct lref_se *se = se_of(rq, i);
    uint64_t vruntime = avg_vruntime(rq), vslice;
    int64_t lag = 0;

    if (!se->custom_slice)
        se->slice = rq->base_slice;
    vslice = calc_delta_fair(se->slice, se);
    if (rq->feat[LREF_F_PLACE_LAG] && rq->nr_queued && se->vlag) {
        lref_s128 avg;
        int64_t load;

        lref_sums(rq, &avg, &load);
        if (load == 0)
            load = 1;
        lag = (int64_t)((lref_s128)se->vlag * (load + se->weight) / load); /* div_s64: toward zero */
    }
    se->vruntime = vruntime - (uint64_t)lag;
    if (rq->feat[LREF_F_PLACE_DEADLINE_INITIAL] && initial)
        vslice /= 2;
    se->deadline = se->vruntime + vslice;
}

/* enqueue_entity(): charge current first, then place and queue. */
static void enqueue_entity(struct lref_rq *rq, int i, bool initial)
{
    struct lref_se *se = se_of(rq, i);

    update_curr(rq, true);
    place_entity(rq, i, initial);
    enqueue_tree(rq, i);
    se->on_rq = true;
    rq->nr_queued++;
}

enum lref_dequeue { LREF_DQ_SLEEP, LREF_DQ_SPECIAL, LREF_DQ_DELAYED };

/* dequeue_entity(): with DELAY_DEQUEUE an ineligible sleeper stays queued
 * (set_delayed) and false is returned; otherwise it leaves with its lag.
 * DEQUEUE_DELAYED finishes a delayed one (finish_delayed_dequeue_entity:
 * DELAY_ZERO clips positive lag). */
static bool dequeue_entity(struct lref_rq *rq, int i, enum lref_dequeue how)
{
    struct lref_se *se = se_of(rq, i);

    update_curr(rq, true);
    if (how == LREF_DQ_SLEEP && rq->feat[LREF_F_DELAY_DEQUEUE] && !entity_eligible(rq, i)) {
        se->sched_delayed = true;
        return false;
    }
    update_entity_lag(rq, i);
    if (i != rq->curr)
        dequeue_tree(rq, i);
    se->on_rq = false;
    rq->nr_queued--;
    update_min_vruntime(rq);
    if (how == LREF_DQ_DELAYED) {
        se->sched_delayed = false;
        if (rq->feat[LREF_F_DELAY_ZERO] && se->vlag > 0)
            se->vlag = 0;
    }
    return true;
}

/* requeue_delayed_entity(): woken while still queued. With DELAY_ZERO and
 * something owed it restarts at V. No update_curr() here: V reads
 * current's vruntime as last charged. */
static void requeue_delayed_entity(struct lref_rq *rq, int i)
{
    struct lref_se *se = se_of(rq, i);

    if (rq->feat[LREF_F_DELAY_ZERO]) {
        update_entity_lag(rq, i);
        if (se->vlag > 0) {
            rq->nr_queued--;
            if (i != rq->curr)
                dequeue_tree(rq, i);
            se->vlag = 0;
            place_entity(rq, i, false);
            if (i != rq->curr)
                enqueue_tree(rq, i);
            rq->nr_queued++;
        }
    }
    se->sched_delayed = false;
}

/* __pick_eevdf(): the eligible entity with the earliest deadline; current
 * only while eligible, kept while protected (if protect), else only with a
 * strictly earlier deadline. May return a delayed entity. */
static int pick_eevdf(struct lref_rq *rq, bool protect)
{
    int curr = rq->curr, best = LREF_NONE;

    if (rq->nr_queued == 1)
        return curr != LREF_NONE && se_of(rq, curr)->on_rq ? curr : pick_first_entity(rq);
    if (curr != LREF_NONE && (!se_of(rq, curr)->on_rq || !entity_eligible(rq, curr)))
        curr = LREF_NONE;
    if (curr != LREF_NONE && protect && protect_slice(se_of(rq, curr)))
        return curr;
    for (int i = 0; i < rq->n; i++)
        if (se_of(rq, i)->in_tree && entity_eligible(rq, i) &&
            (best == LREF_NONE || tree_before(se_of(rq, i), se_of(rq, best))))
            best = i;
    if (best == LREF_NONE || (curr != LREF_NONE && vt_before(se_of(rq, curr)->deadline, se_of(rq, best)->deadline)))
        best = curr;
    return best;
}

/* The delayed entity the pick reached has paid its lag: it leaves
 * (dequeue_entities(DEQUEUE_SLEEP | DEQUEUE_DELAYED)). */
static void finish_delayed(struct lref_rq *rq, int i)
{
    dequeue_entity(rq, i, LREF_DQ_DELAYED);
    if (rq->ndeparted < (int)(sizeof rq->departed / sizeof rq->departed[0]))
        rq->departed[rq->ndeparted++] = i;
}

/* pick_task_fair() with pick_next_entity(): only this finishes delayed
 * dequeues, and then picks again. */
static int pick_task_fair(struct lref_rq *rq)
{
    for (;;) {
        int se;

        if (rq->nr_queued == 0)
            return LREF_NONE;
        if (rq->curr != LREF_NONE && se_of(rq, rq->curr)->on_rq)
            update_curr(rq, true);
        se = pick_eevdf(rq, true);
        if (se == LREF_NONE) {
            fprintf(stderr, "linux_ref: no pick with %u queued\n", rq->nr_queued);
            abort();
        }
        if (!se_of(rq, se)->sched_delayed)
            return se;
        finish_delayed(rq, se);
    }
}

/* hrtick_start_fair(): with others queued, a timer at the end of the
 * slice counted in real time since p was switched in; past it, resched. */
static void hrtick_start_fair(struct lref_rq *rq, int p)
{
    struct lref_se *se = se_of(rq, p);
    int64_t delta;

    if (!rq->feat[LREF_F_HRTICK] || compat(rq, LREF_C_D6) || rq->nr_queued <= 1)
        return;
    delta = (int64_t)se->slice - (int64_t)(se->sum_exec_runtime - se->prev_sum_exec_runtime);
    if (delta < 0) {
        if (p == rq->curr)
            rq->need_resched = true;
        return;
    }
    rq->hrtick_at = rq->now + (uint64_t)(delta > 10000 ? delta : 10000); /* hrtick_start(): at least 10 us */
}

/* hrtick_update(): after a task-level enqueue or dequeue. */
static void hrtick_update(struct lref_rq *rq)
{
    if (rq->curr != LREF_NONE)
        hrtick_start_fair(rq, rq->curr);
}

/* check_preempt_wakeup_fair() */
static bool check_preempt_wakeup_fair(struct lref_rq *rq, int p)
{
    struct lref_se *se, *pse = se_of(rq, p);
    int c = rq->curr, pick;
    bool do_preempt_short;

    if (c == p)
        return false;
    if (rq->need_resched && !compat(rq, LREF_C_S2)) /* test_tsk_need_resched() */
        return false;
    se = se_of(rq, c);
    update_curr(rq, true);
    do_preempt_short = rq->feat[LREF_F_PREEMPT_SHORT] && pse->slice < se->slice;
    if (compat(rq, LREF_C_S1))
        do_preempt_short = do_preempt_short && entity_eligible(rq, p) &&
                           (tree_before(pse, se) || !entity_eligible(rq, c));
    pick = pick_eevdf(rq, !do_preempt_short);
    while (compat(rq, LREF_C_D4) && pick != LREF_NONE && se_of(rq, pick)->sched_delayed) {
        finish_delayed(rq, pick);
        pick = pick_eevdf(rq, !do_preempt_short);
    }
    if (pick == p) {
        if (compat(rq, LREF_C_S1))
            se->vprot = se->vruntime;
        else if (do_preempt_short)
            cancel_protect_slice(se);
        rq->need_resched = true;
        return true;
    }
    if (compat(rq, LREF_C_D2)) {
        if (rq->feat[LREF_F_RUN_TO_PARITY] && pse->slice < se->slice && protect_slice(se))
            se->vprot = min_vt(se->vprot, se->vruntime + calc_delta_fair(pse->slice, se));
    } else if (rq->feat[LREF_F_RUN_TO_PARITY] && do_preempt_short) {
        update_protect_slice(rq, c);
    }
    return false;
}

/* wakeup_preempt(): the idle task is below the fair class. A current that
 * has just blocked has a resched pending already. */
static bool wakeup_preempt(struct lref_rq *rq, int p)
{
    if (rq->curr == LREF_NONE || rq->t[rq->curr].state != LREF_T_QUEUED) {
        rq->need_resched = true;
        return rq->curr == LREF_NONE;
    }
    return check_preempt_wakeup_fair(rq, p);
}

/* yield_task_fair() (6.18, 79104becf42b): an eligible yielder forfeits the
 * rest of its request: vruntime to the deadline, the deadline a slice on. */
static void yield_task_fair(struct lref_rq *rq)
{
    struct lref_se *se = se_of(rq, rq->curr);

    if (rq->nr_queued == 1)
        return;
    update_curr(rq, true);
    if (entity_eligible(rq, rq->curr)) {
        se->vruntime = se->deadline;
        se->deadline += calc_delta_fair(se->slice, se);
        update_min_vruntime(rq);
    }
}

/* ---- runq's timer (D6), for classification only ---- */

/* The least real time whose charge moves se by at least dv. */
static uint64_t real_for_vdelta(const struct lref_se *se, uint64_t dv)
{
    uint64_t t = (uint64_t)(((lref_s128)dv * se->weight + SCHED_WEIGHT_NICE_0 - 1) >> 10);

    while (calc_delta_fair(t, se) < dv)
        t++;
    while (t > 0 && calc_delta_fair(t - 1, se) >= dv)
        t--;
    return t;
}

/* eevdf_timer_ns(): to the end of the protection, else of the request,
 * whenever anyone else is queued; current charged up to now. */
static uint64_t runq_timer_ns(struct lref_rq *rq)
{
    struct lref_se se;
    uint64_t end;
    bool others = false;

    if (rq->curr == LREF_NONE)
        return LREF_NEVER;
    for (int i = 0; i < rq->n; i++)
        others = others || se_of(rq, i)->in_tree;
    if (!others)
        return LREF_NEVER;
    se = *se_of(rq, rq->curr);
    se.vruntime += calc_delta_fair(rq->now - rq->exec_start, &se);
    end = protect_slice(&se) ? se.vprot : se.deadline;
    if (!vt_before(se.vruntime, end))
        return 0;
    return real_for_vdelta(&se, end - se.vruntime);
}

/* ---- __schedule() ---- */

static void log_decision(struct lref_rq *rq, const char *why);

/* put_prev_entity(): a prev still queued (running, or delayed) goes back
 * into the tree. */
static void put_prev_entity(struct lref_rq *rq, int prev)
{
    if (se_of(rq, prev)->on_rq) {
        update_curr(rq, true);
        enqueue_tree(rq, prev);
    }
    rq->curr = LREF_NONE;
}

/* set_next_entity() and __set_next_task_fair(): out of the tree, a new
 * protected stretch, a new HRTICK. */
static void set_next_entity(struct lref_rq *rq, int next)
{
    struct lref_se *se = se_of(rq, next);

    dequeue_tree(rq, next);
    set_protect_slice(rq, next);
    rq->curr = next;
    rq->exec_start = rq->now;
    se->prev_sum_exec_runtime = se->sum_exec_runtime;
    hrtick_start_fair(rq, next);
}

/* __schedule(): hrtick_clear(), the pick, and the switch only if another
 * task was picked (put_prev_set_next_task() returns early on the same). */
static void lref_schedule(struct lref_rq *rq, const char *why)
{
    int prev = rq->curr, next;

    rq->hrtick_at = LREF_NEVER;
    next = pick_task_fair(rq);
    if (next != prev) {
        if (prev != LREF_NONE)
            put_prev_entity(rq, prev);
        if (next != LREF_NONE)
            set_next_entity(rq, next);
    }
    rq->need_resched = false;
    if (rq->log)
        log_decision(rq, why);
    rq->ndeparted = 0;
}

/* ---- the workload's side: what each task does ---- */

/* Alike to runq sim's (host/engine/sim/sim.c, finish_quantum and what
 * follows it) on purpose, not shared: the reference is written apart from
 * runq's code (the top of this file), so a slip in one copy of the
 * workload's rules shows as a difference instead of agreeing with itself. */

enum lref_end { LREF_GOES_ON, LREF_BLOCKS, LREF_EXITS };

/* The current task ran a quantum. Whether its run step ended, and what
 * follows: another run, a block, an exit; *yields if a yield came first. */
static enum lref_end finish_quantum(struct lref_rq *rq, struct lref_task *t, bool *yields)
{
    const struct lref_task_spec *sp = t->spec;

    *yields = false;
    t->quanta++;
    if (t->left == LREF_NEVER)
        return LREF_GOES_ON;
    t->left -= rq->w->quantum_ns;
    if (t->left)
        return LREF_GOES_ON;
    for (int guard = 0; guard <= sp->nsegs; guard++) {
        const struct lref_seg *g;

        t->seg = (t->seg + 1) % sp->nsegs;
        g = &sp->segs[t->seg];
        switch (g->kind) {
        case LREF_SEG_RUN:
            t->left = g->ns;
            return LREF_GOES_ON;
        case LREF_SEG_YIELD:
            *yields = true;
            continue;
        case LREF_SEG_SLEEP:
            t->wake_at = rq->now + g->ns;
            return LREF_BLOCKS;
        case LREF_SEG_EXIT:
            return LREF_EXITS;
        }
    }
    t->left = LREF_NEVER; /* only yields: spin */
    return LREF_GOES_ON;
}

static void add_reason(char *buf, size_t len, const char *name, const char *what)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s%s%s%s", n ? ", " : "", name, *name ? " " : "", what);
}

/* try_to_wake_up() / wake_up_new_task(), then wakeup_preempt(). */
static void lref_wake(struct lref_rq *rq, int i, bool new, char *why, size_t len)
{
    struct lref_task *t = &rq->t[i];
    struct lref_se *se = &t->se;
    bool preempts;

    if (new) {
        memset(se, 0, sizeof *se);
        se->weight = sched_nice_to_weight(t->spec->nice);
        se->wmult = sched_nice_to_wmult(t->spec->nice);
        se->custom_slice = t->spec->slice_ns != 0;
        se->slice = se->custom_slice ? t->spec->slice_ns : rq->base_slice;
        t->left = t->spec->nsegs ? t->spec->segs[0].ns : LREF_NEVER;
        enqueue_entity(rq, i, true);
        hrtick_update(rq);
    } else {
        do
            t->seg = (t->seg + 1) % t->spec->nsegs;
        while (t->spec->segs[t->seg].kind != LREF_SEG_RUN);
        t->left = t->spec->segs[t->seg].ns;
        if (se->on_rq) {
            /* 333238da9a19 (after 6.18; a switch in runq) adds an
             * update_curr() before the requeue. */
            if (rq->feat[LREF_F_REQUEUE_UPDATE_CURR])
                update_curr(rq, true);
            requeue_delayed_entity(rq, i); /* ttwu_runnable(): ENQUEUE_DELAYED, no hrtick_update */
        } else {
            enqueue_entity(rq, i, false);
            hrtick_update(rq);
        }
    }
    t->state = LREF_T_QUEUED;
    preempts = wakeup_preempt(rq, i);
    add_reason(why, len, t->spec->name,
               new ? (preempts ? "arrives and preempts" : "arrives") : (preempts ? "wakes and preempts" : "wakes"));
}

/* What happens to current at a boundary: the tick, timers, the end of its
 * run step. */
static void lref_boundary_curr(struct lref_rq *rq, char *why, size_t len)
{
    int c = rq->curr;
    struct lref_task *t = &rq->t[c];
    bool yields, hrtick = rq->feat[LREF_F_HRTICK];
    enum lref_end end;

    if (compat(rq, LREF_C_D5))
        update_curr(rq, false);
    end = finish_quantum(rq, t, &yields);
    if (rq->now % rq->tick == 0) {
        /* entity_tick() */
        update_curr(rq, true);
        if (compat(rq, LREF_C_D3) && end == LREF_GOES_ON && !yields && !protect_slice(&t->se)) {
            /* runq's eevdf_tick(): an early pick, delayed entities
             * finished on the way; a decision only if it differs */
            int p;
            bool others = false;

            for (int i = 0; i < rq->n; i++)
                others = others || se_of(rq, i)->in_tree;
            while (others && (p = pick_eevdf(rq, true)) != LREF_NONE && se_of(rq, p)->sched_delayed)
                finish_delayed(rq, p);
            if (others && pick_eevdf(rq, true) != c)
                rq->need_resched = true;
        }
        if (rq->need_resched)
            add_reason(why, len, "", "tick");
    }
    if (hrtick && !compat(rq, LREF_C_D6) && rq->hrtick_at <= rq->now) {
        /* hrtick() -> entity_tick(queued = 1): update_curr(), resched */
        rq->hrtick_at = LREF_NEVER;
        update_curr(rq, true);
        rq->need_resched = true;
        add_reason(why, len, "", "timer");
    }
    if (hrtick && compat(rq, LREF_C_D6) && end == LREF_GOES_ON && !yields && !rq->need_resched) {
        uint64_t left_now;

        if (rq->runq_timer <= rq->w->quantum_ns) {
            update_curr(rq, true);
            rq->need_resched = true;
            add_reason(why, len, "", "timer");
        } else if ((left_now = runq_timer_ns(rq)) <= 1000) {
            /* runq sim charges the sliver to the boundary */
            update_curr(rq, true);
            t->se.vruntime += calc_delta_fair(left_now, &t->se);
            t->se.sum_exec_runtime += left_now;
            update_deadline(rq, &t->se);
            rq->need_resched = true;
            add_reason(why, len, "", "timer");
        }
    }
    if (yields) {
        yield_task_fair(rq);
        rq->need_resched = true;
        add_reason(why, len, t->spec->name, "yields");
    }
    if (end == LREF_BLOCKS) {
        /* try_to_block_task() -> dequeue_task_fair(DEQUEUE_SLEEP) */
        dequeue_entity(rq, c, LREF_DQ_SLEEP);
        hrtick_update(rq);
        t->state = LREF_T_ASLEEP;
        rq->need_resched = true;
        add_reason(why, len, t->spec->name, "blocks");
    } else if (end == LREF_EXITS) {
        /* TASK_DEAD is a special state: DEQUEUE_SPECIAL, never delayed */
        dequeue_entity(rq, c, LREF_DQ_SPECIAL);
        t->state = LREF_T_EXITED;
        rq->need_resched = true;
        add_reason(why, len, t->spec->name, "exits");
    }
}

/* ---- output, in `runq sim -v`'s form (host/engine/sim/sim.c), its
 * numbers scn_format_us's ---- */

static int name_width(const struct lref_rq *rq)
{
    int wd = 5;

    for (int i = 0; i < rq->n; i++)
        if ((int)strlen(rq->t[i].spec->name) > wd)
            wd = (int)strlen(rq->t[i].spec->name);
    return wd;
}

static const char *state_name(const struct lref_rq *rq, int i)
{
    const struct lref_task *t = &rq->t[i];

    switch (t->state) {
    case LREF_T_NEW:
        return "new";
    case LREF_T_QUEUED:
        return rq->curr == i ? "run" : "queued";
    case LREF_T_ASLEEP:
        return t->se.on_rq && t->se.sched_delayed ? "delayed" : "asleep";
    case LREF_T_EXITED:
        return "exited";
    }
    return "?";
}

static void log_decision(struct lref_rq *rq, const char *why)
{
    FILE *f = rq->log;
    int wd = name_width(rq);
    char ts[32], V[32];

    scn_format_us(ts, sizeof ts, (int64_t)rq->now);
    scn_format_us(V, sizeof V, (int64_t)avg_vruntime(rq));
    fprintf(f, "\nt=%s %s: V=%s, picked %s\n", ts, why, V, rq->curr == LREF_NONE ? "nobody" : rq->t[rq->curr].spec->name);
    for (int k = 0; k < rq->ndeparted; k++)
        fprintf(f, "  %s leaves the queue: its delayed dequeue is done, its lag paid\n",
                rq->t[rq->departed[k]].spec->name);
    fprintf(f, "  %-*s state      vruntime    deadline         lag  elig\n", wd, "task");
    for (int i = 0; i < rq->n; i++) {
        struct lref_se *se = se_of(rq, i);
        char v[32] = "-", d[32] = "-", l[32] = "-";
        const char *e = "-";

        if (se->on_rq) {
            scn_format_us(v, sizeof v, (int64_t)se->vruntime);
            scn_format_us(d, sizeof d, (int64_t)se->deadline);
            scn_format_us(l, sizeof l, (int64_t)(avg_vruntime(rq) - se->vruntime));
            e = entity_eligible(rq, i) ? "yes" : "no";
        } else if (rq->t[i].state == LREF_T_ASLEEP) {
            scn_format_us(l, sizeof l, se->vlag);
        }
        fprintf(f, "%c %-*s %-7s %11s %11s %11s  %s\n", rq->curr == i ? '*' : ' ', wd, rq->t[i].spec->name,
                state_name(rq, i), v, d, l, e);
    }
}

static void print_header(FILE *out, const struct lref_rq *rq)
{
    int wd = name_width(rq);
    char b[32];

    scn_format_us(b, sizeof b, (int64_t)rq->base_slice);
    fprintf(out, "\nlinux 6.18 reference, quantum %" PRIu64 "us, tick %" PRIu64 "us, base slice %sus",
            rq->w->quantum_ns / 1000, rq->tick / 1000, b);
    for (int f = 0; f < LREF_NR_FEATURES; f++)
        if (rq->feat[f] != lref_feature_default((enum lref_feature)f))
            fprintf(out, ", %s%s", rq->feat[f] ? "" : "NO_", lref_feature_name((enum lref_feature)f));
    fprintf(out, "\n  %-*s nice  weight  slice    quanta\n", wd, "task");
    for (int i = 0; i < rq->n; i++) {
        const struct lref_task *t = &rq->t[i];

        scn_format_us(b, sizeof b, (int64_t)(t->spec->slice_ns ? t->spec->slice_ns : rq->base_slice));
        fprintf(out, "  %-*s %4d  %6u  %sus  %6u\n", wd, t->spec->name, t->spec->nice,
                sched_nice_to_weight(t->spec->nice), b, t->quanta);
    }
    fprintf(out, "times in us; V, vruntime, deadline and lag in virtual us\n");
}

/* ---- the run ---- */

static void lref_init(struct lref_rq *rq, const struct lref_workload *w, uint32_t compat_mask)
{
    unsigned n = w->cpus < 8 ? w->cpus : 8, factor = 1;

    memset(rq, 0, sizeof *rq);
    rq->w = w;
    rq->compat = compat_mask;
    rq->n = w->ntasks;
    rq->curr = LREF_NONE;
    rq->hrtick_at = LREF_NEVER;
    rq->runq_timer = LREF_NEVER;
    rq->tick = w->tick_ns ? w->tick_ns : w->quantum_ns;
    while (n >>= 1)
        factor++; /* get_update_sysctl_factor(): 1 + ilog2(min(cpus, 8)) */
    rq->base_slice = LREF_NORMALIZED_BASE_SLICE * factor;
    for (int f = 0; f < LREF_NR_FEATURES; f++)
        rq->feat[f] = w->feature[f] >= 0 ? w->feature[f] : lref_feature_default((enum lref_feature)f);
    if (compat(rq, LREF_C_D6) && w->feature[LREF_F_HRTICK] < 0)
        rq->feat[LREF_F_HRTICK] = true; /* runq's default */
    for (int i = 0; i < w->ntasks; i++)
        rq->t[i].spec = &w->tasks[i];
}

int lref_run(FILE *out, const struct lref_workload *w, uint32_t compat_mask)
{
    static struct lref_rq rq;
    unsigned nquanta = (unsigned)(w->run_ns / w->quantum_ns);
    int *sched = calloc(nquanta ? nquanta : 1, sizeof *sched);
    char *logbuf = NULL;
    size_t loglen = 0;
    bool one_char = true;

    if (!sched)
        return 1;
    lref_init(&rq, w, compat_mask);
    rq.log = open_memstream(&logbuf, &loglen);
    if (!rq.log) {
        free(sched);
        return 1;
    }
    for (unsigned k = 0; k <= nquanta; k++) {
        char why[256] = "";

        rq.now = (uint64_t)k * w->quantum_ns;
        if (rq.curr != LREF_NONE)
            lref_boundary_curr(&rq, why, sizeof why);
        if (k == nquanta)
            break;
        for (int i = 0; i < rq.n; i++) {
            struct lref_task *t = &rq.t[i];
            bool new = t->state == LREF_T_NEW && t->spec->arrive_ns == rq.now;

            if (new || (t->state == LREF_T_ASLEEP && t->wake_at == rq.now))
                lref_wake(&rq, i, new, why, sizeof why);
        }
        if (rq.need_resched || (rq.curr == LREF_NONE && rq.nr_queued))
            lref_schedule(&rq, why);
        rq.runq_timer = compat(&rq, LREF_C_D6) && rq.feat[LREF_F_HRTICK] ? runq_timer_ns(&rq) : LREF_NEVER;
        sched[k] = rq.curr;
    }
    fclose(rq.log);
    for (int i = 0; i < rq.n; i++)
        one_char = one_char && strlen(rq.t[i].spec->name) == 1;
    for (unsigned k = 0; k < nquanta; k++) {
        const char *name = sched[k] == LREF_NONE ? "." : rq.t[sched[k]].spec->name;
        if (one_char)
            fputc(name[0], out);
        else
            fprintf(out, "%s%s", k ? " " : "", name);
    }
    fputc('\n', out);
    print_header(out, &rq);
    fwrite(logbuf, 1, loglen, out);
    free(logbuf);
    free(sched);
    return 0;
}
