/*
 * `runq sim`: runs a policy (kernel/sched/rr.c or eevdf.c, the same source
 * the kernel runs, with the RT class above it, rt.c) on a workload, one
 * quantum at a time, and prints the
 * schedule, one letter per quantum, and with -v or --numberline the state
 * of the queue at every decision. docs/sim.md describes the format and the
 * output; sim.h says which file does what.
 *
 * The loop plays the core (kernel/sched/core.c) with every event moved to a
 * quantum boundary, and takes Linux's steps at Linux's points
 * (docs/sim.md, issue 14). Like the core it calls the classes only through
 * the class layer (decide.h: sched_charge, sched_tick, sched_join, ...),
 * which sends each call to the RT class or the fair policy; "current" is
 * the running entity of either. At each boundary t, in this order:
 *
 *   1. the quantum just run is not charged yet: current is charged only
 *      at the steps below, as Linux calls update_curr() only there, and a
 *      charge may ask for a decision (policy.h);
 *   2. on a tick boundary, a new RT budget period starts if the last one
 *      is over (as the core's rt_period_check(), before the charge), and
 *      the tick charges and may ask for a decision (it never picks); so may
 *      the policy's timer (timer_ns(), HRTICK; RT's used-up budget) if it
 *      came due by t;
 *   3. if current's run step ended: it yields if a `yield` step follows,
 *      and blocks or exits if a sleep or the end follows: leave() now,
 *      before the pick, as the core does;
 *   4. tasks arriving or waking at t join, in file order (NEW or WAKE);
 *      current is charged first, the policy's timer is looked at again
 *      (Linux's hrtick_update()), and each joiner is offered to
 *      wakeup_preempt() unless a decision is due already;
 *   5. if anything asked for a decision, or nothing is current and someone
 *      joined: sched_decide() (kernel/sched/decide.h, the core's own
 *      routine): next = pick(); put_back() the current one if it is still
 *      runnable and not next; take(next). A pick that keeps current is a
 *      decision too, logged with -v. Then the quantum [t, t+q) is run.
 *      With -v, entities whose delayed dequeue the policy finished since
 *      the last decision are listed, as the kernel traces them.
 *
 * Nothing happens inside a quantum: a timer due in the middle of one fires
 * at its end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "decide.h"
#include "eevdf.h"
#include "eevdf_features.h"
#include "host/base/xalloc.h"
#include "policy.h"
#include "sim.h"
#include "weights.h"

/* ---- the simulation ---- */

enum sim_state {
    SIM_T_NEW,     /* has not arrived yet */
    SIM_T_QUEUED,  /* runnable: current or waiting */
    SIM_T_ASLEEP,  /* off the CPU until wake_at (EEVDF may still keep it queued, delayed) */
    SIM_T_EXITED,
};

struct sim_task {
    const struct scn_task *spec;
    char name[16];    /* the instance's: hog3 */
    struct sched_entity se;
    enum sim_state state;
    int seg;          /* the pattern step it is in */
    uint64_t left;    /* CPU time left in this run step */
    uint64_t wake_at; /* while asleep */
    unsigned quanta;  /* quanta it ran */
    /* the scenario's measurements (trace/scenario.h's, on paper) */
    uint64_t rng;     /* its jitter draws: scn_rng_init(seed, instance) */
    uint64_t target;  /* its last periodic target */
    bool waiting;     /* woken, has not run since */
    bool yielded;     /* gave way at this boundary */
    struct scn_samples late;
    uint64_t missed, vcsw, ivcsw;
};

struct sim {
    const struct scenario *w;
    const struct sched_policy *P;
    bool eevdf;
    struct sched_queue q;
    struct sim_task t[SCN_MAX_INSTANCES];
    unsigned ntask;        /* instances: the workload's counts expanded */
    uint64_t quantum, tick, now;
    uint64_t uncharged;    /* ns current has run since it was last charged */
    uint64_t timer_at;     /* when the policy's timer is due; UINT64_MAX: none */
    uint64_t rt_period;    /* the RT budget's period (rt_period_us) */
    uint64_t rt_period_end; /* when the current one ends */
    unsigned nquanta;
    bool one_char_names;
    int name_width;        /* column width for names: the longest, at least 5 */
    FILE *log;             /* decisions go here, printed after the schedule */
    bool table, numberline;
    int *sched;            /* one entry per quantum: task index, or -1 idle; NULL: not kept */
};

