/*
 * The scenario interpreter (scn.h; the lines and the answer are
 * trace/scenario.h's). In the order a run goes:
 *
 *   1. `scn reset`, `scn task`, `scn step` build the scenario: task lines
 *      with their steps, checked here (the host checked them too, but what
 *      reaches the kernel is not trusted to be the host's).
 *   2. `scn start RUN SEED STALL`: the shell task creates each task line's
 *      tasks when its arrival comes, fair with its nice and slice or RT at
 *      its priority, each on a CPU of its line's set in turn and allowed
 *      the whole set (task_set_allowed: it may move within it), then
 *      sleeps out the run.
 *   3. Each task runs its pattern: run steps spin until its CPU time has
 *      grown by the step's time, counting loop rounds (work); sleep steps
 *      sleep; every steps sleep until the next periodic target, drawn as
 *      every engine draws it (scn_draw_period). After each sleep it keeps
 *      its lateness: when the core picked it after the wakeup
 *      (woken_run_ts, the pick's own clock) less when the sleep should have
 *      ended. Each task writes only its own counters.
 *   4. At the end the shell reads each task's CPU time and switch counts
 *      (runtime is charged by its home CPU; a read of an aligned u64 is
 *      whole), stops the tasks, wakes the sleepers, waits for all to exit,
 *      and prints one line per task and per task line.
 *
 * Lateness samples live in one arena, allocated at the first run and used
 * again by every later one (the kernel's allocator never frees): each task
 * gets an equal part, and a sample that finds its part full is counted in
 * dropped, never lost silently.
 */
#include "scn.h"
#include "../../trace/scenario.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../lib/alloc.h"
#include "../lib/printf.h"
#include "../lib/string.h"
#include "../trace/trace.h"
#include "cpus.h"
#include "pipe.h"
#include "rt.h"
#include "sched.h"

#define SCN_ARENA_SAMPLES (2u << 20) /* 16 MiB of u64 */
#define SCN_EXIT_TIMEOUT_NS (5 * NSEC_PER_SEC)
/* A run step's loop looks at its CPU time and at stop once a round: 256
 * empty iterations and a pause (the pause lets other vCPUs on, see
 * sched/probe.c). */
#define SCN_ROUND 256
/* Every pipe's bytes together, in one buffer allocated once and used by
 * every later run. */
#define SCN_PIPE_ARENA (1u << 20)

struct scn_step {
    u8 kind; /* enum scn_prog_step */
    u64 ns;
    unsigned jitter;
    unsigned pipe, bytes; /* i, o */
};

/* A pipe line: copies pipes of size bytes; instance k uses copy k % copies. */
struct scn_pipe {
    unsigned copies, size;
    struct pipe *p; /* copies of them, in the pipe arena's header part */
};

struct scn_group {
    char name[SCN_PROG_NAME_MAX + 1];
    unsigned count;
    u64 cpumask;
    int nice;
    u64 slice_ns, arrive_ns;
    unsigned rt_prio;   /* 0: fair */
    unsigned rt_policy; /* RT_FIFO or RT_RR */
    int nsteps;
    struct scn_step steps[SCN_PROG_MAX_STEPS];
};

struct scn_task {
    struct task *t;
    const struct scn_group *g;
    unsigned group, instance;
    unsigned index; /* its place in its line: which copy of a pipe it uses */
    u64 rng, target;
    u64 *samples;
    u64 cap, n;
    u64 wakeups, missed, dropped, iters, reads;
    u64 created;
    /* read by the shell at the end, before the task is stopped */
    u64 runtime_ns, vcsw, ivcsw, window_ns, reads_at_end;
    unsigned cpu;
};

static struct {
    bool valid; /* built without error since the last reset */
    int ngroups;
    struct scn_group groups[SCN_PROG_MAX_GROUPS];
    int npipes;
    struct scn_pipe pipes[SCN_PROG_MAX_PIPES];
    u8 *pipe_arena;
    struct pipe *pipe_structs; /* SCN_PROG_MAX_PIPES x SCN_PROG_MAX_TASKS */
    unsigned ntasks;
    struct scn_task tasks[SCN_PROG_MAX_TASKS];
    u64 seed, stall_ns;
    volatile bool stop;
    int alive;
    u64 *arena;
} scn;

