/*
 * TestIdleTakesTurns: the idle task, while it runs boot code, takes turns
 * like any other task. Beside a task pinned to the boot CPU that does
 * nothing but yield, a 1 ms sleep in the boot must take about 1 ms. With
 * the old rule (the idle task is the last resort whatever it runs) the
 * yielder keeps the CPU and the boot waits until it gives up, 2 s later:
 * build with BUG=idle_last_resort to see it fail.
 */
#include "selftest.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../sched/cpus.h"
#include "../lib/printf.h"
#include "../sched/sched.h"

#define GIVE_UP_NS (2 * NSEC_PER_SEC)

static volatile bool yielder_stop;
static volatile int yielder_alive;

static void yielder(void *arg)
{
    (void)arg;
    u64 start = clock_ns();
    while (!yielder_stop && clock_ns() - start < GIVE_UP_NS) {
        task_yield();
        cpu_relax(); /* let other vCPUs run under icount (see probe.c) */
    }
    __atomic_store_n(&yielder_alive, 0, __ATOMIC_SEQ_CST);
}

bool test_idle_takes_turns(char *why, size_t size)
{
    struct task *self = current();
    if (!self->is_idle) {
        snprintf(why, size, "must run in a CPU's idle task (boot: test=TestIdleTakesTurns)");
        return false;
    }
    yielder_stop = false;
    yielder_alive = 1;
    task_create("yielder", yielder, NULL, (int)self->cpu, 0);
    task_yield(); /* let it start */
    u64 t0 = clock_ns();
    task_sleep_ns(NSEC_PER_MSEC);
    u64 took = clock_ns() - t0;
    yielder_stop = true;
    while (__atomic_load_n(&yielder_alive, __ATOMIC_SEQ_CST))
        task_sleep_ns(NSEC_PER_MSEC);
    kprintf("  TestIdleTakesTurns: 1 ms sleep beside a yielder took %lu us\n", took / 1000);
    if (took > NSEC_PER_MSEC + NSEC_PER_MSEC / 2) {
        snprintf(why, size, "a 1 ms sleep took %lu us (the idle task did not get its turn)", took / 1000);
        return false;
    }
    return true;
}
