/*
 * virtio-serial over legacy virtio PCI, polled. See virtio_serial.h for the
 * contract and docs/virtio-serial.md for the handshake and QEMU's side.
 *
 * Queues (with VIRTIO_CONSOLE_F_MULTIPORT): 0/1 are port 0's receive and
 * transmit, 2/3 the control receive and transmit, 2n+2/2n+3 port n's for
 * n >= 1. QEMU numbers named virtserialports from 1, so the trace port is
 * port 1 in every command line we generate; only port 1's queues are set
 * up, and a trace port with another number is reported and not used.
 *
 * Handshake, in this order (QEMU drops control messages for which no
 * receive buffer is posted, so the buffers go first):
 *   reset, ACKNOWLEDGE, DRIVER, features (MULTIPORT only), queues,
 *   control and port receive buffers posted, DRIVER_OK,
 *   -> DEVICE_READY
 *   <- PORT_ADD id           -> PORT_READY id
 *   <- PORT_NAME id "name"   -> PORT_OPEN id 1 (if it is ours: the guest
 *                               side is open, so the host may send to us)
 *   <- PORT_OPEN id 1/0      the host side connected / went away
 */
#include "virtio_serial.h"
#include "pci.h"
#include "virtqueue.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../lib/alloc.h"
#include "../lib/printf.h"
#include "../lib/spinlock.h"
#include "../lib/string.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_CONSOLE_LEGACY 0x1003

#define VIRTIO_CONSOLE_F_MULTIPORT (1u << 1)
/* Console config, after the common legacy registers (MSI-X is never
 * enabled by this driver, so it starts at VIRTIO_PCI_CONFIG). */
#define CONFIG_MAX_NR_PORTS (VIRTIO_PCI_CONFIG + 4)

enum {
    CTL_DEVICE_READY = 0,
    CTL_PORT_ADD = 1,
    CTL_PORT_REMOVE = 2,
    CTL_PORT_READY = 3,
    CTL_CONSOLE_PORT = 4,
    CTL_RESIZE = 5,
    CTL_PORT_OPEN = 6,
    CTL_PORT_NAME = 7,
};

struct ctl_msg {
    u32 id; /* port */
    u16 event;
    u16 value;
} __attribute__((packed));

#define TRACE_PORT 1
#define Q_CTL_RX 2
#define Q_CTL_TX 3
#define Q_PORT_RX(n) (2 * (n) + 2)
#define Q_PORT_TX(n) (2 * (n) + 3)

#define CTL_RX_BUFS 32 /* QEMU sends a PORT_ADD per port at once: up to 31 */
#define CTL_RX_SIZE 256
#define CTL_TX_BUFS 8
#define TX_BUFS 4
#define TX_BUF_SIZE (64 * 1024)
#define RX_BUFS 8
#define RX_BUF_SIZE 512
#define LINE_RING 4096 /* received bytes waiting to be taken as lines */
#define INIT_WAIT_NS (200 * NSEC_PER_MSEC)

struct txbuf {
    u8 *data;
    bool busy; /* posted, not yet harvested */
};

struct rxbuf {
    u8 data[RX_BUF_SIZE];
};

static struct {
    bool device;
    struct pci_dev pci;
    u16 io;
    u32 max_ports;
    struct virtqueue port0_rx, port0_tx, ctl_rx, ctl_tx, rx, tx;

    /* Control side, under ctl_lock. */
    struct spinlock ctl_lock;
    u8 (*ctl_rx_bufs)[CTL_RX_SIZE];
    struct ctl_msg ctl_tx_msgs[CTL_TX_BUFS];
    bool ctl_tx_busy[CTL_TX_BUFS];
    char name[64];    /* port 1's name */
    bool port;        /* port 1 is VSER_PORT_NAME */
    bool host_open;   /* PORT_OPEN 1 seen for port 1 */
    u32 wrong_port;   /* VSER_PORT_NAME announced on another port (0: no) */

    /* Transmit side: the single sender's. */
    struct txbuf txbufs[TX_BUFS];

    /* Receive side, under rx_lock. */
    struct spinlock rx_lock;
    struct rxbuf *rxbufs;
    char ring[LINE_RING];
    size_t ring_head, ring_len; /* bytes at ring[(head + i) % LINE_RING] */

    u64 bytes_sent, buffers_sent, times_full, bytes_received, lines_received, control_msgs;
} vs = {
    .ctl_lock = SPINLOCK_INIT("vser_ctl"),
    .rx_lock = SPINLOCK_INIT("vser_rx"),
};

/* rep movsq: icount counts it once per 8 bytes, where the byte loop of
 * memcpy costs a few instructions per byte, and under icount instructions
 * are virtual time. */
