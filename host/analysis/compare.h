/*
 * `runq report compare A B`: two runs of one scenario and seed that
 * differ in one setting, compared interval by interval with a sign test
 * (host/analysis/compare.c; docs/compare.md is the guide). The command's
 * flags and help are host/cli/report_compare.c's.
 */
#ifndef RUNQ_ANALYSIS_COMPARE_H
#define RUNQ_ANALYSIS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* Who won an interval: the side whose samples were lower by it. */
enum compare_metric {
    COMPARE_BY_TAIL, /* the share of samples past the threshold */
    COMPARE_BY_P99,
    COMPARE_BY_P999,
    COMPARE_BY_MAX,
};

#define COMPARE_MAX_TASKS 16

/* How two runs are compared; compare_defaults() fills it, the command's
 * flags or a lab's words (compare_words()) change it. */
struct compare_opts {
    const char *db;             /* compare_report(): the database's name, as its header says it */
    const char *run[2];         /* A and B as given: a trace id (N), run:N or E/C[/R] */
    uint64_t interval_ns;       /* the intervals' length in guest time, above 0 */
    uint64_t threshold_ns;      /* the tail is the share of samples past it */
    enum compare_metric metric;
    int ntasks;                 /* 0: every task but the idle ones */
    const char *task[COMPARE_MAX_TASKS]; /* a name, or a prefix with one '*' at its end */
    bool force;                 /* compare runs of other scenarios or seeds too */
    bool csv;                   /* compare_report(): the intervals as CSV, and nothing else */
};

/* Intervals of 1s, threshold 1ms, metric tail, every task; no db, no runs. */
void compare_defaults(struct compare_opts *o);

/* The one reading of each option's value, for the command's flag and a
 * lab's word alike. Each reads v into *value (the option's field: a
 * uint64_t of ns, an enum compare_metric; for a task the struct
 * compare_opts itself, appended to) and returns 0; nonzero when v is not
 * what its COMPARE_TAKES_ says, err left empty, or with its own reason in
 * err. The shape of a FLAG_FUNC (host/cli/flags.h), so that a flag table
 * takes them as they are. */
#define COMPARE_TAKES_INTERVAL "a duration longer than 0 (1s, 500ms)"
int compare_parse_interval(const char *v, void *value, char *err, size_t errlen);
#define COMPARE_TAKES_THRESHOLD "a duration (1ms, 500us)"
int compare_parse_threshold(const char *v, void *value, char *err, size_t errlen);
#define COMPARE_TAKES_METRIC "tail, p99, p99.9 or max"
int compare_parse_metric(const char *v, void *value, char *err, size_t errlen);
#define COMPARE_TAKES_TASK "a task's name, or a prefix and one '*' at its end (hog*)"
int compare_parse_task(const char *v, void *value, char *err, size_t errlen);

/* A lab's words for a pair ("--interval 500ms", "--metric=p99", the
 * intervals' options only: interval, threshold, metric, task, force)
 * into *o, after compare_defaults(). 0, or 2 with the reason in err. */
int compare_words(char **words, int n, struct compare_opts *o, char *err, size_t errlen);

/* The report: o->run[0] against o->run[1], both in db (open, read only;
 * the caller closes it), judged by o: what was compared, the table of
 * intervals and the summary line on stdout (o->csv: the table as CSV
 * alone). Returns 0; 1 after a refusal (other scenarios or seeds without
 * force, a run that is not there, too short, without samples); 2 after a
 * usage error (A or B not a run's spelling). Refusals and warnings are
 * one line each on stderr, "runq report compare: ...". */
int compare_report(sqlite3 *db, const struct compare_opts *o);

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
 * report's A and B: a trace id, run:N, E/C), judged by o as
 * compare_report() judges (o->db, o->run and o->csv unused), printing
 * nothing. Returns 0 with *res filled; else the report's status (1 a
 * refusal, 2 a usage error) with its reason in err. Warnings (not a
 * scenario run, several settings differ) are not returned: res->name
 * says what differed. */
int compare_pair(const char *db_a, const char *run_a, const char *db_b, const char *run_b,
                 const struct compare_opts *o, struct compare_result *res, char *err, size_t errlen);

#endif
