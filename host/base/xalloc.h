/*
 * Allocation that cannot fail quietly, for every host module (db, tui,
 * linux, scenario, cli, the tests). runq's host programs hold what they
 * read in memory; when the machine has none left there is nothing useful
 * to carry on with, and a half-built table or a NULL passed on is how a
 * crash three functions later, or a silently short answer, would come
 * about. So these die at once, in one line that says so and where:
 *
 *     runq: out of memory (4096 bytes at db/events.c:317)
 *
 * and exit 1, as any other runq failure. Code that must degrade rather
 * than die (the recorder dropping what it cannot hold, counted as loss:
 * host/engine/linux/bpfrec.c, db/writer.c's reserve) keeps calling malloc itself and
 * says so beside the call.
 *
 * Also BUG_ON (kernel/lib/bug.h) for the host's invariants: the kernel's
 * habit, an assert that survives NDEBUG.
 */
#ifndef RUNQ_HOST_BASE_XALLOC_H
#define RUNQ_HOST_BASE_XALLOC_H

#include <stddef.h>

void *xmalloc_at(size_t n, const char *file, int line);
void *xcalloc_at(size_t n, size_t size, const char *file, int line);
/* realloc(p, n * size), the product checked for overflow (an overflow
 * dies as out of memory: no allocation could hold it). */
void *xreallocarray_at(void *p, size_t n, size_t size, const char *file, int line);
char *xstrdup_at(const char *s, const char *file, int line);
char *xstrndup_at(const char *s, size_t n, const char *file, int line);

#define xmalloc(n) xmalloc_at((n), __FILE__, __LINE__)
#define xcalloc(n, size) xcalloc_at((n), (size), __FILE__, __LINE__)
#define xrealloc(p, n) xreallocarray_at((p), (n), 1, __FILE__, __LINE__)
#define xreallocarray(p, n, size) xreallocarray_at((p), (n), (size), __FILE__, __LINE__)
#define xstrdup(s) xstrdup_at((s), __FILE__, __LINE__)
#define xstrndup(s, n) xstrndup_at((s), (n), __FILE__, __LINE__)

#endif
