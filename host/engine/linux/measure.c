/*
 * What a run measured (runner.h has the contract): the probe's own cost
 * before it, every thread's counters at t_end, and the result in the form
 * every engine gives (struct scn_result), a line's lateness over all its
 * tasks' samples (scn_stats_lateness, every engine's rule).
 */
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "host/engine/linux/runner.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The cost of one look at the thread's CPU clock: consecutive reads differ
 * by what a read costs; the median of many. */
uint64_t lx_measure_check_ns(void)
{
    static uint64_t d[LX_CHECK_READS];
    uint64_t last = lx_thread_cpu_ns();
    for (int i = 0; i < LX_CHECK_READS; i++) {
        uint64_t t = lx_thread_cpu_ns();
        d[i] = t - last;
        last = t;
    }
    qsort(d, LX_CHECK_READS, sizeof d[0], cmp_u64);
    return d[LX_CHECK_READS / 2];
}

/* voluntary_ctxt_switches and nonvoluntary_ctxt_switches of a live
 * thread; false if it is gone. */
static bool proc_switches(pid_t tid, uint64_t *vcsw, uint64_t *ivcsw)
{
    char path[64], line[128];
    int found = 0;
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    while (fgets(line, sizeof line, f))
        found += sscanf(line, "voluntary_ctxt_switches: %" SCNu64, vcsw) == 1 ||
                 sscanf(line, "nonvoluntary_ctxt_switches: %" SCNu64, ivcsw) == 1;
    fclose(f);
    return found == 2;
}

/* Every thread's counters as at t_end: its CPU clock first (the fastest
 * read, so all are close to t_end), then its switches. A thread that has
 * ended left its own last values. */
void lx_read_at_end(struct lx_run *run)
{
    /* The counters first, all in one pass: a pair handing off every few
     * us would otherwise differ by the handoffs between two reads. */
    for (unsigned i = 0; i < run->n; i++) {
        struct lx_thread *k = &run->k[i];
        k->reads_end = lx_get(&k->reads);
        k->iters_end = lx_get(&k->iters);
        k->missed_end = lx_get(&k->missed);
        k->dropped_end = lx_get(&k->dropped);
    }
    for (unsigned i = 0; i < run->n; i++) {
        struct lx_thread *k = &run->k[i];
        clockid_t cid;
        struct timespec ts;
        if (!k->created || !__atomic_load_n(&k->arrived, __ATOMIC_ACQUIRE))
            continue;
        if (!__atomic_load_n(&k->exited, __ATOMIC_ACQUIRE) && pthread_getcpuclockid(k->th, &cid) == 0 &&
            clock_gettime(cid, &ts) == 0)
            k->cpu_end = lx_ts_ns(&ts);
        else
            k->cpu_end = UINT64_MAX; /* from its last values, below */
    }
    for (unsigned i = 0; i < run->n; i++) {
        struct lx_thread *k = &run->k[i];
        if (!k->created || !__atomic_load_n(&k->arrived, __ATOMIC_ACQUIRE))
            continue;
        bool live = k->cpu_end != UINT64_MAX && proc_switches(k->tid, &k->vcsw_end, &k->ivcsw_end);
        if (!live) {
            /* Gone (or going): it left its values before it went. A
             * /proc read that failed for another reason would wait here
             * for nothing: a second at most, then no switches counted. */
            uint64_t give_up = mono_ns() + 1000000000ull;
            while (!__atomic_load_n(&k->exited, __ATOMIC_ACQUIRE) && mono_ns() < give_up)
                sched_yield();
            if (__atomic_load_n(&k->exited, __ATOMIC_ACQUIRE)) {
                k->cpu_end = k->cpu_last;
                k->vcsw_end = k->vcsw_last;
                k->ivcsw_end = k->ivcsw_last;
            } else {
                k->cpu_end = k->cpu_end == UINT64_MAX ? k->cpu0 : k->cpu_end;
                k->vcsw_end = k->vcsw0;
                k->ivcsw_end = k->ivcsw0;
                snprintf(k->error, sizeof k->error, "cannot read /proc/self/task/%d/status", (int)k->tid);
            }
        }
    }
}

