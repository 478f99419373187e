/*
 * The scheduler core: decisions, the wake protocol, sleepers and timers.
 *
 * Locking: each CPU's queue (struct rq) has one lock, taken with interrupts
 * off. Everything about a task that is not its state word is changed only
 * under its home queue's lock; the home itself (t->cpu) changes only under
 * the old home's lock while the task is on no queue and Waking (task.h), so
 * lock_home() finds the right lock by looking again once it holds one. The
 * state word follows the protocol in task.h; wake stacks are lock-free.
 *
 * A CPU holds at most one queue lock and waits for no other while it
 * holds it: a move sends the task through its new CPU's lock-free wake
 * stack under the old home's lock alone, and a balance that pulls takes
 * the other CPU's lock with trylock (balance.c), so no order between
 * queue locks is needed and none can deadlock.
 *
 * A decision (schedule) holds the queue lock across the switch: the task
 * switched to releases it (finish_switch), so no other CPU can see a
 * half-switched queue.
 */
#include "sched.h"
#include "balance.h"
#include "decide.h"
#include "internal.h"
#include "eevdf_features.h"
#include "knob.h"
#include "rq.h"
#include "../arch/x86_64/apic.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../arch/x86_64/layout.h"
#include "cpus.h"
#include "../arch/x86_64/trap.h"
#include "../lib/bug.h"
#include "../lib/printf.h"
#include "../trace/trace.h"

const struct sched_policy *sched_policy_current;
u64 sched_tick_ns;
unsigned sched_hz;

void switch_stack(u64 *save_rsp, u64 new_rsp);

static inline struct task *task_of(struct sched_entity *se)
{
    return container_of(se, struct task, se);
}

static inline const struct sched_policy *pol(void)
{
    return sched_policy_current;
}

struct task *current(void)
{
    return this_cpu()->rq.curr;
}

const char *run_state_name(u32 state)
{
    static const char *const names[] = { "queued", "blocking", "sleeping", "waking", "dead" };
    return state < ARRAY_SIZE(names) ? names[state] : "?";
}

