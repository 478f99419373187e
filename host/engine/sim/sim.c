/*
 * `runq sim`: runs a policy (kernel/sched/rr.c or eevdf.c, the same source
 * the kernel runs, with the RT class above it, rt.c) on a workload, one
 * quantum at a time, on one CPU or several (balanced by the kernel's
 * kernel/sched/balance_rules.c), and prints the
 * schedule, one letter per quantum and one line per CPU, and with -v or --numberline the state
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
 *
 * Several CPUs (sim_cpus_modelled: a task that may run on several, tasks
 * pinned apart, or a balancing switch on) each have a queue and take the
 * steps above at the same boundary, CPU by CPU: 1-3 on every CPU, then
 * the periodic balance where it is due, then 4 (each waking task placed
 * first, balance_rules.c's select_task_rq_fair()), then 5 on every CPU,
 * a CPU whose decision picks nobody pulling a waiting task and deciding
 * again (newidle). The rules are the kernel's own source; this file does
 * what balance.c does around them, without locks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "balance_rules.h"
#include "bug.h"
#include "decide.h"
#include "eevdf.h"
#include "eevdf_features.h"
#include "host/base/xalloc.h"
#include "policy.h"
#include "sim.h"
#include "trace/format.h"
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
    unsigned cpu;     /* its home: the CPU whose queue it is on or joins next */
    uint64_t allowed; /* the CPUs it may run on (bit n: CPU n) */
    unsigned quanta;  /* quanta it ran */
    /* the scenario's measurements (trace/scenario.h's, on paper) */
    uint64_t rng;     /* its jitter draws: scn_rng_init(seed, instance) */
    uint64_t target;  /* its last periodic target */
    bool waiting;     /* woken, has not run since */
    bool yielded;     /* gave way at this boundary */
    struct scn_samples late;
    uint64_t missed, vcsw, ivcsw;
};

/* One CPU: its queue and what the core keeps beside it. */
struct sim_cpu {
    struct sched_queue q;
    uint64_t uncharged;     /* ns current has run since it was last charged */
    uint64_t timer_at;      /* when the policy's timer is due; UINT64_MAX: none */
    uint64_t rt_period_end; /* when the current RT budget period ends */
    struct balance_state bal;
    unsigned ntasks;        /* tasks homed here (the creation rule) */
    bool need, joined;      /* this boundary: a decision is due; someone joined */
    char why[256];          /* this boundary's reasons, for the log */
};

#define SIM_MAX_CPUS BALANCE_MAX_CPUS

struct sim {
    const struct scenario *w;
    const struct sched_policy *P;
    bool eevdf;
    /* Several CPUs (sim_cpus_modelled): the scenario's, each with its
     * queue, balanced by kernel/sched/balance_rules.c; else one, CPU 0,
     * as runq sim always modelled. */
    unsigned ncpus;
    struct sim_cpu cpu[SIM_MAX_CPUS];
    uint64_t moves[BALANCE_WHY_PERIODIC + 1]; /* moves by reason */
    struct sim_task t[SCN_MAX_INSTANCES];
    unsigned ntask;        /* instances: the workload's counts expanded */
    uint64_t quantum, tick, now;
    uint64_t rt_period;    /* the RT budget's period (rt_period_us) */
    unsigned nquanta;
    bool one_char_names;
    int name_width;        /* column width for names: the longest, at least 5 */
    FILE *log;             /* decisions go here, printed after the schedule */
    bool table, numberline;
    int *sched;            /* per CPU, one entry per quantum: task index, or -1 idle; NULL: not kept */
};

static struct sim_task *task_of(struct sim *s, const struct sched_entity *se)
{
    if (!se)
        return NULL;
    BUG_ON(se->id < 0 || (unsigned)se->id >= s->ntask); /* sim_run numbers them 0..ntask-1 */
    return &s->t[se->id];
}

/* The entity on the CPU, of either class. */
static struct sched_entity *running(const struct sim_cpu *cp)
{
    return sched_running(&cp->q);
}

static struct sim_cpu *cpu_of(struct sim *s, const struct sim_task *t)
{
    return &s->cpu[t->cpu];
}

