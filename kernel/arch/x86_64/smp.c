#include "smp.h"
#include "apic.h"
#include "clock.h"
#include "cpu.h"
#include "gdt.h"
#include "layout.h"
#include "percpu.h"
#include "trap.h"
#include "../../lib/alloc.h"
#include "../../lib/printf.h"
#include "../../lib/string.h"

extern const u8 ap_tramp_start[], ap_tramp_end[];
extern u64 ap_tramp_cr3, ap_tramp_stack, ap_tramp_cpu;

/* Where a field of the trampoline's data block lives in the copy. */
static u64 *tramp_field(const u64 *field)
{
    return (u64 *)(AP_TRAMPOLINE_ADDR + ((const u8 *)field - ap_tramp_start));
}

static void (*ap_run)(unsigned index);

/* Where the trampoline lands each AP, on its boot stack. */
void ap_main(unsigned index);
void ap_main(unsigned index)
{
    percpu_install(index);
    gdt_load(index);
    idt_load();
    lapic_enable_this_cpu();
    ap_run(index);
    for (;;) /* ap_run does not return */
        __asm__ volatile("cli; hlt");
}

unsigned smp_boot(const struct acpi_info *acpi, void (*run)(unsigned index))
{
    ap_run = run;
    memcpy((void *)AP_TRAMPOLINE_ADDR, ap_tramp_start, (size_t)(ap_tramp_end - ap_tramp_start));
    u64 cr3;
    __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
    *tramp_field(&ap_tramp_cr3) = cr3;

    unsigned online = 1;
    u32 self = lapic_id();
    for (unsigned i = 0; i < acpi->ncpus; i++) {
        u32 apic = acpi->apic_ids[i];
        if (apic == self)
            continue;
        unsigned index = online;
        cpu_apic_id[index] = apic;
        /* The AP's boot context becomes its idle task: give it a stack. */
        u8 *stack = kalloc(TASK_STACK_SIZE, 16);
        *tramp_field(&ap_tramp_stack) = (u64)(stack + TASK_STACK_SIZE);
        *tramp_field(&ap_tramp_cpu) = index;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);

        lapic_send_init(apic);
        hpet_delay_ns(10 * NSEC_PER_MSEC);
        lapic_send_sipi(apic, AP_TRAMPOLINE_ADDR >> 12);
        hpet_delay_ns(200 * NSEC_PER_USEC);
        if (!cpu_online(index))
            lapic_send_sipi(apic, AP_TRAMPOLINE_ADDR >> 12);
        u64 start = hpet_now_ns();
        while (!cpu_online(index)) {
            if (hpet_now_ns() - start > NSEC_PER_SEC) {
                kprintf("smp: cpu with APIC id %u did not start\n", apic);
                break;
            }
            cpu_relax();
        }
        if (cpu_online(index))
            online++;
    }
    return online;
}
