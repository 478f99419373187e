/*
 * The scenario format (contract in scenario.h, described with examples in
 * docs/scenarios.md): one directive a line, `#` to the end of a line is a
 * comment.
 *
 *     policy eevdf                    rr | eevdf
 *     cpus 1                          the machine (EEVDF's base slice scales with it)
 *     hz 250                          the tick; or `tick D` (runq sim's old spelling)
 *     quantum 10us                    runq sim's step; no other engine has one
 *     run 10s                         how long
 *     seed 7                          the jitter's draws
 *     stall 1ms                       a wakeup later than this is a stall
 *     feature HRTICK off              any switch of kernel/sched/eevdf_features.h
 *     knob replace_on_release 0       any knob of kernel/sched/knob.h
 *     task hog*8 cpu=0                eight tasks that never sleep
 *     task probe cpu=0 slice=100us pattern=run:50us,every:1ms:30%
 *     task audio cpu=0 class=rt prio=50 pattern=run:40us,every:7.7ms:20%
 *     pipe ping                       a bounded byte channel (one per pair)
 *     task main*15 cpu=0-3 pattern=write:ping,read:pong
 *     task echo*main cpu=0-3 pattern=read:ping,write:pong
 *     measure probe stall p50 p99 share
 *     vary hog.count 2,8
 *
 * Durations are a number (decimals allowed) and a unit: ns, us, ms or s;
 * a bare 0 is zero. The times runq sim steps through (run, tick, arrive,
 * pattern steps) must be whole quanta; a slice need not be, it is the
 * policy's business. Because `quantum` may come after the tasks, those
 * checks wait until the whole file is read (scn_check), and report the
 * line of the directive at fault.
 *
 * A vary axis's values are checked where the axis is written: each is
 * applied to a copy of the scenario as it stands at the end of the file,
 * so `vary hz 100,333` fails on its own line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eevdf.h"
#include "eevdf_features.h"
#include "knob.h"
#include "policy.h"
#include "scenario.h"
#include "weights.h"

#define SCN_DEFAULT_CPUS 4
#define SCN_DEFAULT_QUANTUM 1000000ull
#define SCN_DEFAULT_QUANTA 32
#define SCN_DEFAULT_STALL 1000000ull
#define SCN_MAX_COUNT 64
#define SCN_DEFAULT_PIPE_SIZE 4096

void scn_init(struct scenario *s)
{
    memset(s, 0, sizeof *s);
    strcpy(s->policy, "eevdf");
    s->cpus = SCN_DEFAULT_CPUS;
    s->quantum_ns = SCN_DEFAULT_QUANTUM;
    s->run_ns = SCN_DEFAULT_QUANTA * SCN_DEFAULT_QUANTUM;
    s->stall_ns = SCN_DEFAULT_STALL;
}

bool scn_set_feature(struct scenario *s, const char *name, bool on)
{
    int f = eevdf_feature_lookup(name);
    if (f < 0)
        return false;
    for (int i = 0; i < s->nfeatures; i++)
        if (s->features[i].feature == f) {
            s->features[i].on = on;
            s->features[i].line = 0; /* the caller says where, if anywhere */
            return true;
        }
    s->features[s->nfeatures].feature = f; /* at most one entry per feature */
    s->features[s->nfeatures].on = on;
    s->features[s->nfeatures].line = 0;
    s->nfeatures++;
    return true;
}

/* ---- knobs: the kernel's table (knob.h), its names and ranges ---- */

static const struct {
    const char *name;
    int64_t lo, hi, def;
} scn_knob_table[KNOB_NR] = {
#define SCN_KNOB_ROW(id, nm, l, h, d, w) [KNOB_##id] = { nm, l, h, d },
    SCHED_KNOBS(SCN_KNOB_ROW)
#undef SCN_KNOB_ROW
};
_Static_assert(KNOB_NR <= SCN_MAX_KNOBS, "SCN_MAX_KNOBS holds every knob once");

static int knob_lookup(const char *name)
{
    for (int k = 0; k < KNOB_NR; k++)
        if (strcmp(scn_knob_table[k].name, name) == 0)
            return k;
    return -1;
}

int scn_knob_index(const char *name)
{
    return knob_lookup(name);
}

const char *scn_knob_name(int k)
{
    return scn_knob_table[k].name;
}

int scn_set_knob(struct scenario *s, const char *name, int64_t value, char *err, size_t errlen)
{
    int k = knob_lookup(name), i;

    if (k < 0) {
        size_t n = (size_t)snprintf(err, errlen, "no knob '%s'; want", name);
        for (int j = 0; j < KNOB_NR && n < errlen; j++)
            n += (size_t)snprintf(err + n, errlen - n, "%s %s", j ? (j == KNOB_NR - 1 ? " or" : ",") : "",
                                  scn_knob_table[j].name);
        if (n < errlen)
            snprintf(err + n, errlen - n, " (kernel/sched/knob.h)");
        return -1;
    }
    if (value < scn_knob_table[k].lo || value > scn_knob_table[k].hi) {
        snprintf(err, errlen, "knob %s: %lld is out of its range %lld..%lld", name, (long long)value,
                 (long long)scn_knob_table[k].lo, (long long)scn_knob_table[k].hi);
        return -1;
    }
    for (i = 0; i < s->nknobs && s->knobs[i].knob != k; i++)
        ;
    s->knobs[i].knob = k; /* at most one entry per knob */
    s->knobs[i].value = value;
    s->knobs[i].line = 0;
    if (i == s->nknobs)
        s->nknobs++;
    return 0;
}

/* Knob k's value in s: its setting, or the kernel's default. *line: where
 * it was set (0: not, or by a vary axis). */
static int64_t knob_value(const struct scenario *s, int k, int *line)
{
    *line = 0;
    for (int i = 0; i < s->nknobs; i++)
        if (s->knobs[i].knob == k) {
            *line = s->knobs[i].line;
            return s->knobs[i].value;
        }
    return scn_knob_table[k].def;
}

int64_t scn_knob_value(const struct scenario *s, int k)
{
    int line;
    return knob_value(s, k, &line);
}

void scn_knob_order(const struct scenario *s, int *order)
{
    int n = 0, line;
    /* The kernel checks runtime <= period at each step. A runtime that
     * fits the default period goes first; one that does not needs its
     * longer period set before it. */
    bool period_first = knob_value(s, KNOB_RT_RUNTIME_US, &line) > scn_knob_table[KNOB_RT_PERIOD_US].def;
    for (int i = 0; i < s->nknobs; i++)
        if (s->knobs[i].knob == (period_first ? KNOB_RT_PERIOD_US : KNOB_RT_RUNTIME_US))
            order[n++] = i;
    for (int i = 0; i < s->nknobs; i++)
        if (s->knobs[i].knob != (period_first ? KNOB_RT_PERIOD_US : KNOB_RT_RUNTIME_US))
            order[n++] = i;
}

void scn_param_key(const char *key, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strncmp(key, "knob.", 5) == 0 && knob_lookup(key + 5) >= 0 ? key + 5 : key);
}

