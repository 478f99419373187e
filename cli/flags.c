/*
 * The flag parser (contract in flags.h): one pass over argv, each
 * argument matched against the command's table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "cli/flags.h"

/* The help's flag column: "  --db FILE" padded to this, then the text. */
#define FLAG_COL 21

int flags_usage_error(const struct command_spec *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "runq %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static const struct flag *find(const struct command_spec *c, const char *name, size_t len)
{
    for (const struct flag *f = c->flags; f && f->type != FLAG_END; f++)
        if (strlen(f->name) == len && !strncmp(f->name, name, len))
            return f;
    return NULL;
}

/* A decimal integer in [lo, hi]: 0, or -1 (*out untouched). */
static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Sets f's value from v: 0, or the exit code of a usage error (printed). */
static int set_value(const struct command_spec *c, const struct flag *f, const char *v)
{
    long long n;
    char why[256] = "";
    switch (f->type) {
    case FLAG_STRING:
        *(const char **)f->value = v;
        return 0;
    case FLAG_INT:
    case FLAG_I64:
        if (parse_ll(v, f->lo, f->hi, &n))
            return flags_usage_error(c, "--%s takes %s, not '%s'", f->name, f->takes ? f->takes : "a number", v);
        if (f->type == FLAG_INT)
            *(int *)f->value = (int)n;
        else
            *(int64_t *)f->value = n;
        return 0;
    case FLAG_FUNC:
        if (f->fn(v, f->value, why, sizeof why))
            return flags_usage_error(c, "--%s %s: %s", f->name, v, why[0] ? why : "not a value it takes");
        return 0;
    case FLAG_BOOL:
    case FLAG_END:
        break;
    }
    BUG_ON(1); /* a bool or the end row never reaches here */
}

int flags_parse(const struct command_spec *c, int argc, char **argv, const char **pos, int *npos)
{
    *npos = 0;
    bool flags_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (flags_done || a[0] != '-' || !a[1]) {
            if (*npos >= c->max_pos)
                return c->too_many ? flags_usage_error(c, "%s", c->too_many)
                                   : flags_usage_error(c, "unexpected argument '%s'; see runq %s --help", a,
                                                       c->name);
            pos[(*npos)++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            flags_done = true;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            flags_help(c, stdout);
            return 0;
        }
        const char *name = a + 2, *eq = a[1] == '-' ? strchr(name, '=') : NULL;
        const struct flag *f = a[1] == '-' ? find(c, name, eq ? (size_t)(eq - name) : strlen(name)) : NULL;
        if (!f)
            return flags_usage_error(c, "unknown flag '%s'; see runq %s --help", a, c->name);
        if (f->type == FLAG_BOOL) {
            if (eq)
                return flags_usage_error(c, "--%s takes no value", f->name);
            *(bool *)f->value = true;
            continue;
        }
        const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            return flags_usage_error(c, "--%s needs a value", f->name);
        int rc = set_value(c, f, v);
        if (rc)
            return rc;
    }
    return -1;
}

/* One help row: "  --name ARG" in the flag column, then the text, each
 * further line of it under the first. */
static void help_row(FILE *out, const char *name, const char *arg, const char *help)
{
    int n = fprintf(out, "  --%s%s%s", name, arg ? " " : "", arg ? arg : "");
    if (n >= FLAG_COL - 1) {
        fputc('\n', out);
        n = 0;
    }
    fprintf(out, "%*s", FLAG_COL - n, "");
    for (const char *p = help; *p; p++) {
        fputc(*p, out);
        if (*p == '\n' && p[1])
            fprintf(out, "%*s", FLAG_COL, "");
    }
    fputc('\n', out);
}

void flags_help(const struct command_spec *c, FILE *out)
{
    fprintf(out, "usage: runq %s\n", c->usage);
    if (c->about)
        fprintf(out, "\n%s", c->about);
    fprintf(out, "\nflags:\n");
    for (const struct flag *f = c->flags; f && f->type != FLAG_END; f++)
        help_row(out, f->name, f->type == FLAG_BOOL ? NULL : f->arg, f->help);
    help_row(out, "help", NULL, "show this help");
    if (c->after)
        fprintf(out, "\n%s", c->after);
}
