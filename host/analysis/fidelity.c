/*
 * `runq report fidelity`: does runq's EEVDF pick choose what Linux chose?
 *
 * A Linux trace with internals stores, at every switch to a scenario
 * thread, the queue right after Linux's pick (docs/sql.md, "Traces from
 * Linux"): next is its current, prev is back in the tree if it stayed
 * runnable (with its `protected`), delayed entities are still there. That
 * is the queue Linux picked from, seen a moment later: the same entities
 * with the same numbers, only next is now current. So each pick is
 * replayed in four steps:
 *
 *   1. the rows become entities (kernel/sched/policy.h's struct
 *      sched_entity): vruntime, deadline, weight, slice, delayed; prev,
 *      when it is there, is the running entity again, protected as
 *      recorded (a delayed prev is the current that blocked, as runq's
 *      own leave() keeps it);
 *   2. eevdf_restore() builds runq's queue from them (kernel/sched/eevdf.c:
 *      its own sums, tree and base);
 *   3. eevdf_policy.pick() decides: the very op the kernel and `runq sim`
 *      decide with, Linux's pick_task_fair() (a protected eligible current
 *      stays, else the eligible entity with the earliest deadline; a
 *      delayed entity picked leaves and the pick goes on);
 *   4. its choice is held against the recorded next, and a disagreement
 *      put in the first class below that explains it.
 *
 * Picks that cannot be replayed (next not a scenario thread, no sample,
 * a queue shared with threads outside the scenario, a cut walk) are
 * counted by why, on the CPUs a scenario thread ran on: never dropped.
 * docs/eevdf.md ("Fidelity") says what each class means.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "host/analysis/fidelity.h"
#include "db/pick_queue.h"
#include "db/query.h"
#include "db/visible.h"
#include "decide.h"
#include "eevdf.h"
#include "host/base/xalloc.h"
#include "host/engine/linux/lxrec.h"
#include "policy.h"
#include "trace/format.h"

/* X(NAME, replayed, "what it means"): replayed ones were compared. The
 * first that holds is a pick's class; the order is the judging order.
 * (Alike in shape to eevdf_features.h's table, not in meaning.) */
#define FID_CLASSES(X)                                                                                          \
    X(AGREE, true, "runq picks what Linux picked")                                                              \
    X(NOTHING, true, "runq picks nothing: every entity was delayed")                                            \
    X(ELIGIBILITY, true, "runq's sum and Linux's eligible column differ on next or on runq's choice")           \
    X(KEEPS_PREV, true, "runq keeps prev under protection")                                                     \
    X(NEXT_INELIGIBLE, true, "next was not eligible by runq's sum")                                             \
    X(EARLIER, true, "runq picks an entity with an earlier deadline")                                           \
    X(TIE, true, "runq picks another entity with the same deadline")                                            \
    X(LATER, true, "runq picks an eligible entity with a later deadline")                                       \
    X(NOT_SCENARIO, false, "next is idle or other, not a scenario thread")                                      \
    X(NO_INTERNALS, false, "no internals: no BPF sample matched the switch")                                    \
    X(NO_SNAPSHOT, false, "snapshot missing")                                                                   \
    X(OTHER_IN_QUEUE, false, "other in queue: entities outside the scenario, several in one row, or one beside an " \
                             "other prev")                                                                      \
    X(QUEUE_CUT, false, "queue cut: fewer rows than the pick's nr_runnable")                                    \
    X(BAD_SNAPSHOT, false, "snapshot unusable: NULL numbers, a weight out of range, a task twice, or next not " \
                           "its one current row")                                                               \
    X(PROT_UNKNOWN, false, "prev stayed runnable, its protection not recorded, and it decides the pick")

enum fid_class {
#define FID_ENUM(name, replayed, what) FID_##name,
    FID_CLASSES(FID_ENUM)
#undef FID_ENUM
    FID_NR
};

