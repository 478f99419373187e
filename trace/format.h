/*
 * The runq trace wire format: the one source of truth, included by the
 * freestanding kernel (producer) and by the host decoder (consumer).
 * docs/trace-format.md describes it byte by byte; a change here changes
 * TRACE_FORMAT_VERSION and that document in the same commit.
 *
 * Everything is little-endian and packed: a struct below is exactly its
 * bytes on the wire. Only <stdint.h>, <stddef.h> and <stdbool.h>; no
 * floating point; every helper is integer-only and safe in the kernel.
 *
 * ---- The stream --------------------------------------------------------
 *
 * The stream is a sequence of packets. Nothing else: no bytes between them
 * (a reader that meets any skips them and counts them). A packet is
 *
 *     struct trace_pkt_hdr   24 bytes: sync magic, payload length, CPU,
 *                            per-CPU sequence number, dropped-records
 *                            counter, payload CRC, header CRC
 *     payload                len bytes: whole records, back to back
 *
 * and a record is a struct trace_rec_hdr {type, flags, size, ts_ns}
 * followed by its type's fields; `size` counts the whole record, header
 * included, so a reader skips types it does not know. A record never
 * straddles two packets.
 *
 * ---- How a producer frames a packet -------------------------------------
 *
 * Each CPU owns one ring and one packet sequence (cpu = its number). The
 * stream-wide packets (the STREAM header, END, host marks) use
 * cpu = TRACE_CPU_GLOBAL and a sequence of their own.
 *
 *   1. The very first packet on the wire is a TRACE_CPU_GLOBAL packet,
 *      seq 0, whose first record is TRACE_REC_STREAM (stream header).
 *      Emit it again from time to time (with the keyframes is fine) so a
 *      reader that joins late learns the CPU count, policy and rates.
 *   2. Fill the payload with whole records (trace_rec_init() fills the
 *      common header; one struct per type below), at most
 *      TRACE_PKT_MAX_PAYLOAD bytes.
 *   3. Fill the header:
 *          magic   = TRACE_PKT_MAGIC
 *          len     = payload bytes
 *          cpu     = the ring's CPU
 *          seq     = this CPU's packet count so far (0, 1, 2, ...; wraps)
 *          dropped = records this CPU could not put in its ring since boot
 *                    (free-running, wraps; never reset)
 *          crc     = trace_crc32c(payload, len)
 *          hcrc    = trace_pkt_hdr_crc(&hdr)   (covers the 20 bytes above)
 *      trace_pkt_seal() does steps 3's last four lines.
 *   4. Write header then payload, contiguous, to the port. Packets from
 *      different CPUs may interleave on the wire only as whole packets.
 *   5. Every TRACE_KEYFRAME_PERIOD_NS (or after the ring dropped records,
 *      or when tracing starts) each CPU emits a TRACE_REC_KEYFRAME: its
 *      current task and every queued task, so a reader can rebuild the
 *      queue after a gap.
 *   6. At a clean end (poweroff) emit TRACE_REC_END in a global packet;
 *      a reader that never sees it marks the trace incomplete.
 *
 * Timestamps are ns since the kernel's clock started, the same clock on
 * every CPU. Task ids are the kernel's task ids (int32); TRACE_TASK_NONE
 * (-1) means "no task" (an interrupt waking a task, no previous task).
 *
 * Round robin emits the same records as EEVDF; it sets TRACE_RF_NO_EEVDF in
 * the record flags and leaves the EEVDF fields (V, vruntime, deadline, lag,
 * eligible count) zero. The host stores them as NULL.
 */
#ifndef RUNQ_TRACE_FORMAT_H
#define RUNQ_TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "trace/format.h: the wire format is little-endian and so must the host be"
#endif

/* may_alias: a record is read straight out of a byte buffer. */
#define TRACE_PACKED __attribute__((packed, may_alias))

/* 2: LEAVE carries the task's deadline (a 52-byte version-1 LEAVE is
 * still read, with the deadline unknown).
 * 3: JOIN carries the wakeup check (current's numbers and the answer;
 * a 68-byte version-2 JOIN is still read, with the check unknown), and
 * its numbers are taken at the join, not after the decision.
 * 4: scheduling classes (issue 18). TASK records carry the task's class
 * and real-time priority (a 48-byte version-3 TASK is still read, as a
 * fair task); LEAVE has the reason `release` (a higher class took the
 * CPU) with the class that took it in `by`; SET has `class` and `knob`;
 * COUNTERS append releases_rt, rt_ns, rt_throttled and migrations
 * (and later, read by size as every counter is: trace_records,
 * trace_timed, trace_timed_ns, what writing the trace cost the CPU).
 * Records about an RT task set TRACE_RF_NO_EEVDF: it has no lag.
 * 5: MIGRATE (issue 35): every move of a task between CPUs, with the
 * rule that made it and each CPU's load at that moment. A version-4
 * stream has none and is read as before; LEAVE/JOIN `migrate` are
 * unchanged. */
