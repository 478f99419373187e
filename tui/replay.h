/*
 * Replay: a recorded trace read back out of the database as one time-ordered
 * list of events, and each CPU's run queue rebuilt at any point of it, as the
 * scheduler saw it. No ncurses here: `runq step` (tui/step*.c) and the labs
 * use it, and so can tests.
 *
 * How the queue is rebuilt. A keyframe (table queue_snapshot) gives a CPU's
 * whole queue. Between keyframes the events move it:
 *
 *   JOIN   the task is placed on the queue (vruntime, deadline, weight)
 *   LEAVE  preempt/yield: back on the queue, at the tail of rr's list;
 *          delayed: still queued, not runnable (DELAY_DEQUEUE);
 *          block/sleep/exit/migrate: off the queue
 *   PICK   next becomes current with the vruntime and deadline it had at
 *          the pick; V is the pick's
 *   TICK   V
 *
 * A queued task's vruntime does not move until it runs again, so between
 * events the rebuilt queue is exact for every queued task. Current's
 * vruntime is solved from V (V = sum(w*v)/sum(w), everything else known),
 * and a deadline renewed while the task ran is estimated a slice at a time
 * (dl_estimated). Records
 * that share a timestamp are applied in the kernel's order: keyframe, wake,
 * join, tick, leave, pick, set, mark.
 *
 * Times are ns; virtual times are EEVDF's virtual ns. Round-robin traces
 * have no V: has_v is false and the list order is what matters.
 */
#ifndef RUNQ_TUI_REPLAY_H
#define RUNQ_TUI_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

enum rp_kind { RP_KEYFRAME, RP_WAKE, RP_JOIN, RP_TICK, RP_LEAVE, RP_PICK, RP_SET, RP_MARK, RP_NKINDS };

struct rp_kf_ent {
    int utid;
    bool current, delayed;
    int nice;
    int64_t weight, vruntime, deadline, slice_ns;
};

struct rp_event {
    int64_t ts;
    enum rp_kind kind;
    int cpu;            /* -1: not tied to a CPU */
    int64_t rowid;      /* its row in its table, for ordering ties */
    int utid;           /* JOIN/LEAVE/WAKE/TICK: the task; PICK: next; SET: the task or 0 */
    int utid2;          /* PICK: prev; WAKE: waker (0 none) */
    char what[16];      /* PICK why, LEAVE/JOIN reason, SET what */
    bool has_v;         /* EEVDF fields present */
    int64_t v, vruntime, deadline, lag, lag2, weight;
    int64_t n1, n2;     /* PICK: nr_eligible, nr_runnable; JOIN: nr_runnable; WAKE: latency (-1 unknown);
                           LEAVE: run_ns, deadline known (0: a version-1 trace) */
    char *text;         /* MARK name, SET name (heap, may be NULL) */
    int64_t slice_ns;   /* JOIN, PICK: the task's requested slice then (0: the policy's default) */
    int kf_first, kf_n; /* KEYFRAME: entries in replay.kf */
};

struct rp_thread {
    int utid, tid, cpu, nice;
    bool is_idle;
    int64_t slice_ns;
    char name[24];
};

/* One task on a rebuilt queue. */
struct rp_ent {
    int utid;
    bool current, delayed;
    bool dl_estimated;  /* deadline renewed since the last record that had it */
    int64_t vruntime, deadline, weight, slice_ns;
    uint64_t seq;       /* list order: smaller is nearer the head */
};

#define RP_MAX_ENT 64

struct rp_cpu {
    bool has_v, known;  /* known: a keyframe or a pick has been seen */
    int64_t v;
    int curr;           /* utid on the CPU; 0 unknown */
    int n;
    struct rp_ent e[RP_MAX_ENT];
};

struct rp_state {
    int pos;            /* events [0, pos) are applied */
    uint64_t seq;
    struct rp_cpu *cpu; /* ncpus */
};

struct replay {
    int64_t trace_id;
    char policy[16];
    int ncpus, tick_hz;
    int64_t start_ts, end_ts;
    bool eevdf;
    struct rp_thread *th;
    int nth;
    struct rp_event *ev;
    int nev;
    struct rp_kf_ent *kf;
    int nkf;
    /* checkpoints every RP_CKPT events, so seeking back is cheap */
    struct rp_state *ckpt;
    int nckpt;
};

/* Loads trace trace_id (0: the newest) from an open database. Returns 0, or
 * -1 with a message in err. */
int replay_load(struct replay *rp, sqlite3 *db, int64_t trace_id, char *err, size_t errlen);
void replay_free(struct replay *rp);

/* A state for rp (zeroed, pos 0); free with replay_state_free. */
void replay_state_init(const struct replay *rp, struct rp_state *s);
void replay_state_free(struct rp_state *s);

/* Moves s so that events [0, pos) are applied (0 <= pos <= nev). */
void replay_seek(const struct replay *rp, struct rp_state *s, int pos);

/* Applies one event to s (s->pos must be its index). */
void replay_apply(const struct replay *rp, struct rp_state *s, const struct rp_event *e);

const struct rp_thread *replay_thread(const struct replay *rp, int utid);
/* "name/tid", or "-" for 0; in a static rotating buffer. */
const char *replay_name(const struct replay *rp, int utid);
const char *replay_kind_name(enum rp_kind k);

/* First event index with ts >= ts (nev when none). */
int replay_find_ts(const struct replay *rp, int64_t ts);

/* One line describing event i (no newline) into buf. */
void replay_describe(const struct replay *rp, int i, char *buf, size_t len);

/* The entries of a CPU's rebuilt queue in display order: EEVDF by deadline,
 * rr current first then list order. Returns the count written to out. */
int replay_queue_sorted(const struct replay *rp, const struct rp_cpu *c, struct rp_ent *out);

#endif