static const struct {
    bool replayed;
    const char *what;
} fid_class[FID_NR] = {
#define FID_ROW(name, replayed, what) {replayed, what},
    FID_CLASSES(FID_ROW)
#undef FID_ROW
};

#define FIRST 3
/* A CPU number out of the trace format's range (a damaged database):
 * its picks are counted in one bucket of their own, always shown. */
#define CPU_ELSE ((int)TRACE_MAX_CPUS)

struct tally {
    int64_t n;
    int64_t first[FIRST];
};

struct fidelity {
    struct pickq_trace tr;
    struct sched_params params;
    struct tally t[TRACE_MAX_CPUS + 1][FID_NR];
    bool scenario_cpu[TRACE_MAX_CPUS + 1];
    /* runq's numbers against the recorded ones, over the replayed picks */
    int64_t entities, elig_differ, v_differ;
    int64_t choices; /* picks with two or more eligible entities, delayed ones aside */
    int64_t first_elig[FIRST], first_v[FIRST];
    /* one pick's queue */
    struct sched_entity *se;
    struct sched_entity **queued;
    bool *elig; /* runq's eligibility of each, before its pick */
    int cap;
};

static void note(int64_t *first, int64_t n_before, int64_t ts)
{
    if (n_before < FIRST)
        first[n_before] = ts;
}

static void count(struct fidelity *f, int cpu, enum fid_class c, int64_t ts)
{
    struct tally *t = &f->t[cpu >= 0 && cpu < (int)TRACE_MAX_CPUS ? cpu : CPU_ELSE][c];
    note(t->first, t->n, ts);
    t->n++;
}

/* Neither a scenario thread nor idle: runq's own other threads and every
 * other program (host/engine/linux/lxrec.h's "other"), or no thread row at all. */
static bool is_other(int tid)
{
    return tid < 0 || (tid >= LXREC_OTHER_TID(0) && tid < LXREC_OTHER_TID(256));
}

static bool is_scenario(int tid, bool idle)
{
    return !idle && !is_other(tid) && !(tid >= LXREC_IDLE_TID(0) && tid < LXREC_IDLE_TID(256));
}

static void room(struct fidelity *f, int n)
{
    if (n <= f->cap)
        return;
    f->cap = n;
    f->se = xreallocarray(f->se, (size_t)n, sizeof *f->se);
    f->queued = xreallocarray(f->queued, (size_t)n, sizeof *f->queued);
    f->elig = xreallocarray(f->elig, (size_t)n, sizeof *f->elig);
}

/* The rows of p as a queue q, or the reason they cannot be one. *curr:
 * prev's entity when prev is on it (the running one again), *next the
 * recorded next's. A runnable prev whose protection was not recorded (a
 * thread Linux saw block whose wakeup put it back before the switch)
 * is taken as protected if prot_unknown, else not; *unknown says whether
 * that guess was made. */