#define TRACE_FORMAT_VERSION 5

/* ---- packets ------------------------------------------------------------ */

/* "RQTP" on the wire: bytes 52 51 54 50. */
#define TRACE_PKT_MAGIC 0x50545152u
#define TRACE_PKT_MAX_PAYLOAD 65535u
#define TRACE_CPU_GLOBAL 0xffffu /* stream-wide packets: header, end, marks */
#define TRACE_MAX_CPUS 256u      /* CPU numbers 0..255 in packets */

struct TRACE_PACKED trace_pkt_hdr {
    uint32_t magic;   /* TRACE_PKT_MAGIC */
    uint16_t len;     /* payload bytes that follow the header */
    uint16_t cpu;     /* producing CPU, or TRACE_CPU_GLOBAL */
    uint32_t seq;     /* per-CPU packet sequence number, +1 a packet, wraps */
    uint32_t dropped; /* free-running count of records this CPU dropped */
    uint32_t crc;     /* CRC-32C of the payload */
    uint32_t hcrc;    /* CRC-32C of the 20 bytes before this field */
};
_Static_assert(sizeof(struct trace_pkt_hdr) == 24, "packet header is 24 bytes");

/* ---- records ------------------------------------------------------------ */

/* Every record starts with this. size: whole record in bytes, >= 12. */
struct TRACE_PACKED trace_rec_hdr {
    uint8_t type;   /* enum trace_rec_type */
    uint8_t flags;  /* TRACE_RF_* */
    uint16_t size;  /* bytes of the record, this header included */
    uint64_t ts_ns; /* when it happened, ns */
};
_Static_assert(sizeof(struct trace_rec_hdr) == 12, "record header is 12 bytes");

/* Record flags. */
#define TRACE_RF_NO_EEVDF 0x01u /* round robin, or an RT task: EEVDF fields are empty (zero) */
#define TRACE_RF_NO_COST 0x02u  /* PICK: touched and cost_ns are not known (Linux's decisions): empty */

/* Scheduling classes. The wire value is a name's position, not a rank (a
 * decision asks RT before fair: kernel/sched/decide.c). The fair class
 * is the stream's policy, rr or eevdf. X(ID, "name", what), as the
 * reason tables below. */
#define TRACE_CLASSES(X)                                                      \
    X(FAIR, "fair", "the fair policy: the stream's rr or eevdf")             \
    X(RT, "rt", "real-time: fixed priority 1..99 (99 highest), above fair")

enum trace_class {
#define TRACE_CLASS_ENUM(id, name, what) TRACE_CLASS_##id,
    TRACE_CLASSES(TRACE_CLASS_ENUM)
#undef TRACE_CLASS_ENUM
    TRACE_CLASS_NR
};

/* Among equal real-time priorities: first in first out (SCHED_FIFO) or
 * round robin with a quantum (SCHED_RR). */
#define TRACE_RT_FIFO 0u
#define TRACE_RT_RR 1u

#define TRACE_RECORD_TYPES(X)                                                 \
    X(STREAM, 1, "stream header: version, CPUs, rates, policy, features")    \
    X(END, 2, "clean end of the stream")                                     \
    X(TASK_NEW, 3, "a task was created")                                     \
    X(TASK_EXIT, 4, "a task exited")                                         \
    X(TASK_RENAME, 5, "a task changed its name")                             \
    X(WAKE, 6, "a task was woken")                                           \
    X(JOIN, 7, "a task joined a run queue (placement)")                      \
    X(PICK, 8, "a scheduling decision")                                      \
    X(LEAVE, 9, "a task left the CPU (end of a stint)")                      \
    X(TICK, 10, "a scheduler tick")                                          \
    X(SET, 11, "nice, slice, feature or policy changed")                     \
    X(MARK, 12, "a named phase marker")                                      \
    X(COUNTERS, 13, "periodic per-CPU counters")                             \
    X(KEYFRAME, 14, "a CPU's whole queue: current and queued tasks")     \
    X(MIGRATE, 15, "a task moved between CPUs: the rule, and every CPU's load")

enum trace_rec_type {
#define TRACE_REC_ENUM(name, val, what) TRACE_REC_##name = val,
    TRACE_RECORD_TYPES(TRACE_REC_ENUM)
#undef TRACE_REC_ENUM
    TRACE_REC_NR_TYPES
};

#define TRACE_TASK_NONE (-1)
#define TRACE_NAME_LEN 16 /* task names: NUL-padded, not always terminated */

