/*
 * `runq record`: reads a trace stream from QEMU's socket or a file, decodes
 * it (trace/decode.c), puts the CPUs' packets back into one time order, and
 * stores it (db/writer.c); on a live socket it also relays the control
 * lines of trace/control.h to the kernel (trace/recorder/relay.c). It
 * sits above both trace/ and db/, so that neither needs the other
 * (docs/architecture.md); its flags and help are host/cli/record.c's.
 *
 * Why a merge: each CPU drains its own ring, so a CPU's packet may reach
 * the wire after a later packet of another CPU (a WAKE on CPU 0 after the
 * PICK on CPU 1 that ran the woken task). Each CPU's records are in time
 * order, so a k-way merge suffices: a record is released once every CPU has
 * sent something at least as late — or has been silent for longer than two
 * keyframe periods, since every CPU sends a keyframe each period even when
 * idle. Records that still arrive behind the merge are not stored: each is
 * counted (stats 'records_late', data loss) and its CPU gets a gap there,
 * so what its tasks did around it is unknown rather than wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "trace/recorder/record.h"
#include "trace/recorder/relay.h"
#include "db/writer.h"
#include "host/base/xalloc.h"
#include "trace/control.h"
#include "trace/decode.h"

#define REC_GAP 0xf0 /* merge-internal pseudo-record: loss before the next record */
#define COMMIT_MS 250
#define CONNECT_WAIT_MS (RECORD_CONNECT_WAIT_S * 1000)
/* What the merge holds, whatever the stream says (docs/trace-format.md,
 * "Bounds"): at most MAX_QUEUED bytes of records, each for at most two
 * keyframe periods of trace time, the period taken within these limits. */
#define MAX_QUEUED (64u << 20)
#define KEYFRAME_MIN_NS 1000000ull     /* 1 ms */
#define KEYFRAME_MAX_NS 1000000000ull  /* 1 s */

struct TRACE_PACKED rec_gap {
    struct trace_rec_hdr h;
    uint32_t lost, dropped;
};

struct fifo {
    uint8_t *buf;
    size_t head, len, cap;
    uint64_t progress; /* latest ts queued */
    int seen;
    int gap_pending;
    uint32_t gap_lost, gap_dropped;
    /* loss released but not yet handed to the writer: it becomes one gap
     * before the CPU's next record */
    int loss_pending;
    uint32_t loss_lost, loss_dropped, loss_late;
};

