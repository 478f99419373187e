/*
 * Random problems for `runq sim -s SEED` (contract in sim.h).
 *
 * The problems are meant to be solved by hand, so they stay small: a 1 ms
 * quantum, 16 to 24 quanta, 2 to 5 tasks, whole-millisecond slices and
 * patterns. One in five is round robin; one in four EEVDF problems turns
 * RUN_TO_PARITY off.
 *
 * The numbers come from xorshift64* seeded through splitmix64 (rng.h),
 * so a seed names the same problem on every machine and libc.
 * Changing the order of the draws below changes every problem: don't,
 * without updating the examples in docs/sim.md.
 */
#include <string.h>

#include "rng.h"
#include "sim.h"

#define MS 1000000ull

/* Uniform enough in [0, n) for n this small. */
static unsigned rng_below(uint64_t *r, unsigned n)
{
    return (unsigned)((sim_xorshift64star(r) >> 32) % n);
}

void sim_generate(uint64_t seed, struct scenario *w)
{
    static const int nices[] = { 0, 0, 0, 0, -3, -1, 1, 3, 5 };
    uint64_t r = sim_splitmix64(seed);
    bool rr;

    if (r == 0) /* xorshift's one fixed point */
        r = 1;
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