/* STREAM. Fixed part, then feature_names_len bytes of feature names (comma
 * separated, in bit order: name i is bit i of `features`), then
 * cmdline_len bytes of the kernel command line. Neither is terminated. */
#define TRACE_STREAM_MAGIC "RUNQTRC" /* 8 bytes with its NUL */
#define TRACE_POLICY_LEN 8
struct TRACE_PACKED trace_rec_stream {
    struct trace_rec_hdr h;
    char magic[8];            /* TRACE_STREAM_MAGIC, NUL included */
    uint16_t version;         /* TRACE_FORMAT_VERSION */
    uint16_t ncpus;           /* CPUs online */
    uint32_t tick_hz;         /* scheduler ticks per second */
    uint64_t tsc_hz;          /* TSC rate the kernel calibrated (info) */
    uint64_t keyframe_ns;     /* keyframe period */
    char policy[TRACE_POLICY_LEN]; /* "rr", "eevdf": NUL-padded */
    uint32_t features;        /* EEVDF feature switches, bit per feature */
    uint16_t feature_names_len;
    uint16_t cmdline_len;
    /* char feature_names[feature_names_len]; char cmdline[cmdline_len]; */
};
_Static_assert(sizeof(struct trace_rec_stream) == 60, "stream record fixed part");

/* END: no fields. */
struct TRACE_PACKED trace_rec_end {
    struct trace_rec_hdr h;
};

/* TASK_NEW, TASK_EXIT, TASK_RENAME: the task as it is now. */
#define TRACE_TF_IDLE 0x01u   /* a CPU's idle task */
#define TRACE_TF_PINNED 0x02u /* pinned to its home CPU */
struct TRACE_PACKED trace_rec_task {
    struct trace_rec_hdr h;
    int32_t task;
    int32_t parent;    /* creator, or TRACE_TASK_NONE */
    int8_t nice;
    uint8_t tflags;    /* TRACE_TF_* */
    uint16_t cpu;      /* home CPU now (the queue it is on or joins next) */
    uint64_t slice_ns; /* requested slice, 0 = the policy's default */
    char name[TRACE_NAME_LEN];
    uint8_t sclass;    /* version 4: enum trace_class */
    uint8_t rt_prio;   /* version 4: 1..99 for an RT task, 0 for a fair one */
    uint8_t rt_policy; /* version 4: TRACE_RT_FIFO or TRACE_RT_RR */
    uint8_t pad;
};
_Static_assert(sizeof(struct trace_rec_task) == 52, "task record");
#define TRACE_TASK_V3_SIZE 48

/* WAKE: emitted by the waker's CPU when the wake wins. */
#define TRACE_WF_TIMER 0x01u /* a sleep deadline expired (no waker task) */
struct TRACE_PACKED trace_rec_wake {
    struct trace_rec_hdr h;
    int32_t waker;       /* waking task, or TRACE_TASK_NONE (interrupt, timer) */
    int32_t wakee;
    uint16_t waker_cpu;
    uint16_t target_cpu; /* the wakee's queue */
    uint8_t wflags;      /* TRACE_WF_* */
    uint8_t pad[3];
};
_Static_assert(sizeof(struct trace_rec_wake) == 28, "wake record");

/* The reason tables below (JOIN, PICK, LEAVE, SET): X(ID, "name", what),
 * in wire order: the enum value is the position, the name is what the
 * host stores (trace/decode.c's *_name(), db/events.c parses it back). A
 * new reason is appended; db/events.c's leave_meaning says what a new
 * LEAVE reason means for its task. */
#define TRACE_JOIN_REASONS(X)                                                 \
    X(NEW, "new", "first join of a new task")                               \
    X(WAKE, "wake", "woken")                                                 \
    X(MIGRATE, "migrate", "moved from another queue")                       \
    X(REQUEUE, "requeue", "re-placed while queued (nice/slice change, delayed wake)")

enum trace_join_reason {
#define TRACE_JOIN_ENUM(id, name, what) TRACE_JOIN_##id,
    TRACE_JOIN_REASONS(TRACE_JOIN_ENUM)
#undef TRACE_JOIN_ENUM
    TRACE_JOIN_NR
};

/* What a JOIN by waking asked of the policy (Linux's
 * check_preempt_wakeup_fair()) and what it answered: whether the wakee
 * takes the CPU from current now. */
#define TRACE_JOIN_CHECKS(X)                                                  \
    X(NONE, "none", "not asked: not a wakeup, nothing current, or a decision was already due") \
    X(PREEMPT, "preempt", "the wakee preempts current")                     \
    X(KEPT, "kept", "current keeps the CPU")                                   \
    X(UNKNOWN, "unknown", "asked, answer not recorded (Linux: current's state is as after its check)")

