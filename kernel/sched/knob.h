/*
 * Scheduler settings that are not EEVDF feature switches (those are
 * eevdf_features.h, Linux's features.h): the RT budget and what happens
 * to fair tasks queued on a CPU a higher class takes, and the periodic
 * balance's interval (balance.c). Each has a name, a
 * range and a default; `sched knob` lists and sets them, a change is
 * traced (SET knob) and every trace starts with their values.
 */
#ifndef RUNQ_SCHED_KNOB_H
#define RUNQ_SCHED_KNOB_H
#include "../lib/types.h"

#define SCHED_KNOBS(X)                                                                          \
    X(REPLACE_ON_RELEASE, "replace_on_release", 0, 1, 1,                                       \
      "1: when a higher class takes a CPU, its queued fair tasks may move to a CPU that "      \
      "runs them sooner (carrying their lag); 0: they stay")                                   \
    X(RT_RUNTIME_US, "rt_runtime_us", 0, 10000000, 950000,                                     \
      "RT run time a period on each CPU before fair tasks get the rest (sched_rt_runtime_us)") \
    X(RT_PERIOD_US, "rt_period_us", 1000, 10000000, 1000000, "the RT budget's period (sched_rt_period_us)") \
    X(BALANCE_INTERVAL_MS, "balance_interval_ms", 0, 128, 0,                                   \
      "BALANCE_PERIODIC's interval on an idle CPU, ms (busy: 16 times it); 0: Linux's default, one ms a CPU; "   \
      "else within Linux's bounds for the domain, CPUs .. 2 x CPUs (sd min/max_interval)")

/* Linux's bounds on a domain's balance interval for n CPUs, ms
 * (sd_init(): min_interval = the domain's weight, max_interval twice
 * it): balance_interval_ms is 0 or within them, which the kernel
 * (core.c) and a scenario's check (host/scenario/parse.c) hold it to. */
#define BALANCE_INTERVAL_MIN_MS(n) (n)
#define BALANCE_INTERVAL_MAX_MS(n) (2 * (n))

enum sched_knob {
#define SCHED_KNOB_ENUM(id, name, lo, hi, def, what) KNOB_##id,
    SCHED_KNOBS(SCHED_KNOB_ENUM)
#undef SCHED_KNOB_ENUM
    KNOB_NR
};

s64 sched_knob(enum sched_knob k);
const char *sched_knob_name(enum sched_knob k);
const char *sched_knob_comment(enum sched_knob k);
s64 sched_knob_default(enum sched_knob k);
/* The knob called name, or -1. */
int sched_knob_lookup(const char *name);
/* Sets k to v: false (nothing changed) if v is out of its range, or the
 * RT runtime would exceed its period. Traced; takes effect on every CPU
 * before it returns (core.c: a new RT budget reaches every queue). */
bool sched_knob_set(enum sched_knob k, s64 v, const char **why);
/* knob.c's half of sched_knob_set: the check, the trace and the value
 * stored, nothing told to the queues. For core.c alone. */
bool sched_knob_store(enum sched_knob k, s64 v, const char **why);
/* A SET knob record for each, old = new = its value (tracing starts). */
void sched_knobs_trace(void);

#endif
