/*
 * Legacy (virtio 0.9.5 / "transitional") split virtqueues over the PCI I/O
 * BAR, polled: the device is given no interrupt vector and the driver looks
 * at the used ring when it wants to know what finished.
 *
 * One queue is one physically contiguous, page-aligned block (from kalloc,
 * so the address the device sees is the pointer itself):
 *
 *     descriptors  16 bytes x size          what and where each buffer is
 *     avail ring   flags, idx, ring[size]   driver -> device: heads posted
 *     padding to the next 4 KiB
 *     used ring    flags, idx, {id,len}[size]  device -> driver: heads done
 *
 * The legacy interface fixes this layout (the device computes the rings'
 * addresses from the queue size and the page number the driver writes) and
 * fixes the queue size: the driver must use the size the device reports.
 *
 * A virtqueue has no lock: each queue must be driven by one caller at a
 * time (the owner of the queue serialises).
 */
#ifndef RUNQ_VIRTQUEUE_H
#define RUNQ_VIRTQUEUE_H
#include "../lib/types.h"

/* Legacy virtio PCI registers, offsets into I/O BAR 0. */
enum {
    VIRTIO_PCI_HOST_FEATURES = 0x00,  /* u32, device's feature bits 0..31 */
    VIRTIO_PCI_GUEST_FEATURES = 0x04, /* u32, the bits the driver accepts */
    VIRTIO_PCI_QUEUE_PFN = 0x08,      /* u32, ring address >> 12 (0 = none) */
    VIRTIO_PCI_QUEUE_SIZE = 0x0c,     /* u16, read-only; 0 = no such queue */
    VIRTIO_PCI_QUEUE_SEL = 0x0e,      /* u16 */
    VIRTIO_PCI_QUEUE_NOTIFY = 0x10,   /* u16, write a queue index */
    VIRTIO_PCI_STATUS = 0x12,         /* u8, 0 resets the device */
    VIRTIO_PCI_ISR = 0x13,            /* u8, read clears */
    VIRTIO_PCI_CONFIG = 0x14,         /* device config, when MSI-X is off */
};

enum {
    VIRTIO_STATUS_ACKNOWLEDGE = 1,
    VIRTIO_STATUS_DRIVER = 2,
    VIRTIO_STATUS_DRIVER_OK = 4,
    VIRTIO_STATUS_FAILED = 128,
};

#define VQ_ALIGN 4096 /* legacy: the used ring starts on the next 4 KiB */

struct vq_desc {
    u64 addr;
    u32 len;
    u16 flags; /* VQ_DESC_F_* */
    u16 next;
};
#define VQ_DESC_F_NEXT 1  /* the chain continues at next */
#define VQ_DESC_F_WRITE 2 /* the device writes this buffer (else it reads it) */

struct vq_avail {
    u16 flags;
    u16 idx; /* free-running; the device reads ring[idx % size] up to here */
    u16 ring[];
};

struct vq_used_elem {
    u32 id;  /* head descriptor of the chain */
    u32 len; /* bytes the device wrote into the chain */
};
struct vq_used {
    u16 flags; /* VQ_USED_F_NO_NOTIFY: the device is polling, no kick needed */
    u16 idx;
    struct vq_used_elem ring[];
};
#define VQ_USED_F_NO_NOTIFY 1

struct virtqueue {
    u16 io;    /* the device's I/O base */
    u16 index; /* queue number */
    u16 size;
    struct vq_desc *desc;
    volatile struct vq_avail *avail;
    volatile struct vq_used *used;
    u16 free_head; /* free descriptors form a list through desc[].next */
    u16 nfree;
    u16 last_used; /* used entries before this one have been harvested */
    u16 kicked;    /* avail->idx at the last notify */
    void **cookie; /* cookie[head]: the caller's tag for the chain at head */
};

/* One buffer of a chain. */
struct vq_buf {
    void *addr;
    u32 len;
    bool device_writes; /* true for receive buffers */
};

/* Selects queue index on the device at io, allocates its rings (sized as
 * the device reports, up to VQ_MAX_SIZE) and gives the device their page
 * number. false if the device has no such queue or it is too large. */
#define VQ_MAX_SIZE 1024
bool vq_setup(struct virtqueue *vq, u16 io, u16 index);

/* Posts one chain: the device-readable buffers must come before the
 * device-writable ones. cookie (non-NULL) comes back from vq_pop_used.
 * Not visible to the device until vq_notify. false if there are not n
 * free descriptors (nothing is posted then). */
bool vq_add(struct virtqueue *vq, const struct vq_buf *bufs, unsigned n, void *cookie);

/* Tells the device about everything added since the last notify (one
 * register write, skipped if nothing was added or the device asked not to
 * be notified). Under QEMU with ioeventfd=off the device does its work
 * inside this call. */
void vq_notify(struct virtqueue *vq);

/* The next finished chain's cookie and the bytes the device wrote into it,
 * without consuming it; NULL if nothing has finished. */
void *vq_peek_used(struct virtqueue *vq, u32 *len);
/* The same, consuming the entry and freeing its descriptors. */
void *vq_pop_used(struct virtqueue *vq, u32 *len);

#endif
