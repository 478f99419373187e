/*
 * top_at DB TRACE T_NS: the tasks of runq top's model at one trace time,
 * one line each: "NAME STATE LAG_NS DEADLINE_REL_NS ELIGIBLE". For
 * tests/tui/top_agree.sh, which holds them against the kernel's own `sched
 * queue` printed at that moment.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tui/model.h"

int main(int argc, char **argv)
{
    char err[512];
    if (argc != 4) {
        fprintf(stderr, "usage: top_at DB TRACE T_NS\n");
        return 2;
    }
    uint64_t t = strtoull(argv[3], NULL, 10);
    struct top_model *m = top_model_open(argv[1], atoll(argv[2]), 0, err, sizeof err);
    if (!m || top_model_update(m, t, err, sizeof err) < 0) {
        fprintf(stderr, "top_at: %s\n", err);
        return 1;
    }
    const struct top_snapshot *s = top_model_snapshot(m);
    for (size_t i = 0; i < s->ntasks; i++) {
        const struct top_task *k = &s->tasks[i];
        if (k->has_eevdf && !k->is_idle)
            printf("%s %s %lld %lld %s\n", k->name, top_state_name(k->state), (long long)k->lag,
                   (long long)k->deadline_rel, k->eligible ? "yes" : "no");
    }
    top_model_close(m);
    return 0;
}
