/* CRC-32C of trace/format.h for the tracer's packets, with the CPU's crc32
 * instruction (SSE4.2) when CPUID reports it and format.h's byte table
 * otherwise: the same value either way. */
#ifndef RUNQ_CRC32C_H
#define RUNQ_CRC32C_H
#include "types.h"

u32 crc32c(const void *buf, size_t len);

/* Whether crc32c() uses the instruction (for the shell's trace status). */
bool crc32c_hw(void);

#endif
