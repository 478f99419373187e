/* The GDT (flat 64-bit code and data) and a TSS per CPU; the TSS's IST
 * stacks give double faults and NMIs a known-good stack. */
#ifndef RUNQ_GDT_H
#define RUNQ_GDT_H
#include "../../lib/types.h"

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10

/* Loads the GDT and this CPU's TSS (cpu index). */
void gdt_load(unsigned cpu);

#endif
