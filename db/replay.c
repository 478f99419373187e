/*
 * Replay: events of one trace in time order, and the run queues rebuilt from
 * keyframes and events. The contract is in replay.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/replay.h"
#include "db/vtime.h"

#define RP_CKPT 2048

/* A state every RP_CKPT events, built by replaying the trace once. 0, or
 * -1 out of memory (the checkpoints made so far are rp's, for
 * replay_free). */
static int build_checkpoints(struct replay *rp)
{
    const struct events *tr = &rp->tr;
    int n = tr->nev / RP_CKPT + 1;
    rp->ckpt = calloc((size_t)n, sizeof *rp->ckpt);
    if (!rp->ckpt)
        return -1;
    struct rp_state s;
    if (replay_state_init(rp, &s) != 0)
        return -1;
    int rc = 0;
    for (int k = 0; k < n; k++) {
        while (s.pos < k * RP_CKPT)
            replay_apply(rp, &s, &tr->ev[s.pos]);
        if (replay_state_init(rp, &rp->ckpt[k]) != 0) {
            rc = -1;
            break;
        }
        rp->nckpt = k + 1;
        rp->ckpt[k].pos = s.pos;
        rp->ckpt[k].seq = s.seq;
        memcpy(rp->ckpt[k].cpu, s.cpu, (size_t)tr->ncpus * sizeof *s.cpu);
    }
    replay_state_free(&s);
    return rc;
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
    if (build_checkpoints(rp) != 0) {
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
    events_free(&rp->tr);
    memset(rp, 0, sizeof *rp);
}

int replay_state_init(const struct replay *rp, struct rp_state *s)
{
    s->pos = 0;
    s->seq = 0;
    s->cpu = calloc((size_t)rp->tr.ncpus, sizeof *s->cpu);
    return s->cpu ? 0 : -1;
}

void replay_state_free(struct rp_state *s)
{
    free(s->cpu);
    s->cpu = NULL;
}

static struct rp_ent *find_ent(struct rp_cpu *c, int utid)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].utid == utid)
            return &c->e[i];
    return NULL;
}

static void drop_ent(struct rp_cpu *c, int utid)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].utid == utid) {
            c->e[i] = c->e[--c->n];
            return;
        }
}

static struct rp_ent *add_ent(struct rp_cpu *c, int utid)
{
    struct rp_ent *x = find_ent(c, utid);
    if (x)
        return x;
    if (c->n == RP_MAX_ENT)
        return NULL;
    x = &c->e[c->n++];
    memset(x, 0, sizeof *x);
    x->utid = utid;
    x->weight = 1024;
    x->weight_known = true;
    return x;
}

static bool is_idle(const struct replay *rp, int utid)
{
    const struct event_thread *t = events_thread(&rp->tr, utid);
    return t && t->is_idle;
}

/* Removes a task from every other CPU's queue (it migrated). */
static void claim(const struct replay *rp, struct rp_state *s, int cpu, int utid)
{
    for (int k = 0; k < rp->tr.ncpus; k++)
        if (k != cpu && find_ent(&s->cpu[k], utid)) {
            drop_ent(&s->cpu[k], utid);
            if (s->cpu[k].curr == utid)
                s->cpu[k].curr = 0;
        }
}

/* EEVDF's base slice for ncpus, as kernel/sched/eevdf.c computes it. */
static int64_t base_slice_ns(int ncpus)
{
    int n = ncpus < 8 ? ncpus : 8, lg = 0;
    while (n > 1) {
        n >>= 1;
        lg++;
    }
    return 700000LL * (1 + lg);
}

/*
 * The records do not carry current's vruntime between its events, nor a
 * deadline renewed while it ran, but both follow from what is known:
 * V = sum(w*v) / sum(w) over the queue, current included, and every other
 * vruntime on the queue is exact, so current's is V*W minus the others',
 * over its weight. A deadline behind its vruntime was renewed, a slice at
 * a time.
 */