bool scn_policy_known(const char *name)
{
    return strcmp(name, "rr") == 0 || strcmp(name, "eevdf") == 0;
}

bool scn_parse_count(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return false;
    errno = 0;
    uint64_t v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* "30%", "2.5%", "0": a jitter in per mille, 0..SCN_PROG_JITTER_MAX. */
static bool parse_jitter(const char *s, unsigned *permille)
{
    unsigned whole = 0, tenth = 0;
    const char *p = s;

    if (strcmp(s, "0") == 0) {
        *permille = 0;
        return true;
    }
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++)
        if ((whole = whole * 10 + (unsigned)(*p - '0')) > 100)
            return false;
    if (*p == '.') {
        if (!isdigit((unsigned char)p[1]))
            return false;
        tenth = (unsigned)(p[1] - '0');
        p += 2;
    }
    if (strcmp(p, "%") != 0)
        return false;
    *permille = whole * 10 + tenth;
    return *permille <= SCN_PROG_JITTER_MAX;
}

static void format_jitter(char *buf, size_t len, unsigned permille)
{
    if (permille % 10)
        snprintf(buf, len, "%u.%u%%", permille / 10, permille % 10);
    else
        snprintf(buf, len, "%u%%", permille / 10);
}

/* ---- metrics ---- */

static const struct {
    const char *name, *what;
    enum scn_metric_kind kind;
} scn_metric_table[] = {
#define SCN_METRIC_ROW(id, name, kind, what) { name, what, SCN_KIND_##kind },
    SCN_METRICS(SCN_METRIC_ROW)
#undef SCN_METRIC_ROW
};

int scn_metric_lookup(const char *name)
{
    for (int m = 0; m < SCN_NR_METRICS; m++)
        if (strcmp(scn_metric_table[m].name, name) == 0)
            return m;
    return -1;
}

const char *scn_metric_name(enum scn_metric m)
{
    return scn_metric_table[m].name;
}

const char *scn_metric_what(enum scn_metric m)
{
    return scn_metric_table[m].what;
}

enum scn_metric_kind scn_metric_kind(enum scn_metric m)
{
    return scn_metric_table[m].kind;
}

/* ---- the parser ---- */

struct parser {
    const char *name;
    int line;
    char *err;
    size_t errlen;
};

static int perr(struct parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One message "name:line: ..." (line 0, a value from the command line: no
 * position) into the error buffer; returns -1. */
static int perr(struct parser *p, int line, const char *fmt, ...)
{
    va_list ap;
    int n = line ? snprintf(p->err, p->errlen, "%s:%d: ", p->name, line) : 0;

    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errlen)
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    if (!*s || strlen(s) > 12)
        return false;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int duration_arg(struct parser *p, const char *what, const char *s, uint64_t *out)
{
    if (!scn_parse_duration(s, out))
        return perr(p, p->line, "bad %s '%s': want a number and a unit (ns, us, ms, s), e.g. 3ms, at most 3600s",
                    what, s);
    return 0;
}

/* duration_arg for a time that must be above 0: a 0 is "NAME must be
 * longer than 0" (name: "the tick", "run"). */
static int positive_duration_arg(struct parser *p, const char *what, const char *name, const char *s, uint64_t *out)
{
    if (duration_arg(p, what, s, out) < 0)
        return -1;
    return *out ? 0 : perr(p, p->line, "%s must be longer than 0", name);
}

/* weight=W must be one of the 40 weights nice values give: the policies
 * take a nice, not a weight. */
static int weight_to_nice(struct parser *p, const char *s, int *nice)
{
    long w;
    int best = 0;

    if (!parse_int(s, 1, 1000000, &w))
        return perr(p, p->line, "bad weight '%s': want a positive integer", s);
    for (int i = 0; i < 40; i++) {
        if (sched_weight_table[i] == (uint32_t)w) {
            *nice = i - 20;
            return 0;
        }
        if (labs((long)sched_weight_table[i] - w) < labs((long)sched_weight_table[best] - w))
            best = i;
    }
    return perr(p, p->line, "weight %ld is not a nice value's weight; nearest is %u (nice %d)", w,
                sched_weight_table[best], best - 20);
}

/* "1", "0-3", "0,2,5-6": a set of CPUs 0..63 as a mask. */
static int parse_cpus(struct parser *p, const char *s, uint64_t *mask)
{
    char buf[128], *save;

    if (strlen(s) >= sizeof buf)
        return perr(p, p->line, "bad cpu '%s': too long", s);
    strcpy(buf, s);
    *mask = 0;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(item, '-');
        long lo, hi;
        if (dash)
            *dash = '\0';
        if (!parse_int(item, 0, 63, &lo) || (dash && !parse_int(dash + 1, 0, 63, &hi)) || (dash && hi < lo))
            return perr(p, p->line, "bad cpu '%s': want a CPU (0..63), a range 0-3 or a list 0,2", s);
        if (!dash)
            hi = lo;
        for (long c = lo; c <= hi; c++)
            *mask |= 1ull << c;
    }
    if (!*mask)
        return perr(p, p->line, "bad cpu '%s': no CPU in it", s);
    return 0;
}

static void format_cpus(char *buf, size_t len, uint64_t mask)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int c = 0; c < 64 && n < len; c++) {
        if (!(mask >> c & 1))
            continue;
        int e = c;
        while (e + 1 < 64 && (mask >> (e + 1) & 1))
            e++;
        n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
        if (e > c && n < len)
            n += (size_t)snprintf(buf + n, len - n, "-%d", e);
        c = e;
    }
}

/* read:PIPE[:N] or write:PIPE[:N] into g; arg is what follows the colon. */
static int pipe_step(struct parser *p, const struct scenario *s, char *arg, struct scn_step *g)
{
    char *n = strchr(arg, ':');
    long bytes = 1;

    if (n)
        *n++ = '\0';
    if ((g->pipe = scn_pipe_lookup(s, arg)) < 0)
        return perr(p, p->line, "no pipe '%s' declared above (pipe %s)", arg, arg);
    if (n && !parse_int(n, 1, SCN_PROG_PIPE_MAX, &bytes))
        return perr(p, p->line, "bad byte count '%s': want 1..%d", n, SCN_PROG_PIPE_MAX);
    if ((unsigned long)bytes > s->pipes[g->pipe].size)
        return perr(p, p->line, "%ld bytes at once do not fit in pipe %s (size=%u)", bytes, arg,
                    s->pipes[g->pipe].size);
    g->bytes = (unsigned)bytes;
    return 0;
}

static bool does_work(enum scn_step_kind k)
{
    return k == SCN_RUN || k == SCN_READ || k == SCN_WRITE;
}

/* A sleep's or a period's ":JITTER%" after its duration (colon: the
 * step's first colon), cut off the duration's text. 0, or -1 said. */
static int step_jitter(struct parser *p, char *colon, const char *item, struct scn_step *g)
{
    char *jit = strchr(colon + 1, ':');
    if (!jit)
        return 0;
    *jit++ = '\0';
    if (!parse_jitter(jit, &g->jitter_permille))
        return perr(p, p->line, "bad jitter '%s' in '%s': want a percentage 0%%..99.9%%, e.g. 30%%", jit, item);
    return 0;
}

