/*
 * The stream recorder: a trace stream read from QEMU's socket or a file,
 * decoded, merged into one time order across CPUs and stored as a new
 * trace (record.c). Its callers: runq record's stream form
 * (host/cli/record.c) and runq boot, which records a deterministic run's
 * stream file in its own process (host/engine/kernel/boot.c).
 */
#ifndef RUNQ_RECORDER_RECORD_H
#define RUNQ_RECORDER_RECORD_H

#include <stdbool.h>

/* How long record_stream() waits for a socket nobody listens on yet
 * (QEMU still starting), in seconds; runq record's help says it. */
#define RECORD_CONNECT_WAIT_S 10

/* What to record, and where. */
struct record_opts {
    const char *db;           /* the database to add the trace to (not empty) */
    const char *sock, *file;  /* the stream: exactly one of them; file "-" is stdin */
    bool follow;              /* at the file's end wait for more, until END or a signal */
    bool require_end;         /* a stream without its END record is a failure */
};

/* Records the stream o names into o->db until the stream ends, SIGINT,
 * SIGTERM or SIGHUP (its handlers for those restored on return): prints
 * the new trace's id on stdout, each problem and a summary on stderr
 * ("runq record: ..."), and on a live socket relays the control lines of
 * trace/control.h (relay.h). Says in *stored whether the trace reached
 * the database, marked complete or incomplete: with require_end the exit
 * status is 1 for a stream without its END record too, and only a trace
 * that was not stored makes the stream file worth keeping. Returns the
 * exit status (0, 1, 128+signal). */
int record_stream(const struct record_opts *o, bool *stored);

#endif
