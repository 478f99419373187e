/*
 * `runq report compare A B`: a paired comparison of two runs, as seed 004
 * made one ("false better in 4 intervals, true in 10, sign test p =
 * 0.18"). docs/compare.md is the guide; the contract is in compare.h.
 *
 * In order:
 *   1. the options (the command's flags, read by host/cli/report_compare.c,
 *      or a lab's words, by compare_words(): one parser a value), and A
 *      and B: each a trace id, `run:N` (a scenario run) or E/C[/R]
 *      (experiment E's cell C, repeat R, default 0);
 *   2. what the database knows of each run: its trace's settings (policy,
 *      cpus, hz, the EEVDF switches, anything `sched_set` records for the
 *      whole machine before the run starts) and, for a scenario run, its
 *      cell's parameters, its seed and its scenario's text. Then the
 *      check: one scenario and one seed, or a refusal (--force compares
 *      anyway), and the settings that differ, with a warning when more
 *      than one does;
 *   3. each run's window of guest time, from its `scn start` mark (else
 *      its first record) to its `scn end` mark (else its last), cut into
 *      --interval pieces from its own start; interval i of A is paired
 *      with interval i of B, whole intervals only;
 *   4. per interval and side, the wake->run samples of the chosen tasks
 *      (a sample falls in the interval its wakeup does): how many, the
 *      share past --threshold, p99, p99.9 and max by scn_rank() (the one
 *      percentile rule of every engine, through scn_stats_lateness()),
 *      and, where the database has a `bounce` table, the bounce samples
 *      and the releases to a higher class; which side was better by
 *      --metric;
 *   5. the sign test over the intervals one side won.
 *
 * compare_pair() is steps 2 to 5 without the printing, for two runs each
 * in its own database: a lab's truth (labs/engine/lab_eval.c) is this command's
 * verdict on the student's two recordings.
 *
 * Why intervals and a sign test: two runs of a scheduler are one sample
 * each, and their tails differ by luck as much as by setting. Cut into
 * intervals of the same scenario time, each interval is a small paired
 * experiment; the sign test asks only which side won each, so one
 * interval's outlier counts once, not by its size. It needs the intervals
 * to be alike, which is why the runs must be one scenario and seed.
 *
 * An interval that crosses a data gap on either side is unknown (its
 * samples are not all there), and one where a side has no samples cannot
 * be judged: neither is compared, and the count says so.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "host/analysis/compare.h"
#include "db/q_compare.h"
#include "db/query.h"
#include "db/visible.h"
#include "host/base/xalloc.h"
#include "host/scenario/scenario.h"

#define CMP_MAX_SETTINGS 96
#define CMP_MAX_INTERVALS 100000

/* ---- the options ---- */

static const char *const metric_names[] = { "tail", "p99", "p99.9", "max" };
_Static_assert(sizeof metric_names / sizeof metric_names[0] == COMPARE_BY_MAX + 1, "a name for each metric");

/* Where refusals and warnings go: stderr for the report; compare_pair()
 * catches them in memory and returns the refusal as its reason. */
static FILE *cmp_msg;

/* One line on cmp_msg, "runq report compare: ...", and status: 2 for a
 * usage error (the spelling of the command), 1 for a refusal (what the
 * database holds). */
