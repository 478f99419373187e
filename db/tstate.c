/*
 * Trace state: the rules of db/tstate.h, one event at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/tstate.h"
#include "db/vtime.h"

/* A task that no record has weighed weighs nice 0's. */
#define DEFAULT_WEIGHT 1024

/* Ties at one time (TSTATE_ANY_ORDER): the record the kernel applies
 * last wins. */
enum { RANK_LEAVE, RANK_PLACE, RANK_PICK, RANK_KEYFRAME };

/* ---- the tasks ---- */

static size_t hslot(int64_t utid, size_t cap)
{
    uint64_t x = (uint64_t)utid * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 20) & (cap - 1);
}

int tstate_ids_find(const struct tstate_ids *ids, int64_t utid)
{
    if (!ids->hcap || utid <= 0)
        return -1;
    for (size_t i = hslot(utid, ids->hcap);; i = (i + 1) & (ids->hcap - 1)) {
        if (ids->slot[i].utid == utid)
            return ids->slot[i].index;
        if (ids->slot[i].utid == 0)
            return -1;
    }
}

/* Room for one more in the table, kept at most half full. 0, or -1. */
static int hash_grow(struct tstate_ids *ids)
{
    if ((size_t)(ids->n + 1) * 2 <= ids->hcap)
        return 0;
    size_t ncap = ids->hcap ? ids->hcap * 2 : 256;
    struct tstate_slot *slot = calloc(ncap, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < ids->hcap; i++)
        if (ids->slot[i].utid) {
            size_t j = hslot(ids->slot[i].utid, ncap);
            while (slot[j].utid)
                j = (j + 1) & (ncap - 1);
            slot[j] = ids->slot[i];
        }
    free(ids->slot);
    ids->slot = slot;
    ids->hcap = ncap;
    return 0;
}

int tstate_ids_add(struct tstate_ids *ids, int64_t utid, bool idle)
{
    if (utid <= 0)
        return -1;
    int i = tstate_ids_find(ids, utid);
    if (i >= 0)
        return i;
    if (ids->n == ids->cap) {
        int ncap = ids->cap ? ids->cap * 2 : 64;
        int64_t *u = realloc(ids->utid, (size_t)ncap * sizeof *u);
        if (!u)
            return -1;
        ids->utid = u;
        bool *d = realloc(ids->idle, (size_t)ncap * sizeof *d);
        if (!d)
            return -1;
        ids->idle = d;
        ids->cap = ncap;
    }
    if (hash_grow(ids) != 0)
        return -1;
    BUG_ON(ids->hcap & (ids->hcap - 1)); /* a power of two: the probe's mask */
    BUG_ON((size_t)(ids->n + 1) * 2 > ids->hcap); /* at most half full: a free slot ends every probe */
    size_t j = hslot(utid, ids->hcap);
    while (ids->slot[j].utid)
        j = (j + 1) & (ids->hcap - 1);
    ids->slot[j] = (struct tstate_slot){ utid, ids->n };
    ids->utid[ids->n] = utid;
    ids->idle[ids->n] = idle;
    return ids->n++;
}

void tstate_ids_free(struct tstate_ids *ids)
{
    free(ids->slot);
    free(ids->utid);
    free(ids->idle);
    memset(ids, 0, sizeof *ids);
}

/* ---- a state ---- */

/* A task no event has spoken of yet. */
static void task_unseen(struct tstate_task *t)
{
    memset(t, 0, sizeof *t);
    t->state = THREAD_UNKNOWN;
    t->cpu = -1;
    t->on = -1;
    t->weight = DEFAULT_WEIGHT;
    t->weight_known = true;
    /* older than any event: rank -1 loses to none */
    t->st.rank = t->at.rank = t->ev.rank = t->dl.rank = t->wt.rank = t->lg.rank = -1;
}

int tstate_init(struct tstate *st, const struct tstate_ids *ids, int ncpus, enum tstate_order order)
{
    memset(st, 0, sizeof *st);
    st->ids = ids;
    st->order = order;
    st->ncpus = ncpus > 0 ? ncpus : 0;
    st->base_slice_ns = 700000;
    /* Not xcalloc: see tstate_ids_add. */
    st->cpu = calloc((size_t)st->ncpus + 1, sizeof *st->cpu);
    if (!st->cpu)
        return -1;
    return tstate_sync(st);
}