static struct sim_task *task_of(struct sim *s, const struct sched_entity *se)
{
    if (!se)
        return NULL;
    BUG_ON(se->id < 0 || (unsigned)se->id >= s->ntask); /* sim_run numbers them 0..ntask-1 */
    return &s->t[se->id];
}

/* The entity on the CPU, of either class. */
static struct sched_entity *running(const struct sim *s)
{
    return sched_running(&s->q);
}

static const char *state_name(const struct sim *s, const struct sim_task *t)
{
    switch (t->state) {
    case SIM_T_NEW:
        return "new";
    case SIM_T_QUEUED:
        return running(s) == &t->se ? "run" : "queued";
    case SIM_T_ASLEEP:
        return s->eevdf && t->se.on_queue && eevdf_delayed(&t->se) ? "delayed" : "asleep";
    case SIM_T_EXITED:
        return "exited";
    }
    BUG_ON(1); /* a task is always in one of the states above */
}

static void log_table(struct sim *s)
{
    FILE *f = s->log;

    fprintf(f, "  %-*s state      vruntime    deadline         lag  elig\n", s->name_width, "task");
    for (int i = 0; i < (int)s->ntask; i++) {
        struct sim_task *t = &s->t[i];
        bool on = t->se.on_queue && s->eevdf && !sched_is_rt(&t->se); /* RT is not in EEVDF's books */
        char v[32] = "-", d[32] = "-", l[32] = "-";
        const char *e = "-";

        if (on) {
            scn_format_us(v, sizeof v, (int64_t)eevdf_vruntime(&t->se));
            scn_format_us(d, sizeof d, (int64_t)eevdf_deadline(&t->se));
            scn_format_us(l, sizeof l, eevdf_lag(&s->q, &t->se));
            e = eevdf_eligible(&s->q, &t->se) ? "yes" : "no";
        } else if (s->eevdf && t->state == SIM_T_ASLEEP && !sched_is_rt(&t->se)) {
            scn_format_us(l, sizeof l, eevdf_lag(&s->q, &t->se)); /* the lag it left with */
        }
        fprintf(f, "%c %-*s %-7s %11s %11s %11s  %s\n", running(s) == &t->se ? '*' : ' ', s->name_width,
                t->name, state_name(s, t), v, d, l, e);
    }
}

/* Zijlstra's picture (857b158dc5e8): for each task on the queue, '|' at its
 * vruntime and '<' at its deadline; below, an axis with a '+' every eight
 * columns and '*' at V. A column is an eighth of a quantum of virtual time,
 * or a power of two times that if the picture would be wider than
 * SIM_LINE_COLS (light tasks run far ahead in virtual time). */
#define SIM_LINE_COLS 64

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static void log_numberline(struct sim *s)
{
    FILE *f = s->log;
    int64_t V = (int64_t)eevdf_V(&s->q), lo = V, hi = V, origin, cols;
    int64_t unit = (int64_t)s->quantum / 8; /* virtual ns a column */
    char row[SIM_LINE_COLS + 1], o[32], span[32];

    if (unit == 0)
        unit = 1;
    for (int i = 0; i < (int)s->ntask; i++) {
        const struct sched_entity *se = &s->t[i].se;
        if (!se->on_queue || sched_is_rt(se))
            continue;
        if ((int64_t)eevdf_vruntime(se) < lo)
            lo = (int64_t)eevdf_vruntime(se);
        if ((int64_t)eevdf_deadline(se) > hi)
            hi = (int64_t)eevdf_deadline(se);
    }
    for (;;) {
        origin = floor_div(lo, 8 * unit) * 8 * unit;
        if (floor_div(hi - origin, unit) < SIM_LINE_COLS)
            break;
        unit *= 2;
    }
#define COL(x) floor_div((int64_t)(x) - origin, unit)
    for (int i = 0; i < (int)s->ntask; i++) {
        const struct sched_entity *se = &s->t[i].se;
        int64_t cv, cd;
        int end = SIM_LINE_COLS;

        if (!se->on_queue || sched_is_rt(se))
            continue;
        cv = COL(eevdf_vruntime(se));
        cd = COL(eevdf_deadline(se));
        memset(row, ' ', sizeof row);
        for (int64_t c = cv; c <= cd; c++)
            row[c] = c == cv ? '|' : c == cd ? '<' : '-';
        while (end > 0 && row[end - 1] == ' ')
            end--;
        row[end] = '\0';
        fprintf(f, "%c %-*s %s\n", s->q.curr == se ? '*' : ' ', s->name_width, s->t[i].name, row);
    }
    cols = COL(hi) + 1;
    for (int64_t c = 0; c < cols; c++)
        row[c] = c % 8 == 0 ? '+' : '-';
    row[cols] = '\0';
    row[COL(V)] = '*';
#undef COL
    scn_format_us(o, sizeof o, origin);
    scn_format_us(span, sizeof span, 8 * unit);
    fprintf(f, "%*s%s   + every %s virtual us from %s, * V\n", s->name_width + 3, "", row, span, o);
}

