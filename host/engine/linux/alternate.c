/*
 * The recorder measured against itself in one run (runner.h, "alternate"):
 * the conductor turns the engine's recorder off and on every period, and
 * each task line's wake lateness and iterations are kept apart by the
 * state they fell in. A with/without pair of whole runs on a shared host
 * moves by tens of percent between runs (the host's own speed drifts);
 * windows a quarter of a second long, interleaved, see the same drift on
 * both sides, so the ratio is the recorder's.
 *
 * A toggle is not instant (attaching a BPF program takes milliseconds):
 * the time between asking and being told is in neither state, and a
 * sample or an iteration that falls in it is not counted.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host/engine/linux/runner.h"

/* An edge: asked at t0, done at t1, the recorder `on` after it; each
 * instance's iterations read at t0 and at t1. */
struct lx_edge {
    uint64_t t0, t1;
    bool on;
    uint64_t *iters0, *iters1;
};

struct lx_alt {
    uint64_t period, next;
    bool on, broken;
    unsigned n, cap;
    struct lx_edge *e;
};

static void read_iters(const struct lx_run *run, uint64_t *out)
{
    for (unsigned i = 0; i < run->n; i++)
        out[i] = lx_get(&run->k[i].iters);
}

bool lx_alt_start(struct lx_run *run)
{
    const struct linux_run_opts *o = run->o;
    if (!o || !o->alternate || !o->alternate_ns)
        return true;
    struct lx_alt *a = calloc(1, sizeof *a); /* not xcalloc: the A/B is an extra; without it the run goes on, said */
    if (!a)
        return false;
    a->period = o->alternate_ns;
    a->on = true; /* the recorder started at the start line */
    a->next = run->t_start + a->period;
    run->alt = a;
    return true;
}

