/*
 * The allocation wrappers (contract in xalloc.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/xalloc.h"

static __attribute__((noreturn)) void oom(size_t n, const char *file, int line)
{
    fprintf(stderr, "runq: out of memory (%zu bytes at %s:%d)\n", n, file, line);
    exit(1);
}

void *xmalloc_at(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n, file, line);
    return p;
}

void *xcalloc_at(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size, file, line);
    return p;
}

void *xreallocarray_at(void *p, size_t n, size_t size, const char *file, int line)
{
    if (size && n > (size_t)-1 / size)
        oom((size_t)-1, file, line);
    size_t bytes = n * size;
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        oom(bytes, file, line);
    return q;
}

char *xstrdup_at(const char *s, const char *file, int line)
{
    char *p = strdup(s);
    if (!p)
        oom(strlen(s) + 1, file, line);
    return p;
}

char *xstrndup_at(const char *s, size_t n, const char *file, int line)
{
    char *p = strndup(s, n);
    if (!p)
        oom(n + 1, file, line);
    return p;
}