static void copy_fast(void *dst, const void *src, size_t n)
{
    size_t q = n / 8, r = n % 8;
    __asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q)::"memory");
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r)::"memory");
}

/* ---- control queue (ctl_lock held, or single-threaded init) ---- */

static void ctl_tx_harvest(void)
{
    struct ctl_msg *m;
    while ((m = vq_pop_used(&vs.ctl_tx, NULL)))
        vs.ctl_tx_busy[m - vs.ctl_tx_msgs] = false;
}

static void ctl_send(u32 id, u16 event, u16 value)
{
    ctl_tx_harvest();
    int slot = -1;
    for (int i = 0; i < CTL_TX_BUFS && slot < 0; i++)
        if (!vs.ctl_tx_busy[i])
            slot = i;
    if (slot < 0) {
        /* The device takes control messages as soon as it is notified;
         * eight in flight means it is gone. */
        kprintf("vser: control queue stuck, dropping event %u for port %u\n", event, id);
        return;
    }
    struct ctl_msg *m = &vs.ctl_tx_msgs[slot];
    *m = (struct ctl_msg){ id, event, value };
    struct vq_buf b = { m, sizeof *m, false };
    if (!vq_add(&vs.ctl_tx, &b, 1, m))
        return;
    vs.ctl_tx_busy[slot] = true;
    vq_notify(&vs.ctl_tx);
}

static void ctl_rx_post(u8 *buf)
{
    struct vq_buf b = { buf, CTL_RX_SIZE, true };
    vq_add(&vs.ctl_rx, &b, 1, buf); /* cannot fail: one descriptor per buffer, fewer buffers than slots */
}

static void ctl_handle(const u8 *buf, u32 len)
{
    struct ctl_msg m;
    if (len < sizeof m)
        return;
    memcpy(&m, buf, sizeof m);
    WRITE_ONCE(vs.control_msgs, vs.control_msgs + 1);
    switch (m.event) {
    case CTL_PORT_ADD:
        /* Every port is acknowledged (a refusal makes QEMU print an error);
         * ports other than ours are simply never opened. */
        ctl_send(m.id, CTL_PORT_READY, 1);
        break;
    case CTL_PORT_NAME: {
        char name[64];
        size_t n = MIN(len - sizeof m, sizeof name - 1);
        memcpy(name, buf + sizeof m, n);
        name[n] = 0; /* QEMU counts the trailing NUL in len; either way we end here */
        if (m.id == TRACE_PORT)
            strncpy_z(vs.name, name, sizeof vs.name);
        if (strcmp(name, VSER_PORT_NAME) != 0)
            break;
        if (m.id != TRACE_PORT) {
            vs.wrong_port = m.id;
            break;
        }
        /* Our side of the port is open: QEMU passes host data only to a
         * guest that has opened the port. */
        WRITE_ONCE(vs.port, true);
        ctl_send(m.id, CTL_PORT_OPEN, 1);
        break;
    }
    case CTL_PORT_OPEN:
        if (m.id == TRACE_PORT)
            WRITE_ONCE(vs.host_open, m.value != 0);
        break;
    case CTL_PORT_REMOVE:
        if (m.id == TRACE_PORT) {
            WRITE_ONCE(vs.port, false);
            WRITE_ONCE(vs.host_open, false);
        }
        break;
    default: /* CONSOLE_PORT, RESIZE: port 0's business */
        break;
    }
}

static void ctl_poll_locked(void)
{
    u8 *buf;
    u32 len;
    bool reposted = false;
    while ((buf = vq_pop_used(&vs.ctl_rx, &len))) {
        ctl_handle(buf, len);
        ctl_rx_post(buf);
        reposted = true;
    }
    if (reposted)
        vq_notify(&vs.ctl_rx);
    ctl_tx_harvest();
}

void vser_poll(void)
{
    if (!vs.device || !spin_trylock(&vs.ctl_lock))
        return;
    ctl_poll_locked();
    spin_unlock(&vs.ctl_lock);
}

/* ---- probe and handshake ---- */

static bool fail(const char *why)
{
    kprintf("vser: %s\n", why);
    return false;
}

static bool setup_queues(void)
{
    static const u16 idx[] = { 0, 1, Q_CTL_RX, Q_CTL_TX, Q_PORT_RX(TRACE_PORT), Q_PORT_TX(TRACE_PORT) };
    struct virtqueue *q[] = { &vs.port0_rx, &vs.port0_tx, &vs.ctl_rx, &vs.ctl_tx, &vs.rx, &vs.tx };
    for (size_t i = 0; i < ARRAY_SIZE(idx); i++) {
        if (!vq_setup(q[i], vs.io, idx[i])) {
            kprintf("vser: queue %u missing or unusable\n", idx[i]);
            return false;
        }
    }
    return vs.ctl_rx.size >= CTL_RX_BUFS && vs.rx.size >= RX_BUFS && vs.tx.size >= TX_BUFS &&
           vs.ctl_tx.size >= CTL_TX_BUFS;
}