/* One recording: its input, the merge of the CPUs' records, the writer. */
struct recorder {
    struct trace_decoder dec;
    struct db_writer *w;
    struct fifo q[TRACE_DEC_NCPU];
    uint64_t window_ns, max_progress, last_released, late;
    uint64_t released; /* records handed to the writer, stored or not */
    size_t queued, queued_max;
    int released_any;
    uint16_t active[TRACE_DEC_NCPU]; /* queues that have ever held a record */
    unsigned nactive;
    int fd;                          /* the stream */
    struct relay *relay;             /* the control socket's; NULL: none */
    char ctl_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static volatile sig_atomic_t rec_signal;

static void rec_on_signal(int sig)
{
    rec_signal = sig;
}

static void fifo_push(struct fifo *f, const void *rec, size_t n)
{
    if (f->head + f->len + n > f->cap) {
        if (f->head) {
            memmove(f->buf, f->buf + f->head, f->len);
            f->head = 0;
        }
        if (f->len + n > f->cap) {
            size_t cap = f->cap ? f->cap : 65536;
            while (cap < f->len + n)
                cap *= 2;
            f->buf = xrealloc(f->buf, cap);
            f->cap = cap;
        }
    }
    BUG_ON(f->head + f->len + n > f->cap); /* made room above */
    memcpy(f->buf + f->head + f->len, rec, n);
    f->len += n;
}

static const struct trace_rec_hdr *fifo_head(const struct fifo *f)
{
    return f->len ? (const struct trace_rec_hdr *)(f->buf + f->head) : NULL;
}

static void on_packet(void *ctx, const struct trace_pkt_hdr *h, const uint8_t *payload, uint32_t lost,
                      uint32_t dropped)
{
    struct recorder *r = ctx;
    (void)payload;
    if (lost || dropped) {
        struct fifo *f = &r->q[trace_dec_cpu_index(h->cpu)];
        f->gap_pending = 1;
        f->gap_lost += lost;
        f->gap_dropped += dropped;
    }
}

static void on_record(void *ctx, const struct trace_pkt_hdr *h, const struct trace_rec_hdr *rec)
{
    struct recorder *r = ctx;
    unsigned ci = trace_dec_cpu_index(h->cpu);
    BUG_ON(ci >= TRACE_DEC_NCPU); /* decode.c's header_ok: a CPU of the format, or the stream's */
    struct fifo *f = &r->q[ci];
    if (rec->type == TRACE_REC_STREAM) {
        const struct trace_rec_stream *s = (const void *)rec;
        /* Bounded whatever the header says: a period of 2^62 ns would
         * hold every other CPU's records until MAX_QUEUED. */
        uint64_t kf = s->keyframe_ns ? s->keyframe_ns : TRACE_KEYFRAME_PERIOD_NS;
        r->window_ns = 2 * (kf < KEYFRAME_MIN_NS ? KEYFRAME_MIN_NS : kf > KEYFRAME_MAX_NS ? KEYFRAME_MAX_NS : kf);
        db_writer_record(r->w, h->cpu, rec); /* metadata: no need to wait */
        r->released++;
        return;
    }
    if (f->gap_pending) {
        struct rec_gap g = { .lost = f->gap_lost, .dropped = f->gap_dropped };
        g.h.type = REC_GAP;
        g.h.size = sizeof g;
        g.h.ts_ns = rec->ts_ns;
        fifo_push(f, &g, sizeof g);
        r->queued += sizeof g;
        f->gap_pending = 0;
        f->gap_lost = f->gap_dropped = 0;
    }
    fifo_push(f, rec, rec->size);
    r->queued += rec->size;
    if (r->queued > r->queued_max)
        r->queued_max = r->queued;
    if (!f->seen) {
        BUG_ON(r->nactive >= TRACE_DEC_NCPU); /* each queue is added once, when first seen */
        r->active[r->nactive++] = (uint16_t)ci;
    }
    f->seen = 1;
    if (rec->ts_ns > f->progress)
        f->progress = rec->ts_ns;
    if (rec->ts_ns > r->max_progress)
        r->max_progress = rec->ts_ns;
}

/* Hands CPU bc's pending loss (its gaps and late records since its last
 * record) to the writer as one gap ending at ts. */
static void flush_loss(struct recorder *r, unsigned bc, uint64_t ts)
{
    struct fifo *f = &r->q[bc];
    if (!f->loss_pending)
        return;
    uint16_t cpu = bc == TRACE_DEC_GLOBAL ? TRACE_CPU_GLOBAL : (uint16_t)bc;
    db_writer_gap(r->w, cpu, ts, f->loss_lost, f->loss_dropped, f->loss_late);
    f->loss_pending = 0;
    f->loss_lost = f->loss_dropped = f->loss_late = 0;
}

/* Releases, in time order, every record no CPU can still precede. */
static void release(struct recorder *r, int final)
{
    uint64_t W = UINT64_MAX;
    if (!final && r->queued < MAX_QUEUED) {
        for (unsigned k = 0; k < r->nactive; k++) {
            struct fifo *f = &r->q[r->active[k]];
            if (r->active[k] == TRACE_DEC_GLOBAL)
                continue; /* stream-wide records do not hold the CPUs back */
            if (!f->len && f->progress + r->window_ns < r->max_progress)
                continue; /* silent for too long: do not wait for it */
            if (f->progress < W)
                W = f->progress;
        }
    }
    for (;;) {
        const struct trace_rec_hdr *best = NULL;
        unsigned bc = 0;
        for (unsigned k = 0; k < r->nactive; k++) {
            unsigned c = r->active[k];
            const struct trace_rec_hdr *h = fifo_head(&r->q[c]);
            if (h && (!best || h->ts_ns < best->ts_ns)) {
                best = h;
                bc = c;
            }
        }
        if (!best || best->ts_ns > W)
            break;
        struct fifo *f = &r->q[bc];
        if (best->type == REC_GAP) {
            const struct rec_gap *g = (const void *)best;
            f->loss_pending = 1;
            f->loss_lost += g->lost;
            f->loss_dropped += g->dropped;
        } else if (r->released_any && best->ts_ns < r->last_released) {
            /* Behind what is stored already: it cannot be put in its place,
             * and the derived tables cannot take it out of order. Not
             * stored, and its CPU's intervals around it become unknown. */
            r->late++;
            f->loss_pending = 1;
            f->loss_late++;
        } else {
            /* The writer gets the records in time order (writer.h): the
             * derived tables cannot take one out of it. */
            BUG_ON(r->released_any && best->ts_ns < r->last_released);
            flush_loss(r, bc, best->ts_ns);
            r->last_released = best->ts_ns;
            r->released_any = 1;
            db_writer_record(r->w, bc == TRACE_DEC_GLOBAL ? TRACE_CPU_GLOBAL : (uint16_t)bc, best);
            r->released++;
        }
        /* a record is queued whole, so it leaves whole */
        BUG_ON(best->size > f->len || best->size > r->queued);
        f->head += best->size;
        f->len -= best->size;
        r->queued -= best->size;
        if (!f->len)
            f->head = 0;
    }
    BUG_ON(final && r->queued != 0); /* the final release takes every record held */
    if (final)
        for (unsigned k = 0; k < r->nactive; k++)
            flush_loss(r, r->active[k], r->last_released);
    db_writer_set_stat(r->w, "merge_held_max", "info", r->queued_max,
                       "most bytes of records the time-order merge held at once");
    db_writer_set_stat(r->w, "records_late", "data_loss", r->late,
                       "records that reached the host too late for the time-order merge: not stored, "
                       "and their CPU's intervals around them unknown");
}

/* ---- input ---- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_socket(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) {
        fprintf(stderr, "runq record: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(a.sun_path, path);
    int64_t give_up = now_ms() + CONNECT_WAIT_MS;
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            fprintf(stderr, "runq record: socket: %s\n", strerror(errno));
            return -1;
        }
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            return fd;
        int e = errno;
        close(fd);
        /* QEMU may still be starting: wait for its listening socket. */
        if ((e != ENOENT && e != ECONNREFUSED) || now_ms() > give_up || rec_signal) {
            fprintf(stderr, "runq record: cannot connect to %s: %s\n", path, strerror(e));
            return -1;
        }
        usleep(100 * 1000);
    }
}

