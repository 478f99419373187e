/*
 * The `runq sim` workload format (contract in sim.h, described with
 * examples in docs/sim.md): one directive a line, `#` to the end of a line
 * is a comment.
 *
 *     policy eevdf                    rr | eevdf
 *     cpus 4                          scales EEVDF's base slice
 *     quantum 800us                   one letter of the schedule
 *     tick 800us                      the scheduler tick (default: a quantum)
 *     run 16ms                        how long to simulate
 *     feature RUN_TO_PARITY off       any switch of kernel/sched/eevdf_features.h
 *     task A nice=0 slice=3ms arrive=2ms pattern=run:4ms,sleep:2ms
 *
 * Durations are a number (decimals allowed) and a unit: ns, us, ms or s;
 * a bare 0 is zero. Times the simulation steps through (run, tick, arrive,
 * pattern steps) must be whole quanta; a slice need not be, it is the
 * policy's business. Because `quantum` may come after the tasks, those
 * checks wait until the whole file is read, and report the line of the
 * directive at fault.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eevdf.h"
#include "eevdf_features.h"
#include "policy.h"
#include "sim.h"
#include "weights.h"

#define SIM_DEFAULT_CPUS 4
#define SIM_DEFAULT_QUANTUM 1000000ull
#define SIM_DEFAULT_QUANTA 32

void sim_workload_init(struct sim_workload *w)
{
    memset(w, 0, sizeof *w);
    strcpy(w->policy, "eevdf");
    w->cpus = SIM_DEFAULT_CPUS;
    w->quantum_ns = SIM_DEFAULT_QUANTUM;
    w->run_ns = SIM_DEFAULT_QUANTA * SIM_DEFAULT_QUANTUM;
}

bool sim_set_feature(struct sim_workload *w, const char *name, bool on)
{
    int f = eevdf_feature_lookup(name);
    if (f < 0)
        return false;
    for (int i = 0; i < w->nfeatures; i++)
        if (w->features[i].feature == f) {
            w->features[i].on = on;
            return true;
        }
    w->features[w->nfeatures].feature = f; /* at most one entry per feature */
    w->features[w->nfeatures].on = on;
    w->nfeatures++;
    return true;
}

/* ---- durations ---- */

static const struct {
    const char *name;
    uint64_t ns;
} sim_units[] = { { "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull }, { "ns", 1ull } };

bool sim_parse_duration(const char *s, uint64_t *out)
{
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;

    if (strcmp(s, "0") == 0) {
        *out = 0;
        return true;
    }
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > 3600000000000ull)
            return false;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        for (; isdigit((unsigned char)*p); p++) {
            if (scale >= 1000000000ull)
                return false;
            frac = frac * 10 + (uint64_t)(*p - '0');
            scale *= 10;
        }
    }
    for (size_t u = 0; u < sizeof sim_units / sizeof sim_units[0]; u++) {
        if (strcmp(p, sim_units[u].name) != 0)
            continue;
        uint64_t unit = sim_units[u].ns;
        if (frac * unit % scale != 0)
            return false; /* finer than a nanosecond */
        *out = whole * unit + frac * unit / scale;
        return *out <= 3600000000000ull;
    }
    return false;
}

void sim_format_duration(char *buf, size_t len, uint64_t ns)
{
    if (ns == 0) {
        snprintf(buf, len, "0");
        return;
    }
    for (size_t u = 0; u < sizeof sim_units / sizeof sim_units[0]; u++)
        if (ns % sim_units[u].ns == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(ns / sim_units[u].ns), sim_units[u].name);
            return;
        }
}

/* ---- the parser ---- */

struct parser {
    const char *name;
    int line;
    char *err;
    size_t errlen;
};

static int perr(struct parser *p, int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->name, line);

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
    if (!sim_parse_duration(s, out))
        return perr(p, p->line, "bad %s '%s': want a number and a unit (ns, us, ms, s), e.g. 3ms", what, s);
    return 0;
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

