/*
 * `runq step [--db FILE] [--plain] TRACE [--compare [DB:]TRACE2]`: the
 * flags and the help. The stepping and the explanations are tui/step.c,
 * the two fronts tui/step_plain.c and tui/step_curses.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tui/step.h"

static void step_help(FILE *f)
{
    fprintf(f,
            "usage: runq step [--db FILE] [--plain] [--at N] [--width N] TRACE [--compare [DB:]TRACE2 [--align HOW]]\n"
            "\n"
            "Steps through a recorded trace event by event or decision by decision,\n"
            "showing each CPU's queue as the scheduler saw it (rebuilt from keyframes\n"
            "and events) and, at every pick, why that task won and why the others\n"
            "were passed over; at every wakeup, why the woken task preempted the\n"
            "running one or not. TRACE is a trace id (0 or 'last': the newest).\n"
            "\n"
            "flags:\n"
            "  --db FILE          trace database (default runq.db)\n"
            "  --compare TRACE2   a second trace side by side, kept at the same moment;\n"
            "                     DB:TRACE2 takes it from another database\n"
            "  --align HOW        what the same moment is: time (since each trace's start;\n"
            "                     the default), event (number), mark NAME (time since\n"
            "                     each trace's mark NAME), wake TASK (its Nth wakeup)\n"
            "  --plain            no terminal UI: read commands a line at a time from\n"
            "                     stdin and print the view after each\n"
            "  --at N             start at event N\n"
            "  --width N          columns of the plain view, 40..10000 (default 100)\n"
            "  --help             show this help\n"
            "\n"
            "keys (and --plain commands):\n"
            "  n / p  (→ / ←)     next / previous event; 'n 10' in --plain\n"
            "  N / P              next / previous pick on this CPU\n"
            "  b TIME             jump to a time from the trace's start: 1500 (us), +12.5ms,\n"
            "                     1s; or absolute, as SQL's ts: @196052144 (ns), @196ms\n"
            "  a HOW              --compare: align by time, event, mark NAME, wake TASK\n"
            "  g N                go to event N\n"
            "  / TEXT, ? TEXT     search forward / back (task name, PICK, WAKE, ...)\n"
            "  m [A], ' [A]       set mark A, return to it\n"
            "  c N, c -           focus CPU N (number line, N/P), or follow the events\n"
            "  r                  rewind\n"
            "  q                  quit\n");
}

static int parse_trace(const char *s, int64_t *id)
{
    if (!strcmp(s, "last")) {
        *id = 0;
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v < 0 || errno)
        return -1;
    *id = v;
    return 0;
}

/* A decimal integer in [lo, hi] into *out: 0, or -1 (out untouched). */
static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int cmd_step(int argc, char **argv)
{
    const char *db = "runq.db", *cmp = NULL, *trace = NULL, *align = NULL;
    bool plain = false;
    int at = 0, width = 100;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            step_help(stdout);
            return 0;
        } else if (!strcmp(a, "--plain")) {
            plain = true;
        } else if ((!strcmp(a, "--db") || !strcmp(a, "--compare") || !strcmp(a, "--at") || !strcmp(a, "--width") ||
                    !strcmp(a, "--align"))) {
            if (!val) {
                fprintf(stderr, "runq step: %s needs a value\n", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "--db"))
                db = val;
            else if (!strcmp(a, "--compare"))
                cmp = val;
            else if (!strcmp(a, "--align"))
                align = val;
            else if (!strcmp(a, "--at") ? parse_int(val, 0, INT_MAX, &at) : parse_int(val, 40, 10000, &width)) {
                fprintf(stderr, "runq step: %s takes %s, not '%s'\n", a,
                        !strcmp(a, "--at") ? "an event number (0, 1, ...)" : "a width of 40..10000 columns", val);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "runq step: unknown flag '%s'; see runq step --help\n", a);
            return 2;
        } else if (!trace) {
            trace = a;
        } else {
            fprintf(stderr, "runq step: one TRACE only (a second goes after --compare)\n");
            return 2;
        }
    }
    int64_t a_id = 0, b_id = -1;
    if (trace && parse_trace(trace, &a_id)) {
        fprintf(stderr, "runq step: TRACE is a trace id or 'last', not '%s'\n", trace);
        return 2;
    }
    char *b_db = NULL;
    if (cmp) {
        const char *colon = strrchr(cmp, ':');
        const char *id = colon ? colon + 1 : cmp;
        if (colon)
            b_db = strndup(cmp, (size_t)(colon - cmp));
        if (parse_trace(id, &b_id)) {
            fprintf(stderr, "runq step: --compare takes [DB:]TRACE, not '%s'\n", cmp);
            free(b_db);
            return 2;
        }
    }
    if (access(db, R_OK) != 0) {
        fprintf(stderr, "runq step: %s: no such database\n", db);
        free(b_db);
        return 1;
    }
    struct step s;
    if (step_open(&s, db, a_id, b_db, b_id)) {
        free(b_db);
        return 1;
    }
    free(b_db);
    if (align) {
        char m[256];
        if (!cmp || step_set_align(&s, align, m, sizeof m)) {
            fprintf(stderr, "runq step: --align %s: %s\n", align, cmp ? m : "it aligns the --compare trace");
            step_close(&s);
            return 2;
        }
    }
    if (at > 0)
        step_goto(&s, at);
    /* The curses view reads keys from a terminal: on anything else every
     * read fails at once, and it spun at 100 % CPU forever. (After the
     * open, so a database's own error comes first, as in runq top.) */
    if (!plain && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "runq step: needs a terminal (stdin and stdout); --plain reads commands from stdin\n");
        step_close(&s);
        return 1;
    }
    int rc = plain ? step_plain_main(&s, stdin, stdout, width) : step_curses_main(&s);
    step_close(&s);
    return rc;
}