enum trace_join_check {
#define TRACE_JOIN_CHECK_ENUM(id, name, what) TRACE_JC_##id,
    TRACE_JOIN_CHECKS(TRACE_JOIN_CHECK_ENUM)
#undef TRACE_JOIN_CHECK_ENUM
    TRACE_JC_NR
};

/* JOIN jflags: the facts behind the answer, as they were at the check. */
#define TRACE_JF_REQUEUE 0x01u       /* a delayed task woken where it still was (requeue_delayed_entity()) */
#define TRACE_JF_CHARGED_FIRST 0x02u /* current was charged before the wakee's lag was taken (333238da9a19) */
#define TRACE_JF_CLIPPED 0x04u       /* DELAY_ZERO clipped the wakee's positive lag to zero */
#define TRACE_JF_WAKEE_ELIGIBLE 0x08u /* at the check (or at the join, if none was asked) */
#define TRACE_JF_CURR_ELIGIBLE 0x10u  /* at the check */
#define TRACE_JF_CURR_PROTECTED 0x20u /* current's vruntime was short of curr_vprot */
#define TRACE_JF_CUT_SHORT 0x40u      /* PREEMPT_SHORT: the wakee's shorter slice cut that protection */
#define TRACE_JF_PENDING 0x80u        /* a decision was already due: the check was not asked */

/* JOIN: placement, as it was at the join (version 3; version 2 took the
 * numbers after the decision the join was part of). lag_before is the
 * lag the task brought (vlag; for a delayed task woken on its queue, V −
 * vruntime at that moment, before DELAY_ZERO clips it); lag_after is V −
 * vruntime right after placement (PLACE_LAG scales it by (W + w) / W).
 * V is the queue's V after the join. The fields from curr on say what the
 * wakeup check saw: current's vruntime, deadline and the vruntime at which
 * its protected stretch ends (RUN_TO_PARITY), all 0 when check is NONE
 * with no current. */
struct TRACE_PACKED trace_rec_join {
    struct trace_rec_hdr h;
    int32_t task;
    uint16_t cpu;
    uint8_t reason; /* enum trace_join_reason */
    uint8_t pad;
    uint64_t vruntime;
    uint64_t deadline;
    int64_t lag_before;
    int64_t lag_after;
    uint64_t V;
    uint32_t weight;
    uint16_t nr_runnable; /* runnable on the queue after the join, current included */
    uint16_t pad2;
    int32_t curr;           /* version 3: the CPU's current task, or TRACE_TASK_NONE */
    uint8_t check;          /* enum trace_join_check */
    uint8_t jflags;         /* TRACE_JF_* */
    uint16_t pad3;
    uint64_t curr_vruntime;
    uint64_t curr_deadline;
    uint64_t curr_vprot;
};
_Static_assert(sizeof(struct trace_rec_join) == 100, "join record");
#define TRACE_JOIN_V2_SIZE 68

#define TRACE_PICK_WHYS(X)                                                    \
    X(TICK, "tick", "tick said current's slice is used up")                 \
    X(IPI, "ipi", "a reschedule IPI from a remote wake")                     \
    X(YIELD, "yield", "current yielded")                                     \
    X(BLOCK, "block", "current blocked or slept")                            \
    X(SLICE, "slice", "slice-end timer (HRTICK)")                            \
    X(PREEMPT, "preempt", "local wakeup / preempt_enable")                   \
    X(PREEMPT_SHORT, "preempt_short", "a waking task with a shorter slice cut in") \
    X(IDLE, "idle", "the idle task looked for work")                         \
    X(EXIT, "exit", "current exited")

enum trace_pick_why {
#define TRACE_WHY_ENUM(id, name, what) TRACE_WHY_##id,
    TRACE_PICK_WHYS(TRACE_WHY_ENUM)
#undef TRACE_WHY_ENUM
    TRACE_WHY_NR
};

/* PICK: one decision on cpu. prev may equal next (current kept). The
 * next_* fields describe next at the moment of the pick. */
struct TRACE_PACKED trace_rec_pick {
    struct trace_rec_hdr h;
    int32_t prev;
    int32_t next;
    uint16_t cpu;
    uint8_t why; /* enum trace_pick_why */
    uint8_t pad;
    uint64_t V;
    uint64_t next_vruntime;
    uint64_t next_deadline;
    int64_t next_lag;
    uint16_t nr_eligible; /* eligible entities seen by the pick */
    uint16_t nr_runnable; /* runnable on the queue, current included */
    uint16_t touched;     /* entities the pick examined */
    uint16_t pad2;
    uint32_t cost_ns;     /* time the decision took */
};
_Static_assert(sizeof(struct trace_rec_pick) == 68, "pick record");