static int complain(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int complain(int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(cmp_msg, "runq report compare: ");
    va_start(ap, fmt);
    vfprintf(cmp_msg, fmt, ap);
    va_end(ap);
    fprintf(cmp_msg, "\n");
    return status;
}

int compare_parse_interval(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return !scn_parse_duration(v, value) || *(uint64_t *)value == 0;
}

int compare_parse_threshold(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return !scn_parse_duration(v, value);
}

int compare_parse_metric(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    for (size_t m = 0; m < sizeof metric_names / sizeof metric_names[0]; m++)
        if (!strcmp(metric_names[m], v)) {
            *(enum compare_metric *)value = (enum compare_metric)m;
            return 0;
        }
    return 1;
}

int compare_parse_task(const char *v, void *value, char *err, size_t errlen)
{
    struct compare_opts *o = value;
    const char *star = strchr(v, '*');
    if (!*v || star != strrchr(v, '*') || (star && v[strlen(v) - 1] != '*') || !strcmp(v, "*"))
        return 1;
    if (o->ntasks == COMPARE_MAX_TASKS) {
        snprintf(err, errlen, "at most %d --task", COMPARE_MAX_TASKS);
        return 1;
    }
    o->task[o->ntasks++] = v;
    return 0;
}

void compare_defaults(struct compare_opts *o)
{
    memset(o, 0, sizeof *o);
    o->interval_ns = 1000000000ull;
    o->threshold_ns = 1000000ull;
    o->metric = COMPARE_BY_TAIL;
}

/* The options a lab's words may set: the command's flags of the
 * intervals, read by the same parsers. */
static const struct pair_option {
    const char *name;  /* --NAME */
    const char *takes; /* NULL: a switch, which takes no value */
    int (*parse)(const char *v, void *value, char *err, size_t errlen);
    size_t at;         /* its value's offset in struct compare_opts */
} pair_options[] = {
    { "interval", COMPARE_TAKES_INTERVAL, compare_parse_interval, offsetof(struct compare_opts, interval_ns) },
    { "threshold", COMPARE_TAKES_THRESHOLD, compare_parse_threshold, offsetof(struct compare_opts, threshold_ns) },
    { "metric", COMPARE_TAKES_METRIC, compare_parse_metric, offsetof(struct compare_opts, metric) },
    { "task", COMPARE_TAKES_TASK, compare_parse_task, 0 }, /* appends to the struct */
    { "force", NULL, NULL, offsetof(struct compare_opts, force) },
};

int compare_words(char **words, int n, struct compare_opts *o, char *err, size_t errlen)
{
    compare_defaults(o);
    for (int i = 0; i < n; i++) {
        const char *w = words[i], *eq = strchr(w, '='), *v = NULL;
        size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
        const struct pair_option *f = NULL;
        for (size_t r = 0; w[0] == '-' && w[1] == '-' && r < sizeof pair_options / sizeof pair_options[0]; r++)
            if (strlen(pair_options[r].name) == len && !strncmp(pair_options[r].name, w + 2, len))
                f = &pair_options[r];
        if (!f) {
            snprintf(err, errlen, "%s: a pair takes the intervals' flags only (--interval, --threshold, --metric, "
                                  "--task, --force)", w);
            return 2;
        }
        void *value = (char *)o + f->at;
        if (!f->takes) {
            *(bool *)value = true;
            continue;
        }
        v = eq ? eq + 1 : i + 1 < n ? words[++i] : NULL;
        char why[128] = "";
        if (!v) {
            snprintf(err, errlen, "--%s needs a value", f->name);
            return 2;
        }
        if (f->parse(v, value, why, sizeof why)) {
            if (why[0])
                snprintf(err, errlen, "--%s %s: %s", f->name, v, why);
            else
                snprintf(err, errlen, "--%s takes %s, not '%s'", f->name, f->takes, v);
            return 2;
        }
    }
    return 0;
}

/* ---- what the database knows of a run ---- */

struct cmp_setting {
    char key[64], value[64];
};

/* One interval of one run. */
struct cmp_iv {
    struct scn_stats st; /* wakeups: the samples; stalls: past the threshold; late[]: p50..max */
    uint64_t bounces, releases;
    bool gap; /* crosses a data gap: unknown */
};

struct cmp_run {
    char side;          /* 'A' or 'B' */
    const char *arg;    /* as given */
    sqlite3 *db;        /* the database it is read from (the command: both from --db) */
    int64_t trace, scenario, experiment; /* 0: none */
    int cell, repeat;
    uint64_t seed;
    char *params, *text, *file, *status; /* NULL: not a scenario run */
    int64_t start, end;
    bool start_mark, end_mark;
    uint64_t nfull; /* whole intervals in its window */
    struct cmp_iv *iv;
    int nset, nparam;
    struct cmp_setting set[CMP_MAX_SETTINGS];   /* from the trace */
    struct cmp_setting param[CMP_MAX_SETTINGS]; /* the cell's */
};

/* A failed read's message (db/q_compare.h's err) on cmp_msg. */
static void read_failed(const char *err)
{
    fprintf(cmp_msg, "runq report compare: %s\n", err);
}

/* Sets key to value in list (replacing an earlier value of key). Both
 * come from the database and are only shown and compared: kept visible
 * (db/visible.h), as every report prints names. */
static void set_put(struct cmp_setting *list, int *n, const char *key, const char *value)
{
    char k[sizeof list->key];
    text_visible(k, sizeof k, key);
    int i = 0;
    while (i < *n && strcmp(list[i].key, k))
        i++;
    if (i == CMP_MAX_SETTINGS)
        return;
    snprintf(list[i].key, sizeof list[i].key, "%s", k);
    text_visible(list[i].value, sizeof list[i].value, value);
    if (i == *n)
        (*n)++;
}

static const char *set_get(const struct cmp_setting *list, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i].key, key) == 0)
            return list[i].value;
    return NULL;
}

/* "N", "N/N" or "N/N/N" into v: how many numbers, each digits only and
 * within int64 (sscanf's %lld is undefined past it); 0 for anything else. */
static int parse_ids(const char *s, int64_t v[3])
{
    int n = 0;
    for (const char *p = s;; n++) {
        char part[24];
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        uint64_t x;
        if (n == 3 || len >= sizeof part)
            return 0;
        memcpy(part, p, len);
        part[len] = '\0';
        if (!scn_parse_count(part, INT64_MAX, &x))
            return 0;
        v[n] = (int64_t)x;
        if (!slash)
            return n + 1;
        p = slash + 1;
    }
}

/* Which run the argument names: its trace, and its scenario row when it
 * has one. 0, 1 after a refusal, 2 after a usage error. */
