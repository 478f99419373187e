/*
 * The derived tables: thread, sched_slice, thread_state and wakeup, which no
 * record holds but the stream implies (db/ only; docs/sql.md says what each
 * state means). They come from two small state machines, fed by the
 * writer's record loop (db/ingest.c) in time order:
 *
 *   per CPU   the task on it and since when. A PICK whose next differs
 *             from the task on the CPU closes that task's sched_slice and
 *             opens one for next; one that keeps it, after its own LEAVE
 *             (it blocked and was picked again at once), goes on with the
 *             slice and makes it Running again. The slice's end_reason is
 *             its last LEAVE that took it off the CPU (not 'dequeued'). A gap closes the open slice at the CPU's
 *             last record (end_state NULL, end_reason 'gap') and forgets
 *             who runs; the next PICK or KEYFRAME says again.
 *
 *   per task  its thread_state and since when: Running (PICK as next),
 *             at a LEAVE what its reason means (db/events.c's
 *             leave_meaning: R+ preempt, R yield and migrate, X exit, S
 *             the others), R again at a WAKE (or a JOIN when the WAKE
 *             was lost). A row is written when a state ends. A gap on the
 *             task's CPU ends its state at the CPU's last record and starts
 *             '?', which lasts until a record says what the task does.
 *             A WAKE opens a pending wakeup, written when the task next
 *             runs (ts_run) or, with ts_run NULL, at a gap or the end.
 *             A LEAVE `release` (a higher class took its CPU) opens a
 *             pending bounce the same way, written at its next PICK on
 *             any CPU (table bounce). A LEAVE `migrate` and the JOIN
 *             `migrate` after it keep a runnable task's state (R or R+)
 *             going, its CPU now the new queue's: the interval is one
 *             row, not cut where the task moved.
 *
 * Not db/tstate.h's model, which `runq step`, `runq top` and the Linux
 * recorder share: the table's states are intervals with rules of their
 * own (a WAKE makes a sleeper R, as the wait a wakeup's latency measures
 * begins there; a gap makes every task tied to its CPU '?', not only the
 * one it ran; a keyframe fills in only what was unknown; a migrating
 * task's R goes on, one row), and the writer's task table is bounded
 * (below), where a trace state keeps every task it was given. What both
 * ask of a state is one definition: tstate_queued, leave_meaning_of.
 *
 * The task table also gives every task its utid (unique in the database)
 * and keeps what thread says of it; a task whose row changed is dirty until
 * derive_write_threads() writes it.
 *
 * Bounds (docs/trace-format.md, "Bounds"): the table is a hash of the tasks
 * held, so its size follows the tasks a trace has, never the largest id;
 * it holds at most DERIVE_MAX_TASKS, and at that limit it lets go of the
 * tasks that exited and whose rows are written. A gap looks only at the
 * tasks on its CPU's gap list (those whose state or home CPU named that
 * CPU since its last gap), so its work is paid for by the records that put
 * them there, not by every task of the trace.
 *
 * Contract: rows go to d->b as batch.h says; a record that names an
 * impossible task id gets no task (NULL) and is counted in bad_tid, one
 * that names a new task beyond DERIVE_MAX_TASKS in tasks_over_limit.
 * Out of memory fails d->b (batch_out_of_memory: "out of memory", fail
 * code SQLITE_NOMEM), so the writer stores nothing more; nothing here
 * exits or prints.
 */
#ifndef RUNQ_DB_DERIVE_H
#define RUNQ_DB_DERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "db/batch.h"
#include "db/events.h"
#include "trace/decode.h"
#include "trace/format.h"

/* A task's thread_state (db/events.h); before its first record it has
 * none, and no row to write. */
#define TS_NONE THREAD_NSTATES

/* Task ids a trace may use: 0 .. DERIVE_MAX_TID - 1. */
#define DERIVE_MAX_TID (1 << 22)

/* A Linux trace's pseudo tasks (host/engine/linux/lxrec.h, docs/sql.md): at the top
 * of those ids, each CPU's idle task and its "other" (every thread outside
 * the scenario while it runs there). Here so that readers above the
 * Linux engine (tui/) can tell them without including it. */
#define DERIVE_LINUX_PSEUDO_BASE (DERIVE_MAX_TID - 2 * 256)
#define DERIVE_LINUX_IDLE_TID(cpu) (DERIVE_LINUX_PSEUDO_BASE + (int)(cpu))
#define DERIVE_LINUX_OTHER_TID(cpu) (DERIVE_LINUX_PSEUDO_BASE + 256 + (int)(cpu))
/* Tasks held at once (exited ones let go first). */
#define DERIVE_MAX_TASKS (1 << 16)

