/*
 * runq: git-style dispatch to the subcommands listed in cli.h.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "cli.h"

#define RUNQ_TABLE_ENTRY(name, summary) { #name, summary, cmd_##name },
const struct cli_cmd cli_cmds[] = { RUNQ_COMMANDS(RUNQ_TABLE_ENTRY) };
#undef RUNQ_TABLE_ENTRY
const size_t cli_ncmds = sizeof cli_cmds / sizeof cli_cmds[0];

static const struct cli_cmd *cli_find(const char *name)
{
    for (size_t i = 0; i < cli_ncmds; i++)
        if (strcmp(cli_cmds[i].name, name) == 0)
            return &cli_cmds[i];
    return NULL;
}

static void cli_usage(FILE *f)
{
    fprintf(f, "usage: runq <command> [args]\n\ncommands:\n");
    for (size_t i = 0; i < cli_ncmds; i++)
        fprintf(f, "  %-8s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
    fprintf(f, "\n'runq <command> --help' or 'runq help <command>' describes one command.\n");
}

static int is_help(const char *s)
{
    return strcmp(s, "help") == 0 || strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0;
}

int main(int argc, char **argv)
{
    /* SQLite's allocation statistics take a global mutex around every
     * malloc, and runq never reads them: 1 % of runq record's profile on
     * tests/trace/trace_bench.sh's stream (perf), 0.03 % without. Must precede
     * any other SQLite call. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    if (is_help(argv[1])) {
        if (argc < 3) {
            cli_usage(stdout);
            return 0;
        }
        const struct cli_cmd *c = cli_find(argv[2]);
        if (!c) {
            fprintf(stderr, "runq: no help for '%s': not a runq command\n", argv[2]);
            return 2;
        }
        char help[] = "--help";
        char *sub_argv[] = { argv[2], help, NULL };
        return c->fn(2, sub_argv);
    }
    const struct cli_cmd *c = cli_find(argv[1]);
    if (!c) {
        if (argv[1][0] == '-')
            fprintf(stderr, "runq: unknown option '%s'; see 'runq help'\n", argv[1]);
        else
            fprintf(stderr, "runq: '%s' is not a runq command; see 'runq help'\n", argv[1]);
        return 2;
    }
    return c->fn(argc - 1, argv + 1);
}