static int find_run(struct cmp_run *r)
{
    sqlite3 *db = r->db;
    char err[512];
    int64_t v[3] = { 0, 0, 0 };
    bool run = strncmp(r->arg, "run:", 4) == 0, scenarios = dbq_has_table(db, "scenario", err, sizeof err) > 0;
    int n = parse_ids(r->arg + (run ? 4 : 0), v);
    int64_t a = v[0], b = v[1], c = v[2];
    enum dbq_cmp_by by;

    if (run && n == 1 && a > 0)
        by = DBQ_CMP_BY_SCENARIO;
    else if (!run && n >= 2 && a > 0)
        by = DBQ_CMP_BY_CELL;
    else if (!run && n == 1 && a > 0)
        by = DBQ_CMP_BY_TRACE;
    else
        return complain(2, "%c: want a trace id (3), a scenario run (run:5) or an experiment's cell (2/1), not '%s'",
                     r->side, r->arg);
    bool by_trace = by == DBQ_CMP_BY_TRACE;
    if (!scenarios && !by_trace)
        return complain(1, "%s holds no scenario runs (no scenario table): name the traces", r->arg);

    if (scenarios) {
        struct dbq_cmp_run row;
        if (dbq_cmp_find_run(db, by, a, b, c, &row, err, sizeof err) != 0) {
            read_failed(err);
            return 1;
        }
        r->scenario = row.scenario;
        r->trace = row.trace;
        r->experiment = row.experiment;
        r->cell = row.cell;
        r->repeat = row.repeat;
        r->seed = row.seed;
        r->params = row.params;
        r->text = row.text;
        r->file = row.file;
        r->status = row.status;
        if (!r->scenario && !by_trace)
            return complain(1, "%c: no scenario run %s in the database", r->side,
                          strchr(r->arg, '/') ? r->arg : r->arg + 4);
        if (r->scenario && !r->trace)
            return complain(1, "%c: scenario run %lld has no trace (engine sim runs on paper): nothing to compare",
                          r->side, (long long)r->scenario);
    }
    if (by_trace)
        r->trace = a;
    int found = dbq_cmp_has_trace(db, r->trace, err, sizeof err);
    if (found < 0) {
        read_failed(err);
        return 1;
    }
    if (!found)
        return complain(1, "%c: no trace %lld in the database", r->side, (long long)r->trace);
    return 0;
}

/* The run's window: from its `scn start` mark (else its first record) to
 * its `scn end` mark (else its last). 0, or 1 after a refusal. */
static int find_window(struct cmp_run *r)
{
    struct dbq_cmp_times t;
    char err[512];
    if (dbq_cmp_times(r->db, r->trace, &t, err, sizeof err) != 0) {
        read_failed(err);
        return 1;
    }
    if (t.found) {
        r->start_mark = t.has_start_mark;
        r->end_mark = t.has_end_mark;
        r->start = r->start_mark ? t.start_mark : t.start_ts;
        r->end = r->end_mark ? t.end_mark : t.end_ts;
        if (r->end_mark && r->end <= r->start) {
            r->end_mark = false;
            r->end = t.end_ts;
        }
    }
    if (r->end <= r->start)
        return complain(1, "%c: trace %lld holds no stretch of time to compare", r->side, (long long)r->trace);
    return 0;
}

/* The settings the trace records, as they were when the run started:
 * policy, cpus, hz, each EEVDF switch (feature.NAME on/off), and what
 * sched_set changed for the whole machine before then (a knob by its own
 * name). */
static void take_trace(const struct dbq_cmp_trace *t, void *arg)
{
    struct cmp_run *r = arg;
    char num[32];
    set_put(r->set, &r->nset, "policy", t->policy ? t->policy : "?");
    snprintf(num, sizeof num, "%d", t->ncpus);
    set_put(r->set, &r->nset, "cpus", num);
    snprintf(num, sizeof num, "%d", t->tick_hz);
    set_put(r->set, &r->nset, "hz", num);
    char *names = t->feature_names ? xstrdup(t->feature_names) : NULL, *save = NULL, key[64];
    int bit = 0;
    for (char *n = names ? strtok_r(names, ",", &save) : NULL; n; n = strtok_r(NULL, ",", &save), bit++) {
        snprintf(key, sizeof key, "feature.%s", n);
        set_put(r->set, &r->nset, key, bit < 64 && (t->features >> bit & 1) ? "on" : "off");
    }
    free(names);
}

static void take_set(const struct dbq_cmp_set *s, void *arg)
{
    struct cmp_run *r = arg;
    const char *what = s->what, *name = s->name;
    long long v = s->value;
    char key[64], value[64];
    if (!what)
        return;
    snprintf(value, sizeof value, "%lld", v);
    if (strcmp(what, "feature") == 0) {
        snprintf(key, sizeof key, "feature.%s", name ? name : "?");
        snprintf(value, sizeof value, "%s", v ? "on" : "off");
    } else if (strcmp(what, "policy") == 0) {
        snprintf(key, sizeof key, "policy");
        snprintf(value, sizeof value, "%s", name ? name : "?");
    } else if (strcmp(what, "knob") == 0 && name) {
        snprintf(key, sizeof key, "%s", name);
    } else {
        snprintf(key, sizeof key, "%s%s%s", what, name ? "." : "", name ? name : "");
    }
    set_put(r->set, &r->nset, key, value);
}

static int trace_settings(struct cmp_run *r)
{
    char err[512];
    if (dbq_cmp_settings(r->db, r->trace, r->start, take_trace, take_set, r, err, sizeof err) != 0) {
        read_failed(err);
        return -1;
    }
    return 0;
}

/* The cell's parameters, "k=v k=v", into r->param. */
static void cell_params(struct cmp_run *r)
{
    char *copy = r->params ? xstrdup(r->params) : NULL, *save = NULL;
    for (char *kv = copy ? strtok_r(copy, " ", &save) : NULL; kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        set_put(r->param, &r->nparam, kv, eq + 1);
    }
    free(copy);
}

/* A's scenario and B's, each given both cells' values (A's, then B's)
 * and no seed, printed: equal when they are one scenario that differs
 * only in those values. 1 equal, 0 not, -1 when a text cannot be read
 * (err says why). */
