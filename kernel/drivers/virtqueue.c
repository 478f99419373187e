#include "virtqueue.h"
#include "../arch/x86_64/cpu.h"
#include "../lib/alloc.h"
#include "../lib/bug.h"

static size_t align_up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

bool vq_setup(struct virtqueue *vq, u16 io, u16 index)
{
    outw(io + VIRTIO_PCI_QUEUE_SEL, index);
    u16 size = inw(io + VIRTIO_PCI_QUEUE_SIZE);
    if (!size || size > VQ_MAX_SIZE || (size & (size - 1)))
        return false;

    size_t avail_off = 16u * size;
    size_t used_off = align_up(avail_off + 6 + 2u * size, VQ_ALIGN);
    size_t bytes = used_off + align_up(6 + 8u * size, VQ_ALIGN);
    u8 *mem = kalloc(bytes, VQ_ALIGN); /* zeroed: both indexes start at 0 */

    vq->io = io;
    vq->index = index;
    vq->size = size;
    vq->desc = (struct vq_desc *)mem;
    vq->avail = (volatile struct vq_avail *)(mem + avail_off);
    vq->used = (volatile struct vq_used *)(mem + used_off);
    vq->cookie = kalloc(size * sizeof(void *), 8);
    for (u16 i = 0; i < size; i++)
        vq->desc[i].next = (u16)(i + 1);
    vq->free_head = 0;
    vq->nfree = size;
    vq->last_used = 0;
    vq->kicked = 0;

    outl(io + VIRTIO_PCI_QUEUE_PFN, (u32)((u64)mem >> 12));
    return true;
}

bool vq_add(struct virtqueue *vq, const struct vq_buf *bufs, unsigned n, void *cookie)
{
    BUG_ON(!n || !cookie);
    if (n > vq->nfree)
        return false;
    u16 head = vq->free_head, d = head, last = head;
    for (unsigned i = 0; i < n; i++) {
        struct vq_desc *desc = &vq->desc[d];
        desc->addr = (u64)bufs[i].addr; /* identity-mapped: virtual == physical */
        desc->len = bufs[i].len;
        desc->flags = (u16)((bufs[i].device_writes ? VQ_DESC_F_WRITE : 0) | (i + 1 < n ? VQ_DESC_F_NEXT : 0));
        last = d;
        d = desc->next;
    }
    vq->free_head = vq->desc[last].next;
    vq->nfree = (u16)(vq->nfree - n);
    vq->cookie[head] = cookie;

    u16 idx = vq->avail->idx;
    vq->avail->ring[idx % vq->size] = head;
    /* The descriptors and the ring slot must be visible before the index
     * that hands them to the device. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    vq->avail->idx = (u16)(idx + 1);
    return true;
}

void vq_notify(struct virtqueue *vq)
{
    /* Full fence: the avail index store must be visible before we read
     * the device's no-notify flag (else both sides may think the other
     * will look), and before the notify itself. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    u16 idx = vq->avail->idx;
    if (idx == vq->kicked)
        return;
    vq->kicked = idx;
    if (vq->used->flags & VQ_USED_F_NO_NOTIFY)
        return;
    outw(vq->io + VIRTIO_PCI_QUEUE_NOTIFY, vq->index);
}

void *vq_peek_used(struct virtqueue *vq, u32 *len)
{
    if (vq->used->idx == vq->last_used)
        return NULL;
    /* The entry is read only after the index that published it. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    volatile struct vq_used_elem *e = &vq->used->ring[vq->last_used % vq->size];
    u32 head = e->id;
    BUG_ON(head >= vq->size || !vq->cookie[head]);
    if (len)
        *len = e->len;
    return vq->cookie[head];
}

void *vq_pop_used(struct virtqueue *vq, u32 *len)
{
    void *cookie = vq_peek_used(vq, len);
    if (!cookie)
        return NULL;
    u16 head = (u16)vq->used->ring[vq->last_used % vq->size].id;
    vq->cookie[head] = NULL;
    /* Give the chain's descriptors back to the free list. */
    u16 d = head, n = 1;
    while (vq->desc[d].flags & VQ_DESC_F_NEXT) {
        d = vq->desc[d].next;
        n++;
    }
    vq->desc[d].next = vq->free_head;
    vq->free_head = head;
    vq->nfree = (u16)(vq->nfree + n);
    vq->last_used++;
    return cookie;
}