/* The writer failed (a full disk, an I/O error, another recorder holding
 * the database too long): the database keeps what its last commit wrote.
 * Marks the trace incomplete if that still fits and says what was kept
 * and what was not, and how to store the rest: "a database with room"
 * only when room was what it lacked. Returns the exit status, 1. */
static int store_failed(struct recorder *r, const char *db, const char *file)
{
    int code = db_writer_failed(r->w);
    const char *reason = code == SQLITE_FULL ? "disk_full" : "db_error";
    uint64_t kept = db_writer_records_committed(r->w);
    int marked = db_writer_abandon(r->w, reason, r->released - kept);
    fprintf(stderr,
            "runq record: trace %lld in %s: stopped storing: %s. It keeps %llu records, up to its "
            "last commit; %llu records read after that were not stored.\n",
            (long long)db_writer_trace_id(r->w), db, db_writer_failure(r->w),
            (unsigned long long)kept, (unsigned long long)(r->released - kept));
    if (marked >= 0)
        fprintf(stderr, "runq record: trace %lld is marked incomplete (%s)%s\n",
                (long long)db_writer_trace_id(r->w), reason,
                marked == 0 ? "; stats counts the records not stored (runq report loss)" : "");
    else
        fprintf(stderr, "runq record: trace %lld could not be marked incomplete; its status still says "
                        "'recording'\n", (long long)db_writer_trace_id(r->w));
    if (file && strcmp(file, "-") != 0 && code == SQLITE_FULL)
        fprintf(stderr, "runq record: %s is untouched: record it again into a database with room: "
                        "runq record --file %s --db OTHER.db\n", file, file);
    else if (file && strcmp(file, "-") != 0)
        fprintf(stderr, "runq record: %s is untouched: record it again%s: runq record --file %s --db %s\n", file,
                code == SQLITE_BUSY ? " when the other recorder is done" : "", file, db);
    return 1;
}

