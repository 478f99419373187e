/*
 * The control relay (contract in relay.h). A client's life:
 *
 *   accept     non-blocking, in a free slot of RELAY_CLIENTS (none free:
 *              refused with an answer, and dropped);
 *   read       as poll says there is input, at most TRACE_CTL_CONN_MAX - 1
 *              bytes in all; each whole line is checked, then queued for
 *              the kernel whole or refused, and answered either way;
 *   done       at its end of file, at the byte limit, or after an error:
 *              what is left of its answers goes out, then it is closed;
 *   dropped    when it stays silent TRACE_CTL_IDLE_MS, stays connected
 *              TRACE_CTL_LIFE_MS, or does not take its answers: its slot and
 *              buffers are what a slow client costs, never the recorder's
 *              time.
 *
 * The lines for the kernel wait in one buffer until the trace socket takes
 * them; a line that does not fit whole is refused, not cut, so the kernel
 * never gets half a line. Before this, one client that connected and sent
 * a byte now and then held the recorder in a blocking read for up to a
 * minute, while the guest's rings overflowed (issue 30).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bug.h"
#include "trace/recorder/relay.h"
#include "host/base/xalloc.h"
#include "trace/control.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define RELAY_CLIENTS 8
/* A client's answers not yet taken by its socket. */
#define RELAY_ANSWER_MAX 1024
/* The client's socket itself holds at most this (Linux doubles it), so a
 * client that reads none of its answers is known after a few KB of them. */
#define RELAY_CLIENT_SNDBUF 4096
/* Lines the trace socket has not taken yet. */
#define RELAY_KERNEL_MAX 4096

_Static_assert(RELAY_MAX_POLLFDS == RELAY_CLIENTS + 2, "the socket, the kernel, and each client");

struct client {
    int fd;           /* -1: a free slot */
    int done;         /* reads no more: its answers go out, then it is closed */
    size_t in_len;    /* bytes of a line not ended yet, at in[0] */
    size_t taken;     /* bytes read from this connection in all */
    size_t out_len;   /* answers not sent yet, at out[0] */
    int64_t start_ms; /* when it connected */
    int64_t last_ms;  /* its last byte, or when it was done */
    char in[TRACE_CTL_CONN_MAX];
    char out[RELAY_ANSWER_MAX];
};

struct relay {
    int listen_fd, kernel_fd;
    int kernel_failed;             /* said once: the kernel's side is gone */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct client c[RELAY_CLIENTS];
    char kbuf[RELAY_KERNEL_MAX];
    size_t klen;
    struct relay_counts n;
    unsigned said;                 /* the reasons (bits of enum drop) said on stderr */
    int map[RELAY_MAX_POLLFDS];    /* relay_poll's pollfds: a client's slot, or one of: */
};
enum { MAP_LISTEN = -1, MAP_KERNEL = -2 };

/* Why a client is dropped. Each reason is said on stderr the first time
 * only: a client that reconnects in a loop must not flood the terminal
 * (the stats count every drop). */
enum drop { DROP_SILENT, DROP_LONG, DROP_UNREAD, DROP_BUSY };
static const char *const drop_why[] = {
    [DROP_SILENT] = "nothing from it for " STR(TRACE_CTL_IDLE_MS) " ms (a client writes its lines and closes)",
    [DROP_LONG] = "connected for more than " STR(TRACE_CTL_LIFE_MS) " ms (a client writes its lines and closes)",
    [DROP_UNREAD] = "it does not read its answers",
    [DROP_BUSY] = STR(RELAY_CLIENTS) " clients are connected already",
};

/* Whatever reaches the control socket runs in the kernel (`run crash
 * fault` panics it), so only its owner may: the socket is made 0600
 * whatever the umask (under umask 000 another local user could connect),
 * and never in a directory others can write unless it has the sticky bit
 * (where one could put a socket of their own in its place). */
