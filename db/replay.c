/*
 * Replay: events of one trace in the kernel's order, and the trace state
 * (db/tstate.h) at any point of them. The contract is in replay.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "db/replay.h"

/* A checkpoint at least every RP_CKPT events: a seek applies fewer. */
#define RP_CKPT 2048

/* EEVDF's base slice for ncpus, as kernel/sched/eevdf.c computes it (db/
 * may not include the policy). */
static int64_t base_slice_ns(int ncpus)
{
    int n = ncpus < 8 ? ncpus : 8, lg = 0;
    while (n > 1) {
        n >>= 1;
        lg++;
    }
    return 700000LL * (1 + lg);
}

/* A state every ckpt_every events, built by replaying the trace once. 0,
 * or -1 out of memory (the checkpoints made so far are rp's, for
 * replay_free). A checkpoint holds every task's record, so with many
 * tasks they are further apart: their memory stays within a quarter of
 * a task record an event, and a seek applies at most ckpt_every. */
static int build_checkpoints(struct replay *rp)
{
    const struct events *tr = &rp->tr;
    rp->ckpt_every = RP_CKPT;
    if (rp->ids.n > RP_CKPT / 4)
        rp->ckpt_every = 4 * rp->ids.n;
    int n = tr->nev / rp->ckpt_every + 1;
    rp->ckpt = calloc((size_t)n, sizeof *rp->ckpt);
    if (!rp->ckpt)
        return -1;
    struct rp_state s;
    if (replay_state_init(rp, &s) != 0) {
        replay_state_free(&s);
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < n; k++) {
        while (s.pos < k * rp->ckpt_every)
            replay_apply(rp, &s, &tr->ev[s.pos]);
        if (replay_state_init(rp, &rp->ckpt[k]) != 0) {
            replay_state_free(&rp->ckpt[k]);
            rc = -1;
            break;
        }
        rp->nckpt = k + 1;
        rp->ckpt[k].pos = s.pos;
        tstate_copy(&rp->ckpt[k].ts, &s.ts);
    }
    replay_state_free(&s);
    return rc;
}

/* Every task an event can put on a queue or on a CPU: the trace's
 * threads, then any other utid the events name (a database's thread
 * table may lack one). 0, or -1 out of memory. */
static int register_tasks(struct replay *rp)
{
    const struct events *tr = &rp->tr;
    for (int i = 0; i < tr->nth; i++)
        if (tr->th[i].utid > 0 && tstate_ids_add(&rp->ids, tr->th[i].utid, tr->th[i].is_idle) < 0)
            return -1;
    for (int i = 0; i < tr->nev; i++) {
        const struct event *e = &tr->ev[i];
        int64_t u = e->kind == EVENT_JOIN ? e->join.utid
                    : e->kind == EVENT_LEAVE ? e->leave.utid
                    : e->kind == EVENT_PICK  ? e->pick.next
                                             : 0;
        if (u > 0 && tstate_ids_add(&rp->ids, u, false) < 0)
            return -1;
        for (int k = 0; e->kind == EVENT_KEYFRAME && k < e->keyframe.n; k++)
            if (tr->kf[e->keyframe.first + k].utid > 0 &&
                tstate_ids_add(&rp->ids, tr->kf[e->keyframe.first + k].utid, false) < 0)
                return -1;
    }
    return 0;
}