void tstate_free(struct tstate *st)
{
    free(st->cpu);
    free(st->task);
    st->cpu = NULL;
    st->task = NULL;
    st->ntask = st->task_cap = 0;
}

int tstate_sync(struct tstate *st)
{
    int n = st->ids->n;
    if (n > st->task_cap) {
        int ncap = st->task_cap ? st->task_cap : 64;
        while (ncap < n)
            ncap *= 2;
        struct tstate_task *t = realloc(st->task, (size_t)ncap * sizeof *t);
        if (!t)
            return -1;
        st->task = t;
        st->task_cap = ncap;
    }
    for (; st->ntask < n; st->ntask++)
        task_unseen(&st->task[st->ntask]);
    return 0;
}

void tstate_copy(struct tstate *dst, const struct tstate *src)
{
    BUG_ON(dst->ids != src->ids || dst->ncpus != src->ncpus || dst->task_cap < src->ntask);
    /* a trace may have no CPU row or no task yet: then the arrays are NULL,
     * which memcpy may not be given even for 0 bytes */
    if (src->ncpus)
        memcpy(dst->cpu, src->cpu, (size_t)src->ncpus * sizeof *src->cpu);
    if (src->ntask)
        memcpy(dst->task, src->task, (size_t)src->ntask * sizeof *src->task);
    dst->ntask = src->ntask;
    dst->seq = src->seq;
}

struct tstate_task *tstate_task(struct tstate *st, int64_t utid)
{
    int i = tstate_ids_find(st->ids, utid);
    return i < 0 || i >= st->ntask ? NULL : &st->task[i];
}

static int64_t utid_of(const struct tstate *st, const struct tstate_task *t)
{
    BUG_ON(t < st->task || t >= st->task + st->ntask); /* one of st's records */
    return st->ids->utid[t - st->task];
}

static bool idle(const struct tstate *st, const struct tstate_task *t)
{
    return st->ids->idle[t - st->task];
}

/* ---- order ---- */

/* Does an event stamped s supersede what stamp s0 set? In order, every
 * event does. */
static bool newer(const struct tstate *st, struct tstate_stamp s, struct tstate_stamp s0)
{
    return st->order == TSTATE_IN_ORDER || s.ts > s0.ts || (s.ts == s0.ts && s.rank >= s0.rank);
}

/* An event at ts, for what keeps only its time: at or after ts0. */
static bool not_before(const struct tstate *st, uint64_t ts, uint64_t ts0)
{
    return st->order == TSTATE_IN_ORDER || ts >= ts0;
}

/* A keyframe at ts names the CPU's task only strictly after a pick's
 * naming: at one time the pick, which it follows, already said. */
static bool after(const struct tstate *st, uint64_t ts, uint64_t ts0)
{
    return st->order == TSTATE_IN_ORDER || ts > ts0;
}

/* ---- the queues ---- */

/* Takes t off the queue that holds it. */
static void q_remove(struct tstate *st, struct tstate_task *t)
{
    if (t->on < 0)
        return;
    struct tstate_cpu *c = &st->cpu[t->on];
    int idx = (int)(t - st->task);
    for (int i = 0; i < c->nq; i++)
        if (c->q[i] == idx) {
            c->q[i] = c->q[--c->nq]; /* the last comes into its place, as a rebuilt list always has */
            t->on = -1;
            return;
        }
    BUG_ON(1); /* t->on names a queue that does not hold it */
}

/* Puts t on CPU cpu's queue, off any other's (a task is on one queue:
 * the CPU it left keeps no copy, nor runs it). Returns whether t came
 * onto it now (false: it was there, or the queue is full and t is off
 * every queue). */
static bool q_move(struct tstate *st, int cpu, struct tstate_task *t)
{
    BUG_ON(cpu < 0 || cpu >= st->ncpus); /* tstate_apply took only events on st's CPUs */
    if (t->on == cpu)
        return false;
    if (t->on >= 0) {
        struct tstate_cpu *o = &st->cpu[t->on];
        if (st->order == TSTATE_IN_ORDER && o->curr == utid_of(st, t))
            o->curr = 0; /* (curr is an in-order notion: tstate.h) */
        q_remove(st, t);
    }
    struct tstate_cpu *c = &st->cpu[cpu];
    BUG_ON(t->on >= 0 || c->nq > TSTATE_MAX_QUEUE); /* a queue never holds a task twice */
    if (c->nq == TSTATE_MAX_QUEUE)
        return false;
    c->q[c->nq++] = (int)(t - st->task);
    t->on = cpu;
    return true;
}