/* "run:4ms,sleep:2ms:30%,every:1ms:30%,yield,exit,read:ping,write:pong:4" */
static int parse_pattern(struct parser *p, const struct scenario *s, const char *text, struct scn_task *t)
{
    char buf[512], *save;

    if (strlen(text) >= sizeof buf)
        return perr(p, p->line, "pattern is longer than %zu characters", sizeof buf - 1);
    strcpy(buf, text);
    t->nsteps = 0;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        struct scn_step *g;
        char *colon = strchr(item, ':');

        if (t->nsteps == SCN_MAX_STEPS)
            return perr(p, p->line, "pattern has more than %d steps", SCN_MAX_STEPS);
        if (t->nsteps > 0 && t->steps[t->nsteps - 1].kind == SCN_EXIT)
            return perr(p, p->line, "nothing may follow exit in a pattern");
        g = &t->steps[t->nsteps];
        memset(g, 0, sizeof *g);
        if (strcmp(item, "exit") == 0 || strcmp(item, "yield") == 0) {
            g->kind = strcmp(item, "exit") == 0 ? SCN_EXIT : SCN_YIELD;
        } else if (colon && colon - item == 3 && strncmp(item, "run", 3) == 0) {
            g->kind = SCN_RUN;
        } else if (colon && colon - item == 5 && strncmp(item, "sleep", 5) == 0) {
            g->kind = SCN_SLEEP;
            if (step_jitter(p, colon, item, g) < 0)
                return -1;
        } else if (colon && ((colon - item == 4 && strncmp(item, "read", 4) == 0) ||
                             (colon - item == 5 && strncmp(item, "write", 5) == 0))) {
            g->kind = item[0] == 'r' ? SCN_READ : SCN_WRITE;
            if (pipe_step(p, s, colon + 1, g) < 0)
                return -1;
        } else if (colon && colon - item == 5 && strncmp(item, "every", 5) == 0) {
            g->kind = SCN_EVERY;
            if (step_jitter(p, colon, item, g) < 0)
                return -1;
        } else {
            return perr(p, p->line,
                        "bad pattern step '%s': want run:DURATION, sleep:DURATION[:JITTER%%], every:PERIOD[:JITTER%%], "
                        "read:PIPE[:N], write:PIPE[:N], yield or exit",
                        item);
        }
        if (g->kind != SCN_EXIT && g->kind != SCN_YIELD && g->kind != SCN_READ && g->kind != SCN_WRITE) {
            if (duration_arg(p, "pattern duration", colon + 1, &g->ns) < 0)
                return -1;
            if (g->ns == 0)
                return perr(p, p->line, "pattern step '%s' is empty", item);
        }
        if (t->nsteps == 0 && !does_work(g->kind))
            return perr(p, p->line, "a pattern starts with run:, read: or write: (a periodic task: run:50us,every:1ms)");
        if (t->nsteps > 0 && g->kind != SCN_RUN && g->kind != SCN_YIELD && g->kind != SCN_EXIT &&
            (t->steps[t->nsteps - 1].kind == SCN_SLEEP || t->steps[t->nsteps - 1].kind == SCN_EVERY))
            return perr(p, p->line, "two sleeps in a row: write one longer sleep");
        t->nsteps++;
    }
    if (t->nsteps == 0)
        return perr(p, p->line, "empty pattern");
    for (int k = 0; k < t->nsteps; k++)
        if (does_work(t->steps[k].kind))
            return 0;
    return perr(p, p->line, "a pattern needs a run:, read: or write: step");
}

static int check_name(struct parser *p, const char *name)
{
    if (!*name)
        return perr(p, p->line, "a task needs a name");
    if (strlen(name) > SCN_NAME_MAX)
        return perr(p, p->line, "task name '%s' is longer than %d characters", name, SCN_NAME_MAX);
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return perr(p, p->line, "task name '%s': letters, digits and _ only", name);
    return 0;
}

/* Every every: step of t gets this period (period) or jitter. */
static int set_every(struct parser *p, struct scn_task *t, const char *key, const char *val)
{
    uint64_t period = 0;
    unsigned jitter = 0;
    int n = 0;

    if (strcmp(key, "period") == 0) {
        if (positive_duration_arg(p, "period", "period", val, &period) < 0)
            return -1;
    } else if (!parse_jitter(val, &jitter)) {
        return perr(p, p->line, "bad jitter '%s': want a percentage 0%%..99.9%%, e.g. 30%%", val);
    }
    for (int k = 0; k < t->nsteps; k++)
        if (t->steps[k].kind == SCN_EVERY) {
            n++;
            if (period)
                t->steps[k].ns = period;
            else
                t->steps[k].jitter_permille = jitter;
        }
    if (!n)
        return perr(p, p->line, "task %s has no every: step for %s= to change", t->name, key);
    return 0;
}

/* One key=value of a task line (also a vary axis TASK.KEY). */
static int task_option(struct parser *p, struct scenario *s, struct scn_task *t, const char *key, const char *val,
                       bool *have_nice)
{
    long n;

    if (strcmp(key, "nice") == 0 || strcmp(key, "weight") == 0) {
        if (have_nice && *have_nice)
            return perr(p, p->line, "give nice= or weight= once");
        if (have_nice)
            *have_nice = true;
        if (key[0] == 'w')
            return weight_to_nice(p, val, &t->nice);
        if (!parse_int(val, SCHED_NICE_MIN, SCHED_NICE_MAX, &n))
            return perr(p, p->line, "bad nice '%s': want %d..%d", val, SCHED_NICE_MIN, SCHED_NICE_MAX);
        t->nice = (int)n;
    } else if (strcmp(key, "slice") == 0) {
        if (strcmp(val, "base") == 0) {
            t->slice_ns = 0;
            return 0;
        }
        if (duration_arg(p, "slice", val, &t->slice_ns) < 0)
            return -1;
        if (t->slice_ns && (t->slice_ns < EEVDF_SLICE_MIN || t->slice_ns > EEVDF_SLICE_MAX))
            return perr(p, p->line, "slice %s is outside 100us..100ms, which EEVDF would clamp it to", val);
    } else if (strcmp(key, "arrive") == 0) {
        return duration_arg(p, "arrive", val, &t->arrive_ns);
    } else if (strcmp(key, "pattern") == 0) {
        return parse_pattern(p, s, val, t);
    } else if (strcmp(key, "cpu") == 0) {
        return parse_cpus(p, val, &t->cpumask);
    } else if (strcmp(key, "count") == 0) {
        if (!parse_int(val, 1, SCN_MAX_COUNT, &n))
            return perr(p, p->line, "bad count '%s': want 1..%d", val, SCN_MAX_COUNT);
        if (t->count_of) {
            const char *of = s->tasks[t->count_of - 1].name;
            return perr(p, p->line, "task %s keeps %s's count (%s*%s): vary %s.count", t->name, of, t->name, of, of);
        }
        t->count = (unsigned)n;
        for (int i = 0; i < s->ntasks; i++) /* lines written NAME*THIS keep its count */
            if (s->tasks[i].count_of == t - s->tasks + 1)
                s->tasks[i].count = t->count;
    } else if (strcmp(key, "period") == 0 || strcmp(key, "jitter") == 0) {
        return set_every(p, t, key, val);
    } else if (strcmp(key, "class") == 0) {
        if (strcmp(val, "rt") != 0 && strcmp(val, "fair") != 0)
            return perr(p, p->line, "bad class '%s': want fair or rt", val);
        t->rt = val[0] == 'r';
    } else if (strcmp(key, "prio") == 0) {
        if (!parse_int(val, 1, SCN_PROG_RT_PRIO_MAX, &n))
            return perr(p, p->line, "bad prio '%s': want an RT priority 1..%d (99 highest)", val,
                        SCN_PROG_RT_PRIO_MAX);
        t->rt_prio = (unsigned)n;
    } else if (strcmp(key, "rt") == 0) {
        if (strcmp(val, "fifo") != 0 && strcmp(val, "rr") != 0)
            return perr(p, p->line, "bad rt '%s': want fifo or rr", val);
        t->rt_policy = val[0] == 'f' ? SCN_PROG_RT_FIFO : SCN_PROG_RT_RR;
    } else {
        return perr(p, p->line,
                    "unknown task option '%s': want nice, weight, slice, arrive, cpu, pattern, period, jitter, "
                    "class, prio, rt or count",
                    key);
    }
    return 0;
}