struct wtask {
    int64_t utid; /* 0: not seen yet */
    int32_t tid;
    char name[TRACE_NAME_LEN + 1];
    int nice, cpu, idle, pinned, has_info, dirty;
    uint64_t slice_ns, start_ts, end_ts;
    int64_t parent_utid;
    /* thread_state */
    enum thread_state st;
    uint64_t st_ts;
    int st_cpu;
    int64_t st_waker;
    /* wakeup */
    int wake_pending;
    uint64_t wake_ts;
    int64_t waker;
    int waker_cpu, wake_cpu;
    /* class (trace format 4): enum trace_class, RT priority, policy name */
    unsigned sclass, rt_prio;
    const char *rt_policy;
    int class_known;
    /* bounce: a LEAVE release not yet followed by a PICK */
    int bounce_pending;
    uint64_t bounce_ts;
    int bounce_cpu;
    unsigned bounce_by;
    /* how its running slice ends (from LEAVE) */
    const char *end_state, *end_reason;
    uint64_t on_gap_list[TRACE_MAX_CPUS / 64]; /* bit k: on CPU k's gap list */
};

struct tid_list {
    int32_t *tid;
    size_t n, cap;
};

struct wcpu {
    int seen, known;
    int32_t curr;
    uint64_t slice_start, first_ts, last_ts, records;
    uint64_t slice_end; /* where its last slice ended: the next starts no earlier */
    struct tid_list gap_list; /* the tasks a gap here must look at */
};

/* One slot of the task hash: t NULL when free. */
struct wslot {
    int32_t tid;
    struct wtask *t;
};

struct derive {
    struct db_batch *b;   /* where the rows go */
    int64_t next_utid;    /* utids are unique across the database */
    struct wslot *slots;  /* tid -> task, open addressing, a power of two */
    size_t nslots, nheld;
    struct tid_list dead; /* exited tasks, oldest first from dead_head */
    size_t dead_head;
    struct tid_list dead_owing; /* exited, a row still to write: back to dead at the next write */
    int32_t *dirty;       /* tids whose thread row is to be written */
    size_t ndirty, dirty_cap;
    struct wcpu cpu[TRACE_DEC_NCPU]; /* seen, first_ts, last_ts, records: kept by the writer */
    unsigned ncpus;       /* the stream header's CPU count; 0: none seen yet */
    uint64_t bad_tid, wakeups_unmatched, bounces_unmatched, tasks_over_limit, bad_cpu;
    int gap_cpu;          /* the CPU whose gap is being made: note() leaves it be */
};

/* An empty derive writing through b. */
void derive_init(struct derive *d, struct db_batch *b);

/* Task tid as of ts, created (utid, start_ts) at its first mention and
 * marked dirty; NULL for TRACE_TASK_NONE, an impossible id, a new task
 * beyond DERIVE_MAX_TASKS, or out of memory. */
struct wtask *derive_task(struct derive *d, int32_t tid, uint64_t ts);
/* Its utid, or 0 where derive_task gives NULL. */
int64_t derive_utid(struct derive *d, int32_t tid, uint64_t ts);

/* A PICK on CPU cpu choosing next_tid (next: its task, or NULL). */
void derive_pick(struct derive *d, unsigned cpu, int32_t next_tid, struct wtask *next, uint64_t ts);
/* A LEAVE of t. */
void derive_leave(struct derive *d, struct wtask *t, const struct trace_rec_leave *r);
/* A JOIN of t. */
void derive_join(struct derive *d, struct wtask *t, const struct trace_rec_join *r);
/* A WAKE. */
void derive_wake(struct derive *d, const struct trace_rec_wake *r);
/* A TASK_NEW, TASK_EXIT or TASK_RENAME. */
void derive_task_info(struct derive *d, const struct trace_rec_task *r);
/* A SET's new nice, slice or class for t (NULL: a global setting). */
void derive_set(struct wtask *t, const struct trace_rec_set *r);
/* Keyframe entry e of t, queued on cpu at ts: rebuilds what a gap or a
 * late start left unknown. */
void derive_queued(struct derive *d, struct wtask *t, const struct trace_kf_entry *e, unsigned cpu,
                   uint64_t ts);
/* A keyframe of CPU ci saying that curr runs there. */
void derive_keyframe_curr(struct derive *d, unsigned ci, int32_t curr, uint64_t ts);
/* CPU ci lost records after from, its last record: closes its slice, and
 * what each of its tasks did since is unknown. */
void derive_gap(struct derive *d, unsigned ci, uint64_t from);
/* The trace ends at end: closes every open slice, wakeup and state. */
void derive_finish(struct derive *d, uint64_t end);
/* Writes the dirty tasks' thread rows. */
void derive_write_threads(struct derive *d);
/* Frees the tasks. */
void derive_free(struct derive *d);

#endif
