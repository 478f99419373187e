/*
 * Replay: a recorded trace's events (db/events.h reads them, in the
 * kernel's order) and the trace state (db/tstate.h: each CPU's queue, each
 * task's place and numbers) at any point of them, as the scheduler saw
 * it. A trace model, no ncurses here: `runq step` (tui/step*.c) shows it,
 * and so can tests.
 *
 * A replay is the events and checkpoints of the state: what each event
 * does to the queues is db/tstate.c's, applied in the kernel's order
 * (TSTATE_IN_ORDER), and after each event on a CPU what the records leave
 * out is settled (tstate_settle: current's vruntime solved from V, a
 * deadline renewed while the task ran estimated a slice at a time). A
 * queued task's vruntime does not move until it runs again, so between
 * events the rebuilt queue is exact for every queued task.
 *
 * Times are ns; virtual times are EEVDF's virtual ns. Round-robin traces
 * have no V: has_v is false and the list order is what matters.
 *
 * A number the trace does not have stays unknown: has_v, has_vruntime,
 * has_deadline false, never a 0 taken for one. A Linux trace recorded
 * from tracefs has no V, vruntime or deadline at all (its records carry
 * none); a task's numbers go unknown at an event about it that lacks
 * them, and current's vruntime is solved only when V and every other
 * vruntime on the queue are known.
 */
#ifndef RUNQ_DB_REPLAY_H
#define RUNQ_DB_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db/events.h"
#include "db/tstate.h"

struct rp_state {
    int pos;            /* events [0, pos) are applied */
    struct tstate ts;   /* the state they leave */
};

struct replay {
    struct events tr;   /* the trace, its threads and events */
    bool has_numbers;   /* some event carries V or EEVDF numbers (a Linux trace from tracefs: none) */
    struct tstate_ids ids; /* every task an event names, shared by the states */
    /* checkpoints every ckpt_every events, so seeking back is cheap */
    struct rp_state *ckpt;
    int nckpt, ckpt_every;
};

/* Loads trace trace_id (0: the newest) from an open database. Returns 0, or
 * -1 with a message in err ("out of memory" among them; rp then holds
 * nothing). */
int replay_load(struct replay *rp, sqlite3 *db, int64_t trace_id, char *err, size_t errlen);
void replay_free(struct replay *rp);

/* A state for rp (nothing applied, pos 0); free with replay_state_free.
 * 0, or -1 out of memory (replay_state_free is harmless then). */
int replay_state_init(const struct replay *rp, struct rp_state *s);
void replay_state_free(struct rp_state *s);

/* Moves s so that events [0, pos) are applied (0 <= pos <= nev). */
void replay_seek(const struct replay *rp, struct rp_state *s, int pos);

/* Applies one event to s (s->pos must be its index). */
void replay_apply(const struct replay *rp, struct rp_state *s, const struct event *e);

/* "name/tid", or "-" for 0; in a static rotating buffer. */
const char *replay_name(const struct replay *rp, int utid);

/* a - b of two times from the database (ns), or false when the difference
 * does not fit an int64. A time is the database's, so untrusted: a hostile
 * or damaged file puts one near INT64_MIN or INT64_MAX, where plain
 * subtraction is undefined. A caller shows "?" rather than a wrapped value
 * (a real trace never spans 2^63 ns). */
static inline bool rp_ts_sub(int64_t a, int64_t b, int64_t *d)
{
    return !__builtin_sub_overflow(a, b, d);
}
/* a + b clamped to the int64 range: a time searched for (events_find_ts)
 * past either limit finds what the limit finds. */
static inline int64_t rp_ts_add_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}
/* One line describing event i (no newline) into buf. */
void replay_describe(const struct replay *rp, int i, char *buf, size_t len);

#endif
