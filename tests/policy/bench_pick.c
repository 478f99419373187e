/*
 * How the EEVDF pick's cost grows with the number of runnable entities.
 *
 * For 2, 16, 128 and 1024 entities (random nice -10..10, random slices or
 * the default) on one queue, charged for a while so their vruntimes and
 * deadlines spread out, it times two picks among the same entities:
 *
 *   fast  eevdf_policy.pick: the walk down the augmented tree, O(log n);
 *   ref   eevdf_pick_reference: V and every eligibility from scratch, O(n).
 *
 * Each repetition moves the queue on a few decisions, puts the current
 * entity back (so the pick chooses among all n, none protected), checks
 * that the two picks agree, and times each over enough calls to take at
 * least a millisecond. The table shows the median of the repetitions:
 * ns per pick and entities touched. The fast pick reports q->touched; the
 * reference keeps no counter, and visits every entity twice (once to sum
 * V, once to choose), so its column is 2n.
 *
 * The last line compares the fast pick's growth from 16 to 1024 entities
 * with log2's (10/4 = 2.5), allowing a factor of 2 for caches and noise.
 * The exit status is 0 either way: timings on a shared machine are not a
 * test.
 *
 * Build (no sanitizers, optimised): make build/bench/bench_pick. It takes
 * a fraction of a second, so BENCH_SHORT (tests/benches_short.sh) changes
 * nothing here.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decide.h"
#include "eevdf.h"
#include "eevdf_features.h"
#include "host/base/clock.h"
#include "policy.h"
#include "tests/xorshift.h"

#define REPS 9
#define MIN_RUN_NS 1000000ull /* time each measurement at least this long */

static const struct sched_policy *P = &eevdf_policy;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* One decision in the core's order (decide.h). */
static void decide(struct sched_queue *q)
{
    struct sched_decision d;

    sched_decide(P, q, NULL, SCHED_LEAVE_BLOCK, &d);
}

/* Run current for a random 0.1..3 ms, then decide: the queue moves on. */
static void step(struct sched_queue *q)
{
    if (!q->curr)
        decide(q);
    P->charge(q, 100000 + xorshift64(&rng_state) % 2900000);
    decide(q);
}

static volatile uintptr_t sink; /* keeps the timed calls from being dropped */

/* ns per call of pick over at least MIN_RUN_NS, and q->touched after it. */
static double time_fast(struct sched_queue *q, unsigned *touched)
{
    for (uint64_t iters = 64;; iters *= 2) {
        uint64_t t0 = mono_ns(), t;
        uintptr_t acc = 0;

        for (uint64_t i = 0; i < iters; i++)
            acc += (uintptr_t)P->pick(q);
        t = mono_ns() - t0;
        sink = acc;
        if (t >= MIN_RUN_NS) {
            *touched = q->touched;
            return (double)t / (double)iters;
        }
    }
}

static double time_ref(struct sched_queue *q)
{
    for (uint64_t iters = 16;; iters *= 2) {
        uint64_t t0 = mono_ns(), t;
        uintptr_t acc = 0;

        for (uint64_t i = 0; i < iters; i++)
            acc += (uintptr_t)eevdf_pick_reference(q);
        t = mono_ns() - t0;
        sink = acc;
        if (t >= MIN_RUN_NS)
            return (double)t / (double)iters;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

struct result {
    unsigned n;
    double fast_ns, ref_ns, fast_touched;
    unsigned ref_touched;
};

static struct result bench(unsigned n)
{
    struct sched_params params = { 8, 1000000 };
    struct sched_queue q;
    struct sched_entity *se = calloc(n, sizeof *se);
    double fast[REPS], ref[REPS], touched[REPS];
    struct result r = { .n = n, .ref_touched = 2 * n };

    if (!se) {
        fprintf(stderr, "bench_pick: out of memory\n");
        exit(1);
    }
    sched_queue_init(P, &q, &params);
    for (unsigned i = 0; i < n; i++) {
        static const uint64_t slices[] = { 0, 0, 100000, 700000, 1000000, 3000000, 10000000 };

        se[i].id = (int)i;
        se[i].nice = (int)(xorshift64(&rng_state) % 21) - 10;
        se[i].slice_ns = slices[xorshift64(&rng_state) % (sizeof slices / sizeof slices[0])];
        P->init_entity(&q, &se[i]);
        P->join(&q, &se[i], SCHED_JOIN_NEW);
    }
    /* Warm up: everyone runs a few times, so vruntimes and deadlines differ. */
    for (unsigned i = 0; i < 4 * n + 1000; i++)
        step(&q);
    eevdf_check(&q);

    for (int k = 0; k < REPS; k++) {
        unsigned t;

        for (int i = 0; i < 16; i++)
            step(&q);
        if (q.curr)
            P->put_back(&q); /* choose among all n, nobody protected */
        if (eevdf_pick_fast(&q) != eevdf_pick_reference(&q)) {
            fprintf(stderr, "bench_pick: fast and reference picks disagree at n=%u\n", n);
            exit(1);
        }
        fast[k] = time_fast(&q, &t);
        touched[k] = t;
        ref[k] = time_ref(&q);
    }
    r.fast_ns = median(fast, REPS);
    r.ref_ns = median(ref, REPS);
    r.fast_touched = median(touched, REPS);
    free(se);
    return r;
}

static unsigned ilog2(unsigned n)
{
    unsigned l = 0;

    while (n >>= 1)
        l++;
    return l;
}

int main(void)
{
    static const unsigned sizes[] = { 2, 16, 128, 1024 };
    struct result res[4];
    double growth, log_growth;

    eevdf_features_reset();
    printf("%8s  %8s  %12s  %9s  %11s  %15s\n", "runnable", "fast_ns", "fast_touched", "ref_ns", "ref_touched",
           "fast_ns/log2(n)");
    for (int i = 0; i < 4; i++) {
        res[i] = bench(sizes[i]);
        printf("%8u  %8.1f  %12.0f  %9.1f  %11u  %15.1f\n", res[i].n, res[i].fast_ns, res[i].fast_touched,
               res[i].ref_ns, res[i].ref_touched, res[i].fast_ns / ilog2(res[i].n));
        fflush(stdout);
    }
    growth = res[3].fast_ns / res[1].fast_ns;
    log_growth = (double)ilog2(1024) / ilog2(16);
    printf("fast pick 16 -> 1024: x%.2f in ns against x%.2f in log2(n): %s O(log n) (slack x2)\n", growth, log_growth,
           growth <= 2 * log_growth ? "within" : "NOT within");
    return 0;
}