static int same_scenario(const struct cmp_run *a, const struct cmp_run *b, char *err, size_t errlen)
{
    struct scenario *s = xmalloc(sizeof *s);
    char *printed[2] = { NULL, NULL };
    size_t len[2];
    int rc = -1;
    const struct cmp_run *runs[2] = { a, b };

    for (int i = 0; i < 2; i++) {
        FILE *f = fmemopen(runs[i]->text, strlen(runs[i]->text), "r");
        char name[32];
        snprintf(name, sizeof name, "run %lld", (long long)runs[i]->scenario);
        if (!f || scn_parse(f, name, s, err, errlen) < 0) {
            if (f)
                fclose(f);
            goto out;
        }
        fclose(f);
        for (int k = 0; k < 2; k++)
            for (int p = 0; p < runs[k]->nparam; p++)
                if (scn_apply(s, runs[k]->param[p].key, runs[k]->param[p].value, err, errlen) < 0)
                    goto out;
        s->seed = 0;
        s->lines.seed = 0;
        FILE *o = open_memstream(&printed[i], &len[i]);
        if (!o)
            goto out;
        scn_print(o, s);
        fclose(o);
    }
    rc = len[0] == len[1] && memcmp(printed[0], printed[1], len[0]) == 0;
out:
    free(printed[0]);
    free(printed[1]);
    free(s);
    return rc;
}

/* ---- the intervals ---- */

/* One run's whole intervals as db/q_compare.h reads them. */
static struct dbq_cmp_span span_of(const struct compare_opts *o, const struct cmp_run *r)
{
    return (struct dbq_cmp_span){
        .trace = r->trace,
        .start = r->start,
        .end = r->start + (int64_t)(r->nfull * o->interval_ns),
        .interval_ns = o->interval_ns,
        .ntasks = o->ntasks,
        .task = o->task,
    };
}

/* The wake->run samples of one run as they come, by interval then
 * latency: an interval's are gathered, and its stats made when the next
 * begins (and after the last). */
struct cmp_gather {
    const struct compare_opts *o;
    struct cmp_run *r;
    struct scn_samples v;
    int64_t cur;
};

static void gather_flush(struct cmp_gather *g)
{
    if (g->cur >= 0 && (uint64_t)g->cur < g->r->nfull) {
        g->r->iv[g->cur].st.wakeups = g->v.n;
        scn_stats_lateness(&g->r->iv[g->cur].st, g->v.v, g->v.n, g->o->threshold_ns);
    }
}

static void gather_sample(int64_t i, int64_t latency, void *arg)
{
    struct cmp_gather *g = arg;
    BUG_ON(i < g->cur); /* dbq_cmp_wake_samples gives them by interval: one's stats are made once */
    if (i != g->cur) {
        gather_flush(g);
        g->v.n = 0;
    }
    g->cur = i;
    scn_samples_add(&g->v, (uint64_t)latency);
}

/* Where count_into puts an interval's count. */
struct cmp_count {
    struct cmp_run *r;
    size_t off;
};

static void take_count(int64_t i, int64_t n, void *arg)
{
    struct cmp_count *c = arg;
    if (i >= 0 && (uint64_t)i < c->r->nfull)
        *(uint64_t *)((char *)&c->r->iv[i] + c->off) = (uint64_t)n;
}

/* Counts what a interval into the field at offset off of each. */
static int count_into(const struct dbq_cmp_span *sp, struct cmp_run *r, enum dbq_cmp_count what, size_t off)
{
    struct cmp_count c = { r, off };
    char err[512];
    if (dbq_cmp_counts(r->db, sp, what, take_count, &c, err, sizeof err) != 0) {
        read_failed(err);
        return -1;
    }
    return 0;
}

/* Marks the intervals a data gap crosses. */
static void take_gap(int64_t from, int64_t to, void *arg)
{
    struct cmp_gather *g = arg;
    struct cmp_run *r = g->r;
    /* a database's times: differences in uint64_t, where they cannot overflow */
    if (to <= r->start)
        return;
    uint64_t first = from <= r->start ? 0 : ((uint64_t)from - (uint64_t)r->start) / g->o->interval_ns;
    uint64_t last = ((uint64_t)to - 1 - (uint64_t)r->start) / g->o->interval_ns;
    for (uint64_t i = first; i <= last && i < r->nfull; i++)
        r->iv[i].gap = true;
}

/* Fills r->iv: each whole interval's samples, bounces and releases
 * (where its database has a bounce table), gaps. */
static int measure(const struct compare_opts *o, struct cmp_run *r)
{
    char err[512];
    bool bounce_table = dbq_has_table(r->db, "bounce", err, sizeof err) > 0;
    struct dbq_cmp_span sp = span_of(o, r);
    struct cmp_gather g = { .o = o, .r = r, .cur = -1 };

    r->iv = xcalloc(r->nfull ? r->nfull : 1, sizeof *r->iv);
    int rc = dbq_cmp_wake_samples(r->db, &sp, gather_sample, &g, err, sizeof err);
    if (rc == 0)
        gather_flush(&g);
    bool lost = g.v.dropped > 0;
    scn_samples_free(&g.v);
    if (rc != 0) {
        read_failed(err);
        return -1;
    }
    if (lost) {
        fprintf(cmp_msg, "runq report compare: out of memory\n");
        return -1;
    }
    if (bounce_table && (count_into(&sp, r, DBQ_CMP_BOUNCES, offsetof(struct cmp_iv, bounces)) < 0 ||
                         count_into(&sp, r, DBQ_CMP_RELEASES, offsetof(struct cmp_iv, releases)) < 0))
        return -1;
    if (dbq_cmp_gaps(r->db, &sp, take_gap, &g, err, sizeof err) != 0) {
        read_failed(err);
        return -1;
    }
    return 0;
}