/* A task that comes onto a queue without a JOIN: nothing of its numbers
 * is known from there (what it had before it left is no longer so). Only
 * in order: out of order, a task not yet on the queue may be there by an
 * older event still to come (a keyframe read after the pick it
 * preceded), whose numbers the reset would have undone. */
static bool fresh(const struct tstate *st, struct tstate_task *t)
{
    if (st->order != TSTATE_IN_ORDER)
        return false;
    t->has_vruntime = t->has_deadline = t->dl_estimated = false;
    t->vruntime = t->deadline = t->slice_ns = 0;
    t->weight = DEFAULT_WEIGHT;
    t->weight_known = true;
    t->seq = 0;
    t->delayed = false;
    return true;
}

/* ---- what an event sets ---- */

/* A lag an event gives (V - vruntime as of it). */
static void take_lag(const struct tstate *st, struct tstate_task *t, int64_t lag, struct tstate_stamp at)
{
    if (!newer(st, at, t->lg))
        return;
    t->lag = lag;
    t->lg = at;
}

static void set_state(const struct tstate *st, struct tstate_task *t, enum thread_state s, struct tstate_stamp at,
                      int cpu)
{
    if (!newer(st, at, t->st) || t->state == THREAD_DEAD)
        return;
    t->state = s;
    t->st = at;
    t->cpu = cpu;
}

static void take_v(const struct tstate *st, struct tstate_cpu *c, const struct event *e)
{
    uint64_t ts = (uint64_t)e->ts;
    if (!e->has_v || !not_before(st, ts, c->v_ts))
        return;
    c->v = e->v;
    c->has_v = true;
    c->v_ts = ts;
}

/* A count from a record: only where the engine counted it (counted),
 * else it stays unknown rather than the 0 stored for it. */
static void take_nr(const struct tstate *st, struct tstate_cpu *c, bool counted, int nr, uint64_t ts)
{
    if (!counted || !not_before(st, ts, c->nr_ts))
        return;
    c->nr_runnable = nr;
    c->has_nr = true;
    c->nr_ts = ts;
}

/* The CPU's task is utid from ts. */
static void name(struct tstate_cpu *c, int64_t utid, uint64_t ts)
{
    c->named = c->curr = utid;
    c->named_ts = ts;
    c->known = true;
}

/* ---- the events ---- */

/* What a JOIN and a PICK take first, each from its own fields: the CPU's
 * V and runnable count (counted where the engine counts, or where the
 * record has V), and the record of the task it puts on the CPU's queue
 * (NULL: one st does not hold). */
static struct tstate_task *placing(struct tstate *st, struct tstate_cpu *c, const struct event *e, int nr_runnable,
                                   int64_t utid)
{
    take_v(st, c, e);
    take_nr(st, c, st->counts || e->has_v, nr_runnable, (uint64_t)e->ts);
    return tstate_task(st, utid);
}

static void apply_join(struct tstate *st, int cpu, const struct event *e)
{
    struct tstate_cpu *c = &st->cpu[cpu];
    struct tstate_stamp s = { (uint64_t)e->ts, RANK_PLACE };
    struct tstate_task *t = placing(st, c, e, e->join.nr_runnable, e->join.utid);
    if (!t)
        return;
    set_state(st, t, THREAD_RUNNABLE, s, cpu);
    if (newer(st, s, t->at)) {
        /* Current, or delayed, it keeps its place in the list. */
        bool stays = t->on == cpu && (c->curr == e->join.utid || t->delayed);
        if (q_move(st, cpu, t))
            fresh(st, t);
        if (!stays)
            t->seq = ++st->seq;
        t->delayed = false;
        t->at = s;
    }
    if (newer(st, s, t->ev)) {
        t->vruntime = e->join.vruntime;
        t->has_vruntime = e->has_eevdf;
        t->dl_estimated = false;
        t->slice_ns = e->join.slice_ns;
        t->ev = s;
    }
    if (e->has_v && e->has_eevdf)
        take_lag(st, t, vt_sub(e->v, e->join.vruntime), s); /* the kernel's lag after placing */
    if (newer(st, s, t->dl)) {
        t->deadline = e->join.deadline;
        t->has_deadline = e->has_eevdf;
        t->dl = s;
    }
    if (newer(st, s, t->wt)) {
        t->weight = e->join.weight ? e->join.weight : DEFAULT_WEIGHT;
        t->weight_known = true;
        t->wt = s;
    }
}

