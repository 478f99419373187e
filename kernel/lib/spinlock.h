/*
 * Spinlocks. spin_lock_irqsave disables interrupts on this CPU before taking
 * the lock, so an interrupt handler that takes the same lock can never spin
 * on a lock its own CPU holds. Every lock in the scheduler is taken this way.
 * The spin uses pause (see cpu_relax).
 */
#ifndef RUNQ_SPINLOCK_H
#define RUNQ_SPINLOCK_H
#include "types.h"
#include "../arch/x86_64/cpu.h"

struct spinlock {
    volatile u32 locked;
    s32 owner_cpu; /* for BUG_ONs and panics; -1 when free */
    const char *name;
};

#define SPINLOCK_INIT(n) { 0, -1, (n) }

static inline void spin_init(struct spinlock *l, const char *name)
{
    l->locked = 0;
    l->owner_cpu = -1;
    l->name = name;
}

int cpu_id_or_boot(void); /* percpu.c; 0 before per-CPU data exists */

static inline void spin_lock(struct spinlock *l)
{
    while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
            cpu_relax();
    }
    l->owner_cpu = cpu_id_or_boot();
}

static inline bool spin_trylock(struct spinlock *l)
{
    if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
        return false;
    l->owner_cpu = cpu_id_or_boot();
    return true;
}

static inline void spin_unlock(struct spinlock *l)
{
    l->owner_cpu = -1;
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline bool spin_held_here(struct spinlock *l)
{
    return l->locked && l->owner_cpu == cpu_id_or_boot();
}

static inline u64 spin_lock_irqsave(struct spinlock *l)
{
    u64 flags = irq_save();
    spin_lock(l);
    return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, u64 flags)
{
    spin_unlock(l);
    irq_restore(flags);
}

#endif
