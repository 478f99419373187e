/* Bringing up the application processors (INIT-SIPI-SIPI). */
#ifndef RUNQ_SMP_H
#define RUNQ_SMP_H
#include "acpi.h"

/* Starts every enabled CPU the MADT lists besides this one, one at a time.
 * Each loads its per-CPU data, descriptor tables and local APIC, then calls
 * run(index), which must not return and must call cpu_set_online(index)
 * once the CPU can take work (the layer above: kernel/main.c). A CPU that
 * has not said so within a second is given up. Returns the number of CPUs
 * online, the boot CPU included. */
unsigned smp_boot(const struct acpi_info *acpi, void (*run)(unsigned index));

#endif
