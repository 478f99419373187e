/*
 * The trace database read back as typed events: the one place on the host
 * where a stored event is interpreted. `runq top`'s model (tui/model.c),
 * `runq step`'s replay (db/replay.c) and the labs (labs/engine/lab.c) read events
 * through it; the writer (db/writer.c) shares its LEAVE table.
 *
 * What it holds:
 *   - the reasons as enums: the database stores a reason as its name
 *     (trace/decode.c's trace_*_name(), generated from trace/format.h's
 *     tables); event_*_parse() maps a name back, and nothing else does;
 *   - leave_meaning: what each LEAVE reason says of its task (its thread
 *     state, whether it stays on the CPU's queue, whether it switched
 *     out). A new LEAVE reason is a line in trace/format.h and a row in
 *     that table, nowhere else (events.c checks at compile time that
 *     every reason has its row);
 *   - struct event: one record as stored, a tagged union by kind;
 *   - the columns of each kind's table and one decoder of a row, for
 *     readers that fetch rows themselves (the model reads only new rows);
 *   - events_load(): a whole trace in the kernel's order, with its threads;
 *   - a typed query on those events (the labs' moments).
 *
 * The kernel's order: by time; at one time, by CPU, then by kind in the
 * order the kernel applies records at one instant (enum event_kind), then
 * in the order they were stored.
 */
#ifndef RUNQ_DB_EVENTS_H
#define RUNQ_DB_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "trace/decode.h" /* the names of the reasons: trace_leave_reason_name() ... */
#include "trace/format.h"

/* ---- reasons ---- */

/* The enum value of a stored name; the kind's _NR when the name is NULL or
 * not one of trace/format.h's. */
enum trace_leave_reason event_leave_parse(const char *name);
enum trace_join_reason event_join_parse(const char *name);
enum trace_join_check event_join_check_parse(const char *name);
enum trace_pick_why event_why_parse(const char *name);
enum trace_set_what event_set_parse(const char *name);
enum trace_migrate_reason event_migrate_parse(const char *name);

/* A task's state, as a reader tracks it from events. */
enum thread_state {
    THREAD_UNKNOWN,   /* not seen yet, or lost in a gap */
    THREAD_RUNNING,   /* on a CPU */
    THREAD_RUNNABLE,  /* queued */
    THREAD_PREEMPTED, /* queued after a preemption */
    THREAD_SLEEPING,  /* blocked or asleep */
    THREAD_DELAYED,   /* blocked but kept queued until its lag is paid (DELAY_DEQUEUE) */
    THREAD_DEAD,
    THREAD_NSTATES
};

/* The state as table thread_state stores it (docs/sql.md): "?", "Running",
 * "R", "R+", "S", "X"; a delayed task is "S" there. */
const char *thread_state_sql_name(enum thread_state s);

/* Where a LEAVE puts its task on the queue of the CPU it left. */
enum leave_queue {
    LEAVE_OFF_QUEUE,  /* off it (blocked, asleep, exited, gone to another CPU) */
    LEAVE_TO_TAIL,    /* back on it, at the tail of the round robin's list */
    LEAVE_STAYS_DELAYED, /* still on it, not runnable (DELAY_DEQUEUE) */
};

struct leave_meaning {
    enum thread_state state;
    enum leave_queue queue;
    bool switched_out;  /* the task was on the CPU (every reason but dequeued) */
    /* A switch away from a task still runnable that did not ask to go
     * (preempted, or released to a higher class): Linux's nivcsw. The
     * other switches out (blocked, slept, exited, yielded) are voluntary,
     * nvcsw. db/schema.sql's view thread_switches classes the reasons the
     * same way. */
    bool involuntary;
    /* A queued task only changed queues (migrate): a runnable task stays
     * in the state it had (R, or R+ after a preemption), which goes on
     * where the JOIN that follows puts it. */
    bool keeps_runnable;
};

/* The meaning of reason r; a reason out of range (a name this build does
 * not know) means what block does. */
const struct leave_meaning *leave_meaning_of(unsigned r);

/* ---- events ---- */

/* Kinds in the kernel's order at one instant. */
enum event_kind { EVENT_KEYFRAME, EVENT_WAKE, EVENT_JOIN, EVENT_TICK, EVENT_LEAVE, EVENT_PICK, EVENT_SET,
                  EVENT_MARK, EVENT_NKINDS };
/* "KEYFRAME", "WAKE", ... ("?" out of range). */
const char *event_kind_name(enum event_kind k);
/* EVENT_NKINDS when name is none of them (case ignored). */
enum event_kind event_kind_parse(const char *name);

/* One task of a keyframe (a row of queue_snapshot). has_eevdf: eligible,
 * vruntime, deadline, lag and slice_ns are known (not under rr, not for
 * an idle CPU's idle task); has_weight: nice and weight are. */
struct event_kf_entry {
    int utid;
    bool current, delayed, eligible;
    bool has_eevdf, has_weight;
    int nice;
    int64_t weight, vruntime, deadline, lag, slice_ns;
};