static int parse_task(struct parser *p, struct scenario *s, char **tok, int ntok)
{
    struct scn_task *t;
    bool have_nice = false;
    char *star;
    long n = 1;

    if (ntok < 2)
        return perr(p, p->line, "task needs a name: task A[*N] [nice=N|weight=W] [slice=D] [arrive=D] [cpu=C] "
                                "[class=rt prio=N [rt=fifo|rr]] [pattern=...]");
    if (s->ntasks == SCN_MAX_TASKS)
        return perr(p, p->line, "more than %d task lines", SCN_MAX_TASKS);
    int count_of = -1; /* the line it keeps the count of */
    if ((star = strchr(tok[1], '*')) != NULL) {
        *star = '\0';
        if (isalpha((unsigned char)star[1]) || star[1] == '_') { /* echo*main: as many as main */
            if ((count_of = scn_task_lookup(s, star + 1)) < 0)
                return perr(p, p->line, "%s*%s: no task line '%s' above to take the count from", tok[1], star + 1,
                            star + 1);
            if (s->tasks[count_of].count_of)
                count_of = s->tasks[count_of].count_of - 1;
            n = s->tasks[count_of].count;
        } else if (!parse_int(star + 1, 1, SCN_MAX_COUNT, &n)) {
            return perr(p, p->line, "bad count '%s' in %s*%s: want 1..%d or a task line's name", star + 1, tok[1],
                        star + 1, SCN_MAX_COUNT);
        }
    }
    if (check_name(p, tok[1]) < 0)
        return -1;
    for (int i = 0; i < s->ntasks; i++)
        if (strcmp(s->tasks[i].name, tok[1]) == 0)
            return perr(p, p->line, "task %s is already declared on line %d", tok[1], s->tasks[i].line);
    t = &s->tasks[s->ntasks];
    memset(t, 0, sizeof *t);
    strcpy(t->name, tok[1]);
    t->line = p->line;
    t->count = (unsigned)n;
    t->count_of = count_of + 1;
    for (int i = 2; i < ntok; i++) {
        char *key = tok[i], *val = strchr(key, '=');
        if (!val)
            return perr(p, p->line, "bad task option '%s': want key=value", key);
        *val++ = '\0';
        if (strcmp(key, "count") == 0)
            return perr(p, p->line, "write the count as %s*N", t->name);
        if (task_option(p, s, t, key, val, &have_nice) < 0)
            return -1;
    }
    s->ntasks++;
    return 0;
}

static int parse_measure(struct parser *p, struct scenario *s, char **tok, int ntok)
{
    int t;

    if (ntok < 3)
        return perr(p, p->line, "measure needs a task and metrics: measure probe stall p99 share");
    if ((t = scn_task_lookup(s, tok[1])) < 0)
        return perr(p, p->line, "measure: no task line '%s' above", tok[1]);
    for (int i = 2; i < ntok; i++) {
        int m = scn_metric_lookup(tok[i]);
        if (m < 0) {
            char all[512] = "";
            for (int k = 0; k < SCN_NR_METRICS; k++)
                snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", k ? ", " : "",
                         scn_metric_name((enum scn_metric)k));
            return perr(p, p->line, "measure: no metric '%s'; want %s", tok[i], all);
        }
        if (s->nmeasures == SCN_MAX_MEASURES)
            return perr(p, p->line, "more than %d measured columns", SCN_MAX_MEASURES);
        s->measures[s->nmeasures].task = t;
        s->measures[s->nmeasures].metric = (enum scn_metric)m;
        s->nmeasures++;
    }
    return 0;
}

/* `vary KEY V1,V2,...`: the values are checked at the end of the file. */
static int parse_vary(struct parser *p, struct scenario *s, char **tok, int ntok)
{
    struct scn_vary *v;
    char *save;

    if (ntok != 3)
        return perr(p, p->line, "vary takes a key and values: vary hog.count 2,8");
    if (s->nvary == SCN_MAX_VARY)
        return perr(p, p->line, "more than %d vary axes", SCN_MAX_VARY);
    if (strlen(tok[1]) >= SCN_KEY_MAX)
        return perr(p, p->line, "vary: key '%s' is too long", tok[1]);
    char key[SCN_KEY_MAX], other[SCN_KEY_MAX];
    scn_param_key(tok[1], key, sizeof key); /* knob.NAME and NAME are one axis */
    for (int i = 0; i < s->nvary; i++) {
        scn_param_key(s->vary[i].key, other, sizeof other);
        if (strcmp(other, key) == 0)
            return perr(p, p->line, "vary %s is already given on line %d", tok[1], s->vary[i].line);
    }
    v = &s->vary[s->nvary];
    memset(v, 0, sizeof *v);
    strcpy(v->key, tok[1]);
    v->line = p->line;
    for (char *val = strtok_r(tok[2], ",", &save); val; val = strtok_r(NULL, ",", &save)) {
        if (v->nvalues == SCN_MAX_VALUES)
            return perr(p, p->line, "vary %s: more than %d values", v->key, SCN_MAX_VALUES);
        if (strlen(val) >= SCN_VALUE_MAX)
            return perr(p, p->line, "vary %s: value '%s' is too long", v->key, val);
        strcpy(v->values[v->nvalues++], val);
    }
    if (v->nvalues == 0)
        return perr(p, p->line, "vary %s: no values", v->key);
    s->nvary++;
    return 0;
}

