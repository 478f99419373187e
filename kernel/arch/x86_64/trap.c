#include "trap.h"
#include "apic.h"
#include "cpu.h"
#include "gdt.h"
#include "percpu.h"
#include "../../lib/printf.h"
#include "../../lib/panic.h"

struct idt_entry {
    u16 off_lo, sel;
    u8 ist, type;
    u16 off_mid;
    u32 off_hi, zero;
} __attribute__((packed));

static struct idt_entry idt[256] __attribute__((aligned(16)));
static struct trap_hooks hooks;

void trap_set_hooks(const struct trap_hooks *h)
{
    hooks = *h;
}
extern const u64 trap_stubs[256];

static const char *const exception_names[32] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range", "invalid opcode",
    "device not available", "double fault", "coprocessor overrun", "invalid TSS", "segment not present",
    "stack fault", "general protection", "page fault", "reserved", "x87 FPU error", "alignment check",
    "machine check", "SIMD error", "virtualization", "control protection",
};

void idt_init(void)
{
    for (int v = 0; v < 256; v++) {
        u64 a = trap_stubs[v];
        idt[v] = (struct idt_entry){
            .off_lo = (u16)a,
            .sel = GDT_KERNEL_CODE,
            /* double fault and NMI on IST1: a known-good stack */
            .ist = (v == 8 || v == 2) ? 1 : 0,
            .type = 0x8e, /* present, ring 0, interrupt gate (IF cleared on entry) */
            .off_mid = (u16)(a >> 16),
            .off_hi = (u32)(a >> 32),
        };
    }
}

void idt_load(void)
{
    struct {
        u16 limit;
        u64 base;
    } __attribute__((packed)) desc = { sizeof idt - 1, (u64)idt };
    __asm__ volatile("lidt %0" ::"m"(desc));
}

static void exception(struct trap_frame *f)
{
    panic_begin();
    const char *name = f->vector < 32 && exception_names[f->vector] ? exception_names[f->vector] : "?";
    kprintf_unlocked("PANIC: cpu%d: exception %lu (%s) error=%lx at rip=%lx\n", cpu_id_or_boot(), f->vector,
                     name, f->error, f->rip);
    if (f->vector == 14)
        kprintf_unlocked("  cr2=%lx (faulting address)\n", read_cr2());
    kprintf_unlocked("  rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
    kprintf_unlocked("  rsi=%016lx rdi=%016lx rbp=%016lx rsp=%016lx\n", f->rsi, f->rdi, f->rbp, f->rsp);
    kprintf_unlocked("  r8 =%016lx r9 =%016lx r10=%016lx r11=%016lx\n", f->r8, f->r9, f->r10, f->r11);
    kprintf_unlocked("  r12=%016lx r13=%016lx r14=%016lx r15=%016lx\n", f->r12, f->r13, f->r14, f->r15);
    kprintf_unlocked("  rflags=%lx cs=%lx ss=%lx\n", f->rflags, f->cs, f->ss);
    kprintf_unlocked("bt: %lx\n", f->rip);
    backtrace_from(f->rbp);
    panic_end();
}

void trap_dispatch(struct trap_frame *f)
{
    switch (f->vector) {
    case VEC_TIMER:
        lapic_eoi();
        if (hooks.timer)
            hooks.timer();
        break;
    case VEC_RESCHED:
        lapic_eoi();
        if (hooks.resched)
            hooks.resched();
        break;
    case VEC_HALT:
        for (;;)
            __asm__ volatile("cli; hlt");
    case VEC_SPURIOUS:
        return;
    default:
        if (f->vector < 32)
            exception(f);
        lapic_eoi();
        return;
    }
    if (hooks.irq_exit)
        hooks.irq_exit();
}
