#include "alloc.h"
#include "panic.h"
#include "spinlock.h"
#include "string.h"

static struct spinlock alloc_lock = SPINLOCK_INIT("alloc");
static u64 next, limit;

void alloc_init(u64 start, u64 end)
{
    next = start;
    limit = end;
}

void *kalloc(size_t size, size_t align)
{
    u64 flags = spin_lock_irqsave(&alloc_lock);
    u64 p = (next + align - 1) & ~(u64)(align - 1);
    if (p + size > limit) {
        spin_unlock_irqrestore(&alloc_lock, flags);
        panic("kalloc: out of memory (%zu bytes)", size);
    }
    next = p + size;
    spin_unlock_irqrestore(&alloc_lock, flags);
    memset((void *)p, 0, size);
    return (void *)p;
}
