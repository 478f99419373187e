/*
 * Policy eevdf: Earliest Eligible Virtual Deadline First.
 *
 * The arithmetic, in a few lines (docs/eevdf.md has the long version).
 *
 * Each entity i has a weight w_i (from nice) and a virtual runtime v_i that
 * grows by delta*1024/w_i for delta ns on the CPU. Had every entity on the
 * queue received exactly its share, all would sit at one point V, the
 * weight-averaged virtual runtime:
 *
 *     V = Σ w_i v_i / W,     W = Σ w_i     (over the tree and current)
 *
 * An entity's lag, V - v_i, is service it is owed (positive) or has had in
 * advance (negative); by construction Σ w_i (V - v_i) = 0. It is eligible
 * while its lag is not negative: v_i <= V.
 *
 * V is never stored. Measured from a base v0 (the smallest v_i on the
 * queue) the queue keeps S = Σ w_i (v_i - v0) and W, so that
 * V = v0 + S/W, and the eligibility test needs no division:
 *
 *     v_i <= V   <=>   (v_i - v0) * W <= S        (128-bit products)
 *
 * A run moves one key: S += w * dv. A join or leave adds or removes one
 * term. Moving the base by d subtracts W*d from S. Only reading V (for lag
 * and placement) divides, and then by W into a 64-bit quotient.
 *
 * Each entity asks for a slice r_i of real time; its virtual deadline is
 * v_i + r_i*1024/w_i, set when it joins and renewed each time v_i passes
 * it. The pick is the eligible entity with the earliest virtual deadline.
 * The weight decides how much CPU an entity gets; the slice decides how
 * soon after becoming eligible it gets it.
 *
 * An entity takes its lag with it when it leaves, clamped in virtual time
 * (LAG_CLAMP_MAX_SLICE: to the longest slice queued plus a tick, else to
 * max(2 slices, a tick)), and gets it back when it joins.
 * Joining adds w to W and so moves V toward the joiner; placing it at
 * v = V - lag*(W+w)/W leaves it, after the join, exactly lag behind the new
 * V. See place() below.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bug.h"
#include "eevdf_tree.h"
#include "eevdf_features.h"
#include "policy.h"
#include "weights.h"

__extension__ typedef unsigned __int128 eevdf_u128;

/* hrtick_start(): Linux never arms the HRTICK timer closer than this. */
#define EEVDF_HRTICK_MIN_NS 10000ull

/* ---------------------------------------------------------------- */
/* Feature switches                                                 */

static const struct {
    const char *name;
    bool on;
    const char *what;
} feature_table[EEVDF_NR_FEATURES] = {
#define EEVDF_FEATURE_ROW(n, d, c) {#n, d, c},
    EEVDF_FEATURES(EEVDF_FEATURE_ROW)
#undef EEVDF_FEATURE_ROW
};

#define EEVDF_FEATURE_BIT(n, d, c) | ((d) ? 1u << EEVDF_F_##n : 0u)
#define EEVDF_DEFAULT_FEATURES (0u EEVDF_FEATURES(EEVDF_FEATURE_BIT))

/* Written by the shell on any CPU, read by every queue: one word, relaxed
 * atomics, so a reader sees the old mask or the new one, never a torn one. */
uint32_t eevdf_feature_word = EEVDF_DEFAULT_FEATURES;

bool eevdf_feature(enum eevdf_feature f)
{
    return (__atomic_load_n(&eevdf_feature_word, __ATOMIC_RELAXED) >> f) & 1u;
}