/* The threads' measurements into r: each thread's, and each line's as its
 * threads' together (lateness over all their samples). */
void lx_fill_result(struct lx_run *run, uint64_t t_end, struct scn_result *r, const struct linux_run_info *info)
{
    const struct scenario *s = run->s;
    memset(r, 0, sizeof *r);
    strcpy(r->engine, "linux");
    r->has_iters = true;
    r->ntasks = run->n;
    for (unsigned i = 0; i < run->n; i++) {
        struct lx_thread *k = &run->k[i];
        struct scn_task_result *tr = &r->task[i];
        struct scn_stats *st = &tr->st;
        tr->task = scn_instance(s, i, &tr->index);
        scn_instance_name(s, i, tr->name, sizeof tr->name);
        tr->tid = -1; /* none: it never arrived within the window */
        tr->cpu = info->thread[i].cpu;
        st->ntasks = 1;
        /* Samples after t_end are not the window's. */
        size_t kept = 0;
        for (size_t j = 0; j < k->n; j++)
            if (k->samples[j].at <= t_end)
                k->samples[kept++].late = k->samples[j].late;
        k->n = kept;
        if (k->created && __atomic_load_n(&k->arrived, __ATOMIC_ACQUIRE) && k->started <= t_end) {
            tr->tid = k->tid;
            tr->cpu = k->start_cpu >= 0 ? k->start_cpu : tr->cpu;
            st->window_ns = t_end - k->started;
            st->runtime_ns = k->cpu_end > k->cpu0 ? k->cpu_end - k->cpu0 : 0;
            st->vcsw = k->vcsw_end - k->vcsw0;
            st->ivcsw = k->ivcsw_end - k->ivcsw0;
            st->iters = k->iters_end;
            st->reads = k->reads_end;
            st->missed = k->missed_end;
            st->dropped = k->dropped_end;
            st->wakeups = kept + st->dropped;
        }
        struct scn_stats *g = &r->line[tr->task];
        scn_stats_add_task(g, st);
        g->wakeups += st->wakeups;
        g->dropped += st->dropped;
    }
    /* Each line's samples together, then each thread's (sorting in place). */
    for (int line = 0; line < s->ntasks; line++) {
        struct scn_samples all = { 0 };
        for (unsigned i = 0; i < run->n; i++)
            if (r->task[i].task == line)
                for (size_t j = 0; j < run->k[i].n; j++)
                    scn_samples_add(&all, run->k[i].samples[j].late);
        r->line[line].dropped += all.dropped;
        scn_stats_lateness(&r->line[line], all.v, all.n, s->stall_ns);
        scn_samples_free(&all);
    }
    for (unsigned i = 0; i < run->n; i++) {
        /* not xmalloc: without room its samples are counted as dropped */
        uint64_t *v = malloc((run->k[i].n ? run->k[i].n : 1) * sizeof *v);
        size_t n = 0;
        if (v)
            for (; n < run->k[i].n; n++)
                v[n] = run->k[i].samples[n].late;
        else
            r->task[i].st.dropped += run->k[i].n;
        scn_stats_lateness(&r->task[i].st, v, n, s->stall_ns);
        free(v);
    }
}

/* How many lateness samples instance k may make in the run: a wakeup at
 * most every shortest sleep or period of its pattern. */
size_t lx_samples_wanted(const struct scenario *s, const struct scn_task *t)
{
    uint64_t shortest = 0;
    for (int i = 0; i < t->nsteps; i++) {
        const struct scn_step *st = &t->steps[i];
        uint64_t ns = st->kind == SCN_SLEEP || st->kind == SCN_EVERY ? st->ns - st->ns * st->jitter_permille / 1000
                                                                      : 0;
        if (ns && (!shortest || ns < shortest))
            shortest = ns;
    }
    return shortest ? (size_t)(s->run_ns / shortest + 16) : 0;
}
