/*
 * The kernel engine's side of trace/scenario.h: a scenario as `scn` shell
 * lines, and the kernel's answer read back into a struct scn_result.
 * What the kernel cannot run it refuses here, with the line: a tick other
 * than 100, 250 or 1000 Hz, and an RT task that never blocks where it may
 * sit on CPU 0 (the shell conducts the run from CPU 0 as a fair task: it
 * would wait up to the RT budget, 950 ms of every second, to create the
 * next arrival or to end the run). Everything else in the format it runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/xalloc.h"
#include "scenario.h"

static int kerr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int kerr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Appends one line to lines[]; -1 if there is no room. */
static int add_line(char **lines, int *n, int max, const char *text)
{
    if (*n == max)
        return -1;
    lines[(*n)++] = xstrdup(text);
    return 0;
}

int scn_kprog(const struct scenario *s, char **lines, int max, char *err, size_t errlen)
{
    char buf[SCN_PROG_LINE_MAX];
    int n = 0;

    if (s->tick_ns && s->hz != 100 && s->hz != 250 && s->hz != 1000) {
        int line = s->lines.hz ? s->lines.hz : s->lines.tick;
        return kerr(err, errlen, "%s:%d: runq's kernel ticks at 100, 250 or 1000 Hz, not %s", s->name, line,
                    s->hz ? "this rate" : "every quantum");
    }
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];
        bool blocks = false;
        for (int k = 0; k < t->nsteps; k++)
            blocks |= t->steps[k].kind != SCN_RUN && t->steps[k].kind != SCN_YIELD;
        if (t->rt && !blocks && (!t->cpumask || (t->cpumask & 1)))
            return kerr(err, errlen,
                        "%s:%d: task %s: an RT task that never sleeps may not sit on CPU 0 in runq's kernel: the "
                        "shell runs the scenario from there as a fair task (give it cpu= without 0)",
                        s->name, t->line, t->name);
    }
    if (add_line(lines, &n, max, "scn reset") < 0)
        goto full;
    for (int i = 0; i < s->npipes; i++) {
        snprintf(buf, sizeof buf, "scn pipe %s %u %u", s->pipes[i].name, scn_pipe_copies(s, i), s->pipes[i].size);
        if (add_line(lines, &n, max, buf) < 0)
            goto full;
    }
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];
        static const char *const rt_policy[] = SCN_PROG_RT_POLICY_NAMES;
        int len0 = snprintf(buf, sizeof buf, "scn task %s %u %" PRIx64 " %d %" PRIu64 " %" PRIu64, t->name,
                            t->count, t->cpumask, t->nice, t->slice_ns, t->arrive_ns);
        if (t->rt) /* a fair line stays as it was before the RT class */
            snprintf(buf + len0, sizeof buf - (size_t)len0, " %u %s", t->rt_prio, rt_policy[t->rt_policy]);
        if (add_line(lines, &n, max, buf) < 0)
            goto full;
        /* Steps go as many to a line as fit. */
        size_t len = 0;
        buf[0] = '\0';
        for (int k = 0; k < t->nsteps; k++) {
            const struct scn_step *g = &t->steps[k];
            char step[64];
            char letter = SCN_PROG_STEP_LETTERS[g->kind];
            if (g->kind == SCN_EVERY || (g->kind == SCN_SLEEP && g->jitter_permille))
                snprintf(step, sizeof step, " %c:%" PRIu64 ":%u", letter, g->ns, g->jitter_permille);
            else if (g->kind == SCN_READ || g->kind == SCN_WRITE)
                snprintf(step, sizeof step, " %c:%d:%u", letter, g->pipe, g->bytes);
            else if (g->kind == SCN_RUN || g->kind == SCN_SLEEP)
                snprintf(step, sizeof step, " %c:%" PRIu64, letter, g->ns);
            else
                snprintf(step, sizeof step, " %c", letter);
            if (len && len + strlen(step) >= sizeof buf) {
                if (add_line(lines, &n, max, buf) < 0)
                    goto full;
                len = 0;
            }
            if (!len)
                len = (size_t)snprintf(buf, sizeof buf, "scn step");
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s", step);
        }
        if (len && add_line(lines, &n, max, buf) < 0)
            goto full;
    }
    snprintf(buf, sizeof buf, "scn start %" PRIu64 " %" PRIu64 " %" PRIu64, s->run_ns, s->seed, s->stall_ns);
    if (add_line(lines, &n, max, buf) < 0)
        goto full;
    return n;
full:
    for (int i = 0; i < n; i++)
        free(lines[i]);
    return kerr(err, errlen, "%s: the scenario does not fit in %d shell lines", s->name, max);
}

/* ---- the answer ---- */

/* The value of key= in a result line's words, or NULL. */
static const char *field(const char *line, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += k)
        if ((p == line || p[-1] == ' ') && p[k] == '=')
            return p + k + 1;
    return NULL;
}

