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

#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "tui/step.h"

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

/* The keys, from the one table of step's commands. */
static void step_help_keys(FILE *out)
{
    fprintf(out, "\n%s", step_keys_help());
}

static const struct command_spec step_spec = {
    .name = "step",
    .usage = "step [--db FILE] [--plain] [--at N] [--width N] TRACE [--compare [DB:]TRACE2 [--align HOW]]",
    .about = "Steps through a recorded trace event by event or decision by decision,\n"
             "showing each CPU's queue as the scheduler saw it (rebuilt from keyframes\n"
             "and events) and, at every pick, why that task won and why the others\n"
             "were passed over; at every wakeup, why the woken task preempted the\n"
             "running one or not. TRACE is a trace id (0 or 'last': the newest).\n",
    .after_fn = step_help_keys,
    .max_pos = 1,
    .too_many = "one TRACE only (a second goes after --compare)",
};

int cmd_step(int argc, char **argv)
{
    const char *db = "runq.db", *cmp = NULL, *trace = NULL, *align = NULL;
    bool plain = false;
    int at = 0, width = 100;
    const struct flag flags[] = {
        FLAG_STR("db", &db, "FILE", "trace database (default runq.db)"),
        FLAG_STR("compare", &cmp, "TRACE2",
                 "a second trace side by side, kept at the same moment;\nDB:TRACE2 takes it from another database"),
        FLAG_STR("align", &align, "HOW",
                 "what the same moment is: time (since each trace's start;\nthe default), event (number), mark NAME "
                 "(time since\neach trace's mark NAME), wake TASK (its Nth wakeup)"),
        FLAG_ON("plain", &plain, "no terminal UI: read commands a line at a time from\nstdin and print the view after each"),
        FLAG_NUM("at", &at, "N", "start at event N", 0, INT_MAX, "an event number (0, 1, ...)"),
        FLAG_NUM("width", &width, "N", "columns of the plain view, 40..10000 (default 100)", 40, 10000,
                 "a width of 40..10000 columns"),
        FLAG_TABLE_END,
    };
    int npos, prc = flags_parse(&step_spec, flags, argc, argv, &trace, &npos);
    if (prc >= 0)
        return prc;
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
