#include "stats.h"

static unsigned bucket_of(u64 ns)
{
    u64 us = ns / 1000;
    unsigned b = 0;
    while (us && b < WAIT_BUCKETS - 1) {
        us >>= 1;
        b++;
    }
    return b;
}

void stats_record_wait(struct wait_hist *h, u64 ns)
{
    unsigned b = bucket_of(ns);
    WRITE_ONCE(h->bucket[b], h->bucket[b] + 1);
    WRITE_ONCE(h->n, h->n + 1);
    WRITE_ONCE(h->sum_ns, h->sum_ns + ns);
    if (ns > h->max_ns)
        WRITE_ONCE(h->max_ns, ns);
}

void stats_record_decision(struct sched_stats *s, u64 ns, unsigned touched)
{
    WRITE_ONCE(s->decisions, s->decisions + 1);
    WRITE_ONCE(s->decision_ns, s->decision_ns + ns);
    WRITE_ONCE(s->touched, s->touched + touched);
    if (ns > s->decision_max_ns)
        WRITE_ONCE(s->decision_max_ns, ns);
}

void stats_record_tick(struct sched_stats *s, unsigned runnable)
{
    unsigned b = runnable < RUNNABLE_BUCKETS ? runnable : RUNNABLE_BUCKETS - 1;
    WRITE_ONCE(s->ticks, s->ticks + 1);
    WRITE_ONCE(s->tick_runnable, s->tick_runnable + runnable);
    WRITE_ONCE(s->tick_runnable_hist[b], s->tick_runnable_hist[b] + 1);
}

static void hist_copy(const struct wait_hist *h, struct wait_hist *o)
{
    o->n = READ_ONCE(h->n);
    o->sum_ns = READ_ONCE(h->sum_ns);
    o->max_ns = READ_ONCE(h->max_ns);
    for (int i = 0; i < WAIT_BUCKETS; i++)
        o->bucket[i] = READ_ONCE(h->bucket[i]);
}

void stats_snapshot(const struct sched_stats *s, struct sched_stats *out)
{
    hist_copy(&s->wake, &out->wake);
    hist_copy(&s->displaced, &out->displaced);
    out->decisions = READ_ONCE(s->decisions);
    out->decision_ns = READ_ONCE(s->decision_ns);
    out->decision_max_ns = READ_ONCE(s->decision_max_ns);
    out->touched = READ_ONCE(s->touched);
    out->switches = READ_ONCE(s->switches);
    out->idle_ns = READ_ONCE(s->idle_ns);
    out->busy_ns = READ_ONCE(s->busy_ns);
    out->ticks = READ_ONCE(s->ticks);
    out->tick_runnable = READ_ONCE(s->tick_runnable);
    for (int i = 0; i < RUNNABLE_BUCKETS; i++)
        out->tick_runnable_hist[i] = READ_ONCE(s->tick_runnable_hist[i]);
    out->releases_rt = READ_ONCE(s->releases_rt);
    out->rt_ns = READ_ONCE(s->rt_ns);
    out->rt_throttled = READ_ONCE(s->rt_throttled);
    out->migrations = READ_ONCE(s->migrations);
}

static void hist_diff(const struct wait_hist *a, const struct wait_hist *b, struct wait_hist *o)
{
    o->n = a->n - b->n;
    o->sum_ns = a->sum_ns - b->sum_ns;
    o->max_ns = a->max_ns; /* a maximum cannot be windowed; it is since boot */
    for (int i = 0; i < WAIT_BUCKETS; i++)
        o->bucket[i] = a->bucket[i] - b->bucket[i];
}

void stats_diff(const struct sched_stats *a, const struct sched_stats *b, struct sched_stats *out)
{
    hist_diff(&a->wake, &b->wake, &out->wake);
    hist_diff(&a->displaced, &b->displaced, &out->displaced);
    out->decisions = a->decisions - b->decisions;
    out->decision_ns = a->decision_ns - b->decision_ns;
    out->decision_max_ns = a->decision_max_ns;
    out->touched = a->touched - b->touched;
    out->switches = a->switches - b->switches;
    out->idle_ns = a->idle_ns - b->idle_ns;
    out->busy_ns = a->busy_ns - b->busy_ns;
    out->ticks = a->ticks - b->ticks;
    out->tick_runnable = a->tick_runnable - b->tick_runnable;
    for (int i = 0; i < RUNNABLE_BUCKETS; i++)
        out->tick_runnable_hist[i] = a->tick_runnable_hist[i] - b->tick_runnable_hist[i];
    out->releases_rt = a->releases_rt - b->releases_rt;
    out->rt_ns = a->rt_ns - b->rt_ns;
    out->rt_throttled = a->rt_throttled - b->rt_throttled;
    out->migrations = a->migrations - b->migrations;
}

u64 stats_percentile_us(const struct wait_hist *h, unsigned permille)
{
    if (!h->n)
        return 0;
    u64 want = (h->n * permille + 999) / 1000, seen = 0;
    if (!want)
        want = 1;
    for (int b = 0; b < WAIT_BUCKETS; b++) {
        seen += h->bucket[b];
        if (seen >= want)
            return 1ull << b;
    }
    return 1ull << (WAIT_BUCKETS - 1);
}