static const char *state_name(struct sim *s, const struct sim_task *t)
{
    switch (t->state) {
    case SIM_T_NEW:
        return "new";
    case SIM_T_QUEUED:
        return running(&s->cpu[t->cpu]) == &t->se ? "run" : "queued";
    case SIM_T_ASLEEP:
        return s->eevdf && t->se.on_queue && eevdf_delayed(&t->se) ? "delayed" : "asleep";
    case SIM_T_EXITED:
        return "exited";
    }
    BUG_ON(1); /* a task is always in one of the states above */
}

/* The tasks homed on cp, with their numbers on its queue. */
static void log_table(struct sim *s, struct sim_cpu *cp)
{
    FILE *f = s->log;

    fprintf(f, "  %-*s state      vruntime    deadline         lag  elig\n", s->name_width, "task");
    for (int i = 0; i < (int)s->ntask; i++) {
        struct sim_task *t = &s->t[i];
        if (cpu_of(s, t) != cp)
            continue;
        bool on = t->se.on_queue && s->eevdf && !sched_is_rt(&t->se); /* RT is not in EEVDF's books */
        char v[32] = "-", d[32] = "-", l[32] = "-";
        const char *e = "-";

        if (on) {
            scn_format_us(v, sizeof v, (int64_t)eevdf_vruntime(&t->se));
            scn_format_us(d, sizeof d, (int64_t)eevdf_deadline(&t->se));
            scn_format_us(l, sizeof l, eevdf_lag(&cp->q, &t->se));
            e = eevdf_eligible(&cp->q, &t->se) ? "yes" : "no";
        } else if (s->eevdf && t->state == SIM_T_ASLEEP && !sched_is_rt(&t->se)) {
            scn_format_us(l, sizeof l, eevdf_lag(&cp->q, &t->se)); /* the lag it left with */
        }
        fprintf(f, "%c %-*s %-7s %11s %11s %11s  %s\n", running(cp) == &t->se ? '*' : ' ', s->name_width,
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

static void log_numberline(struct sim *s, struct sim_cpu *cp)
{
    FILE *f = s->log;
    int64_t V = (int64_t)eevdf_V(&cp->q), lo = V, hi = V, origin, cols;
    int64_t unit = (int64_t)s->quantum / 8; /* virtual ns a column */
    char row[SIM_LINE_COLS + 1], o[32], span[32];

    if (unit == 0)
        unit = 1;
    for (int i = 0; i < (int)s->ntask; i++) {
        const struct sched_entity *se = &s->t[i].se;
        if (!se->on_queue || sched_is_rt(se) || cpu_of(s, &s->t[i]) != cp)
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

        if (!se->on_queue || sched_is_rt(se) || cpu_of(s, &s->t[i]) != cp)
            continue;
        cv = COL(eevdf_vruntime(se));
        cd = COL(eevdf_deadline(se));
        memset(row, ' ', sizeof row);
        for (int64_t c = cv; c <= cd; c++)
            row[c] = c == cv ? '|' : c == cd ? '<' : '-';
        while (end > 0 && row[end - 1] == ' ')
            end--;
        row[end] = '\0';
        fprintf(f, "%c %-*s %s\n", cp->q.curr == se ? '*' : ' ', s->name_width, s->t[i].name, row);
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

static void log_decision(struct sim *s, struct sim_cpu *cp, const char *why, const struct sched_decision *d)
{
    FILE *f = s->log;
    char t[32], V[32];
    struct sim_task *c = task_of(s, running(cp));

    scn_format_us(t, sizeof t, (int64_t)s->now);
    if (s->ncpus > 1)
        fprintf(f, "\nt=%s CPU %u, %s: ", t, (unsigned)(cp - s->cpu), why);
    else
        fprintf(f, "\nt=%s %s: ", t, why);
    if (s->eevdf) {
        scn_format_us(V, sizeof V, (int64_t)eevdf_V(&cp->q));
        fprintf(f, "V=%s, ", V);
    } else {
        fprintf(f, "list");
        for (const struct sched_entity *e = cp->q.rr.head; e; e = e->rr.next)
            fprintf(f, " %s", task_of(s, e)->name);
        fprintf(f, "%s, ", cp->q.rr.head ? "" : " empty");
    }
    fprintf(f, "picked %s\n", c ? c->name : "nobody");
    /* As the kernel traces a LEAVE 'dequeued' for each. */
    for (unsigned i = 0; i < d->nr_departed; i++)
        fprintf(f, "  %s leaves the queue: its delayed dequeue is done, its lag paid\n",
                task_of(s, d->departed[i])->name);
    if (s->table)
        log_table(s, cp);
    if (s->numberline && s->eevdf && cp->q.curr) /* a fair entity runs */
        log_numberline(s, cp);
}

/* One decision (sched_decide, as the kernel's core makes it); the leaving
 * task, if any, has left when its run step ended. */
static void decide(struct sim *s, struct sim_cpu *cp, const char *why)
{
    struct sched_decision d;
    struct sim_task *prev = task_of(s, running(cp));

    sched_decide(s->P, &cp->q, NULL, SCHED_LEAVE_BLOCK, &d);
    /* A switch away from a runnable task is voluntary if it yielded,
     * involuntary if it was displaced; a block counts as voluntary where
     * the task leaves (boundary_curr), as the kernel counts them. */
    if (prev && &prev->se != running(cp) && prev->state == SIM_T_QUEUED) {
        if (prev->yielded)
            prev->vcsw++;
        else
            prev->ivcsw++;
    }
    if (prev)
        prev->yielded = false;
    if (s->eevdf)
        eevdf_check(&cp->q);
    if (s->log)
        log_decision(s, cp, why, &d);
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
static bool charge_now(struct sim *s, struct sim_cpu *cp)
{
    uint64_t d = cp->uncharged;

    cp->uncharged = 0;
    return running(cp) && d && sched_charge(s->P, &cp->q, d);
}

/* The policy's timer, looked at again after a decision or a join: its due
 * time (timer_ns() counts from the last charge), and true if it is due at
 * once. */
static bool rearm(struct sim *s, struct sim_cpu *cp)
{
    uint64_t left = sched_timer_ns(s->P, &cp->q);

    cp->timer_at = left == UINT64_MAX ? UINT64_MAX : s->now - cp->uncharged + left;
    return left == 0;
}

/* A new RT budget period if the last one is over (the core's
 * rt_period_check()): the budget is whole again. True if that lets a
 * throttled RT task run. */
static bool rt_period_check(struct sim *s, struct sim_cpu *cp)
{
    if (s->now < cp->rt_period_end)
        return false;
    bool was_throttled = sched_rt_throttled(&cp->q);
    cp->rt_period_end = s->now + s->rt_period;
    rt_new_period(&cp->q);
    return was_throttled;
}

/* Steps 2 and 3 of a boundary (see the top of this file). */
static bool boundary_curr(struct sim *s, struct sim_cpu *cp, struct sim_task *c, char *why, size_t len)
{
    bool need = false, yields;
    enum sim_end end;

    cp->uncharged += s->quantum;
    end = finish_quantum(s, c, &yields);
    if (s->now % s->tick == 0) {
        need = rt_period_check(s, cp);
        need |= charge_now(s, cp) | sched_tick(s->P, &cp->q);
        if (need)
            add_reason(why, len, "", "tick");
    }
    if (cp->timer_at <= s->now) {
        cp->timer_at = UINT64_MAX;
        charge_now(s, cp);
        need = true;
        add_reason(why, len, "", "timer");
    }
    if (yields) {
        charge_now(s, cp);
        c->yielded = true;
        sched_yield_curr(s->P, &cp->q);
        need = true;
        add_reason(why, len, c->name, "yields");
    }
    if (end != SIM_GOES_ON) {
        charge_now(s, cp);
        sched_leave(s->P, &cp->q, &c->se, end == SIM_BLOCKS ? SCHED_LEAVE_BLOCK : SCHED_LEAVE_EXIT);
        c->state = end == SIM_BLOCKS ? SIM_T_ASLEEP : SIM_T_EXITED;
        c->vcsw += end == SIM_BLOCKS; /* it leaves the CPU of its own accord */
        need = true;
        add_reason(why, len, c->name, end == SIM_BLOCKS ? "blocks" : "exits");
    }
    return need;
}

/* ---- several CPUs: homes, joins and moves (kernel/sched/balance_rules.c) ---- */

static bool allows(const struct sim_task *t, unsigned cpu)
{
    return (t->allowed >> cpu) & 1;
}

/* The kernel's creation rule (core.c's allowed_cpu()): the allowed CPU
 * with the fewest tasks homed there, the first on a tie. */
static unsigned home_cpu(const struct sim *s, const struct sim_task *t)
{
    unsigned best = BALANCE_NO_CPU;
    for (unsigned k = 0; k < s->ncpus; k++)
        if (allows(t, k) && (best == BALANCE_NO_CPU || s->cpu[k].ntasks < s->cpu[best].ntasks))
            best = k;
    BUG_ON(best == BALANCE_NO_CPU); /* sim_setup gives every task a CPU of the machine */
    return best;
}

/* The machine as the rules see it, now: a CPU is idle when nothing runs
 * there and nobody joined it at this boundary (no wakeup on its way). */
static void view_now(const struct sim *s, struct balance_view *v)
{
    v->ncpus = s->ncpus;
    for (unsigned k = 0; k < s->ncpus; k++) {
        const struct sim_cpu *cp = &s->cpu[k];
        v->cpu[k].nr = sched_nr_runnable(&cp->q);
        v->cpu[k].load = sched_fair_load(s->P, &cp->q);
        v->cpu[k].idle = !running(cp) && !cp->joined;
    }
}

/* A reason's name, the trace's (the migration table's): the rules'
 * reasons are the trace's first ones (balance.c asserts it). */
static const char *why_name(enum balance_why why)
{
    static const char *const name[] = {
#define MIGRATE_NAME(id, name, what) [TRACE_MIGRATE_##id] = name,
        TRACE_MIGRATE_REASONS(MIGRATE_NAME)
#undef MIGRATE_NAME
    };
    return name[why];
}

/* t's home becomes dst, for why: counted, logged, and never outside its
 * set (the kernel's BUG_ON in send_to). */
static void rehome(struct sim *s, struct sim_task *t, unsigned dst, enum balance_why why)
{
    BUG_ON(dst >= s->ncpus || !allows(t, dst)); /* no move outside its set, ever */
    if (s->log) {
        char at[32];
        scn_format_us(at, sizeof at, (int64_t)s->now);
        fprintf(s->log, "\nt=%s %s moves from CPU %u to CPU %u: %s\n", at, t->name, t->cpu, dst, why_name(why));
    }
    s->cpu[t->cpu].ntasks--;
    s->cpu[dst].ntasks++;
    t->cpu = dst;
    s->moves[why]++;
}

/* t joins its home cp at this boundary (NEW, WAKE, or MIGRATE, carrying
 * its lag), as the core's drain_wakes(): current charged first, the
 * policy's timer looked at again, and t offered to wakeup_preempt()
 * unless a decision is due already. what: "arrives", "wakes", ... */
static void join(struct sim *s, struct sim_cpu *cp, struct sim_task *t, enum sched_join_reason jwhy, const char *what)
{
    bool preempts = false;
    char said[64];
    /* A delayed task, still queued, is requeued without charging
     * current first and without looking at the timer (Linux 6.18's
     * ttwu_runnable() -> requeue_delayed_entity()); 333238da9a19,
     * after 6.18, charges first (seed 001): REQUEUE_UPDATE_CURR. */
    bool requeue = t->se.on_queue;

    BUG_ON(cp != cpu_of(s, t) || !allows(t, t->cpu));
    if (!requeue || eevdf_feature(EEVDF_F_REQUEUE_UPDATE_CURR))
        cp->need |= charge_now(s, cp);
    sched_join(s->P, &cp->q, &t->se, jwhy);
    t->state = SIM_T_QUEUED;
    cp->joined = true;
    if (s->ncpus > 1 && balance_newidle_on(s->ncpus))
        balance_wake_ends_idle(&cp->bal, s->now);
    if (!requeue)
        cp->need |= rearm(s, cp);
    /* Linux asks the wakeup preemption only without a decision
     * pending (test_tsk_need_resched()); it charges current first. */
    if (running(cp) && !cp->need) {
        cp->need = charge_now(s, cp);
        preempts = sched_wakeup_preempt(s->P, &cp->q, &t->se);
        cp->need |= preempts;
    }
    snprintf(said, sizeof said, "%s%s", what, preempts ? " and preempts" : "");
    add_reason(cp->why, sizeof cp->why, t->name, said);
}

/* Wakeup placement (the core's wake_place()): where t, asleep and on no
 * queue, wakes. Every wakeup on paper is a timer's, which runs on the
 * sleeper's home CPU, so the waker is prev and wake-affine never
 * applies (the kernel's come from its pipes, which runq sim has not). */
static void wake_place(struct sim *s, struct sim_task *t)
{
    static struct balance_view v;
    enum balance_why why;

    if (s->ncpus < 2 || t->se.on_queue || !balance_wake_on(s->ncpus, sched_is_rt(&t->se)))
        return;
    view_now(s, &v);
    unsigned dst = balance_wake_target(&v, t->allowed, sched_nice_to_weight(t->se.nice), t->cpu, t->cpu, &why);
    if (dst != t->cpu)
        rehome(s, t, dst, why);
}

/* A pass's list (balance_rules.h's) and the sim it is of. */
struct detach_ctx {
    struct balance_pull pull;
    struct sim *s;
};

/* can_migrate_task(): queued and not running (for_each_queued lists only
 * those), not delayed, and the rules' test of its set; the walk stops at
 * loop_max (balance_pull_walk_on). */
static bool detach_collect(struct sched_entity *se, void *arg)
{
    struct detach_ctx *x = arg;
    struct sim_task *t = task_of(x->s, se);
    if (!(x->s->eevdf && eevdf_delayed(se)))
        balance_pull_offer(&x->pull, t, t->allowed, sched_nice_to_weight(se->nice));
    return balance_pull_walk_on(&x->pull);
}

/* Candidate i leaves its queue and joins dst's, carrying its lag (the
 * core's move_queued()). */
static bool detach_move(void *arg, unsigned i)
{
    struct detach_ctx *x = arg;
    struct sim *s = x->s;
    struct sim_task *t = x->pull.cand[i];
    const struct balance_env *env = x->pull.env;

    sched_leave(s->P, &cpu_of(s, t)->q, &t->se, SCHED_LEAVE_MIGRATE);
    rehome(s, t, env->dst, env->why);
    join(s, cpu_of(s, t), t, SCHED_JOIN_MIGRATE, why_name(env->why));
    return true;
}

/* sched_balance_rq(), as balance.c's: the busiest CPU's tasks that may
 * come, until the imbalance is met; a CPU that offers none is skipped.
 * Nothing is contended on paper. Returns the tasks pulled. */
static unsigned balance_rq(struct sim *s, unsigned dst, enum balance_idle idle, enum balance_why why)
{
    static struct balance_view v;
    uint64_t skip = 0;

    for (unsigned tries = 0; tries < s->ncpus; tries++) {
        struct balance_env env = { .dst = dst, .idle = idle, .why = why };
        view_now(s, &v);
        unsigned src = balance_find_busiest(&v, &env, skip);
        if (src == BALANCE_NO_CPU)
            return 0;
        env.src = src;
        struct sched_queue *q = &s->cpu[src].q;
        struct detach_ctx x = { .pull = { .env = &env, .n = 0 }, .s = s };
        s->P->for_each_queued(q, detach_collect, &x); /* the fair class's: RT is rt.c's */
        unsigned moved = balance_detach(&env, sched_nr_runnable(q), x.pull.weight, x.pull.n, detach_move, &x);
        if (moved)
            return moved;
        skip |= 1ull << src;
    }
    return 0;
}

/* The periodic balance of cp, when due (the core's timer interrupt):
 * its interval from the knob, longer while it is busy. */
static void periodic(struct sim *s, struct sim_cpu *cp)
{
    bool busy = running(cp) != NULL;
    unsigned knob = (unsigned)scn_knob_value(s->w, scn_knob_index("balance_interval_ms"));

    if (!cp->bal.next_balance)
        cp->bal.next_balance = s->now + balance_interval_ns(s->ncpus, knob, busy);
    if (s->now < cp->bal.next_balance)
        return;
    balance_rq(s, (unsigned)(cp - s->cpu), busy ? BALANCE_NOT_IDLE : BALANCE_IDLE, BALANCE_WHY_PERIODIC);
    cp->bal.next_balance = s->now + balance_interval_ns(s->ncpus, knob, busy);
}

/* cp's decision picked nobody: pull a waiting task from the busiest CPU
 * (the core's schedule(): sched_balance_newidle()) and decide again. A
 * balance costs nothing on paper. */
static void newidle(struct sim *s, struct sim_cpu *cp)
{
    static struct balance_view v;

    view_now(s, &v);
    if (!balance_newidle_begin(&cp->bal, &v, s->now))
        return;
    bool pulled = balance_rq(s, (unsigned)(cp - s->cpu), BALANCE_NEWLY_IDLE, BALANCE_WHY_NEWIDLE) > 0;
    balance_newidle_end(&cp->bal, 0, pulled);
    if (pulled) {
        charge_now(s, cp);
        decide(s, cp, cp->why);
        rearm(s, cp);
    }
}

static void sim_run(struct sim *s)
{
    const struct scenario *w = s->w;
    struct sched_params params = { w->cpus, s->tick };
    /* The RT budget as the core gives it (core.c's rt_budget_ns()): none
     * if the runtime fills the period. */
    uint64_t rt_runtime = (uint64_t)scn_knob_value(w, scn_knob_index("rt_runtime_us")) * 1000;

    s->rt_period = (uint64_t)scn_knob_value(w, scn_knob_index("rt_period_us")) * 1000;
    for (unsigned k = 0; k < s->ncpus; k++) {
        struct sim_cpu *cp = &s->cpu[k];
        sched_queue_init(s->P, &cp->q, &params);
        rt_set_runtime(&cp->q, rt_runtime >= s->rt_period ? RT_NO_BUDGET : rt_runtime);
        cp->rt_period_end = s->rt_period;
        cp->uncharged = 0;
        cp->timer_at = UINT64_MAX;
        cp->ntasks = 0;
        balance_state_init(&cp->bal);
        cp->bal.newidle_decay_at = 0;
    }
    memset(s->moves, 0, sizeof s->moves);
    for (unsigned i = 0; i < s->ntask; i++) {
        struct sim_task *t = &s->t[i];
        memset(t, 0, sizeof *t);
        t->spec = &w->tasks[scn_instance(w, i, NULL)];
        scn_instance_name(w, i, t->name, sizeof t->name);
        t->rng = scn_rng_init(w->seed, i);
        t->se.id = (int)i;
        t->se.nice = t->spec->nice;
        t->se.slice_ns = t->spec->slice_ns;
        /* One CPU: CPU 0 stands for whichever the scenario pins to. */
        uint64_t all = s->ncpus >= 64 ? ~0ull : (1ull << s->ncpus) - 1;
        t->allowed = s->ncpus == 1 ? 1 : t->spec->cpumask ? t->spec->cpumask & all : all;
        t->cpu = home_cpu(s, t);
        s->cpu[t->cpu].ntasks++;
        if (t->spec->rt)
            sched_set_class(s->P, &t->se, t->spec->rt_prio,
                            t->spec->rt_policy == SCN_PROG_RT_RR ? RT_RR : RT_FIFO);
    }
    for (unsigned k = 0; k <= s->nquanta; k++) {
        s->now = (uint64_t)k * s->quantum;
        /* 1-3: the quantum just run, the tick, the timer, its step's end */
        for (unsigned n = 0; n < s->ncpus; n++) {
            struct sim_cpu *cp = &s->cpu[n];
            struct sim_task *c = task_of(s, running(cp));
            cp->why[0] = '\0';
            cp->need = cp->joined = false;
            if (c)
                cp->need = boundary_curr(s, cp, c, cp->why, sizeof cp->why);
        }
        if (k == s->nquanta)
            break;
        /* the periodic balance, from the timer interrupt */
        if (s->ncpus > 1 && balance_periodic_on(s->ncpus))
            for (unsigned n = 0; n < s->ncpus; n++)
                periodic(s, &s->cpu[n]);
        /* 4: arrivals and wakeups */
        for (unsigned i = 0; i < s->ntask; i++) {
            struct sim_task *t = &s->t[i];
            bool new = t->state == SIM_T_NEW && t->spec->arrive_ns == s->now;

            if (!new && !(t->state == SIM_T_ASLEEP && t->wake_at == s->now))
                continue;
            if (new) {
                sched_init_entity(s->P, &cpu_of(s, t)->q, &t->se);
                t->left = t->spec->nsteps ? t->spec->steps[0].ns : UINT64_MAX;
                t->target = s->now;
            } else {
                t->waiting = true; /* its lateness counts from wake_at, now */
                do /* the run after the sleep (yields before it are moot) */
                    t->seg = (t->seg + 1) % t->spec->nsteps;
                while (t->spec->steps[t->seg].kind != SCN_RUN);
                t->left = t->spec->steps[t->seg].ns;
                wake_place(s, t);
            }
            join(s, cpu_of(s, t), t, new ? SCHED_JOIN_NEW : SCHED_JOIN_WAKE, new ? "arrives" : "wakes");
        }
        /* 5: the decisions, and the quantum */
        for (unsigned n = 0; n < s->ncpus; n++) {
            struct sim_cpu *cp = &s->cpu[n];
            if (cp->need || (!running(cp) && cp->joined)) {
                charge_now(s, cp);
                rt_period_check(s, cp); /* the core's schedule() looks too */
                decide(s, cp, cp->why);
                rearm(s, cp);
                if (!running(cp) && s->ncpus > 1 && balance_newidle_on(s->ncpus))
                    newidle(s, cp);
            }
        }
        for (unsigned n = 0; n < s->ncpus; n++) {
            struct sim_task *c = task_of(s, running(&s->cpu[n]));
            if (c && c->waiting) {
                c->waiting = false;
                scn_samples_add(&c->late, s->now - c->wake_at);
            }
            if (s->sched)
                s->sched[(size_t)n * s->nquanta + k] = c ? (int)(c - s->t) : -1;
        }
    }
}

/* ---- output ---- */

/* One line a CPU (several CPUs: each begins "cpuN "), then, with
 * several, the moves by reason. */
static void print_schedule(FILE *f, const struct sim *s)
{
    for (unsigned n = 0; n < s->ncpus; n++) {
        const int *sched = s->sched + (size_t)n * s->nquanta;
        if (s->ncpus > 1)
            fprintf(f, "cpu%u ", n);
        for (unsigned k = 0; k < s->nquanta; k++) {
            int i = sched[k];
            if (s->one_char_names)
                fputc(i < 0 ? '.' : s->t[i].name[0], f);
            else
                fprintf(f, "%s%s", k ? " " : "", i < 0 ? "." : s->t[i].name);
        }
        fputc('\n', f);
    }
    if (s->ncpus < 2)
        return;
    uint64_t all = 0;
    for (int r = 0; r <= BALANCE_WHY_PERIODIC; r++)
        all += s->moves[r];
    fprintf(f, "moves: %" PRIu64, all);
    for (int r = 0; r <= BALANCE_WHY_PERIODIC; r++)
        if (s->moves[r])
            fprintf(f, ", %s %" PRIu64, why_name((enum balance_why)r), s->moves[r]);
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
    }
    if (w->cpus > SIM_MAX_CPUS) {
        snprintf(err, errlen, "%s: runq sim models at most %d CPUs, not %u", w->name, SIM_MAX_CPUS, w->cpus);
        return -1;
    }
    return 0;
}

/* How many CPUs runq sim models for w: the scenario's when a balancing
 * switch is on or its tasks need more than one CPU (a task that may run
 * on several, or tasks pinned apart); else one, as runq sim always did,
 * the scenario's `cpus` then only scaling EEVDF's base slice. Features
 * set. */
static unsigned sim_cpus_modelled(const struct scenario *w)
{
    int pinned = -1;
    bool apart = false;

    if (w->cpus < 2)
        return 1;
    for (int i = 0; i < w->ntasks; i++) {
        uint64_t m = w->tasks[i].cpumask;
        if (!m)
            continue;
        if (m & (m - 1))
            apart = true;
        else if (pinned >= 0 && __builtin_ctzll(m) != pinned)
            apart = true;
        else
            pinned = __builtin_ctzll(m);
    }
    bool balances = eevdf_feature(EEVDF_F_BALANCE_WAKE) || eevdf_feature(EEVDF_F_BALANCE_NEWIDLE) ||
                    eevdf_feature(EEVDF_F_BALANCE_PERIODIC);
    return apart || balances ? w->cpus : 1;
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
    s->ncpus = sim_cpus_modelled(w);
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
        tr->cpu = s.ncpus > 1 ? (int)t->cpu : t->spec->cpumask ? __builtin_ctzll(t->spec->cpumask) : 0;
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
    s.sched = xcalloc((size_t)s.nquanta * s.ncpus, sizeof *s.sched);
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