static void apply_leave(struct tstate *st, int cpu, const struct event *e)
{
    struct tstate_cpu *c = &st->cpu[cpu];
    struct tstate_stamp s = { (uint64_t)e->ts, RANK_LEAVE };
    take_v(st, c, e);
    if (st->order == TSTATE_IN_ORDER && c->curr == e->leave.utid)
        c->curr = 0;
    struct tstate_task *t = tstate_task(st, e->leave.utid);
    if (!t)
        return;
    const struct leave_meaning *lm = leave_meaning_of(e->leave.reason);
    set_state(st, t, lm->state, s, cpu);
    if (newer(st, s, t->at)) {
        if (lm->queue == LEAVE_TO_TAIL) {
            if (q_move(st, cpu, t))
                fresh(st, t);
            if (t->on == cpu)
                t->seq = ++st->seq; /* rr: the displaced task goes to the tail */
        } else if (lm->queue == LEAVE_STAYS_DELAYED) {
            if (t->on == cpu)
                t->delayed = true;
        } else if (t->on == cpu) {
            q_remove(st, t);
        }
        t->at = s;
    }
    /* Its numbers as it left: a task still queued keeps them (a queued
     * task's vruntime does not move), a sleeper's lag is what it will
     * bring. Without them (rr, Linux from tracefs) none is known any
     * more. */
    if (newer(st, s, t->ev)) {
        t->vruntime = e->leave.vruntime;
        t->has_vruntime = e->has_eevdf;
        t->ev = s;
    }
    if (e->has_eevdf)
        take_lag(st, t, e->leave.lag, s);
    /* The deadline, which the stint may have renewed, when the record has
     * it (trace format 2 on); a LEAVE without it leaves the pick's. */
    if (newer(st, s, t->dl)) {
        if (e->has_eevdf && e->leave.has_deadline) {
            t->deadline = e->leave.deadline;
            t->has_deadline = true;
            t->dl = s;
        } else if (!e->has_eevdf) {
            t->has_deadline = false;
            t->dl = s;
        }
    }
}

static void apply_pick(struct tstate *st, int cpu, const struct event *e)
{
    struct tstate_cpu *c = &st->cpu[cpu];
    struct tstate_stamp s = { (uint64_t)e->ts, RANK_PICK };
    struct tstate_task *t = placing(st, c, e, e->pick.nr_runnable, e->pick.next);
    /* prev: the task the CPU ran, put back without a LEAVE (after a gap,
     * or at a view's start, it is not known, and a keyframe settles it) */
    struct tstate_task *prev = c->named ? tstate_task(st, c->named) : NULL;
    if (prev && prev != t && prev->state == THREAD_RUNNING && prev->cpu == cpu)
        set_state(st, prev, THREAD_RUNNABLE, (struct tstate_stamp){ s.ts, RANK_LEAVE }, cpu);
    c->known = true;
    if (!t) /* a task st does not hold names nobody: the CPU's stays as it was */
        return;
    if (not_before(st, s.ts, c->named_ts))
        name(c, e->pick.next, s.ts);
    set_state(st, t, THREAD_RUNNING, s, cpu);
    /* The numbers the pick carries (V and next's), when it has both: a
     * pick that came without them on a trace that has them is of a
     * thread outside the recorded queue (a Linux trace's "other"), whose
     * weight no record gives. The CPU's idle task runs off the queue. */
    bool numbers = e->has_v && e->has_eevdf;
    if (!(idle(st, t) && t->on != cpu) && newer(st, s, t->at)) {
        if (q_move(st, cpu, t) && fresh(st, t) && st->has_numbers && !numbers)
            t->weight_known = false;
        t->delayed = false;
        t->at = s;
    }
    if (newer(st, s, t->ev)) {
        t->slice_ns = e->pick.slice_ns;
        if (numbers) {
            t->vruntime = e->pick.vruntime;
            t->has_vruntime = true;
            t->dl_estimated = false;
            t->ev = s;
        }
    }
    if (numbers)
        take_lag(st, t, vt_sub(e->v, e->pick.vruntime), s); /* as the kernel's lag at a pick */
    if (numbers && newer(st, s, t->dl)) {
        t->deadline = e->pick.deadline;
        t->has_deadline = true;
        t->dl = s;
    }
}