static void post_buffers(void)
{
    vs.ctl_rx_bufs = kalloc(CTL_RX_BUFS * CTL_RX_SIZE, 64);
    for (int i = 0; i < CTL_RX_BUFS; i++)
        ctl_rx_post(vs.ctl_rx_bufs[i]);
    vs.rxbufs = kalloc(RX_BUFS * sizeof(struct rxbuf), 64);
    for (int i = 0; i < RX_BUFS; i++) {
        struct vq_buf b = { vs.rxbufs[i].data, RX_BUF_SIZE, true };
        vq_add(&vs.rx, &b, 1, &vs.rxbufs[i]);
    }
    u8 *tx = kalloc(TX_BUFS * TX_BUF_SIZE, 4096);
    for (int i = 0; i < TX_BUFS; i++)
        vs.txbufs[i].data = tx + i * TX_BUF_SIZE;
}

bool vser_init(void)
{
    if (!pci_find(VIRTIO_VENDOR, VIRTIO_CONSOLE_LEGACY, &vs.pci))
        return fail("no virtio-serial device (virtio-serial-pci, 1af4:1003), trace port off");
    bool is_io;
    u64 bar = pci_bar(&vs.pci, 0, &is_io);
    if (!is_io || !bar || bar > 0xffff)
        return fail("BAR 0 is not an I/O BAR (is the device legacy-capable? disable-legacy=off)");
    vs.io = (u16)bar;
    pci_enable(&vs.pci);

    u16 io = vs.io;
    outb(io + VIRTIO_PCI_STATUS, 0); /* reset */
    outb(io + VIRTIO_PCI_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
    outb(io + VIRTIO_PCI_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
    u32 features = inl(io + VIRTIO_PCI_HOST_FEATURES);
    if (!(features & VIRTIO_CONSOLE_F_MULTIPORT)) {
        outb(io + VIRTIO_PCI_STATUS, VIRTIO_STATUS_FAILED);
        return fail("device lacks VIRTIO_CONSOLE_F_MULTIPORT");
    }
    outl(io + VIRTIO_PCI_GUEST_FEATURES, VIRTIO_CONSOLE_F_MULTIPORT);
    vs.max_ports = inl(io + CONFIG_MAX_NR_PORTS);
    if (vs.max_ports <= TRACE_PORT || !setup_queues()) {
        outb(io + VIRTIO_PCI_STATUS, VIRTIO_STATUS_FAILED);
        return fail("device has too few ports or queues too small");
    }
    post_buffers();
    outb(io + VIRTIO_PCI_STATUS,
         VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_DRIVER_OK);
    vs.device = true;
    vq_notify(&vs.ctl_rx);
    vq_notify(&vs.rx);
    ctl_send(0, CTL_DEVICE_READY, 1);

    /* With ioeventfd=off QEMU answers inside the notifies above and the
     * loop ends at once; with ioeventfd on, its I/O thread answers soon. */
    u64 start = clock_ns();
    while (!READ_ONCE(vs.port) && clock_ns() - start < INIT_WAIT_NS) {
        ctl_poll_locked();
        cpu_relax();
    }
    ctl_poll_locked(); /* PORT_OPEN follows PORT_NAME */

    kprintf("vser: virtio-serial at %02x:%02x.%x io %x, %u ports max\n", vs.pci.bus, vs.pci.slot,
            vs.pci.func, io, vs.max_ports);
    if (vs.wrong_port) {
        kprintf("vser: %s is port %u; only port %u is supported (add it as the first virtserialport)\n",
                VSER_PORT_NAME, vs.wrong_port, TRACE_PORT);
        return false;
    }
    if (!vs.port)
        return fail("no port named " VSER_PORT_NAME " (-device virtserialport,name=" VSER_PORT_NAME ")");
    kprintf("vser: port %u %s, host %s\n", TRACE_PORT, vs.name, vs.host_open ? "connected" : "not connected yet");
    return true;
}

bool vser_ready(void)
{
    return READ_ONCE(vs.port) && READ_ONCE(vs.host_open);
}

/* ---- transmit (one caller at a time) ---- */

static unsigned tx_harvest(void)
{
    struct txbuf *t;
    while ((t = vq_pop_used(&vs.tx, NULL)))
        t->busy = false;
    unsigned busy = 0;
    for (int i = 0; i < TX_BUFS; i++)
        busy += vs.txbufs[i].busy;
    return busy;
}

bool vser_flushed(void)
{
    if (!vs.device)
        return true;
    vser_poll();
    return tx_harvest() == 0;
}

size_t vser_send(const void *buf, size_t len)
{
    if (!vs.device)
        return 0;
    vser_poll();
    tx_harvest();
    if (!vser_ready() || !len)
        return 0;

    size_t done = 0;
    u64 posted = 0;
    for (int i = 0; i < TX_BUFS && done < len; i++) {
        struct txbuf *t = &vs.txbufs[i];
        if (t->busy)
            continue;
        size_t n = MIN(len - done, (size_t)TX_BUF_SIZE);
        copy_fast(t->data, (const u8 *)buf + done, n);
        struct vq_buf b = { t->data, (u32)n, false };
        if (!vq_add(&vs.tx, &b, 1, t))
            break;
        t->busy = true;
        done += n;
        posted++;
    }
    if (posted)
        vq_notify(&vs.tx);
    if (done < len)
        WRITE_ONCE(vs.times_full, vs.times_full + 1);
    WRITE_ONCE(vs.bytes_sent, vs.bytes_sent + done);
    WRITE_ONCE(vs.buffers_sent, vs.buffers_sent + posted);
    return done;
}

/* ---- receive ---- */

/* Moves finished receive buffers into the line ring while it has room,
 * and gives them back to the device. A buffer that does not fit stays in
 * the used ring; the host is throttled until lines are taken. */
static void rx_harvest_locked(void)
{
    struct rxbuf *b;
    u32 len;
    bool reposted = false;
    while ((b = vq_peek_used(&vs.rx, &len)) && len <= LINE_RING - vs.ring_len) {
        vq_pop_used(&vs.rx, NULL);
        for (u32 i = 0; i < len; i++)
            vs.ring[(vs.ring_head + vs.ring_len++) % LINE_RING] = (char)b->data[i];
        WRITE_ONCE(vs.bytes_received, vs.bytes_received + len);
        struct vq_buf vb = { b->data, RX_BUF_SIZE, true };
        vq_add(&vs.rx, &vb, 1, b);
        reposted = true;
    }
    if (reposted)
        vq_notify(&vs.rx);
}

/* Takes the first n ring bytes as a line (dropping the newline, a
 * trailing '\r', and what does not fit in buf). A NUL inside the line
 * becomes DEL: kept as a NUL it would end the string there, and the line's
 * reader would run its first part ("mark a\0rm" as "mark a") instead of
 * refusing a line the protocol does not allow (issue 30, F17). */
static size_t take_line(char *buf, size_t size, size_t n, size_t consume)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        char c = vs.ring[(vs.ring_head + i) % LINE_RING];
        if (c == '\r' && i + 1 == n)
            break;
        if (c == 0)
            c = 0x7f;
        if (out + 1 < size)
            buf[out++] = c;
    }
    buf[out] = 0;
    vs.ring_head = (vs.ring_head + consume) % LINE_RING;
    vs.ring_len -= consume;
    return out;
}

