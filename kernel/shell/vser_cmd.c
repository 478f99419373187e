/*
 * The shell's vser command: the virtio-serial trace port by hand. The
 * lines it prints are parsed by tests/kernel/vser_test.sh; keep their format.
 *
 * `vser send N` writes a pattern the host can check byte for byte: 16-byte
 * records, each the record's own byte offset as 15 decimal digits and a
 * newline ("000000000000000\n000000000000016\n..."), cut at N bytes. Its
 * summary line gives ns for the whole command (making the pattern, the
 * sends, waiting for the host to take the last buffer) and send_ns for the
 * vser_send calls alone: the driver's own cost.
 */
#include "shell.h"
#include "../arch/x86_64/clock.h"
#include "../drivers/virtio_serial.h"
#include "../lib/alloc.h"
#include "../lib/printf.h"
#include "../lib/string.h"
#include "../sched/sched.h"

#define STAGE_SIZE (256 * 1024) /* one call can fill every transmit buffer */
#define RECORD 16
#define STALL_NS (10 * NSEC_PER_SEC) /* no progress for this long: give up */
#define RETRY_NS NSEC_PER_MSEC

static u64 per_second(u64 bytes, u64 ns)
{
    u64 us = ns / 1000;
    return us ? bytes * 1000000 / us : 0; /* no overflow below 18 TB */
}

static bool usage(void)
{
    kprintf("usage: vser status | send N | echo TEXT | recv [WAIT_MS]\n");
    return false;
}

static bool cmd_status(void)
{
    struct vser_stats s;
    vser_get_stats(&s);
    if (!s.device) {
        kprintf("vser device=not-found\n");
        return true;
    }
    kprintf("vser device=%02x:%02x.%x io=%x max_ports=%u port=%u name=%s found=%s open=%s\n", s.pci_bus,
            s.pci_slot, s.pci_func, s.io, s.max_ports, s.port_id, s.name[0] ? s.name : "-",
            s.port ? "yes" : "no", s.open ? "yes" : "no");
    kprintf("vser bytes_sent=%lu buffers_sent=%lu times_full=%lu bytes_received=%lu lines_received=%lu "
            "control_msgs=%lu\n",
            s.bytes_sent, s.buffers_sent, s.times_full, s.bytes_received, s.lines_received, s.control_msgs);
    return true;
}

/* Adds add to a number kept as ASCII decimal digits. */
static void decimal_add(char *digits, int n, unsigned add)
{
    for (int i = n - 1; i >= 0 && add; i--) {
        unsigned d = (unsigned)(digits[i] - '0') + add;
        digits[i] = (char)('0' + d % 10);
        add = d / 10;
    }
}

/* Fills buf with the pattern's bytes [off, off + n); off is a multiple of
 * RECORD. The offset is kept in decimal and counted up a record at a time,
 * so the fill costs about an instruction a byte (it is timed with the send). */
static void fill_pattern(u8 *buf, u64 off, size_t n)
{
    char rec[RECORD];
    u64 v = off;
    for (int i = RECORD - 2; i >= 0; i--, v /= 10)
        rec[i] = (char)('0' + v % 10);
    rec[RECORD - 1] = '\n';
    size_t done = 0;
    for (; done + RECORD <= n; done += RECORD) {
        __builtin_memcpy(buf + done, rec, RECORD);
        decimal_add(rec, RECORD - 1, RECORD);
    }
    memcpy(buf + done, rec, n - done);
}

static bool send_all(const void *buf, size_t len, u64 *send_ns)
{
    size_t done = 0;
    u64 last_progress = clock_ns();
    while (done < len) {
        u64 t0 = clock_ns();
        size_t n = vser_send((const u8 *)buf + done, len - done);
        *send_ns += clock_ns() - t0;
        if (n) {
            done += n;
            last_progress = clock_ns();
            continue;
        }
        if (!vser_ready()) {
            kprintf("vser: port not open (%lu of %lu bytes sent)\n", (u64)done, (u64)len);
            return false;
        }
        if (clock_ns() - last_progress > STALL_NS) {
            kprintf("vser: host took nothing for %lu s\n", STALL_NS / NSEC_PER_SEC);
            return false;
        }
        task_sleep_ns(RETRY_NS); /* every buffer is with a slow reader */
    }
    return true;
}

