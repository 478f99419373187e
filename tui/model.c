/*
 * The `runq top` model (contract and data sources in model.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bug.h"
#include "db/events.h"
#include "db/qx_top.h"
#include "db/tstate.h"
#include "db/vtime.h"
#include "eevdf.h"
#include "tui/model.h"
#include "weights.h"

#define LIVE_HISTORY_NS 2000000000ull
#define NSAMPLES 128

/* One CPU's readings in a sample: its busy time, switches, and moves
 * in and out. */
struct sample_cpu {
    uint64_t busy, sw, min, mout;
};

struct sample {
    uint64_t t, events;
    size_t ntask, ncpu;
    uint64_t *run;          /* each task's run time */
    struct sample_cpu *cpu; /* each CPU's readings */
};

struct top_model {
    struct dbq_top *rd; /* the database, read through db/qx_top.h */
    const char *path; /* for messages, during top_model_open only */
    struct top_snapshot s;
    size_t task_cap;
    /* Who is where: each task's state, place and numbers, each CPU's V,
     * count and task, by db/tstate.h's rules. Rows come table by table
     * (TSTATE_ANY_ORDER). Task i of s.tasks is the state's task i. */
    struct tstate_ids ids;
    struct tstate ts;

    uint64_t events;
    bool started;

    /* timeline ring */
    uint64_t map_ts[TOP_MAP_ROWS];
    int map_cpu[TOP_MAP_ROWS];
    int *map_curr; /* TOP_MAP_ROWS x TOP_MAX_CPUS */
    size_t map_head, map_n;
    unsigned ncodes;

    struct sample smp[NSAMPLES];
    size_t smp_head, smp_n;