/* -1: A was better in this interval, 1: B, 0: a tie. Lower is better;
 * the tail's shares are compared exactly, as fractions. */
static int better(enum compare_metric m, const struct scn_stats *a, const struct scn_stats *b)
{
    uint64_t x, y;
    switch (m) {
    case COMPARE_BY_TAIL: {
        unsigned __int128 l = (unsigned __int128)a->stalls * b->wakeups, r = (unsigned __int128)b->stalls * a->wakeups;
        return l < r ? -1 : l > r;
    }
    case COMPARE_BY_P99:
        x = a->late[2], y = b->late[2];
        break;
    case COMPARE_BY_P999:
        x = a->late[3], y = b->late[3];
        break;
    default:
        x = a->late[4], y = b->late[4];
        break;
    }
    return x < y ? -1 : x > y;
}

/* The exact two-sided sign test, ties already dropped: with either side
 * as likely to win each interval, the chance of a split at least as
 * uneven as wins_a : wins_b, min(1, 2 * sum_{k <= min} C(n, k) / 2^n),
 * n = wins_a + wins_b. Each term is taken through lgamma, so n may be
 * past where 2^n is a double. */
static double sign_test(unsigned wins_a, unsigned wins_b)
{
    unsigned n = wins_a + wins_b, k = wins_a < wins_b ? wins_a : wins_b;
    double sum = 0;
    for (unsigned j = 0; j <= k; j++)
        sum += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) - n * log(2.0));
    return fmin(1.0, 2 * sum);
}

/* ---- printing ---- */

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
    if (ns < 1000)
        snprintf(buf, len, "%lluns", (unsigned long long)ns);
    else if (ns < 1000000)
        snprintf(buf, len, "%.1fus", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, len, "%.2fms", (double)ns / 1e6);
    else
        snprintf(buf, len, "%.2fs", (double)ns / 1e9);
}

static void describe(const struct cmp_run *r)
{
    char v[256]; /* the database's text, visible (db/visible.h) */
    printf("  %c: trace %lld", r->side, (long long)r->trace);
    if (r->scenario) {
        printf(", scenario run %lld", (long long)r->scenario);
        text_visible(v, sizeof v, r->file);
        if (r->experiment)
            printf(" (experiment %lld cell %d repeat %d%s%s)", (long long)r->experiment, r->cell, r->repeat,
                   r->file ? ", " : "", v);
        printf(", seed %llu", (unsigned long long)r->seed);
        text_visible(v, sizeof v, r->params);
        if (r->params && *r->params)
            printf(", %s", v);
        text_visible(v, sizeof v, r->status);
        if (r->status && strcmp(r->status, "ok"))
            printf(" (the run %s)", v);
    }
    printf("\n");
}

/* A run's label in the summary: the one setting that differs, or A/B. */
struct cmp_diff {
    int n;            /* settings that differ */
    char name[2][140];
    char same[320];   /* what is known of the scenario and the seed */
};

/* Whether the cells of a and b give key other values (or only one gives
 * it). */
static bool param_differs(const struct cmp_run *a, const struct cmp_run *b, const char *key)
{
    const char *va = set_get(a->param, a->nparam, key), *vb = set_get(b->param, b->nparam, key);
    return (va || vb) && !(va && vb && strcmp(va, vb) == 0);
}

/* Prints the settings that differ, cell's first, then the trace's that
 * no differing parameter of the cell explains (a differing `switch`
 * explains every feature.*); counts them into d. */
static void settings_differ(const struct cmp_run *a, const struct cmp_run *b, bool print, struct cmp_diff *d)
{
    const struct cmp_run *rs[2] = { a, b };
    bool switch_differs = false;
    d->n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const struct cmp_setting *list[2] = { pass ? a->set : a->param, pass ? b->set : b->param };
        int n[2] = { pass ? a->nset : a->nparam, pass ? b->nset : b->nparam };
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < n[side]; i++) {
                const char *key = list[side][i].key;
                if (side == 1 && set_get(list[0], n[0], key))
                    continue; /* seen from A's side */
                const char *va = set_get(list[0], n[0], key), *vb = set_get(list[1], n[1], key);
                if (va && vb && strcmp(va, vb) == 0)
                    continue;
                if (pass && ((switch_differs && strncmp(key, "feature.", 8) == 0) || param_differs(a, b, key)))
                    continue; /* the cell's difference, seen in the trace */
                if (!pass && strcmp(key, "switch") == 0)
                    switch_differs = true;
                if (print)
                    printf("  %-28s %s | %s%s\n", key, va ? va : "-", vb ? vb : "-", pass ? "  (in the trace)" : "");
                if (++d->n == 1)
                    for (int k = 0; k < 2; k++) {
                        const char *v = set_get(pass ? rs[k]->set : rs[k]->param, pass ? rs[k]->nset : rs[k]->nparam,
                                                key);
                        snprintf(d->name[k], sizeof d->name[k], "%s=%s", key, v ? v : "-");
                    }
            }
    }
    if (d->n != 1)
        for (int k = 0; k < 2; k++)
            snprintf(d->name[k], sizeof d->name[k], "%c", rs[k]->side);
}