size_t vser_recv_line(char *buf, size_t size)
{
    if (!vs.device || size < 2)
        return 0;
    vser_poll();
    if (!spin_trylock(&vs.rx_lock))
        return 0;
    size_t got = 0;
    for (;;) {
        rx_harvest_locked();
        size_t nl = 0;
        while (nl < vs.ring_len && vs.ring[(vs.ring_head + nl) % LINE_RING] != '\n')
            nl++;
        if (nl < vs.ring_len)
            got = take_line(buf, size, nl, nl + 1);
        else if (vs.ring_len == LINE_RING)
            got = take_line(buf, size, LINE_RING, LINE_RING); /* no newline in 4 KiB: cut it */
        else
            break;
        if (got) {
            WRITE_ONCE(vs.lines_received, vs.lines_received + 1);
            break;
        }
    }
    spin_unlock(&vs.rx_lock);
    return got;
}

void vser_get_stats(struct vser_stats *out)
{
    memset(out, 0, sizeof *out);
    out->device = vs.device;
    out->port = READ_ONCE(vs.port);
    out->open = vser_ready();
    out->pci_bus = vs.pci.bus;
    out->pci_slot = vs.pci.slot;
    out->pci_func = vs.pci.func;
    out->io = vs.io;
    out->max_ports = vs.max_ports;
    out->port_id = TRACE_PORT;
    strncpy_z(out->name, vs.name, sizeof out->name);
    out->bytes_sent = READ_ONCE(vs.bytes_sent);
    out->buffers_sent = READ_ONCE(vs.buffers_sent);
    out->times_full = READ_ONCE(vs.times_full);
    out->bytes_received = READ_ONCE(vs.bytes_received);
    out->lines_received = READ_ONCE(vs.lines_received);
    out->control_msgs = READ_ONCE(vs.control_msgs);
}