static enum fid_class build(struct fidelity *f, const struct pickq_pick *p, struct sched_queue *q,
                            struct sched_entity **curr, struct sched_entity **next, bool prot_unknown,
                            bool *unknown)
{
    int current = 0, nq = 0;
    bool other = false;

    /* "other" is one row however many entities outside the scenario are
     * queued: exact only when the rows add up to the queue's count, and
     * not when prev is other too (the one row might or might not be it). */
    for (int i = 0; i < p->nent; i++)
        other |= is_other(p->ent[i].tid);
    if (other && (p->nr_runnable < 0 || p->nent < p->nr_runnable || is_other(p->prev_tid)))
        return FID_OTHER_IN_QUEUE;
    if (p->nr_runnable >= 0 && p->nent < p->nr_runnable)
        return FID_QUEUE_CUT;
    room(f, p->nent);
    *curr = *next = NULL;
    *unknown = false;
    for (int i = 0; i < p->nent; i++) {
        const struct pickq_ent *e = &p->ent[i];
        struct sched_entity *se = &f->se[i];

        if (!e->known || e->is_idle || e->weight < 2 || e->weight > UINT32_MAX ||
            (p->nr_runnable >= 0 && p->nent > p->nr_runnable))
            return FID_BAD_SNAPSHOT;
        for (int j = 0; j < i; j++)
            if (p->ent[j].utid == e->utid)
                return FID_BAD_SNAPSHOT;
        memset(se, 0, sizeof *se);
        se->id = e->utid;
        se->nice = e->nice;
        se->ee.vruntime = (uint64_t)e->vruntime;
        se->ee.deadline = (uint64_t)e->deadline;
        se->ee.slice = e->slice_ns > 0 ? (uint64_t)e->slice_ns : 0;
        se->ee.weight = (uint32_t)e->weight;
        se->ee.delayed = e->delayed;
        se->ee.vprot = se->ee.vruntime;
        if (e->current) {
            current++;
            if (e->utid != p->next || e->delayed)
                return FID_BAD_SNAPSHOT;
            *next = se;
        }
        if (e->utid == p->prev && !e->current) {
            /* prev was the running entity when Linux picked */
            /* A delayed prev blocked because it was not eligible: V has
             * not moved since, so its protection cannot count. */
            *unknown = !e->delayed && e->prot < 0;
            se->ee.vprot += *unknown ? prot_unknown : e->prot > 0;
            *curr = se;
        } else {
            f->queued[nq++] = se;
        }
    }
    if (current != 1)
        return FID_BAD_SNAPSHOT;
    sched_queue_init(&eevdf_policy, q, &f->params);
    eevdf_restore(q, *curr, f->queued, (unsigned)nq);
    return FID_AGREE;
}

/* runq's eligibility of each entity (into f->elig) and its V, against
 * the recorded ones: before the pick, which may retire delayed entities
 * and so move V. */
static void cross_check(struct fidelity *f, const struct pickq_pick *p, const struct sched_queue *q)
{
    int eligible = 0;
    for (int i = 0; i < p->nent; i++) {
        f->elig[i] = eevdf_eligible(q, &f->se[i]);
        eligible += f->elig[i] && !f->se[i].ee.delayed;
        if (f->elig[i] != p->ent[i].eligible) {
            note(f->first_elig, f->elig_differ, p->ts);
            f->elig_differ++;
        }
        f->entities++;
    }
    f->choices += eligible > 1;
    if (eevdf_V(q) != (uint64_t)p->v) {
        note(f->first_v, f->v_differ, p->ts);
        f->v_differ++;
    }
}

static enum fid_class judge(struct fidelity *f, const struct pickq_pick *p)
{
    struct sched_queue q;
    struct sched_entity *curr, *next, *got;
    bool unknown;

    if (!is_scenario(p->next_tid, p->next_idle))
        return FID_NOT_SCENARIO;
    if (!p->has_v)
        return FID_NO_INTERNALS;
    if (p->nent == 0)
        return FID_NO_SNAPSHOT;
    enum fid_class c = build(f, p, &q, &curr, &next, true, &unknown);
    if (c != FID_AGREE)
        return c;
    if (unknown) {
        /* Protected, then not: a pick either way, or none. */
        struct sched_entity *with = eevdf_policy.pick(&q);
        build(f, p, &q, &curr, &next, false, &unknown);
        if (eevdf_policy.pick(&q) != with) /* the same f->se[i] either way */
            return FID_PROT_UNKNOWN;
        build(f, p, &q, &curr, &next, false, &unknown);
    }
    cross_check(f, p, &q);
    got = eevdf_policy.pick(&q);
    if (got == next)
        return FID_AGREE;
    if (!got)
        return FID_NOTHING;
    /* Both still queued (a pick retires only delayed entities, and
     * returns none): their numbers are the recorded ones. */
    ptrdiff_t gi = got - f->se, ni = next - f->se;
    BUG_ON(gi < 0 || gi >= p->nent || ni < 0 || ni >= p->nent); /* both are rows of this pick: build() made them */
    if (f->elig[ni] != p->ent[ni].eligible || f->elig[gi] != p->ent[gi].eligible)
        return FID_ELIGIBILITY;
    if (got == curr && eevdf_protected(curr))
        return FID_KEEPS_PREV;
    if (!f->elig[ni])
        return FID_NEXT_INELIGIBLE;
    int64_t d = (int64_t)(got->ee.deadline - next->ee.deadline);
    return d < 0 ? FID_EARLIER : d == 0 ? FID_TIE : FID_LATER;
}