/* The checks of step 2: 0 to go on (d says what is known), 1 after a
 * refusal. */
static int check_pair(const struct compare_opts *o, const struct cmp_run *a, const struct cmp_run *b, struct cmp_diff *d)
{
    char err[512];
    const char *fa = a->file ? a->file : "no file", *fb = b->file ? b->file : "no file";
    bool seeds = a->seed == b->seed;
    int same = -1;

    if (a->db == b->db && a->trace == b->trace)
        return complain(1, "A and B are the same trace (%lld)", (long long)a->trace);
    settings_differ(a, b, false, d);
    if (!a->scenario || !b->scenario) {
        const char *who = a->scenario ? "B is not" : b->scenario ? "A is not" : "neither is";
        snprintf(d->same, sizeof d->same, "not known (%s a scenario run)", who);
        fprintf(cmp_msg, "runq report compare: warning: %s a scenario run: whether A and B are one scenario and "
                        "seed is not known\n", who);
    } else {
        if (a->experiment && a->experiment == b->experiment)
            same = 1;
        else if (a->text && b->text)
            same = same_scenario(a, b, err, sizeof err);
        else
            snprintf(err, sizeof err, "a run has no text");
        if (same < 0)
            fprintf(cmp_msg, "runq report compare: warning: cannot tell whether A and B are one scenario: %s\n", err);
        const char *warn = o->force ? "warning: " : "", *how = o->force ? "" : "; --force compares them anyway";
        if (!same)
            fprintf(cmp_msg, "runq report compare: %sother scenarios: A's (%s) and B's (%s) differ beyond their cells' "
                            "values%s\n", warn, fa, fb, how);
        if (!seeds)
            fprintf(cmp_msg, "runq report compare: %sother seeds: A's is %llu, B's %llu%s\n", warn,
                    (unsigned long long)a->seed, (unsigned long long)b->seed, how);
        if ((!same || !seeds) && !o->force)
            return 1;
        if (same > 0 && a->experiment == b->experiment)
            snprintf(d->same, sizeof d->same, "one scenario (experiment %lld, %s)", (long long)a->experiment, fa);
        else if (same > 0)
            snprintf(d->same, sizeof d->same, "one scenario (%s; %s: one text but for the cells' values)", fa, fb);
        else
            snprintf(d->same, sizeof d->same, "%s (%s; %s)", same ? "scenario not known" : "OTHER SCENARIOS", fa, fb);
        size_t n = strlen(d->same);
        if (seeds)
            snprintf(d->same + n, sizeof d->same - n, ", one seed (%llu)", (unsigned long long)a->seed);
        else
            snprintf(d->same + n, sizeof d->same - n, ", OTHER SEEDS (%llu, %llu)", (unsigned long long)a->seed,
                     (unsigned long long)b->seed);
    }
    if (d->n > 1)
        fprintf(cmp_msg, "runq report compare: warning: %d settings differ, not one: a side's wins are not one "
                        "setting's\n",
                d->n);
    return 0;
}

static void print_side(const struct cmp_iv *v, const struct compare_opts *o, bool bounces)
{
    char p99[16], p999[16], max[16], tail[16];
    const struct scn_stats *s = &v->st;
    if (o->csv) {
        printf(",%llu,%llu,%llu,%llu,%llu", (unsigned long long)s->wakeups, (unsigned long long)s->stalls,
               (unsigned long long)s->late[2], (unsigned long long)s->late[3], (unsigned long long)s->late[4]);
        if (bounces)
            printf(",%llu,%llu", (unsigned long long)v->bounces, (unsigned long long)v->releases);
        return;
    }
    if (!s->wakeups) {
        printf("  %8s %8s %8s %8s %8s", "0", "-", "-", "-", "-");
    } else {
        fmt_ns(p99, sizeof p99, s->late[2]);
        fmt_ns(p999, sizeof p999, s->late[3]);
        fmt_ns(max, sizeof max, s->late[4]);
        snprintf(tail, sizeof tail, "%.3f%%", 100.0 * (double)s->stalls / (double)s->wakeups);
        printf("  %8llu %8s %8s %8s %8s", (unsigned long long)s->wakeups, tail, p99, p999, max);
    }
    if (bounces)
        printf(" %9llu %10llu", (unsigned long long)v->bounces, (unsigned long long)v->releases);
}

static void print_header(const struct compare_opts *o, bool bounces)
{
    char th[16];
    if (o->csv) {
        printf("interval");
        for (int k = 0; k < 2; k++) {
            const char *p = k ? "b" : "a";
            printf(",%s_wakeups,%s_past,%s_p99_ns,%s_p999_ns,%s_max_ns", p, p, p, p, p);
            if (bounces)
                printf(",%s_bounces,%s_releases", p, p);
        }
        printf(",better\n");
        return;
    }
    scn_format_duration(th, sizeof th, o->threshold_ns);
    char past[24];
    snprintf(past, sizeof past, ">%s", th);
    printf("%8s", "interval");
    for (int k = 0; k < 2; k++) {
        char col[5][24];
        const char *name[5] = { "wakeups", past, "p99", "p99.9", "max" };
        for (int c = 0; c < 5; c++)
            snprintf(col[c], sizeof col[c], "%c %s", k ? 'B' : 'A', name[c]);
        printf("  %8s %8s %8s %8s %8s", col[0], col[1], col[2], col[3], col[4]);
        if (bounces)
            printf(" %9s %10s", k ? "B bounces" : "A bounces", k ? "B releases" : "A releases");
    }
    printf("  better\n");
}

