/*
 * `runq report NAME`: canned questions about one trace, each a read-only
 * SQL query over the tables of docs/sql.md (which shows the same queries).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/experiment.h"
#include "db/recorder_lock.h"
#include "db/query.h"

#define DEFAULT_DB "runq.db"

/* Percentiles are nearest-rank: the value at rank ceil(n * p / 100). */
static const char report_latency[] =
    "WITH w AS (SELECT utid, latency, ts_wake,"
    "  ROW_NUMBER() OVER (PARTITION BY utid ORDER BY latency, ts_wake) AS rn,"
    "  COUNT(*) OVER (PARTITION BY utid) AS n FROM wakeup WHERE latency IS NOT NULL)\n"
    "SELECT t.tid, t.name, w.n AS wakeups,\n"
    "  ROUND(MAX(CASE WHEN rn = (n * 50 + 99) / 100 THEN latency END) / 1000.0, 1) AS p50_us,\n"
    "  ROUND(MAX(CASE WHEN rn = (n * 99 + 99) / 100 THEN latency END) / 1000.0, 1) AS p99_us,\n"
    "  ROUND(MAX(latency) / 1000.0, 1) AS max_us,\n"
    "  ROUND(MAX(CASE WHEN rn = n THEN ts_wake END) / 1e6, 3) AS max_at_ms\n"
    "FROM w JOIN thread t USING (utid)\n"
    "GROUP BY w.utid ORDER BY p99_us DESC, t.tid";

static const char report_share[] =
    "SELECT t.tid, t.name, s.cpu, COUNT(*) AS slices,\n"
    "  ROUND(SUM(s.dur) / 1e6, 3) AS run_ms,\n"
    "  ROUND(100.0 * SUM(s.dur) / (SELECT MAX(end_ts - start_ts, 1) FROM trace), 2) AS cpu_pct,\n"
    "  ROUND(100.0 * SUM(s.dur) / (SELECT SUM(s2.dur) FROM sched_slice s2 JOIN thread t2 USING (utid)"
    "   WHERE s2.cpu = s.cpu AND NOT t2.is_idle), 2) AS busy_pct\n"
    "FROM sched_slice s JOIN thread t USING (utid)\n"
    "WHERE NOT t.is_idle GROUP BY s.utid, s.cpu ORDER BY s.cpu, run_ms DESC";

static const char report_decisions[] =
    "WITH RECURSIVE b(lo, hi) AS (SELECT 0, 128 UNION ALL SELECT hi, hi * 2 FROM b WHERE hi < 67108864),\n"
    "h AS (SELECT b.lo, b.hi, COUNT(p.cost_ns) AS n FROM b LEFT JOIN eevdf_pick p"
    "  ON p.cost_ns >= b.lo AND p.cost_ns < b.hi GROUP BY b.lo)\n"
    "SELECT lo AS from_ns, hi AS below_ns, n AS decisions,\n"
    "  ROUND(100.0 * n / (SELECT COUNT(*) FROM eevdf_pick), 2) AS pct,\n"
    "  substr('########################################', 1,"
    "   CAST(40.0 * n / (SELECT MAX(n) FROM h) + 0.999 AS INTEGER)) AS histogram\n"
    "FROM h WHERE lo >= (SELECT MIN(lo) FROM h WHERE n > 0) AND lo <= (SELECT MAX(lo) FROM h WHERE n > 0)\n"
    "ORDER BY lo;\n"
    "SELECT COUNT(*) AS decisions, ROUND(AVG(cost_ns)) AS mean_ns, MAX(cost_ns) AS max_ns,"
    " ROUND(AVG(touched), 2) AS mean_touched FROM eevdf_pick";

static const char report_loss[] =
    "SELECT trace_id, policy, " RECORDER_STATUS_SQL " AS status,\n"
    "  " RECORDER_END_REASON_SQL " AS end_reason, records FROM trace;\n"
    "SELECT name, idx AS cpu, severity, value, description FROM stats\n"
    "WHERE severity <> 'info' AND value > 0 ORDER BY severity, name, idx;\n"
    "SELECT cpu, ts_start, ts_end, ts_end - ts_start AS dur_ns, packets_lost, records_dropped, records_late\n"
    "FROM data_gap ORDER BY ts_start";