static void log_decision(struct sim *s, const char *why, const struct sched_decision *d)
{
    FILE *f = s->log;
    char t[32], V[32];
    struct sim_task *c = task_of(s, running(s));

    scn_format_us(t, sizeof t, (int64_t)s->now);
    fprintf(f, "\nt=%s %s: ", t, why);
    if (s->eevdf) {
        scn_format_us(V, sizeof V, (int64_t)eevdf_V(&s->q));
        fprintf(f, "V=%s, ", V);
    } else {
        fprintf(f, "list");
        for (const struct sched_entity *e = s->q.rr.head; e; e = e->rr.next)
            fprintf(f, " %s", task_of(s, e)->name);
        fprintf(f, "%s, ", s->q.rr.head ? "" : " empty");
    }
    fprintf(f, "picked %s\n", c ? c->name : "nobody");
    /* As the kernel traces a LEAVE 'dequeued' for each. */
    for (unsigned i = 0; i < d->nr_departed; i++)
        fprintf(f, "  %s leaves the queue: its delayed dequeue is done, its lag paid\n",
                task_of(s, d->departed[i])->name);
    if (s->table)
        log_table(s);
    if (s->numberline && s->eevdf && s->q.curr) /* a fair entity runs */
        log_numberline(s);
}

/* One decision (sched_decide, as the kernel's core makes it); the leaving
 * task, if any, has left when its run step ended. */
static void decide(struct sim *s, const char *why)
{
    struct sched_decision d;
    struct sim_task *prev = task_of(s, running(s));

    sched_decide(s->P, &s->q, NULL, SCHED_LEAVE_BLOCK, &d);
    /* A switch away from a runnable task is voluntary if it yielded,
     * involuntary if it was displaced; a block counts as voluntary where
     * the task leaves (boundary_curr), as the kernel counts them. */
    if (prev && &prev->se != running(s) && prev->state == SIM_T_QUEUED) {
        if (prev->yielded)
            prev->vcsw++;
        else
            prev->ivcsw++;
    }
    if (prev)
        prev->yielded = false;
    if (s->eevdf)
        eevdf_check(&s->q);
    if (s->log)
        log_decision(s, why, &d);
}

static void add_reason(char *buf, size_t len, const char *name, const char *what)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s%s%s%s", n ? ", " : "", name, *name ? " " : "", what);
}

/* A drawn period rounded to the nearest whole quantum, at least one:
 * on paper everything happens on a quantum boundary. */
static uint64_t on_grid(const struct sim *s, uint64_t ns)
{
    uint64_t q = s->quantum, k = (ns + q / 2) / q;
    return (k ? k : 1) * q;
}

/* What current does when a quantum of its run step is done. */
enum sim_end { SIM_GOES_ON, SIM_BLOCKS, SIM_EXITS };

/* The current task has run a quantum of its step: it goes on, blocks or
 * exits, and *yields if a `yield` step comes first. Moves nothing on the
 * queue: sim_run takes the steps in Linux's order. */
static enum sim_end finish_quantum(struct sim *s, struct sim_task *t, bool *yields)
{
    const struct scn_task *sp = t->spec;