    /* Memory that ran out since the open or the update began ("" none),
     * when no read had failed before it (the reader keeps those: fault()). */
    char fault[256];
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

/* The first failure since the open or the update began ("" none): the
 * read that failed (the reader's fault, "reading TABLE: reason") or the
 * memory that ran out, whichever came first. top_model_open and
 * top_model_update fail with it: a read that stops at a damaged page
 * looks like one that reached the end, and runq top showed the trace up
 * to it and said nothing. */
static const char *fault(const struct top_model *m)
{
    return m->fault[0] ? m->fault : m->rd ? dbq_top_fault(m->rd) : "";
}

const char *top_state_name(enum thread_state s)
{
    static const char *const n[THREAD_NSTATES] = { "?", "run", "R", "R+", "S", "D", "X" };
    return s < THREAD_NSTATES ? n[s] : "?";
}

/* ---- latency histogram ---- */

unsigned top_lat_slot(uint64_t ns)
{
    if (ns < 8)
        return (unsigned)ns;
    unsigned b = 63u - (unsigned)__builtin_clzll(ns);
    if (b > TOP_LAT_MAX_LOG2)
        return TOP_LAT_SLOTS - 1;
    unsigned sub = (unsigned)(ns >> (b - TOP_LAT_SUB_BITS)) & 7u;
    unsigned slot = (b - 2) * 8 + sub;
    return slot < TOP_LAT_SLOTS ? slot : TOP_LAT_SLOTS - 1;
}

uint64_t top_lat_slot_value(unsigned slot)
{
    if (slot < 8)
        return slot;
    unsigned b = slot / 8 + 2, sub = slot % 8;
    uint64_t low = (uint64_t)(8 + sub) << (b - 3), width = 1ull << (b - 3);
    return low + width / 2;
}

uint64_t top_lat_percentile(const uint32_t *hist, uint64_t n, double p)
{
    if (!n)
        return 0;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    uint64_t seen = 0;
    for (unsigned s = 0; s < TOP_LAT_SLOTS; s++) {
        seen += hist[s];
        if (seen >= rank)
            return top_lat_slot_value(s);
    }
    return top_lat_slot_value(TOP_LAT_SLOTS - 1);
}

void top_lat_log2(const uint32_t *hist, uint64_t out[TOP_LAT_LOG2])
{
    memset(out, 0, sizeof(uint64_t) * TOP_LAT_LOG2);
    for (unsigned s = 0; s < TOP_LAT_SLOTS; s++) {
        unsigned k = s < 2 ? 0 : s < 4 ? 1 : s < 8 ? 2 : s / 8 + 2;
        if (k >= TOP_LAT_LOG2)
            k = TOP_LAT_LOG2 - 1;
        out[k] += hist[s];
    }
}

/* ---- tasks ---- */

int top_model_find(const struct top_model *m, int64_t utid)
{
    int i = tstate_ids_find(&m->ids, utid);
    return i < (int)m->s.ntasks ? i : -1; /* one the state took but the model has no room for: none */
}

/* A task seen the first time (a thread row). NULL out of memory. */
static struct top_task *task_add(struct top_model *m, int64_t utid, bool idle)
{
    if (m->s.ntasks == m->task_cap) {
        size_t ncap = m->task_cap ? m->task_cap * 2 : 64;
        /* Not xrealloc: the model's running out is its fault, shown in
         * the view (m->fault), and its tests link it without host/base. */
        struct top_task *t = realloc(m->s.tasks, ncap * sizeof *t);
        if (!t)
            return NULL;
        m->s.tasks = t;
        m->task_cap = ncap;
    }
    int i = tstate_ids_add(&m->ids, utid, idle);
    if (i < 0 || tstate_sync(&m->ts) != 0)
        return NULL;
    BUG_ON(i != (int)m->s.ntasks); /* the model's tasks and the state's are one list */
    struct top_task *t = &m->s.tasks[m->s.ntasks++];
    memset(t, 0, sizeof *t);
    t->utid = utid;
    t->weight = SCHED_WEIGHT_NICE_0;
    t->move_src = -1;
    t->move_reason = TRACE_MIGRATE_NR;
    return t;
}

static struct top_task *task_of(struct top_model *m, int64_t utid)
{
    int i = top_model_find(m, utid);
    return i < 0 ? NULL : &m->s.tasks[i];
}

static int task_index(const struct top_model *m, const struct top_task *t)
{
    return t ? (int)(t - m->s.tasks) : -1;
}

static struct top_cpu *cpu_of(struct top_model *m, int64_t cpu)
{
    if (cpu < 0 || cpu >= TOP_MAX_CPUS)
        return NULL;
    if (cpu >= m->s.h.ncpus)
        m->s.h.ncpus = (int)cpu + 1;
    return &m->s.cpus[cpu];
}

/* The stint of the CPU's current task ends at ts: its run time, the CPU's
 * busy time and, for a switch, the switch counts. */
static void stint_end(struct top_model *m, struct top_cpu *c, uint64_t ts, bool switched)
{
    struct top_task *t = &m->s.tasks[c->curr];
    uint64_t d = ts > c->curr_since ? ts - c->curr_since : 0;
    t->run_ns += d;
    if (ts > t->slice_end)
        t->slice_end = ts;
    if (!t->is_idle)
        c->busy_ns += d;
    if (!switched)
        return;
    c->switches++;
    t->nout++;
}

/* ---- the timeline ---- */

static void map_push(struct top_model *m, uint64_t ts, int cpu)
{
    size_t slot = (m->map_head + m->map_n) % TOP_MAP_ROWS;
    if (m->map_n == TOP_MAP_ROWS)
        m->map_head = (m->map_head + 1) % TOP_MAP_ROWS;
    else
        m->map_n++;
    m->map_ts[slot] = ts;
    m->map_cpu[slot] = cpu;
    int *row = m->map_curr + slot * TOP_MAX_CPUS;
    for (int c = 0; c < m->s.h.ncpus; c++) {
        int i = m->s.cpus[c].curr;
        row[c] = i >= 0 && !m->s.tasks[i].is_idle ? i : -1;
    }
    int i = m->s.cpus[cpu].curr;
    if (i >= 0 && !m->s.tasks[i].is_idle && !m->s.tasks[i].code[0]) {
        /* perf sched map's codes: A0..Z0, A1..Z1, ... */
        unsigned n = m->ncodes++;
        snprintf(m->s.tasks[i].code, sizeof m->s.tasks[i].code, "%c%u", 'A' + n % 26, (n / 26) % 100);
    }
}

struct top_map_row top_model_map_row(const struct top_model *m, size_t i)
{
    BUG_ON(i >= m->map_n); /* the caller's contract: i < s.nmap */
    size_t slot = (m->map_head + i) % TOP_MAP_ROWS;
    return (struct top_map_row){ m->map_ts[slot], m->map_cpu[slot], m->map_curr + slot * TOP_MAX_CPUS };
}

/* ---- reading the tables ---- */

/* Task index i is on the CPU from ts: the stint of the one before it ends
 * there. Returns whether the CPU's task changed. */
static bool cpu_switch_to(struct top_model *m, struct top_cpu *c, int i, uint64_t ts)
{
    if (c->curr == i)
        return false;
    if (c->curr >= 0)
        stint_end(m, c, ts, true);
    c->curr = i;
    c->curr_since = ts;
    return true;
}

/* A TICK with V: into the CPU's ticks, which charge_at_ticks replays.
 * Ticks come in time order (one table, read by ts): keep the newest. */
static void tick_keep(struct top_cpu *c, const struct event *e, uint64_t ts)
{
    unsigned at = (c->tick_first + c->nticks) % TOP_TICKS;
    if (c->nticks == TOP_TICKS)
        c->tick_first = (c->tick_first + 1) % TOP_TICKS;
    else
        c->nticks++;
    c->ticks[at] = (struct top_tick){ ts, e->v, e->tick.nr_runnable };
}

/*
 * A KEYFRAME row (kf), a JOIN, LEAVE, PICK or TICK: into the trace state
 * (db/tstate.h has what each does to the queue and the tasks), then what
 * the view counts of it. The CPU's stint is the task the newest pick or
 * keyframe named: when that changes, the stint of the one before ends
 * (a LEAVE does not end it: a task that blocks, is woken and picked again
 * at once switched nothing, as Linux and the kernel count it), and a
 * pick's change adds a timeline row.
 */
static void on_sched(struct top_model *m, const struct event *e, const struct event_kf_entry *kf, uint64_t ts)
{
    struct top_cpu *c = cpu_of(m, e->cpu);
    if (!c)
        return;
    const struct tstate_cpu *sc = &m->ts.cpu[c->cpu];
    int64_t named = sc->named;
    tstate_apply(&m->ts, e, kf);
    if (sc->named != named && cpu_switch_to(m, c, top_model_find(m, sc->named), ts) && e->kind == EVENT_PICK)
        map_push(m, ts, c->cpu);
    if (e->kind == EVENT_TICK && e->has_v)
        tick_keep(c, e, ts);
    if (e->kind != EVENT_LEAVE)
        return;
    /* An involuntary leave (preempted) always ends a stint: the kernel
     * never picks a task it displaced in the same decision. A voluntary
     * one need not: a task that blocks, is woken and picked again at
     * once (next == prev) switched nothing, as Linux and the kernel count
     * it. So VOL is the rest of the task's switches out, which the picks
     * count (nout), and the count needs no order between the tables. */
    int i = top_model_find(m, e->leave.utid);
    if (i < 0)
        return;
    struct top_task *t = &m->s.tasks[i];
    const struct leave_meaning *lm = leave_meaning_of(e->leave.reason);
    if (lm->switched_out && lm->involuntary)
        t->invol++;
    if (m->ts.task[i].state == THREAD_DEAD && !t->end_ts)
        t->end_ts = ts;
}

/* A latency into histogram *hist of n values (allocated at the first),
 * with its maximum. */
static void lat_add(struct top_model *m, uint32_t **hist, uint64_t *n, uint64_t *max, bool *dirty, uint64_t lat)
{
    if (!*hist && !(*hist = calloc(TOP_LAT_SLOTS, sizeof **hist))) {
        if (!fault(m)[0])
            snprintf(m->fault, sizeof m->fault, "out of memory");
        return;
    }
    (*hist)[top_lat_slot(lat)]++;
    (*n)++;
    *dirty = true;
    if (lat > *max)
        *max = lat;
}

/* A bounce row: into the task's bounce histogram, once the task has
 * run. */
static void on_bounce(struct top_model *m, const struct dbq_top_row *r)
{
    if (!r->ran)
        return; /* not seen to run (yet) */
    struct top_task *t = task_of(m, r->utid);
    if (t)
        lat_add(m, &t->bnc_hist, &t->bnc_n, &t->bnc_max, &t->bnc_dirty, r->latency);
}

bool top_knob(const struct top_header *h, const char *name, int64_t *value)
{
    for (int k = 0; k < h->nknobs; k++)
        if (!strcmp(h->knob[k], name)) {
            *value = h->knob_value[k];
            return true;
        }
    return false;
}

/* Knob `name` is v now (a new name is added while there is room). */
static void knob_set(struct top_header *h, const char *name, int64_t v)
{
    int k = 0;
    while (k < h->nknobs && strcmp(h->knob[k], name))
        k++;
    if (k == h->nknobs) {
        if (k == TOP_MAX_KNOBS)
            return;
        snprintf(h->knob[k], sizeof h->knob[k], "%s", name);
        h->nknobs++;
    }
    h->knob_value[k] = v;
}

/* WAKE: its latency into the task's histogram, once the task has run. */
static void on_wake(struct top_model *m, const struct event *e)
{
    struct top_task *t = task_of(m, e->wake.utid);
    if (!t || e->wake.latency < 0) /* it has not run (yet) */
        return;
    lat_add(m, &t->lat_hist, &t->lat_n, &t->lat_max, &t->lat_dirty, (uint64_t)e->wake.latency);
}

/* SET: a task's nice or slice, or the trace's tick rate, policy, a
 * feature switch or a knob. */
static void on_set(struct top_model *m, const struct event *e, uint64_t ts)
{
    enum trace_set_what what = e->set.what;
    const char *name = e->set.name;
    int64_t nv = e->set.new_value;
    struct top_header *h = &m->s.h;
    if (what == TRACE_SET_NR)
        return;
    struct top_task *t = task_of(m, e->set.utid);
    if (t && what == TRACE_SET_NICE && ts >= t->set_ts)
        t->nice = (int)nv;
    else if (t && what == TRACE_SET_SLICE && ts >= t->set_ts)
        t->slice_ns = nv;
    else if (what == TRACE_SET_HZ)
        h->tick_hz = (int)nv;
    else if (what == TRACE_SET_POLICY && name) {
        snprintf(h->policy, sizeof h->policy, "%s", name);
        h->eevdf = m->ts.eevdf = !strcmp(name, "eevdf");
    } else if (what == TRACE_SET_FEATURE && name) {
        for (int f = 0; f < h->nfeatures; f++)
            if (!strcmp(h->feature[f], name))
                h->features = nv ? h->features | (1u << f) : h->features & ~(1u << f);
    } else if (what == TRACE_SET_KNOB && name) {
        knob_set(h, name, nv);
    }
    if (t)
        t->set_ts = ts;
}

static void on_mark(struct top_model *m, const struct event *e)
{
    snprintf(m->s.h.last_mark, sizeof m->s.h.last_mark, "%s", e->mark.name ? e->mark.name : "");
}

/* One event (a keyframe's entry kf for a KEYFRAME row) applied. */
static void on_event(struct top_model *m, const struct event *e, const struct event_kf_entry *kf)
{
    uint64_t ts = (uint64_t)e->ts;
    switch (e->kind) {
    case EVENT_KEYFRAME:
    case EVENT_JOIN:
    case EVENT_LEAVE:
    case EVENT_PICK:
    case EVENT_TICK:
        on_sched(m, e, kf, ts);
        return;
    case EVENT_WAKE:
        on_wake(m, e);
        return;
    case EVENT_SET:
        on_set(m, e, ts);
        return;
    case EVENT_MARK:
        on_mark(m, e);
        return;
    case EVENT_NKINDS:
        return;
    }
}

/* A data_gap row (cpu, ts_start). As the recorder's sched_slice: the
 * CPU's stint ends at its last record before the gap, neither voluntary
 * nor not, and who runs is unknown until a pick or keyframe says. */
static void on_gap(struct top_model *m, const struct dbq_top_row *r)
{
    struct top_cpu *c = cpu_of(m, r->cpu);
    if (!c)
        return;
    tstate_gap(&m->ts, c->cpu);
    if (c->curr < 0)
        return;
    stint_end(m, c, r->gap_start, false);
    c->curr = -1;
}

/* A migration row: a move counted on both its CPUs, and the task's
 * newest. Where the task now is the trace state says, from the move's
 * JOIN `migrate` (a place row): this row only says why. A CPU the trace
 * row has not got counts on neither end (the CPUs' rows are the view's). */
static void on_move(struct top_model *m, const struct dbq_top_row *r)
{
    m->s.h.moves_known = true; /* a trace with a move records them */
    if (r->src >= 0 && r->src < m->s.h.ncpus)
        m->s.cpus[r->src].moves_out++;
    if (r->dst >= 0 && r->dst < m->s.h.ncpus)
        m->s.cpus[r->dst].moves_in++;
    struct top_task *t = task_of(m, r->utid);
    if (!t || r->ts < t->move_ts)
        return;
    t->moves++;
    t->move_ts = r->ts;
    t->move_src = r->src >= 0 && r->src < TOP_MAX_CPUS ? (int)r->src : -1;
    t->move_reason = r->reason;
}

/* A row the reader hands (dbq_top_fn), applied. */
static void on_row(const struct dbq_top_row *r, void *arg)
{
    struct top_model *m = arg;
    if (r->table == DBQ_TOP_GAP)
        on_gap(m, r);
    else if (r->table == DBQ_TOP_BOUNCE)
        on_bounce(m, r);
    else if (r->table == DBQ_TOP_MOVE)
        on_move(m, r);
    else
        on_event(m, r->e, r->kf);
}

/* A row read since the last update: applied and counted. */
static void on_new_row(const struct dbq_top_row *r, void *arg)
{
    struct top_model *m = arg;
    m->events++;
    on_row(r, m);
}

/*
 * Consumes every table's new rows up to time t, in the reader's order
 * (db/qx_top.h): the rows of wakeups, places, ticks and leaves only ever
 * make a newer (time, rank) win or add to a count; those of picks,
 * keyframes, settings and marks need order only among themselves (a
 * keyframe names a CPU's current task only where no later pick has),
 * except around a gap, which must cut a CPU's stint between the picks
 * around it.
 */
/* A cost reading (dbq_top_costs) into its CPU's ring. */
static void on_cost(const struct dbq_top_cost *r, void *arg)
{
    struct top_model *m = arg;
    if (r->cpu < 0 || r->cpu >= m->s.h.ncpus)
        return; /* a CPU the trace row does not have: nothing to show it on */
    struct top_cpu *c = &m->s.cpus[r->cpu];
    if (c->ncosts == TOP_COSTS) {
        c->cost_first = (c->cost_first + 1) % TOP_COSTS;
        c->ncosts--;
    }
    c->costs[(c->cost_first + c->ncosts++) % TOP_COSTS] =
        (struct top_cost){ .ts = r->ts, .records = r->records, .timed = r->timed, .timed_ns = r->timed_ns };
}

static int read_tables(struct top_model *m, uint64_t t, char *err, size_t errlen)
{
    bool live = t >= m->s.h.end_ts; /* every row in this snapshot is <= t */
    if (dbq_top_advance(m->rd, t, live, on_new_row, m, err, errlen) != 0 ||
        dbq_top_costs(m->rd, t, on_cost, m, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < m->s.ntasks; i++) {
        struct top_task *tk = &m->s.tasks[i];
        tk->vol = tk->nout > tk->invol ? tk->nout - tk->invol : 0;
    }
    return 0;
}

/* The trace row and the loss counters into the header. */
static void take_trace(const struct dbq_top_trace *tr, void *arg)
{
    struct top_model *m = arg;
    struct top_header *h = &m->s.h;
    snprintf(h->status, sizeof h->status, "%s", tr->status ? tr->status : "?");
    snprintf(h->end_reason, sizeof h->end_reason, "%s", tr->end_reason ? tr->end_reason : "");
    int ncpus = tr->ncpus;
    if (ncpus > TOP_MAX_CPUS)
        ncpus = TOP_MAX_CPUS;
    if (ncpus > h->ncpus)
        h->ncpus = ncpus;
    if (!m->started) {
        h->tick_hz = tr->tick_hz;
        const char *p = tr->policy;
        snprintf(h->policy, sizeof h->policy, "%s", p ? p : "?");
        h->eevdf = p && !strcmp(p, "eevdf");
        h->features = tr->features;
        const char *fn = tr->feature_names;
        h->nfeatures = 0;
        while (fn && *fn && h->nfeatures < 32) {
            size_t n = strcspn(fn, ",");
            snprintf(h->feature[h->nfeatures++], sizeof h->feature[0], "%.*s", (int)n, fn);
            fn += n + (fn[n] == ',');
        }
        snprintf(h->engine, sizeof h->engine, "%s", tr->engine ? tr->engine : "runq-kernel");
        snprintf(h->engine_version, sizeof h->engine_version, "%s", tr->engine_version ? tr->engine_version : "");
        h->counts = event_engine_counts(h->engine);
        m->ts.eevdf = h->eevdf;
        m->ts.counts = h->counts;
    }
    h->start_ts = tr->start_ts;
    h->end_ts = tr->end_ts;
    h->records = tr->records;
    if (h->has_control_column)
        snprintf(h->control, sizeof h->control, "%s", tr->control ? tr->control : "");
    h->lost_packets = tr->packets_lost;
    h->dropped_records = tr->records_dropped;
    h->resyncs = tr->resyncs;
}

/* Re-reads the trace row and the loss counters. */
static int read_trace(struct top_model *m, char *err, size_t errlen)
{
    char why[256];
    int rc = dbq_top_trace(m->rd, take_trace, m, why, sizeof why);
    if (rc <= 0) {
        set_err(err, errlen, "trace %s: %s", "", rc == 0 ? "gone" : why);
        return -1;
    }
    return 0;
}

/* A thread row: a task seen the first time, or a rename or an exit. */
static bool take_thread(const struct dbq_top_thread *row, void *arg)
{
    struct top_model *m = arg;
    struct top_task *t = task_of(m, row->utid);
    if (!t && m->s.ntasks >= TOP_MAX_TASKS) {
        m->s.h.tasks_capped = true;
        return true;
    }
    if (!t) {
        if (!(t = task_add(m, row->utid, row->is_idle))) {
            snprintf(m->fault, sizeof m->fault, "out of memory");
            return false;
        }
        t->nice = row->nice;
        t->slice_ns = row->slice_ns;
        t->cpu = m->ts.task[task_index(m, t)].cpu = row->cpu; /* its home, until an event says */
        t->is_idle = row->is_idle;
        t->start_ts = row->start_ts;
    }
    t->tid = row->tid;
    snprintf(t->name, sizeof t->name, "%s", row->name ? row->name : "?");
    if (row->has_end && !t->end_ts)
        t->end_ts = row->end_ts;
    return true;
}

/* New threads, renames and exits. Nice and slice come from here only for a
 * task seen the first time; later changes arrive as sched_set rows. Only
 * the first TOP_MAX_TASKS rows are read (the read's limit is one more, to
 * tell that there are others): a trace may name any number. Returns 0, or
 * -1 with SQLite's reason in err. */
static int read_threads(struct top_model *m, char *err, size_t errlen)
{
    return dbq_top_threads(m->rd, TOP_MAX_TASKS + 1, take_thread, m, err, errlen);
}

/* A setting as of the view's start. */
static void take_setting(const struct dbq_top_setting *st, void *arg)
{
    struct top_model *m = arg;
    struct top_header *h = &m->s.h;
    enum trace_set_what what = st->what;
    const char *name = st->name;
    int64_t v = st->value;
    struct top_task *t = task_of(m, st->utid);
    if (!st->has_value)
        return;
    if (t && what == TRACE_SET_NICE)
        t->nice = (int)v;
    else if (t && what == TRACE_SET_SLICE)
        t->slice_ns = v;
    else if (what == TRACE_SET_HZ)
        h->tick_hz = (int)v;
    else if (what == TRACE_SET_FEATURE && name) {
        for (int f = 0; f < h->nfeatures; f++)
            if (!strcmp(h->feature[f], name))
                h->features = v ? h->features | (1u << f) : h->features & ~(1u << f);
    } else if (what == TRACE_SET_KNOB && name) {
        knob_set(h, name, v);
    }
}

/* The settings as of `from`, for a view that starts there: the values
 * before a change after it are that change's old values, taken newest
 * first. The knobs (trace format 4) the kernel states once, when tracing
 * starts, and the trace row's features are those tracing began with, so a
 * later view first takes the last word on each before `from` (its new
 * value), oldest first. */
static void rewind_settings(struct top_model *m, uint64_t from)
{
    dbq_top_settings_at(m->rd, from, take_setting, m);
}

/* ---- derived values ---- */

static uint64_t task_run_now(const struct top_model *m, const struct top_task *t)
{
    uint64_t r = t->run_ns;
    if (t->state == THREAD_RUNNING && t->cpu >= 0 && t->cpu < m->s.h.ncpus) {
        const struct top_cpu *c = &m->s.cpus[t->cpu];
        if (c->curr == task_index(m, t)) {
            uint64_t since = c->curr_since > t->slice_end ? c->curr_since : t->slice_end;
            if (m->s.h.now > since)
                r += m->s.h.now - since;
        }
    }
    return r;
}

static uint64_t cpu_busy_now(const struct top_model *m, const struct top_cpu *c)
{
    uint64_t b = c->busy_ns;
    if (c->curr >= 0 && !m->s.tasks[c->curr].is_idle) {
        const struct top_task *t = &m->s.tasks[c->curr];
        uint64_t since = c->curr_since > t->slice_end ? c->curr_since : t->slice_end;
        if (m->s.h.now > since)
            b += m->s.h.now - since;
    }
    return b;
}

/*
 * The running task t's vruntime and deadline as the kernel has them at the
 * CPU's newest V (into *v, *dl, which hold them as of t's newest event).
 * Every tick charged it (eevdf_charge(), Linux's update_curr()): its
 * vruntime moved on and, once it had reached its deadline, the deadline
 * was renewed a slice further. No record carries either (a task alone on
 * its CPU is never picked again, so no PICK brings its numbers; a keyframe
 * does, every 100 ms), so the model charges as each tick did: alone on its
 * queue the task's vruntime is V itself (V is the queue's weighted
 * average); with others, the time run since, scaled by the kernel's own
 * arithmetic (eevdf_calc_vdelta, with its weight and the table's inverse); a
 * deadline reached is renewed by its slice (its own, or the base slice for
 * the trace's CPUs). Then the time from the last charge to the CPU's
 * newest V, if that V came later. tests/tui/top_agree.sh holds the result
 * against `sched queue` at one instant.
 */
static void charge_at_ticks(const struct top_model *m, const struct top_cpu *c, const struct top_task *t,
                            uint64_t ev_ts, int64_t *v, int64_t *dl)
{
    /* The weight the trace gave it (a JOIN's, a keyframe's), else its
     * nice's; the inverse is the kernel's table entry for that weight. */
    int nice = t->nice < -20 ? -20 : t->nice > 19 ? 19 : t->nice;
    /* A database's weight may not fit 32 bits (and truncate to 0, a
     * division by zero below): such a weight is not one, use the nice's. */
    uint32_t w = t->weight > 0 && (uint64_t)t->weight <= UINT32_MAX ? (uint32_t)t->weight
                                                                   : sched_weight_table[nice + 20];
    uint32_t wmult = (uint32_t)((1ull << SCHED_WEIGHT_SHIFT) / w);
    for (int k = 0; k < 40; k++)
        if (sched_weight_table[k] == w)
            wmult = sched_wmult_table[k];
    uint64_t slice = t->slice_ns > 0 ? (uint64_t)t->slice_ns : eevdf_base_slice((unsigned)m->s.h.ncpus);
    uint64_t at = ev_ts;
    for (unsigned k = 0; k < c->nticks; k++) {
        const struct top_tick *tk = &c->ticks[(c->tick_first + k) % TOP_TICKS];
        if (tk->ts <= at || tk->ts > m->s.h.now)
            continue;
        *v = tk->nr_runnable == 1 ? tk->v : vt_add(*v, (int64_t)eevdf_calc_vdelta(tk->ts - at, w, wmult));
        at = tk->ts;
        if (vt_sub(*v, *dl) >= 0)
            *dl = vt_add(*v, (int64_t)eevdf_calc_vdelta(slice, w, wmult));
    }
    uint64_t v_ts = m->ts.cpu[c->cpu].v_ts;
    if (v_ts > at)
        *v = vt_add(*v, (int64_t)eevdf_calc_vdelta(v_ts - at, w, wmult));
}

/* The trace state into the snapshot the view reads: each CPU's V and
 * count, each task's state, CPU and numbers. */
static void publish(struct top_model *m)
{
    for (int i = 0; i < m->s.h.ncpus; i++) {
        const struct tstate_cpu *k = &m->ts.cpu[i];
        struct top_cpu *c = &m->s.cpus[i];
        c->has_v = k->has_v;
        c->v = k->v;
        c->has_nr = k->has_nr;
        c->nr_runnable = k->nr_runnable;
    }
    /* Alike in shape to the CPUs' copy above: each its own struct's fields. */
    for (size_t i = 0; i < m->s.ntasks; i++) {
        const struct tstate_task *k = &m->ts.task[i];
        struct top_task *t = &m->s.tasks[i];
        t->state = k->state;
        t->cpu = k->cpu;
        t->has_eevdf = k->has_vruntime;
        t->vruntime = k->vruntime;
        t->deadline = k->deadline;
        t->weight = k->weight;
    }
}

/* Lag, deadline - V and eligibility as of the view's time. */
static void derive_eevdf(struct top_model *m)
{
    publish(m);
    for (size_t i = 0; i < m->s.ntasks; i++) {
        struct top_task *t = &m->s.tasks[i];
        const struct tstate_task *k = &m->ts.task[i];
        if (t->end_ts && t->end_ts <= m->s.h.now)
            t->state = THREAD_DEAD;
        if (!t->has_eevdf)
            continue;
        const struct top_cpu *c = t->cpu >= 0 && t->cpu < m->s.h.ncpus ? &m->s.cpus[t->cpu] : NULL;
        t->lag = k->lag;
        t->deadline_rel = 0;
        t->eligible = k->lag >= 0;
        if (!c || !c->has_v || t->state == THREAD_SLEEPING || t->state == THREAD_DEAD ||
            t->state == THREAD_UNKNOWN)
            continue;
        int64_t v = t->vruntime, dl = t->deadline;
        if (t->state == THREAD_RUNNING)
            charge_at_ticks(m, c, t, k->ev.ts, &v, &dl);
        t->lag = vt_sub(c->v, v);
        t->deadline_rel = vt_sub(dl, c->v);
        t->eligible = t->lag >= 0;
    }
}

static void sample_free(struct sample *p)
{
    free(p->run);
    free(p->cpu);
    memset(p, 0, sizeof *p);
}

static void derive_rates(struct top_model *m)
{
    uint64_t now = m->s.h.now;
    if (m->smp_n && m->smp[(m->smp_head + m->smp_n - 1) % NSAMPLES].t >= now)
        return; /* time stood still: keep the rates */
    /* the newest sample at least a window old, else the oldest */
    const struct sample *base = NULL;
    for (size_t k = m->smp_n; k-- > 0;) {
        const struct sample *p = &m->smp[(m->smp_head + k) % NSAMPLES];
        base = p;
        if (p->t + TOP_RATE_WINDOW_NS <= now)
            break;
    }
    struct sample cur = { .t = now, .events = m->events, .ntask = m->s.ntasks, .ncpu = (size_t)m->s.h.ncpus };
    /* Not xmalloc: without room the rates keep their last values, and
     * the tasks' cannot grow past TOP_MAX_TASKS. */
    cur.run = malloc((cur.ntask + 1) * sizeof *cur.run);
    cur.cpu = malloc((cur.ncpu + 1) * sizeof *cur.cpu);
    if (!cur.run || !cur.cpu) {
        sample_free(&cur);
        return;
    }
    for (size_t i = 0; i < cur.ntask; i++)
        cur.run[i] = task_run_now(m, &m->s.tasks[i]);
    for (size_t c = 0; c < cur.ncpu; c++) {
        const struct top_cpu *tc = &m->s.cpus[c];
        cur.cpu[c] = (struct sample_cpu){
            .busy = cpu_busy_now(m, tc), .sw = tc->switches, .min = tc->moves_in, .mout = tc->moves_out
        };
    }
    if (base && now > base->t) {
        double dt = (double)(now - base->t);
        for (size_t i = 0; i < cur.ntask; i++) {
            uint64_t b = i < base->ntask ? base->run[i] : 0;
            double pct = cur.run[i] > b ? (double)(cur.run[i] - b) * 100.0 / dt : 0;
            m->s.tasks[i].cpu_pct = pct > 100 ? 100 : pct;
        }
        for (size_t c = 0; c < cur.ncpu; c++) {
            /* a CPU the base had not seen counts from 0 */
            struct sample_cpu b = c < base->ncpu ? base->cpu[c] : (struct sample_cpu){ .busy = 0 };
            const struct sample_cpu *k = &cur.cpu[c];
            double u = k->busy > b.busy ? (double)(k->busy - b.busy) / dt : 0;
            m->s.cpus[c].util = u > 1 ? 1 : u;
            m->s.cpus[c].switches_per_s = (double)(k->sw - b.sw) * 1e9 / dt;
            m->s.cpus[c].moves_in_per_s = (double)(k->min - b.min) * 1e9 / dt;
            m->s.cpus[c].moves_out_per_s = (double)(k->mout - b.mout) * 1e9 / dt;
        }
        m->s.h.events_per_s = (double)(cur.events - base->events) * 1e9 / dt;
    }
    if (m->smp_n == NSAMPLES) {
        sample_free(&m->smp[m->smp_head]);
        m->smp_head = (m->smp_head + 1) % NSAMPLES;
        m->smp_n--;
    }
    m->smp[(m->smp_head + m->smp_n++) % NSAMPLES] = cur;
}

/* Each CPU's trace_share (model.h) over the rate window of its own
 * readings: the newest, against the newest at least a window older, else
 * the oldest kept. */
static void derive_trace_share(struct top_model *m)
{
    int tracer = -1; /* the kernel's tracer task (kernel/trace/tracer.c), by name: only a runq kernel has it */
    if (!strcmp(m->s.h.engine, "runq-kernel"))
        for (size_t i = 0; i < m->s.ntasks && tracer < 0; i++)
            if (!strcmp(m->s.tasks[i].name, "tracer") && !m->s.tasks[i].end_ts)
                tracer = (int)i;
    for (int k = 0; k < m->s.h.ncpus; k++) {
        struct top_cpu *c = &m->s.cpus[k];
        c->trace_share = -1;
        if (c->ncosts < 2)
            continue;
        const struct top_cost *b = &c->costs[(c->cost_first + c->ncosts - 1) % TOP_COSTS], *a = b;
        for (unsigned j = c->ncosts - 1; j-- > 0;) {
            a = &c->costs[(c->cost_first + j) % TOP_COSTS];
            if (a->ts + TOP_RATE_WINDOW_NS <= b->ts)
                break;
        }
        if (b->ts <= a->ts || !b->timed || b->records < a->records)
            continue; /* no time between them, nothing timed yet, or a counter went back (a reboot) */
        double share = (double)(b->records - a->records) * ((double)b->timed_ns / (double)b->timed) /
                       (double)(b->ts - a->ts);
        if (tracer >= 0 && m->s.tasks[tracer].cpu == k)
            share += m->s.tasks[tracer].cpu_pct / 100.0;
        c->trace_share = share > 1 ? 1 : share;
    }
}

static void derive_latency(struct top_model *m)
{
    for (size_t i = 0; i < m->s.ntasks; i++) {
        struct top_task *t = &m->s.tasks[i];
        if (t->bnc_dirty) {
            t->bnc_dirty = false;
            uint64_t p99 = top_lat_percentile(t->bnc_hist, t->bnc_n, 99);
            t->bnc_p99 = p99 > t->bnc_max ? t->bnc_max : p99;
        }
        if (!t->lat_dirty)
            continue;
        t->lat_dirty = false;
        uint64_t p50 = top_lat_percentile(t->lat_hist, t->lat_n, 50);
        uint64_t p99 = top_lat_percentile(t->lat_hist, t->lat_n, 99);
        t->lat_p50 = p50 > t->lat_max ? t->lat_max : p50;
        t->lat_p99 = p99 > t->lat_max ? t->lat_max : p99;
    }
}

/* ---- open, update, close ---- */

/*
 * At open, each CPU as of `from`. The rows read from `from` on say nothing
 * of a CPU that has halted since long before (an idle CPU writes nothing),
 * and the view would show '?' for it. Its last pick and its last keyframe
 * before `from`, in time order, say who runs and what is queued; a gap
 * after them leaves it unknown. The counts still start at `from`: the
 * stints begin there, and what the seeding counted is cleared.
 */
static void seed_cpus(struct top_model *m, uint64_t from)
{
    for (int c = 0; c < m->s.h.ncpus; c++) {
        struct top_cpu *cp = &m->s.cpus[c];
        /* Either order: a keyframe names the current task only when it is
         * newer than the CPU's pick, and task states keep the newest. */
        int64_t pick = dbq_top_last_before(m->rd, DBQ_TOP_PICK, c),
                snap = dbq_top_last_before(m->rd, DBQ_TOP_SNAP, c),
                gap = dbq_top_last_before(m->rd, DBQ_TOP_GAP, c);
        uint64_t seen = 0, t;
        if (pick && (t = dbq_top_row_at(m->rd, DBQ_TOP_PICK, pick, c, on_row, m)) > seen)
            seen = t;
        if (snap && (t = dbq_top_row_at(m->rd, DBQ_TOP_SNAP, snap, c, on_row, m)) > seen)
            seen = t;
        if (gap && dbq_top_gap_end(m->rd, gap) > seen) { /* lost since: who runs is unknown */
            cp->curr = -1;
            tstate_gap(&m->ts, c);
        }
        if (cp->curr >= 0)
            cp->curr_since = from;
        cp->busy_ns = cp->switches = cp->moves_in = cp->moves_out = 0;
    }
    for (size_t i = 0; i < m->s.ntasks; i++) {
        struct top_task *t = &m->s.tasks[i];
        t->run_ns = t->vol = t->invol = t->nout = t->moves = 0;
    }
    m->map_head = m->map_n = 0;
}

/* A model with no database yet: every CPU's task unknown. */
static struct top_model *model_alloc(const char *path, char *err, size_t errlen)
{
    struct top_model *m = calloc(1, sizeof *m);
    if (!m || !(m->s.cpus = calloc(TOP_MAX_CPUS, sizeof *m->s.cpus)) ||
        !(m->map_curr = calloc((size_t)TOP_MAP_ROWS * TOP_MAX_CPUS, sizeof *m->map_curr))) {
        set_err(err, errlen, "out of memory%s%s", "", "");
        top_model_close(m);
        return NULL;
    }
    if (tstate_init(&m->ts, &m->ids, TOP_MAX_CPUS, TSTATE_ANY_ORDER) != 0) {
        set_err(err, errlen, "out of memory%s%s", "", "");
        top_model_close(m);
        return NULL;
    }
    m->path = path;
    for (int c = 0; c < TOP_MAX_CPUS; c++) {
        m->s.cpus[c].cpu = c;
        m->s.cpus[c].curr = -1;
    }
    return m;
}

/* The view as of `from`, in one snapshot of the database: the trace row
 * and threads, every cursor at `from`, settings rewound and CPUs seeded. */
static int start_view(struct top_model *m, uint64_t from, char *err, size_t errlen)
{
    dbq_top_begin(m->rd);
    int rc = read_trace(m, err, errlen);
    if (rc != 0) {
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)m->s.h.trace_id);
        set_err(err, errlen, "%s: no trace %s in this database", m->path, id);
    } else {
        char why[256];
        rc = read_threads(m, why, sizeof why);
        if (rc != 0)
            set_err(err, errlen, "%s: %s", m->path, why);
    }
    if (rc == 0) {
        struct top_header *h = &m->s.h;
        if (from == TOP_T_LIVE)
            from = h->end_ts > h->start_ts + LIVE_HISTORY_NS ? h->end_ts - LIVE_HISTORY_NS : h->start_ts;
        if (from < h->start_ts)
            from = h->start_ts;
        dbq_top_seek(m->rd, from);
        rewind_settings(m, from);
        seed_cpus(m, from);
        h->now = from;
        m->started = true;
        /* everything counted so far is zero: the first rates run from here */
        m->smp[0] = (struct sample){ .t = from };
        m->smp_n = 1;
        publish(m);
    }
    dbq_top_end(m->rd);
    return rc;
}