/* The writer's lines (its failure, its waits for another recorder). */
static void record_say(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "runq record: %s\n", line);
}

/* Opens the stream (r->fd), the database with a new trace, whose id goes
 * to stdout, and the decoder; on a live socket also the control relay
 * (r->relay, NULL without). 0, or -1 after saying why. */
static int record_open(struct recorder *r, const struct record_opts *o)
{
    char msg[512];
    r->window_ns = 2 * TRACE_KEYFRAME_PERIOD_NS;
    if (o->sock)
        r->fd = open_socket(o->sock);
    else if (strcmp(o->file, "-") == 0)
        r->fd = 0;
    else if ((r->fd = open(o->file, O_RDONLY | O_CLOEXEC)) < 0)
        fprintf(stderr, "runq record: %s: %s\n", o->file, strerror(errno));
    if (r->fd < 0)
        return -1;
    r->w = db_writer_open(o->db, o->sock ? o->sock : o->file, record_say, NULL, msg, sizeof msg);
    if (!r->w) {
        fprintf(stderr, "runq record: %s\n", msg);
        return -1;
    }
    static const struct trace_dec_ops ops = { .packet = on_packet, .record = on_record };
    if (trace_decoder_init(&r->dec, &ops, r) != 0) {
        fprintf(stderr, "runq record: out of memory\n");
        return -1;
    }
    db_writer_set_decoder(r->w, &r->dec);
    printf("%lld\n", (long long)db_writer_trace_id(r->w));
    fflush(stdout);

    /* Live: command lines for the kernel (trace/control.h) come in on a
     * control socket beside the trace socket and go out on the trace
     * socket, which carries both directions. */
    if (o->sock &&
        (size_t)snprintf(r->ctl_path, sizeof r->ctl_path, "%s" TRACE_CTL_SOCKET_SUFFIX, o->sock) < sizeof r->ctl_path) {
        r->relay = relay_open(r->ctl_path, r->fd);
        if (r->relay && db_writer_set_control(r->w, r->ctl_path) != 0) {
            relay_close(r->relay);
            r->relay = NULL;
        }
    }
    return 0;
}

/* The relay's counts into the trace's stats (info: no data is lost). */
static void relay_stats(struct recorder *r)
{
    if (!r->relay)
        return;
    struct relay_counts c;
    relay_counts(r->relay, &c);
    db_writer_set_stat(r->w, "control_lines_sent", "info", c.lines_sent, "control lines relayed to the kernel");
    db_writer_set_stat(r->w, "control_lines_refused", "info", c.lines_refused,
                       "control lines the recorder refused (a NUL byte, the kernel not taking lines): not sent");
    db_writer_set_stat(r->w, "control_clients_dropped", "info", c.clients_dropped,
                       "control clients dropped: silent, connected too long, not reading their answers, or one too many");
}

/* Reads the stream into the decoder until it ends, a signal comes, or
 * (--follow) the END record was read and the file read to its end;
 * relays control lines and commits every COMMIT_MS. Returns 1 after a
 * read error, else 0. */
static int record_read(struct recorder *r, const struct record_opts *o)
{
    static uint8_t buf[1 << 16];
    int64_t last_commit = now_ms();
    while (!rec_signal) {
        struct pollfd p[1 + RELAY_MAX_POLLFDS] = { { .fd = r->fd, .events = POLLIN } };
        int timeout = COMMIT_MS, nrelay = r->relay ? relay_poll(r->relay, p + 1, &timeout, now_ms()) : 0;
        int pr = poll(p, 1 + (nfds_t)nrelay, timeout);
        ssize_t n = 0;
        if (pr > 0 && p[0].revents) {
            n = read(r->fd, buf, sizeof buf);
            if (n < 0 && errno != EINTR && errno != EAGAIN) {
                fprintf(stderr, "runq record: reading %s: %s\n", o->sock ? o->sock : o->file, strerror(errno));
                return 1;
            }
            /* --follow stops at the END record: nothing after it belongs
             * to the trace. What the file holds already is read, so that
             * its packets after END are counted as a file read whole
             * counts them; waiting for more would never end. */
            if (n == 0) {
                if (!o->follow || o->sock || r->dec.ended)
                    break;
                usleep(100 * 1000); /* a file that may still grow */
            }
            if (n > 0) {
                trace_decoder_feed(&r->dec, buf, (size_t)n);
                release(r, 0);
            }
        }
        if (pr >= 0 && nrelay)
            relay_run(r->relay, p + 1, nrelay, now_ms());
        if (now_ms() - last_commit >= COMMIT_MS) {
            /* A failure (a full disk) stops the storing, not the reading:
             * the rest of the stream is still read, so QEMU is never held
             * up, and counted, so the summary can say what was not kept. */
            relay_stats(r);
            db_writer_commit(r->w);
            last_commit = now_ms();
        }
    }
    return 0;
}