static const struct report {
    const char *name, *what, *sql;
} reports[] = {
    { "latency", "wake-to-run latency per task: count, p50, p99, max and when the max happened",
      report_latency },
    { "share", "CPU share per task: of the trace's length, and of its CPU's busy time", report_share },
    { "decisions", "decision cost histogram (log2 buckets of cost_ns) and summary", report_decisions },
    { "loss", "the trace's status, every data-loss and error count, and the gaps", report_loss },
};
#define NREPORTS (sizeof reports / sizeof reports[0])

/* `runq report experiment [--trace ID]`: an experiment's table again,
 * from the database (ID: the experiment; default the newest). */
static int report_experiment(const char *db_path, int64_t id, enum dbq_format fmt)
{
    sqlite3 *db = dbq_open("report", db_path);
    if (!db)
        return 1;
    int rc = experiment_table(db, "report", id, fmt, stdout);
    sqlite3_close(db);
    return rc;
}

static void report_help(void)
{
    printf("usage: runq report NAME [--db FILE] [--trace ID] [--csv | --json]\n"
           "       runq report experiment [ID] [--db FILE] [--csv | --json]\n\n"
           "Canned reports on one trace (default: the newest in the database).\n\n"
           "reports:\n");
    for (size_t i = 0; i < NREPORTS; i++)
        printf("  %-10s %s\n", reports[i].name, reports[i].what);
    printf("  %-10s %s\n", "experiment", "an experiment's table again (default: the newest): runq experiment");
    printf("\nflags:\n"
           "  --db FILE    database (default %s)\n"
           "  --trace ID   the trace to report on (default: the newest)\n"
           "  --csv        CSV with a header line\n"
           "  --json       JSON\n"
           "  --help       show this help\n\n"
           "Each report is plain SQL over the tables in docs/sql.md; 'runq report NAME --sql'\n"
           "prints it.\n",
           DEFAULT_DB);
}

int cmd_report(int argc, char **argv)
{
    const char *db_path = DEFAULT_DB, *pos[2];
    int64_t trace = 0;
    enum dbq_format fmt = DBQ_TABLE;
    int show_sql = 0, npos;
    /* --sql is report's own flag: take it out before the shared parser. */
    char *args[64];
    int nargs = 0;
    for (int i = 0; i < argc && nargs < 63; i++) {
        if (i > 0 && strcmp(argv[i], "--sql") == 0)
            show_sql = 1;
        else
            args[nargs++] = argv[i];
    }
    if (argc >= 64) {
        fprintf(stderr, "runq report: too many arguments\n");
        return 2;
    }
    args[nargs] = NULL;
    int rc = dbq_parse_common("report", nargs, args, &db_path, &trace, &fmt, pos, 2, &npos,
                              report_help);
    if (rc >= 0)
        return rc;
    if (npos == 2 && strcmp(pos[0], "experiment") == 0) {
        char *end;
        long long id = strtoll(pos[1], &end, 10);
        if (*end || id < 1) {
            fprintf(stderr, "runq report: experiment takes an experiment id (a positive number), not '%s'\n", pos[1]);
            return 2;
        }
        trace = id;
    } else if (npos != 1) {
        fprintf(stderr, "runq report: name a report (latency, share, decisions, loss); "
                        "see 'runq report --help'\n");
        return 2;
    }
    if (strcmp(pos[0], "experiment") == 0)
        return report_experiment(db_path, trace, fmt); /* the id, positional or --trace */
    const struct report *r = NULL;
    for (size_t i = 0; i < NREPORTS; i++)
        if (strcmp(reports[i].name, pos[0]) == 0)
            r = &reports[i];
    if (!r) {
        fprintf(stderr, "runq report: no report '%s': want latency, share, decisions or loss\n", pos[0]);
        return 2;
    }
    if (show_sql) {
        printf("%s;\n", r->sql);
        return 0;
    }
    sqlite3 *db = dbq_open("report", db_path);
    if (!db)
        return 1;
    if (!trace)
        trace = dbq_latest_trace(db);
    rc = 0;
    if (!trace) {
        fprintf(stderr, "runq report: %s holds no trace yet\n", db_path);
        rc = 1;
    } else if (dbq_scope_trace(db, "report", trace) != 0) {
        rc = 1;
    }
    if (!rc) {
        if (fmt == DBQ_TABLE)
            printf("trace %lld: %s\n\n", (long long)trace, r->what);
        rc = dbq_run(db, "report", r->sql, fmt, stdout);
    }
    sqlite3_close(db);
    return rc;
}
