/*
 * The RT class in the kernel (kernel/sched/rt.c, the class layer of
 * decide.c):
 *
 * TestRtPreempt: an RT task waking every millisecond on a CPU where a
 * fair spinner with a 100 ms slice runs must run at once: a waking RT
 * task preempts a fair one (an IPI to its CPU, or the local decision),
 * with no fair slice or tick to wait for. Bound: 200 us of guest time
 * from its sleep's end, every time. Bug: make prove-bugs case
 * rt_no_preempt (the cross-class check answers "no").
 *
 * TestRtThrottle: an RT hog and a fair spinner on one CPU, the budget set
 * to 80 ms of RT every 100 ms for the test: the fair spinner must get the
 * 20 % the budget leaves it (15..30 %: a period starts at a tick), the
 * hog the rest. Bug: rt_no_throttle (the budget never stops RT: the fair
 * spinner gets nothing).
 */
#include "selftest.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../lib/printf.h"
#include "../sched/cpus.h"
#include "../sched/knob.h"
#include "../sched/probe.h"
#include "../sched/sched.h"

#define WAKEUPS 100
#define PERIOD_NS (1 * NSEC_PER_MSEC)
#define LATE_LIMIT_NS (200 * NSEC_PER_USEC)

struct rt_run {
    volatile bool done;
    int alive;
    u64 late_max, late_sum;
    u64 worst_at; /* the wakeup (index) that was latest */
    unsigned wakeups; /* measured */
};

static void spinner_main(void *arg)
{
    struct rt_run *r = arg;
    while (!r->done)
        cpu_relax();
    __atomic_sub_fetch(&r->alive, 1, __ATOMIC_SEQ_CST);
}

/* Wakes every PERIOD_NS and notes how late it ran, WAKEUPS times (or until
 * the test is called off). */
static void rt_waker_main(void *arg)
{
    struct rt_run *r = arg;
    u64 target = clock_ns();
    for (unsigned i = 0; i < WAKEUPS && !r->done; i++) {
        target += PERIOD_NS;
        task_sleep_ns(target > clock_ns() ? target - clock_ns() : 0);
        u64 late = clock_ns() - target;
        r->late_sum += late;
        if (late > r->late_max) {
            r->late_max = late;
            r->worst_at = i;
        }
        r->wakeups = i + 1;
        if (late > 10 * LATE_LIMIT_NS)
            break; /* failed already: a broken kernel fails fast */
    }
    r->done = true;
    __atomic_sub_fetch(&r->alive, 1, __ATOMIC_SEQ_CST);
}

/* Waits until the test's tasks are done, at most limit_ns: false if they
 * were not (then they are told to stop, and waited for). */
static bool wait_for(struct rt_run *r, u64 limit_ns)
{
    u64 until = clock_ns() + limit_ns;
    while (__atomic_load_n(&r->alive, __ATOMIC_SEQ_CST) > 0) {
        if (clock_ns() > until) {
            r->done = true;
            while (__atomic_load_n(&r->alive, __ATOMIC_SEQ_CST) > 0)
                task_sleep_ns(10 * NSEC_PER_MSEC);
            return false;
        }
        task_sleep_ns(10 * NSEC_PER_MSEC);
    }
    return true;
}

bool test_rt_preempt(char *why, size_t size)
{
    if (ncpus < 2)
        return selftest_skip(why, size, "needs two CPUs (the test waits on another)");
    unsigned cpu = probe_cpu();
    static struct rt_run r;
    r = (struct rt_run){ .alive = 2 };
    struct task *spin = task_create("rt-victim", spinner_main, &r, (int)cpu, 0);
    task_set_slice(spin, 100 * NSEC_PER_MSEC); /* no fair reason to decide for 100 ms */
    task_create_rt("rt-waker", rt_waker_main, &r, (int)cpu, 50, RT_FIFO);
    if (!wait_for(&r, 2 * NSEC_PER_SEC)) {
        snprintf(why, size, "the RT task made %u of %u wakeups in 2 s beside a fair spinner (starved)", r.wakeups,
                 WAKEUPS);
        return false;
    }
    kprintf("  TestRtPreempt: %u wakeups beside a fair spinner: late mean_us=%lu max_us=%lu (limit %lu)\n", r.wakeups,
            r.late_sum / r.wakeups / 1000, r.late_max / 1000, LATE_LIMIT_NS / 1000);
    if (r.late_max > LATE_LIMIT_NS) {
        snprintf(why, size, "wakeup %lu of the RT task ran %lu us late beside a fair spinner (limit %lu us)",
                 r.worst_at, r.late_max / 1000, LATE_LIMIT_NS / 1000);
        return false;
    }
    return true;
}

#define THROTTLE_WINDOW_NS (500 * NSEC_PER_MSEC)

bool test_rt_throttle(char *why, size_t size)
{
    if (ncpus < 2)
        return selftest_skip(why, size, "needs two CPUs (the test waits on another)");
    unsigned cpu = probe_cpu();
    s64 was_runtime = sched_knob(KNOB_RT_RUNTIME_US), was_period = sched_knob(KNOB_RT_PERIOD_US);
    const char *err = "";
    /* runtime first, and back period first: a runtime longer than its
     * period is refused */
    if (!sched_knob_set(KNOB_RT_RUNTIME_US, 80000, &err) || !sched_knob_set(KNOB_RT_PERIOD_US, 100000, &err)) {
        snprintf(why, size, "could not set the RT budget: %s", err);
        return false;
    }
    static struct rt_run r;
    r = (struct rt_run){ .alive = 2 };
    struct task *fair = task_create("thr-fair", spinner_main, &r, (int)cpu, 0);
    struct task *hog = task_create_rt("thr-rthog", spinner_main, &r, (int)cpu, 10, RT_FIFO);
    u64 start = clock_ns(), fair0 = task_runtime_ns(fair), hog0 = task_runtime_ns(hog);
    task_sleep_ns(THROTTLE_WINDOW_NS);
    u64 span = clock_ns() - start;
    u64 fair_ns = task_runtime_ns(fair) - fair0, hog_ns = task_runtime_ns(hog) - hog0;
    r.done = true;
    wait_for(&r, NSEC_PER_SEC);
    sched_knob_set(KNOB_RT_PERIOD_US, was_period, &err);
    sched_knob_set(KNOB_RT_RUNTIME_US, was_runtime, &err);
    unsigned fair_pm = (unsigned)(fair_ns * 1000 / span), hog_pm = (unsigned)(hog_ns * 1000 / span);
    kprintf("  TestRtThrottle: budget 80 ms / 100 ms, %lu ms: rt hog permille=%u fair spinner permille=%u\n",
            span / NSEC_PER_MSEC, hog_pm, fair_pm);
    if (fair_pm < 150 || fair_pm > 300) {
        snprintf(why, size, "the fair spinner got %u permille beside an RT hog, want 150..300 (the budget leaves 200)",
                 fair_pm);
        return false;
    }
    if (hog_pm < 680) {
        snprintf(why, size, "the RT hog got only %u permille, want 680 or more (budget 800)", hog_pm);
        return false;
    }
    return true;
}