/* One row of a keyframe. */
static void apply_keyframe(struct tstate *st, int cpu, const struct event *e, const struct event_kf_entry *kf)
{
    struct tstate_cpu *c = &st->cpu[cpu];
    struct tstate_stamp s = { (uint64_t)e->ts, RANK_KEYFRAME };
    /* The CPU's V as the keyframe states it: without one, not known. */
    if (not_before(st, s.ts, c->v_ts)) {
        c->v = e->v;
        c->has_v = e->has_v;
        c->v_ts = s.ts;
    }
    if (!c->has_kf || c->kf_ts != s.ts) {
        /* A new keyframe: the whole queue. What was queued before it is
         * off unless this keyframe lists it (a row puts it back); what
         * came on after it (TSTATE_ANY_ORDER) stays. */
        c->has_kf = true;
        c->kf_ts = s.ts;
        c->kf_n = 0;
        for (int i = c->nq; i-- > 0;) {
            struct tstate_task *x = &st->task[c->q[i]];
            if (newer(st, s, x->at))
                q_remove(st, x);
        }
        if (st->order == TSTATE_IN_ORDER)
            c->curr = 0;
        c->known = true;
    }
    struct tstate_task *t = tstate_task(st, kf->utid);
    if (!t || !idle(st, t)) /* an idle CPU's keyframe names its idle task: not runnable */
        c->kf_n++;
    if (not_before(st, s.ts, c->nr_ts)) {
        c->nr_runnable = c->kf_n;
        c->has_nr = true;
        c->nr_ts = s.ts;
    }
    if (!t)
        return;
    if (kf->current) {
        set_state(st, t, THREAD_RUNNING, s, cpu);
        if (after(st, s.ts, c->named_ts)) /* after a gap: the keyframe says who runs */
            name(c, kf->utid, s.ts);
    } else {
        set_state(st, t, kf->delayed ? THREAD_DELAYED : THREAD_RUNNABLE, s, cpu);
    }
    /* An idle CPU's row (db/ingest.c writes it without numbers) names
     * its idle task, which is on no queue: nothing more. */
    if (idle(st, t) && !kf->has_eevdf)
        return;
    if (!idle(st, t) && newer(st, s, t->at)) {
        q_move(st, cpu, t);
        t->delayed = kf->delayed;
        t->seq = ++st->seq;
        t->at = s;
    }
    if (newer(st, s, t->ev)) {
        t->vruntime = kf->vruntime;
        t->has_vruntime = kf->has_eevdf;
        t->dl_estimated = false;
        t->slice_ns = kf->slice_ns;
        t->ev = s;
    }
    if (newer(st, s, t->dl)) {
        t->deadline = kf->deadline;
        t->has_deadline = kf->has_eevdf;
        t->dl = s;
    }
    if (newer(st, s, t->wt)) {
        t->weight = kf->weight > 0 ? kf->weight : DEFAULT_WEIGHT; /* the round robin's 0 is none, as a JOIN's */
        t->weight_known = kf->has_weight;
        t->wt = s;
    }
    if (kf->has_eevdf)
        take_lag(st, t, kf->lag, s);
}

void tstate_apply(struct tstate *st, const struct event *e, const struct event_kf_entry *kf)
{
    if (e->cpu < 0 || e->cpu >= st->ncpus)
        return;
    switch (e->kind) {
    case EVENT_KEYFRAME:
        if (kf)
            apply_keyframe(st, e->cpu, e, kf);
        return;
    case EVENT_JOIN:
        apply_join(st, e->cpu, e);
        return;
    case EVENT_LEAVE:
        apply_leave(st, e->cpu, e);
        return;
    case EVENT_PICK:
        apply_pick(st, e->cpu, e);
        return;
    case EVENT_TICK: {
        struct tstate_cpu *c = &st->cpu[e->cpu];
        take_v(st, c, e);
        take_nr(st, c, st->counts, e->tick.nr_runnable, (uint64_t)e->ts);
        return;
    }
    default: /* WAKE, SET, MARK: nothing on a queue moves */
        return;
    }
}

void tstate_gap(struct tstate *st, int cpu)
{
    if (cpu < 0 || cpu >= st->ncpus)
        return;
    struct tstate_cpu *c = &st->cpu[cpu];
    c->named = c->curr = 0;
    c->known = false;
}

void tstate_forget(struct tstate *st, int64_t utid)
{
    BUG_ON(st->order != TSTATE_IN_ORDER); /* the state it sets has no stamp to order it by */
    struct tstate_task *t = tstate_task(st, utid);
    if (t && t->state != THREAD_DEAD)
        t->state = THREAD_UNKNOWN;
}