    *yields = false;
    t->quanta++;
    if (t->left == UINT64_MAX)
        return SIM_GOES_ON;
    t->left -= s->quantum;
    if (t->left)
        return SIM_GOES_ON;
    for (int guard = 0; guard <= sp->nsteps; guard++) {
        const struct scn_step *g;

        t->seg = (t->seg + 1) % sp->nsteps;
        g = &sp->steps[t->seg];
        switch (g->kind) {
        case SCN_RUN: /* a run straight after a run: no break in between */
            t->left = g->ns;
            return SIM_GOES_ON;
        case SCN_YIELD:
            *yields = true;
            continue;
        case SCN_SLEEP:
            t->wake_at = s->now + (g->jitter_permille ? on_grid(s, scn_draw_period(&t->rng, g->ns, g->jitter_permille))
                                                      : g->ns);
            return SIM_BLOCKS;
        case SCN_EVERY:
            /* The next target is the last plus a drawn period, on the
             * quantum grid; one already here or past is missed. */
            do {
                t->target += on_grid(s, scn_draw_period(&t->rng, g->ns, g->jitter_permille));
                if (t->target <= s->now)
                    t->missed++;
            } while (t->target <= s->now);
            t->wake_at = t->target;
            return SIM_BLOCKS;
        case SCN_EXIT:
            return SIM_EXITS;
        case SCN_READ:
        case SCN_WRITE:
            abort(); /* sim_refuses() turned pipes away */
        }
    }
    t->left = UINT64_MAX; /* the parser refuses a pattern of only yields */
    return SIM_GOES_ON;
}

/* Charges current for the time it has run since its last charge; true if
 * the policy asks for a decision. */
static bool charge_now(struct sim *s)
{
    uint64_t d = s->uncharged;

    s->uncharged = 0;
    return running(s) && d && sched_charge(s->P, &s->q, d);
}

/* The policy's timer, looked at again after a decision or a join: its due
 * time (timer_ns() counts from the last charge), and true if it is due at
 * once. */
static bool rearm(struct sim *s)
{
    uint64_t left = sched_timer_ns(s->P, &s->q);

    s->timer_at = left == UINT64_MAX ? UINT64_MAX : s->now - s->uncharged + left;
    return left == 0;
}

/* A new RT budget period if the last one is over (the core's
 * rt_period_check()): the budget is whole again. True if that lets a
 * throttled RT task run. */
static bool rt_period_check(struct sim *s)
{
    if (s->now < s->rt_period_end)
        return false;
    bool was_throttled = sched_rt_throttled(&s->q);
    s->rt_period_end = s->now + s->rt_period;
    rt_new_period(&s->q);
    return was_throttled;
}

/* Steps 2 and 3 of a boundary (see the top of this file). */
static bool boundary_curr(struct sim *s, struct sim_task *c, char *why, size_t len)
{
    bool need = false, yields;
    enum sim_end end;

    s->uncharged += s->quantum;
    end = finish_quantum(s, c, &yields);
    if (s->now % s->tick == 0) {
        need = rt_period_check(s);
        need |= charge_now(s) | sched_tick(s->P, &s->q);
        if (need)
            add_reason(why, len, "", "tick");
    }
    if (s->timer_at <= s->now) {
        s->timer_at = UINT64_MAX;
        charge_now(s);
        need = true;
        add_reason(why, len, "", "timer");
    }
    if (yields) {
        charge_now(s);
        c->yielded = true;
        sched_yield_curr(s->P, &s->q);
        need = true;
        add_reason(why, len, c->name, "yields");
    }
    if (end != SIM_GOES_ON) {
        charge_now(s);
        sched_leave(s->P, &s->q, &c->se, end == SIM_BLOCKS ? SCHED_LEAVE_BLOCK : SCHED_LEAVE_EXIT);
        c->state = end == SIM_BLOCKS ? SIM_T_ASLEEP : SIM_T_EXITED;
        c->vcsw += end == SIM_BLOCKS; /* it leaves the CPU of its own accord */
        need = true;
        add_reason(why, len, c->name, end == SIM_BLOCKS ? "blocks" : "exits");
    }
    return need;
}