static bool same_name(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

int eevdf_feature_lookup(const char *name)
{
    for (int f = 0; f < EEVDF_NR_FEATURES; f++)
        if (same_name(name, feature_table[f].name))
            return f;
    return -1;
}

bool eevdf_feature_set(const char *name, bool on)
{
    int f = eevdf_feature_lookup(name);

    if (f < 0)
        return false;
    if (on)
        __atomic_fetch_or(&eevdf_feature_word, 1u << f, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&eevdf_feature_word, ~(1u << f), __ATOMIC_RELAXED);
    return true;
}

const char *eevdf_feature_name(enum eevdf_feature f)
{
    return feature_table[f].name;
}

const char *eevdf_feature_comment(enum eevdf_feature f)
{
    return feature_table[f].what;
}

bool eevdf_feature_default(enum eevdf_feature f)
{
    return feature_table[f].on;
}

uint32_t eevdf_features_mask(void)
{
    return __atomic_load_n(&eevdf_feature_word, __ATOMIC_RELAXED);
}

void eevdf_features_set_mask(uint32_t mask)
{
    __atomic_store_n(&eevdf_feature_word, mask & ((1u << EEVDF_NR_FEATURES) - 1), __ATOMIC_RELAXED);
}

void eevdf_features_reset(void)
{
    eevdf_features_set_mask(EEVDF_DEFAULT_FEATURES);
}

/* ---------------------------------------------------------------- */
/* Integer helpers                                                  */

/* n / d for a 128-bit n whose quotient fits 64 bits. The common case is a
 * 64-bit division; the long division only runs when n needs the high word,
 * so no 128-bit division (libgcc's __udivti3) is ever linked. */
static uint64_t div_u128_u64(eevdf_u128 n, uint64_t d)
{
    uint64_t hi = (uint64_t)(n >> 64), lo = (uint64_t)n, r = hi, q = 0;

    BUG_ON(d == 0);
    if (hi == 0)
        return lo / d;
    BUG_ON(hi >= d); /* quotient would not fit */
    for (int i = 63; i >= 0; i--) {
        bool carry = r >> 63;

        r = (r << 1) | ((lo >> i) & 1);
        q <<= 1;
        if (carry || r >= d) {
            r -= d;
            q |= 1;
        }
    }
    return q;
}

/* floor(n / d), d > 0. The sums' usual size is 64 bits: then one signed
 * division and its rounding down (V is read at every traced decision, and
 * under icount each instruction of it is guest time). */
static int64_t div_floor(eevdf_s128 n, uint64_t d)
{
    if (n == (int64_t)n && d <= (uint64_t)INT64_MAX) {
        int64_t q = (int64_t)n / (int64_t)d;
        return q - ((int64_t)n % (int64_t)d < 0);
    }
    if (n >= 0)
        return (int64_t)div_u128_u64((eevdf_u128)n, d);
    return -(int64_t)div_u128_u64((eevdf_u128)(-n) + d - 1, d);
}

/* n / d rounded toward zero, d > 0. */
static int64_t div_trunc(eevdf_s128 n, uint64_t d)
{
    if (n >= 0)
        return (int64_t)div_u128_u64((eevdf_u128)n, d);
    return -(int64_t)div_u128_u64((eevdf_u128)(-n), d);
}

static struct sched_entity *se_of(struct eevdf_entity *e)
{
    return e ? (struct sched_entity *)((char *)e - offsetof(struct sched_entity, ee)) : NULL;
}

/* ---------------------------------------------------------------- */
/* Slices and virtual time                                          */

uint64_t eevdf_base_slice(unsigned ncpus)
{
    unsigned n = ncpus ? ncpus : 1, log = 0;

    if (n > 8)
        n = 8;
    while (n >>= 1)
        log++;
    return 700000ull * (1 + log);
}

uint64_t eevdf_clamp_slice(uint64_t slice_ns)
{
    if (slice_ns == 0)
        return 0;
    if (slice_ns < EEVDF_SLICE_MIN)
        return EEVDF_SLICE_MIN;
    if (slice_ns > EEVDF_SLICE_MAX)
        return EEVDF_SLICE_MAX;
    return slice_ns;
}

uint64_t eevdf_calc_vdelta(uint64_t delta_ns, uint32_t weight, uint32_t wmult)
{
    (void)weight;
    /* delta * 1024 / w = delta * (1024 * 2^32/w) >> 32; exact at nice 0,
     * where 1024 * wmult is 2^32. */
    return (uint64_t)(((eevdf_u128)delta_ns * ((uint64_t)SCHED_WEIGHT_NICE_0 * wmult)) >> SCHED_WEIGHT_SHIFT);
}

static uint64_t vdelta(const struct eevdf_entity *e, uint64_t delta_ns)
{
    return eevdf_calc_vdelta(delta_ns, e->weight, e->wmult);
}

/* The longest slice on q: current's and the tree's (delayed entities
 * included), Linux's cfs_rq_max_slice(). The tree caches it as it caches
 * min_slice: a node's max_slice is set from its own slice whenever the
 * node is (re)inserted, which is what "sched/eevdf: Fix augmented
 * max_slice" adds to Linux's __enqueue_entity(). */
static uint64_t queue_max_slice(const struct sched_queue *q)
{
    uint64_t m = q->curr ? q->curr->ee.slice : 0;

    if (q->ee.root && q->ee.root->max_slice > m)
        m = q->ee.root->max_slice;
    return m;
}

/* How far from V a leaving entity's lag may be, in e's virtual time: the
 * clamp of Linux's update_entity_lag() (entity_lag() in later kernels).
 *
 *   LAG_CLAMP_MAX_SLICE (6e3c0a4e1ad1 "sched/fair: Fix lag clamp", 7.0,
 *   backported to 6.18-stable): the longest slice queued plus a tick.
 *   Why: EEVDF bounds lag in a steady state by -r_max < lag <
 *   max(r_max, tick), r_max the longest request on the queue, not e's.
 *   While one entity with a long slice runs, the others fall behind by up
 *   to that slice; clamping each to twice its own short slice threw that
 *   owed service away at every sleep.
 *
 *   Off: vanilla 6.18's max(2 * own slice, a tick).
 *
 * e is still on q here, current or in the tree (Linux takes the lag
 * before __dequeue_entity(), with curr still on_rq), so its own slice
 * counts. */
static int64_t lag_limit(const struct sched_queue *q, const struct eevdf_entity *e)
{
    uint64_t span;

    BUG_ON(e->queue != &q->ee);
    if (eevdf_feature(EEVDF_F_LAG_CLAMP_MAX_SLICE)) {
        span = queue_max_slice(q) + q->params.tick_ns;
    } else {
        span = 2 * e->slice;
        if (span < q->params.tick_ns)
            span = q->params.tick_ns;
    }
    return (int64_t)vdelta(e, span);
}

static int64_t clamp_lag(const struct sched_queue *q, const struct eevdf_entity *e, int64_t lag)
{
    int64_t limit = lag_limit(q, e);

    if (lag > limit)
        return limit;
    if (lag < -limit)
        return -limit;
    return lag;
}

/* Weight and effective slice from the entity's nice and request. */
static void refresh_params(const struct sched_queue *q, struct sched_entity *se)
{
    BUG_ON(se->nice < SCHED_NICE_MIN || se->nice > SCHED_NICE_MAX);
    se->ee.weight = sched_nice_to_weight(se->nice);
    se->ee.wmult = sched_nice_to_wmult(se->nice);
    se->slice_ns = eevdf_clamp_slice(se->slice_ns);
    se->ee.slice = se->slice_ns ? se->slice_ns : q->ee.base_slice;
}

/* ---------------------------------------------------------------- */
/* V: the sums and their base                                       */

static int64_t key(const struct eevdf_queue *eq, uint64_t v)
{
    return (int64_t)(v - eq->v0);
}

static void sum_add(struct eevdf_queue *eq, const struct eevdf_entity *e)
{
    eq->sum += (eevdf_s128)key(eq, e->vruntime) * e->weight;
    eq->load += e->weight;
}

static void sum_sub(struct eevdf_queue *eq, const struct eevdf_entity *e)
{
    eq->sum -= (eevdf_s128)key(eq, e->vruntime) * e->weight;
    eq->load -= e->weight;
}

/* v is eligible on eq: v <= V exactly, with V = v0 + sum/load. */
static bool vt_eligible(const struct eevdf_queue *eq, uint64_t v)
{
    if (eq->load == 0)
        return true;
    return (eevdf_s128)key(eq, v) * (eevdf_s128)eq->load <= eq->sum;
}

/* eevdf.h's eevdf_avg_of: the policy's V and the trace's are one code. */
#define avg_vruntime eevdf_avg_of

uint64_t eevdf_avg_slow(const struct eevdf_queue *eq)
{
    return eq->v0 + (uint64_t)div_floor(eq->sum, eq->load);
}

/* Keep v0 at the smallest vruntime on the queue, so keys are small and
 * never negative. Called after anything that moves a vruntime or changes
 * who is on the queue. */
static void update_base(struct sched_queue *q)
{
    struct eevdf_queue *eq = &q->ee;
    bool any = false;
    uint64_t m = 0;

    if (q->curr) {
        m = q->curr->ee.vruntime;
        any = true;
    }
    if (eq->root && (!any || eevdf_vt_before(eq->root->min_vruntime, m))) {
        m = eq->root->min_vruntime;
        any = true;
    }
    if (!any) {
        BUG_ON(eq->load != 0 || eq->sum != 0);
        return;
    }
    eq->sum -= (eevdf_s128)key(eq, m) * eq->load;
    eq->v0 = m;
}

/* ---------------------------------------------------------------- */
/* The tree                                                         */

static void tree_add(struct eevdf_queue *eq, struct eevdf_entity *e)
{
    e->seq = eq->seq++;
    eevdf_tree_insert(&eq->root, e);
}

static void tree_del(struct eevdf_queue *eq, struct eevdf_entity *e)
{
    eevdf_tree_remove(&eq->root, e);
}

/* Earliest deadline among eligible entities in the tree, in O(log n):
 * everything in a node's left subtree runs before the node and the node
 * before its right subtree, so take the left subtree if it holds anything
 * eligible (its cached minimum vruntime says whether it does), else the
 * node if it is eligible, else the right subtree. */
static struct eevdf_entity *tree_pick(const struct eevdf_queue *eq, unsigned *touched)
{
    struct eevdf_entity *n = eq->root;

    while (n) {
        (*touched)++;
        if (n->left && vt_eligible(eq, n->left->min_vruntime))
            n = n->left;
        else if (vt_eligible(eq, n->vruntime))
            return n;
        else if (n->right && vt_eligible(eq, n->right->min_vruntime))
            n = n->right;
        else
            return NULL;
    }
    return NULL;
}

/* ---------------------------------------------------------------- */
/* Protection (RUN_TO_PARITY)                                       */

bool eevdf_protected(const struct sched_entity *se)
{
    return (int64_t)(se->ee.vprot - se->ee.vruntime) > 0;
}

/* e has just become current: it may run undisturbed until its vruntime
 * reaches vprot, the end of its protected stretch (the least of its own
 * slice and the shortest slice queued with it, or of its own and the
 * unscaled base slice, 0.7 ms whatever the CPU count, without
 * RUN_TO_PARITY), but never past its deadline. Linux 6.18's
 * set_protect_slice(): normalized_sysctl_sched_base_slice, or
 * cfs_rq_min_slice() with RUN_TO_PARITY. */
static void set_protection(struct sched_queue *q, struct eevdf_entity *e)
{
    uint64_t stretch = eevdf_base_slice(1);

    if (eevdf_feature(EEVDF_F_RUN_TO_PARITY))
        stretch = q->ee.root ? q->ee.root->min_slice : e->slice;
    if (stretch > e->slice)
        stretch = e->slice;
    e->vprot = e->deadline;
    if (stretch != e->slice) {
        uint64_t end = e->vruntime + vdelta(e, stretch);

        if (eevdf_vt_before(end, e->vprot))
            e->vprot = end;
    }
}

/* ---------------------------------------------------------------- */
/* The pick                                                         */

/* EEVDF's choice among the tree and current, delayed entities included.
 * Current competes only while eligible; an eligible current inside its
 * protected stretch keeps the CPU; on equal deadlines the queued entity
 * wins, so equal entities take turns. */
static struct sched_entity *pick(struct sched_queue *q, bool protect)
{
    struct eevdf_queue *eq = &q->ee;
    struct eevdf_entity *curr = q->curr ? &q->curr->ee : NULL, *best;

    q->touched = 0;
    if (curr) {
        q->touched++;
        if (!vt_eligible(eq, curr->vruntime))
            curr = NULL;
    }
    if (curr && protect && eevdf_protected(q->curr))
        return q->curr;
    best = tree_pick(eq, &q->touched);
    if (!best || (curr && (int64_t)(curr->deadline - best->deadline) < 0))
        best = curr;
    /* Someone is always eligible: the smallest vruntime is at most V. */
    BUG_ON(!best && (q->curr || eq->root));
    return se_of(best);
}

struct sched_entity *eevdf_pick_fast(struct sched_queue *q)
{
    return pick(q, true);
}

struct ref_walk {
    eevdf_s128 sum;
    uint64_t load, base;
    struct eevdf_entity *best;
};

static void ref_sum(struct ref_walk *w, struct eevdf_entity *n)
{
    if (!n)
        return;
    w->sum += (eevdf_s128)(int64_t)(n->vruntime - w->base) * n->weight;
    w->load += n->weight;
    ref_sum(w, n->left);
    ref_sum(w, n->right);
}

static bool ref_eligible(const struct ref_walk *w, uint64_t v)
{
    return (eevdf_s128)(int64_t)(v - w->base) * (eevdf_s128)w->load <= w->sum;
}

static void ref_best(struct ref_walk *w, struct eevdf_entity *n)
{
    if (!n)
        return;
    if (ref_eligible(w, n->vruntime) && (!w->best || eevdf_tree_before(n, w->best)))
        w->best = n;
    ref_best(w, n->left);
    ref_best(w, n->right);
}

struct sched_entity *eevdf_pick_reference(const struct sched_queue *q)
{
    struct ref_walk w = {0, 0, 0, NULL};
    struct eevdf_entity *curr = q->curr ? &q->curr->ee : NULL;

    if (!curr && !q->ee.root)
        return NULL;
    w.base = curr ? curr->vruntime : q->ee.root->vruntime;
    if (curr) {
        w.load += curr->weight;
    }
    ref_sum(&w, q->ee.root);
    if (curr && !ref_eligible(&w, curr->vruntime))
        curr = NULL;
    if (curr && eevdf_protected(q->curr))
        return q->curr;
    ref_best(&w, q->ee.root);
    if (!w.best || (curr && (int64_t)(curr->deadline - w.best->deadline) < 0))
        w.best = curr;
    return se_of(w.best);
}

/* ---------------------------------------------------------------- */
/* A queue from recorded state                                      */

/* e joins eq's sums with its weight as given: a recorded weight need not
 * be one of the table's (Linux's scale_load_down() keeps at least 2). */
static void restore_entity(struct eevdf_queue *eq, struct sched_entity *se)
{
    struct eevdf_entity *e = &se->ee;

    BUG_ON(se->on_queue || e->weight < 2);
    if (se->nice >= SCHED_NICE_MIN && se->nice <= SCHED_NICE_MAX && sched_nice_to_weight(se->nice) == e->weight)
        e->wmult = sched_nice_to_wmult(se->nice);
    else
        e->wmult = (uint32_t)(0xffffffffull / e->weight); /* Linux's WMULT_CONST / w */
    se->on_queue = true;
    e->queue = eq;
    sum_add(eq, e);
}

void eevdf_restore(struct sched_queue *q, struct sched_entity *curr, struct sched_entity *const *queued, unsigned n)
{
    struct eevdf_queue *eq = &q->ee;
    bool any = false;

    BUG_ON(q->curr || eq->root || eq->load);
    /* The base first, the smallest vruntime, so every key is small. */
    for (unsigned i = 0; i <= n; i++) {
        const struct sched_entity *se = i < n ? queued[i] : curr;

        if (se && (!any || eevdf_vt_before(se->ee.vruntime, eq->v0)))
            eq->v0 = se->ee.vruntime;
        any |= se != NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        BUG_ON(queued[i] == curr);
        restore_entity(eq, queued[i]);
        tree_add(eq, &queued[i]->ee);
        if (queued[i]->ee.delayed)
            eq->nr_delayed++;
        else
            q->nr_queued++;
    }
    if (curr && curr->ee.delayed) {
        /* Blocked while current: in the tree, as leave() puts it. */
        restore_entity(eq, curr);
        tree_add(eq, &curr->ee);
        eq->nr_delayed++;
        eq->delayed_curr = &curr->ee;
    } else if (curr) {
        restore_entity(eq, curr);
        q->curr = curr;
    }
    update_base(q);
}

/* ---------------------------------------------------------------- */
/* Joining and leaving                                              */

static void attach(struct sched_queue *q, struct sched_entity *se)
{
    sum_add(&q->ee, &se->ee);
    tree_add(&q->ee, &se->ee);
    q->nr_queued++;
    se->on_queue = true;
    se->ee.queue = &q->ee;
    se->ee.delayed = false;
    update_base(q);
}

/* se, current or in the tree, is off the queue afterwards. */
static void detach(struct sched_queue *q, struct sched_entity *se)
{
    struct eevdf_queue *eq = &q->ee;

    if (q->curr == se) {
        q->curr = NULL;
    } else {
        tree_del(eq, &se->ee);
        if (se->ee.delayed)
            eq->nr_delayed--;
        else
            q->nr_queued--;
    }
    sum_sub(eq, &se->ee);
    if (eq->delayed_curr == &se->ee)
        eq->delayed_curr = NULL;
    se->on_queue = false;
    se->ee.queue = NULL;
    se->ee.delayed = false;
    update_base(q);
}

/* Put se (off the queue, weight and slice fresh) at the vruntime its lag
 * asks for. Joining adds w to W, pulling V toward the joiner: with the
 * joiner at v = V - L', the new average is V - w·L'/(W + w), so its lag
 * after the join is L'·W/(W + w). Choosing L' = L·(W + w)/W makes that
 * exactly L, the lag it left with. */
static void place(struct sched_queue *q, struct sched_entity *se, int64_t lag, bool initial)
{
    struct eevdf_queue *eq = &q->ee;
    struct eevdf_entity *e = &se->ee;
    uint64_t vslice = vdelta(e, e->slice);

    if (eq->load && lag) {
        lag = div_trunc((eevdf_s128)lag * (int64_t)(eq->load + e->weight), eq->load);
    } else {
        lag = 0; /* an empty queue has no V to be behind */
    }
    e->vruntime = avg_vruntime(eq) - (uint64_t)lag;
    if (initial && eevdf_feature(EEVDF_F_PLACE_DEADLINE_INITIAL))
        vslice /= 2;
    e->deadline = e->vruntime + vslice;
}

/* The lag se leaves with: V - v with se still counted in V. */
static int64_t leaving_lag(struct sched_queue *q, struct sched_entity *se)
{
    struct eevdf_queue *eq = &q->ee;
    uint64_t V = avg_vruntime(eq);

    if (eevdf_feature(EEVDF_F_LAB_LEAVE_BUG) && se == q->curr) {
        /* The seed's ordering bug: the next entity was taken off the list
         * before current left, so V did not count it. */
        unsigned touched = 0;
        struct eevdf_entity *next = tree_pick(eq, &touched);

        /* Nobody else eligible while se still counts: the pick that
         * follows se's departure takes the earliest deadline. */
        if (!next)
            for (next = eq->root; next && next->left; next = next->left)
                ;

        if (next && eq->load > next->weight)
            V = eq->v0 + (uint64_t)div_floor(eq->sum - (eevdf_s128)key(eq, next->vruntime) * next->weight,
                                             eq->load - next->weight);
    }
    return clamp_lag(q, &se->ee, (int64_t)(V - se->ee.vruntime));
}

/* A delayed entity's lag is paid (or it moves or exits): it leaves now. */
static void finish_delayed(struct sched_queue *q, struct sched_entity *se, enum sched_leave_reason why)
{
    int64_t lag = clamp_lag(q, &se->ee, (int64_t)(avg_vruntime(&q->ee) - se->ee.vruntime));

    if (eevdf_feature(EEVDF_F_DELAY_ZERO) && lag > 0)
        lag = 0;
    detach(q, se);
    se->ee.vlag = why == SCHED_LEAVE_EXIT ? 0 : lag;
}

/* A pick reached delayed se: it has paid its lag and leaves, and the
 * decision hears of it (q->departed). */
static void note_departure(struct sched_queue *q, struct sched_entity *se)
{
    finish_delayed(q, se, SCHED_LEAVE_BLOCK);
    if (q->nr_departed < SCHED_DEPARTED_MAX)
        q->departed[q->nr_departed++] = se;
    else
        q->departed_lost++;
}

/* The first pick that is not a delayed entity; delayed ones it meets have
 * paid their lag and leave. */
static struct sched_entity *pick_runnable(struct sched_queue *q, bool protect)
{
    for (;;) {
        struct eevdf_entity *dc = q->ee.delayed_curr;
        struct sched_entity *se;

        /* A current that blocked and was delayed is still cfs_rq->curr
         * while Linux picks, so each __pick_eevdf() of pick_task_fair()'s
         * loop returns it first if it is eligible (again: another delayed
         * entity's departure may have moved V) and inside its protected
         * stretch; pick_next_entity() then finishes its dequeue. In runq's
         * tree it would compete by its deadline only. */
        if (dc && protect && vt_eligible(&q->ee, dc->vruntime) && eevdf_protected(se_of(dc))) {
            note_departure(q, se_of(dc)); /* clears delayed_curr */
            continue;
        }
        se = pick(q, protect);

        if (!se || !se->ee.delayed)
            return se;
        note_departure(q, se);
    }
}

/* A delayed entity woken on its own queue: runnable again where it is,
 * unless DELAY_ZERO and it is owed something: then it starts afresh at V. */
static void requeue_delayed(struct sched_queue *q, struct sched_entity *se)
{
    struct eevdf_queue *eq = &q->ee;
    struct eevdf_entity *e = &se->ee;

    e->delayed = false;
    eq->nr_delayed--;
    q->nr_queued++;
    if (eq->delayed_curr == e)
        eq->delayed_curr = NULL;
    if (eevdf_feature(EEVDF_F_DELAY_ZERO) && (int64_t)(avg_vruntime(eq) - e->vruntime) > 0) {
        tree_del(eq, e);
        sum_sub(eq, e);
        update_base(q);
        e->vlag = 0;
        place(q, se, 0, false);
        sum_add(eq, e);
        tree_add(eq, e);
        update_base(q);
    }
}

/* Anyone on the queue but current, delayed entities included: Linux's
 * cfs_rq->nr_queued counts them all, current too, and update_curr(),
 * hrtick_start_fair() and yield_task_fair() ask whether it is above 1. */
static bool others_queued(const struct sched_queue *q)
{
    return q->nr_queued + q->ee.nr_delayed > 0;
}

/* hrtick_start_fair(), at a take and after a join or leave: with anyone
 * else queued, current's timer is due when it has run its slice since it
 * was picked, at least 10 us from now (hrtick_start()'s floor); at once if
 * it has run that long already (Linux reschedules then). Alone, an armed
 * timer stays as it was. */
static void arm_timer(struct sched_queue *q)
{
    const struct eevdf_entity *e;
    uint64_t ran;

    if (!eevdf_feature(EEVDF_F_HRTICK) || !q->curr || !others_queued(q))
        return;
    e = &q->curr->ee;
    ran = e->sum_exec - e->prev_sum_exec;
    if (ran > e->slice)
        q->ee.timer_at = e->sum_exec;
    else
        q->ee.timer_at = e->sum_exec + (e->slice - ran > EEVDF_HRTICK_MIN_NS ? e->slice - ran : EEVDF_HRTICK_MIN_NS);
}

/* ---------------------------------------------------------------- */
/* The ops                                                          */

static void eevdf_init(struct sched_queue *q, const struct sched_params *p)
{
    q->curr = NULL;
    q->nr_queued = 0;
    q->touched = 0;
    q->params = *p;
    q->nr_departed = q->departed_lost = 0;
    q->cut_short_by = NULL;
    q->ee = (struct eevdf_queue){0};
    q->ee.base_slice = eevdf_base_slice(p->ncpus);
    q->ee.timer_at = UINT64_MAX;
}

static void eevdf_init_entity(struct sched_queue *q, struct sched_entity *se)
{
    BUG_ON(se->on_queue);
    se->ee = (struct eevdf_entity){0};
    BUG_ON(se->nice < SCHED_NICE_MIN || se->nice > SCHED_NICE_MAX);
    se->ee.weight = sched_nice_to_weight(se->nice);
    se->ee.wmult = sched_nice_to_wmult(se->nice);
    se->slice_ns = eevdf_clamp_slice(se->slice_ns);
    se->ee.slice = se->slice_ns ? se->slice_ns : q ? q->ee.base_slice : 0;
}

static void eevdf_join(struct sched_queue *q, struct sched_entity *se, enum sched_join_reason why)
{
    int64_t lag = 0;

    if (se->on_queue) {
        /* Only a delayed entity is on a queue while blocked. */
        BUG_ON(why != SCHED_JOIN_WAKE || se->ee.queue != &q->ee || !se->ee.delayed);
        requeue_delayed(q, se);
        return;
    }
    BUG_ON(se->ee.queue != NULL);
    refresh_params(q, se);
    if (why != SCHED_JOIN_NEW && eevdf_feature(EEVDF_F_PLACE_LAG))
        lag = se->ee.vlag;
    place(q, se, lag, why == SCHED_JOIN_NEW);
    attach(q, se);
    arm_timer(q); /* hrtick_update(); a delayed entity's requeue has none */
}

static void eevdf_leave(struct sched_queue *q, struct sched_entity *se, enum sched_leave_reason why)
{
    struct eevdf_queue *eq = &q->ee;
    int64_t lag;

    BUG_ON(!se->on_queue || se->ee.queue != eq);
    if (se->ee.delayed) {
        BUG_ON(why == SCHED_LEAVE_BLOCK); /* it is blocked already */
        finish_delayed(q, se, why);
        return;
    }
    lag = leaving_lag(q, se);
    if (why == SCHED_LEAVE_BLOCK && eevdf_feature(EEVDF_F_DELAY_DEQUEUE) && !vt_eligible(eq, se->ee.vruntime)) {
        /* It owes service: it stays, counted in V, until that is paid. */
        if (q->curr == se) {
            q->curr = NULL;
            tree_add(eq, &se->ee);
            eq->delayed_curr = &se->ee;
        } else {
            q->nr_queued--;
        }
        se->ee.delayed = true;
        eq->nr_delayed++;
        arm_timer(q); /* hrtick_update() */
        return;
    }
    detach(q, se);
    se->ee.vlag = why == SCHED_LEAVE_EXIT ? 0 : lag;
    arm_timer(q);
}

static void eevdf_put_back(struct sched_queue *q)
{
    BUG_ON(q->curr == NULL);
    tree_add(&q->ee, &q->curr->ee);
    q->curr = NULL;
    q->nr_queued++;
}

static void eevdf_take(struct sched_queue *q, struct sched_entity *se)
{
    BUG_ON(q->curr != NULL);
    BUG_ON(!se->on_queue || se->ee.queue != &q->ee || se->ee.delayed);
    tree_del(&q->ee, &se->ee);
    q->nr_queued--;
    q->curr = se;
    set_protection(q, &se->ee);
    se->ee.prev_sum_exec = se->ee.sum_exec;
    arm_timer(q);
}

/* pick_task_fair(): the pick, which alone finishes delayed dequeues
 * (pick_next_entity()), after hrtick_clear(). */
static struct sched_entity *eevdf_pick(struct sched_queue *q)
{
    struct sched_entity *se;

    q->ee.timer_at = UINT64_MAX;
    if (q->ee.delayed_curr) {
        /* As cfs_rq->curr it wins a tie of deadlines against nobody
         * (entity_before() is strict), and put_prev_entity() queues it
         * after the pick behind every equal deadline: the newest place. */
        tree_del(&q->ee, q->ee.delayed_curr);
        tree_add(&q->ee, q->ee.delayed_curr);
    }
    se = pick_runnable(q, true);
    q->ee.delayed_curr = NULL; /* put_prev_entity() */
    return se;
}

/* Linux 6.18's update_curr(): charge current, renew its deadline once its
 * vruntime has reached it (update_deadline()), and, unless it is alone,
 * ask for a decision when the deadline was renewed or its protected
 * stretch is over (resched || !protect_slice(curr)). Only asks: the pick
 * is the decision's (issue 14's D3). Callers charge where Linux calls
 * update_curr() (a tick, a join, a leave, a yield, a decision), not at
 * arbitrary moments, since the deadline is renewed only here (D5). */
static bool eevdf_charge(struct sched_queue *q, uint64_t delta_ns)
{
    struct eevdf_entity *e;
    uint64_t dv;
    bool renewed = false;

    BUG_ON(q->curr == NULL); /* charge current before it leaves */
    if (delta_ns == 0)
        return false;
    e = &q->curr->ee;
    e->sum_exec += delta_ns;
    dv = vdelta(e, delta_ns);
    e->vruntime += dv;
    q->ee.sum += (eevdf_s128)dv * e->weight;
    if (!eevdf_vt_before(e->vruntime, e->deadline)) {
        e->deadline = e->vruntime + vdelta(e, e->slice); /* a new request */
        renewed = true;
    }
    update_base(q);
    return others_queued(q) && (renewed || !eevdf_protected(q->curr));
}

/* entity_tick() is update_curr(), which the core has just called by
 * charging: this repeats its test for a tick that charged nothing. A
 * renewed deadline needs no term of its own here: vprot never passes the
 * deadline, so a renewal means the protection is over. */
static bool eevdf_tick(struct sched_queue *q)
{
    return q->curr && others_queued(q) && !eevdf_protected(q->curr);
}

/* yield_task_fair() of Linux 6.18 (79104becf42b): unless current is
 * alone, an eligible yielder forfeits the rest of its request: its
 * vruntime moves to its deadline and its deadline a slice further. An
 * ineligible one is left as it is. With YIELD_BOUNDED, the rule of
 * seed 002's nos instead: the deadline goes to at least a slice past V
 * and no further, so yielding in a loop cannot push it out without
 * bound, and the protected stretch ends. */
static void eevdf_yield(struct sched_queue *q)
{
    struct eevdf_entity *e;

    BUG_ON(q->curr == NULL);
    e = &q->curr->ee;
    if (eevdf_feature(EEVDF_F_YIELD_BOUNDED)) {
        uint64_t target = avg_vruntime(&q->ee) + vdelta(e, e->slice);

        if (eevdf_vt_before(e->deadline, target))
            e->deadline = target;
        e->vprot = e->vruntime;
        return;
    }
    if (!others_queued(q) || !vt_eligible(&q->ee, e->vruntime))
        return;
    q->ee.sum += (eevdf_s128)(int64_t)(e->deadline - e->vruntime) * e->weight;
    e->vruntime = e->deadline;
    e->deadline += vdelta(e, e->slice);
    update_base(q);
}

static bool eevdf_wakeup_preempt(struct sched_queue *q, struct sched_entity *se)
{
    struct eevdf_queue *eq = &q->ee;
    struct eevdf_entity *e = &se->ee, *c;
    bool cut = false;

    BUG_ON(!se->on_queue || e->queue != eq || se == q->curr || e->delayed);
    if (!q->curr)
        return true;
    c = &q->curr->ee;
    /* Linux 6.18's check_preempt_wakeup_fair(): do_preempt_short is the
     * slice comparison alone; the pick, unprotected when it holds, decides
     * the rest (whether the waker is eligible and earlier). */
    cut = eevdf_feature(EEVDF_F_PREEMPT_SHORT) && e->slice < c->slice;
    /* __pick_eevdf(), not pick_next_entity(): a delayed entity it returns
     * means no preemption, and it stays queued until a pick finishes it
     * (runq dequeued it here and picked again, so it preempted where Linux
     * does not: issue 14's D4). */
    if (pick(q, !cut) == se) {
        /* PREEMPT_SHORT made the difference if the protected pick would
         * have kept current: current eligible and inside its stretch (see
         * pick()). The trace says so (q->cut_short_by). */
        if (cut && vt_eligible(eq, c->vruntime) && eevdf_protected(q->curr))
            q->cut_short_by = se;
        if (cut) /* cancel_protect_slice() */
            c->vprot = c->vruntime;
        return true;
    }
    /* It waits; but with RUN_TO_PARITY, a shorter waker (under
     * PREEMPT_SHORT) makes current's stretch no longer than the shortest
     * slice now queued, counted from now: update_protect_slice(), which
     * 6.18 calls only under sched_feat(RUN_TO_PARITY) && do_preempt_short.
     * (Linux 7.0 trims on every wakeup that does not preempt; runq
     * follows 6.18.) */
    if (eevdf_feature(EEVDF_F_RUN_TO_PARITY) && cut && eevdf_protected(q->curr)) {
        uint64_t shortest = eq->root ? eq->root->min_slice : e->slice;
        uint64_t end;

        if (shortest > c->slice)
            shortest = c->slice;
        end = c->vruntime + vdelta(c, shortest);
        if (eevdf_vt_before(end, c->vprot))
            c->vprot = end;
    }
    return false;
}

/* Linux's hrtick() runs current's remaining slice out in real time:
 * whatever its vruntime, it may have run its slice since it was picked
 * (eevdf_take), then the timer asks for a decision. */
static uint64_t eevdf_timer_ns(struct sched_queue *q)
{
    const struct eevdf_entity *e;

    if (!eevdf_feature(EEVDF_F_HRTICK) || !q->curr || q->ee.timer_at == UINT64_MAX)
        return UINT64_MAX;
    e = &q->curr->ee;
    return q->ee.timer_at > e->sum_exec ? q->ee.timer_at - e->sum_exec : 0;
}

static void eevdf_set_nice(struct sched_queue *q, struct sched_entity *se, int nice)
{
    struct eevdf_queue *eq;
    struct eevdf_entity *e = &se->ee;
    uint32_t old = e->weight;
    bool in_tree;
    uint64_t V;
    int64_t lag, rel_deadline, rel_prot;

    BUG_ON(nice < SCHED_NICE_MIN || nice > SCHED_NICE_MAX);
    if (!q) {
        /* Off every queue: keep w·lag, the service owed, unchanged. */
        BUG_ON(se->on_queue);
        se->nice = nice;
        e->weight = sched_nice_to_weight(nice);
        e->wmult = sched_nice_to_wmult(nice);
        if (old)
            e->vlag = div_trunc((eevdf_s128)e->vlag * old, e->weight);
        return;
    }
    eq = &q->ee;
    BUG_ON(!se->on_queue || e->queue != eq);
    /* On the queue: w·lag unchanged keeps Σ w·lag = 0, so V stays put;
     * the deadline and protection stay as far from V and v in real time. */
    V = avg_vruntime(eq);
    lag = (int64_t)(V - e->vruntime);
    rel_deadline = (int64_t)(e->deadline - V);
    rel_prot = (int64_t)(e->vprot - e->vruntime);
    in_tree = q->curr != se;
    if (in_tree)
        tree_del(eq, e);
    sum_sub(eq, e);
    se->nice = nice;
    e->weight = sched_nice_to_weight(nice);
    e->wmult = sched_nice_to_wmult(nice);
    lag = div_trunc((eevdf_s128)lag * old, e->weight);
    rel_deadline = div_trunc((eevdf_s128)rel_deadline * old, e->weight);
    rel_prot = div_trunc((eevdf_s128)rel_prot * old, e->weight);
    e->vruntime = V - (uint64_t)lag;
    e->deadline = V + (uint64_t)rel_deadline;
    e->vprot = e->vruntime + (uint64_t)rel_prot;
    sum_add(eq, e);
    if (in_tree)
        tree_add(eq, e);
    update_base(q);
}

static void eevdf_set_slice(struct sched_queue *q, struct sched_entity *se, uint64_t slice_ns)
{
    struct eevdf_entity *e = &se->ee;
    bool in_tree;

    se->slice_ns = eevdf_clamp_slice(slice_ns);
    if (!q) {
        BUG_ON(se->on_queue);
        if (se->slice_ns)
            e->slice = se->slice_ns;
        return;
    }
    BUG_ON(!se->on_queue || e->queue != &q->ee);
    /* The deadline already set stays: the new slice is the next request. */
    in_tree = q->curr != se;
    if (in_tree)
        tree_del(&q->ee, e);
    e->slice = se->slice_ns ? se->slice_ns : q->ee.base_slice;
    if (in_tree)
        tree_add(&q->ee, e);
}

/* eevdf.h's eevdf_eligible_at: v <= V for a V already computed. */
#define eligible_at eevdf_eligible_at

static unsigned count_eligible_at(const struct eevdf_queue *eq, uint64_t V, const struct eevdf_entity *n)
{
    if (!n || !eligible_at(eq, V, n->min_vruntime))
        return 0;
    return count_eligible_at(eq, V, n->left) + (!n->delayed && eligible_at(eq, V, n->vruntime)) +
           count_eligible_at(eq, V, n->right);
}

/* Current and queued, not delayed, eligible against V (eevdf_nr_eligible). */
static unsigned nr_eligible_at(const struct sched_queue *q, uint64_t V)
{
    const struct sched_entity *c = q->curr;

    return count_eligible_at(&q->ee, V, q->ee.root) + (c && !c->ee.delayed && eligible_at(&q->ee, V, c->ee.vruntime));
}

static void eevdf_describe_queue(const struct sched_queue *q, bool count_eligible, struct sched_queue_view *v)
{
    v->vtime = true;
    v->V = avg_vruntime(&q->ee);
    v->base_slice_ns = q->ee.base_slice;
    v->nr_eligible = count_eligible ? nr_eligible_at(q, v->V) : 0;
}

static void eevdf_describe(const struct sched_queue *q, const struct sched_queue_view *qv,
                           const struct sched_entity *se, struct sched_entity_view *v)
{
    const struct eevdf_entity *e = &se->ee;

    v->weight = e->weight;
    v->slice_ns = e->slice;
    v->vruntime = e->vruntime;
    v->deadline = e->deadline;
    v->lag = e->vlag; /* off the queue: the lag it left with (eevdf_lag) */
    v->eligible = false;
    if (se->on_queue) {
        uint64_t V = qv ? qv->V : avg_vruntime(&q->ee);
#ifndef RUNQ_KERNEL
        BUG_ON(V != avg_vruntime(&q->ee)); /* a view made since q changed */
#endif
        v->lag = (int64_t)(V - e->vruntime);
        v->eligible = eligible_at(&q->ee, V, e->vruntime);
    }
    v->delayed = e->delayed;
    v->vprot = q && q->curr == se ? e->vprot : 0;
}

SCHED_POLICY_DEFINE(eevdf);

/* ---------------------------------------------------------------- */
/* Views                                                            */

uint64_t eevdf_V(const struct sched_queue *q)
{
    return avg_vruntime(&q->ee);
}

int64_t eevdf_lag(const struct sched_queue *q, const struct sched_entity *se)
{
    if (!se->on_queue)
        return se->ee.vlag;
    return (int64_t)(avg_vruntime(&q->ee) - se->ee.vruntime);
}

bool eevdf_eligible(const struct sched_queue *q, const struct sched_entity *se)
{
    return vt_eligible(&q->ee, se->ee.vruntime);
}

/* eevdf_vruntime .. eevdf_delayed, from eevdf.h's table of them. */
#define EEVDF_FIELD_READER(type, field)                \
    type eevdf_##field(const struct sched_entity *se) \
    {                                                  \
        return se->ee.field;                           \
    }
EEVDF_FIELD_READERS(EEVDF_FIELD_READER)
#undef EEVDF_FIELD_READER

unsigned eevdf_nr_delayed(const struct sched_queue *q)
{
    return q->ee.nr_delayed;
}

static bool for_each(struct eevdf_entity *n, sched_visit_fn *fn, void *arg)
{
    if (!n)
        return true;
    return for_each(n->left, fn, arg) && fn(se_of(n), arg) && for_each(n->right, fn, arg);
}

bool eevdf_for_each_queued(const struct sched_queue *q, bool (*fn)(struct sched_entity *se, void *arg), void *arg)
{
    return for_each(q->ee.root, fn, arg);
}

unsigned eevdf_nr_eligible_at(const struct sched_queue *q, uint64_t V)
{
    return nr_eligible_at(q, V);
}

/* A subtree whose smallest vruntime is not eligible holds nothing that is:
 * the walk skips it (the tracer counts at every pick). */
unsigned eevdf_nr_eligible(const struct sched_queue *q)
{
    return nr_eligible_at(q, avg_vruntime(&q->ee));
}

/* ---------------------------------------------------------------- */
/* Invariants                                                       */

struct check_walk {
    const struct eevdf_queue *eq;
    const struct eevdf_entity *prev;
    eevdf_s128 sum;
    uint64_t load;
    unsigned count, delayed;
};

/* Child c's summary (NULL: none) folded into the one check_node works out
 * for its parent: smallest vruntime mv, smallest and largest slice ms, xs.
 * The checker's own arithmetic, not eevdf_tree.c's, so a fault there shows. */
static void check_fold(const struct eevdf_entity *c, uint64_t *mv, uint64_t *ms, uint64_t *xs)
{
    if (!c)
        return;
    if (eevdf_vt_before(c->min_vruntime, *mv))
        *mv = c->min_vruntime;
    if (c->min_slice < *ms)
        *ms = c->min_slice;
    if (c->max_slice > *xs)
        *xs = c->max_slice;
}

static void check_node(struct check_walk *w, const struct eevdf_entity *n)
{
    int hl, hr;
    uint64_t mv, ms, xs;

    if (!n)
        return;
    check_node(w, n->left);
    BUG_ON(n->queue != w->eq);
    BUG_ON(w->prev && !eevdf_tree_before(w->prev, n));
    w->prev = n;
    w->sum += (eevdf_s128)key(w->eq, n->vruntime) * n->weight;
    w->load += n->weight;
    w->count++;
    w->delayed += n->delayed;
    BUG_ON(se_of((struct eevdf_entity *)n)->on_queue == false);
    /* The views' test against V read once is the exact one. */
    BUG_ON(eligible_at(w->eq, avg_vruntime(w->eq), n->vruntime) != vt_eligible(w->eq, n->vruntime));
    check_node(w, n->right);

    hl = n->left ? n->left->height : 0;
    hr = n->right ? n->right->height : 0;
    BUG_ON(n->height != 1 + (hl > hr ? hl : hr));
    BUG_ON(hl - hr > 1 || hr - hl > 1);
    mv = n->vruntime;
    ms = xs = n->slice;
    check_fold(n->left, &mv, &ms, &xs);
    check_fold(n->right, &mv, &ms, &xs);
    BUG_ON(n->min_vruntime != mv);
    BUG_ON(n->min_slice != ms);
    BUG_ON(n->max_slice != xs);
}

void eevdf_check(const struct sched_queue *q)
{
    const struct eevdf_queue *eq = &q->ee;
    struct check_walk w = {eq, NULL, 0, 0, 0, 0};
    uint64_t m;

    check_node(&w, eq->root);
    BUG_ON(w.delayed != eq->nr_delayed);
    BUG_ON(w.count - w.delayed != q->nr_queued);
    if (q->curr) {
        const struct eevdf_entity *c = &q->curr->ee;

        BUG_ON(!q->curr->on_queue || c->queue != eq || c->delayed);
        w.sum += (eevdf_s128)key(eq, c->vruntime) * c->weight;
        w.load += c->weight;
    }
    BUG_ON(w.sum != eq->sum || w.load != eq->load);
    if (q->curr || eq->root) {
        m = q->curr ? q->curr->ee.vruntime : eq->root->min_vruntime;
        if (eq->root && eevdf_vt_before(eq->root->min_vruntime, m))
            m = eq->root->min_vruntime;
        BUG_ON(m != eq->v0);
    }
}