static void fix_current(const struct replay *rp, struct rp_cpu *c)
{
    if (!rp->tr.eevdf || !c->has_v)
        return;
    __int128 sumw = 0, sumwv = 0;
    struct rp_ent *cur = NULL;
    bool others_known = true; /* the sum needs every other vruntime */
    for (int i = 0; i < c->n; i++) {
        struct rp_ent *x = &c->e[i];
        sumw += x->weight;
        if (x->current && !cur)
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
    for (int i = 0; i < c->n; i++) {
        struct rp_ent *x = &c->e[i];
        if (!x->has_vruntime || !x->has_deadline)
            continue;
        int64_t slice = x->slice_ns ? x->slice_ns : base_slice_ns(rp->tr.ncpus);
        __int128 sv = x->weight > 0 ? (__int128)slice * 1024 / x->weight : slice;
        if (sv <= 0 || sv > INT64_MAX || !vt_before(x->deadline, x->vruntime))
            continue;
        /* whole slices until it is ahead again, modulo 2^64 as the times are */
        uint64_t behind = (uint64_t)vt_sub(x->vruntime, x->deadline);
        x->deadline = vt_add(x->deadline, (int64_t)((behind / (uint64_t)sv + 1) * (uint64_t)sv));
        x->dl_estimated = true;
    }
}

/* The event's V, when it carries one, is the CPU's newest. */
static void take_v(struct rp_cpu *c, const struct event *e)
{
    if (e->has_v) {
        c->v = e->v;
        c->has_v = true;
    }
}

/* KEYFRAME: the CPU's whole queue, replacing what was rebuilt. */
static void apply_keyframe(const struct replay *rp, struct rp_state *s, struct rp_cpu *c, const struct event *e)
{
    c->n = 0;
    c->known = true;
    c->has_v = e->has_v;
    c->v = e->v;
    c->curr = 0;
    for (int i = 0; i < e->keyframe.n; i++) {
        const struct event_kf_entry *k = &rp->tr.kf[e->keyframe.first + i];
        if (k->current)
            c->curr = k->utid;
        if (is_idle(rp, k->utid) && k->current && !rp->tr.eevdf)
            continue;
        struct rp_ent *x = add_ent(c, k->utid);
        if (!x)
            return;
        x->current = k->current;
        x->delayed = k->delayed;
        x->vruntime = k->vruntime;
        x->deadline = k->deadline;
        x->has_vruntime = x->has_deadline = k->has_eevdf;
        x->dl_estimated = false;
        x->weight = k->weight;
        x->weight_known = k->has_weight;
        x->slice_ns = k->slice_ns;
        x->seq = ++s->seq;
    }
}

/* JOIN: the task is placed on this CPU's queue (and so off any other's). */
static void apply_join(const struct replay *rp, struct rp_state *s, struct rp_cpu *c, const struct event *e)
{
    claim(rp, s, e->cpu, e->join.utid);
    struct rp_ent *x = add_ent(c, e->join.utid);
    if (!x)
        return;
    if (!x->current && !x->delayed)
        x->seq = ++s->seq; /* tail of the list */
    x->delayed = false;
    x->vruntime = e->join.vruntime;
    x->deadline = e->join.deadline;
    x->has_vruntime = x->has_deadline = e->has_eevdf;
    x->dl_estimated = false;
    x->weight = e->join.weight ? e->join.weight : 1024;
    x->weight_known = true;
    x->slice_ns = e->join.slice_ns;
    take_v(c, e);
}

/* A LEAVE's numbers for a task that stays queued: its vruntime, and its
 * deadline, which the stint may have renewed. Without them (rr, Linux
 * from tracefs) neither is known any more. */
static void leave_numbers(struct rp_ent *x, const struct event *e)
{
    x->vruntime = e->leave.vruntime;
    x->has_vruntime = e->has_eevdf;
    if (e->has_eevdf && e->leave.has_deadline)
        x->deadline = e->leave.deadline;
    else if (!e->has_eevdf)
        x->has_deadline = false;
}

/* LEAVE: where the task goes is its reason's leave_meaning (db/events.c). */
static void apply_leave(struct rp_state *s, struct rp_cpu *c, const struct event *e)
{
    take_v(c, e);
    if (c->curr == e->leave.utid)
        c->curr = 0;
    struct rp_ent *x = find_ent(c, e->leave.utid);
    enum leave_queue q = leave_meaning_of(e->leave.reason)->queue;
    if (q == LEAVE_TO_TAIL) {
        x = x ? x : add_ent(c, e->leave.utid);
        if (x) {
            x->current = false;
            leave_numbers(x, e);
            x->seq = ++s->seq; /* rr: the displaced task goes to the tail */
        }
    } else if (q == LEAVE_STAYS_DELAYED) {
        if (x) {
            x->current = false;
            x->delayed = true;
            leave_numbers(x, e);
        }
    } else {
        drop_ent(c, e->leave.utid);
    }
}

/* PICK: next becomes current, with the vruntime and deadline of the pick. */
static void apply_pick(const struct replay *rp, struct rp_state *s, struct rp_cpu *c, const struct event *e)
{
    int next = e->pick.next;
    take_v(c, e);
    c->known = true;
    for (int i = 0; i < c->n; i++)
        if (c->e[i].current && c->e[i].utid != next)
            c->e[i].current = false; /* prev was put back without a LEAVE */
    c->curr = next;
    if (is_idle(rp, next) && !find_ent(c, next))
        return;
    claim(rp, s, e->cpu, next);
    bool known_before = find_ent(c, next) != NULL;
    struct rp_ent *x = add_ent(c, next);
    if (!x)
        return;
    /* On a trace that carries numbers (a Linux trace the BPF recorder
     * made), a pick without them of a task no record has shown is a thread
     * outside the recorded queue ("other"): its weight is not known. */
    if (!known_before && rp->has_numbers && !(e->has_v && e->has_eevdf))
        x->weight_known = false;
    x->current = true;
    x->delayed = false;
    x->slice_ns = e->pick.slice_ns;
    if (e->has_v && e->has_eevdf) {
        x->vruntime = e->pick.vruntime;
        x->deadline = e->pick.deadline;
        x->has_vruntime = x->has_deadline = true;
        x->dl_estimated = false;
    }
}

void replay_apply(const struct replay *rp, struct rp_state *s, const struct event *e)
{
    s->pos++;
    if (e->cpu < 0 || e->cpu >= rp->tr.ncpus)
        return;
    struct rp_cpu *c = &s->cpu[e->cpu];
    switch (e->kind) {
    case EVENT_KEYFRAME:
        apply_keyframe(rp, s, c, e);
        break;
    case EVENT_JOIN:
        apply_join(rp, s, c, e);
        break;
    case EVENT_LEAVE:
        apply_leave(s, c, e);
        break;
    case EVENT_PICK:
        apply_pick(rp, s, c, e);
        break;
    case EVENT_TICK:
        take_v(c, e);
        break;
    default: /* WAKE, SET, MARK: nothing on the queue moves */
        return;
    }
    fix_current(rp, c);
}

void replay_seek(const struct replay *rp, struct rp_state *s, int pos)
{
    if (pos < 0)
        pos = 0;
    if (pos > rp->tr.nev)
        pos = rp->tr.nev;
    int k = pos / RP_CKPT;
    if (k >= rp->nckpt)
        k = rp->nckpt - 1;
    if (pos < s->pos || rp->ckpt[k].pos > s->pos) {
        s->pos = rp->ckpt[k].pos;
        s->seq = rp->ckpt[k].seq;
        memcpy(s->cpu, rp->ckpt[k].cpu, (size_t)rp->tr.ncpus * sizeof *s->cpu);
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

static int ent_cmp_eevdf(const void *a, const void *b)
{
    const struct rp_ent *x = a, *y = b;
    if (x->has_deadline != y->has_deadline)
        return x->has_deadline ? -1 : 1;
    if (x->has_deadline && x->deadline != y->deadline)
        return vt_before(x->deadline, y->deadline) ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ent_cmp_rr(const void *a, const void *b)
{
    const struct rp_ent *x = a, *y = b;
    if (x->current != y->current)
        return x->current ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int replay_queue_sorted(const struct replay *rp, const struct rp_cpu *c, struct rp_ent *out)
{
    int n = 0;
    /* out holds RP_MAX_ENT; c->n never exceeds it (add_ent), but bound the
     * loop by both so a state built wrong cannot write past out. */
    for (int i = 0; i < c->n && i < RP_MAX_ENT; i++) {
        if (is_idle(rp, c->e[i].utid) && !c->e[i].current)
            continue;
        out[n++] = c->e[i];
    }
    qsort(out, (size_t)n, sizeof *out, rp->tr.eevdf ? ent_cmp_eevdf : ent_cmp_rr);
    return n;
}