/* ---- steps 2 to 5, for the command and for compare_pair() ---- */

/* Steps 2 to 4 for runs[0] and runs[1], each with its arg and db: which
 * runs, their settings and windows, the check of the pair (into d), each
 * whole interval measured. 0, or the exit status after a line on
 * cmp_msg. */
static int cmp_measure(const struct compare_opts *o, struct cmp_run runs[2], struct cmp_diff *d)
{
    int rc = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        rc = find_run(&runs[k]);
        if (!rc)
            rc = find_window(&runs[k]);
        if (!rc && trace_settings(&runs[k]) < 0)
            rc = 1;
        if (!rc) {
            cell_params(&runs[k]);
            /* start and end are a database's: their difference may not
             * fit int64_t, and end may be before start (no whole interval). */
            runs[k].nfull = runs[k].end > runs[k].start
                                ? ((uint64_t)runs[k].end - (uint64_t)runs[k].start) / o->interval_ns
                                : 0;
        }
    }
    if (!rc)
        rc = check_pair(o, &runs[0], &runs[1], d);
    for (int k = 0; k < 2 && !rc; k++) {
        char len[32], iv[32];
        scn_format_duration(iv, sizeof iv, o->interval_ns);
        fmt_ns(len, sizeof len,
               runs[k].end > runs[k].start ? (uint64_t)runs[k].end - (uint64_t)runs[k].start : 0);
        if (!runs[k].nfull)
            rc = complain(1, "%c: its run (%s of trace %lld) is shorter than one interval (%s): see --interval",
                          runs[k].side, len, (long long)runs[k].trace, iv);
        else if (runs[k].nfull > CMP_MAX_INTERVALS)
            rc = complain(1, "--interval %s cuts %c's run into %llu intervals; at most %d", iv, runs[k].side,
                          (unsigned long long)runs[k].nfull, CMP_MAX_INTERVALS);
    }
    for (int k = 0; k < 2 && !rc; k++) {
        if (measure(o, &runs[k]) < 0)
            return 1;
        uint64_t total = 0;
        for (uint64_t i = 0; i < runs[k].nfull; i++)
            total += runs[k].iv[i].st.wakeups;
        if (!total)
            rc = complain(1, "%c: trace %lld has no wake->run samples%s in its whole intervals: nothing to compare",
                          runs[k].side, (long long)runs[k].trace, o->ntasks ? " of the chosen tasks" : "");
    }
    return rc;
}

/* One paired interval: who was better, or why it is not compared. */
enum cmp_verdict { CMP_WON_A, CMP_WON_B, CMP_TIE, CMP_UNKNOWN, CMP_EMPTY };

static enum cmp_verdict judge(const struct compare_opts *o, const struct cmp_iv *x, const struct cmp_iv *y)
{
    if (x->gap || y->gap)
        return CMP_UNKNOWN;
    if (!x->st.wakeups || !y->st.wakeups)
        return CMP_EMPTY;
    int w = better(o->metric, &x->st, &y->st);
    return w < 0 ? CMP_WON_A : w > 0 ? CMP_WON_B : CMP_TIE;
}

/* Step 5: every pair judged, and the sign test over the ones a side won. */
static void tally(const struct compare_opts *o, const struct cmp_run runs[2], const struct cmp_diff *d,
                  struct compare_result *res)
{
    memset(res, 0, sizeof *res);
    res->pairs = runs[0].nfull < runs[1].nfull ? runs[0].nfull : runs[1].nfull;
    for (uint64_t i = 0; i < res->pairs; i++)
        switch (judge(o, &runs[0].iv[i], &runs[1].iv[i])) {
        case CMP_WON_A:
            res->wins[0]++;
            break;
        case CMP_WON_B:
            res->wins[1]++;
            break;
        case CMP_TIE:
            res->ties++;
            break;
        case CMP_UNKNOWN:
            res->unknown++;
            break;
        case CMP_EMPTY:
            res->empty++;
            break;
        }
    res->p = res->wins[0] + res->wins[1] ? sign_test(res->wins[0], res->wins[1]) : 1;
    for (int k = 0; k < 2; k++)
        snprintf(res->name[k], sizeof res->name[k], "%s", d->name[k]);
}

void compare_summary(const struct compare_result *r, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s better in %u interval%s, %s in %u, %u tie%s", r->name[0], r->wins[0],
                     r->wins[0] == 1 ? "" : "s", r->name[1], r->wins[1], r->ties, r->ties == 1 ? "" : "s");
    if (n < 0 || (size_t)n >= len)
        return;
    if (r->wins[0] + r->wins[1])
        snprintf(buf + n, len - (size_t)n, ", sign test p = %.2g", r->p);
    else
        snprintf(buf + n, len - (size_t)n, ": no interval that one side won, nothing to test");
}

static void free_runs(struct cmp_run runs[2])
{
    for (int k = 0; k < 2; k++) {
        free(runs[k].params);
        free(runs[k].text);
        free(runs[k].file);
        free(runs[k].status);
        free(runs[k].iv);
    }
}

/* The command's printing: the header (what was compared), the table, the
 * summary line. */
