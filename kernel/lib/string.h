/* The few libc string functions the kernel needs (the compiler may also emit
 * calls to memcpy/memset/memmove/memcmp on its own). */
#ifndef RUNQ_STRING_H
#define RUNQ_STRING_H
#include "types.h"

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strncpy_z(char *dst, const char *src, size_t size); /* always NUL-terminates */

/* Parses a decimal integer (optional sign) filling *out; true only if the
 * whole string was a number. */
bool parse_long(const char *s, long *out);

/* Splits s in place at spaces; returns the number of words (at most max). */
int split_words(char *s, char **words, int max);

#endif