struct top_model *top_model_open(const char *path, int64_t trace_id, uint64_t from, char *err,
                                 size_t errlen)
{
    if (access(path, F_OK) != 0) {
        set_err(err, errlen, "%s: no such database%s", path, "");
        return NULL;
    }
    struct top_model *m = model_alloc(path, err, errlen);
    if (!m)
        return NULL;
    if (!(m->rd = dbq_top_open(path, trace_id, err, errlen))) {
        top_model_close(m);
        return NULL;
    }
    m->s.h.trace_id = dbq_top_trace_id(m->rd);
    m->s.h.has_control_column = dbq_top_has_control(m->rd);
    m->s.h.moves_known = dbq_top_moves_known(m->rd);
    if (start_view(m, from, err, errlen) != 0 || fault(m)[0]) {
        if (fault(m)[0]) /* the read that failed first, whatever it led to */
            set_err(err, errlen, "%s: %s", path, fault(m));
        top_model_close(m);
        return NULL;
    }
    return m;
}

int top_model_update(struct top_model *m, uint64_t t, char *err, size_t errlen)
{
    int rc = 0;
    m->fault[0] = 0;
    dbq_top_fault_clear(m->rd);
    dbq_top_begin(m->rd); /* one snapshot of the WAL for all tables */
    char why[256] = "";
    if (read_trace(m, err, errlen) != 0 || read_threads(m, why, sizeof why) != 0) {
        if (err && errlen && !*err)
            snprintf(err, errlen, "%s", why);
        rc = -1;
        goto out;
    }
    if (t == TOP_T_LIVE || t > m->s.h.end_ts)
        t = m->s.h.end_ts;
    if (t < m->s.h.now)
        t = m->s.h.now;
    if (read_tables(m, t, err, errlen) != 0) {
        rc = -1;
        goto out;
    }
    m->s.h.now = t;
    derive_eevdf(m);
    derive_rates(m);
    derive_trace_share(m);
    derive_latency(m);
out:
    if (fault(m)[0]) { /* the read that failed first, whatever it led to */
        set_err(err, errlen, "%s%s", fault(m), "");
        rc = -1;
    }
    dbq_top_end(m->rd);
    m->s.nmap = m->map_n;
    return rc;
}

const struct top_snapshot *top_model_snapshot(const struct top_model *m)
{
    return &m->s;
}

void top_model_close(struct top_model *m)
{
    if (!m)
        return;
    dbq_top_close(m->rd);
    for (size_t i = 0; i < NSAMPLES; i++)
        sample_free(&m->smp[i]);
    for (size_t i = 0; i < m->s.ntasks; i++) {
        free(m->s.tasks[i].lat_hist);
        free(m->s.tasks[i].bnc_hist);
    }
    free(m->s.tasks);
    free(m->s.cpus);
    tstate_free(&m->ts);
    tstate_ids_free(&m->ids);
    free(m->map_curr);
    free(m);
}