/* A machine directive with its one value (feature takes two). */
static int machine_directive(struct parser *p, struct scenario *s, const char *d, char **args, int nargs)
{
    static const char *const known[] = { "policy", "cpus", "hz", "tick", "quantum", "run", "seed", "stall", "feature",
                                         "knob" };
    bool is_known = false;
    long n;

    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        is_known |= strcmp(d, known[i]) == 0;
    if (!is_known)
        return perr(p, p->line,
                    "unknown directive '%s': want policy, cpus, hz, tick, quantum, run, seed, stall, feature, "
                    "knob, pipe, task, measure or vary",
                    d);
    if (nargs != (strcmp(d, "feature") == 0 || strcmp(d, "knob") == 0 ? 2 : 1))
        return perr(p, p->line, "%s: wrong number of arguments", d);
    /* One branch a directive, alike in shape (checked, kept, its line
     * noted): each its own checks and messages. */
    if (strcmp(d, "policy") == 0) {
        if (!scn_policy_known(args[0]))
            return perr(p, p->line, "bad policy '%s': want rr or eevdf", args[0]);
        strcpy(s->policy, args[0]);
        s->lines.policy = p->line;
    } else if (strcmp(d, "cpus") == 0) {
        if (!parse_int(args[0], 1, 64, &n))
            return perr(p, p->line, "bad cpus '%s': want 1..64", args[0]);
        s->cpus = (unsigned)n;
        s->lines.cpus = p->line;
    } else if (strcmp(d, "hz") == 0) {
        if (!parse_int(args[0], 1, 10000, &n) || 1000000000 % n)
            return perr(p, p->line, "bad hz '%s': want ticks a second that divide 1 s into whole ns, e.g. 250",
                        args[0]);
        if (s->lines.tick && s->lines.tick != p->line)
            return perr(p, p->line, "give hz or tick, not both (tick is on line %d)", s->lines.tick);
        s->hz = (unsigned)n;
        s->tick_ns = 1000000000ull / (uint64_t)n;
        s->lines.hz = p->line;
    } else if (strcmp(d, "tick") == 0) {
        if (positive_duration_arg(p, "tick", "the tick", args[0], &s->tick_ns) < 0)
            return -1;
        if (s->lines.hz && s->lines.hz != p->line)
            return perr(p, p->line, "give hz or tick, not both (hz is on line %d)", s->lines.hz);
        s->hz = 1000000000ull % s->tick_ns ? 0 : (unsigned)(1000000000ull / s->tick_ns);
        s->lines.tick = p->line;
    } else if (strcmp(d, "quantum") == 0) {
        if (positive_duration_arg(p, "quantum", "the quantum", args[0], &s->quantum_ns) < 0)
            return -1;
        s->lines.quantum = p->line;
    } else if (strcmp(d, "run") == 0) {
        if (positive_duration_arg(p, "run", "run", args[0], &s->run_ns) < 0)
            return -1;
        s->lines.run = p->line;
    } else if (strcmp(d, "seed") == 0) {
        if (!scn_parse_count(args[0], UINT64_MAX, &s->seed))
            return perr(p, p->line, "bad seed '%s': want a whole number 0..18446744073709551615", args[0]);
        s->lines.seed = p->line;
    } else if (strcmp(d, "stall") == 0) {
        if (duration_arg(p, "stall", args[0], &s->stall_ns) < 0)
            return -1;
        s->lines.stall = p->line;
    } else if (strcmp(d, "knob") == 0) {
        char why[256];
        long long v;
        char *end;
        errno = 0;
        v = strtoll(args[1], &end, 10);
        if (!*args[1] || *end || errno)
            return perr(p, p->line, "knob %s: bad value '%s': want a whole number", args[0], args[1]);
        if (scn_set_knob(s, args[0], v, why, sizeof why) < 0)
            return perr(p, p->line, "%s", why);
        for (int i = 0; i < s->nknobs; i++)
            if (s->knobs[i].knob == knob_lookup(args[0]))
                s->knobs[i].line = p->line;
    } else { /* feature */
        bool on = strcmp(args[1], "on") == 0;
        if (!on && strcmp(args[1], "off") != 0)
            return perr(p, p->line, "feature %s: want on or off, not '%s'", args[0], args[1]);
        if (!scn_set_feature(s, args[0], on))
            return perr(p, p->line, "no feature '%s' (see kernel/sched/eevdf_features.h)", args[0]);
        for (int i = 0; i < s->nfeatures; i++)
            if (s->features[i].feature == eevdf_feature_lookup(args[0]))
                s->features[i].line = p->line;
    }
    return 0;
}

/* pipe NAME [size=BYTES] [shared] */
static int parse_pipe(struct parser *p, struct scenario *s, char **tok, int ntok)
{
    struct scn_pipe *pp;
    long n;

    if (ntok < 2)
        return perr(p, p->line, "pipe needs a name: pipe NAME [size=BYTES] [shared]");
    if (s->npipes == SCN_MAX_PIPES)
        return perr(p, p->line, "more than %d pipes", SCN_MAX_PIPES);
    if (check_name(p, tok[1]) < 0)
        return -1;
    if (scn_pipe_lookup(s, tok[1]) >= 0)
        return perr(p, p->line, "pipe %s is already declared on line %d", tok[1],
                    s->pipes[scn_pipe_lookup(s, tok[1])].line);
    pp = &s->pipes[s->npipes];
    memset(pp, 0, sizeof *pp);
    strcpy(pp->name, tok[1]);
    pp->line = p->line;
    pp->size = SCN_DEFAULT_PIPE_SIZE;
    for (int i = 2; i < ntok; i++) {
        if (strcmp(tok[i], "shared") == 0)
            pp->shared = true;
        else if (strncmp(tok[i], "size=", 5) == 0 && parse_int(tok[i] + 5, 1, SCN_PROG_PIPE_MAX, &n))
            pp->size = (unsigned)n;
        else
            return perr(p, p->line, "bad pipe option '%s': want size=1..%d or shared", tok[i], SCN_PROG_PIPE_MAX);
    }
    s->npipes++;
    return 0;
}

int scn_pipe_lookup(const struct scenario *s, const char *name)
{
    for (int i = 0; i < s->npipes; i++)
        if (strcmp(s->pipes[i].name, name) == 0)
            return i;
    return -1;
}

bool scn_uses_pipes(const struct scn_task *t)
{
    for (int k = 0; k < t->nsteps; k++)
        if (t->steps[k].kind == SCN_READ || t->steps[k].kind == SCN_WRITE)
            return true;
    return false;
}

/* Whether task line t reads (kind SCN_READ) or writes pipe p. */
static bool uses_pipe(const struct scn_task *t, int p, enum scn_step_kind kind)
{
    for (int k = 0; k < t->nsteps; k++)
        if (t->steps[k].kind == kind && t->steps[k].pipe == p)
            return true;
    return false;
}

unsigned scn_pipe_copies(const struct scenario *s, int p)
{
    if (s->pipes[p].shared)
        return 1;
    for (int t = 0; t < s->ntasks; t++)
        if (uses_pipe(&s->tasks[t], p, SCN_READ) || uses_pipe(&s->tasks[t], p, SCN_WRITE))
            return s->tasks[t].count;
    return 1;
}

