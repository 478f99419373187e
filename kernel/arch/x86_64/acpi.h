/* The ACPI tables we read: the MADT (which CPUs exist) and the HPET table. */
#ifndef RUNQ_ACPI_H
#define RUNQ_ACPI_H
#include "../../lib/types.h"
#include "layout.h"

struct acpi_info {
    u64 lapic_base;
    unsigned ncpus;
    u32 apic_ids[MAX_CPUS]; /* enabled CPUs, in MADT order */
    u64 hpet_base;          /* 0 if no HPET table */
};

/* Parses the tables starting at the RSDP; false (with a message) if absent
 * or malformed. */
bool acpi_parse(u64 rsdp_paddr, struct acpi_info *out);

#endif
