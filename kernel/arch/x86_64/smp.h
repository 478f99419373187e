/* Bringing up the application processors (INIT-SIPI-SIPI). */
#ifndef RUNQ_SMP_H
#define RUNQ_SMP_H
#include "acpi.h"

/* Starts every enabled CPU the MADT lists besides this one, one at a time;
 * each runs ap_main and ends up idle with its queue ready. Returns the
 * number of CPUs online (boot CPU included). */
unsigned smp_boot(const struct acpi_info *acpi);

#endif
