/*
 * `runq report compare A B`: two runs of one scenario and seed that
 * differ in one setting, compared interval by interval with a sign test
 * (host/analysis/compare.c; docs/compare.md is the guide).
 */
#ifndef RUNQ_CLI_COMPARE_H
#define RUNQ_CLI_COMPARE_H

#include <stddef.h>

/* The subcommand of `runq report`, called with argv[0] == "compare" and
 * the rest of report's arguments. Keeps host/cli/cli.h's contract: returns 0,
 * 1 on a failure or a refusal (one line on stderr), 2 on a usage error
 * (one line on stderr starting "runq report compare: "). */
int report_compare(int argc, char **argv);

/* What a paired comparison found: over its pairs of intervals, the ones
 * each side won, the ties, the ones not compared, and the sign test. */
struct compare_result {
    unsigned wins[2];   /* intervals A won, B won */
    unsigned ties;
    unsigned unknown;   /* crossing a data gap on a side */
    unsigned empty;     /* no samples on a side */
    unsigned long long pairs;
    double p;           /* the exact two-sided sign test over wins; 1 when no interval was won */
    char name[2][140];  /* each side as the summary names it: "KEY=VALUE", else "A" and "B" */
};

/* The command's last line: "NAME_A better in X intervals, NAME_B in Y, T
 * ties, sign test p = P" (P to two significant digits). */
void compare_summary(const struct compare_result *r, char *buf, size_t len);

/* Run A of database db_a against run B of db_b (each spelled as the
 * command's A and B: a trace id, run:N, E/C), judged as `runq report
 * compare A B FLAGS` judges them (flags: --interval, --threshold,
 * --metric, --task, --force, as argv words), printing nothing. Returns 0
 * with *res filled; else the command's status (1 a refusal, 2 a usage
 * error) with its reason in err. Warnings (not a scenario run, several
 * settings differ) are not returned: res->name says what differed. */
int compare_pair(const char *db_a, const char *run_a, const char *db_b, const char *run_b, char **flags,
                 int nflags, struct compare_result *res, char *err, size_t errlen);

#endif
