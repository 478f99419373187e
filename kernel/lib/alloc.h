/* Kernel memory: a bump allocator over the memory after the kernel image.
 * Memory is never returned; objects that come and go (tasks and their
 * stacks) are recycled by their owners' free lists. */
#ifndef RUNQ_ALLOC_H
#define RUNQ_ALLOC_H
#include "types.h"

void alloc_init(u64 start, u64 end);
/* size bytes aligned to align (a power of two), zeroed; panics when out. */
void *kalloc(size_t size, size_t align);

#endif