static int listen_control(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    char dir[sizeof a.sun_path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    struct stat st;
    const char *refused = stat(dir, &st) != 0                                   ? strerror(errno)
                          : (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX) ? "its directory is writable by every user and not sticky"
                                                                              : NULL;
    if (refused) {
        fprintf(stderr, "runq record: control socket %s: %s (live actions off)\n", path, refused);
        return -1;
    }
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    unlink(path);
    mode_t old = umask(0177);
    int bound = s >= 0 ? bind(s, (struct sockaddr *)&a, sizeof a) : -1;
    umask(old);
    if (s < 0 || bound != 0 || listen(s, 8) != 0) {
        fprintf(stderr, "runq record: control socket %s: %s (live actions off)\n", path, strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    return s;
}

struct relay *relay_open(const char *path, int kernel_fd)
{
    struct relay *rl = xcalloc(1, sizeof *rl);
    if (strlen(path) >= sizeof rl->path) {
        fprintf(stderr, "runq record: control socket %s: path too long (live actions off)\n", path);
        free(rl);
        return NULL;
    }
    snprintf(rl->path, sizeof rl->path, "%s", path);
    rl->kernel_fd = kernel_fd;
    for (int i = 0; i < RELAY_CLIENTS; i++)
        rl->c[i].fd = -1;
    /* The trace socket is read and written in the recorder's one loop: a
     * write must not wait for a guest that takes no lines. */
    int fl = fcntl(kernel_fd, F_GETFL);
    if (fl < 0 || fcntl(kernel_fd, F_SETFL, fl | O_NONBLOCK) != 0 || (rl->listen_fd = listen_control(path)) < 0) {
        if (fl < 0)
            fprintf(stderr, "runq record: control socket %s: %s (live actions off)\n", path, strerror(errno));
        free(rl);
        return NULL;
    }
    return rl;
}

static void client_close(struct client *cl)
{
    close(cl->fd);
    cl->fd = -1;
}

static void drop(struct relay *rl, struct client *cl, enum drop why)
{
    rl->n.clients_dropped++;
    if (!(rl->said & 1u << why))
        fprintf(stderr, "runq record: control client dropped: %s (each such drop is counted in stats "
                        "control_clients_dropped)\n", drop_why[why]);
    rl->said |= 1u << why;
    client_close(cl);
}

/* Sends what fd takes of the *len bytes at buf without waiting, and
 * moves the rest to buf's start. 0, or -1 when the peer is gone (or sent
 * nothing: a stream socket that takes no byte and says no error). */
static int send_some(int fd, char *buf, size_t *len)
{
    while (*len) {
        ssize_t w = send(fd, buf, *len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (w <= 0)
            return -1;
        BUG_ON((size_t)w > *len); /* send takes at most what it is given */
        memmove(buf, buf + w, *len - (size_t)w);
        *len -= (size_t)w;
    }
    return 0;
}

/* Sends what the client's socket takes of its answers. 0, or -1 when the
 * client is gone (closed here: a client may close without reading). */
static int client_flush(struct client *cl)
{
    if (send_some(cl->fd, cl->out, &cl->out_len) == 0)
        return 0;
    client_close(cl);
    return -1;
}

/* Queues one answer line. 0, or -1 when the client was closed: gone, or
 * dropped because its answers do not fit (it reads none of them). */
static int answer(struct relay *rl, struct client *cl, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    if (cl->out_len + (size_t)n > sizeof cl->out && client_flush(cl) != 0)
        return -1;
    if (cl->out_len + (size_t)n > sizeof cl->out) {
        drop(rl, cl, DROP_UNREAD);
        return -1;
    }
    BUG_ON(cl->out_len + (size_t)n > sizeof cl->out); /* dropped above when it does not fit */
    memcpy(cl->out + cl->out_len, line, (size_t)n);
    cl->out_len += (size_t)n;
    return 0;
}

/* Hands the trace socket what it takes of the kernel's lines. */
static void kernel_flush(struct relay *rl)
{
    if (rl->kernel_failed || send_some(rl->kernel_fd, rl->kbuf, &rl->klen) == 0)
        return;
    /* QEMU is gone: the trace ends too, and its reading says so; the
     * lines after this are refused. */
    fprintf(stderr, "runq record: sending a command to the kernel: %s\n", strerror(errno));
    rl->kernel_failed = 1;
    rl->klen = 0;
}

/* One line of a client, its newline taken off: queued for the kernel whole
 * (trace/control.h, step 2) or refused, and answered. 0, or -1 when the
 * client was closed. */
static int relay_line(struct relay *rl, struct client *cl, const char *line, size_t len)
{
    if (len == 0)
        return 0; /* nothing to run; not sent, as before answers existed */
    /* The kernel reads a line as a C string: it would run what comes
     * before a NUL and never see the rest, so it could not refuse it. */
    if (memchr(line, '\0', len)) {
        rl->n.lines_refused++;
        return answer(rl, cl, "error: a NUL byte in the line: not sent");
    }
    if (rl->kernel_failed) {
        rl->n.lines_refused++;
        return answer(rl, cl, "error: the kernel's side of the trace socket is gone: not sent");
    }
    if (rl->klen + len + 1 > sizeof rl->kbuf)
        kernel_flush(rl);
    if (rl->klen + len + 1 > sizeof rl->kbuf) {
        rl->n.lines_refused++;
        return answer(rl, cl, "error: the kernel is not taking lines (%zu bytes wait for it): not sent", rl->klen);
    }
    BUG_ON(rl->klen + len + 1 > sizeof rl->kbuf); /* refused above when it does not fit whole */
    memcpy(rl->kbuf + rl->klen, line, len);
    rl->kbuf[rl->klen + len] = '\n';
    rl->klen += len + 1;
    rl->n.lines_sent++;
    return answer(rl, cl, "ok");
}

/* The client is done reading: its answers go out, then it is closed. */
static void client_done(struct client *cl, int64_t now)
{
    cl->done = 1;
    cl->in_len = 0;
    cl->last_ms = now;
}

/* Reads what the client sent and takes its whole lines. */
static void client_read(struct relay *rl, struct client *cl, int64_t now)
{
    while (!cl->done && cl->fd >= 0) {
        size_t room = sizeof cl->in - 1 - cl->taken;
        if (room == 0) {
            /* One byte more says whether it ended at the limit or went past. */
            char extra;
            ssize_t k = read(cl->fd, &extra, 1);
            if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                return;
            if (k > 0 && answer(rl, cl, "error: more than %d bytes on one connection: the rest is not read",
                                TRACE_CTL_CONN_MAX - 1) != 0)
                return;
            if (k == 0 && cl->in_len && answer(rl, cl, "error: no newline at the end: not sent") != 0)
                return;
            client_done(cl, now);
            return;
        }
        BUG_ON(cl->in_len > cl->taken || cl->taken > sizeof cl->in - 1); /* what is held was read, within in */
        ssize_t n = read(cl->fd, cl->in + cl->in_len, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0) {
            client_close(cl); /* gone */
            return;
        }
        if (n == 0) {
            /* trace/control.h: what is left after the last newline is dropped */
            if (cl->in_len && answer(rl, cl, "error: no newline at the end: not sent") != 0)
                return;
            client_done(cl, now);
            return;
        }
        cl->taken += (size_t)n;
        cl->last_ms = now;
        size_t start = 0, end = cl->in_len + (size_t)n;
        for (size_t i = cl->in_len; i < end; i++) {
            if (cl->in[i] != '\n')
                continue;
            if (relay_line(rl, cl, cl->in + start, i - start) != 0)
                return;
            start = i + 1;
        }
        memmove(cl->in, cl->in + start, end - start);
        cl->in_len = end - start;
    }
}

/* Takes the connections waiting, a bounded number a round: one who
 * connects in a loop gets a slot, or a refusal, never the recorder's
 * whole round. */
static void accept_clients(struct relay *rl, int64_t now)
{
    for (int k = 0; k <= RELAY_CLIENTS; k++) {
        int fd = accept4(rl->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* none waiting (EAGAIN), or it left already */
        int sndbuf = RELAY_CLIENT_SNDBUF;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
        struct client *cl = NULL;
        for (int i = 0; i < RELAY_CLIENTS && !cl; i++)
            if (rl->c[i].fd < 0)
                cl = &rl->c[i];
        if (!cl) {
            static const char busy[] = "error: busy: the recorder serves " STR(RELAY_CLIENTS) " clients at once\n";
            (void)!send(fd, busy, sizeof busy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
            struct client gone = { .fd = fd };
            drop(rl, &gone, DROP_BUSY);
            continue;
        }
        *cl = (struct client){ .fd = fd, .start_ms = now, .last_ms = now };
    }
}

/* The first deadline of a client: to send something, to be done, or to
 * take its answers. */
static int64_t client_deadline(const struct client *cl)
{
    int64_t idle = cl->last_ms + TRACE_CTL_IDLE_MS, life = cl->start_ms + TRACE_CTL_LIFE_MS;
    return cl->done || idle < life ? idle : life;
}

int relay_poll(struct relay *rl, struct pollfd *p, int *timeout_ms, int64_t now)
{
    int n = 0;
    rl->map[n] = MAP_LISTEN;
    p[n++] = (struct pollfd){ .fd = rl->listen_fd, .events = POLLIN };
    if (rl->klen) {
        rl->map[n] = MAP_KERNEL;
        p[n++] = (struct pollfd){ .fd = rl->kernel_fd, .events = POLLOUT };
    }
    for (int i = 0; i < RELAY_CLIENTS; i++) {
        struct client *cl = &rl->c[i];
        if (cl->fd < 0)
            continue;
        rl->map[n] = i;
        short events = (short)((cl->done ? 0 : POLLIN) | (cl->out_len ? POLLOUT : 0));
        p[n++] = (struct pollfd){ .fd = cl->fd, .events = events };
        int64_t left = client_deadline(cl) - now;
        if (left < *timeout_ms)
            *timeout_ms = left < 0 ? 0 : (int)left;
    }
    BUG_ON(n > RELAY_MAX_POLLFDS); /* the caller's array (relay.h) */
    return n;
}

void relay_run(struct relay *rl, const struct pollfd *p, int n, int64_t now)
{
    for (int k = 0; k < n; k++) {
        if (!p[k].revents)
            continue;
        if (rl->map[k] == MAP_LISTEN) {
            accept_clients(rl, now);
        } else if (rl->map[k] == MAP_KERNEL) {
            kernel_flush(rl);
        } else {
            BUG_ON(k >= RELAY_MAX_POLLFDS || rl->map[k] < 0 || rl->map[k] >= RELAY_CLIENTS); /* relay_poll's map */
            struct client *cl = &rl->c[rl->map[k]];
            if (cl->fd >= 0 && (p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                client_read(rl, cl, now);
            if (cl->fd >= 0 && cl->out_len)
                client_flush(cl);
        }
    }
    kernel_flush(rl);
    for (int i = 0; i < RELAY_CLIENTS; i++) {
        struct client *cl = &rl->c[i];
        if (cl->fd < 0)
            continue;
        if (cl->done && !cl->out_len)
            client_close(cl);
        else if (now >= cl->last_ms + TRACE_CTL_IDLE_MS)
            drop(rl, cl, cl->done ? DROP_UNREAD : DROP_SILENT);
        else if (!cl->done && now >= cl->start_ms + TRACE_CTL_LIFE_MS)
            drop(rl, cl, DROP_LONG);
    }
}

void relay_counts(const struct relay *rl, struct relay_counts *c)
{
    *c = rl->n;
}

void relay_close(struct relay *rl)
{
    if (!rl)
        return;
    kernel_flush(rl);
    for (int i = 0; i < RELAY_CLIENTS; i++)
        if (rl->c[i].fd >= 0)
            client_close(&rl->c[i]);
    close(rl->listen_fd);
    unlink(rl->path);
    free(rl);
}