/* ---- what the records leave out ---- */

void tstate_settle(struct tstate *st, int cpu)
{
    BUG_ON(st->order != TSTATE_IN_ORDER); /* the numbers it settles are as of the newest event */
    if (cpu < 0 || cpu >= st->ncpus)
        return;
    struct tstate_cpu *c = &st->cpu[cpu];
    /* In order, the task on the CPU is the one last named, unless it left
     * since (tstate.h): current's vruntime below is solved for it. */
    BUG_ON(c->curr && c->curr != c->named);
    if (!st->eevdf || !c->has_v)
        return;
    __int128 sumw = 0, sumwv = 0;
    struct tstate_task *cur = NULL;
    bool others_known = true; /* the sum needs every other vruntime */
    for (int i = 0; i < c->nq; i++) {
        struct tstate_task *x = &st->task[c->q[i]];
        sumw += x->weight;
        if (c->curr && utid_of(st, x) == c->curr)
            cur = x;
        else if (!x->has_vruntime)
            others_known = false;
        else
            sumwv += (__int128)x->weight * x->vruntime;
    }
    /* Not a current whose weight no record gave (a Linux trace's "other":
     * the thread on the CPU is outside the queue V is the average of, at
     * the root or in another group): V says nothing about it. */
    if (cur && cur->weight > 0 && cur->weight_known && others_known) {
        cur->vruntime = (int64_t)(((__int128)c->v * sumw - sumwv) / cur->weight);
        cur->has_vruntime = true;
    }
    for (int i = 0; i < c->nq; i++) {
        struct tstate_task *x = &st->task[c->q[i]];
        if (!x->has_vruntime || !x->has_deadline)
            continue;
        int64_t slice = x->slice_ns ? x->slice_ns : st->base_slice_ns;
        __int128 sv = x->weight > 0 ? (__int128)slice * 1024 / x->weight : slice;
        if (sv <= 0 || sv > INT64_MAX || !vt_before(x->deadline, x->vruntime))
            continue;
        /* whole slices until it is ahead again, modulo 2^64 as the times are */
        uint64_t behind = (uint64_t)vt_sub(x->vruntime, x->deadline);
        x->deadline = vt_add(x->deadline, (int64_t)((behind / (uint64_t)sv + 1) * (uint64_t)sv));
        x->dl_estimated = true;
    }
}

/* ---- a queue as shown ---- */

static int ent_cmp_eevdf(const void *a, const void *b)
{
    const struct tstate_ent *x = a, *y = b;
    if (x->has_deadline != y->has_deadline)
        return x->has_deadline ? -1 : 1;
    if (x->has_deadline && x->deadline != y->deadline)
        return vt_before(x->deadline, y->deadline) ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ent_cmp_rr(const void *a, const void *b)
{
    const struct tstate_ent *x = a, *y = b;
    if (x->current != y->current)
        return x->current ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int tstate_queue(const struct tstate *st, int cpu, struct tstate_ent *out)
{
    if (cpu < 0 || cpu >= st->ncpus)
        return 0;
    const struct tstate_cpu *c = &st->cpu[cpu];
    int n = 0;
    BUG_ON(c->nq > TSTATE_MAX_QUEUE); /* out holds that many */
    for (int i = 0; i < c->nq; i++) {
        BUG_ON(c->q[i] < 0 || c->q[i] >= st->ntask); /* the queue holds indexes of st's tasks */
        const struct tstate_task *x = &st->task[c->q[i]];
        int64_t utid = utid_of(st, x);
        BUG_ON(x->on != cpu); /* the queue and the task agree on where it is */
        bool current = c->curr && utid == c->curr;
        if (idle(st, x) && !current)
            continue;
        out[n++] = (struct tstate_ent){ .utid = utid, .current = current, .delayed = x->delayed,
                                        .dl_estimated = x->dl_estimated, .has_vruntime = x->has_vruntime,
                                        .has_deadline = x->has_deadline, .weight_known = x->weight_known,
                                        .vruntime = x->vruntime, .deadline = x->deadline, .weight = x->weight,
                                        .slice_ns = x->slice_ns, .seq = x->seq };
    }
    qsort(out, (size_t)n, sizeof *out, st->eevdf ? ent_cmp_eevdf : ent_cmp_rr);
    return n;
}
