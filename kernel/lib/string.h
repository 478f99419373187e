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

/* Splits s in place at spaces and tabs into at most max words. Returns the
 * number of words, or max + 1 if s has more (words[] then holds the first
 * max, and the rest of s is left unsplit): a caller that gets more than
 * max refuses the line rather than run it with its tail glued to the last
 * word. */
int split_words(char *s, char **words, int max);

#endif
