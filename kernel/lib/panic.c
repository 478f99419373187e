#include "panic.h"
#include "bug.h"
#include "printf.h"
#include "spinlock.h"
#include "../arch/x86_64/apic.h"
#include "../arch/x86_64/cpu.h"
#include "../arch/x86_64/trap.h" /* VEC_HALT */

static volatile int panicking;
bool apic_ready; /* set by kmain once IPIs can be sent */

void backtrace_from(u64 rbp)
{
    kprintf_unlocked("bt:");
    /* Frames live in identity-mapped kernel memory below 256 MiB. */
    for (int depth = 0; depth < 16 && rbp >= 0x1000 && rbp < 0x10000000 && !(rbp & 7); depth++) {
        u64 ret = ((u64 *)rbp)[1];
        if (!ret)
            break;
        kprintf_unlocked(" %lx", ret);
        rbp = ((u64 *)rbp)[0];
    }
    kprintf_unlocked("\n");
}

void qemu_exit(u32 code)
{
    outl(0xf4, code);
    for (;;)
        __asm__ volatile("cli; hlt");
}

void panic_begin(void)
{
    irq_disable();
    /* A second CPU panicking at the same time stops here quietly. */
    if (__atomic_exchange_n(&panicking, 1, __ATOMIC_SEQ_CST))
        for (;;)
            __asm__ volatile("cli; hlt");
    if (apic_ready)
        lapic_send_ipi_all_but_self(VEC_HALT);
}

void panic_end(void)
{
    qemu_exit(EXIT_PANIC);
}

void panic(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    panic_begin();
    kprintf_unlocked("PANIC: cpu%d: %s\n", cpu_id_or_boot(), buf);
    backtrace_from(read_rbp());
    panic_end();
}

void bug_fail(const char *file, int line, const char *expr)
{
    panic("BUG_ON(%s) at %s:%d", expr, file, line);
}
