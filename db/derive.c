/*
 * The derived tables' state machines (what they are in derive.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/derive.h"
#include "db/tstate.h"

/* Out of memory: the writer fails (batch_out_of_memory says so), so
 * nothing of this commit is stored, and what is left undone here (a task
 * not added, a list not grown) is never written. Returns -1. */
static int out_of_memory(struct derive *d)
{
    return batch_out_of_memory(d->b);
}

/* ---- the task table ---- */

static size_t home_of(const struct derive *d, int32_t tid)
{
    return ((uint32_t)tid * 2654435761u) & (d->nslots - 1);
}

static size_t slot_of(const struct derive *d, int32_t tid)
{
    size_t i = home_of(d, tid);
    while (d->slots[i].t && d->slots[i].tid != tid)
        i = (i + 1) & (d->nslots - 1);
    return i;
}

static struct wtask *find(const struct derive *d, int32_t tid)
{
    return d->nslots ? d->slots[slot_of(d, tid)].t : NULL;
}

/* Rebuilds the hash with nslots slots. 0, or -1 out of memory (the hash
 * as it was). */
static int rehash(struct derive *d, size_t nslots)
{
    struct wslot *old = d->slots;
    size_t n = d->nslots;
    BUG_ON(nslots & (nslots - 1)); /* a power of two: home_of's mask */
    struct wslot *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return out_of_memory(d);
    d->slots = slots;
    d->nslots = nslots;
    for (size_t i = 0; i < n; i++)
        if (old[i].t)
            d->slots[slot_of(d, old[i].tid)] = old[i];
    free(old);
    return 0;
}

/* Takes task tid out of the hash (linear probing's backward shift: the
 * slots after it that would no longer be found move up). */
static void forget(struct derive *d, int32_t tid)
{
    size_t mask = d->nslots - 1, i = slot_of(d, tid);
    BUG_ON(!d->slots[i].t || d->nheld == 0); /* only a task held is let go */
    free(d->slots[i].t);
    d->slots[i].t = NULL;
    d->nheld--;
    for (size_t j = (i + 1) & mask; d->slots[j].t; j = (j + 1) & mask) {
        size_t k = home_of(d, d->slots[j].tid);
        /* Can the entry at j stay, with the hole at i before it? Only if
         * its home lies cyclically in (i, j]. */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        d->slots[i] = d->slots[j];
        d->slots[j].t = NULL;
        i = j;
    }
}

static void tids_push(struct derive *d, struct tid_list *l, int32_t tid)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        int32_t *p = realloc(l->tid, cap * sizeof *p);
        if (!p) {
            out_of_memory(d);
            return;
        }
        l->tid = p;
        l->cap = cap;
    }
    l->tid[l->n++] = tid;
}

/* Lets go of one exited task whose rows are all written, taken from the
 * oldest deaths; those still owing a row wait in dead_owing until the next
 * derive_write_threads(). So each death is looked at once a commit.
 * Returns 1 when a slot was freed. */
static int let_go_of_one(struct derive *d)
{
    while (d->dead_head < d->dead.n) {
        int32_t tid = d->dead.tid[d->dead_head++];
        struct wtask *t = find(d, tid);
        if (!t || t->st != THREAD_DEAD)
            continue;
        int running = 0;
        for (unsigned k = 0; k < TRACE_MAX_CPUS && !running; k++)
            running = d->cpu[k].known && d->cpu[k].curr == tid;
        if (t->dirty || t->wake_pending || t->bounce_pending || running) {
            tids_push(d, &d->dead_owing, tid);
            continue;
        }
        forget(d, tid);
        return 1;
    }
    d->dead.n = d->dead_head = 0;
    return 0;
}

/* A new task's place, or NULL when DERIVE_MAX_TASKS are held (counted in
 * tasks_over_limit) or out of memory. */