static void sim_run(struct sim *s)
{
    const struct scenario *w = s->w;
    struct sched_params params = { w->cpus, s->tick };

    sched_queue_init(s->P, &s->q, &params);
    /* The RT budget as the core gives it (core.c's rt_budget_ns()): none
     * if the runtime fills the period. */
    uint64_t rt_runtime = (uint64_t)scn_knob_value(w, scn_knob_index("rt_runtime_us")) * 1000;
    s->rt_period = (uint64_t)scn_knob_value(w, scn_knob_index("rt_period_us")) * 1000;
    rt_set_runtime(&s->q, rt_runtime >= s->rt_period ? RT_NO_BUDGET : rt_runtime);
    s->rt_period_end = s->rt_period;
    s->uncharged = 0;
    s->timer_at = UINT64_MAX;
    for (unsigned i = 0; i < s->ntask; i++) {
        struct sim_task *t = &s->t[i];
        memset(t, 0, sizeof *t);
        t->spec = &w->tasks[scn_instance(w, i, NULL)];
        scn_instance_name(w, i, t->name, sizeof t->name);
        t->rng = scn_rng_init(w->seed, i);
        t->se.id = (int)i;
        t->se.nice = t->spec->nice;
        t->se.slice_ns = t->spec->slice_ns;
        if (t->spec->rt)
            sched_set_class(s->P, &t->se, t->spec->rt_prio,
                            t->spec->rt_policy == SCN_PROG_RT_RR ? RT_RR : RT_FIFO);
    }
    for (unsigned k = 0; k <= s->nquanta; k++) {
        struct sim_task *c = task_of(s, running(s));
        char why[256] = "";
        bool need = false, joined = false;

        s->now = (uint64_t)k * s->quantum;
        /* 1-3: the quantum just run, the tick, the timer, its step's end */
        if (c)
            need = boundary_curr(s, c, why, sizeof why);
        if (k == s->nquanta)
            break;
        /* 4: arrivals and wakeups */
        for (unsigned i = 0; i < s->ntask; i++) {
            struct sim_task *t = &s->t[i];
            bool new = t->state == SIM_T_NEW && t->spec->arrive_ns == s->now, preempts = false, requeue;

            if (!new && !(t->state == SIM_T_ASLEEP && t->wake_at == s->now))
                continue;
            if (new) {
                sched_init_entity(s->P, &s->q, &t->se);
                t->left = t->spec->nsteps ? t->spec->steps[0].ns : UINT64_MAX;
                t->target = s->now;
            } else {
                t->waiting = true; /* its lateness counts from wake_at, now */
                do /* the run after the sleep (yields before it are moot) */
                    t->seg = (t->seg + 1) % t->spec->nsteps;
                while (t->spec->steps[t->seg].kind != SCN_RUN);
                t->left = t->spec->steps[t->seg].ns;
            }
            /* A delayed task, still queued, is requeued without charging
             * current first and without looking at the timer (Linux 6.18's
             * ttwu_runnable() -> requeue_delayed_entity()); 333238da9a19,
             * after 6.18, charges first (seed 001): REQUEUE_UPDATE_CURR. */
            requeue = t->se.on_queue;
            if (!requeue || eevdf_feature(EEVDF_F_REQUEUE_UPDATE_CURR))
                need |= charge_now(s);
            sched_join(s->P, &s->q, &t->se, new ? SCHED_JOIN_NEW : SCHED_JOIN_WAKE);
            t->state = SIM_T_QUEUED;
            joined = true;
            if (!requeue)
                need |= rearm(s);
            /* Linux asks the wakeup preemption only without a decision
             * pending (test_tsk_need_resched()); it charges current first. */
            if (running(s) && !need) {
                need = charge_now(s);
                preempts = sched_wakeup_preempt(s->P, &s->q, &t->se);
                need |= preempts;
            }
            add_reason(why, sizeof why, t->name,
                       new ? (preempts ? "arrives and preempts" : "arrives")
                           : (preempts ? "wakes and preempts" : "wakes"));
        }
        /* 5: the decision, and the quantum */
        if (need || (!running(s) && joined)) {
            charge_now(s);
            rt_period_check(s); /* the core's schedule() looks too */
            decide(s, why);
            rearm(s);
        }
        c = task_of(s, running(s));
        if (c && c->waiting) {
            c->waiting = false;
            scn_samples_add(&c->late, s->now - c->wake_at);
        }
        if (s->sched)
            s->sched[k] = c ? (int)(c - s->t) : -1;
    }
}

