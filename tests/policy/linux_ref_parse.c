/*
 * The workload format of docs/sim.md, read again for the Linux reference
 * with its own code: host/scenario/parse.c would link runq's eevdf.c (its
 * feature names), the code under test, and reads far more than the
 * reference models. This accepts what the generator writes and what the
 * files in docs/sim/ hold, checks less than parse.c (the workloads come
 * from runq's own files or from linux_ref_gen.c), and reads `yield` as
 * runq sim does. A duration is spelled as the format spells it:
 * host/scenario/duration.c reads and writes it.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host/scenario/scenario.h"
#include "linux_ref.h"
#include "weights.h"

static const struct {
    const char *name;
    bool on;
} lref_features[] = {
#define LREF_FEATURE_ROW(name, on) { #name, on },
    LREF_FEATURES(LREF_FEATURE_ROW)
#undef LREF_FEATURE_ROW
};

/* Alike in shape to host/scenario/parse.c's table lookups, not shared:
 * this table is Linux 6.18's switches with Linux's defaults (linux_ref.h),
 * and the reference reads its workloads with its own code (the top of
 * this file). */
int lref_feature_lookup(const char *name)
{
    for (int f = 0; f < LREF_NR_FEATURES; f++)
        if (strcmp(lref_features[f].name, name) == 0)
            return f;
    return -1;
}

const char *lref_feature_name(enum lref_feature f)
{
    return lref_features[f].name;
}

bool lref_feature_default(enum lref_feature f)
{
    return lref_features[f].on;
}

void lref_workload_init(struct lref_workload *w)
{
    memset(w, 0, sizeof *w);
    w->cpus = 4;
    w->quantum_ns = 1000000;
    w->run_ns = 32 * w->quantum_ns;
    memset(w->feature, -1, sizeof w->feature);
}

struct lref_parser {
    const char *name;
    int line;
    char *err;
    size_t errlen;
};

static int lref_perr(struct lref_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int lref_perr(struct lref_parser *p, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->name, p->line);

    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errlen)
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_pattern(struct lref_parser *p, char *s, struct lref_task_spec *t)
{
    for (char *step = strtok(s, ","); step; step = strtok(NULL, ",")) {
        struct lref_seg *g = &t->segs[t->nsegs];

        if (t->nsegs == LREF_MAX_SEGS)
            return lref_perr(p, "more than %d pattern steps", LREF_MAX_SEGS);
        if (strcmp(step, "exit") == 0)
            g->kind = LREF_SEG_EXIT;
        else if (strcmp(step, "yield") == 0)
            g->kind = LREF_SEG_YIELD;
        else if (strncmp(step, "run:", 4) == 0 && scn_parse_duration(step + 4, &g->ns) && g->ns)
            g->kind = LREF_SEG_RUN;
        else if (strncmp(step, "sleep:", 6) == 0 && scn_parse_duration(step + 6, &g->ns) && g->ns)
            g->kind = LREF_SEG_SLEEP;
        else
            return lref_perr(p, "bad pattern step '%s'", step);
        t->nsegs++;
    }
    if (t->nsegs == 0 || t->segs[0].kind != LREF_SEG_RUN)
        return lref_perr(p, "a pattern starts with run:");
    for (int i = 0; i + 1 < t->nsegs; i++)
        if (t->segs[i].kind == LREF_SEG_EXIT)
            return lref_perr(p, "exit must be the last step");
    return 0;
}

static int parse_task(struct lref_parser *p, char *rest, struct lref_workload *w)
{
    struct lref_task_spec *t = &w->tasks[w->ntasks];
    char *name = strtok(rest, " \t"), *opts[8];
    int nopts = 0;

    if (w->ntasks == LREF_MAX_TASKS)
        return lref_perr(p, "more than %d tasks", LREF_MAX_TASKS);
    if (!name || strlen(name) > LREF_NAME_MAX)
        return lref_perr(p, "bad task name");
    memset(t, 0, sizeof *t);
    strcpy(t->name, name);
    for (char *o = strtok(NULL, " \t"); o; o = strtok(NULL, " \t")) {
        if (nopts == 8)
            return lref_perr(p, "too many task options");
        opts[nopts++] = o;
    }
    for (int i = 0; i < nopts; i++) {
        char *o = opts[i], *v = strchr(o, '=');
        uint64_t d;

        if (!v)
            return lref_perr(p, "bad task option '%s'", o);
        *v++ = '\0';
        if (strcmp(o, "nice") == 0) {
            t->nice = atoi(v);
            if (t->nice < -20 || t->nice > 19)
                return lref_perr(p, "nice %s out of -20..19", v);
        } else if (strcmp(o, "weight") == 0) {
            int n;
            for (n = -20; n <= 19 && sched_nice_to_weight(n) != (uint32_t)atoi(v); n++)
                ;
            if (n > 19)
                return lref_perr(p, "weight %s is no nice value's", v);
            t->nice = n;
        } else if (strcmp(o, "slice") == 0 && scn_parse_duration(v, &d)) {
            t->slice_ns = d;
        } else if (strcmp(o, "arrive") == 0 && scn_parse_duration(v, &d)) {
            t->arrive_ns = d;
        } else if (strcmp(o, "pattern") == 0) {
            if (parse_pattern(p, v, t))
                return -1;
        } else {
            return lref_perr(p, "bad task option '%s'", o);
        }
    }
    w->ntasks++;
    return 0;
}

