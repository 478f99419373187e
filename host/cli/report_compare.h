/*
 * `runq report compare A B`: the report's top (host/cli/report_compare.c),
 * which host/cli/report.c dispatches to; the comparison is
 * host/analysis/compare.c's.
 */
#ifndef RUNQ_CLI_REPORT_COMPARE_H
#define RUNQ_CLI_REPORT_COMPARE_H

/* Called with argv[0] == "compare" and the rest of report's arguments.
 * Keeps host/cli/cli.h's contract: returns 0, 1 on a failure or a refusal
 * (one line on stderr), 2 on a usage error (one line on stderr starting
 * "runq report compare: "). */
int report_compare(int argc, char **argv);

#endif