/* ---- output ---- */

static void print_schedule(FILE *f, const struct sim *s)
{
    for (unsigned k = 0; k < s->nquanta; k++) {
        int i = s->sched[k];
        if (s->one_char_names)
            fputc(i < 0 ? '.' : s->t[i].name[0], f);
        else
            fprintf(f, "%s%s", k ? " " : "", i < 0 ? "." : s->t[i].name);
    }
    fputc('\n', f);
}

static void print_header(FILE *f, const struct sim *s)
{
    char q[32], tick[32], b[32];

    scn_format_duration(q, sizeof q, s->quantum);
    scn_format_duration(tick, sizeof tick, s->tick);
    fprintf(f, "\n%s, quantum %s, tick %s", s->w->policy, q, tick);
    if (s->eevdf) {
        scn_format_duration(b, sizeof b, eevdf_base_slice(s->w->cpus));
        fprintf(f, ", base slice %s", b);
        for (int i = 0; i < EEVDF_NR_FEATURES; i++)
            if (eevdf_feature((enum eevdf_feature)i) != eevdf_feature_default((enum eevdf_feature)i))
                fprintf(f, ", %s%s", eevdf_feature((enum eevdf_feature)i) ? "" : "NO_",
                        eevdf_feature_name((enum eevdf_feature)i));
    }
    fprintf(f, "\n  %-*s nice  weight  slice    quanta\n", s->name_width, "task");
    for (int i = 0; i < (int)s->ntask; i++) {
        const struct sim_task *t = &s->t[i];

        if (t->spec->rt) { /* no nice, weight or slice: a priority */
            char prio[16];
            snprintf(prio, sizeof prio, "rt %u", t->spec->rt_prio);
            fprintf(f, "  %-*s %4s  %6s  %-7s  %6u\n", s->name_width, t->name, "-", prio, "-", t->quanta);
            continue;
        }
        if (s->eevdf)
            scn_format_duration(b, sizeof b, t->spec->slice_ns ? t->spec->slice_ns : eevdf_base_slice(s->w->cpus));
        if (s->eevdf)
            fprintf(f, "  %-*s %4d  %6u  %-7s  %6u\n", s->name_width, t->name, t->spec->nice,
                    sched_nice_to_weight(t->spec->nice), b, t->quanta);
        else
            fprintf(f, "  %-*s %4d  %6s  %-7s  %6u\n", s->name_width, t->name, t->spec->nice, "-", "-",
                    t->quanta);
    }
    if (s->table)
        fprintf(f, s->eevdf ? "times in us; V, vruntime, deadline and lag in virtual us\n" : "times in us\n");
}

int sim_refuses(const struct scenario *w, char *err, size_t errlen)
{
    int pinned = -1, pinned_line = 0;

    for (int i = 0; i < w->ntasks; i++) {
        const struct scn_task *t = &w->tasks[i];
        if (scn_uses_pipes(t)) {
            /* On paper a read or a write would take no time, and a
             * handoff's cost is the very thing measured. */
            snprintf(err, errlen,
                     "%s:%d: runq sim has no pipes: task %s reads or writes one (run it on the kernel engine)",
                     w->name, t->line, t->name);
            return -1;
        }
        if (!t->cpumask)
            continue;
        if (t->cpumask & (t->cpumask - 1)) {
            snprintf(err, errlen, "%s:%d: runq sim models one CPU: task %s may run on several (give it one cpu=)",
                     w->name, t->line, t->name);
            return -1;
        }
        int cpu = __builtin_ctzll(t->cpumask);
        if (pinned >= 0 && cpu != pinned) {
            snprintf(err, errlen, "%s:%d: runq sim models one CPU: task %s is on CPU %d, the task on line %d on CPU %d",
                     w->name, t->line, t->name, cpu, pinned_line, pinned);
            return -1;
        }
        pinned = cpu;
        pinned_line = t->line;
    }
    return 0;
}

