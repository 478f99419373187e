/*
 * The control relay of a live recording (trace/control.h, "Framing"): the
 * socket `runq top` and other clients send command lines to, and the
 * lines' way on to the kernel over the trace socket.
 *
 * It lives inside the recorder's one loop, so nothing a client does may
 * make that loop wait: every socket is non-blocking, each client's input
 * and answers sit in buffers of fixed size, the lines for the kernel in
 * one more, and a client that is too slow (sends nothing, reads none of
 * its answers, keeps its connection too long) is dropped, counted and said
 * on stderr. The recorder stops reading the trace for nothing here.
 *
 * Use: relay_open once; each round, relay_poll to add the relay's file
 * descriptors to the recorder's poll set (and learn how long it may
 * sleep), poll, then relay_run with the same set; relay_close at the end.
 */
#ifndef RUNQ_CLI_RELAY_H
#define RUNQ_CLI_RELAY_H

#include <poll.h>
#include <stdint.h>

struct relay;

/* What a relay did, for the trace's stats. */
struct relay_counts {
    uint64_t lines_sent;      /* went to the kernel */
    uint64_t lines_refused;   /* answered with an error, not sent */
    uint64_t clients_dropped; /* closed by the relay before they were done */
};

/* The most pollfds relay_poll adds. */
#define RELAY_MAX_POLLFDS 10

/* Listens on path (made 0600; refused in a directory every user may write
 * unless it is sticky) and relays lines to kernel_fd, the trace socket,
 * which it makes non-blocking. NULL after saying why on stderr (live
 * actions are then off; the recording goes on). */
struct relay *relay_open(const char *path, int kernel_fd);

/* Adds the relay's pollfds at p (room for RELAY_MAX_POLLFDS); returns how
 * many. *timeout_ms is lowered to the relay's next deadline. now: the
 * time in ms on a monotonic clock, the same clock at every call. */
int relay_poll(struct relay *rl, struct pollfd *p, int *timeout_ms, int64_t now);

/* Serves what poll found in the n pollfds relay_poll added at p: accepts,
 * reads, answers, sends lines on, drops clients past their deadlines. */
void relay_run(struct relay *rl, const struct pollfd *p, int n, int64_t now);

void relay_counts(const struct relay *rl, struct relay_counts *c);

/* Closes every client and the socket, and removes its path. NULL is fine. */
void relay_close(struct relay *rl);

#endif