int replay_load(struct replay *rp, sqlite3 *db, int64_t trace_id, char *err, size_t errlen)
{
    memset(rp, 0, sizeof *rp);
    if (events_load(&rp->tr, db, trace_id, err, errlen) != 0) {
        events_free(&rp->tr);
        return -1;
    }
    for (int i = 0; i < rp->tr.nev && !rp->has_numbers; i++)
        rp->has_numbers = rp->tr.ev[i].has_v || rp->tr.ev[i].has_eevdf;
    for (int i = 0; i < rp->tr.nkf && !rp->has_numbers; i++)
        rp->has_numbers = rp->tr.kf[i].has_eevdf;
    if (register_tasks(rp) != 0 || build_checkpoints(rp) != 0) {
        replay_free(rp);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void replay_free(struct replay *rp)
{
    for (int k = 0; k < rp->nckpt; k++)
        replay_state_free(&rp->ckpt[k]);
    free(rp->ckpt);
    tstate_ids_free(&rp->ids);
    events_free(&rp->tr);
    memset(rp, 0, sizeof *rp);
}

int replay_state_init(const struct replay *rp, struct rp_state *s)
{
    s->pos = 0;
    if (tstate_init(&s->ts, &rp->ids, rp->tr.ncpus, TSTATE_IN_ORDER) != 0)
        return -1;
    s->ts.eevdf = rp->tr.eevdf;
    s->ts.counts = event_engine_counts(rp->tr.engine);
    s->ts.has_numbers = rp->has_numbers;
    s->ts.base_slice_ns = base_slice_ns(rp->tr.ncpus);
    return 0;
}

void replay_state_free(struct rp_state *s)
{
    tstate_free(&s->ts);
}

void replay_apply(const struct replay *rp, struct rp_state *s, const struct event *e)
{
    BUG_ON(s->pos < 0 || s->pos >= rp->tr.nev || e != &rp->tr.ev[s->pos]); /* replay.h: s->pos is e's index */
    s->pos++;
    if (e->cpu < 0 || e->cpu >= rp->tr.ncpus)
        return;
    switch (e->kind) {
    case EVENT_KEYFRAME:
        BUG_ON(e->keyframe.first < 0 || e->keyframe.n < 0 || e->keyframe.first + e->keyframe.n > rp->tr.nkf);
        for (int k = 0; k < e->keyframe.n; k++)
            tstate_apply(&s->ts, e, &rp->tr.kf[e->keyframe.first + k]);
        break;
    case EVENT_JOIN:
    case EVENT_LEAVE:
    case EVENT_PICK:
    case EVENT_TICK:
        tstate_apply(&s->ts, e, NULL);
        break;
    default: /* WAKE, SET, MARK: nothing on the queue moves */
        return;
    }
    tstate_settle(&s->ts, e->cpu);
}

void replay_seek(const struct replay *rp, struct rp_state *s, int pos)
{
    if (pos < 0)
        pos = 0;
    if (pos > rp->tr.nev)
        pos = rp->tr.nev;
    int k = pos / rp->ckpt_every;
    if (k >= rp->nckpt)
        k = rp->nckpt - 1;
    BUG_ON(k < 0 || rp->ckpt[k].pos > pos); /* replay_load made the first at 0; none is past pos */
    if (pos < s->pos || rp->ckpt[k].pos > s->pos) {
        s->pos = rp->ckpt[k].pos;
        tstate_copy(&s->ts, &rp->ckpt[k].ts);
    }
    while (s->pos < pos)
        replay_apply(rp, s, &rp->tr.ev[s->pos]);
}

const char *replay_name(const struct replay *rp, int utid)
{
    static char buf[8][40];
    static int k;
    char *b = buf[k++ % 8];
    const struct event_thread *t = events_thread(&rp->tr, utid);
    if (!utid)
        snprintf(b, sizeof buf[0], "-");
    else if (!t)
        snprintf(b, sizeof buf[0], "utid%d", utid);
    else
        snprintf(b, sizeof buf[0], "%s/%d", t->name, t->tid);
    return b;
}

/* Virtual or real ns as µs with 3 decimals, signed. */
static const char *us3(int64_t ns, char *b, size_t n)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    snprintf(b, n, "%s%llu.%03llu", sign, (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
    return b;
}

void replay_describe(const struct replay *rp, int i, char *buf, size_t len)
{
    BUG_ON(i < 0 || i >= rp->tr.nev); /* an event of the trace: step's callers check */
    const struct event *e = &rp->tr.ev[i];
    char t[32], a[32], b[32], c[32];
    bool ee = e->has_v && e->has_eevdf;
    int64_t since;
    if (rp_ts_sub(e->ts, rp->tr.start_ts, &since))
        us3(since, t, sizeof t);
    else
        snprintf(t, sizeof t, "?"); /* a ts too far from the start to subtract: the file's, not a time */
    int n = snprintf(buf, len, "#%d t=%sus cpu%d %-5s ", i, t, e->cpu, event_kind_name(e->kind));
    if (n < 0 || (size_t)n >= len)
        return;
    buf += n;
    len -= (size_t)n;
    switch (e->kind) {
    case EVENT_PICK:
        if (e->pick.next == e->pick.prev)
            n = snprintf(buf, len, "%s keeps the CPU (%s)", replay_name(rp, e->pick.next), trace_why_name(e->pick.why));
        else
            n = snprintf(buf, len, "%s -> %s (%s)", replay_name(rp, e->pick.prev), replay_name(rp, e->pick.next),
                         trace_why_name(e->pick.why));
        if (ee && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " V=%s lag=%s dl=%s", us3(e->v, a, sizeof a),
                     us3(e->pick.lag, b, sizeof b), us3(e->pick.deadline, c, sizeof c));
        break;
    case EVENT_JOIN:
        n = snprintf(buf, len, "%s joins (%s)", replay_name(rp, e->join.utid), trace_join_reason_name(e->join.reason));
        if (ee && n > 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, " lag %s -> %s, V=%s", us3(e->join.lag_before, a, sizeof a),
                          us3(e->join.lag_after, b, sizeof b), us3(e->v, c, sizeof c));
        if (e->join.has_check && e->join.reason != TRACE_JOIN_NEW && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, "; check: %s", trace_join_check_name(e->join.check));
        break;
    case EVENT_LEAVE:
        n = snprintf(buf, len, "%s leaves (%s) after %sus", replay_name(rp, e->leave.utid),
                     trace_leave_reason_name(e->leave.reason), us3(e->leave.run_ns, a, sizeof a));
        if (ee && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " with lag %s", us3(e->leave.lag, b, sizeof b));
        break;
    case EVENT_WAKE:
        n = snprintf(buf, len, "%s woken by %s", replay_name(rp, e->wake.utid),
                     e->wake.waker ? replay_name(rp, e->wake.waker) : "a timer or interrupt");
        if (e->wake.latency >= 0 && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, "; runs %sus later", us3(e->wake.latency, a, sizeof a));
        break;
    case EVENT_TICK:
        snprintf(buf, len, "tick, %s on the CPU, %d runnable", replay_name(rp, e->tick.utid), e->tick.nr_runnable);
        break;
    case EVENT_KEYFRAME:
        snprintf(buf, len, "keyframe: %d on the queue", e->keyframe.n);
        break;
    case EVENT_SET:
        snprintf(buf, len, "set %s %s %s: %lld -> %lld", trace_set_what_name(e->set.what),
                 e->set.name ? e->set.name : "", e->set.utid ? replay_name(rp, e->set.utid) : "",
                 (long long)e->set.old_value, (long long)e->set.new_value);
        break;
    case EVENT_MARK:
        snprintf(buf, len, "mark \"%s\"", e->mark.name ? e->mark.name : "");
        break;
    default:
        break;
    }
}
