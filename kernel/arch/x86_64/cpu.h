/* Thin wrappers over x86 instructions. */
#ifndef RUNQ_CPU_H
#define RUNQ_CPU_H
#include "../../lib/types.h"

static inline void outb(u16 port, u8 v) { __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port)); }
static inline u8 inb(u16 port)
{
    u8 v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline u16 inw(u16 port)
{
    u16 v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline u32 inl(u16 port)
{
    u32 v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline u64 rdtsc(void)
{
    u32 lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((u64)hi << 32) | lo;
}

static inline u64 rdmsr(u32 msr)
{
    u32 lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((u64)hi << 32) | lo;
}
static inline void wrmsr(u32 msr, u64 v)
{
    __asm__ volatile("wrmsr" ::"c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

/* Every spin loop calls this: under icount a vCPU that spins without pause
 * can keep the single TCG thread from running the other vCPUs. */
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

static inline void irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void irq_enable(void) { __asm__ volatile("sti" ::: "memory"); }
/* sti;hlt: the interrupt shadow of sti means no interrupt is taken between
 * the two, so a wakeup that arrives after the caller's last check still
 * ends the halt. */
static inline void irq_enable_and_halt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }

static inline u64 irq_save(void)
{
    u64 flags;
    __asm__ volatile("pushfq; popq %0; cli" : "=r"(flags)::"memory");
    return flags;
}
static inline void irq_restore(u64 flags)
{
    if (flags & (1u << 9))
        irq_enable();
}
static inline bool irqs_enabled(void)
{
    u64 flags;
    __asm__ volatile("pushfq; popq %0" : "=r"(flags));
    return flags & (1u << 9);
}

static inline u64 read_cr2(void)
{
    u64 v;
    __asm__ volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}
static inline u64 read_rbp(void)
{
    u64 v;
    __asm__ volatile("mov %%rbp, %0" : "=r"(v));
    return v;
}

static inline void mmio_write32(u64 addr, u32 v) { *(volatile u32 *)addr = v; }
static inline u32 mmio_read32(u64 addr) { return *(volatile u32 *)addr; }
static inline u64 mmio_read64(u64 addr) { return *(volatile u64 *)addr; }
static inline void mmio_write64(u64 addr, u64 v) { *(volatile u64 *)addr = v; }

#endif
