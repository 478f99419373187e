/* Placeholder until the EEVDF policy lands (issue 3). */
#ifndef RUNQ_SCHED_EEVDF_H
#define RUNQ_SCHED_EEVDF_H
#include <stdint.h>
struct eevdf_entity { uint64_t vruntime; };
struct eevdf_queue { uint64_t v; };
#endif