/* Withdraws the control socket, stores what the merge still holds, marks
 * the trace complete or incomplete and says so; *stored: whether that
 * worked. Returns the exit status. */
static int record_finish(struct recorder *r, const struct record_opts *o, int io_error, bool *stored_out)
{
    if (r->relay) {
        relay_stats(r);
        relay_close(r->relay);
        r->relay = NULL;
        db_writer_set_control(r->w, NULL);
    }
    trace_decoder_finish(&r->dec);
    release(r, 1);

    const struct trace_dec_counts *c = &r->dec.c;
    const char *status = "incomplete", *why;
    if (rec_signal) {
        why = "interrupted";
    } else if (io_error) {
        why = "read_error";
    } else if (db_writer_saw_end(r->w)) {
        /* A packet cut before END lost only itself (counted, a gap);
         * bytes cut after END belong to no trace. */
        status = "complete";
        why = "end";
    } else if (c->bytes_truncated) {
        why = "truncated";
    } else {
        why = "eof";
    }
    int stored = db_writer_failed(r->w) ? -1 : db_writer_finish(r->w, status, why);
    if (stored < 0)
        return store_failed(r, o->db, o->file);
    *stored_out = true;
    fprintf(stderr,
            "runq record: trace %lld in %s: %llu records, %llu packets lost, %llu records "
            "dropped, %llu bytes skipped, %llu CRC errors; %s (%s)\n",
            (long long)db_writer_trace_id(r->w), o->db, (unsigned long long)db_writer_records(r->w),
            (unsigned long long)c->packets_lost, (unsigned long long)c->records_dropped,
            (unsigned long long)c->bytes_skipped, (unsigned long long)c->crc_errors, status, why);
    int rc = rec_signal ? 128 + rec_signal : io_error ? 1 : 0;
    if (o->require_end && !db_writer_saw_end(r->w)) {
        /* runq boot asks: a kernel that powered off cleanly sent END first,
         * so a trace without it stopped early, however QEMU exited. */
        fprintf(stderr,
                "runq record: trace %lld has no END record: the kernel's stream stopped before it ended "
                "(runq report loss --db %s)\n",
                (long long)db_writer_trace_id(r->w), o->db);
        rc = rc ? rc : 1;
    }
    if (stored > 0) {
        fprintf(stderr,
                "runq record: trace %lld is stored, but the indexes are not: %s. Queries work, slower; "
                "the next recording into %s builds them.\n",
                (long long)db_writer_trace_id(r->w), db_writer_failure(r->w), o->db);
        rc = rc ? rc : 1;
    }
    return rc;
}

static void recorder_free(struct recorder *r)
{
    db_writer_close(r->w);
    trace_decoder_free(&r->dec);
    for (unsigned k = 0; k < TRACE_DEC_NCPU; k++)
        free(r->q[k].buf);
    if (r->fd > 0)
        close(r->fd);
    free(r);
}

int record_stream(const struct record_opts *o, bool *stored)
{
    *stored = false;
    /* SIGHUP too: closing the terminal or its tmux session ends a live
     * recording as Ctrl-C does, committed and marked, not cut off. */
    struct sigaction sa = { .sa_handler = rec_on_signal }, old_int, old_term, old_hup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    rec_signal = 0;

    int rc = 1;
    struct recorder *r = xcalloc(1, sizeof *r);
    r->fd = -1;
    if (record_open(r, o) == 0)
        rc = record_finish(r, o, record_read(r, o), stored);
    recorder_free(r);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    return rc;
}