/* ---- parsing the lines ---- */

static bool parse_u64(const char *s, u64 *out)
{
    long v;
    if (!parse_long(s, &v) || v < 0 || s[0] == '-' || s[0] == '+')
        return false;
    *out = (u64)v;
    return true;
}

static bool parse_hex(const char *s, u64 *out)
{
    u64 v = 0;
    if (!*s || strlen(s) > 16)
        return false;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else
            return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

static bool fail(const char *why)
{
    kprintf("scn: %s\n", why);
    scn.valid = false;
    return false;
}

/* scn task NAME COUNT CPUMASK NICE SLICE_NS ARRIVE_NS [RT_PRIO RT_POLICY] */
static bool line_task(int argc, char **argv)
{
    static const char *const rt_policies[] = SCN_PROG_RT_POLICY_NAMES;
    u64 count, mask, slice, arrive, rt_prio = 0;
    unsigned rt_policy = RT_FIFO;
    long nice;
    if ((argc != 8 && argc != 10) || !parse_u64(argv[3], &count) || !parse_hex(argv[4], &mask) ||
        !parse_long(argv[5], &nice) || !parse_u64(argv[6], &slice) || !parse_u64(argv[7], &arrive))
        return fail("usage: scn task NAME COUNT CPUMASK NICE SLICE_NS ARRIVE_NS [RT_PRIO fifo|rr]");
    if (argc == 10) {
        if (!parse_u64(argv[8], &rt_prio) || rt_prio < 1 || rt_prio > SCN_PROG_RT_PRIO_MAX)
            return fail("an RT priority is 1..99");
        if (strcmp(argv[9], rt_policies[SCN_PROG_RT_RR]) == 0)
            rt_policy = RT_RR;
        else if (strcmp(argv[9], rt_policies[SCN_PROG_RT_FIFO]) != 0)
            return fail("an RT policy is fifo or rr");
        if (nice || slice)
            return fail("an RT task line has nice 0 and slice 0");
    }
    if (!scn.valid)
        return fail("scn task before scn reset, or after an error");
    if (scn.ngroups == SCN_PROG_MAX_GROUPS)
        return fail("too many task lines");
    if (strlen(argv[2]) > SCN_PROG_NAME_MAX || !argv[2][0])
        return fail("a task name is 1 to 8 characters");
    if (count < 1 || scn.ntasks + count > SCN_PROG_MAX_TASKS)
        return fail("too many tasks (at most 64 in all)");
    if (mask && (ncpus >= 64 ? false : (mask >> ncpus) != 0))
        return fail("a task line names a CPU this machine does not have");
    if (nice < -20 || nice > 19)
        return fail("nice is -20..19");
    struct scn_group *g = &scn.groups[scn.ngroups++];
    memset(g, 0, sizeof *g);
    strncpy_z(g->name, argv[2], sizeof g->name);
    g->count = (unsigned)count;
    g->cpumask = mask;
    g->nice = (int)nice;
    g->slice_ns = slice;
    g->arrive_ns = arrive;
    g->rt_prio = (unsigned)rt_prio;
    g->rt_policy = rt_policy;
    scn.ntasks += (unsigned)count;
    return true;
}

/* scn pipe NAME COPIES SIZE */
static bool line_pipe(int argc, char **argv)
{
    u64 copies, size;
    if (argc != 5 || !parse_u64(argv[3], &copies) || !parse_u64(argv[4], &size))
        return fail("usage: scn pipe NAME COPIES SIZE");
    if (!scn.valid || scn.ngroups)
        return fail("scn pipe comes after scn reset and before the task lines");
    if (scn.npipes == SCN_PROG_MAX_PIPES)
        return fail("too many pipes (at most 8)");
    if (copies < 1 || copies > SCN_PROG_MAX_TASKS || size < 1 || size > SCN_PROG_PIPE_MAX)
        return fail("a pipe has 1..64 copies of 1..65536 bytes");
    u64 used = 0;
    for (int i = 0; i < scn.npipes; i++)
        used += (u64)scn.pipes[i].copies * scn.pipes[i].size;
    if (used + copies * size > SCN_PIPE_ARENA)
        return fail("the pipes need more than 1 MiB in all");
    struct scn_pipe *sp = &scn.pipes[scn.npipes++];
    sp->copies = (unsigned)copies;
    sp->size = (unsigned)size;
    sp->p = NULL; /* set up at start */
    return true;
}

/* scn step STEP...: r:NS s:NS e:NS:JIT y x i:P:N o:P:N */
static bool line_step(int argc, char **argv)
{
    if (!scn.valid || !scn.ngroups)
        return fail("scn step needs a scn task before it");
    struct scn_group *g = &scn.groups[scn.ngroups - 1];
    for (int i = 2; i < argc; i++) {
        char *w = argv[i];
        const char *letters = SCN_PROG_STEP_LETTERS;
        int kind = -1;
        for (int k = 0; letters[k]; k++)
            if (w[0] == letters[k])
                kind = k;
        if (kind < 0 || g->nsteps == SCN_PROG_MAX_STEPS)
            return fail("a bad step, or more than 16");
        if (g->nsteps && g->steps[g->nsteps - 1].kind == SCN_PROG_EXIT)
            return fail("nothing may follow x");
        struct scn_step *s = &g->steps[g->nsteps];
        memset(s, 0, sizeof *s);
        s->kind = (u8)kind;
        if (kind == SCN_PROG_YIELD || kind == SCN_PROG_EXIT) {
            if (w[1])
                return fail("y and x take nothing");
        } else if (kind == SCN_PROG_READ || kind == SCN_PROG_WRITE) {
            char *num = w + 2, *n = NULL;
            for (char *c = num; *c; c++)
                if (*c == ':') {
                    *c = '\0';
                    n = c + 1;
                    break;
                }
            u64 pipe, bytes;
            if (w[1] != ':' || !n || !parse_u64(num, &pipe) || !parse_u64(n, &bytes) || pipe >= (u64)scn.npipes ||
                bytes < 1 || bytes > scn.pipes[pipe].size)
                return fail("i and o take :PIPE:BYTES, a declared pipe and at most its size");
            s->pipe = (unsigned)pipe;
            s->bytes = (unsigned)bytes;
        } else {
            if (w[1] != ':')
                return fail("r, s and e take :NS");
            char *num = w + 2, *jit = NULL;
            for (char *c = num; *c; c++)
                if (*c == ':') {
                    *c = '\0';
                    jit = c + 1;
                    break;
                }
            u64 j = 0;
            if (!parse_u64(num, &s->ns) || s->ns == 0 ||
                (kind == SCN_PROG_EVERY ? !jit : kind != SCN_PROG_SLEEP && jit) ||
                (jit && (!parse_u64(jit, &j) || j > SCN_PROG_JITTER_MAX)))
                return fail("a step's time is 1 ns or more; e takes :NS:JITTER, s may (per mille, at most 999)");
            s->jitter = (unsigned)j;
        }
        if (g->nsteps == 0 && kind != SCN_PROG_RUN && kind != SCN_PROG_READ && kind != SCN_PROG_WRITE)
            return fail("a pattern starts with r, i or o");
        g->nsteps++;
    }
    return true;
}

/* ---- a task's pattern ---- */

/* Sleeps until deadline, or until the run stops. True if the deadline
 * woke it. */
static bool sleep_until(u64 deadline)
{
    while (clock_ns() < deadline) {
        if (scn.stop)
            return false;
        task_prepare_block();
        if (scn.stop) {
            task_cancel_block();
            return false;
        }
        task_block(deadline);
    }
    return true;
}

static void keep_lateness(struct scn_task *k, u64 due)
{
    struct task *self = current();
    u64 ran = self->woken_run_ts;
    k->wakeups++;
    if (k->n < k->cap)
        k->samples[k->n++] = ran > due ? ran - due : 0;
    else
        k->dropped++;
}

/* Spins for ns of this task's CPU time, or forever if ns is 0, until stop. */
static void run_for(struct scn_task *k, u64 ns)
{
    /* current(), not k->t: a new task may run before task_create()
     * returns to the shell that stores k->t (at once, on its CPU). */
    struct task *self = current();
    u64 until = ns ? task_runtime_ns(self) + ns : 0;
    while (!scn.stop) {
        for (int i = 0; i < SCN_ROUND; i++)
            __asm__ volatile("");
        cpu_relax();
        k->iters++;
        if (until && task_runtime_ns(self) >= until)
            return;
    }
}

static void scn_task_main(void *arg)
{
    struct scn_task *k = arg;
    const struct scn_group *g = k->g;
    int step = 0;

    k->target = clock_ns();
    if (!g->nsteps)
        run_for(k, 0);
    while (g->nsteps && !scn.stop) {
        const struct scn_step *s = &g->steps[step];
        u64 due;
        switch (s->kind) {
        case SCN_PROG_RUN:
            run_for(k, s->ns);
            break;
        case SCN_PROG_SLEEP:
            /* a target about ns out (seed 000's probe): drawn, then slept to */
            due = clock_ns() + scn_draw_period(&k->rng, s->ns, s->jitter);
            if (sleep_until(due))
                keep_lateness(k, due);
            break;
        case SCN_PROG_EVERY: {
            /* The next target is the last plus a drawn period; one already
             * here or past is missed, as in every engine. */
            u64 now = clock_ns();
            do {
                k->target += scn_draw_period(&k->rng, s->ns, s->jitter);
                if (k->target <= now)
                    k->missed++;
            } while (k->target <= now);
            if (sleep_until(k->target))
                keep_lateness(k, k->target);
            break;
        }
        case SCN_PROG_YIELD:
            task_yield();
            break;
        case SCN_PROG_READ:
        case SCN_PROG_WRITE: {
            /* A read takes all its bytes, in as many reads as it needs;
             * one that got them counts (it ends a handoff). */
            const struct scn_pipe *sp = &scn.pipes[s->pipe];
            struct pipe *p = &sp->p[k->index % sp->copies];
            u32 done = 0;
            while (done < s->bytes && !scn.stop)
                done += s->kind == SCN_PROG_READ ? pipe_read(p, NULL, s->bytes - done, &scn.stop)
                                                 : pipe_write(p, NULL, s->bytes - done, &scn.stop);
            if (s->kind == SCN_PROG_READ && done == s->bytes)
                k->reads++;
            break;
        }
        case SCN_PROG_EXIT:
            goto out;
        }
        step = (step + 1) % g->nsteps;
    }
out:
    __atomic_sub_fetch(&scn.alive, 1, __ATOMIC_SEQ_CST);
}

/* ---- the run ---- */

/* Instance i of a line on mask: its one CPU, the i-th of its set in turn,
 * or -1 (any: the CPU with the fewest tasks, at creation). It starts
 * there; with a set it may move within it (task.h says when). */
static int place(u64 mask, unsigned i)
{
    unsigned n = 0;
    if (!mask)
        return -1;
    for (unsigned c = 0; c < ncpus && c < 64; c++)
        n += (unsigned)(mask >> c & 1);
    unsigned want = i % n;
    for (unsigned c = 0; c < ncpus && c < 64; c++)
        if (mask >> c & 1) {
            if (want == 0)
                return (int)c;
            want--;
        }
    return -1;
}

/* Moves a[root] down the max-heap a[0..n) to where it belongs. */
static void sift_down(u64 *a, u64 root, u64 n)
{
    for (u64 child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[root] >= a[child])
            return;
        u64 t = a[root];
        a[root] = a[child];
        a[child] = t;
    }
}