#define TRACE_LEAVE_REASONS(X)                                                \
    X(BLOCK, "block", "blocked on an event")                                 \
    X(SLEEP, "sleep", "asleep until a deadline")                             \
    X(YIELD, "yield", "yielded: back on the queue")                          \
    X(PREEMPT, "preempt", "preempted: back on the queue")                    \
    X(EXIT, "exit", "exited")                                                \
    X(MIGRATE, "migrate", "moved to another CPU")                            \
    X(DELAYED, "delayed", "blocked, but stays queued until its lag is paid") \
    X(DEQUEUED, "dequeued", "a DELAYED task's lag is paid: it leaves the queue now " \
                            "(not a switch: it was not running)")                  \
    X(RELEASE, "release", "a higher class (`by`) took the CPU: back on the queue")

enum trace_leave_reason {
#define TRACE_LEAVE_ENUM(id, name, what) TRACE_LEAVE_##id,
    TRACE_LEAVE_REASONS(TRACE_LEAVE_ENUM)
#undef TRACE_LEAVE_ENUM
    TRACE_LEAVE_NR
};

/* LEAVE: a task stops running on cpu. run_ns is the stint just ended.
 * deadline: its virtual deadline now, which the stint may have renewed
 * (the pick that started it carried the old one). A fair task displaced
 * by a task of a higher class leaves with reason RELEASE (not PREEMPT)
 * and that class in `by` (version 4; 0 otherwise). MIGRATE: a queued
 * task moved to another CPU's queue (run_ns 0: it was not running); the
 * JOIN `migrate` on the new CPU follows, lag_before being this lag. */
struct TRACE_PACKED trace_rec_leave {
    struct trace_rec_hdr h;
    int32_t task;
    uint16_t cpu;
    uint8_t reason; /* enum trace_leave_reason */
    uint8_t by;     /* RELEASE: enum trace_class that took the CPU; else 0 */
    uint64_t vruntime;
    int64_t lag;
    uint64_t V;
    uint64_t run_ns;
    uint64_t deadline; /* version 2 */
};
_Static_assert(sizeof(struct trace_rec_leave) == 60, "leave record");
#define TRACE_LEAVE_V1_SIZE 52

/* TICK. */
struct TRACE_PACKED trace_rec_tick {
    struct trace_rec_hdr h;
    int32_t curr;
    uint16_t cpu;
    uint16_t nr_runnable;
    uint64_t V;
};
_Static_assert(sizeof(struct trace_rec_tick) == 28, "tick record");

#define TRACE_SET_WHATS(X) /* one enum's rows, as the tables above: data, not code */ \
    X(NICE, "nice", "task's nice: old, new")                                 \
    X(SLICE, "slice", "task's requested slice, ns: old, new")                \
    X(FEATURE, "feature", "feature `name`: old, new = 0/1")                  \
    X(POLICY, "policy", "policy: name = new policy's name")                  \
    X(HZ, "hz", "tick rate: old, new")                                     \
    X(CLASS, "class", "task's class: old, new = RT priority (0: fair); name = new class") \
    X(KNOB, "knob", "scheduler setting `name`: old, new (docs/kernel.md, sched set)")

enum trace_set_what {
#define TRACE_SET_ENUM(id, name, what) TRACE_SET_##id,
    TRACE_SET_WHATS(TRACE_SET_ENUM)
#undef TRACE_SET_ENUM
    TRACE_SET_NR
};

/* SET: a setting changed. task is TRACE_TASK_NONE for global ones. */
#define TRACE_SET_NAME_LEN 24
struct TRACE_PACKED trace_rec_set {
    struct trace_rec_hdr h;
    int32_t task;
    uint8_t what; /* enum trace_set_what */
    uint8_t pad[3];
    int64_t old_value;
    int64_t new_value;
    char name[TRACE_SET_NAME_LEN]; /* feature or policy name, NUL-padded */
};
_Static_assert(sizeof(struct trace_rec_set) == 60, "set record");

/* MARK: name is the rest of the record (size - 16 bytes), not terminated. */
enum trace_mark_source { TRACE_MARK_SHELL, TRACE_MARK_HOST, TRACE_MARK_KERNEL };
#define TRACE_MARK_NAME_MAX 64
struct TRACE_PACKED trace_rec_mark {
    struct trace_rec_hdr h;
    uint16_t cpu;
    uint8_t source; /* enum trace_mark_source */
    uint8_t pad;
    /* char name[]; */
};
_Static_assert(sizeof(struct trace_rec_mark) == 16, "mark record");

/* COUNTERS: cumulative since boot, one u64 per counter below, in this
 * order; a reader takes as many as the size holds (a newer producer may
 * append more). */