/* One directive, already cut into tokens. */
static int parse_line(struct parser *p, struct scenario *s, char **tok, int ntok)
{
    if (strcmp(tok[0], "task") == 0)
        return parse_task(p, s, tok, ntok);
    if (strcmp(tok[0], "pipe") == 0)
        return parse_pipe(p, s, tok, ntok);
    if (strcmp(tok[0], "measure") == 0)
        return parse_measure(p, s, tok, ntok);
    if (strcmp(tok[0], "vary") == 0)
        return parse_vary(p, s, tok, ntok);
    return machine_directive(p, s, tok[0], tok + 1, ntok - 1);
}

int scn_task_lookup(const struct scenario *s, const char *name)
{
    for (int i = 0; i < s->ntasks; i++)
        if (strcmp(s->tasks[i].name, name) == 0)
            return i;
    return -1;
}

/* key = value as a vary axis applies it; line is where the axis is. */
static int apply_at(struct parser *p, struct scenario *s, const char *key, const char *value)
{
    char k[SCN_KEY_MAX], v[SCN_VALUE_MAX * 2];
    char *dot;

    if (strlen(key) >= sizeof k || strlen(value) >= sizeof v)
        return perr(p, p->line, "vary %s: too long", key);
    strcpy(k, key);
    strcpy(v, value);
    dot = strchr(k, '.');
    if (strcmp(k, "switch") == 0) {
        /* One switch flipped from its default, spelled as Linux's
         * sched/features file takes it: NAME on, NO_NAME off; `default`
         * flips none. An ablation is one axis of these. */
        bool on = strncmp(v, "NO_", 3) != 0;
        if (strcmp(v, "default") == 0)
            return 0;
        if (eevdf_feature_lookup(on ? v : v + 3) < 0)
            return perr(p, p->line, "vary switch: no feature '%s'; want default, NAME or NO_NAME (see "
                                    "kernel/sched/eevdf_features.h)", on ? v : v + 3);
        scn_set_feature(s, on ? v : v + 3, on);
        return 0;
    }
    if (knob_lookup(dot ? k + 5 : k) >= 0 && (!dot || strncmp(k, "knob.", 5) == 0)) {
        char *args[2] = { dot ? k + 5 : k, v }; /* replace_on_release or knob.replace_on_release */
        return machine_directive(p, s, "knob", args, 2);
    }
    if (!dot) {
        char *args[1] = { v };
        if (strcmp(k, "feature") == 0 || strcmp(k, "task") == 0 || strcmp(k, "measure") == 0 ||
            strcmp(k, "vary") == 0)
            return perr(p, p->line, "vary %s: not a key; want hz, cpus, policy, run, seed, stall, quantum, "
                                    "feature.NAME, switch, a knob or TASK.OPTION", k);
        return machine_directive(p, s, k, args, 1);
    }
    *dot++ = '\0';
    if (strcmp(k, "feature") == 0) {
        char *args[2] = { dot, v };
        return machine_directive(p, s, "feature", args, 2);
    }
    int t = scn_task_lookup(s, k);
    if (t < 0)
        return perr(p, p->line, "vary %s.%s: no task line '%s'", k, dot, k);
    return task_option(p, s, &s->tasks[t], dot, v, NULL);
}

int scn_apply(struct scenario *s, const char *key, const char *value, char *err, size_t errlen)
{
    struct parser p = { s->name, 0, err, errlen };
    return apply_at(&p, s, key, value);
}

/* ---- whole-scenario checks ---- */

static bool whole_quanta(uint64_t ns, uint64_t q)
{
    return ns % q == 0;
}

unsigned scn_ninstances(const struct scenario *s)
{
    unsigned n = 0;
    for (int i = 0; i < s->ntasks; i++)
        n += s->tasks[i].count;
    return n;
}

int scn_check(const struct scenario *s, char *err, size_t errlen)
{
    struct parser pp = { s->name, 0, err, errlen }, *p = &pp;
    char q[32];
    uint64_t nq = s->run_ns / s->quantum_ns;
    int qline = s->lines.quantum, rline = s->lines.run ? s->lines.run : qline;

    scn_format_duration(q, sizeof q, s->quantum_ns);
    if (s->tick_ns && !whole_quanta(s->tick_ns, s->quantum_ns))
        return perr(p, s->lines.hz ? s->lines.hz : s->lines.tick, "the tick must be a whole number of quanta (%s)",
                    q);
    if (!whole_quanta(s->run_ns, s->quantum_ns) || nq == 0)
        return perr(p, rline, "run must be a positive whole number of quanta (%s)", q);
    if (nq > SCN_SIM_MAX_QUANTA)
        return perr(p, rline, "run is %llu quanta; at most %d", (unsigned long long)nq, SCN_SIM_MAX_QUANTA);
    if (s->ntasks == 0)
        return perr(p, 0, "%s: no tasks: add a line like 'task A'", s->name);
    if (scn_ninstances(s) > SCN_MAX_INSTANCES)
        return perr(p, s->tasks[s->ntasks - 1].line, "%u tasks in all; at most %d", scn_ninstances(s),
                    SCN_MAX_INSTANCES);
    for (int k = 0; k < s->npipes; k++) {
        const struct scn_pipe *pp = &s->pipes[k];
        int reader = -1, writer = -1;
        for (int i = 0; i < s->ntasks; i++) {
            const struct scn_task *t = &s->tasks[i];
            bool r = uses_pipe(t, k, SCN_READ), w = uses_pipe(t, k, SCN_WRITE);
            if (r && reader < 0)
                reader = i;
            if (w && writer < 0)
                writer = i;
            if ((r || w) && !pp->shared && t->count != scn_pipe_copies(s, k))
                return perr(p, t->line,
                            "task %s*%u uses pipe %s, which has a copy per task of %s*%u: give both lines one count "
                            "(%s*%s), or declare the pipe shared",
                            t->name, t->count, pp->name, s->tasks[reader >= 0 ? reader : writer].name,
                            scn_pipe_copies(s, k), t->name, s->tasks[reader >= 0 ? reader : writer].name);
        }
        if (reader < 0 || writer < 0)
            return perr(p, pp->line, "pipe %s is %s by no task: its %s would wait for ever", pp->name,
                        reader < 0 ? "read" : "written", reader < 0 ? "writers" : "readers");
    }
    int runtime_line, period_line;
    int64_t runtime = knob_value(s, KNOB_RT_RUNTIME_US, &runtime_line),
            period = knob_value(s, KNOB_RT_PERIOD_US, &period_line);
    if (runtime > period)
        return perr(p, runtime_line > period_line ? runtime_line : period_line,
                    "rt_runtime_us %lld is longer than rt_period_us %lld: the kernel refuses it (equal: no budget)",
                    (long long)runtime, (long long)period);
    /* Balancing moves tasks between CPUs (kernel/sched/balance.c): with
     * one there is nowhere to move to, and its interval has Linux's
     * bounds for the machine (balance.h). */
    for (int i = 0; i < s->nfeatures; i++) {
        const char *name = eevdf_feature_name(s->features[i].feature);
        if (s->features[i].on && s->cpus < 2 && (strncmp(name, "BALANCE_", 8) == 0 || strncmp(name, "WA_", 3) == 0))
            return perr(p, s->features[i].line ? s->features[i].line : s->lines.cpus,
                        "feature %s balances between CPUs, and cpus is %u: give cpus 2 or more", name, s->cpus);
    }
    int interval_line;
    int64_t interval = knob_value(s, KNOB_BALANCE_INTERVAL_MS, &interval_line);
    if (interval && (interval < BALANCE_INTERVAL_MIN_MS((int64_t)s->cpus) || interval > BALANCE_INTERVAL_MAX_MS((int64_t)s->cpus)))
        return perr(p, interval_line ? interval_line : s->lines.cpus,
                    "balance_interval_ms %lld is outside Linux's bounds for %u CPUs, %lld..%lld ms "
                    "(sd_init's min_interval and max_interval), or 0 for its default",
                    (long long)interval, s->cpus, (long long)BALANCE_INTERVAL_MIN_MS((int64_t)s->cpus),
                    (long long)BALANCE_INTERVAL_MAX_MS((int64_t)s->cpus));
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];
        if (t->rt && !t->rt_prio)
            return perr(p, t->line, "task %s: class=rt needs prio=1..%d", t->name, SCN_PROG_RT_PRIO_MAX);
        if (!t->rt && (t->rt_prio || t->rt_policy != SCN_PROG_RT_FIFO))
            return perr(p, t->line, "task %s: %s is for an RT task: give class=rt too", t->name,
                        t->rt_prio ? "prio=" : "rt=");
        if (t->rt && (t->nice || t->slice_ns))
            return perr(p, t->line, "task %s: class=rt takes no %s (an RT task has a priority, not a %s)", t->name,
                        t->nice ? "nice= or weight=" : "slice=", t->nice ? "weight" : "slice");
        if (!whole_quanta(t->arrive_ns, s->quantum_ns))
            return perr(p, t->line, "task %s: arrive must be a whole number of quanta (%s)", t->name, q);
        if (t->cpumask && s->cpus < 64 && (t->cpumask >> s->cpus)) /* >> 64 is undefined */
            return perr(p, t->line, "task %s: cpu %d is not on a machine of %u CPUs (cpus %u)", t->name,
                        63 - __builtin_clzll(t->cpumask), s->cpus, s->cpus);
        for (int k = 0; k < t->nsteps; k++) {
            const struct scn_step *g = &t->steps[k];
            if (!whole_quanta(g->ns, s->quantum_ns))
                return perr(p, t->line, "task %s: pattern steps must be whole numbers of quanta (%s)", t->name, q);
            if (g->kind == SCN_EVERY && g->ns * g->jitter_permille / 1000 < s->quantum_ns && g->jitter_permille &&
                s->quantum_ns > 1)
                return perr(p, t->line, "task %s: a jitter of %u per mille of %llu ns is finer than the quantum (%s)",
                            t->name, g->jitter_permille, (unsigned long long)g->ns, q);
        }
    }
    return 0;
}

