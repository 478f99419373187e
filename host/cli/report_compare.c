/*
 * `runq report compare A B [flags]`: the flags, A and B, the help and
 * the database opened; the comparison itself (what each run is, their
 * intervals, the sign test, the table) is host/analysis/compare.c's.
 */
#include <sqlite3.h>

#include "host/analysis/compare.h"
#include "host/cli/db_flags.h"
#include "host/cli/report_compare.h"

static const struct command_spec report_compare_spec = {
    .name = "report compare",
    .usage = "report compare A B [flags]",
    .about = "Compares two runs of one scenario and seed that differ in one setting, interval\n"
             "by interval of guest time, and ends with the sign test over the intervals one\n"
             "side won: 'NAME_A better in X intervals, NAME_B in Y, T ties, sign test p = P'.\n"
             "docs/compare.md is the guide.\n\n"
             "A and B: a trace id (N), a scenario run (run:N, the scenario table's\n"
             "scenario_id), or an experiment's cell (E/C, or E/C/R for repeat R; default 0).\n\n"
             "Per interval and side: wake->run samples of the chosen tasks, the share past\n"
             "the threshold, p99, p99.9 (of n sorted samples the one at index (n-1)*p/1000,\n"
             "rounded down: scn_rank()) and max; bounce samples and releases where the\n"
             "database has them. p is the exact two-sided binomial sign test, ties dropped.\n",
    .max_pos = 2,
};

int report_compare(int argc, char **argv)
{
    struct compare_opts o;
    compare_defaults(&o);
    o.db = DB_FLAGS_DEFAULT_DB;
    const struct flag flags[] = {
        FLAG_FILE("db", &o.db, "FILE", "the database holding both runs (default " DB_FLAGS_DEFAULT_DB ")"),
        FLAG_FN("interval", &o.interval_ns, "D", "the intervals' length in guest time\n(default 1s; 500ms, 2.5s, ...)",
                compare_parse_interval, .takes = COMPARE_TAKES_INTERVAL),
        FLAG_FN("threshold", &o.threshold_ns, "D", "the tail is the share of samples past D (default 1ms)",
                compare_parse_threshold, .takes = COMPARE_TAKES_THRESHOLD),
        FLAG_FN("metric", &o.metric, "M", "who won an interval: tail (default), p99, p99.9\nor max; lower wins",
                compare_parse_metric, .takes = COMPARE_TAKES_METRIC),
        FLAG_FN("task", &o, "NAME", "only these tasks (NAME, or a prefix as hog*);\nrepeatable (default: all)",
                compare_parse_task, .takes = COMPARE_TAKES_TASK),
        FLAG_ON("force", &o.force, "compare runs of other scenarios or seeds too"),
        FLAG_ON("csv", &o.csv, "the intervals as CSV, in ns and counts, and nothing else"),
        FLAG_TABLE_END,
    };
    int npos, rc = flags_parse(&report_compare_spec, flags, argc, argv, o.run, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 2)
        return flags_usage_error(&report_compare_spec,
                                 "name two runs, A and B (trace ids, run:N or E/C); see runq report compare --help");
    sqlite3 *db = cli_db_open("report compare", o.db);
    if (!db)
        return 1;
    rc = compare_report(db, &o);
    sqlite3_close(db);
    return rc;
}