static void on_pick(const struct pickq_pick *p, void *arg)
{
    struct fidelity *f = arg;
    int cpu = p->cpu >= 0 && p->cpu < (int)TRACE_MAX_CPUS ? p->cpu : CPU_ELSE;

    if (is_scenario(p->next_tid, p->next_idle) || is_scenario(p->prev_tid, p->prev_idle))
        f->scenario_cpu[cpu] = true;
    count(f, cpu, judge(f, p), p->ts);
}

static int cmp_ts(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* "@TS (t=+MS)", as `runq step` takes a time (b @TS, b +MS). */
static void put_times(const struct fidelity *f, const int64_t *ts, int64_t n)
{
    for (int64_t i = 0; i < n && i < FIRST; i++) {
        int64_t rel;
        printf("%s@%lld", i ? ", " : "  ", (long long)ts[i]);
        if (f->tr.start_ts && !__builtin_sub_overflow(ts[i], f->tr.start_ts, &rel))
            printf(" (t=+%.3fms)", rel / 1e6);
    }
    if (n > FIRST)
        printf(", ...");
    printf("\n");
}

/* Class c summed over the CPUs shown, with its first times. */
static int64_t total(const struct fidelity *f, enum fid_class c, int64_t *first)
{
    int64_t n = 0, all[(TRACE_MAX_CPUS + 1) * FIRST];
    int nall = 0;
    for (int cpu = 0; cpu <= CPU_ELSE; cpu++) {
        const struct tally *t = &f->t[cpu][c];
        if (!t->n || (cpu != CPU_ELSE && !f->scenario_cpu[cpu]))
            continue;
        n += t->n;
        for (int i = 0; i < FIRST && i < t->n; i++)
            all[nall++] = t->first[i];
    }
    qsort(all, (size_t)nall, sizeof all[0], cmp_ts);
    memcpy(first, all, (size_t)(nall < FIRST ? nall : FIRST) * sizeof *first);
    return n;
}

/* ---- the lag a leaving thread keeps: which clamp Linux applied ---- */

/* At a dequeue Linux keeps the entity's lag clamped (entity_lag() /
 * update_entity_lag()): vanilla 6.18 to ±calc_delta_fair(max(2·slice,
 * TICK_NSEC)), 6e3c0a4e1ad1 (LAG_CLAMP_MAX_SLICE, in 7.0 and 6.18-stable)
 * to ±calc_delta_fair(the queue's largest slice, current's included, +
 * TICK_NSEC). Each recorded leave is recomputed both ways from the queue
 * it left (docs/eevdf.md, "Fidelity"). */
enum lag_rule { LR_BOTH, LR_MAX_SLICE, LR_VANILLA, LR_NEITHER, LR_NR };

static const char *const lag_rule_what[LR_NR] = {
    "the clamp did not bind: both rules give Linux's lag",
    "only LAG_CLAMP_MAX_SLICE's clamp (6e3c0a4e1ad1) gives Linux's lag",
    "only vanilla 6.18's clamp (max(2*slice, tick)) gives Linux's lag",
    "neither clamp gives Linux's lag",
};

struct leaves {
    int64_t tick_ns;
    int64_t n[LR_NR], first[LR_NR][FIRST];
    int64_t unusable;
};

static int64_t clamp64(int64_t v, int64_t limit)
{
    return v > limit ? limit : v < -limit ? -limit : v;
}

/* calc_delta_fair(d, se) for a weight w (nice 0: 1024, d unchanged). */
static int64_t fair_delta(int64_t d, int64_t w)
{
    return (int64_t)((__int128)d * 1024 / w);
}

static void on_leave(const struct pickq_leave *l, void *arg)
{
    struct leaves *v = arg;
    if (!l->whole || l->weight <= 0 || l->slice_ns <= 0 || l->sum_w < 0) {
        v->unusable++;
        return;
    }
    /* V of the queue it left, itself included at its own vruntime (a 0
     * term), rounded down as avg_vruntime() rounds; its raw lag V − v. */
    __int128 num = l->sum_wdv, den = (__int128)l->sum_w + l->weight;
    if (num < 0)
        num -= den - 1;
    int64_t raw = (int64_t)(num / den);
    int64_t largest = l->max_slice > l->slice_ns ? l->max_slice : l->slice_ns;
    int64_t two = 2 * l->slice_ns > v->tick_ns ? 2 * l->slice_ns : v->tick_ns;
    int64_t by_max = clamp64(raw, fair_delta(largest + v->tick_ns, l->weight));
    int64_t by_vanilla = clamp64(raw, fair_delta(two, l->weight));
    /* V's base differs from the kernel's (zero_vruntime): a floor one ns apart */
    bool m = llabs(by_max - l->lag) <= 1, w = llabs(by_vanilla - l->lag) <= 1;
    enum lag_rule r = m && w ? LR_BOTH : m ? LR_MAX_SLICE : w ? LR_VANILLA : LR_NEITHER;
    note(v->first[r], v->n[r], l->ts);
    v->n[r]++;
}

static void print_leaves(const struct fidelity *f, const struct leaves *v)
{
    int64_t all = 0;
    for (int r = 0; r < LR_NR; r++)
        all += v->n[r];
    printf("lags kept at leaves (a thread that blocked and left its queue), each recomputed from the queue it "
           "left\nwith either clamp: %lld recomputed, %lld not (its queue stands in one row for several, or a "
           "number is missing)\n",
           (long long)all, (long long)v->unusable);
    for (int r = 0; r < LR_NR; r++) {
        printf("  %s: %lld\n", lag_rule_what[r], (long long)v->n[r]);
        if (v->n[r])
            put_times(f, v->first[r], v->n[r]);
    }
}

static void print_report(const struct fidelity *f, const struct leaves *lv, int64_t trace)
{
    int64_t first[FIRST], n[FID_NR], replayed = 0, skipped = 0;
    char cpus[256] = "";
    size_t at = 0;

    for (int c = 0; c < FID_NR; c++) {
        n[c] = total(f, c, first);
        *(fid_class[c].replayed ? &replayed : &skipped) += n[c];
    }
    for (int cpu = 0; cpu < (int)TRACE_MAX_CPUS && at < sizeof cpus - 8; cpu++)
        if (f->scenario_cpu[cpu])
            at += (size_t)snprintf(cpus + at, sizeof cpus - at, "%s%d", at ? "," : "", cpu);
    char version[sizeof f->tr.version * 4];
    text_visible(version, sizeof version, f->tr.version);
    printf("trace %lld (linux %s): Linux's picks on CPU %s, each replayed through runq's EEVDF pick\n"
           "(kernel/sched/eevdf.c) from the queue recorded at it\n\n",
           (long long)trace, version, at ? cpus : "-");
    printf("replayed: %lld picks, %lld of them with a choice (two or more eligible entities)\n", (long long)replayed,
           (long long)f->choices);
    for (int c = 0; c < FID_NR; c++) {
        if (!fid_class[c].replayed || c == FID_AGREE || !(n[c] = total(f, c, first)))
            continue;
        printf("  %s: %lld\n", fid_class[c].what, (long long)n[c]);
        put_times(f, first, n[c]);
    }
    printf("  runq's eligibility differs from the recorded column: %lld of %lld entities\n",
           (long long)f->elig_differ, (long long)f->entities);
    if (f->elig_differ)
        put_times(f, f->first_elig, f->elig_differ);
    printf("  runq's V differs from the recorded V: %lld of %lld picks\n", (long long)f->v_differ,
           (long long)(replayed));
    if (f->v_differ)
        put_times(f, f->first_v, f->v_differ);
    printf("not replayable: %lld picks\n", (long long)skipped);
    for (int c = 0; c < FID_NR; c++) {
        if (fid_class[c].replayed || !(n[c] = total(f, c, first)))
            continue;
        printf("  %s: %lld\n", fid_class[c].what, (long long)n[c]);
        put_times(f, first, n[c]);
    }
    /* Mostly "other in queue": the run shared its queues with other
     * programs, which is what the root task group does (a run started
     * from init's session, not a shell's: host/engine/linux/run.h,
     * linux_root_task_group). */
    if (n[FID_OTHER_IN_QUEUE] * 2 > replayed + skipped)
        printf("  (most picks shared their queue with tasks outside the scenario: record from a session of "
               "its own, setsid runq run ...)\n");
    print_leaves(f, lv);
    int64_t agree = total(f, FID_AGREE, first);
    /* rounded down, so that one disagreement never shows as 100 % */
    if (replayed)
        printf("agree: %lld of %lld picks (%.2f%%)\n", (long long)agree, (long long)replayed,
               (double)(agree * 10000 / replayed) / 100);
    else
        printf("agree: 0 of 0 picks (none could be replayed)\n");
}

int fidelity_report(sqlite3 *db, const struct fidelity_opts *o)
{
    char err[256];
    int64_t trace = o->trace;
    struct fidelity *f = xcalloc(1, sizeof *f);
    int rc = 1;
    if (!trace)
        trace = dbq_latest_trace(db);
    if (!trace) {
        fprintf(stderr, "runq report: %s holds no trace yet\n", o->db);
        goto out;
    }
    if (pickq_trace_read(db, trace, &f->tr, err, sizeof err) != 0) {
        fprintf(stderr, "runq report: %s\n", err);
        goto out;
    }
    rc = 2;
    if (strcmp(f->tr.engine, "linux") != 0) {
        char engine[sizeof f->tr.engine * 4];
        text_visible(engine, sizeof engine, f->tr.engine);
        fprintf(stderr, "runq report: trace %lld is a %s trace: fidelity replays Linux's recorded picks "
                        "(record one as root with runq run --engine linux)\n",
                (long long)trace, engine);
        goto out;
    }
    if (f->tr.picks_with_v == 0 || f->tr.snapshots == 0) {
        fprintf(stderr, "runq report: trace %lld holds no Linux internals (recorded without BPF: not root, "
                        "RUNQ_NO_BPF set, or no BTF): nothing to replay\n",
                (long long)trace);
        goto out;
    }
    f->params.ncpus = f->tr.ncpus > 0 ? (unsigned)f->tr.ncpus : 1;
    f->params.tick_ns = f->tr.tick_hz > 0 ? 1000000000ull / (unsigned)f->tr.tick_hz : 4000000;
    rc = 1;
    if (pickq_each(db, trace, on_pick, f, err, sizeof err) != 0) {
        fprintf(stderr, "runq report: %s\n", err);
        goto out;
    }
    static struct leaves lv;
    memset(&lv, 0, sizeof lv);
    lv.tick_ns = (int64_t)f->params.tick_ns;
    if (pickq_leaves(db, trace, on_leave, &lv, err, sizeof err) != 0) {
        fprintf(stderr, "runq report: %s\n", err);
        goto out;
    }
    print_report(f, &lv, trace);
    rc = 0;
out:
    free(f->se);
    free(f->queued);
    free(f->elig);
    free(f);
    return rc;
}