/* Heapsort: n log n, no recursion, no memory. */
static void sort_u64(u64 *a, u64 n)
{
    for (u64 start = n / 2; start-- > 0;)
        sift_down(a, start, n);
    for (u64 end = n; end-- > 1;) {
        u64 t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

static const unsigned per_mille[4] = { 500, 900, 990, 999 };

/* The value of rank r (0-based) of the sorted runs of group g's tasks
 * taken together: a merge walk, each task's samples already sorted. */
static u64 group_rank(unsigned g, u64 r)
{
    u64 pos[SCN_PROG_MAX_TASKS] = { 0 };
    for (u64 taken = 0;; taken++) {
        int best = -1;
        for (unsigned i = 0; i < scn.ntasks; i++) {
            struct scn_task *k = &scn.tasks[i];
            if (k->group == g && pos[i] < k->n && (best < 0 || k->samples[pos[i]] < scn.tasks[best].samples[pos[best]]))
                best = (int)i;
        }
        if (best < 0)
            return 0;
        if (taken == r)
            return scn.tasks[best].samples[pos[best]];
        pos[best]++;
    }
}

static void print_results(bool ok, const struct trace_cost *c0, const struct trace_cost *c1, u64 window_ns)
{
    for (unsigned i = 0; i < scn.ntasks; i++) {
        struct scn_task *k = &scn.tasks[i];
        sort_u64(k->samples, k->n);
        u64 stalls = 0, p[5];
        for (u64 s = 0; s < k->n; s++)
            stalls += k->samples[s] > scn.stall_ns;
        for (int q = 0; q < 4; q++)
            p[q] = k->n ? k->samples[scn_rank(k->n, per_mille[q])] : 0;
        p[4] = k->n ? k->samples[k->n - 1] : 0;
        char tid[16];
        if (k->t)
            snprintf(tid, sizeof tid, "%d", k->t->id);
        else
            snprintf(tid, sizeof tid, "none"); /* it never arrived within the run */
        kprintf("scn task i=%u group=%u name=%s tid=%s cpu=%u window_ns=%lu runtime_ns=%lu wakeups=%lu missed=%lu "
                "stalls=%lu dropped=%lu p50=%lu p90=%lu p99=%lu p999=%lu max=%lu iters=%lu vcsw=%lu ivcsw=%lu reads=%lu\n",
                i, k->group, k->g->name, tid, k->cpu, k->window_ns, k->runtime_ns, k->wakeups, k->missed,
                stalls, k->dropped, p[0], p[1], p[2], p[3], p[4], k->iters, k->vcsw, k->ivcsw, k->reads_at_end);
    }
    for (int g = 0; g < scn.ngroups; g++) {
        u64 n = 0, wakeups = 0, stalls = 0, dropped = 0, p[5];
        for (unsigned i = 0; i < scn.ntasks; i++) {
            struct scn_task *k = &scn.tasks[i];
            if (k->group != (unsigned)g)
                continue;
            n += k->n;
            wakeups += k->wakeups;
            dropped += k->dropped;
            for (u64 s = 0; s < k->n; s++)
                stalls += k->samples[s] > scn.stall_ns;
        }
        for (int q = 0; q < 4; q++)
            p[q] = n ? group_rank((unsigned)g, scn_rank(n, per_mille[q])) : 0;
        p[4] = n ? group_rank((unsigned)g, n - 1) : 0;
        kprintf("scn group g=%d name=%s tasks=%u wakeups=%lu stalls=%lu dropped=%lu p50=%lu p90=%lu p99=%lu "
                "p999=%lu max=%lu\n",
                g, scn.groups[g].name, scn.groups[g].count, wakeups, stalls, dropped, p[0], p[1], p[2], p[3], p[4]);
    }
    /* The probe effect: what writing trace records took each CPU over
     * the run (kernel/trace/trace.h), in every figure above. */
    for (unsigned c = 0; c < ncpus; c++)
        if (c1[c].records > c0[c].records)
            kprintf("scn trace cpu=%u records=%lu ns=%lu window_ns=%lu\n", c, c1[c].records - c0[c].records,
                    trace_cost_ns(&c0[c], &c1[c]), window_ns);
    kprintf("scn end %s\n", ok ? "ok" : "failed");
}

/* scn start RUN_NS SEED STALL_NS */
static bool line_start(int argc, char **argv)
{
    u64 run_ns, seed, stall;
    if (argc != 5 || !parse_u64(argv[2], &run_ns) || !parse_u64(argv[3], &seed) || !parse_u64(argv[4], &stall) ||
        run_ns == 0)
        return fail("usage: scn start RUN_NS SEED STALL_NS");
    if (!scn.valid || !scn.ngroups)
        return fail("nothing to start: scn reset, then scn task lines");
    if (run_ns > 3600 * NSEC_PER_SEC)
        return fail("a run is at most an hour");
    struct task *self = current();
    for (int g = 0; g < scn.ngroups; g++) {
        if (!scn.groups[g].nsteps)
            continue;
        bool runs = false;
        for (int s = 0; s < scn.groups[g].nsteps; s++) {
            u8 kind = scn.groups[g].steps[s].kind;
            runs |= kind == SCN_PROG_RUN || kind == SCN_PROG_READ || kind == SCN_PROG_WRITE;
        }
        if (!runs)
            return fail("a task line's pattern has no run, read or write step");
    }
    if (!scn.arena)
        scn.arena = kalloc(SCN_ARENA_SAMPLES * sizeof(u64), 64);
    if (scn.npipes && !scn.pipe_arena) {
        scn.pipe_arena = kalloc(SCN_PIPE_ARENA, 64);
        scn.pipe_structs = kalloc(sizeof(struct pipe) * SCN_PROG_MAX_PIPES * SCN_PROG_MAX_TASKS, 64);
    }
    u64 used = 0;
    for (int i = 0; i < scn.npipes; i++) {
        struct scn_pipe *sp = &scn.pipes[i];
        sp->p = scn.pipe_structs + i * SCN_PROG_MAX_TASKS;
        for (unsigned c = 0; c < sp->copies; c++, used += sp->size)
            pipe_init(&sp->p[c], scn.pipe_arena + used, sp->size);
    }
    scn.seed = seed;
    scn.stall_ns = stall;
    scn.stop = false;
    scn.alive = (int)scn.ntasks;
    u64 per_task = SCN_ARENA_SAMPLES / scn.ntasks;
    unsigned i = 0;
    for (int g = 0; g < scn.ngroups; g++)
        for (unsigned c = 0; c < scn.groups[g].count; c++, i++) {
            struct scn_task *k = &scn.tasks[i];
            memset(k, 0, sizeof *k);
            k->g = &scn.groups[g];
            k->group = (unsigned)g;
            k->instance = i;
            k->index = c;
            k->rng = scn_rng_init(seed, i);
            k->samples = scn.arena + (u64)i * per_task;
            k->cap = per_task;
        }
    kprintf("scn begin tasks=%u cpus=%u run_ns=%lu\n", scn.ntasks, ncpus, run_ns);

    /* Arrivals in time order; the shell's own CPU is whatever it is: a
     * scenario that pins nothing to it leaves it to the shell. */
    /* The trace's marks bound the run, so SQL can measure what the
     * counters measure over the same window. */
    trace_mark(TRACE_MARK_SHELL, "scn start");
    static struct trace_cost c0[MAX_CPUS], c1[MAX_CPUS];
    for (unsigned c = 0; c < ncpus; c++)
        trace_cost_of(c, &c0[c]);
    u64 start = clock_ns();
    bool created[SCN_PROG_MAX_GROUPS] = { false };
    for (int done = 0; done < scn.ngroups; done++) {
        int next = -1;
        for (int g = 0; g < scn.ngroups; g++)
            if (!created[g] && (next < 0 || scn.groups[g].arrive_ns < scn.groups[next].arrive_ns))
                next = g;
        const struct scn_group *g = &scn.groups[next];
        if (g->arrive_ns && g->arrive_ns < run_ns)
            task_sleep_ns(start + g->arrive_ns > clock_ns() ? start + g->arrive_ns - clock_ns() : 0);
        created[next] = true;
        for (i = 0; i < scn.ntasks; i++) {
            struct scn_task *k = &scn.tasks[i];
            if (k->group != (unsigned)next)
                continue;
            if (g->arrive_ns >= run_ns) { /* never arrives within the run */
                __atomic_sub_fetch(&scn.alive, 1, __ATOMIC_SEQ_CST);
                continue;
            }
            unsigned index = 0;
            for (unsigned j = 0; j < i; j++)
                index += scn.tasks[j].group == (unsigned)next;
            k->created = clock_ns();
            int cpu = place(g->cpumask, index);
            k->t = g->rt_prio ? task_create_rt(g->name, scn_task_main, k, cpu, g->rt_prio, g->rt_policy)
                              : task_create(g->name, scn_task_main, k, cpu, g->nice);
            k->cpu = k->t->cpu;
            if (g->slice_ns)
                task_set_slice(k->t, g->slice_ns);
            /* Created pinned to its first CPU; a set widens that. */
            if (g->cpumask & (g->cpumask - 1))
                task_set_allowed(k->t, g->cpumask);
        }
    }
    u64 end = start + run_ns;
    if (clock_ns() < end)
        task_sleep_ns(end - clock_ns());
    end = clock_ns();
    for (unsigned c = 0; c < ncpus; c++)
        trace_cost_of(c, &c1[c]);
    trace_mark(TRACE_MARK_SHELL, "scn end");
    /* Every task's counters as at end, lock-free: taking each queue's
     * lock here let the busy ones run on for tens of ms of guest time. */
    for (i = 0; i < scn.ntasks; i++) {
        struct scn_task *k = &scn.tasks[i];
        if (!k->t)
            continue;
        k->runtime_ns = task_runtime_ns_unlocked(k->t, end);
        k->vcsw = READ_ONCE(k->t->nvcsw);
        k->ivcsw = READ_ONCE(k->t->nivcsw);
        k->reads_at_end = READ_ONCE(k->reads);
        k->window_ns = end - k->created;
    }
    scn.stop = true;
    bool ok = true;
    u64 give_up = clock_ns() + SCN_EXIT_TIMEOUT_NS;
    while (__atomic_load_n(&scn.alive, __ATOMIC_SEQ_CST)) {
        for (i = 0; i < scn.ntasks; i++)
            if (scn.tasks[i].t && scn.tasks[i].t != self)
                task_wake(scn.tasks[i].t);
        if (clock_ns() > give_up) {
            kprintf("scn: %d tasks did not stop within 5 s\n", __atomic_load_n(&scn.alive, __ATOMIC_SEQ_CST));
            ok = false;
            break;
        }
        task_sleep_ns(NSEC_PER_MSEC);
    }
    print_results(ok, c0, c1, end - start);
    scn.valid = false; /* a scenario runs once: the next starts from reset */
    return ok;
}

bool scn_line(int argc, char **argv)
{
    if (argc < 2) {
        kprintf("usage: scn reset | scn pipe ... | scn task ... | scn step ... | scn start RUN_NS SEED STALL_NS "
                "(the host writes these: runq experiment, docs/scenarios.md)\n");
        return false;
    }
    if (strcmp(argv[1], "reset") == 0) {
        memset(scn.groups, 0, sizeof scn.groups);
        scn.ngroups = 0;
        scn.npipes = 0;
        scn.ntasks = 0;
        scn.valid = true;
        return true;
    }
    if (strcmp(argv[1], "task") == 0)
        return line_task(argc, argv);
    if (strcmp(argv[1], "step") == 0)
        return line_step(argc, argv);
    if (strcmp(argv[1], "pipe") == 0)
        return line_pipe(argc, argv);
    if (strcmp(argv[1], "start") == 0)
        return line_start(argc, argv);
    return fail("unknown scn line: want reset, pipe, task, step or start");
}
