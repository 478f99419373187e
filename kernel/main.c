/*
 * kmain: the boot CPU's path from the PVH entry to the shell.
 *
 * The boot context becomes CPU 0's idle task as soon as the scheduler is
 * up, and runs the rest of the boot (the self-tests included) as an
 * ordinary task that takes turns, until it idles for good in idle_enter.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/clock.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "sched/cpus.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/trap.h"
#include "drivers/uart.h"
#include "drivers/virtio_serial.h"
#include "lib/alloc.h"
#include "lib/panic.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "sched/eevdf_features.h"
#include "sched/probe.h"
#include "sched/sched.h"
#include "shell/shell.h"
#include "tests/selftest.h"
#include "trace/tracer.h"
#include "cmdline.h"

#define HVM_START_MAGIC 0x336ec578
#define HEAP_END (192ull << 20) /* QEMU is started with 256 MiB */

struct hvm_start_info {
    u32 magic, version, flags, nr_modules;
    u64 modlist_paddr, cmdline_paddr, rsdp_paddr;
} __attribute__((packed));

extern char __kernel_end[];
extern bool apic_ready;

/* Each application processor, once the architecture has brought it up:
 * its queue and idle task, then it idles for good. */
static void ap_run(unsigned index)
{
    sched_init_cpu(index);
    cpu_set_online(index);
    idle_enter();
}

/* Entered from boot.S in long mode on the boot CPU, with the physical
 * address of PVH's hvm_start_info. */
void kmain(u32 start_info_paddr);
void kmain(u32 start_info_paddr)
{
    percpu_init(cpus, sizeof cpus[0]);
    percpu_install(0);
    uart_init();
    const struct hvm_start_info *si = (const struct hvm_start_info *)(u64)start_info_paddr;
    if (si->magic != HVM_START_MAGIC)
        panic("boot: hvm_start_info magic %x, expected %x (not booted through PVH?)", si->magic,
              HVM_START_MAGIC);

    gdt_load(0);
    idt_init();
    idt_load();
    alloc_init((u64)__kernel_end, HEAP_END);

    struct boot_config cfg;
    cmdline_parse(si->cmdline_paddr ? (const char *)si->cmdline_paddr : "", &cfg);
    probe_set_seed(cfg.seed); /* the experiments' variant (seed=N) */

    static struct acpi_info acpi;
    if (!acpi_parse(si->rsdp_paddr, &acpi))
        panic("boot: cannot find the CPUs (ACPI MADT)");
    clock_init(acpi.hpet_base);
    lapic_init(acpi.lapic_base);
    cpu_apic_id[0] = lapic_id();
    lapic_calibrate();
    apic_ready = true;

#ifdef RUNQ_BUG_EEVDF_LEAVE_ORDER
    /* Test-proving bug: the seed's ordering bug, on from boot. TestEevdf
     * must fail. */
    eevdf_feature_set("LAB_LEAVE_BUG", true);
#endif
    ncpus = acpi.ncpus > cfg.max_cpus ? cfg.max_cpus : acpi.ncpus;
    sched_init(cfg.policy, cfg.hz);
    sched_init_cpu(0);
    cpu_set_online(0);
    irq_enable();
    struct acpi_info wanted = acpi;
    wanted.ncpus = ncpus;
    ncpus = smp_boot(&wanted, ap_run);

    kprintf("runq: %u cpus, policy %s, hz %u, tsc %lu kHz\n", ncpus, cfg.policy->name, cfg.hz,
            clock_tsc_khz());

    bool tests_ok = true;
    if (cfg.test[0])
        tests_ok = selftest_run(cfg.test);
    vser_init(); /* optional: the kernel runs on without the trace port */
    if (cfg.trace)
        trace_init(si->cmdline_paddr ? (const char *)si->cmdline_paddr : "", shell_exec_host, cfg.host_crash);
    shell_start(cfg.script, tests_ok);
    idle_enter();
}