#define TRACE_COUNTER_NAMES(X)                                                \
    X(DECISIONS, "decisions", "scheduling decisions")                        \
    X(DECISION_NS, "decision_ns", "time spent deciding, ns")                 \
    X(SWITCHES, "switches", "context switches (next != prev)")               \
    X(WAKES, "wakes", "tasks joined by waking")                              \
    X(TICKS, "ticks", "scheduler ticks")                                     \
    X(IDLE_NS, "idle_ns", "time the idle task ran, ns")                      \
    X(BUSY_NS, "busy_ns", "time other tasks ran, ns")                        \
    X(RING_USED, "ring_used", "bytes in the trace ring when sampled")        \
    X(RELEASES_RT, "releases_rt", "fair tasks that lost this CPU to the RT class") \
    X(RT_NS, "rt_ns", "time RT tasks ran, ns")                               \
    X(RT_THROTTLED, "rt_throttled", "times the RT class used up its budget") \
    X(MIGRATIONS, "migrations", "tasks moved from this CPU's queue to another's") \
    X(TRACE_RECORDS, "trace_records", "trace records this CPU's emit points wrote") \
    X(TRACE_TIMED, "trace_timed", "of those, the ones timed (one in TRACE_COST_EVERY)") \
    X(TRACE_TIMED_NS, "trace_timed_ns", "time the timed ones took, ns: trace_records times their mean is tracing's cost")

enum trace_counter {
#define TRACE_COUNTER_ENUM(id, name, what) TRACE_CTR_##id,
    TRACE_COUNTER_NAMES(TRACE_COUNTER_ENUM)
#undef TRACE_COUNTER_ENUM
    TRACE_CTR_NR
};

struct TRACE_PACKED trace_rec_counters {
    struct trace_rec_hdr h;
    uint16_t cpu;
    uint16_t pad;
    uint64_t value[TRACE_CTR_NR];
};
_Static_assert(sizeof(struct trace_rec_counters) == 16 + 8 * TRACE_CTR_NR, "counters record");

/* KEYFRAME: nr entries follow the fixed part; the current task, if any,
 * comes first with TRACE_KF_CURRENT. */
#define TRACE_KF_CURRENT 0x01u  /* on the CPU */
#define TRACE_KF_ELIGIBLE 0x02u /* lag >= 0 */
#define TRACE_KF_DELAYED 0x04u  /* blocked, kept queued (DELAY_DEQUEUE) */
#define TRACE_KF_RT 0x08u       /* version 4: an RT task; its EEVDF fields are empty */
#define TRACE_KF_PROTECTED 0x10u /* its vruntime is short of its protected stretch's end (vprot) */
#define TRACE_KF_PROT_KNOWN 0x20u /* TRACE_KF_PROTECTED is known for it (Linux: the queue's current, and
                                   * the task just preempted; vprot is not kept for the others) */
struct TRACE_PACKED trace_kf_entry {
    int32_t task;
    uint8_t kflags; /* TRACE_KF_* */
    int8_t nice;
    uint16_t pad;
    uint32_t weight;
    uint64_t vruntime;
    uint64_t deadline;
    int64_t lag;
    uint64_t slice_ns;
};
_Static_assert(sizeof(struct trace_kf_entry) == 44, "keyframe entry");

struct TRACE_PACKED trace_rec_keyframe {
    struct trace_rec_hdr h;
    uint16_t cpu;
    uint16_t nr; /* entries that follow */
    int32_t curr; /* the task on the CPU (maybe its idle task) */
    uint64_t V;
    /* struct trace_kf_entry entry[nr]; */
};
_Static_assert(sizeof(struct trace_rec_keyframe) == 28, "keyframe record");
#define TRACE_KF_MAX_ENTRIES \
    ((TRACE_PKT_MAX_PAYLOAD - sizeof(struct trace_rec_keyframe)) / sizeof(struct trace_kf_entry))

#define TRACE_KEYFRAME_PERIOD_NS 100000000ull /* 100 ms */

/* MIGRATE (version 5): task moves from CPU src to CPU dst because of
 * `reason`. ncpus entries follow the fixed part, one per CPU in order:
 * each CPU's runnable count and fair load (the sum of its runnable fair
 * tasks' weights) as the rule saw them, just before the move (a task on
 * its way to a CPU's wake stack is counted on neither). A move of a
 * queued task (TRACE_MF_QUEUED) is followed by its LEAVE `migrate` on
 * src; every move ends in a JOIN `migrate` on dst. Emitted by the CPU
 * that makes the move. The kernel never emits WAKE or UNKNOWN: they are
 * the Linux engine's (host/engine/linux/lxrec.c), appended so that the
 * kernel's numbers stay. */