static struct wtask *add(struct derive *d, int32_t tid)
{
    if (d->nheld == DERIVE_MAX_TASKS && !let_go_of_one(d)) {
        d->tasks_over_limit++;
        return NULL;
    }
    if ((d->nheld + 1) * 2 > d->nslots && rehash(d, d->nslots ? d->nslots * 2 : 256) != 0)
        return NULL;
    /* At most half full, so every probe ends at a free slot. */
    BUG_ON(d->nheld >= DERIVE_MAX_TASKS || (d->nheld + 1) * 2 > d->nslots);
    struct wtask *t = calloc(1, sizeof *t);
    if (!t) {
        out_of_memory(d);
        return NULL;
    }
    struct wslot *s = &d->slots[slot_of(d, tid)];
    BUG_ON(s->t); /* a new task: derive_task looked for it first */
    s->tid = tid;
    s->t = t;
    d->nheld++;
    return t;
}

/* Puts t on the gap lists of the CPUs it is now tied to (its state's and
 * its home), where it is not yet. */
static void note(struct derive *d, struct wtask *t)
{
    int cpus[2] = { t->st_cpu, t->cpu };
    for (int k = 0; k < 2; k++) {
        int c = cpus[k];
        if (c < 0 || c >= (int)TRACE_MAX_CPUS || c == d->gap_cpu || (t->on_gap_list[c / 64] >> (c % 64) & 1))
            continue;
        tids_push(d, &d->cpu[c].gap_list, t->tid);
        t->on_gap_list[c / 64] |= 1ull << (c % 64);
    }
}

struct wtask *derive_task(struct derive *d, int32_t tid, uint64_t ts)
{
    if (tid < 0 || tid >= DERIVE_MAX_TID) {
        if (tid != TRACE_TASK_NONE)
            d->bad_tid++;
        return NULL;
    }
    struct wtask *t = find(d, tid);
    if (!t && !(t = add(d, tid)))
        return NULL;
    if (!t->utid) {
        t->utid = d->next_utid++;
        t->tid = tid;
        t->start_ts = ts;
        t->cpu = -1;
        t->st_cpu = -1;
        t->st = TS_NONE;
    }
    BUG_ON(t->tid != tid); /* the hash gives the task asked for */
    if (!t->dirty) {
        if (d->ndirty == d->dirty_cap) {
            size_t cap = d->dirty_cap ? d->dirty_cap * 2 : 64;
            int32_t *p = realloc(d->dirty, cap * sizeof *p);
            if (!p) {
                out_of_memory(d);
                return t; /* its row unwritten: the commit fails */
            }
            d->dirty = p;
            d->dirty_cap = cap;
        }
        d->dirty[d->ndirty++] = tid;
        t->dirty = 1;
    }
    return t;
}

int64_t derive_utid(struct derive *d, int32_t tid, uint64_t ts)
{
    struct wtask *t = derive_task(d, tid, ts);
    return t ? t->utid : 0;
}