/* The simulation state for w, everything but the schedule and the log. */
static void sim_setup(struct sim *s, const struct scenario *w)
{
    memset(s, 0, sizeof *s);
    s->w = w;
    s->eevdf = strcmp(w->policy, "eevdf") == 0;
    s->P = s->eevdf ? &eevdf_policy : &rr_policy;
    s->quantum = w->quantum_ns;
    s->tick = w->tick_ns ? w->tick_ns : w->quantum_ns;
    s->nquanta = (unsigned)(w->run_ns / w->quantum_ns);
    s->ntask = scn_ninstances(w);
    s->one_char_names = true;
    s->name_width = 5;
    for (unsigned i = 0; i < s->ntask; i++) {
        char name[16];
        scn_instance_name(w, i, name, sizeof name);
        int len = (int)strlen(name);
        if (len != 1)
            s->one_char_names = false;
        if (len > s->name_width)
            s->name_width = len;
    }
    eevdf_features_reset();
    for (int i = 0; i < w->nfeatures; i++)
        eevdf_feature_set(eevdf_feature_name((enum eevdf_feature)w->features[i].feature), w->features[i].on);
}

static void sim_free(struct sim *s)
{
    for (unsigned i = 0; i < s->ntask; i++)
        scn_samples_free(&s->t[i].late);
    free(s->sched);
    s->sched = NULL;
}

int sim_scenario(const struct scenario *w, struct scn_result *r, char *err, size_t errlen)
{
    static struct sim s; /* large: off the stack */

    if (sim_refuses(w, err, errlen) < 0)
        return -1;
    sim_setup(&s, w);
    sim_run(&s);
    memset(r, 0, sizeof *r);
    strcpy(r->engine, "sim");
    r->ntasks = s.ntask;
    for (unsigned i = 0; i < s.ntask; i++) {
        struct sim_task *t = &s.t[i];
        struct scn_task_result *tr = &r->task[i];
        tr->task = scn_instance(w, i, &tr->index);
        snprintf(tr->name, sizeof tr->name, "%s", t->name);
        tr->tid = -1;
        tr->cpu = t->spec->cpumask ? __builtin_ctzll(t->spec->cpumask) : 0;
        tr->st.window_ns = w->run_ns > t->spec->arrive_ns ? w->run_ns - t->spec->arrive_ns : 0;
        tr->st.runtime_ns = (uint64_t)t->quanta * s.quantum;
        tr->st.wakeups = t->late.n + t->late.dropped;
        tr->st.dropped = t->late.dropped;
        tr->st.missed = t->missed;
        tr->st.vcsw = t->vcsw;
        tr->st.ivcsw = t->ivcsw;
        tr->st.ntasks = 1;
        struct scn_stats *g = &r->line[tr->task];
        scn_stats_add_task(g, &tr->st);
        g->wakeups += tr->st.wakeups;
        g->dropped += tr->st.dropped;
    }
    /* Lateness of each task, then of each line's tasks together. */
    for (unsigned i = 0; i < s.ntask; i++)
        scn_stats_lateness(&r->task[i].st, s.t[i].late.v, s.t[i].late.n, w->stall_ns);
    for (int line = 0; line < w->ntasks; line++) {
        struct scn_samples all = { 0 };
        for (unsigned i = 0; i < s.ntask; i++)
            if (r->task[i].task == line)
                for (size_t k = 0; k < s.t[i].late.n; k++)
                    scn_samples_add(&all, s.t[i].late.v[k]);
        r->line[line].dropped += all.dropped;
        scn_stats_lateness(&r->line[line], all.v, all.n, w->stall_ns);
        scn_samples_free(&all);
    }
    sim_free(&s);
    return 0;
}

/* Runs w and prints the schedule, then (table or numberline) the decisions.
 * 0 on success, 1 if the decisions' log cannot be kept, 2 if w is not one
 * runq sim can run. */