#define TRACE_MIGRATE_REASONS(X)                                                                          \
    X(WAKE_IDLE_PREV, "wake_idle_prev", "woken: its previous CPU was idle (in runq's kernel that CPU is "    \
                                        "its home, so this rule keeps it and is never a move)")            \
    X(WAKE_IDLE_SIBLING, "wake_idle_sibling", "woken: placed on an idle CPU it may run on (select_idle_sibling)") \
    X(WAKE_AFFINE, "wake_affine", "woken: placed on its waker's CPU (wake_affine_idle, wake_affine_weight)") \
    X(NEWIDLE, "newidle", "pulled by a CPU about to go idle (sched_balance_newidle)")                      \
    X(PERIODIC, "periodic", "pulled by the periodic balance of the busiest CPU (sched_balance_rq)")       \
    X(AFFINITY, "affinity", "its allowed CPUs no longer hold its CPU")                                    \
    X(RT_RELEASE, "rt_release", "a higher class took its CPU: sent to an idle one (replace_on_release)")     \
    X(WAKE, "wake", "woken onto another CPU by a rule the recorder cannot name (Linux's engine: "             \
                    "select_task_rq() in try_to_wake_up(); idle sibling or affine is not in its tracepoints)")   \
    X(UNKNOWN, "unknown", "no rule the recorder can see matched (Linux's engine only; never guessed)")

enum trace_migrate_reason {
#define TRACE_MIGRATE_ENUM(id, name, what) TRACE_MIGRATE_##id,
    TRACE_MIGRATE_REASONS(TRACE_MIGRATE_ENUM)
#undef TRACE_MIGRATE_ENUM
    TRACE_MIGRATE_NR
};

#define TRACE_MF_QUEUED 0x01u /* it left a queue (LEAVE migrate follows); else it was waking */
#define TRACE_MC_RUNNING 0x01u /* a task (of any class) is on the CPU: one of nr_running */
struct TRACE_PACKED trace_migrate_cpu {
    uint16_t nr_running; /* runnable, the running one included */
    uint8_t cflags;      /* TRACE_MC_* */
    uint8_t pad;
    uint32_t load;       /* the fair tasks' weights, summed (1024 a nice-0 task) */
};
_Static_assert(sizeof(struct trace_migrate_cpu) == 8, "migrate CPU entry");

struct TRACE_PACKED trace_rec_migrate {
    struct trace_rec_hdr h;
    int32_t task;
    uint16_t src;
    uint16_t dst;
    uint8_t reason; /* enum trace_migrate_reason */
    uint8_t mflags; /* TRACE_MF_* */
    uint16_t ncpus; /* entries that follow */
    /* struct trace_migrate_cpu cpu[ncpus]; */
};
_Static_assert(sizeof(struct trace_rec_migrate) == 24, "migrate record");

/* Smallest valid size of each record type (its fixed part); 0: unknown. */
static inline uint16_t trace_rec_min_size(uint8_t type)
{
    switch (type) {
    case TRACE_REC_STREAM: return sizeof(struct trace_rec_stream);
    case TRACE_REC_END: return sizeof(struct trace_rec_end);
    case TRACE_REC_TASK_NEW:
    case TRACE_REC_TASK_EXIT:
    case TRACE_REC_TASK_RENAME: return TRACE_TASK_V3_SIZE; /* class optional */
    case TRACE_REC_WAKE: return sizeof(struct trace_rec_wake);
    case TRACE_REC_JOIN: return TRACE_JOIN_V2_SIZE; /* the check optional */
    case TRACE_REC_PICK: return sizeof(struct trace_rec_pick);
    case TRACE_REC_LEAVE: return TRACE_LEAVE_V1_SIZE; /* deadline optional */
    case TRACE_REC_TICK: return sizeof(struct trace_rec_tick);
    case TRACE_REC_SET: return sizeof(struct trace_rec_set);
    case TRACE_REC_MARK: return sizeof(struct trace_rec_mark);
    case TRACE_REC_COUNTERS: return sizeof(struct trace_rec_counters) - 8 * TRACE_CTR_NR;
    case TRACE_REC_KEYFRAME: return sizeof(struct trace_rec_keyframe);
    case TRACE_REC_MIGRATE: return sizeof(struct trace_rec_migrate);
    default: return 0;
    }
}

/* Fills a record's common header. */
static inline void trace_rec_init(struct trace_rec_hdr *h, enum trace_rec_type type, uint16_t size,
                                  uint64_t ts_ns)
{
    h->type = (uint8_t)type;
    h->flags = 0;
    h->size = size;
    h->ts_ns = ts_ns;
}

/* ---- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) ------------ */
/* A byte table, one lookup a byte (the nibble table's two lookups a byte
 * were 5 % of runq record's time and the tracer's biggest cost), built by
 * the compiler: entry n is n shifted through the polynomial 8 times. Check
 * value: trace_crc32c("123456789", 9) == 0xE3069283. */