static uint64_t dur(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

/* Ends t's current state at ts (writing its row) and starts `st`. */
static void state_set(struct derive *d, struct wtask *t, enum thread_state st, uint64_t ts, int cpu,
                      int64_t waker)
{
    if (st == THREAD_DELAYED)
        st = THREAD_SLEEPING; /* the table has no delayed state: it is S (docs/sql.md) */
    if (t->st == st && st != THREAD_RUNNING && st != THREAD_UNKNOWN)
        return;
    if (t->st != TS_NONE && t->st != THREAD_DEAD && !t->idle) {
        /* a state the table has: delayed was stored as S above */
        BUG_ON(t->st >= THREAD_NSTATES || t->st == THREAD_DELAYED);
        struct brow *s = batch_row(d->b, S_STATE);
        B_INT(s, 1, d->b->trace_id);
        B_INT(s, 2, t->st_ts);
        B_INT(s, 3, dur(t->st_ts, ts));
        B_INT(s, 4, t->utid);
        B_TXT(s, 5, thread_state_sql_name(t->st));
        B_OPT(s, 6, t->st_cpu >= 0, t->st_cpu);
        B_OPT(s, 7, t->st_waker > 0, t->st_waker);
        run(d->b, s, "thread_state");
    }
    if (st == THREAD_DEAD && t->st != THREAD_DEAD)
        tids_push(d, &d->dead, t->tid);
    t->st = st;
    t->st_ts = ts;
    t->st_cpu = cpu;
    t->st_waker = waker;
    note(d, t);
}

/* A row of a wait that ends when the task runs (wakeup, bounce): both
 * tables begin with the same five columns, the trace, the task, when the
 * wait began, when it ran and after how long (both NULL, ran 0: it was not
 * seen to). The caller binds the table's own columns and runs the row. */
static struct brow *wait_row(struct derive *d, int stmt, const struct wtask *t, uint64_t since, int ran,
                             uint64_t ts_run)
{
    struct brow *s = batch_row(d->b, stmt);
    B_INT(s, 1, d->b->trace_id);
    B_INT(s, 2, t->utid);
    B_INT(s, 3, since);
    B_OPT(s, 4, ran, ts_run);
    B_OPT(s, 5, ran, dur(since, ts_run));
    return s;
}

/* Writes t's pending wakeup: it ran at ts_run, or (ran 0) was not seen to. */
static void wakeup_write(struct derive *d, struct wtask *t, int ran, uint64_t ts_run)
{
    BUG_ON(!t->wake_pending); /* each wakeup is written once */
    struct brow *s = wait_row(d, S_WAKEUP, t, t->wake_ts, ran, ts_run);
    B_OPT(s, 6, t->waker > 0, t->waker);
    B_INT(s, 7, t->wake_cpu);
    B_INT(s, 8, t->waker_cpu);
    run(d->b, s, "wakeup");
    t->wake_pending = 0;
    if (!ran)
        d->wakeups_unmatched++;
}

/* Writes t's pending bounce: it ran at ts_run on run_cpu, or (ran 0) was
 * not seen to. */
static void bounce_write(struct derive *d, struct wtask *t, int ran, uint64_t ts_run, int run_cpu)
{
    BUG_ON(!t->bounce_pending); /* each bounce is written once */
    struct brow *s = wait_row(d, S_BOUNCE, t, t->bounce_ts, ran, ts_run);
    B_INT(s, 6, t->bounce_cpu);
    B_OPT(s, 7, ran, run_cpu);
    B_TXT(s, 8, trace_class_name(t->bounce_by));
    run(d->b, s, "bounce");
    t->bounce_pending = 0;
    if (!ran)
        d->bounces_unmatched++;
}

/* t runs on cpu from ts: the end of the waits it had pending. */
static void waits_end(struct derive *d, struct wtask *t, uint64_t ts, int cpu)
{
    if (t->wake_pending)
        wakeup_write(d, t, 1, ts);
    if (t->bounce_pending)
        bounce_write(d, t, 1, ts, cpu);
}

/* ---- CPUs ---- */

static void slice_close(struct derive *d, unsigned ci, uint64_t ts, const char *end_state,
                        const char *end_reason)
{
    struct wcpu *c = &d->cpu[ci];
    if (!c->known)
        return;
    struct wtask *t = derive_task(d, c->curr, ts);
    /* A CPU's slices never overlap: slice_open starts none before the
     * last one's end, and dur() ends none before its start. */
    BUG_ON(c->slice_start < c->slice_end);
    c->slice_end = c->slice_start + dur(c->slice_start, ts);
    if (t) {
        struct brow *s = batch_row(d->b, S_SLICE);
        B_INT(s, 1, d->b->trace_id);
        B_INT(s, 2, c->slice_start);
        B_INT(s, 3, c->slice_end - c->slice_start);
        B_INT(s, 4, ci);
        B_INT(s, 5, t->utid);
        B_TXT(s, 6, end_state);
        B_TXT(s, 7, end_reason);
        B_OPT(s, 8, t->has_info, 120 + t->nice);
        run(d->b, s, "sched_slice");
    }
    c->known = 0;
}

static void slice_open(struct derive *d, unsigned ci, int32_t tid, uint64_t ts)
{
    struct wcpu *c = &d->cpu[ci];
    BUG_ON(ci >= TRACE_MAX_CPUS || c->known); /* a CPU of the trace, its last slice closed */
    c->known = 1;
    c->curr = tid;
    /* A record a little out of order (writer.h) starts it where the last
     * one ended, not before. */
    c->slice_start = ts > c->slice_end ? ts : c->slice_end;
    struct wtask *t = derive_task(d, tid, ts);
    if (t) {
        t->end_state = NULL;
        t->end_reason = NULL;
    }
}

/* ---- records ---- */

void derive_pick(struct derive *d, unsigned pc, int32_t next_tid, struct wtask *next, uint64_t ts)
{
    struct wcpu *c = &d->cpu[pc];
    if (c->known && c->curr == next_tid) {
        /* Current kept. After a LEAVE of its own (it blocked, was woken
         * again and is picked before anything else could run: Linux's
         * __schedule() with next == prev) it runs on in the same slice,
         * which that LEAVE did not end: no switch. */
        if (next && next->st != THREAD_RUNNING) {
            next->end_state = next->end_reason = NULL;
            state_set(d, next, THREAD_RUNNING, ts, (int)pc, 0);
            waits_end(d, next, ts, (int)pc);
        }
        return;
    }
    if (c->known) {
        struct wtask *old = derive_task(d, c->curr, ts);
        slice_close(d, pc, ts, old && old->end_state ? old->end_state : "R",
                    old && old->end_reason ? old->end_reason : "switch");
        /* Switched away without a LEAVE (the idle task): runnable. */
        if (old && old->st == THREAD_RUNNING)
            state_set(d, old, THREAD_RUNNABLE, ts, (int)pc, 0);
    }
    if (next) {
        slice_open(d, pc, next_tid, ts);
        state_set(d, next, THREAD_RUNNING, ts, (int)pc, 0);
        waits_end(d, next, ts, (int)pc);
        BUG_ON(next->st != THREAD_RUNNING || !c->known || c->curr != next_tid); /* next runs on pc now */
    }
}

void derive_leave(struct derive *d, struct wtask *t, const struct trace_rec_leave *r)
{
    uint64_t ts = r->h.ts_ns;
    const struct leave_meaning *lm = leave_meaning_of(r->reason);
    enum thread_state st = lm->state;
    /* How its slice ends, if it was on the CPU: a departure (dequeued)
     * ends no slice. The decision that switches a task out as delayed
     * may find every task left on the queue delayed, and dequeue them
     * all, it among them: its slice ended 'delayed'. */
    if (lm->switched_out) {
        t->end_state = thread_state_sql_name(st);
        t->end_reason = trace_leave_reason_name(r->reason);
    }
    if (r->reason == TRACE_LEAVE_RELEASE) {
        if (t->bounce_pending) /* bounced before without being seen to run */
            bounce_write(d, t, 0, 0, 0);
        t->bounce_pending = 1;
        t->bounce_ts = ts;
        t->bounce_cpu = r->cpu;
        t->bounce_by = r->by;
    }
    if (lm->keeps_runnable && tstate_queued(t->st))
        return; /* moving between queues: the JOIN that follows says where */
    state_set(d, t, st, ts, r->cpu, 0);
    if (st == THREAD_DEAD) {
        t->end_ts = ts;
        t->has_info = 1;
    }
}

void derive_join(struct derive *d, struct wtask *t, const struct trace_rec_join *r)
{
    if (t->st != THREAD_RUNNING && !tstate_queued(t->st)) {
        state_set(d, t, THREAD_RUNNABLE, r->h.ts_ns, r->cpu, 0);
    } else if (r->reason == TRACE_JOIN_MIGRATE && t->st != THREAD_RUNNING) {
        /* Its runnable interval goes on, on this CPU's queue now: a gap
         * here, not on the CPU it left, makes it unknown. */
        t->st_cpu = r->cpu;
        note(d, t);
    }
}

void derive_wake(struct derive *d, const struct trace_rec_wake *r)
{
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = derive_task(d, r->wakee, ts);
    if (!t)
        return;
    int64_t waker = r->waker == TRACE_TASK_NONE ? 0 : derive_utid(d, r->waker, ts);
    if (t->wake_pending) /* woken twice without running: the first never ran */
        wakeup_write(d, t, 0, 0);
    t->wake_pending = 1;
    t->wake_ts = ts;
    t->waker = waker;
    t->waker_cpu = r->waker_cpu;
    t->wake_cpu = r->target_cpu;
    if (t->st == THREAD_SLEEPING || t->st == THREAD_UNKNOWN || t->st == TS_NONE)
        state_set(d, t, THREAD_RUNNABLE, ts, r->target_cpu, waker);
}

void derive_task_info(struct derive *d, const struct trace_rec_task *r)
{
    uint64_t ts = r->h.ts_ns;
    struct wtask *t = derive_task(d, r->task, ts);
    if (!t)
        return;
    trace_copy_str(t->name, r->name, TRACE_NAME_LEN);
    struct trace_task_class tc;
    trace_task_class_of(r, &tc);
    t->sclass = tc.sclass;
    t->rt_prio = tc.rt_prio;
    t->rt_policy = tc.rt_policy;
    t->class_known = 1;
    t->nice = r->nice;
    t->slice_ns = r->slice_ns;
    t->cpu = r->cpu;
    note(d, t);
    t->idle = !!(r->tflags & TRACE_TF_IDLE);
    t->pinned = !!(r->tflags & TRACE_TF_PINNED);
    t->has_info = 1;
    if (r->h.type == TRACE_REC_TASK_NEW) {
        t->start_ts = ts;
        t->parent_utid = r->parent == TRACE_TASK_NONE ? 0 : derive_utid(d, r->parent, ts);
    } else if (r->h.type == TRACE_REC_TASK_EXIT) {
        t->end_ts = ts;
        state_set(d, t, THREAD_DEAD, ts, -1, 0);
    }
}

void derive_set(struct wtask *t, const struct trace_rec_set *r)
{
    if (t && r->what == TRACE_SET_NICE)
        t->nice = (int)r->new_value;
    if (t && r->what == TRACE_SET_SLICE)
        t->slice_ns = (uint64_t)r->new_value;
    if (t && r->what == TRACE_SET_CLASS) {
        /* new_value is the RT priority, 0 for fair; the name "fair",
         * "fifo" or "rr" says the policy (format.h) */
        bool rt = r->new_value > 0;
        t->class_known = 1;
        t->sclass = rt ? TRACE_CLASS_RT : TRACE_CLASS_FAIR;
        t->rt_prio = rt ? (unsigned)r->new_value : 0;
        t->rt_policy = !rt ? NULL : !strncmp(r->name, "rr", TRACE_SET_NAME_LEN) ? trace_rt_policy_name(TRACE_RT_RR)
                                                                                : trace_rt_policy_name(TRACE_RT_FIFO);
    }
}

void derive_queued(struct derive *d, struct wtask *t, const struct trace_kf_entry *e, unsigned cpu,
                   uint64_t ts)
{
    if (t->st == THREAD_UNKNOWN || t->st == TS_NONE)
        state_set(d, t, (e->kflags & TRACE_KF_DELAYED) ? THREAD_SLEEPING : THREAD_RUNNABLE, ts, (int)cpu, 0);
}

void derive_keyframe_curr(struct derive *d, unsigned ci, int32_t curr, uint64_t ts)
{
    if (d->cpu[ci].known)
        return;
    struct wtask *t = derive_task(d, curr, ts);
    if (t) {
        slice_open(d, ci, curr, ts);
        if (t->st != THREAD_RUNNING)
            state_set(d, t, THREAD_RUNNING, ts, (int)ci, 0);
    }
}

void derive_gap(struct derive *d, unsigned ci, uint64_t from)
{
    BUG_ON(ci >= TRACE_MAX_CPUS || d->gap_cpu != -1); /* one gap at a time, of a CPU (ingest_gap) */
    slice_close(d, ci, from, NULL, "gap");
    /* Every task of this CPU: what it did during the gap is unknown. Once
     * unknown, a task needs nothing from a later gap here until a record
     * says what it does, which puts it on the list again (note()). */
    struct tid_list *l = &d->cpu[ci].gap_list;
    d->gap_cpu = (int)ci; /* what it makes unknown here stays off the list */
    for (size_t i = 0; i < l->n; i++) {
        struct wtask *t = find(d, l->tid[i]);
        if (!t)
            continue; /* exited, and let go */
        t->on_gap_list[ci / 64] &= ~(1ull << (ci % 64));
        if (!t->utid || t->st == THREAD_DEAD)
            continue;
        if (t->st_cpu != (int)ci && t->cpu != (int)ci)
            continue;
        if (t->wake_pending)
            wakeup_write(d, t, 0, 0);
        if (t->bounce_pending)
            bounce_write(d, t, 0, 0, 0);
        if (t->st == TS_NONE || t->st == THREAD_UNKNOWN)
            continue;
        if (t->st_ts > from) {
            /* It changed state during the gap (woken from another CPU):
             * true then, but whether it ran since is unknown. */
            t->st = THREAD_UNKNOWN;
            t->st_cpu = (int)ci;
            t->st_waker = 0;
        } else {
            state_set(d, t, THREAD_UNKNOWN, from, (int)ci, 0);
        }
    }
    l->n = 0;
    d->gap_cpu = -1;
}

void derive_finish(struct derive *d, uint64_t end)
{
    for (unsigned k = 0; k < TRACE_MAX_CPUS; k++)
        slice_close(d, k, end > d->cpu[k].last_ts ? end : d->cpu[k].last_ts, NULL, "trace_end");
    for (size_t i = 0; i < d->nslots; i++) {
        struct wtask *t = d->slots[i].t;
        if (!t || !t->utid)
            continue;
        if (t->wake_pending)
            wakeup_write(d, t, 0, 0);
        if (t->bounce_pending)
            bounce_write(d, t, 0, 0, 0);
        if (t->st != TS_NONE && t->st != THREAD_DEAD)
            state_set(d, t, TS_NONE, end, t->st_cpu, 0);
    }
}

void derive_write_threads(struct derive *d)
{
    sqlite3_stmt *s = d->b->st[S_THREAD];
    for (size_t i = 0; i < d->ndirty; i++) {
        struct wtask *t = find(d, d->dirty[i]);
        BUG_ON(!t || !t->dirty || !t->utid); /* a dirty task is never let go (let_go_of_one) */
        B_INT(s, 1, t->utid);
        B_INT(s, 2, d->b->trace_id);
        B_INT(s, 3, t->tid);
        B_TXT(s, 4, t->has_info ? t->name : NULL);
        B_OPT(s, 5, t->has_info, t->nice);
        B_OPT(s, 6, t->has_info, t->slice_ns);
        B_OPT(s, 7, t->cpu >= 0, t->cpu);
        B_INT(s, 8, t->idle);
        B_OPT(s, 9, t->has_info, t->pinned);
        B_OPT(s, 10, t->parent_utid > 0, t->parent_utid);
        B_INT(s, 11, t->start_ts);
        B_OPT(s, 12, t->end_ts, t->end_ts);
        B_TXT(s, 13, t->class_known ? trace_class_name(t->sclass) : NULL);
        B_OPT(s, 14, t->class_known, t->rt_prio);
        B_TXT(s, 15, t->rt_policy);
        run(d->b, s, "thread");
        t->dirty = 0;
    }
    d->ndirty = 0;
    /* Their rows are written now: the deaths that waited may go. */
    for (size_t i = 0; i < d->dead_owing.n; i++)
        tids_push(d, &d->dead, d->dead_owing.tid[i]);
    d->dead_owing.n = 0;
}

void derive_init(struct derive *d, struct db_batch *b)
{
    memset(d, 0, sizeof *d);
    d->b = b;
    d->gap_cpu = -1;
}

void derive_free(struct derive *d)
{
    for (size_t i = 0; i < d->nslots; i++)
        free(d->slots[i].t);
    free(d->slots);
    free(d->dead.tid);
    free(d->dead_owing.tid);
    for (unsigned k = 0; k < TRACE_DEC_NCPU; k++)
        free(d->cpu[k].gap_list.tid);
    free(d->dirty);
}
