/*
 * Random single-CPU workloads for the differential test
 * (tests/policy/linux_diff.sh): only what `runq sim` accepts (docs/sim.md), so
 * both sides read the same file. Yields come from a second stream, so the
 * rest of each seed's workload is what it was before `yield` existed. The
 * same seed gives the same workload everywhere: the draws are runq sim's
 * generator's stream (host/engine/sim/rng.h), a random stream and no
 * scheduling rule, so sharing it leaves the reference's decisions its own.
 */
#include <string.h>

#include "host/engine/sim/rng.h"
#include "linux_ref.h"

/* 0..n-1 */
static unsigned lref_below(uint64_t *r, unsigned n)
{
    return (unsigned)(sim_xorshift64star(r) % n);
}

static bool lref_chance(uint64_t *r, unsigned percent)
{
    return lref_below(r, 100) < percent;
}

static void gen_pattern(uint64_t *r, uint64_t q, struct lref_task_spec *t)
{
    unsigned pairs = 1 + lref_below(r, 3);

    if (lref_chance(r, 35))
        return; /* a spinner */
    for (unsigned k = 0; k < pairs; k++) {
        t->segs[t->nsegs].kind = LREF_SEG_RUN;
        t->segs[t->nsegs++].ns = q * (1 + lref_below(r, 6));
        t->segs[t->nsegs].kind = LREF_SEG_SLEEP;
        t->segs[t->nsegs++].ns = q * (1 + lref_below(r, 8));
    }
    if (lref_chance(r, 10)) {
        t->segs[t->nsegs].kind = LREF_SEG_RUN;
        t->segs[t->nsegs++].ns = q * (1 + lref_below(r, 4));
        t->segs[t->nsegs++].kind = LREF_SEG_EXIT;
    }
}

/* Some run steps are followed by a yield; some spinners yield after every
 * few quanta. */
static void add_yields(uint64_t *r, uint64_t q, struct lref_task_spec *t)
{
    struct lref_seg out[LREF_MAX_SEGS];
    int n = 0;

    if (t->nsegs == 0) {
        if (lref_chance(r, 15)) {
            t->segs[0] = (struct lref_seg){ LREF_SEG_RUN, q * (1 + lref_below(r, 4)) };
            t->segs[1] = (struct lref_seg){ LREF_SEG_YIELD, 0 };
            t->nsegs = 2;
        }
        return;
    }
    for (int k = 0; k < t->nsegs; k++) {
        out[n++] = t->segs[k];
        if (t->segs[k].kind == LREF_SEG_RUN && n < LREF_MAX_SEGS - 1 && lref_chance(r, 15))
            out[n++] = (struct lref_seg){ LREF_SEG_YIELD, 0 };
    }
    memcpy(t->segs, out, sizeof out[0] * (size_t)n);
    t->nsegs = n;
}

void lref_generate(uint64_t seed, bool switches, bool yields, struct lref_workload *w)
{
    static const uint64_t quanta[] = { 100000, 250000, 500000, 800000, 1000000 };
    static const unsigned cpus[] = { 1, 2, 4, 8 };
    static const unsigned ticks[] = { 1, 1, 1, 2, 3, 4 };
    uint64_t r = sim_splitmix64(seed) | 1, ry = (r * 0x9e3779b97f4a7c15ull) | 1;
    uint64_t q;

    lref_workload_init(w);
    q = quanta[lref_below(&r, 5)];
    w->cpus = cpus[lref_below(&r, 4)];
    w->quantum_ns = q;
    w->tick_ns = q * ticks[lref_below(&r, 6)];
    w->run_ns = q * (40 + lref_below(&r, 41));
    if (switches)
        for (int f = 0; f < LREF_NR_FEATURES; f++)
            w->feature[f] = (int8_t)lref_below(&r, 2);
    w->ntasks = 2 + (int)lref_below(&r, 4);
    for (int i = 0; i < w->ntasks; i++) {
        struct lref_task_spec *t = &w->tasks[i];

        memset(t, 0, sizeof *t);
        t->name[0] = (char)('A' + i);
        t->nice = lref_chance(&r, 15) ? (int)lref_below(&r, 40) - 20 : (int)lref_below(&r, 11) - 5;
        if (lref_chance(&r, 50))
            t->slice_ns = 100000ull * (1 + lref_below(&r, 60)); /* 0.1 .. 6 ms */
        if (lref_chance(&r, 40))
            t->arrive_ns = q * lref_below(&r, 12);
        gen_pattern(&r, q, t);
        if (yields)
            add_yields(&ry, q, t);
    }
}