/*
 * One event. has_v: v (the CPU's V) is known; has_eevdf: the task's
 * EEVDF numbers of the kind's struct are (a PICK's or JOIN's vruntime and
 * deadline, a LEAVE's vruntime and lag, each one not NULL). Both are false
 * under rr, and on a Linux trace recorded from tracefs, whose tracepoints
 * carry none of them: a number read as 0 where has_* is false is no
 * number. Task ids are utids; 0: none. A name (SET, MARK) read by
 * event_decode() lives until the row's statement steps; events_load()
 * keeps its own copy.
 */
struct event {
    int64_t ts, rowid;  /* rowid: its row in its table (the keyframe's first) */
    enum event_kind kind;
    int cpu;            /* -1: not tied to a CPU */
    bool has_v, has_eevdf;
    int64_t v;
    union {
        struct {
            int utid;
            int nr_runnable;
        } tick;
        struct {
            int next, prev;
            enum trace_pick_why why;
            int nr_runnable, nr_eligible;
            int64_t vruntime, deadline, lag; /* next's, at the pick */
            int64_t slice_ns;   /* next's requested slice then (events_load; 0: default) */
        } pick;
        struct {
            int utid;
            enum trace_join_reason reason;
            int nr_runnable;
            int64_t weight, vruntime, deadline, lag_before, lag_after;
            int64_t slice_ns;   /* as pick's */
            /* The wakeup check (trace format 3): has_check false before
             * it, and in a database older than schema version 6. */
            bool has_check, has_curr_eevdf; /* has_curr_eevdf: current's numbers are known */
            enum trace_join_check check;
            int curr;           /* current's utid at the check; 0: none */
            int64_t curr_vruntime, curr_deadline, curr_vprot;
            unsigned jflags;    /* TRACE_JF_*; a flag the database holds as NULL is clear */
        } join;
        struct {
            int utid;
            enum trace_leave_reason reason;
            bool has_deadline;  /* false before trace format 2, or under rr */
            int64_t vruntime, lag, deadline, run_ns;
        } leave;
        struct {
            int utid, waker;    /* waker 0: a timer or an interrupt */
            int64_t latency;    /* until it ran; -1: it never did */
        } wake;
        struct {
            int utid;           /* 0: a global setting */
            enum trace_set_what what;
            const char *name;   /* feature or policy name, or NULL */
            int64_t old_value, new_value;
        } set;
        struct {
            const char *name;
        } mark;
        struct {
            int first, n;       /* its entries: events.kf[first .. first + n) */
        } keyframe;
    };
};

/* The task an event is about: pick's next, wake's wakee, the task of the
 * others; 0 for a global SET, a MARK or a KEYFRAME. */
int event_task(const struct event *e);

/*
 * Reading rows. Kind k lives in table event_table(k); a reader selects
 * event_columns(k, ...) and hands the values to event_decode(). The columns
 * come in two parts, the ones `runq top` reads and the rest (full): a
 * reader that does not ask for the rest gets those fields zero. Every read
 * of a column costs (make bench), so the model reads only the first part.
 *
 *   KEYFRAME cpu, v, utid, is_current, eligible, delayed, nice, weight,
 *            vruntime, deadline, lag, slice_ns         (one row per entry)
 *   WAKE     utid, latency               | cpu, waker
 *   JOIN     cpu, utid, vruntime, deadline, v, weight, nr_runnable
 *                                        | reason, lag_before, lag_after,
 *                                          EVENT_JOIN_CHECK_COLUMNS
 *   TICK     cpu, v, nr_runnable         | utid
 *   LEAVE    cpu, utid, reason, vruntime, lag, deadline | v, run_ns
 *   PICK     cpu, next_utid, v, vruntime, deadline, nr_runnable
 *                                        | prev_utid, why, lag, nr_eligible
 *   SET      utid, what, name, new_value | old_value
 *   MARK     name                        | cpu
 */
const char *event_table(enum event_kind k);

/* A JOIN's wakeup check as eevdf_place stores it (schema version 6):
 * current, the answer, current's numbers, then the jflags, one 0/1 column
 * a flag in bit order (TRACE_JF_REQUEUE first; events.c checks the bits).
 * The writer inserts and the readers select them in this order. */
#define EVENT_JOIN_CHECK_COLUMNS                                                \
    "curr_utid, wake_check, curr_vruntime, curr_deadline, curr_vprot, requeue, " \
    "charged_first, clipped, wakee_eligible, curr_eligible, curr_protected, cut_short, pending"
#define EVENT_JOIN_NFLAGS 8

/* The columns a database has that not every runq's had: a reader selects
 * NULL in their place. */
struct event_schema {
    bool leave_deadline; /* eevdf_leave.deadline (schema version 3, trace format 2) */
    bool join_check;     /* EVENT_JOIN_CHECK_COLUMNS (schema version 6, trace format 3) */
    bool trace_engine;   /* trace.engine (schema version 9) */
    bool snapshot_protected; /* queue_snapshot.protected (schema version 10) */
};
void event_schema_read(sqlite3 *db, struct event_schema *out);

/* The select list for a database of schema sch. Into buf; returns buf. */
const char *event_columns(enum event_kind k, bool full, const struct event_schema *sch, char *buf, size_t len);