static inline bool state_cas(struct task *t, u32 from, u32 to)
{
    return __atomic_compare_exchange_n(&t->state, &from, to, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Locks t's home queue, with interrupts off: the home it has once the
 * lock is held (a move changes t->cpu under the old home's lock). */
static struct rq *lock_home(struct task *t, u64 *flags)
{
    for (;;) {
        struct rq *rq = &cpus[READ_ONCE(t->cpu)].rq;
        *flags = spin_lock_irqsave(&rq->lock);
        if (rq == &cpus[READ_ONCE(t->cpu)].rq)
            return rq;
        spin_unlock_irqrestore(&rq->lock, *flags);
    }
}

/* ---- sleep list: tasks asleep until a deadline, soonest first ---- */

static void sleep_insert(struct rq *rq, struct task *t)
{
    struct task **pp = &rq->sleep_head, *prev = NULL;
    while (*pp && (*pp)->sleep_deadline <= t->sleep_deadline) {
        prev = *pp;
        pp = &(*pp)->sleep_next;
    }
    t->sleep_next = *pp;
    t->sleep_prev = prev;
    if (*pp)
        (*pp)->sleep_prev = t;
    *pp = t;
    t->on_sleep_list = true;
}

static void sleep_remove(struct rq *rq, struct task *t)
{
    BUG_ON(!t->on_sleep_list);
    if (t->sleep_prev)
        t->sleep_prev->sleep_next = t->sleep_next;
    else
        rq->sleep_head = t->sleep_next;
    if (t->sleep_next)
        t->sleep_next->sleep_prev = t->sleep_prev;
    t->sleep_next = t->sleep_prev = NULL;
    t->on_sleep_list = false;
}

/* ---- wake stack ---- */

/* Pushes t (state Waking) on its home CPU's stack and makes sure that CPU
 * decides soon: an IPI if it is another CPU and its stack was empty (a
 * non-empty stack already has a decision coming for it). */
static void wake_push(struct task *t)
{
    struct cpu *target = &cpus[t->cpu];
    struct task *old = __atomic_load_n(&target->rq.wake_stack, __ATOMIC_RELAXED);
    do {
        t->wake_next = old;
    } while (!__atomic_compare_exchange_n(&target->rq.wake_stack, &old, t, true, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED));
    if (target == this_cpu()) {
        if (!target->need_resched)
            target->resched_why = WHY_PREEMPT;
        target->need_resched = true;
    } else if (!old)
        lapic_send_ipi(cpu_apic_id[t->cpu], VEC_RESCHED);
}

/* Joins every task woken since the last decision, in the order they were
 * woken, at time now, taking Linux's steps for each (try_to_wake_up()):
 * current is charged before an enqueue (not before a delayed task's
 * requeue: 6.18's ttwu_runnable() does not; with REQUEUE_UPDATE_CURR it
 * is, as after 333238da9a19), the policy's timer is looked at again
 * (hrtick_update()), and the wakeup preemption is asked unless a pick is
 * due already (*pending; test_tsk_need_resched()). Sets *pending if a
 * charge, the timer or a wakeup asks for a pick. Each joiner's JOIN
 * numbers and the check's answer are noted as they are now, for the trace
 * after the decision. Returns how many joined. Queue lock held. */
static bool account_curr(struct rq *rq, u64 now);

static void forward_disallowed(struct rq *rq, struct task **list);

static unsigned drain_wakes(struct rq *rq, struct task **joined, u64 now, bool *pending)
{
    struct task *t = __atomic_exchange_n(&rq->wake_stack, NULL, __ATOMIC_ACQUIRE), *fifo = NULL;
    forward_disallowed(rq, &t);
    struct task *last = t; /* the newest, last once reversed (forwarded ones gone) */
    unsigned n = 0;
    while (t) { /* the stack is newest first: reverse it */
        struct task *next = t->wake_next;
        t->wake_next = fifo;
        fifo = t;
        t = next;
    }
    /* The woken tasks stay linked by wake_next until the decision ends: a
     * task is pushed again only once it has run and blocked again. */
    if (fifo) {
        last->wake_next = *joined;
        *joined = fifo;
    }
    for (t = fifo; t; t = t->wake_next, n++) {
        BUG_ON(t->state != RUN_WAKING);
        if (t->on_sleep_list)
            sleep_remove(rq, t);
        t->sleep_deadline = 0;
        bool migrating = t->moving;
        t->moving = false;
        t->join_why = migrating ? TRACE_JOIN_MIGRATE : TRACE_JOIN_WAKE;
        __atomic_store_n(&t->state, RUN_QUEUED, __ATOMIC_RELEASE);
#ifdef RUNQ_BUG_IDLE_LAST_RESORT
        /* Test-proving bug, the seed's boot stall: the idle task is the
         * last resort whatever it runs, so a woken boot waits until nothing
         * else can run. TestIdleTakesTurns must fail. */
        if (t->is_idle) {
            rq->idle_idling = true;
            continue;
        }
#endif
        bool requeue = t->se.on_queue; /* delayed: still queued */
        bool charge_first = !requeue || eevdf_feature(EEVDF_F_REQUEUE_UPDATE_CURR);
        if (charge_first && account_curr(rq, now))
            *pending = true;
        /* For the trace, the lag it brings: a delayed task's is V −
         * vruntime now, with V as the charge above left it
         * (requeue_delayed_entity()). */
        struct trace_rec_join *jn = &t->join_rec;
        bool noting = trace_on(TRACE_REC_JOIN);
        s64 lag = noting ? trace_join_lag(rq, t) : 0;
        sched_join(pol(), &rq->q, &t->se, migrating ? SCHED_JOIN_MIGRATE : SCHED_JOIN_WAKE);
        if (noting) {
            trace_join_note(rq, t, lag, jn);
            jn->jflags |= (requeue ? TRACE_JF_REQUEUE : 0) | (requeue && charge_first ? TRACE_JF_CHARGED_FIRST : 0) |
                          (requeue && lag > 0 && eevdf_feature(EEVDF_F_DELAY_ZERO) ? TRACE_JF_CLIPPED : 0);
        }
        bool busy = sched_running(&rq->q) != NULL;
        if (!requeue && busy && sched_timer_ns(pol(), &rq->q) == 0)
            *pending = true;
        if (busy && *pending && noting) {
            trace_join_note_curr(rq, t, jn);
            jn->jflags |= TRACE_JF_PENDING;
        }
        if (busy && !*pending) {
            if (account_curr(rq, now))
                *pending = true;
            if (noting)
                trace_join_note_curr(rq, t, jn);
            bool preempts = sched_wakeup_preempt(pol(), &rq->q, &t->se);
            if (preempts)
                *pending = true;
            if (noting) {
                jn->check = preempts ? TRACE_JC_PREEMPT : TRACE_JC_KEPT;
                if (rq->q.cut_short_by == &t->se)
                    jn->jflags |= TRACE_JF_CUT_SHORT;
            }
        }
    }
    if (n && !sched_running(&rq->q))
        *pending = true; /* nothing current: the joiners are the pick */
    if (n && eevdf_feature_now(EEVDF_F_BALANCE_NEWIDLE))
        balance_note_wake(rq, now);
    return n;
}

static void schedule(enum sched_why why);
static void send_to(struct task *t, unsigned dst, enum trace_migrate_reason why, u8 mflags);
static unsigned allowed_cpu(const struct task *t);

/* t (Waking) joins the CPU wakeup placement chooses (balance.c), which
 * may be another: select_task_rq() in try_to_wake_up(). It stays where
 * it is if it is still queued (delayed: ttwu_runnable() places nothing)
 * or still its home's current (its stack in use until the switch away
 * completes: a decision that halts drops the lock on it). rq, t's home,
 * locked. */
__attribute__((noinline)) static void wake_place(struct rq *rq, struct task *t)
{
    enum trace_migrate_reason why;
    unsigned dst = t->cpu;
    if (!t->se.on_queue && rq->curr != t && !t->is_idle) {
        dst = balance_wake_cpu(t, this_cpu()->id, &why);
        if (!cpu_allowed(t, dst)) { /* select_fallback_rq() */
            dst = allowed_cpu(t);
            why = TRACE_MIGRATE_AFFINITY;
        }
    }
    if (dst == t->cpu) {
        wake_push(t);
        return;
    }
    if (t->on_sleep_list)
        sleep_remove(rq, t);
    t->sleep_deadline = 0;
    WRITE_ONCE(rq->stats.migrations, rq->stats.migrations + 1);
    send_to(t, dst, why, 0);
}

/* A decision is due on this CPU: make it now if nothing forbids it. */
static void resched_if_due(void)
{
    struct cpu *c = this_cpu();
    if (c->need_resched && c->preempt_count == 0 && !c->in_sched && irqs_enabled())
        schedule(WHY_PREEMPT);
}

bool task_wake(struct task *t)
{
    /* Still on its CPU, about to block: call the block off. This is a
     * locked operation even when it fails, which the waker's side of the
     * memory-ordering argument needs (docs/kernel.md). */
    if (state_cas(t, RUN_BLOCKING, RUN_QUEUED))
        return true;
    /* Off the queue: of all wakers and the deadline, one wins this. */
    if (!state_cas(t, RUN_SLEEPING, RUN_WAKING))
        return false;
#ifdef RUNQ_BUG_LOST_WAKEUP
    /* Test-proving bug: drop one wakeup in 1500. TestWakeStorm must fail. */
    static u32 lost;
    if (__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED) % 1500 == 0) {
        __atomic_store_n(&t->state, RUN_SLEEPING, __ATOMIC_SEQ_CST);
        return true;
    }
#endif
    t->wake_ts = clock_ns();
    trace_wake(current(), t, false);
    if (eevdf_feature_now(EEVDF_F_BALANCE_WAKE)) {
        u64 flags;
        struct rq *rq = lock_home(t, &flags);
        wake_place(rq, t);
        spin_unlock_irqrestore(&rq->lock, flags);
    } else {
        u64 flags = irq_save();
        wake_push(t);
        irq_restore(flags);
    }
    resched_if_due();
    return true;
}

void task_prepare_block(void)
{
    struct task *t = current();
    /* xchg is locked: a full barrier between publishing Blocking and the
     * caller's look for work that would make blocking unnecessary. */
    u32 was = __atomic_exchange_n(&t->state, RUN_BLOCKING, __ATOMIC_SEQ_CST);
    BUG_ON(was != RUN_QUEUED);
}

void task_cancel_block(void)
{
    /* Fails harmlessly if a waker already made it Queued. */
    state_cas(current(), RUN_BLOCKING, RUN_QUEUED);
}

void task_block(u64 deadline)
{
    struct task *t = current();
    u64 flags = spin_lock_irqsave(&this_cpu()->rq.lock);
    t->sleep_deadline = deadline;
    spin_unlock_irqrestore(&this_cpu()->rq.lock, flags);
    schedule(WHY_BLOCK);
    BUG_ON(t->state != RUN_QUEUED);
}

void task_sleep_ns(u64 ns)
{
    u64 deadline = clock_ns() + ns;
    /* Nobody else wakes a plain sleeper, but a stray task_wake may: sleep
     * on until the deadline. */
    while (clock_ns() < deadline) {
        task_prepare_block();
        task_block(deadline);
    }
}

void task_yield(void)
{
    u64 flags = spin_lock_irqsave(&this_cpu()->rq.lock);
    struct rq *rq = &this_cpu()->rq;
    if (rq->curr->se.on_queue) {
        account_curr(rq, clock_ns()); /* yield_task_fair()'s update_curr() */
        sched_yield_curr(pol(), &rq->q);
    }
    spin_unlock_irqrestore(&rq->lock, flags);
    schedule(WHY_YIELD);
}

void preempt_disable(void)
{
    this_cpu()->preempt_count++;
    __asm__ volatile("" ::: "memory");
}

void preempt_enable(void)
{
    __asm__ volatile("" ::: "memory");
    struct cpu *c = this_cpu();
    BUG_ON(c->preempt_count <= 0);
    c->preempt_count--;
    resched_if_due();
}

/* ---- accounting and timers ---- */

/* Adds the time since t (the running task, or the one leaving the CPU)
 * last went on or was last charged to its run time (or the CPU's idle
 * time): the books only, not the policy. Returns that time. Queue lock
 * held. */
/* Around every change of the books a lock-free reader may look at. */
static inline void books_begin(struct rq *rq)
{
    WRITE_ONCE(rq->books_seq, rq->books_seq + 1);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void books_end(struct rq *rq)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    WRITE_ONCE(rq->books_seq, rq->books_seq + 1);
}

static u64 account_time(struct rq *rq, struct task *t, u64 now)
{
    u64 delta = now > t->exec_start ? now - t->exec_start : 0;
    books_begin(rq);
    t->exec_start = now;
    if (t == rq->idle && rq->idle_idling) { /* halted time is not run time */
        WRITE_ONCE(rq->stats.idle_ns, rq->stats.idle_ns + delta);
    } else {
        t->runtime_ns += delta;
        WRITE_ONCE(rq->stats.busy_ns, rq->stats.busy_ns + delta);
        if (sched_is_rt(&t->se))
            WRITE_ONCE(rq->stats.rt_ns, rq->stats.rt_ns + delta);
    }
    books_end(rq);
    return delta;
}

/* Charges the running task for the time since it last went on (or was last
 * charged); true if the policy asks for a decision (policy.h). Queue lock
 * held. */
static bool account_curr(struct rq *rq, u64 now)
{
    struct task *t = rq->curr;
    u64 delta = account_time(rq, t, now);
    if (!t->se.on_queue || sched_running(&rq->q) != &t->se)
        return false;
    bool want = sched_charge(pol(), &rq->q, delta);
    WRITE_ONCE(rq->stats.rt_throttled, rq->q.rt.nr_throttled);
    return want;
}

/* ---- the RT budget (throttling, rt.h; docs/kernel.md) ---- */

static u64 rt_period_ns(void)
{
    return (u64)sched_knob(KNOB_RT_PERIOD_US) * NSEC_PER_USEC;
}

/* The budget a queue gets: none if the runtime fills the period. */
static u64 rt_budget_ns(void)
{
    u64 runtime = (u64)sched_knob(KNOB_RT_RUNTIME_US) * NSEC_PER_USEC;
    return runtime >= rt_period_ns() ? RT_NO_BUDGET : runtime;
}

/* Each CPU's period ends now: its next tick starts a new one with the new
 * budget (and decides again if that lets a throttled RT task run). */
static void sched_rt_budget_changed(void)
{
    for (unsigned c = 0; c < ncpus; c++) {
        struct rq *rq = &cpus[c].rq;
        u64 flags = spin_lock_irqsave(&rq->lock);
        rt_set_runtime(&rq->q, rt_budget_ns());
        rq->rt_period_end = clock_ns();
        spin_unlock_irqrestore(&rq->lock, flags);
    }
}

/* knob.c keeps the values; a change that moves the RT budget reaches the
 * queues from here, so that knob.c never calls the core. */
bool sched_knob_set(enum sched_knob k, s64 v, const char **why)
{
    if (k == KNOB_BALANCE_INTERVAL_MS && v &&
        (v < BALANCE_INTERVAL_MIN_MS((s64)ncpus) || v > BALANCE_INTERVAL_MAX_MS((s64)ncpus))) {
        *why = "outside Linux's bounds for this machine: CPUs .. 2 x CPUs ms, or 0";
        return false;
    }
    if (!sched_knob_store(k, v, why))
        return false;
    if (k == KNOB_RT_RUNTIME_US || k == KNOB_RT_PERIOD_US)
        sched_rt_budget_changed();
    return true;
}

/* Starts a new RT period on rq if its last one is over: the budget is
 * whole again. True if that lets throttled RT tasks run (a decision is
 * due). Lock held. */
static bool rt_period_check(struct rq *rq, u64 now)
{
    if (now < rq->rt_period_end)
        return false;
    bool was_throttled = sched_rt_throttled(&rq->q);
    rq->rt_period_end = now + rt_period_ns();
    rt_new_period(&rq->q);
    return was_throttled;
}

/* Arms the one-shot timer for the earliest of: the next tick (only while a
 * task of the policy runs: an idle CPU has no tick), the head of the sleep
 * list, and the policy's own timer (end of slice, HRTICK). Lock held. */
static void arm_timer(struct rq *rq, u64 now)
{
    u64 when = UINT64_MAX;
    bool busy = sched_running(&rq->q) != NULL;
    if (busy) {
        if (!rq->next_tick)
            rq->next_tick = now + sched_tick_ns;
        when = rq->next_tick;
        /* timer_ns() counts from current's last charge */
        u64 left = sched_timer_ns(pol(), &rq->q);
        u64 from = rq->curr->exec_start < now ? rq->curr->exec_start : now;
        rq->slice_end = left == UINT64_MAX ? 0 : from + left;
        if (rq->slice_end && rq->slice_end < when)
            when = rq->slice_end;
    } else {
        rq->next_tick = 0;
        rq->slice_end = 0;
    }
    if (rq->sleep_head) {
        u64 wake_at = rq->sleep_head->sleep_deadline;
#ifdef RUNQ_BUG_SLEEP_AT_TICK
        /* Test-proving bug: sleepers are noticed only at tick boundaries.
         * TestSleepAccuracy must fail. */
        wake_at = (wake_at / sched_tick_ns + 1) * sched_tick_ns;
#endif
        if (wake_at < when)
            when = wake_at;
    }
    if (eevdf_feature_now(EEVDF_F_BALANCE_PERIODIC)) { /* an idle CPU too: no nohz kick here */
        u64 balance_at = balance_next(rq, busy, now);
        if (balance_at < when)
            when = balance_at;
    }
    if (when == UINT64_MAX)
        lapic_timer_stop();
    else
        lapic_timer_oneshot(when > now ? when - now : 1);
}

/* Sleepers whose deadline has come are woken like any other wakeup: the
 * deadline races the wakers through the same compare-and-swap. */
static void expire_sleepers(struct rq *rq, u64 now)
{
    while (rq->sleep_head && rq->sleep_head->sleep_deadline <= now) {
        struct task *t = rq->sleep_head;
        sleep_remove(rq, t);
        if (state_cas(t, RUN_SLEEPING, RUN_WAKING)) {
            t->wake_ts = t->sleep_deadline; /* the wait starts at the deadline */
            trace_wake(NULL, t, true);
            if (eevdf_feature_now(EEVDF_F_BALANCE_WAKE))
                wake_place(rq, t); /* the timer's CPU is its home: the waker's */
            else
                wake_push(t);
        }
    }
}

static void sched_timer_interrupt(void)
{
    struct cpu *c = this_cpu();
    struct rq *rq = &c->rq;
    spin_lock(&rq->lock);
    u64 now = clock_ns();
    if (rq->next_tick && now >= rq->next_tick) {
        do
            rq->next_tick += sched_tick_ns;
        while (rq->next_tick <= now);
        stats_record_tick(&rq->stats, sched_nr_runnable(&rq->q));
        bool want = rt_period_check(rq, now);
        if (sched_running(&rq->q)) {
            /* entity_tick(): the charge's update_curr() asks, or not */
            if (account_curr(rq, now))
                want = true;
            if (sched_tick(pol(), &rq->q))
                want = true;
        }
        if (want) {
            if (!c->need_resched)
                c->resched_why = WHY_TICK;
            c->need_resched = true;
            c->resched_forced = true;
        }
        trace_tick(rq);
        trace_periodic(rq, now);
    }
    if (rq->slice_end && now >= rq->slice_end) {
        rq->slice_end = 0;
        if (!c->need_resched)
            c->resched_why = WHY_SLICE;
        c->need_resched = true;
        c->resched_forced = true;
    }
    expire_sleepers(rq, now);
    if (eevdf_feature_now(EEVDF_F_BALANCE_PERIODIC))
        balance_periodic(rq, c->id, now);
    if (!c->need_resched)
        arm_timer(rq, now);
    spin_unlock(&rq->lock);
}

static void sched_resched_interrupt(void)
{
    struct cpu *c = this_cpu();
    if (!c->need_resched)
        c->resched_why = WHY_IPI;
    c->need_resched = true;
}

static void sched_irq_exit(void)
{
    struct cpu *c = this_cpu();
    if (c->need_resched && c->preempt_count == 0 && !c->in_sched)
        schedule((enum sched_why)c->resched_why);
}

/* ---- moving tasks between CPUs ---- */

bool cpu_allowed(const struct task *t, unsigned cpu)
{
    return (t->cpus_allowed >> cpu) & 1;
}

/* Blocked but kept queued by EEVDF (DELAY_DEQUEUE): it stays where it is. */
bool delayed(const struct task *t)
{
    return pol() == &eevdf_policy && t->se.on_queue && eevdf_delayed(&t->se);
}

/* The allowed CPU with the fewest tasks homed there (the creation rule). */
static unsigned allowed_cpu(const struct task *t)
{
    unsigned best = t->cpu;
    for (unsigned c = 0; c < ncpus; c++)
        if (cpu_allowed(t, c) && (!cpu_allowed(t, best) || READ_ONCE(cpus[c].rq.ntasks) < READ_ONCE(cpus[best].rq.ntasks)))
            best = c;
    return best;
}

/* t (state Waking, on no queue but mflags' TRACE_MF_QUEUED says it was
 * just now) gets dst as its home and goes onto dst's wake stack, to join
 * there by migrating: every move of a task between CPUs ends here. The
 * MIGRATE record says why and what each CPU held; a queued task's was
 * emitted before it left its queue (move_queued), so that its CPU's
 * count still holds it. Its old home's lock held. */
static void send_to(struct task *t, unsigned dst, enum trace_migrate_reason why, u8 mflags)
{
    BUG_ON(dst >= ncpus || !cpu_allowed(t, dst)); /* no move outside its set, ever */
    if (!(mflags & TRACE_MF_QUEUED))
        trace_migrate(t, dst, why, mflags);
    __atomic_sub_fetch(&cpus[t->cpu].rq.ntasks, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&cpus[dst].rq.ntasks, 1, __ATOMIC_RELAXED);
    t->moving = true;
    WRITE_ONCE(t->cpu, dst);
    wake_push(t);
}

/* t, queued on rq and not on its CPU, leaves for dst's queue, carrying its
 * lag (the policy's leave and join by MIGRATE: EEVDF keeps the lag as it
 * does across a sleep, place_entity()). Traced LEAVE migrate here, JOIN
 * migrate where it lands. False if it cannot go now: it is running,
 * blocking, delayed, exited or the idle task. rq's lock held. */
bool move_queued(struct rq *rq, struct task *t, unsigned dst, enum trace_migrate_reason why)
{
    if (t->is_idle || t == rq->curr || !t->se.on_queue || delayed(t) || dst == t->cpu || dst >= ncpus)
        return false;
    if (!state_cas(t, RUN_QUEUED, RUN_WAKING))
        return false;
    trace_migrate(t, dst, why, TRACE_MF_QUEUED);
    trace_leave(rq, t, TRACE_LEAVE_MIGRATE, 0); /* its lag on this queue */
    sched_leave(pol(), &rq->q, &t->se, SCHED_LEAVE_MIGRATE);
#ifdef RUNQ_BUG_MIGRATE_FORGETS_LAG
    /* Test-proving bug: a move forgets the lag. tests/kernel/rt_kernel.sh must fail. */
    t->se.ee.vlag = 0;
#endif
    WRITE_ONCE(rq->stats.migrations, rq->stats.migrations + 1);
    send_to(t, dst, why, TRACE_MF_QUEUED);
    return true;
}

/* Tasks woken here that may no longer run here (their set changed while
 * they slept) go on to an allowed CPU instead of joining; list is the
 * drained wake stack, newest first. rq's lock held. */
static void forward_disallowed(struct rq *rq, struct task **list)
{
    for (struct task **pp = list; *pp;) {
        struct task *t = *pp;
        if (cpu_allowed(t, t->cpu) || t->se.on_queue) { /* a delayed one rejoins here */
            pp = &t->wake_next;
            continue;
        }
        *pp = t->wake_next;
        if (t->on_sleep_list)
            sleep_remove(rq, t);
        t->sleep_deadline = 0;
        WRITE_ONCE(rq->stats.migrations, rq->stats.migrations + 1);
        send_to(t, allowed_cpu(t), TRACE_MIGRATE_AFFINITY, 0);
    }
}

/* An idle CPU t may run on, not in taken (CPUs already given a task by
 * this release), or -1. Read without their locks: a hint, as Linux's
 * select_idle_cpu() reads other CPUs' idleness. */
static int idle_cpu_for(const struct task *t, u64 taken)
{
    for (unsigned c = 0; c < ncpus; c++) {
        if (c == t->cpu || !cpu_allowed(t, c) || ((taken >> c) & 1))
            continue;
        if (balance_cpu_idle(c))
            return (int)c;
    }
    return -1;
}

struct replace_ctx {
    struct task *cand[16];
    unsigned n;
};

static bool replace_collect(struct sched_entity *se, void *arg)
{
    struct replace_ctx *x = arg;
    if (x->n == ARRAY_SIZE(x->cand))
        return false;
    x->cand[x->n++] = task_of(se);
    return true;
}

/* A higher class took this CPU from prev (knob replace_on_release): each
 * fair task queued here that may run on an idle CPU goes there, carrying
 * its lag, rather than wait out the higher class; the rest stay. prev,
 * whose stack this still is, goes once the switch is done (finish_switch).
 * rq's lock held. */
static void replace_released(struct rq *rq, struct task *prev)
{
    struct replace_ctx x = { .n = 0 };
    u64 taken = 0;
    pol()->for_each_queued(&rq->q, replace_collect, &x); /* the fair ones only */
    for (unsigned i = 0; i < x.n; i++) {
        struct task *t = x.cand[i];
        int dst = idle_cpu_for(t, taken);
        if (dst < 0)
            continue; /* none it may run on: another may have one */
        if (t == prev) {
            rq->move_out = prev;
            rq->move_dst = (unsigned)dst;
            rq->move_why = TRACE_MIGRATE_RT_RELEASE;
        } else if (!move_queued(rq, t, (unsigned)dst, TRACE_MIGRATE_RT_RELEASE)) {
            continue;
        }
        taken |= 1ull << dst;
    }
}

bool task_set_allowed(struct task *t, u64 mask)
{
    u64 all = ncpus >= 64 ? ~0ull : (1ull << ncpus) - 1;
    mask = mask ? mask & all : all;
    if (!mask || t->is_idle)
        return false;
    u64 flags;
    struct rq *rq = lock_home(t, &flags);
    t->cpus_allowed = mask;
    /* Queued and waiting: it moves now. Running or asleep: when it next
     * wakes (forward_disallowed), or, running, when it is next put back
     * with the queue and can go. */
    if (!cpu_allowed(t, t->cpu))
        move_queued(rq, t, allowed_cpu(t), TRACE_MIGRATE_AFFINITY);
    spin_unlock_irqrestore(&rq->lock, flags);
    return true;
}

/* ---- the decision ---- */

/* Runs on the stack of the task switched to, right after the switch: drops
 * the queue lock the switching task took, and hands an exited task to the
 * reaper. */
static void finish_switch(struct rq *rq)
{
    if (rq->dead) {
        task_reap_later(rq->dead);
        rq->dead = NULL;
    }
    if (rq->move_out) { /* off its stack now: it may run elsewhere */
        move_queued(rq, rq->move_out, rq->move_dst, (enum trace_migrate_reason)rq->move_why);
        rq->move_out = NULL;
    }
    this_cpu()->in_sched = false;
    spin_unlock(&rq->lock);
}

/* Entry point of every new task (task.c sets its stack to return here). */
void task_start(struct task *t)
{
    finish_switch(&this_cpu()->rq);
    irq_enable();
    t->fn(t->arg);
    task_exit();
}

/* Nothing is runnable, and the idle task cannot stand in because it is
 * busy with bring-up code and asleep: wait for a wakeup right here, on the
 * stack of the task that called schedule (it is off the CPU's books until
 * the decision completes). Queue lock held on entry and exit. */
static void halt_in_decision(struct rq *rq)
{
    arm_timer(rq, clock_ns());
    spin_unlock(&rq->lock);
    irq_disable();
    if (!__atomic_load_n(&rq->wake_stack, __ATOMIC_ACQUIRE))
        irq_enable_and_halt(); /* the timer or an IPI ends the halt */
    irq_disable();
    spin_lock(&rq->lock);
}

static enum trace_pick_why trace_why(enum sched_why why)
{
    switch (why) {
    case WHY_TICK: return TRACE_WHY_TICK;
    case WHY_IPI: return TRACE_WHY_IPI;
    case WHY_YIELD: return TRACE_WHY_YIELD;
    case WHY_BLOCK: return TRACE_WHY_BLOCK;
    case WHY_SLICE: return TRACE_WHY_SLICE;
    case WHY_PREEMPT: return TRACE_WHY_PREEMPT;
    case WHY_IDLE: return TRACE_WHY_IDLE;
    case WHY_EXIT: return TRACE_WHY_EXIT;
    }
    return TRACE_WHY_PREEMPT;
}

/* A decision asked for by wakeups that none of them wins: no pick, as in
 * Linux, where such a wakeup never calls schedule(). The joiners are
 * traced and current runs on. Queue lock held; released. */
static void keep_running(struct rq *rq, struct task *joined)
{
    u64 now = clock_ns();
    arm_timer(rq, now);
    for (struct task *t = joined; t; t = t->wake_next)
        trace_join(rq, t, t->join_why, &t->join_rec);
    trace_periodic(rq, now);
    finish_switch(rq);
}

static void schedule(enum sched_why why)
{
    u64 flags = irq_save();
    struct cpu *c = this_cpu();
    struct rq *rq = &c->rq;
    BUG_ON(c->preempt_count != 0);
    BUG_ON(c->in_sched);
    spin_lock(&rq->lock);
    c->in_sched = true;
    c->need_resched = false;
    /* A task that calls schedule() itself (blocks, exits, yields, idles)
     * always gets a pick; so does a tick's, a timer's or a preempting new
     * task's request. A decision asked for by wakeups alone (their IPI,
     * or a local wake) picks only if one of them asks (drain_wakes). */
    bool pending = c->resched_forced || (why != WHY_PREEMPT && why != WHY_IPI);
    c->resched_forced = false;

    struct task *prev = rq->curr;
    u64 start = clock_ns();
    struct task *joined = NULL;
    unsigned touched = drain_wakes(rq, &joined, start, &pending);
    account_curr(rq, start); /* pick_task_fair()'s update_curr() */
    if (rt_period_check(rq, start))
        pending = true;
    if (!pending && sched_running(&rq->q) == &prev->se) {
        keep_running(rq, joined);
        irq_restore(flags);
        return;
    }

    /* The current task leaves first if it blocks or exits, so the pick
     * chooses among the others. */
    bool prev_blocks = false;
    struct sched_entity *leaving = NULL;
    enum sched_leave_reason leave_reason = SCHED_LEAVE_BLOCK;
    /* Only task_block() completes a block: a task preempted between
     * task_prepare_block() and task_block() stays queued, Blocking, and
     * finishes blocking when it runs again (its deadline is not set yet). */
    if (why == WHY_BLOCK && prev->state == RUN_BLOCKING && state_cas(prev, RUN_BLOCKING, RUN_SLEEPING)) {
        prev_blocks = true;
        if (prev->se.on_queue) /* only not when the idle task idles */
            leaving = &prev->se;
#ifdef RUNQ_BUG_IDLE_LAST_RESORT
        if (prev->is_idle)
            rq->idle_idling = false;
#endif
        if (prev->sleep_deadline)
            sleep_insert(rq, prev);
    } else if (prev->state == RUN_DEAD) {
        prev_blocks = true;
        leaving = &prev->se;
        leave_reason = SCHED_LEAVE_EXIT;
        rq->dead = prev;
    }

    struct sched_decision d;
    struct sched_entity *se = sched_decide(pol(), &rq->q, leaving, leave_reason, &d);
    enum trace_leave_reason leave_why = prev->state == RUN_DEAD ? TRACE_LEAVE_EXIT
                                        : d.leaver_kept         ? TRACE_LEAVE_DELAYED
                                        : prev->sleep_deadline  ? TRACE_LEAVE_SLEEP
                                                                : TRACE_LEAVE_BLOCK;
    while (!se && !rq->idle_idling) {
        halt_in_decision(rq);
        start = clock_ns(); /* the wait is not the decision's cost */
        books_begin(rq);
        prev->exec_start = start; /* nor anybody's run time */
        books_end(rq);
        expire_sleepers(rq, start);
        bool again = true;
        touched += drain_wakes(rq, &joined, start, &again);
        /* A task that blocked and is woken again now is picked from the
         * list like any other. */
        se = sched_decide_again(pol(), &rq->q, &d);
    }
    /* Nothing to run: before going idle, pull a waiting task from the
     * busiest CPU (balance.c; pick_next_task_fair()'s newidle balance). */
    if (!se && eevdf_feature_now(EEVDF_F_BALANCE_NEWIDLE) && balance_newidle(rq, c->id, clock_ns())) {
        bool again = true;
        touched += drain_wakes(rq, &joined, clock_ns(), &again);
        se = sched_decide_again(pol(), &rq->q, &d);
    }
    touched += d.touched;

    struct task *next = se ? task_of(se) : rq->idle;
    u64 now = clock_ns();
    if (d.displaced) {
        /* prev, still runnable, is displaced, unless it asked to go */
        BUG_ON(d.prev != &prev->se || prev_blocks);
        leave_why = why == WHY_YIELD ? TRACE_LEAVE_YIELD : d.released ? TRACE_LEAVE_RELEASE : TRACE_LEAVE_PREEMPT;
        if (d.released) /* a higher class took the CPU from a fair task */
            WRITE_ONCE(rq->stats.releases_rt, rq->stats.releases_rt + 1);
        if (why != WHY_YIELD) {
            prev->displaced_ts = now;
            prev->nivcsw++;
        } else {
            prev->nvcsw++; /* it gave way: voluntary, though still runnable */
        }
    }
    if (next != prev && prev_blocks)
        prev->nvcsw++;

    bool woken = next->wake_ts != 0;
    if (woken) {
        stats_record_wait(&rq->stats.wake, now - next->wake_ts);
        next->wake_ts = 0;
    }
    if (next->displaced_ts) {
        stats_record_wait(&rq->stats.displaced, now - next->displaced_ts);
        next->displaced_ts = 0;
    }
    books_begin(rq);
    next->exec_start = now; /* the policy's timer counts from here; the books from the handover */
    rq->curr = next;
    books_end(rq);
    arm_timer(rq, now);
    u64 cost = clock_ns() - start;
    stats_record_decision(&rq->stats, cost, touched);

    /* Tracing comes after the decision is made and counted. */
    for (struct task *t = joined; t; t = t->wake_next)
        trace_join(rq, t, t->join_why, &t->join_rec);
    if (next != prev || prev_blocks) {
        WRITE_ONCE(rq->stats.switches, rq->stats.switches + (next != prev));
        if (!(prev == rq->idle && rq->idle_idling && !prev_blocks))
            trace_leave(rq, prev, leave_why, now - prev->stint_start);
        next->stint_start = now;
    }
    /* Delayed tasks whose lag a pick (this one, or a tick's since) found
     * paid have left the queue: not a switch, but the trace must say so,
     * after the LEAVE that may have delayed them. The idle task's turns
     * during boot are not traced, nor is its departure. */
    for (unsigned i = 0; i < d.nr_departed; i++) {
        struct task *t = task_of(d.departed[i]);
        if (!t->is_idle)
            trace_leave(rq, t, TRACE_LEAVE_DEQUEUED, 0);
    }
    if (d.departed_lost) /* more than the list holds: counted */
        trace_dropped(d.departed_lost);
    if (d.released && sched_knob(KNOB_REPLACE_ON_RELEASE))
        replace_released(rq, prev);
    if (d.displaced && !cpu_allowed(prev, prev->cpu) && !rq->move_out) {
        rq->move_out = prev; /* its set changed while it ran: it goes now */
        rq->move_dst = allowed_cpu(prev);
        rq->move_why = TRACE_MIGRATE_AFFINITY;
    }
    enum trace_pick_why twhy = d.cut_short ? TRACE_WHY_PREEMPT_SHORT : trace_why(why);
    /* The CPU changes hands here, on the clock the pick's record is
     * stamped by: prev's run time (the policy was charged at start) runs
     * to here, next's from here, as the trace's sched_slice splits them,
     * so the decision's own time is on prev's books, not lost between the
     * two, and a scenario's counters (kernel/sched/scn.c: run time, and
     * lateness from woken_run_ts) measure what its trace shows. */
    u64 handover = clock_ns();
    account_time(rq, prev, handover);
    books_begin(rq);
    next->exec_start = handover;
    books_end(rq);
    if (woken)
        next->woken_run_ts = handover;
    if (next != prev || why != WHY_IDLE)
        trace_pick(rq, prev, next, twhy, cost, touched);
    trace_periodic(rq, now);

    if (next != prev) {
        switch_stack(&prev->rsp, next->rsp);
        /* Back on prev's stack, switched to by a later decision on this CPU. */
        rq = &this_cpu()->rq;
    }
    finish_switch(rq);
    irq_restore(flags);
}

void task_exit(void)
{
    irq_disable();
    struct task *t = current();
    BUG_ON(t->is_idle);
    trace_task(TRACE_REC_TASK_EXIT, t);
    __atomic_store_n(&t->state, RUN_DEAD, __ATOMIC_SEQ_CST);
    schedule(WHY_EXIT);
    BUG_ON(1);
    __builtin_unreachable();
}

/* ---- idle ---- */

void idle_enter(void)
{
    struct cpu *c = this_cpu();
    struct rq *rq = &c->rq;
    u64 flags = spin_lock_irqsave(&rq->lock);
    BUG_ON(rq->curr != rq->idle);
    account_curr(rq, clock_ns());
    if (rq->idle->se.on_queue)
        sched_leave(pol(), &rq->q, &rq->idle->se, SCHED_LEAVE_BLOCK);
    rq->idle_idling = true;
    spin_unlock_irqrestore(&rq->lock, flags);
    for (;;) {
        schedule(WHY_IDLE);
        irq_disable();
        if (!c->need_resched && !__atomic_load_n(&rq->wake_stack, __ATOMIC_ACQUIRE))
            irq_enable_and_halt();
        irq_enable();
    }
}

/* ---- set-up ---- */

void sched_init(const struct sched_policy *policy, unsigned hz)
{
    static const struct trap_hooks hooks = {
        .timer = sched_timer_interrupt,
        .resched = sched_resched_interrupt,
        .irq_exit = sched_irq_exit,
    };
    sched_policy_current = policy;
    sched_hz = hz;
    sched_tick_ns = NSEC_PER_SEC / hz;
    trap_set_hooks(&hooks);
}

void sched_init_cpu(unsigned cpu)
{
    struct cpu *c = &cpus[cpu];
    struct rq *rq = &c->rq;
    spin_init(&rq->lock, "rq");
    struct sched_params p = { .ncpus = ncpus, .tick_ns = sched_tick_ns };
    sched_queue_init(pol(), &rq->q, &p);
    rt_set_runtime(&rq->q, rt_budget_ns());
    rq->rt_period_end = clock_ns() + rt_period_ns();
    balance_init_cpu(rq);

    struct task *idle = task_alloc_boot(cpu);
    u64 flags = spin_lock_irqsave(&rq->lock);
    rq->idle = idle;
    rq->curr = idle;
    sched_init_entity(pol(), &rq->q, &idle->se);
    sched_join(pol(), &rq->q, &idle->se, SCHED_JOIN_NEW);
    pol()->take(&rq->q, &idle->se);
    idle->exec_start = clock_ns();
    arm_timer(rq, idle->exec_start);
    spin_unlock_irqrestore(&rq->lock, flags);
}

/* Puts a new task on its queue (task.c has allocated and set it up). */
static void sched_start_task(struct task *t)
{
    struct cpu *c = &cpus[t->cpu];
    struct rq *rq = &c->rq;
    u64 flags = spin_lock_irqsave(&rq->lock);
    sched_init_entity(pol(), &rq->q, &t->se);
    t->state = RUN_QUEUED;
    trace_task(TRACE_REC_TASK_NEW, t);
    /* wake_up_new_task(): enqueue (current charged first), the timer
     * looked at again, then the preemption check, which is skipped while
     * this CPU has a pick due anyway (its need_resched is only readable
     * here when it is this CPU). */
    bool busy = sched_running(&rq->q) != NULL;
    bool kick = busy && account_curr(rq, clock_ns());
    sched_join(pol(), &rq->q, &t->se, SCHED_JOIN_NEW);
    trace_join(rq, t, TRACE_JOIN_NEW, NULL);
    if (!busy || sched_timer_ns(pol(), &rq->q) == 0)
        kick = true;
    if (!kick && !(c == this_cpu() && c->need_resched))
        kick = sched_wakeup_preempt(pol(), &rq->q, &t->se);
    if (kick)
        c->resched_forced = true; /* read by that CPU's schedule(), under this lock */
    spin_unlock_irqrestore(&rq->lock, flags);
    if (!kick)
        return;
    if (c == this_cpu()) {
        c->need_resched = true;
        resched_if_due();
    } else {
        lapic_send_ipi(cpu_apic_id[t->cpu], VEC_RESCHED);
    }
}

/* task.c makes a task, the core starts it: the one way in for every new
 * task, so that task.c never calls the core. */
struct task *task_create(const char *name, void (*fn)(void *), void *arg, int cpu, int nice)
{
    BUG_ON(nice < SCHED_NICE_MIN || nice > SCHED_NICE_MAX);
    struct task *t = task_make(name, fn, arg, cpu, nice, 0, RT_FIFO);
    sched_start_task(t);
    return t;
}

struct task *task_create_rt(const char *name, void (*fn)(void *), void *arg, int cpu, unsigned rt_prio,
                            unsigned rt_policy)
{
    BUG_ON(rt_prio > RT_PRIO_MAX);
    struct task *t = task_make(name, fn, arg, cpu, 0, rt_prio, rt_policy);
    sched_start_task(t);
    return t;
}

/* ---- nice and slice ---- */

bool task_set_nice(struct task *t, int nice)
{
    if (nice < SCHED_NICE_MIN || nice > SCHED_NICE_MAX)
        return false;
    u64 flags;
    struct rq *rq = lock_home(t, &flags);
    if (rq->curr == t)
        account_curr(rq, clock_ns());
    trace_set(t, TRACE_SET_NICE, t->se.nice, nice, NULL);
    sched_class_of(pol(), &t->se)->set_nice(t->se.on_queue ? &rq->q : NULL, &t->se, nice);
    spin_unlock_irqrestore(&rq->lock, flags);
    return true;
}

bool task_set_slice(struct task *t, u64 slice_ns)
{
    u64 flags;
    struct rq *rq = lock_home(t, &flags);
    if (rq->curr == t)
        account_curr(rq, clock_ns());
    trace_set(t, TRACE_SET_SLICE, (s64)t->se.slice_ns, (s64)slice_ns, NULL);
    sched_class_of(pol(), &t->se)->set_slice(t->se.on_queue ? &rq->q : NULL, &t->se, slice_ns);
    spin_unlock_irqrestore(&rq->lock, flags);
    return true;
}

bool task_set_class(struct task *t, unsigned rt_prio, unsigned rt_policy, const char **why)
{
    struct sched_entity *se = &t->se;
    bool kick = false;
    u64 flags;
    struct rq *rq = lock_home(t, &flags);
    struct cpu *c = &cpus[t->cpu];
    if (delayed(t)) {
        spin_unlock_irqrestore(&rq->lock, flags);
        *why = "it is blocked but still queued (delayed)";
        return false;
    }
    trace_set(t, TRACE_SET_CLASS, se->rt.prio, rt_prio, !rt_prio ? "fair" : rt_policy == RT_RR ? "rr" : "fifo");
    /* Out of one class's queue and into the other's, as Linux's
     * __sched_setscheduler() dequeues and enqueues a queued task. */
    bool queued = se->on_queue, running = queued && sched_running(&rq->q) == se;
    if (running) { /* put_prev_task(), then the same, then set_next_task() */
        account_curr(rq, clock_ns());
        sched_class_of(pol(), se)->put_back(&rq->q);
    }
    if (queued)
        sched_leave(pol(), &rq->q, se, SCHED_LEAVE_MIGRATE);
    sched_set_class(pol(), se, rt_prio, rt_policy);
    if (queued)
        sched_join(pol(), &rq->q, se, SCHED_JOIN_MIGRATE);
    if (running)
        sched_class_of(pol(), se)->take(&rq->q, se);
    /* A newly RT task preempts; a running one that left RT decides again. */
    kick = running || (queued && sched_wakeup_preempt(pol(), &rq->q, se));
    if (kick)
        c->resched_forced = true; /* read by that CPU's schedule(), under this lock */
    spin_unlock_irqrestore(&rq->lock, flags);
    if (kick) {
        if (c == this_cpu()) {
            c->need_resched = true;
            resched_if_due();
        } else {
            lapic_send_ipi(cpu_apic_id[t->cpu], VEC_RESCHED);
        }
    }
    return true;
}

u64 task_runtime_ns_unlocked(struct task *t, u64 now)
{
    struct rq *rq = &cpus[t->cpu].rq;
    for (;;) {
        u32 seq = __atomic_load_n(&rq->books_seq, __ATOMIC_ACQUIRE);
        u64 r = READ_ONCE(t->runtime_ns), from = READ_ONCE(t->exec_start);
        bool on = READ_ONCE(rq->curr) == t;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!(seq & 1) && __atomic_load_n(&rq->books_seq, __ATOMIC_RELAXED) == seq)
            return r + (on && now > from ? now - from : 0);
        cpu_relax();
    }
}

u64 task_runtime_ns(struct task *t)
{
    u64 flags;
    struct rq *rq = lock_home(t, &flags);
    u64 r = t->runtime_ns;
    if (rq->curr == t)
        r += clock_ns() - t->exec_start;
    spin_unlock_irqrestore(&rq->lock, flags);
    return r;
}
