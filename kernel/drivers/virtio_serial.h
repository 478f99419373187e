/*
 * The guest side of virtio-serial (QEMU's virtio-serial-pci, legacy I/O
 * interface), reduced to what the trace needs: one named port,
 * VSER_PORT_NAME, that carries bytes to the host and command lines back.
 *
 * Everything is polled; the device never interrupts. Under QEMU with
 * ioeventfd=off the device does its work synchronously inside the notify
 * register write, so with a file chardev a send has reached the file when
 * vser_send returns.
 *
 * Who may call what:
 *   vser_init       once, at boot, before any other vser_ call.
 *   vser_send, vser_flushed
 *                   one task at a time: the caller serialises (the trace
 *                   has a single drain task). They never block.
 *   vser_recv_line, vser_poll
 *                   any task; a call that finds another CPU inside returns
 *                   at once (they take a lock with trylock).
 *   vser_ready, vser_get_stats
 *                   anyone, any time.
 * None of these may be called from an interrupt handler.
 */
#ifndef RUNQ_VIRTIO_SERIAL_H
#define RUNQ_VIRTIO_SERIAL_H
#include "../lib/types.h"

#define VSER_PORT_NAME "org.runq.trace.0"

/* Finds the device, negotiates multiport, sets up the queues and does the
 * control handshake until the port named VSER_PORT_NAME has announced
 * itself. false, with a line on the console saying why, if there is no
 * device or no such port: the kernel runs on without it, and every other
 * call is then harmless (sends accept 0 bytes, nothing is received). */
bool vser_init(void);

/* The port exists and the host side is connected: sends will be accepted.
 * It can change at any vser_poll (the host disconnects and reconnects). */
bool vser_ready(void);

/* Copies as much of buf as fits into free transmit buffers, posts them and
 * notifies the device once. Returns the bytes accepted: 0 when every buffer
 * is still with the host (a throttling reader) or the port is not open.
 * Bytes accepted arrive in order and exactly once while the host stays
 * connected. Harvests finished buffers and handles control messages first.
 * Each call posts whole buffers, so callers should send large chunks (a
 * drain task gathering many packets), not one small packet at a time. */
size_t vser_send(const void *buf, size_t len);

/* Harvests finished transmit buffers; true when none is left with the
 * host, i.e. everything accepted so far has been written to the chardev
 * (QEMU returns a buffer only once its last byte is written). Data still
 * in flight at power-off is lost, so a sender flushes before it stops.
 * The sender's call, like vser_send. Never blocks. */
bool vser_flushed(void);

/* The next complete line the host sent on the port, without its newline
 * ("\r\n" is accepted too), NUL-terminated in buf (size > 1). Longer lines
 * are cut to size - 1 bytes. Empty lines are skipped. A NUL byte in the
 * line comes back as DEL (0x7f), so the line is whole and its reader sees
 * a byte to refuse. Returns the line's length, or 0 if no complete line
 * has arrived. Never blocks. */
size_t vser_recv_line(char *buf, size_t size);

/* Handles pending control messages: the port's name, the host opening or
 * closing it. vser_send and vser_recv_line call it; a caller that does
 * neither should call it now and then to notice the host. */
void vser_poll(void);

struct vser_stats {
    bool device;     /* a virtio-serial device was found and set up */
    bool port;       /* the port named VSER_PORT_NAME exists */
    bool open;       /* vser_ready() */
    u8 pci_bus, pci_slot, pci_func;
    u16 io;          /* I/O base (BAR 0) */
    u32 max_ports;   /* the device's max_nr_ports */
    u32 port_id;
    char name[64];   /* port 1's name as the device gave it */
    u64 bytes_sent;
    u64 buffers_sent;
    u64 times_full;  /* vser_send calls that could not take all their bytes */
    u64 bytes_received;
    u64 lines_received;
    u64 control_msgs; /* control messages received */
};

/* A snapshot of the state and counters (each counter read whole). */
void vser_get_stats(struct vser_stats *out);

#endif