/* Fills e (and, for a KEYFRAME row, *kf; e->keyframe is zero) from
 * the n values of a row selected by event_columns(); ts and rowid are the
 * caller's. */
void event_decode(enum event_kind k, int64_t ts, int64_t rowid, sqlite3_value **v, int n, struct event *e,
                  struct event_kf_entry *kf);

/* ---- the engine that made a trace ---- */

/*
 * trace.engine (schema 9): "runq-kernel", or "linux" for a run on the
 * host's own Linux (a database older than the column: runq's kernel).
 * Linux's tracepoints count nothing of a decision, and the Linux engine
 * stores 0 for what they lack: eevdf_pick's nr_runnable, nr_eligible,
 * touched and cost_ns, eevdf_place's nr_runnable. On a trace of that
 * engine those zeros are not counts but unknown, and every reader takes
 * them so: event_engine_counts() in C, EVENT_COUNTS_KNOWN_SQL in a query
 * scoped to one trace (docs/sql.md, "A Linux trace"). Where the BPF
 * recorder gave a pick or a join its EEVDF state (its V is not NULL),
 * nr_runnable and nr_eligible are Linux's own counts and readers take
 * them (tui/model.c: counts || has_v); touched and cost_ns never are.
 */
#define EVENT_ENGINE_UNCOUNTED "linux"
#define EVENT_COUNTS_KNOWN_SQL "((SELECT engine FROM trace) IS NOT '" EVENT_ENGINE_UNCOUNTED "')"
/* Whether a trace of engine (NULL: not stated) counted its decisions. */
bool event_engine_counts(const char *engine);

/* ---- a whole trace ---- */

struct event_thread {
    int utid, tid, cpu, nice;
    bool is_idle;
    int64_t slice_ns;
    char name[24];
};

/* A move between CPUs (table migration, schema 12, trace format 5): the
 * rule that made it, and each CPU's load as that rule saw it, just before
 * the move (migration_load). Not an event of its own: its LEAVE and JOIN
 * `migrate` are the events, and this says why they happened. */
struct event_move_cpu {
    int nr;      /* runnable, the running one included */
    bool running; /* a task was on the CPU */
    int64_t load; /* fair weights summed */
};
struct event_move {
    int64_t ts;
    int utid, src, dst;
    enum trace_migrate_reason reason; /* TRACE_MIGRATE_NR: a name this build does not know */
    bool queued;        /* it left a queue (LEAVE migrate); else it was waking */
    int first, n;       /* its CPUs: events.mvcpu[first .. first + n), by CPU */
};

struct events {
    int64_t trace_id;
    char policy[16];
    bool eevdf;
    char engine[16];          /* trace.engine; "runq-kernel" before the column */
    char engine_version[64];  /* trace.engine_version: Linux's release; "" none */
    int ncpus, tick_hz;
    int64_t start_ts, end_ts;
    struct event_thread *th; /* by utid */
    int nth;
    struct event *ev;        /* in the kernel's order */
    int nev;
    struct event_kf_entry *kf;
    int nkf;
    struct event_move *mv;   /* by time (none before schema 12) */
    int nmv;
    struct event_move_cpu *mvcpu;
    int nmvcpu;
    int bad_cpu; /* events left out: they named a CPU beyond TRACE_MAX_CPUS */
};

/*
 * Loads trace trace_id (0: the newest) of an open database: its threads
 * and every event in the kernel's order, each JOIN and PICK stamped with
 * its task's requested slice at that moment. A keyframe holds the tasks
 * the policy queues: an idle CPU's idle task row is left out. Returns 0,
 * or -1 with a message in err ("out of memory" among them); either way
 * events_free() frees what t holds.
 */
int events_load(struct events *t, sqlite3 *db, int64_t trace_id, char *err, size_t errlen);
void events_free(struct events *t);

const struct event_thread *events_thread(const struct events *t, int utid);

/* The move of task utid that its LEAVE or JOIN `migrate` at ts belongs
 * to: its last move at or before ts; NULL when it has none (a trace
 * before format 5, or a move whose record was lost). */
const struct event_move *events_move_of(const struct events *t, int utid, int64_t ts);

/* First event index with ts >= ts (nev when none). */
int events_find_ts(const struct events *t, int64_t ts);

/*
 * A typed query: "KIND [reason=NAME] [task=NAME] [cpu=N]", e.g.
 * "LEAVE reason=block", "WAKE task=waiter", "PICK cpu=1". task: the
 * event_task()'s thread name, exactly.
 */
struct event_query {
    enum event_kind kind;
    int reason;         /* the kind's reason (LEAVE, JOIN, PICK's why, SET's what); -1 any */
    char task[24];      /* "" any */
    int cpu;            /* -1 any */
};
/* Returns 0, or -1 with the reason in err. */
int event_query_parse(const char *text, struct event_query *q, char *err, size_t errlen);
/* The first event at index >= from that matches q; -1 when none. */
int events_find(const struct events *t, int from, const struct event_query *q);
/* The first MARK named name at index >= from; -1 when none. */
int events_find_mark(const struct events *t, int from, const char *name);

#endif