uint64_t lx_alt_step(struct lx_run *run, uint64_t now, uint64_t until)
{
    struct lx_alt *a = run->alt;
    if (!a || a->broken)
        return until;
    if (now >= a->next) {
        if (a->n == a->cap) {
            unsigned cap = a->cap ? 2 * a->cap : 64;
            struct lx_edge *p = realloc(a->e, cap * sizeof *p); /* not xrealloc: the run goes on, said */
            if (!p) {
                a->broken = true;
                lx_note(run, "recorder A/B: out of memory; the run goes on with the recorder as it is");
                return until;
            }
            a->e = p;
            a->cap = cap;
        }
        struct lx_edge *e = &a->e[a->n];
        /* not xcalloc: the run goes on without the A/B, said */
        e->iters0 = calloc(run->n ? run->n : 1, sizeof *e->iters0);
        e->iters1 = calloc(run->n ? run->n : 1, sizeof *e->iters1);
        if (!e->iters0 || !e->iters1) {
            free(e->iters0);
            free(e->iters1);
            a->broken = true;
            lx_note(run, "recorder A/B: out of memory; the run goes on with the recorder as it is");
            return until;
        }
        e->on = !a->on;
        read_iters(run, e->iters0);
        e->t0 = mono_ns();
        char why[256] = "";
        int rc = run->o->alternate(run->o->ctx, e->on, why, sizeof why);
        e->t1 = mono_ns();
        read_iters(run, e->iters1);
        if (rc != 0) {
            free(e->iters0);
            free(e->iters1);
            a->broken = true;
            lx_note(run, "recorder A/B: %s; no A/B figures for this run", why);
            return until;
        }
        a->on = e->on;
        a->n++;
        a->next = e->t1 + a->period;
    }
    return a->next < until ? a->next : until;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The state at time t: 1 on, 0 off, -1 in a toggle or before the first
 * edge (the first window is the warm-up, and has no iteration reading
 * at its start). */
static int state_at(const struct lx_alt *a, uint64_t t, uint64_t t_end)
{
    if (a->n == 0 || t < a->e[0].t1 || t > t_end)
        return -1;
    unsigned lo = 0, hi = a->n; /* the last edge with t1 <= t */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (a->e[mid].t1 <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (lo + 1 < a->n && t >= a->e[lo + 1].t0)
        return -1;
    return a->e[lo].on;
}

/* Per task line: the p50 of the wake lateness in each state, and the
 * iterations a second in each state, on o->notes. Before lx_fill_result,
 * which keeps the samples' lateness only. */
void lx_alt_report(struct lx_run *run, uint64_t t_end)
{
    struct lx_alt *a = run->alt;
    if (!a)
        return;
    if (a->broken || a->n < 2) {
        if (!a->broken)
            lx_note(run, "recorder A/B: the run was too short for two toggles (%u); no A/B figures", a->n);
        return;
    }
    /* The time in each state, and each instance's iterations in it. */
    uint64_t ns[2] = { 0, 0 };
    /* not xcalloc: the run is over and measured; only the A/B figures are lost, said */
    uint64_t *it[2] = { calloc(run->n ? run->n : 1, sizeof(uint64_t)), calloc(run->n ? run->n : 1, sizeof(uint64_t)) };
    if (!it[0] || !it[1]) {
        lx_note(run, "recorder A/B: out of memory; no A/B figures");
        free(it[0]);
        free(it[1]);
        return;
    }
    for (unsigned k = 0; k < a->n; k++) {
        const struct lx_edge *e = &a->e[k];
        uint64_t end = k + 1 < a->n ? a->e[k + 1].t0 : t_end;
        if (end <= e->t1)
            continue;
        ns[e->on] += end - e->t1;
        for (unsigned i = 0; i < run->n; i++) {
            uint64_t at_end = k + 1 < a->n ? a->e[k + 1].iters0[i] : run->k[i].iters_end;
            it[e->on][i] += at_end - e->iters1[i];
        }
    }
    lx_note(run, "recorder A/B in one run: %u toggles, %.0f ms with it, %.0f ms without, %.0f ms each way",
            a->n, ns[1] / 1e6, ns[0] / 1e6, a->period / 1e6);
    const struct scenario *s = run->s;
    for (int line = 0; line < s->ntasks; line++) {
        size_t cap = 0;
        uint64_t iters[2] = { 0, 0 };
        for (unsigned i = 0; i < run->n; i++)
            if (run->k[i].t == &s->tasks[line]) {
                cap += run->k[i].n;
                iters[0] += it[0][i];
                iters[1] += it[1][i];
            }
        /* not xmalloc: only this line's A/B wake figures are lost, said */
        uint64_t *v[2] = { malloc((cap ? cap : 1) * sizeof(uint64_t)), malloc((cap ? cap : 1) * sizeof(uint64_t)) };
        size_t nv[2] = { 0, 0 };
        if (!v[0] || !v[1]) {
            free(v[0]);
            free(v[1]);
            lx_note(run, "recorder A/B: out of memory; no A/B figures for %s", s->tasks[line].name);
            continue;
        }
        for (unsigned i = 0; i < run->n; i++)
            if (run->k[i].t == &s->tasks[line])
                for (size_t j = 0; j < run->k[i].n; j++) {
                    int st = state_at(a, run->k[i].samples[j].at, t_end);
                    if (st >= 0)
                        v[st][nv[st]++] = run->k[i].samples[j].late;
                }
        const char *name = s->tasks[line].name;
        if (nv[0] >= 20 && nv[1] >= 20) {
            qsort(v[0], nv[0], sizeof *v[0], cmp_u64);
            qsort(v[1], nv[1], sizeof *v[1], cmp_u64);
            uint64_t p1 = v[1][nv[1] / 2], p0 = v[0][nv[0] / 2];
            lx_note(run, "recorder A/B: %s wake p50 %" PRIu64 " ns with, %" PRIu64 " ns without (%.3f), %zu and %zu wakes",
                    name, p1, p0, p0 ? (double)p1 / (double)p0 : 0.0, nv[1], nv[0]);
        }
        if (iters[0] && iters[1] && ns[0] && ns[1]) {
            double r1 = iters[1] * 1e9 / (double)ns[1], r0 = iters[0] * 1e9 / (double)ns[0];
            lx_note(run, "recorder A/B: %s iterations %.4g a second with, %.4g without (%.3f)", name, r1, r0,
                    r1 / r0);
        }
        free(v[0]);
        free(v[1]);
    }
    free(it[0]);
    free(it[1]);
}

void lx_alt_free(struct lx_run *run)
{
    struct lx_alt *a = run->alt;
    if (!a)
        return;
    for (unsigned k = 0; k < a->n; k++) {
        free(a->e[k].iters0);
        free(a->e[k].iters1);
    }
    free(a->e);
    free(a);
    run->alt = NULL;
}
