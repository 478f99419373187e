/*
 * Formatted output. kprintf writes to the console (COM1) under the console
 * lock, so lines from different CPUs never interleave mid-line as long as
 * each call prints whole lines. Supports %d %i %u %x %X %p %s %c %%, the
 * l/ll/z length modifiers, a width and the 0 and - flags.
 */
#ifndef RUNQ_PRINTF_H
#define RUNQ_PRINTF_H
#include <stdarg.h>
#include "types.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For the panic path: prints without waiting for the console lock. */
void kprintf_unlocked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