/* Waits until the host has taken everything sent (so a poweroff after the
 * command loses nothing). */
static bool flush(void)
{
    u64 start = clock_ns();
    while (!vser_flushed()) {
        if (!vser_ready()) {
            kprintf("vser: port closed with data in flight\n");
            return false;
        }
        if (clock_ns() - start > STALL_NS) {
            kprintf("vser: host took nothing for %lu s\n", STALL_NS / NSEC_PER_SEC);
            return false;
        }
        task_sleep_ns(RETRY_NS);
    }
    return true;
}

static bool cmd_send(const char *arg)
{
    long n;
    if (!parse_long(arg, &n) || n < 0) {
        kprintf("vser: N must be a byte count, not '%s'\n", arg);
        return false;
    }
    static u8 *stage;
    if (!stage)
        stage = kalloc(STAGE_SIZE, 4096);
    u64 start = clock_ns(), send_ns = 0;
    for (u64 off = 0; off < (u64)n; off += STAGE_SIZE) {
        size_t len = (size_t)MIN((u64)STAGE_SIZE, (u64)n - off);
        fill_pattern(stage, off, len);
        if (!send_all(stage, len, &send_ns))
            return false;
    }
    if (!flush())
        return false;
    u64 ns = clock_ns() - start;
    kprintf("vser sent=%ld ns=%lu bytes_per_s=%lu send_ns=%lu send_bytes_per_s=%lu\n", n, ns,
            per_second((u64)n, ns), send_ns, per_second((u64)n, send_ns));
    return true;
}

static bool cmd_echo(int argc, char **argv)
{
    char line[256];
    struct strbuf b;
    strbuf_init(&b, line, sizeof line - 1); /* room for the newline */
    for (int i = 2; i < argc; i++)
        strbuf_printf(&b, "%s%s", argv[i], i + 1 < argc ? " " : "");
    if (b.cut) {
        kprintf("vser: text too long (at most %u bytes)\n", (unsigned)sizeof line - 2);
        return false;
    }
    size_t n = b.len;
    line[n++] = '\n';
    u64 send_ns = 0;
    if (!send_all(line, n, &send_ns) || !flush())
        return false;
    kprintf("vser echoed=%lu\n", (u64)n);
    return true;
}

/* Prints every line received so far; with WAIT_MS, first waits up to that
 * long for at least one. */
static bool cmd_recv(int argc, char **argv)
{
    long wait_ms = 0;
    if (argc > 2 && (!parse_long(argv[2], &wait_ms) || wait_ms < 0 || wait_ms > 600000)) {
        kprintf("vser: WAIT_MS must be 0..600000, not '%s'\n", argv[2]);
        return false;
    }
    u64 deadline = clock_ns() + (u64)wait_ms * NSEC_PER_MSEC;
    char line[256];
    unsigned got = 0;
    for (;;) {
        while (vser_recv_line(line, sizeof line)) {
            kprintf("vser line: %s\n", line);
            got++;
        }
        if (got || clock_ns() >= deadline)
            break;
        task_sleep_ns(RETRY_NS);
    }
    kprintf("vser lines=%u\n", got);
    return true;
}

bool vser_cmd(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *sub = argv[1];
    if (strcmp(sub, "status") == 0 && argc == 2)
        return cmd_status();
    if (strcmp(sub, "send") == 0 && argc == 3)
        return cmd_send(argv[2]);
    if (strcmp(sub, "echo") == 0)
        return cmd_echo(argc, argv);
    if (strcmp(sub, "recv") == 0 && argc <= 3)
        return cmd_recv(argc, argv);
    return usage();
}
