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

/*
 * A string built from pieces, bounded: strbuf_printf() appends at most
 * what fits in size - 1 bytes, the text stays NUL-terminated, and a piece
 * that did not fit whole sets cut. Build every string from pieces with it:
 * adding up snprintf's return values instead makes the room left wrap
 * below zero when one piece does not fit, and the next piece writes past
 * the buffer (the `mark` stack overflow, issue 13).
 */
struct strbuf {
    char *buf;
    size_t size, len; /* len < size */
    bool cut;         /* something did not fit */
};
void strbuf_init(struct strbuf *b, char *buf, size_t size);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For the panic path: prints without waiting for the console lock. */
void kprintf_unlocked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
