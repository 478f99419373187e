/*
 * EEVDF feature switches: the one table. Each entry is
 *     X(NAME, default, "what it changes")
 * and generates enum eevdf_feature (EEVDF_F_NAME), the names the shell and
 * `runq` accept, and the defaults. docs/eevdf.md works an example for each.
 *
 * The switches are one global word, flipped at run time with
 * eevdf_feature_set() (shell `sched feature NAME on|off`, a host test, the
 * fuzzer). Every policy op reads it afresh, so a flip takes effect at the
 * next op on every queue; entities already delayed or protected keep that
 * state until it runs out.
 *
 * The defaults are Linux 6.18's (kernel/sched/features.h; HRTICK is off
 * there too) but for LAG_CLAMP_MAX_SLICE, below. New switches go at the
 * end: a trace stores the mask by bit. YIELD_BOUNDED is runq's own (seed
 * 002's nos rule), off so that runq decides as Linux does; docs/eevdf.md's
 * table "runq vs Linux 6.18" lists it with LAB_LEAVE_BUG.
 * REQUEUE_UPDATE_CURR is Linux's, but later than 6.18 and not a switch
 * there: commit 333238da9a19 (seed 001's thread) made ttwu_runnable()'s
 * requeue of a delayed task charge current first; off is 6.18's order. It is the core's order, not the policy's (the core
 * reads it in drain_wakes()), but it lives in this table so that a trace,
 * the shell, runq sim and a scenario set it like any other switch.
 *
 * BALANCE_WAKE, WA_IDLE, WA_WEIGHT, BALANCE_NEWIDLE and BALANCE_PERIODIC
 * are the core's too (kernel/sched/balance.c: where a woken task runs,
 * and which CPU pulls which queued task), here for the same reasons.
 * WA_IDLE and WA_WEIGHT are Linux's names, on there; Linux has no switch
 * for the other three (it always balances): they are runq's, so that a
 * lab can turn one rule off. All five are off in runq until measured
 * against the host (docs/kernel.md, "Moving tasks"): off, no task moves
 * but by affinity or an RT release, as before they existed.
 *
 * RR_SLEEPERS_IN_PLACE is the round robin's (rr.c), not EEVDF's: nos's
 * old list (seed 002) held sleepers where they stood, and the seed's
 * uneven shares may come from that. Off is runq's round robin as it was.
 *
 * LAG_CLAMP_MAX_SLICE is the one default that is not vanilla 6.18's: it is
 * on because the current stable kernels carry it. 6e3c0a4e1ad1 "sched/fair:
 * Fix lag clamp" (7.0, backported to 6.18-stable: the development hosts'
 * 6.18.44 has it) changed entity_lag()'s clamp from max(2 * own slice, a
 * tick) to cfs_rq_max_slice() plus a tick; eevdf.c's lag_limit() says why.
 * Off is vanilla 6.18, and the rule of every runq trace made before the
 * switch existed (their masks have no bit for it).
 */
#ifndef RUNQ_SCHED_EEVDF_FEATURES_H
#define RUNQ_SCHED_EEVDF_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#define EEVDF_FEATURES(X)                                                              \
    X(PLACE_LAG, true, "a joining entity keeps its lag, scaled by (W+w)/W so joining does not dilute it") \
    X(PLACE_DEADLINE_INITIAL, true, "a new entity's first deadline is half a slice away, not a whole one") \
    X(RUN_TO_PARITY, true, "protect current for min(own slice, shortest queued slice), not min(own, base)") \
    X(PREEMPT_SHORT, true, "a waking entity with a shorter slice may cut current's protected stretch") \
    X(DELAY_DEQUEUE, true, "an entity that blocks with negative lag stays queued until that lag is paid") \
    X(DELAY_ZERO, true, "a delayed entity's positive lag is clipped to zero when it finally leaves or wakes") \
    X(HRTICK, false, "a timer ends current's turn when it has run its slice since it was picked, not the next tick") \
    X(LAB_LEAVE_BUG, false, "lab only: a blocking current's lag is taken from a V that omits the next entity") \
    X(YIELD_BOUNDED, false, "a yielder's deadline moves to V + slice (the nos rule), not its vruntime to its deadline") \
    X(REQUEUE_UPDATE_CURR, false, "a delayed task woken where it still is: current is charged first, so V moves before its lag is taken (333238da9a19, after 6.18)") \
    X(LAG_CLAMP_MAX_SLICE, true, "a leaving entity's lag is clamped to the longest slice queued plus a tick, not twice its own slice (6e3c0a4e1ad1, 7.0 and 6.18-stable)") \
    X(BALANCE_WAKE, false, "a woken task may be placed on another CPU it may run on (select_task_rq_fair); off: it wakes where it slept") \
    X(WA_IDLE, false, "with BALANCE_WAKE: wake-affine to the waker's CPU when it is idle, unless the previous one is (wake_affine_idle; on in Linux)") \
    X(WA_WEIGHT, false, "with BALANCE_WAKE: wake-affine when the waker's CPU's load plus the wakee's is below the previous CPU's (wake_affine_weight; on in Linux)") \
    X(BALANCE_NEWIDLE, false, "a CPU about to go idle pulls a waiting task from the busiest CPU (sched_balance_newidle)") \
    X(BALANCE_PERIODIC, false, "every balance interval a CPU pulls tasks from the busiest one until their loads are within imbalance_pct (sched_balance_rq)") \
    X(RR_SLEEPERS_IN_PLACE, false, "round robin: a woken task rejoins the run list where it stood when it blocked (nos's one list, seed 002), not at its tail")

enum eevdf_feature {
#define EEVDF_FEATURE_ENUM(name, on, what) EEVDF_F_##name,
    EEVDF_FEATURES(EEVDF_FEATURE_ENUM)
#undef EEVDF_FEATURE_ENUM
    EEVDF_NR_FEATURES
};

/* Is feature f on now? */
bool eevdf_feature(enum eevdf_feature f);
/* The switches' one word (eevdf.c owns it; eevdf_feature_set() writes
 * it), and the same question inline: for the core's balancing hooks,
 * asked on every wakeup and decision with the switches off, where a call
 * would cost the guest instructions every icount figure counts. */
extern uint32_t eevdf_feature_word;
static inline bool eevdf_feature_now(enum eevdf_feature f)
{
    return (__atomic_load_n(&eevdf_feature_word, __ATOMIC_RELAXED) >> f) & 1u;
}
/* Turn the feature called name (e.g. "PLACE_LAG") on or off; false if
 * there is no such feature. */
bool eevdf_feature_set(const char *name, bool on);
/* The feature called name, or -1. */
int eevdf_feature_lookup(const char *name);
/* Table lookups for listings: f must be < EEVDF_NR_FEATURES. */
const char *eevdf_feature_name(enum eevdf_feature f);
const char *eevdf_feature_comment(enum eevdf_feature f);
bool eevdf_feature_default(enum eevdf_feature f);
/* All switches as a bit mask (bit f = feature f), and back: for tests,
 * the fuzzer and trace records. */
uint32_t eevdf_features_mask(void);
void eevdf_features_set_mask(uint32_t mask);
/* Every switch back to its default. */
void eevdf_features_reset(void);

#endif
