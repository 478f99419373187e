/*
 * Random problems for `runq sim -s SEED` (contract in sim.h).
 *
 * The problems are meant to be solved by hand, so they stay small: a 1 ms
 * quantum, 16 to 24 quanta, 2 to 5 tasks, whole-millisecond slices and
 * patterns. One in five is round robin; one in four EEVDF problems turns
 * RUN_TO_PARITY off.
 *
 * The numbers come from xorshift64* seeded through splitmix64, both fully
 * specified, so a seed names the same problem on every machine and libc.
 * Changing the order of the draws below changes every problem: don't,
 * without updating the examples in docs/sim.md.
 */
#include <string.h>

#include "sim.h"

#define MS 1000000ull

struct sim_rng {
    uint64_t s;
};

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t rng_next(struct sim_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

/* Uniform enough in [0, n) for n this small. */
static unsigned rng_below(struct sim_rng *r, unsigned n)
{
    return (unsigned)((rng_next(r) >> 32) % n);
}

void sim_generate(uint64_t seed, struct scenario *w)
{
    static const int nices[] = { 0, 0, 0, 0, -3, -1, 1, 3, 5 };
    struct sim_rng r = { splitmix64(seed) };
    bool rr;

    if (r.s == 0) /* xorshift's one fixed point */
        r.s = 1;
    scn_init(w);
    rr = rng_below(&r, 5) == 0;
    strcpy(w->policy, rr ? "rr" : "eevdf");
    w->quantum_ns = MS;
    w->run_ns = (16 + rng_below(&r, 9)) * MS;
    if (!rr && rng_below(&r, 4) == 0)
        scn_set_feature(w, "RUN_TO_PARITY", false);
    w->ntasks = 2 + (int)rng_below(&r, 4);
    for (int i = 0; i < w->ntasks; i++) {
        struct scn_task *t = &w->tasks[i];
        unsigned slice = rng_below(&r, 5); /* 0: the default */
        int nice = nices[rng_below(&r, sizeof nices / sizeof nices[0])];

        memset(t, 0, sizeof *t);
        t->name[0] = (char)('A' + i);
        t->count = 1;
        if (!rr) {
            t->nice = nice;
            t->slice_ns = slice * MS;
        }
        if (i > 0 && rng_below(&r, 3) == 0)
            t->arrive_ns = (1 + rng_below(&r, 4)) * MS;
        if (rng_below(&r, 2)) {
            t->nsteps = 2;
            t->steps[0] = (struct scn_step){ .kind = SCN_RUN, .ns = (1 + rng_below(&r, 4)) * MS };
            t->steps[1] = (struct scn_step){ .kind = SCN_SLEEP, .ns = (1 + rng_below(&r, 4)) * MS };
        }
    }
}