/* "run:4ms,sleep:2ms,exit" */
static int parse_pattern(struct parser *p, char *s, struct sim_task_spec *t)
{
    char *save;

    t->nsegs = 0;
    for (char *item = strtok_r(s, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        struct sim_seg *g;
        char *colon = strchr(item, ':');

        if (t->nsegs == SIM_MAX_SEGS)
            return perr(p, p->line, "pattern has more than %d steps", SIM_MAX_SEGS);
        if (t->nsegs > 0 && t->segs[t->nsegs - 1].kind == SIM_SEG_EXIT)
            return perr(p, p->line, "nothing may follow exit in a pattern");
        g = &t->segs[t->nsegs];
        if (strcmp(item, "exit") == 0 || strcmp(item, "yield") == 0) {
            g->kind = item[0] == 'e' ? SIM_SEG_EXIT : SIM_SEG_YIELD;
            g->ns = 0;
        } else if (colon && (colon - item == 3 && strncmp(item, "run", 3) == 0)) {
            g->kind = SIM_SEG_RUN;
        } else if (colon && (colon - item == 5 && strncmp(item, "sleep", 5) == 0)) {
            g->kind = SIM_SEG_SLEEP;
        } else {
            return perr(p, p->line, "bad pattern step '%s': want run:DURATION, sleep:DURATION, yield or exit", item);
        }
        if (g->kind != SIM_SEG_EXIT && g->kind != SIM_SEG_YIELD) {
            if (duration_arg(p, "pattern duration", colon + 1, &g->ns) < 0)
                return -1;
            if (g->ns == 0)
                return perr(p, p->line, "pattern step '%s' is empty", item);
        }
        if (t->nsegs == 0 && g->kind != SIM_SEG_RUN)
            return perr(p, p->line, "a pattern starts with run:");
        if (t->nsegs > 0 && g->kind == SIM_SEG_SLEEP && t->segs[t->nsegs - 1].kind == SIM_SEG_SLEEP)
            return perr(p, p->line, "two sleeps in a row: write one longer sleep");
        t->nsegs++;
    }
    if (t->nsegs == 0)
        return perr(p, p->line, "empty pattern");
    return 0;
}

static int parse_task(struct parser *p, struct sim_workload *w, char **tok, int ntok)
{
    struct sim_task_spec *t;
    bool have_nice = false;

    if (ntok < 2)
        return perr(p, p->line, "task needs a name: task A [nice=N|weight=W] [slice=D] [arrive=D] [pattern=...]");
    if (w->ntasks == SIM_MAX_TASKS)
        return perr(p, p->line, "more than %d tasks", SIM_MAX_TASKS);
    if (strlen(tok[1]) > SIM_NAME_MAX)
        return perr(p, p->line, "task name '%s' is longer than %d characters", tok[1], SIM_NAME_MAX);
    for (const char *c = tok[1]; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return perr(p, p->line, "task name '%s': letters, digits and _ only", tok[1]);
    for (int i = 0; i < w->ntasks; i++)
        if (strcmp(w->tasks[i].name, tok[1]) == 0)
            return perr(p, p->line, "task %s is already declared on line %d", tok[1], w->tasks[i].line);
    t = &w->tasks[w->ntasks];
    memset(t, 0, sizeof *t);
    strcpy(t->name, tok[1]);
    t->line = p->line;
    for (int i = 2; i < ntok; i++) {
        char *key = tok[i], *val = strchr(key, '=');
        long n;

        if (!val)
            return perr(p, p->line, "bad task option '%s': want key=value", key);
        *val++ = '\0';
        if (strcmp(key, "nice") == 0 || strcmp(key, "weight") == 0) {
            if (have_nice)
                return perr(p, p->line, "give nice= or weight= once");
            have_nice = true;
            if (key[0] == 'w') {
                if (weight_to_nice(p, val, &t->nice) < 0)
                    return -1;
            } else if (!parse_int(val, SCHED_NICE_MIN, SCHED_NICE_MAX, &n)) {
                return perr(p, p->line, "bad nice '%s': want %d..%d", val, SCHED_NICE_MIN, SCHED_NICE_MAX);
            } else {
                t->nice = (int)n;
            }
        } else if (strcmp(key, "slice") == 0) {
            if (duration_arg(p, "slice", val, &t->slice_ns) < 0)
                return -1;
            if (t->slice_ns && (t->slice_ns < EEVDF_SLICE_MIN || t->slice_ns > EEVDF_SLICE_MAX))
                return perr(p, p->line, "slice %s is outside 100us..100ms, which EEVDF would clamp it to", val);
        } else if (strcmp(key, "arrive") == 0) {
            if (duration_arg(p, "arrive", val, &t->arrive_ns) < 0)
                return -1;
        } else if (strcmp(key, "pattern") == 0) {
            if (parse_pattern(p, val, t) < 0)
                return -1;
        } else {
            return perr(p, p->line, "unknown task option '%s': want nice, weight, slice, arrive or pattern", key);
        }
    }
    w->ntasks++;
    return 0;
}

/* One directive, already cut into tokens. */
static int parse_line(struct parser *p, struct sim_workload *w, char **tok, int ntok, int *lines)
{
    const char *d = tok[0];
    long n;

    static const char *const known[] = { "policy", "cpus", "quantum", "tick", "run", "feature" };
    bool is_known = false;

    if (strcmp(d, "task") == 0)
        return parse_task(p, w, tok, ntok);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        is_known |= strcmp(d, known[i]) == 0;
    if (!is_known)
        return perr(p, p->line, "unknown directive '%s': want policy, cpus, quantum, tick, run, feature or task", d);
    if (ntok != (strcmp(d, "feature") == 0 ? 3 : 2))
        return perr(p, p->line, "%s: wrong number of arguments", d);
    if (strcmp(d, "policy") == 0) {
        if (strcmp(tok[1], "rr") != 0 && strcmp(tok[1], "eevdf") != 0)
            return perr(p, p->line, "bad policy '%s': want rr or eevdf", tok[1]);
        strcpy(w->policy, tok[1]);
    } else if (strcmp(d, "cpus") == 0) {
        if (!parse_int(tok[1], 1, 64, &n))
            return perr(p, p->line, "bad cpus '%s': want 1..64", tok[1]);
        w->cpus = (unsigned)n;
    } else if (strcmp(d, "quantum") == 0) {
        if (duration_arg(p, "quantum", tok[1], &w->quantum_ns) < 0)
            return -1;
        if (w->quantum_ns == 0)
            return perr(p, p->line, "the quantum must be longer than 0");
        lines[0] = p->line;
    } else if (strcmp(d, "tick") == 0) {
        if (duration_arg(p, "tick", tok[1], &w->tick_ns) < 0)
            return -1;
        if (w->tick_ns == 0)
            return perr(p, p->line, "the tick must be longer than 0");
        lines[1] = p->line;
    } else if (strcmp(d, "run") == 0) {
        if (duration_arg(p, "run", tok[1], &w->run_ns) < 0)
            return -1;
        lines[2] = p->line;
    } else { /* feature */
        bool on = strcmp(tok[2], "on") == 0;
        if (!on && strcmp(tok[2], "off") != 0)
            return perr(p, p->line, "feature %s: want on or off, not '%s'", tok[1], tok[2]);
        if (!sim_set_feature(w, tok[1], on))
            return perr(p, p->line, "no feature '%s' (see kernel/sched/eevdf_features.h)", tok[1]);
    }
    return 0;
}

static bool whole_quanta(uint64_t ns, uint64_t q)
{
    return ns % q == 0;
}

/* The checks that need the whole file: everything the loop steps through
 * must land on a quantum boundary. lines[] holds where quantum, tick and
 * run were given (0: defaults). */
static int check_workload(struct parser *p, const struct sim_workload *w, const int *lines)
{
    char q[32];
    uint64_t nq = w->run_ns / w->quantum_ns;

    sim_format_duration(q, sizeof q, w->quantum_ns);
    if (w->tick_ns && !whole_quanta(w->tick_ns, w->quantum_ns))
        return perr(p, lines[1], "the tick must be a whole number of quanta (%s)", q);
    if (!whole_quanta(w->run_ns, w->quantum_ns) || nq == 0)
        return perr(p, lines[2] ? lines[2] : lines[0], "run must be a positive whole number of quanta (%s)", q);
    if (nq > SIM_MAX_QUANTA)
        return perr(p, lines[2] ? lines[2] : lines[0], "run is %llu quanta; at most %d", (unsigned long long)nq,
                    SIM_MAX_QUANTA);
    for (int i = 0; i < w->ntasks; i++) {
        const struct sim_task_spec *t = &w->tasks[i];
        if (!whole_quanta(t->arrive_ns, w->quantum_ns))
            return perr(p, t->line, "task %s: arrive must be a whole number of quanta (%s)", t->name, q);
        for (int k = 0; k < t->nsegs; k++)
            if (!whole_quanta(t->segs[k].ns, w->quantum_ns))
                return perr(p, t->line, "task %s: pattern steps must be whole numbers of quanta (%s)", t->name, q);
    }
    return 0;
}

#define SIM_MAX_TOKENS 32
#define SIM_XSTR(x) #x
#define SIM_STR(x) SIM_XSTR(x)
/* A workload is a small text file: a line longer than this, or a NUL byte,
 * is not one (`runq sim /dev/zero` read forever), and neither is a file of
 * more lines than this. */
#define SIM_LINE_MAX 1024
#define SIM_LINES_MAX 10000

/* Reads one line of at most SIM_LINE_MAX - 1 bytes into buf (newline
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
        if (n + 1 == SIM_LINE_MAX) {
            *why = "longer than " SIM_STR(SIM_LINE_MAX) " bytes";
            return -1;
        }
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return c == EOF && n == 0 ? 0 : 1;
}

int sim_parse(FILE *f, const char *name, struct sim_workload *w, char *err, size_t errlen)
{
    struct parser p = { name, 0, err, errlen };
    int lines[3] = { 0, 0, 0 };
    char buf[SIM_LINE_MAX];
    const char *why = NULL;
    int rc = 0, got;

    sim_workload_init(w);
    while (rc == 0 && (got = read_line(f, buf, &why)) != 0) {
        char *tok[SIM_MAX_TOKENS], *hash = strchr(buf, '#');
        int ntok = 0;

        p.line++;
        if (got < 0) {
            rc = perr(&p, p.line, "%s", why);
            break;
        }
        if (p.line > SIM_LINES_MAX) {
            rc = perr(&p, p.line, "more than %d lines: not a workload", SIM_LINES_MAX);
            break;
        }
        if (hash)
            *hash = '\0';
        for (char *s = strtok(buf, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
            if (ntok == SIM_MAX_TOKENS) {
                rc = perr(&p, p.line, "more than %d words on a line", SIM_MAX_TOKENS);
                break;
            }
            tok[ntok++] = s;
        }
        if (rc == 0 && ntok > 0)
            rc = parse_line(&p, w, tok, ntok, lines);
    }
    if (rc == 0 && ferror(f))
        rc = perr(&p, p.line, "read error: %s", strerror(errno));
    if (rc == 0 && w->ntasks == 0)
        rc = perr(&p, p.line, "no tasks: add a line like 'task A'");
    if (rc == 0 && !lines[2])
        w->run_ns = SIM_DEFAULT_QUANTA * w->quantum_ns; /* the default is in quanta */
    if (rc == 0)
        rc = check_workload(&p, w, lines);
    return rc;
}

/* ---- printing a workload back ---- */

void sim_workload_print(FILE *out, const struct sim_workload *w)
{
    char a[32], b[32];

    fprintf(out, "policy %s\n", w->policy);
    if (strcmp(w->policy, "eevdf") == 0)
        fprintf(out, "cpus %u\n", w->cpus);
    sim_format_duration(a, sizeof a, w->quantum_ns);
    fprintf(out, "quantum %s\n", a);
    if (w->tick_ns && w->tick_ns != w->quantum_ns) {
        sim_format_duration(a, sizeof a, w->tick_ns);
        fprintf(out, "tick %s\n", a);
    }
    sim_format_duration(a, sizeof a, w->run_ns);
    fprintf(out, "run %s\n", a);
    for (int i = 0; i < w->nfeatures; i++)
        fprintf(out, "feature %s %s\n", eevdf_feature_name((enum eevdf_feature)w->features[i].feature),
                w->features[i].on ? "on" : "off");
    for (int i = 0; i < w->ntasks; i++) {
        const struct sim_task_spec *t = &w->tasks[i];

        fprintf(out, "task %s", t->name);
        if (t->nice)
            fprintf(out, " nice=%d", t->nice);
        if (t->slice_ns) {
            sim_format_duration(a, sizeof a, t->slice_ns);
            fprintf(out, " slice=%s", a);
        }
        if (t->arrive_ns) {
            sim_format_duration(a, sizeof a, t->arrive_ns);
            fprintf(out, " arrive=%s", a);
        }
        for (int k = 0; k < t->nsegs; k++) {
            const struct sim_seg *g = &t->segs[k];
            sim_format_duration(b, sizeof b, g->ns);
            fprintf(out, "%s", k ? "," : " pattern=");
            if (g->kind == SIM_SEG_EXIT || g->kind == SIM_SEG_YIELD)
                fprintf(out, "%s", g->kind == SIM_SEG_EXIT ? "exit" : "yield");
            else
                fprintf(out, "%s:%s", g->kind == SIM_SEG_RUN ? "run" : "sleep", b);
        }
        fprintf(out, "\n");
    }
}