/* Each vary value, applied to a copy of s as the file leaves it, must
 * give a scenario that passes the checks. */
static int check_vary(struct parser *p, const struct scenario *s)
{
    static struct scenario copy; /* large: off the stack */

    for (int a = 0; a < s->nvary; a++)
        for (int i = 0; i < s->vary[a].nvalues; i++) {
            char inner[400];
            copy = *s;
            p->line = s->vary[a].line;
            if (apply_at(p, &copy, s->vary[a].key, s->vary[a].values[i]) < 0)
                return -1;
            if (scn_check(&copy, inner, sizeof inner) < 0)
                return perr(p, s->vary[a].line, "vary %s %s: %s", s->vary[a].key, s->vary[a].values[i], inner);
        }
    return 0;
}

#define SCN_MAX_TOKENS 40
#define SCN_XSTR(x) #x
#define SCN_STR(x) SCN_XSTR(x)
/* A scenario is a small text file: a line longer than this, or a NUL
 * byte, is not one (`runq sim /dev/zero` read forever), and neither is a
 * file of more lines than this. */
#define SCN_LINE_MAX 1024
#define SCN_LINES_MAX 10000

/* Reads one line of at most SCN_LINE_MAX - 1 bytes into buf (newline
 * dropped). Returns 1 for a line, 0 at the end, -1 for a line too long or
 * holding a NUL (why says which). */
static int read_line(FILE *f, char *buf, const char **why)
{
    size_t n = 0;
    int c = EOF;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0') {
            *why = "a NUL byte: not a text file";
            return -1;
        }
        if (n + 1 == SCN_LINE_MAX) {
            *why = "longer than " SCN_STR(SCN_LINE_MAX) " bytes";
            return -1;
        }
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return c == EOF && n == 0 ? 0 : 1;
}

int scn_parse(FILE *f, const char *name, struct scenario *s, char *err, size_t errlen)
{
    struct parser p = { name, 0, err, errlen };
    char buf[SCN_LINE_MAX];
    const char *why = NULL;
    int rc = 0, got;

    scn_init(s);
    snprintf(s->name, sizeof s->name, "%s", name);
    while (rc == 0 && (got = read_line(f, buf, &why)) != 0) {
        char *tok[SCN_MAX_TOKENS], *hash = strchr(buf, '#');
        int ntok = 0;

        p.line++;
        if (got < 0) {
            rc = perr(&p, p.line, "%s", why);
            break;
        }
        if (p.line > SCN_LINES_MAX) {
            rc = perr(&p, p.line, "more than %d lines: not a scenario", SCN_LINES_MAX);
            break;
        }
        if (hash)
            *hash = '\0';
        for (char *t = strtok(buf, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
            if (ntok == SCN_MAX_TOKENS) {
                rc = perr(&p, p.line, "more than %d words on a line", SCN_MAX_TOKENS);
                break;
            }
            tok[ntok++] = t;
        }
        if (rc == 0 && ntok > 0)
            rc = parse_line(&p, s, tok, ntok);
    }
    if (rc == 0 && ferror(f))
        rc = perr(&p, p.line, "read error: %s", strerror(errno));
    if (rc == 0 && s->ntasks == 0)
        rc = perr(&p, p.line, "no tasks: add a line like 'task A'");
    if (rc == 0 && !s->lines.run)
        s->run_ns = SCN_DEFAULT_QUANTA * s->quantum_ns; /* the default is in quanta */
    if (rc == 0)
        rc = scn_check(s, err, errlen);
    if (rc == 0)
        rc = check_vary(&p, s);
    return rc;
}

int scn_load(const char *path, struct scenario *s, char *err, size_t errlen)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    int rc;

    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    rc = scn_parse(f, is_stdin ? "<stdin>" : path, s, err, errlen);
    if (!is_stdin)
        fclose(f);
    return rc;
}

/* ---- what a scenario asks ---- */

int scn_instance(const struct scenario *s, unsigned i, unsigned *index)
{
    for (int t = 0; t < s->ntasks; t++) {
        if (i < s->tasks[t].count) {
            if (index)
                *index = i;
            return t;
        }
        i -= s->tasks[t].count;
    }
    return -1;
}

void scn_instance_name(const struct scenario *s, unsigned i, char *buf, size_t len)
{
    unsigned k;
    int t = scn_instance(s, i, &k);
    if (t < 0)
        snprintf(buf, len, "?");
    else if (s->tasks[t].count > 1)
        snprintf(buf, len, "%s%u", s->tasks[t].name, k);
    else
        snprintf(buf, len, "%s", s->tasks[t].name);
}

