/*
 * The host's scheduling rules, as far as runq can tell them from outside:
 * which of Linux's sched features are on (the mask in
 * /sys/kernel/debug/sched/debug, named by the kernel's own BTF enum of
 * __SCHED_FEAT_*), its base slice, and the rules runq models as switches
 * that the kernel's BTF shows it has (LAG_CLAMP_MAX_SLICE: sched_entity
 * has max_slice, 6e3c0a4e1ad1's clamp). Every Linux trace names them in
 * trace.features / trace.feature_names (docs/sql.md).
 */
#ifndef RUNQ_LINUX_HOSTRULES_H
#define RUNQ_LINUX_HOSTRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOSTRULES_NAMES_MAX 1024

struct hostrules {
    /* The features as a trace stores them: names comma-separated in bit
     * order (Linux's features first, runq's detected rules after), and
     * the mask of those that are on. Empty names: nothing known. */
    char names[HOSTRULES_NAMES_MAX];
    uint32_t mask;
    bool features_known;   /* Linux's feature mask was read and named */
    int lag_clamp_max_slice; /* 1 on, 0 off (vanilla 6.18's rule), -1 unknown (no BTF) */
    uint64_t base_slice_ns; /* 0: unknown */
    /* The preemption model: "none", "voluntary", "full", "lazy" (from
     * /sys/kernel/debug/sched/preempt), else what uname -v says
     * ("dynamic, mode not readable", "PREEMPT", ...), "" unknown. */
    char preempt[48];
    /* What could not be learnt, one line each joined by "; " (empty: all). */
    char missing[512];
};

/* Reads what this host can say; never fails (what it cannot learn is
 * unknown and said in r->missing). Cached after the first call. */
const struct hostrules *hostrules_read(void);

/* One line for people: "LAG_CLAMP_MAX_SLICE on; base slice 1.400 ms;
 * features on: PLACE_LAG,...". */
void hostrules_describe(const struct hostrules *r, char *buf, size_t len);

#endif
