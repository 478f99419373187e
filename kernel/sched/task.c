/*
 * Task creation, the list of all tasks, and recycling of exited tasks.
 *
 * An exited task's stack is still in use until its CPU has switched away
 * from it, so the switch hands it to task_reap_later (lock-free, any
 * context); the next task_create recycles it from there.
 */
#include "sched.h"
#include "internal.h"
#include "rq.h"
#include "../arch/x86_64/layout.h"
#include "cpus.h"
#include "../lib/alloc.h"
#include "../lib/bug.h"
#include "../lib/spinlock.h"
#include "../lib/string.h"

static struct spinlock tasks_lock = SPINLOCK_INIT("tasks");
static struct task *all_tasks;
static struct task *free_tasks; /* under tasks_lock */
static struct task *zombies;    /* lock-free push, taken whole under tasks_lock */
static int next_id = 1;

extern void task_start_trampoline(void);

__asm__(".text\n"
        ".globl task_start_trampoline\n"
        "task_start_trampoline:\n"
        "  movq %r12, %rdi\n"
        "  call task_start\n"
        "  ud2\n");

void task_reap_later(struct task *t)
{
    struct task *old = __atomic_load_n(&zombies, __ATOMIC_RELAXED);
    do
        t->zombie_next = old;
    while (!__atomic_compare_exchange_n(&zombies, &old, t, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Moves zombies off the task list onto the free list. tasks_lock held. */
static void reap_zombies(void)
{
    struct task *z = __atomic_exchange_n(&zombies, NULL, __ATOMIC_ACQUIRE);
    while (z) {
        struct task *next = z->zombie_next;
        for (struct task **pp = &all_tasks; *pp; pp = &(*pp)->all_next) {
            if (*pp == z) {
                *pp = z->all_next;
                break;
            }
        }
        __atomic_sub_fetch(&cpus[z->cpu].rq.ntasks, 1, __ATOMIC_RELAXED);
        z->all_next = free_tasks;
        free_tasks = z;
        z = next;
    }
}

/* A zeroed task with an id, on the task list. tasks_lock held. */
static struct task *task_new_locked(const char *name, unsigned cpu)
{
    reap_zombies();
    struct task *t = free_tasks;
    void *stack = NULL;
    if (t) {
        free_tasks = t->all_next;
        stack = t->stack;
    } else {
        t = kalloc(sizeof *t, 64);
    }
    memset(t, 0, sizeof *t);
    t->stack = stack;
    t->id = next_id++;
    t->se.id = t->id;
    strncpy_z(t->name, name, sizeof t->name);
    t->cpu = cpu;
    t->cpus_allowed = ncpus >= 64 ? ~0ull : (1ull << ncpus) - 1;
    t->all_next = all_tasks;
    all_tasks = t;
    __atomic_add_fetch(&cpus[cpu].rq.ntasks, 1, __ATOMIC_RELAXED);
    return t;
}

struct task *task_alloc_boot(unsigned cpu)
{
    u64 flags = spin_lock_irqsave(&tasks_lock);
    char name[TASK_NAME_LEN] = "idle/";
    name[5] = (char)('0' + cpu / 10 % 10);
    name[6] = (char)('0' + cpu % 10);
    if (cpu < 10) {
        name[5] = name[6];
        name[6] = 0;
    }
    struct task *t = task_new_locked(name, cpu);
    t->is_idle = true;
    t->pinned = true;
    t->cpus_allowed = 1ull << cpu;
    t->state = RUN_QUEUED;
    spin_unlock_irqrestore(&tasks_lock, flags);
    return t;
}

static unsigned least_loaded_cpu(void)
{
    unsigned best = 0;
    for (unsigned i = 1; i < ncpus; i++)
        if (cpus[i].rq.ntasks < cpus[best].rq.ntasks)
            best = i;
    return best;
}

struct task *task_make(const char *name, void (*fn)(void *), void *arg, int cpu, int nice, unsigned rt_prio,
                       unsigned rt_policy)
{
    BUG_ON(cpu >= (int)ncpus);
    u64 flags = spin_lock_irqsave(&tasks_lock);
    unsigned home = cpu < 0 ? least_loaded_cpu() : (unsigned)cpu;
    struct task *t = task_new_locked(name, home);
    spin_unlock_irqrestore(&tasks_lock, flags);

    if (!t->stack)
        t->stack = kalloc(TASK_STACK_SIZE, 16);
    t->pinned = cpu >= 0;
    if (t->pinned)
        t->cpus_allowed = 1ull << home;
    t->se.nice = nice;
    rt_set_class(&t->se, rt_prio, rt_policy); /* also a recycled task's old class undone */
    t->fn = fn;
    t->arg = arg;

    /* A stack that looks as if switch_stack had saved it: six callee-saved
     * registers (r12 = the task) and a return into the trampoline, placed
     * so the trampoline's call sees a 16-byte aligned stack. */
    u64 *sp = (u64 *)((u8 *)t->stack + TASK_STACK_SIZE - 16);
    *--sp = (u64)task_start_trampoline;
    *--sp = 0;          /* rbp */
    *--sp = 0;          /* rbx */
    *--sp = (u64)t;     /* r12 */
    *--sp = 0;          /* r13 */
    *--sp = 0;          /* r14 */
    *--sp = 0;          /* r15 */
    t->rsp = (u64)sp;
    return t;
}

void tasks_for_each(void (*fn)(struct task *t, void *arg), void *arg)
{
    u64 flags = spin_lock_irqsave(&tasks_lock);
    for (struct task *t = all_tasks; t; t = t->all_next)
        fn(t, arg);
    spin_unlock_irqrestore(&tasks_lock, flags);
}

struct task *task_find(int id)
{
    struct task *found = NULL;
    u64 flags = spin_lock_irqsave(&tasks_lock);
    for (struct task *t = all_tasks; t; t = t->all_next)
        if (t->id == id && t->state != RUN_DEAD)
            found = t;
    spin_unlock_irqrestore(&tasks_lock, flags);
    return found;
}
