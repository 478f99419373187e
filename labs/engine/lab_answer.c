/*
 * runq lab: reading one answer as the student typed it. A number may carry
 * a unit ("25356 µs", "1.4ms", "25%", "250 ‰"); it is converted to the
 * question's unit, and refused if the unit is of another kind or the value
 * is out of the question's range (a negative latency, a share above 100 %).
 * A choice must be one of the question's choices; an order, letters. The
 * same check runs at the prompt (lab run asks again) and in lab check (a
 * refused answer is wrong, with the reason).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lab.h"

/* A unit the student may type: its kind and its size in the kind's base
 * (ns for time, per mille for shares). */
static const struct unit {
    const char *name;
    char kind; /* 't' time, 's' share */
    double size;
} units[] = {
    { "ns", 't', 1 },       { "us", 't', 1e3 },       { "µs", 't', 1e3 },      { "μs", 't', 1e3 },
    { "ms", 't', 1e6 },     { "s", 't', 1e9 },        { "%", 's', 10 },        { "per cent", 's', 10 },
    { "percent", 's', 10 }, { "per mille", 's', 1 },  { "permille", 's', 1 },  { "‰", 's', 1 },
};

static const struct unit *unit_named(const char *s)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(s, units[i].name))
            return &units[i];
    return NULL;
}

static const char *kind_name(char kind)
{
    return kind == 't' ? "a time" : "a share";
}

/* The range a question's unit implies when lab.conf gives none: a time or
 * a count is never negative, a share lies in 0..100 %. */
static void default_range(const struct lab_question *q, const struct unit *qu, double *lo, double *hi, bool *has_lo,
                          bool *has_hi)
{
    *has_lo = q->has_min;
    *has_hi = q->has_max;
    *lo = q->min;
    *hi = q->max;
    if (!qu)
        return;
    if (!*has_lo) {
        *lo = 0;
        *has_lo = true;
    }
    if (qu->kind == 's' && !*has_hi) {
        *hi = 1000 / qu->size;
        *has_hi = true;
    }
}

static void trim(const char *in, char *out, size_t len)
{
    while (isspace((unsigned char)*in))
        in++;
    snprintf(out, len, "%s", in);
    size_t n = strlen(out);
    while (n && isspace((unsigned char)out[n - 1]))
        out[--n] = 0;
}

static int check_number(const struct lab_question *q, const char *text, double *value, char *why, size_t len)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || !isfinite(v)) {
        snprintf(why, len, "'%s' is not a number%s%s", text, q->unit[0] ? " of " : "", q->unit);
        return -1;
    }
    char u[32];
    trim(end, u, sizeof u);
    const struct unit *qu = q->unit[0] ? unit_named(q->unit) : NULL;
    if (u[0]) {
        const struct unit *au = unit_named(u);
        if (!au) {
            snprintf(why, len, "'%s': unknown unit '%s' (write %s%s)", text, u, q->unit[0] ? "it in " : "a plain number",
                     q->unit);
            return -1;
        }
        if (!qu) {
            snprintf(why, len, "'%s': this question wants a plain number, not %s", text, kind_name(au->kind));
            return -1;
        }
        if (au->kind != qu->kind) {
            snprintf(why, len, "'%s' is %s; this question wants %s in %s", text, kind_name(au->kind),
                     kind_name(qu->kind), q->unit);
            return -1;
        }
        v = v * au->size / qu->size;
    }
    double lo, hi;
    bool has_lo, has_hi;
    default_range(q, qu, &lo, &hi, &has_lo, &has_hi);
    if (has_lo && v < lo) {
        snprintf(why, len, "%g%s%s is below %g: %s", v, q->unit[0] ? " " : "", q->unit, lo,
                 qu && qu->kind == 't' ? "a time is never negative" : qu ? "a share is never negative"
                                                                          : "out of this question's range");
        return -1;
    }
    if (has_hi && v > hi) {
        snprintf(why, len, "%g%s%s is above %g: %s", v, q->unit[0] ? " " : "", q->unit, hi,
                 qu && qu->kind == 's' ? "a share is at most the whole CPU" : "out of this question's range");
        return -1;
    }
    *value = v;
    return 0;
}

static int check_choice(const struct lab_question *q, const char *text, char *why, size_t len)
{
    char list[sizeof q->choices], *save;
    snprintf(list, sizeof list, "%s", q->choices);
    for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        char t[64];
        trim(c, t, sizeof t);
        if (!strcasecmp(t, text))
            return 0;
    }
    snprintf(why, len, "'%s' is not one of the choices (%s)", text, q->choices);
    return -1;
}

static int check_order(const char *text, char *why, size_t len)
{
    for (const char *p = text; *p; p++)
        if (!isalnum((unsigned char)*p) && !isspace((unsigned char)*p) && *p != ',' && *p != '_' && *p != '.') {
            snprintf(why, len, "'%s': an order is task names, one a quantum (like ABCA)", text);
            return -1;
        }
    return 0;
}

int lab_answer_check(const struct lab_question *q, const char *answer, double *value, char *why, size_t len)
{
    char t[256];
    double v = 0;
    trim(answer ? answer : "", t, sizeof t);
    why[0] = 0;
    if (!t[0]) {
        snprintf(why, len, "no answer");
        return -1;
    }
    int rc = q->type == LAB_Q_NUMBER ? check_number(q, t, &v, why, len)
             : q->type == LAB_Q_CHOICE ? check_choice(q, t, why, len)
                                       : check_order(t, why, len);
    if (value)
        *value = v;
    return rc;
}
