/*
 * Scheduler settings (knob.h).
 */
#include "knob.h"
#include "sched.h"
#include "../lib/string.h"
#include "../trace/trace.h"

struct knob_desc {
    const char *name, *what;
    s64 lo, hi, def;
};

static const struct knob_desc knobs[KNOB_NR] = {
#define SCHED_KNOB_DESC(id, nm, l, h, d, w) [KNOB_##id] = { .name = nm, .what = w, .lo = l, .hi = h, .def = d },
    SCHED_KNOBS(SCHED_KNOB_DESC)
#undef SCHED_KNOB_DESC
};

static s64 values[KNOB_NR] = {
#define SCHED_KNOB_VALUE(id, nm, l, h, d, w) [KNOB_##id] = d,
    SCHED_KNOBS(SCHED_KNOB_VALUE)
#undef SCHED_KNOB_VALUE
};

s64 sched_knob(enum sched_knob k)
{
    return __atomic_load_n(&values[k], __ATOMIC_RELAXED);
}

/* The name/comment/default readers have the shape of eevdf.c's feature
 * readers, kept apart: two tables of different things, one in the core,
 * the other in the policy the host compiles too. */
const char *sched_knob_name(enum sched_knob k)
{
    return knobs[k].name;
}

const char *sched_knob_comment(enum sched_knob k)
{
    return knobs[k].what;
}

s64 sched_knob_default(enum sched_knob k)
{
    return knobs[k].def;
}

int sched_knob_lookup(const char *name)
{
    for (int k = 0; k < KNOB_NR; k++)
        if (strcmp(knobs[k].name, name) == 0)
            return k;
    return -1;
}

bool sched_knob_store(enum sched_knob k, s64 v, const char **why)
{
    if (v < knobs[k].lo || v > knobs[k].hi) {
        *why = "out of range";
        return false;
    }
    s64 runtime = k == KNOB_RT_RUNTIME_US ? v : sched_knob(KNOB_RT_RUNTIME_US);
    s64 period = k == KNOB_RT_PERIOD_US ? v : sched_knob(KNOB_RT_PERIOD_US);
    if (runtime > period) {
        *why = "the RT runtime would exceed its period";
        return false;
    }
    trace_set(NULL, TRACE_SET_KNOB, sched_knob(k), v, knobs[k].name);
    __atomic_store_n(&values[k], v, __ATOMIC_RELAXED);
    return true;
}

void sched_knobs_trace(void)
{
    for (int k = 0; k < KNOB_NR; k++)
        trace_set(NULL, TRACE_SET_KNOB, sched_knob(k), sched_knob(k), knobs[k].name);
}
