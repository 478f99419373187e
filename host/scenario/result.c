/*
 * What an engine measured, and the table's metrics from it (contract in
 * scenario.h). Every engine fills struct scn_result the same way, so the
 * experiment table, the CSV and the database never ask which engine ran.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

void scn_samples_add(struct scn_samples *s, uint64_t ns)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        uint64_t *v = realloc(s->v, cap * sizeof *v); /* not xrealloc: a sample without room is counted, dropped */
        if (!v) {
            s->dropped++;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = ns;
}

void scn_samples_free(struct scn_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void scn_stats_add_task(struct scn_stats *line, const struct scn_stats *task)
{
    line->ntasks++;
    line->window_ns = task->window_ns;
    line->runtime_ns += task->runtime_ns;
    line->missed += task->missed;
    line->iters += task->iters;
    line->vcsw += task->vcsw;
    line->ivcsw += task->ivcsw;
    line->reads += task->reads;
}

void scn_stats_lateness(struct scn_stats *st, uint64_t *v, size_t n, uint64_t stall_ns)
{
    static const unsigned per_mille[4] = { 500, 900, 990, 999 };

    if (n)
        qsort(v, n, sizeof *v, cmp_u64);
    for (int k = 0; k < 4; k++)
        st->late[k] = n ? v[scn_rank(n, per_mille[k])] : 0;
    st->late[4] = n ? v[n - 1] : 0;
    st->stalls = 0;
    for (size_t i = 0; i < n; i++)
        st->stalls += v[i] > stall_ns;
}

double scn_metric_value(const struct scenario *s, const struct scn_result *r, int t, enum scn_metric m)
{
    const struct scn_stats *g = &r->line[t];
    double share = 0, work = 0, handoffs = 0;
    unsigned n = 0;

    for (unsigned i = 0; i < r->ntasks; i++) {
        const struct scn_stats *st = &r->task[i].st;
        if (r->task[i].task != t || !st->window_ns)
            continue;
        share += (double)st->runtime_ns / (double)st->window_ns;
        work += (double)st->iters * 1e9 / (double)st->window_ns;
        handoffs += (double)st->reads * 1e9 / (double)st->window_ns;
        n++;
    }
    switch (m) {
    case SCN_M_WAKEUPS:
        return (double)g->wakeups;
    case SCN_M_MISSED:
        return (double)g->missed;
    case SCN_M_STALL:
        return g->wakeups > g->dropped ? (double)g->stalls / (double)(g->wakeups - g->dropped) : NAN;
    case SCN_M_MISSED_SHARE:
    case SCN_M_STALL_GRID: {
        /* Over the targets whose fate is known: slept for (the lateness
         * kept), or missed. Counts as the stall share reads them: an
         * engine's answer with more drops than wakeups says nothing. */
        if (g->dropped > g->wakeups)
            return NAN;
        double targets = (double)(g->wakeups - g->dropped) + (double)g->missed;
        double late = (double)g->missed + (m == SCN_M_STALL_GRID ? (double)g->stalls : 0);
        return targets > 0 ? late / targets : NAN;
    }
    case SCN_M_LATE_P50:
    case SCN_M_LATE_P90:
    case SCN_M_LATE_P99:
    case SCN_M_LATE_P999:
    case SCN_M_LATE_MAX:
        return g->wakeups > g->dropped ? (double)g->late[m - SCN_M_LATE_P50] : NAN;
    case SCN_M_SHARE:
        return n ? share / n : NAN;
    case SCN_M_ASKED:
        return (double)scn_asked_ppm(&s->tasks[t]) / 1e6;
    case SCN_M_WORK:
        return n && r->has_iters ? work / n : NAN;
    case SCN_M_VCSW:
        return (double)g->vcsw;
    case SCN_M_IVCSW:
        return (double)g->ivcsw;
    case SCN_M_INVOL:
        return g->vcsw + g->ivcsw ? (double)g->ivcsw / (double)(g->vcsw + g->ivcsw) : NAN;
    case SCN_M_HANDOFFS:
        return handoffs;
    case SCN_NR_METRICS:
        break;
    }
    return NAN;
}
