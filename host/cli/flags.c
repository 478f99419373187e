/*
 * The flag parser (contract in flags.h): one pass over argv, each
 * argument matched against the command's table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "host/cli/flags.h"
#include "host/scenario/scenario.h"

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

/* Row i of words, rows size bytes apart. */
static const struct flags_word *word_at(const struct flags_word *words, size_t size, size_t i)
{
    return (const struct flags_word *)((const char *)words + i * size);
}

/* The n words' names into buf: "A, B, C", or with last " or ", "A, B or C". */
static void word_list(const struct flags_word *words, size_t n, size_t size, const char *last, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? last : ", ";
        int w = snprintf(buf + at, len - at, "%s%s", sep, word_at(words, size, i)->name);
        at += w > 0 ? (size_t)w : 0;
    }
}

int flags_word(int argc, char **argv, const char *cmd, const char *what, const struct flags_word *words, size_t n,
               size_t size, void (*help)(void), int *rc)
{
    const char *word = argc > 1 ? argv[1] : NULL;
    char list[512];
    if (word && (!strcmp(word, "--help") || !strcmp(word, "-h"))) {
        help();
        *rc = 0;
        return -1;
    }
    if (!word || word[0] == '-') {
        word_list(words, n, size, ", ", list, sizeof list);
        fprintf(stderr, "runq %s: name a %s first (%s); see runq %s --help\n", cmd, what, list, cmd);
        *rc = 2;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(word_at(words, size, i)->name, word))
            return (int)i;
    word_list(words, n, size, " or ", list, sizeof list);
    fprintf(stderr, "runq %s: no %s '%s': want %s\n", cmd, what, word, list);
    *rc = 2;
    return -1;
}

void flags_words_print(const struct flags_word *words, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++)
        printf("  %-10s %s\n", word_at(words, size, i)->name, word_at(words, size, i)->what);
}

static const struct flag *find(const struct flag *flags, const char *name, size_t len)
{
    for (const struct flag *f = flags; f && f->type != FLAG_END; f++)
        if (strlen(f->name) == len && !strncmp(f->name, name, len))
            return f;
    return NULL;
}

static const struct flag *find_short(const struct flag *flags, char s)
{
    for (const struct flag *f = flags; f && f->type != FLAG_END; f++)
        if (f->short_name && f->short_name == s)
            return f;
    return NULL;
}

bool flags_mode(int argc, char **argv, const char *mode)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (argv[i][0] == '-' && argv[i][1] == '-' && !strcmp(argv[i] + 2, mode))
            return true;
    return false;
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
        if (!f->fn(v, f->value, why, sizeof why))
            return 0;
        if (why[0])
            return flags_usage_error(c, "--%s %s: %s", f->name, v, why);
        return flags_usage_error(c, "--%s takes %s, not '%s'", f->name, f->takes ? f->takes : "another value", v);
    case FLAG_BOOL:
    case FLAG_END:
        break;
    }
    BUG_ON(1); /* a bool or the end row never reaches here */
}

int flags_parse(const struct command_spec *c, const struct flag *flags, int argc, char **argv, const char **pos,
                int *npos)
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
            flags_help(c, flags, stdout);
            return 0;
        }
        if (c->mode && a[1] == '-' && !strcmp(a + 2, c->mode))
            continue;
        /* --name[=V], or -s[V]: eq points at the value given in a itself */
        bool is_long = a[1] == '-';
        const char *name = a + 2, *eq = is_long ? strchr(name, '=') : a[2] ? a + 1 : NULL;
        const struct flag *f =
            is_long ? find(flags, name, eq ? (size_t)(eq - name) : strlen(name)) : find_short(flags, a[1]);
        if (f && !is_long && eq && f->type == FLAG_BOOL)
            f = NULL; /* no bundling of switches: -vc is unknown */
        if (!f)
            return flags_usage_error(c, "unknown flag '%s'; see runq %s --help", a, c->name);
        if (f->type == FLAG_BOOL) {
            if (eq)
                return flags_usage_error(c, "--%s takes no value", f->name);
            *(bool *)f->value = true;
        } else {
            const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!v)
                return flags_usage_error(c, "--%s needs a value", f->name);
            int rc = set_value(c, f, v);
            if (rc)
                return rc;
        }
        if (f->given)
            *f->given = true;
    }
    return -1;
}

/* One help row: "  --name ARG" in the flag column, then the text, each
 * further line of it under the first. In a table with short names every
 * row gives one, "-v, " or four spaces, so the long names line up. */
static void help_row(FILE *out, bool shorts, char s, const char *name, const char *arg, const char *help)
{
    char sh[8] = "";
    if (shorts && s)
        snprintf(sh, sizeof sh, "-%c, ", s);
    else if (shorts)
        strcpy(sh, "    ");
    int n = fprintf(out, "  %s--%s%s%s", sh, name, arg ? " " : "", arg ? arg : "");
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

void flags_help(const struct command_spec *c, const struct flag *flags, FILE *out)
{
    fprintf(out, "usage: runq %s\n", c->usage);
    if (c->about)
        fprintf(out, "\n%s", c->about);
    fprintf(out, "\nflags:\n");
    bool shorts = false;
    for (const struct flag *f = flags; f && f->type != FLAG_END; f++)
        shorts |= f->short_name != 0;
    for (const struct flag *f = flags; f && f->type != FLAG_END; f++)
        help_row(out, shorts, f->short_name, f->name, f->type == FLAG_BOOL ? NULL : f->arg, f->help);
    help_row(out, shorts, 'h', "help", NULL, "show this help");
    if (c->after)
        fprintf(out, "\n%s", c->after);
    if (c->after_fn)
        c->after_fn(out);
}

int flag_file(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!*v)
        return -1;
    *(const char **)value = v;
    return 0;
}

int flag_policy(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!scn_policy_known(v))
        return -1;
    *(const char **)value = v;
    return 0;
}

int flag_seed(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return scn_parse_count(v, UINT64_MAX, value) ? 0 : -1;
}

int flag_push(const char **list, int *n, int max, const char *v, const char *full, char *err, size_t errlen)
{
    if (*n == max) {
        snprintf(err, errlen, full, max);
        return -1;
    }
    list[(*n)++] = v;
    return 0;
}