bool scn_is_periodic(const struct scn_task *t)
{
    for (int k = 0; k < t->nsteps; k++)
        if (t->steps[k].kind == SCN_EVERY)
            return true;
    return false;
}

static bool sleeps(const struct scn_task *t)
{
    for (int k = 0; k < t->nsteps; k++)
        if (t->steps[k].kind == SCN_EVERY || t->steps[k].kind == SCN_SLEEP)
            return true;
    return false;
}

uint64_t scn_asked_ppm(const struct scn_task *t)
{
    uint64_t run = 0, round = 0;
    for (int k = 0; k < t->nsteps; k++) {
        const struct scn_step *g = &t->steps[k];
        if (g->kind == SCN_RUN) {
            run += g->ns;
            round += g->ns;
        } else if (g->kind == SCN_SLEEP) {
            round += g->ns;
        } else if (g->kind == SCN_EVERY) {
            /* the period holds the runs since the last target */
            round = round > g->ns ? round : g->ns;
        }
    }
    if (!sleeps(t) || !round)
        return 1000000;
    return run * 1000000 / round;
}

int scn_default_measures(const struct scenario *s, struct scn_measure *out, int max)
{
    static const enum scn_metric sleeper[] = { SCN_M_STALL, SCN_M_LATE_P50, SCN_M_LATE_P99, SCN_M_SHARE };
    static const enum scn_metric hog[] = { SCN_M_SHARE, SCN_M_WORK };
    static const enum scn_metric piped[] = { SCN_M_HANDOFFS, SCN_M_INVOL, SCN_M_SHARE };
    int n = 0;

    for (int t = 0; t < s->ntasks; t++) {
        bool sl = sleeps(&s->tasks[t]), pi = scn_uses_pipes(&s->tasks[t]);
        const enum scn_metric *m = pi ? piped : sl ? sleeper : hog;
        int k = pi ? 3 : sl ? 4 : 2;
        for (int i = 0; i < k && n < max; i++) {
            out[n].task = t;
            out[n].metric = m[i];
            n++;
        }
    }
    return n;
}

/* ---- printing a scenario back ---- */

void scn_print(FILE *out, const struct scenario *s)
{
    char a[64], b[32];

    fprintf(out, "policy %s\n", s->policy);
    if (strcmp(s->policy, "eevdf") == 0 || s->lines.cpus)
        fprintf(out, "cpus %u\n", s->cpus);
    scn_format_duration(a, sizeof a, s->quantum_ns);
    fprintf(out, "quantum %s\n", a);
    if (s->lines.hz) {
        fprintf(out, "hz %u\n", s->hz);
    } else if (s->tick_ns && s->tick_ns != s->quantum_ns) {
        scn_format_duration(a, sizeof a, s->tick_ns);
        fprintf(out, "tick %s\n", a);
    }
    scn_format_duration(a, sizeof a, s->run_ns);
    fprintf(out, "run %s\n", a);
    if (s->seed || s->lines.seed)
        fprintf(out, "seed %llu\n", (unsigned long long)s->seed);
    if (s->stall_ns != SCN_DEFAULT_STALL) {
        scn_format_duration(a, sizeof a, s->stall_ns);
        fprintf(out, "stall %s\n", a);
    }
    for (int i = 0; i < s->nfeatures; i++)
        fprintf(out, "feature %s %s\n", eevdf_feature_name((enum eevdf_feature)s->features[i].feature),
                s->features[i].on ? "on" : "off");
    for (int i = 0; i < s->nknobs; i++)
        fprintf(out, "knob %s %lld\n", scn_knob_name(s->knobs[i].knob), (long long)s->knobs[i].value);
    for (int i = 0; i < s->npipes; i++) {
        fprintf(out, "pipe %s", s->pipes[i].name);
        if (s->pipes[i].size != SCN_DEFAULT_PIPE_SIZE)
            fprintf(out, " size=%u", s->pipes[i].size);
        fprintf(out, "%s\n", s->pipes[i].shared ? " shared" : "");
    }
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];

        fprintf(out, "task %s", t->name);
        if (t->count_of)
            fprintf(out, "*%s", s->tasks[t->count_of - 1].name);
        else if (t->count > 1)
            fprintf(out, "*%u", t->count);
        if (t->nice)
            fprintf(out, " nice=%d", t->nice);
        if (t->slice_ns) {
            scn_format_duration(a, sizeof a, t->slice_ns);
            fprintf(out, " slice=%s", a);
        }
        if (t->arrive_ns) {
            scn_format_duration(a, sizeof a, t->arrive_ns);
            fprintf(out, " arrive=%s", a);
        }
        if (t->cpumask) {
            format_cpus(a, sizeof a, t->cpumask);
            fprintf(out, " cpu=%s", a);
        }
        if (t->rt || t->rt_prio)
            fprintf(out, " class=%s", t->rt ? "rt" : "fair");
        if (t->rt_prio)
            fprintf(out, " prio=%u", t->rt_prio);
        if (t->rt_policy == SCN_PROG_RT_RR)
            fprintf(out, " rt=rr");
        for (int k = 0; k < t->nsteps; k++) {
            const struct scn_step *g = &t->steps[k];
            scn_format_duration(b, sizeof b, g->ns);
            fprintf(out, "%s", k ? "," : " pattern=");
            switch (g->kind) {
            case SCN_EXIT:
                fprintf(out, "exit");
                break;
            case SCN_YIELD:
                fprintf(out, "yield");
                break;
            case SCN_RUN:
                fprintf(out, "run:%s", b);
                break;
            case SCN_SLEEP:
            case SCN_EVERY: /* a sleep's jitter is drawn per sleep, a period's per target */
                fprintf(out, "%s:%s", g->kind == SCN_SLEEP ? "sleep" : "every", b);
                if (g->jitter_permille) {
                    format_jitter(a, sizeof a, g->jitter_permille);
                    fprintf(out, ":%s", a);
                }
                break;
            case SCN_READ:
            case SCN_WRITE:
                fprintf(out, "%s:%s", g->kind == SCN_READ ? "read" : "write", s->pipes[g->pipe].name);
                if (g->bytes != 1)
                    fprintf(out, ":%u", g->bytes);
                break;
            }
        }
        fprintf(out, "\n");
    }
    for (int i = 0; i < s->nmeasures; i++) {
        int t = s->measures[i].task;
        if (i == 0 || s->measures[i - 1].task != t)
            fprintf(out, "%smeasure %s", i ? "\n" : "", s->tasks[t].name);
        fprintf(out, " %s", scn_metric_name(s->measures[i].metric));
        if (i == s->nmeasures - 1)
            fprintf(out, "\n");
    }
    for (int i = 0; i < s->nvary; i++) {
        fprintf(out, "vary %s ", s->vary[i].key);
        for (int k = 0; k < s->vary[i].nvalues; k++)
            fprintf(out, "%s%s", k ? "," : "", s->vary[i].values[k]);
        fprintf(out, "\n");
    }
}