static bool num(const char *line, const char *key, uint64_t *out)
{
    const char *v = field(line, key);
    char *end;
    if (!v || *v < '0' || *v > '9')
        return false;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return errno == 0 && (*end == ' ' || *end == '\0' || *end == '\r' || *end == '\n');
}

/* The stats fields a task line and a group line share. */
static bool stats_fields(const char *line, struct scn_stats *st)
{
    static const char *const late[5] = { "p50", "p90", "p99", "p999", "max" };
    bool ok = num(line, "wakeups", &st->wakeups) && num(line, "stalls", &st->stalls) &&
              num(line, "dropped", &st->dropped);
    for (int k = 0; k < 5 && ok; k++)
        ok = num(line, late[k], &st->late[k]);
    return ok;
}

int scn_kresult(const struct scenario *s, const char *console, struct scn_result *r, char *err, size_t errlen)
{
    const char *p = console;
    bool begun = false, ended = false, ok = false;
    unsigned want = scn_ninstances(s), groups = 0;

    memset(r, 0, sizeof *r);
    strcpy(r->engine, "kernel");
    r->has_iters = true;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        uint64_t v;

        if (len >= sizeof line)
            len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : NULL;
        if (strncmp(line, "scn begin ", 10) == 0) {
            if (!num(line, "tasks", &v) || v != want)
                return kerr(err, errlen, "the kernel's scenario has %s tasks, the file %u",
                            field(line, "tasks") ? field(line, "tasks") : "no", want);
            begun = true;
        } else if (strncmp(line, "scn task ", 9) == 0 && begun) {
            uint64_t i, g, tid = 0, cpu;
            bool no_tid = field(line, "tid") && strncmp(field(line, "tid"), "none", 4) == 0;
            if (!num(line, "i", &i) || i >= want || !num(line, "group", &g) || g >= (uint64_t)s->ntasks ||
                (!no_tid && !num(line, "tid", &tid)) || !num(line, "cpu", &cpu))
                return kerr(err, errlen, "a bad result line from the kernel: %s", line);
            struct scn_task_result *t = &r->task[i];
            t->task = (int)g;
            t->tid = no_tid ? -1 : (int)tid; /* none: it never arrived within the run */
            t->cpu = (int)cpu;
            scn_instance(s, (unsigned)i, &t->index);
            scn_instance_name(s, (unsigned)i, t->name, sizeof t->name);
            if (!stats_fields(line, &t->st) || !num(line, "window_ns", &t->st.window_ns) ||
                !num(line, "runtime_ns", &t->st.runtime_ns) || !num(line, "missed", &t->st.missed) ||
                !num(line, "iters", &t->st.iters) || !num(line, "vcsw", &t->st.vcsw) ||
                !num(line, "ivcsw", &t->st.ivcsw) || !num(line, "reads", &t->st.reads))
                return kerr(err, errlen, "a result line from the kernel lacks a field: %s", line);
            t->st.ntasks = 1;
            r->ntasks++;
        } else if (strncmp(line, "scn group ", 10) == 0 && begun) {
            uint64_t g;
            if (!num(line, "g", &g) || g >= (uint64_t)s->ntasks || !stats_fields(line, &r->line[g]))
                return kerr(err, errlen, "a bad group line from the kernel: %s", line);
            groups++;
        } else if (strncmp(line, "scn trace ", 10) == 0 && begun) {
            uint64_t cpu, n, ns, w;
            if (!num(line, "cpu", &cpu) || !num(line, "records", &n) || !num(line, "ns", &ns) ||
                !num(line, "window_ns", &w))
                return kerr(err, errlen, "a bad trace line from the kernel: %s", line);
            r->trace_records += n;
            r->trace_ns += ns;
            r->trace_window_ns = w;
            r->trace_cpus++;
        } else if (strncmp(line, "scn end ", 8) == 0 && begun) {
            ended = true;
            ok = strncmp(line + 8, "ok", 2) == 0;
        } else if (strncmp(line, "scn: ", 5) == 0 && !begun) {
            return kerr(err, errlen, "the kernel refused the scenario: %s", line + 5);
        }
    }
    if (!begun || !ended)
        return kerr(err, errlen, "the kernel's answer is %s", begun ? "cut short (no 'scn end')" : "missing");
    if (!ok)
        return kerr(err, errlen, "the kernel's scenario failed ('scn end failed'; its console says why)");
    if (r->ntasks != want || groups != (unsigned)s->ntasks)
        return kerr(err, errlen, "the kernel answered for %u of %u tasks and %u of %d task lines", r->ntasks, want,
                    groups, s->ntasks);
    /* What the lines' group rows do not carry, from their tasks. */
    for (unsigned i = 0; i < r->ntasks; i++)
        scn_stats_add_task(&r->line[r->task[i].task], &r->task[i].st);
    return 0;
}