static int sim_simulate(const struct scenario *w, bool table, bool numberline)
{
    static struct sim s; /* large: off the stack */
    char *logbuf = NULL;
    size_t loglen = 0;
    char err[512];
    int rc = 0;

    if (sim_refuses(w, err, sizeof err) < 0) {
        fprintf(stderr, "runq sim: %s\n", err);
        return 2;
    }
    if (w->run_ns / w->quantum_ns > SIM_PRINT_MAX_QUANTA) {
        fprintf(stderr, "runq sim: %s: %llu quanta is too long a schedule to print (at most %d); runq experiment "
                "--engine sim runs it and prints its measurements\n", w->name,
                (unsigned long long)(w->run_ns / w->quantum_ns), SIM_PRINT_MAX_QUANTA);
        return 2;
    }
    sim_setup(&s, w);
    s.table = table;
    s.numberline = numberline && s.eevdf;
    s.sched = xcalloc(s.nquanta, sizeof *s.sched);
    if (table || s.numberline) {
        s.log = open_memstream(&logbuf, &loglen);
        if (!s.log)
            goto oom;
    }
    sim_run(&s);
    print_schedule(stdout, &s);
    if (s.log) {
        if (fclose(s.log) != 0)
            goto oom;
        print_header(stdout, &s);
        fwrite(logbuf, 1, loglen, stdout);
    }
    goto out;
oom:
    fprintf(stderr, "runq sim: out of memory\n");
    rc = 1;
out:
    free(logbuf);
    sim_free(&s);
    return rc;
}

/* The workload from -s or the file, before the command-line overrides.
 * 0, or 2 after printing the error. */
static int load_workload(const struct sim_opts *o, struct scenario *w)
{
    char err[512];
    bool is_stdin;
    FILE *f;
    int rc;

    if (o->seeded) {
        sim_generate(o->seed, w);
        return 0;
    }
    is_stdin = strcmp(o->file, "-") == 0;
    f = is_stdin ? stdin : fopen(o->file, "r");
    if (!f) {
        fprintf(stderr, "runq sim: cannot open '%s': %s\n", o->file, strerror(errno));
        return 2;
    }
    rc = scn_parse(f, is_stdin ? "<stdin>" : o->file, w, err, sizeof err);
    if (!is_stdin)
        fclose(f);
    if (rc) {
        fprintf(stderr, "runq sim: %s\n", err);
        return 2;
    }
    return 0;
}

/* --policy, --run and --feature win over the workload. 0, or 2 after
 * printing the error. */
static int apply_overrides(const struct sim_opts *o, struct scenario *w)
{
    if (o->policy)
        strcpy(w->policy, o->policy);
    if (o->run_ns) {
        char q[32], r[32];
        scn_format_duration(q, sizeof q, w->quantum_ns);
        scn_format_duration(r, sizeof r, o->run_ns);
        if (o->run_ns % w->quantum_ns || o->run_ns / w->quantum_ns > SIM_PRINT_MAX_QUANTA) {
            fprintf(stderr, "runq sim: bad --run %s: want a whole number of quanta (%s), at most %d\n", r, q,
                    SIM_PRINT_MAX_QUANTA);
            return 2;
        }
        w->run_ns = o->run_ns;
    }
    for (int i = 0; i < o->nfeatures; i++) {
        const char *eq = strchr(o->features[i], '=');
        char name[64];
        memcpy(name, o->features[i], (size_t)(eq - o->features[i])); /* checked by the caller (sim.h) */
        name[eq - o->features[i]] = '\0';
        scn_set_feature(w, name, strcmp(eq + 1, "on") == 0);
    }
    return 0;
}

int sim_print(const struct sim_opts *o)
{
    static struct scenario w; /* large: keep it off the stack */
    bool decisions = o->decisions;
    int rc = load_workload(o, &w);

    if (rc == 0)
        rc = apply_overrides(o, &w);
    if (rc)
        return rc;
    if (o->seeded) {
        /* The problem is printed with the overrides in, so it is the one
         * the answer solves. */
        printf("# runq sim -s %" PRIu64 ": what is the schedule? Predict it, then check with -c.\n", o->seed);
        scn_print(stdout, &w);
        if (!o->check)
            return 0;
        printf("\nanswer:\n");
        decisions = true;
    }
    return sim_simulate(&w, decisions, o->numberline);
}
