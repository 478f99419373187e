/*
 * `runq report compare A B`: two runs of one scenario and seed that
 * differ in one setting, compared interval by interval with a sign test
 * (cli/compare.c; docs/compare.md is the guide).
 */
#ifndef RUNQ_CLI_COMPARE_H
#define RUNQ_CLI_COMPARE_H

/* The subcommand of `runq report`, called with argv[0] == "compare" and
 * the rest of report's arguments. Keeps cli/cli.h's contract: returns 0,
 * 1 on a failure or a refusal (one line on stderr), 2 on a usage error
 * (one line on stderr starting "runq report compare: "). */
int report_compare(int argc, char **argv);

#endif