#define TRACE_CRC_BIT(c) (((c) >> 1) ^ (0x82F63B78u & (0u - ((c) & 1u))))
#define TRACE_CRC_2(c) TRACE_CRC_BIT(TRACE_CRC_BIT(c))
#define TRACE_CRC_8(c) TRACE_CRC_2(TRACE_CRC_2(TRACE_CRC_2(TRACE_CRC_2((uint32_t)(c)))))
#define TRACE_CRC_4E(n) TRACE_CRC_8(n), TRACE_CRC_8((n) + 1), TRACE_CRC_8((n) + 2), TRACE_CRC_8((n) + 3)
#define TRACE_CRC_16E(n) TRACE_CRC_4E(n), TRACE_CRC_4E((n) + 4), TRACE_CRC_4E((n) + 8), TRACE_CRC_4E((n) + 12)
#define TRACE_CRC_64E(n) TRACE_CRC_16E(n), TRACE_CRC_16E((n) + 16), TRACE_CRC_16E((n) + 32), TRACE_CRC_16E((n) + 48)
static const uint32_t trace_crc32c_table[256] = {
    TRACE_CRC_64E(0), TRACE_CRC_64E(64), TRACE_CRC_64E(128), TRACE_CRC_64E(192),
};

/* Continues a CRC: start from crc = 0, feed pieces in order. */
static inline uint32_t trace_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = (const uint8_t *)buf;
    crc = ~crc;
    while (len--)
        crc = (crc >> 8) ^ trace_crc32c_table[(crc ^ *p++) & 0xffu];
    return ~crc;
}

static inline uint32_t trace_crc32c(const void *buf, size_t len)
{
    return trace_crc32c_update(0, buf, len);
}

#if defined(__x86_64__)
/* The same CRC with x86's crc32 instruction (SSE4.2 computes exactly this
 * polynomial), eight bytes an instruction: the caller has checked that the
 * CPU has it. Inline assembly on general registers, so the kernel's no-SSE
 * build and the host share it (kernel/lib/crc32c.c, trace/decode.c). */
static inline uint32_t trace_crc32c_x86(const void *buf, size_t len)
{
    const uint8_t *p = (const uint8_t *)buf;
#ifdef RUNQ_BUG_CRC_SEED /* test-proving bug (kernel): TestCrc32c must fail */
    uint64_t crc = 0xfffffffeu;
#else
    uint64_t crc = 0xffffffffu;
#endif
    /* Four words a turn, each read by its crc32q from memory: under
     * icount the tracer's instructions are guest time, and one a word
     * with a loop's three a turn is about a quarter of an instruction a
     * byte, where a load and a loop a word were five eighths. */
    typedef uint64_t __attribute__((may_alias, aligned(1))) trace_u64u;
    for (; len >= 32; p += 32, len -= 32)
        __asm__("crc32q %1, %0\n\tcrc32q %2, %0\n\tcrc32q %3, %0\n\tcrc32q %4, %0"
                : "+r"(crc)
                : "m"(*(const trace_u64u *)p), "m"(*(const trace_u64u *)(p + 8)), "m"(*(const trace_u64u *)(p + 16)),
                  "m"(*(const trace_u64u *)(p + 24)));
    for (; len >= 8; p += 8, len -= 8)
        __asm__("crc32q %1, %0" : "+r"(crc) : "m"(*(const trace_u64u *)p));
    uint32_t c = (uint32_t)crc;
    for (; len; p++, len--)
        __asm__("crc32b %1, %0" : "+r"(c) : "rm"(*p));
    return ~c;
}
#endif

/* CRC of a packet header: its first 20 bytes (everything before hcrc). */
static inline uint32_t trace_pkt_hdr_crc(const struct trace_pkt_hdr *h)
{
    return trace_crc32c(h, offsetof(struct trace_pkt_hdr, hcrc));
}

/* Fills a packet header for `len` payload bytes at `payload`, its CRCs
 * computed by crc (trace_crc32c or a faster equal one). */
static inline void trace_pkt_seal_with(struct trace_pkt_hdr *h, uint16_t cpu, uint32_t seq,
                                       uint32_t dropped, const void *payload, uint16_t len,
                                       uint32_t (*crc)(const void *, size_t))
{
    h->magic = TRACE_PKT_MAGIC;
    h->len = len;
    h->cpu = cpu;
    h->seq = seq;
    h->dropped = dropped;
    h->crc = crc(payload, len);
    h->hcrc = crc(h, offsetof(struct trace_pkt_hdr, hcrc));
}

static inline void trace_pkt_seal(struct trace_pkt_hdr *h, uint16_t cpu, uint32_t seq,
                                  uint32_t dropped, const void *payload, uint16_t len)
{
    trace_pkt_seal_with(h, cpu, seq, dropped, payload, len, trace_crc32c);
}

#endif