static int parse_line(struct lref_parser *p, char *s, struct lref_workload *w)
{
    char *key = strtok(s, " \t"), *rest = strtok(NULL, ""), *arg;

    if (!key)
        return 0;
    if (strcmp(key, "task") == 0)
        return rest ? parse_task(p, rest, w) : lref_perr(p, "task needs a name");
    arg = rest ? strtok(rest, " \t") : NULL;
    if (!arg)
        return lref_perr(p, "%s needs a value", key);
    if (strcmp(key, "policy") == 0)
        return strcmp(arg, "eevdf") == 0 ? 0 : lref_perr(p, "the reference is Linux's fair class: policy eevdf only");
    if (strcmp(key, "cpus") == 0) {
        w->cpus = (unsigned)atoi(arg);
        return w->cpus ? 0 : lref_perr(p, "bad cpus");
    }
    if (strcmp(key, "quantum") == 0)
        return scn_parse_duration(arg, &w->quantum_ns) && w->quantum_ns ? 0 : lref_perr(p, "bad quantum");
    if (strcmp(key, "tick") == 0)
        return scn_parse_duration(arg, &w->tick_ns) ? 0 : lref_perr(p, "bad tick");
    if (strcmp(key, "run") == 0)
        return scn_parse_duration(arg, &w->run_ns) ? 0 : lref_perr(p, "bad run");
    if (strcmp(key, "feature") == 0) {
        char *on = strtok(NULL, " \t");
        int f = lref_feature_lookup(arg);

        if (f < 0)
            return lref_perr(p, "no feature '%s' in Linux's features.h that runq has", arg);
        if (!on || (strcmp(on, "on") != 0 && strcmp(on, "off") != 0))
            return lref_perr(p, "feature %s on|off", arg);
        w->feature[f] = strcmp(on, "on") == 0;
        return 0;
    }
    return lref_perr(p, "unknown directive '%s'", key);
}

/* Everything the loop steps through must be whole quanta. */
static int check_quanta(struct lref_parser *p, const struct lref_workload *w)
{
    uint64_t q = w->quantum_ns;

    p->line = 0;
    if ((w->tick_ns && w->tick_ns % q) || w->run_ns % q || w->run_ns / q > LREF_MAX_QUANTA)
        return lref_perr(p, "tick and run must be whole quanta");
    for (int i = 0; i < w->ntasks; i++) {
        const struct lref_task_spec *t = &w->tasks[i];
        if (t->arrive_ns % q)
            return lref_perr(p, "task %s: arrive is not whole quanta", t->name);
        for (int k = 0; k < t->nsegs; k++)
            if (t->segs[k].ns % q)
                return lref_perr(p, "task %s: step %d is not whole quanta", t->name, k + 1);
    }
    return w->ntasks ? 0 : lref_perr(p, "no task");
}

int lref_parse(FILE *f, const char *name, struct lref_workload *w, char *err, size_t errlen)
{
    struct lref_parser p = { name, 0, err, errlen };
    char buf[1024];

    lref_workload_init(w);
    while (fgets(buf, sizeof buf, f)) {
        char *hash = strchr(buf, '#');

        p.line++;
        if (hash)
            *hash = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        if (parse_line(&p, buf, w))
            return -1;
    }
    return check_quanta(&p, w);
}

static void print_duration(FILE *out, uint64_t ns)
{
    char b[32]; /* "3600000000000ns" at the most */
    scn_format_duration(b, sizeof b, ns);
    fputs(b, out);
}

void lref_workload_print(FILE *out, const struct lref_workload *w)
{
    static const char *const step[] = { "run:", "sleep:", "yield", "exit" };

    fprintf(out, "policy eevdf\ncpus %u\nquantum ", w->cpus);
    print_duration(out, w->quantum_ns);
    fprintf(out, "\ntick ");
    print_duration(out, w->tick_ns ? w->tick_ns : w->quantum_ns);
    fprintf(out, "\nrun ");
    print_duration(out, w->run_ns);
    fprintf(out, "\n");
    for (int f = 0; f < LREF_NR_FEATURES; f++)
        if (w->feature[f] >= 0)
            fprintf(out, "feature %s %s\n", lref_feature_name((enum lref_feature)f), w->feature[f] ? "on" : "off");
    for (int i = 0; i < w->ntasks; i++) {
        const struct lref_task_spec *t = &w->tasks[i];

        fprintf(out, "task %s", t->name);
        if (t->nice)
            fprintf(out, " nice=%d", t->nice);
        if (t->slice_ns) {
            fprintf(out, " slice=");
            print_duration(out, t->slice_ns);
        }
        if (t->arrive_ns) {
            fprintf(out, " arrive=");
            print_duration(out, t->arrive_ns);
        }
        for (int k = 0; k < t->nsegs; k++) {
            fprintf(out, "%s%s", k ? "," : " pattern=", step[t->segs[k].kind]);
            if (t->segs[k].kind == LREF_SEG_RUN || t->segs[k].kind == LREF_SEG_SLEEP)
                print_duration(out, t->segs[k].ns);
        }
        fprintf(out, "\n");
    }
}