static void print_report(const struct compare_opts *o, const struct cmp_run runs[2], struct cmp_diff *d,
                         const struct compare_result *res)
{
    const struct cmp_run *a = &runs[0], *b = &runs[1];
    /* The bounce columns only where a higher class took a CPU from the
     * chosen tasks: a run without one would show a column of zeros. */
    bool bounces = false;
    for (uint64_t i = 0; i < res->pairs; i++)
        bounces |= a->iv[i].bounces || a->iv[i].releases || b->iv[i].bounces || b->iv[i].releases;
    char iv[16], th[16];
    scn_format_duration(iv, sizeof iv, o->interval_ns);
    scn_format_duration(th, sizeof th, o->threshold_ns);
    if (!o->csv) {
        printf("runq report compare: %s\n", o->db);
        describe(a);
        describe(b);
        printf("scenario and seed: %s\n", d->same);
        printf("%s:\n", d->n ? "settings that differ (A | B)" : "no setting differs");
        settings_differ(a, b, true, d);
        printf("tasks: %s", o->ntasks ? "" : "every task but the idle ones\n");
        for (int i = 0; i < o->ntasks; i++)
            printf("%s%s", o->task[i], i + 1 < o->ntasks ? ", " : "\n");
        printf("intervals: %s of guest time from each run's start (A: %s, B: %s); A has %llu whole, B %llu: "
               "%llu pairs, %llu dropped\n",
               iv, a->start_mark ? "its scn start mark" : "its first record",
               b->start_mark ? "its scn start mark" : "its first record", (unsigned long long)a->nfull,
               (unsigned long long)b->nfull, (unsigned long long)res->pairs,
               (unsigned long long)(a->nfull + b->nfull - 2 * res->pairs));
        if (o->metric == COMPARE_BY_TAIL)
            printf("metric: tail, the share of wake->run samples past %s; lower is better\n\n", th);
        else
            printf("metric: %s of the wake->run samples; lower is better\n\n", metric_names[o->metric]);
    }
    print_header(o, bounces);
    static const char *const words[][2] = {
        [CMP_WON_A] = { "A", "A" },
        [CMP_WON_B] = { "B", "B" },
        [CMP_TIE] = { "tie", "tie" },
        [CMP_UNKNOWN] = { "unknown (a data gap)", "unknown" },
        [CMP_EMPTY] = { "- (no samples)", "none" },
    };
    for (uint64_t i = 0; i < res->pairs; i++) {
        const struct cmp_iv *x = &a->iv[i], *y = &b->iv[i];
        printf(o->csv ? "%llu" : "%8llu", (unsigned long long)i);
        print_side(x, o, bounces);
        print_side(y, o, bounces);
        printf(o->csv ? ",%s\n" : "  %s\n", words[judge(o, x, y)][o->csv]);
    }
    if (!o->csv) {
        char line[400];
        printf("\n");
        if (res->unknown || res->empty)
            printf("not compared: %u interval%s crossing a data gap, %u with no samples on a side\n", res->unknown,
                   res->unknown == 1 ? "" : "s", res->empty);
        compare_summary(res, line, sizeof line);
        printf("%s\n", line);
    }
}

int compare_report(sqlite3 *db, const struct compare_opts *o)
{
    cmp_msg = stderr;
    static struct cmp_run runs[2];
    memset(runs, 0, sizeof runs);
    for (int k = 0; k < 2; k++) {
        runs[k].side = k ? 'B' : 'A';
        runs[k].arg = o->run[k];
        runs[k].db = db;
    }
    struct cmp_diff d;
    int rc = cmp_measure(o, runs, &d);
    if (!rc) {
        struct compare_result res;
        tally(o, runs, &d, &res);
        print_report(o, runs, &d, &res);
    }
    free_runs(runs);
    return rc;
}

int compare_pair(const char *db_a, const char *run_a, const char *db_b, const char *run_b,
                 const struct compare_opts *opts, struct compare_result *res, char *err, size_t errlen)
{
    struct compare_opts o = *opts;
    o.run[0] = run_a, o.run[1] = run_b;
    int rc = 0;

    char *msgs = NULL;
    size_t msglen = 0;
    cmp_msg = open_memstream(&msgs, &msglen);
    if (!cmp_msg) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    static struct cmp_run runs[2];
    memset(runs, 0, sizeof runs);
    const char *paths[2] = { db_a, db_b };
    for (int k = 0; k < 2 && !rc; k++) {
        runs[k].side = k ? 'B' : 'A';
        runs[k].arg = o.run[k];
        if (sqlite3_open_v2(paths[k], &runs[k].db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
            rc = complain(1, "%c: %s: %s", runs[k].side, paths[k], sqlite3_errmsg(runs[k].db));
    }
    struct cmp_diff d;
    if (!rc)
        rc = cmp_measure(&o, runs, &d);
    if (!rc)
        tally(&o, runs, &d, res);
    free_runs(runs);
    for (int k = 0; k < 2; k++)
        sqlite3_close(runs[k].db);
    fclose(cmp_msg);
    cmp_msg = stderr;
    if (rc && msgs) {
        /* The refusal is the last line; the warnings before it are dropped. */
        size_t n = strlen(msgs);
        while (n && msgs[n - 1] == '\n')
            msgs[--n] = 0;
        char *last = strrchr(msgs, '\n');
        const char *why = last ? last + 1 : msgs;
        if (!strncmp(why, "runq report compare: ", 21))
            why += 21;
        snprintf(err, errlen, "%s", why);
    }
    free(msgs);
    return rc;
}
