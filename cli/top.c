/*
 * `runq top`: the flags and the help. The view itself is tui/top.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/top_linux.h"
#include "tui/top.h"

#define DEFAULT_DB "runq.db"
#define DEFAULT_DELAY_MS 250

static void top_help(void)
{
    printf("usage: runq top [--db FILE] [--trace ID] [--delay TENTHS] [--speed X] [--at SECONDS]\n\n"
           "A live, top-like view of the scheduler: each task's lag, virtual deadline and\n"
           "eligibility, each CPU's V and load, wake latency as it happens, and a timeline\n"
           "of the last switches. On a trace that is still recording it follows the newest\n"
           "events; on a finished trace it replays from the start.\n\n"
           "flags:\n"
           "  --db FILE         trace database (default %s)\n"
           "  --trace ID        which trace (default: the newest)\n"
           "  --delay TENTHS    refresh every TENTHS tenths of a second (default 2.5)\n"
           "  --speed X         replay X trace seconds a wall second (default 1)\n"
           "  --at SECONDS      replay from this trace time (seconds since boot)\n"
           "  --help            show this help\n\n"
           "keys (h in the view lists them all):\n",
           DEFAULT_DB);
    for (size_t k = 0; k < top_nactions; k++) {
        char keys[64];
        top_action_keys(&top_actions[k], keys, sizeof keys);
        printf("  %-28s %s\n", keys, top_actions[k].what);
    }
    printf("\nActions (n N s f m) go to the kernel through the recorder of a live trace.\n"
           "docs/top.md describes every column.\n\n"
           "runq top --linux [--cpus LIST] [--record FILE] shows the host's own Linux\n"
           "scheduler live instead, with its EEVDF state (runq top --linux --help).\n");
}

int cmd_top(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--linux"))
            return top_linux_main(argc, argv);
    const char *db = DEFAULT_DB;
    long long trace = 0;
    double delay = DEFAULT_DELAY_MS / 100.0, speed = 1, at = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            top_help();
            return 0;
        }
        static const char *const valued[] = { "--db", "--trace", "--delay", "--speed", "--at" };
        int which = -1;
        for (int k = 0; k < 5; k++) {
            size_t n = strlen(valued[k]);
            if (!strncmp(a, valued[k], n) && (a[n] == 0 || a[n] == '=')) {
                which = k;
                v = a[n] == '=' ? a + n + 1 : NULL;
            }
        }
        if (which < 0) {
            fprintf(stderr, "runq top: unknown %s '%s'; see 'runq top --help'\n", a[0] == '-' ? "flag" : "argument", a);
            return 2;
        }
        if (!v) {
            if (i + 1 >= argc) {
                fprintf(stderr, "runq top: %s needs a value\n", valued[which]);
                return 2;
            }
            v = argv[++i];
        }
        double d;
        switch (which) {
        case 0:
            if (!*v) {
                fprintf(stderr, "runq top: --db needs a file name\n");
                return 2;
            }
            db = v;
            break;
        case 1:
            if (top_parse_dec(v, 1, 1e15, &d) != 0 || strchr(v, '.')) {
                fprintf(stderr, "runq top: bad --trace '%s': want a trace id (1, 2, ...)\n", v);
                return 2;
            }
            trace = (long long)d;
            break;
        case 2:
            if (top_parse_dec(v, 0.5, 100, &delay) != 0) {
                fprintf(stderr, "runq top: bad --delay '%s': want tenths of a second, 0.5..100\n", v);
                return 2;
            }
            break;
        case 3:
            if (top_parse_dec(v, 0.01, 1000, &speed) != 0) {
                fprintf(stderr, "runq top: bad --speed '%s': want 0.01..1000\n", v);
                return 2;
            }
            break;
        case 4:
            if (top_parse_dec(v, 0, 1e9, &at) != 0) {
                fprintf(stderr, "runq top: bad --at '%s': want seconds since boot\n", v);
                return 2;
            }
            break;
        }
    }
    const struct top_opts o = {
        .db = db, .trace = trace, .delay_ms = (int)(delay * 100 + 0.5), .speed = speed, .at = at,
    };
    return top_run(&o);
}
