/*
 * `runq report NAME`: canned questions about one trace, each a read-only
 * SQL query over the tables of docs/sql.md (which shows the same queries).
 * Most are fixed text; two are made here from a table: latency (its
 * threshold is a flag) and releases (a column for each class above the
 * fair one, from trace/format.h's TRACE_CLASSES, so a new class is a new
 * column without an edit here).
 *
 * Percentiles follow the one rule every engine uses (trace/scenario.h,
 * scn_rank): of n sorted values, the one at 0-based index
 * (n - 1) * per_mille / 1000, rounded down.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/experiment.h"
#include "db/events.h"
#include "cli/fidelity.h"
#include "db/recorder_lock.h"
#include "db/query.h"
#include "db/visible.h"
#include "scenario/scenario.h"
#include "trace/decode.h"

#define DEFAULT_DB "runq.db"
#define REPORT_SQL_MAX 8192
#define DEFAULT_THRESHOLD_NS 1000000ull

/* SQL for value number PER_MILLE of a window partition whose 0-based
 * index is column i and size n: scn_rank() in SQL. */
#define RANK_SQL(per_mille) "i = (n - 1) * " #per_mille " / 1000"

/* Appends to a bounded buffer; a report's SQL never comes near its size
 * (abort otherwise: a bug, not an input). */
static void add(char *buf, size_t len, const char *fmt, ...)
{
    size_t at = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len - at) {
        fprintf(stderr, "runq report: internal error: a report's SQL outgrew its buffer\n");
        abort();
    }
}

/* Two populations of latencies, as the seed (shared/seeds/004) splits
 * them: wake -> run (wakeup) and bounce -> run (bounce: put back because
 * a higher class took the CPU), and both together; then per task, both.
 * threshold_ns: the tail's bound, `name` its spelling ("1ms"); cls: only
 * the tasks of that class in the populations ("fair", "rt"), or NULL for
 * all (the seed's histograms were of its scheduler's own tasks: --class
 * fair leaves out the RT tasks' own quick wakeups). */
static void latency_sql(char *buf, size_t len, uint64_t threshold_ns, const char *name, const char *cls)
{
    char where[64];
    snprintf(where, sizeof where, cls ? "IN (SELECT utid FROM thread WHERE class = '%s')" : "IS NOT NULL", cls);
    buf[0] = '\0';
    add(buf, len,
        "WITH s AS (SELECT 'wake->run' AS population, latency FROM wakeup WHERE latency IS NOT NULL AND utid %s\n"
        "  UNION ALL SELECT 'bounce->run', latency FROM bounce WHERE latency IS NOT NULL AND utid %s),\n"
        "a AS (SELECT population, latency FROM s UNION ALL SELECT 'all', latency FROM s),\n"
        "r AS (SELECT population, latency, ROW_NUMBER() OVER (PARTITION BY population ORDER BY latency) - 1 AS i,\n"
        "  COUNT(*) OVER (PARTITION BY population) AS n FROM a),\n"
        "g AS (SELECT population, n,\n"
        "  MAX(CASE WHEN " RANK_SQL(990) " THEN latency END) AS p99,\n"
        "  MAX(CASE WHEN " RANK_SQL(999) " THEN latency END) AS p999,\n"
        "  MAX(latency) AS mx, SUM(latency > %llu) AS over FROM r GROUP BY population),\n"
        "p(population, ord) AS (VALUES ('wake->run', 0), ('bounce->run', 1), ('all', 2))\n"
        "SELECT p.population, COALESCE(g.n, 0) AS samples,\n"
        "  ROUND(100.0 * COALESCE(g.n, 0) / NULLIF((SELECT COUNT(*) FROM s), 0), 2) AS share_pct,\n"
        "  ROUND(g.p99 / 1000.0, 1) AS p99_us, ROUND(g.p999 / 1000.0, 1) AS p999_us,\n"
        "  ROUND(g.mx / 1000.0, 1) AS max_us, ROUND(100.0 * g.over / g.n, 3) AS \"over_%s_pct\"\n"
        "FROM p LEFT JOIN g USING (population) ORDER BY p.ord;\n",
        where, where, (unsigned long long)threshold_ns, name);
    add(buf, len,
        "WITH w AS (SELECT utid, latency, ts_wake,\n"
        "  ROW_NUMBER() OVER (PARTITION BY utid ORDER BY latency, ts_wake) - 1 AS i,\n"
        "  COUNT(*) OVER (PARTITION BY utid) AS n FROM wakeup WHERE latency IS NOT NULL),\n"
        "wt AS (SELECT utid, n, MAX(CASE WHEN " RANK_SQL(500) " THEN latency END) AS p50,\n"
        "  MAX(CASE WHEN " RANK_SQL(990) " THEN latency END) AS p99, MAX(latency) AS mx,\n"
        "  MAX(CASE WHEN i = n - 1 THEN ts_wake END) AS mx_at FROM w GROUP BY utid),\n"
        "b AS (SELECT utid, latency, ROW_NUMBER() OVER (PARTITION BY utid ORDER BY latency) - 1 AS i,\n"
        "  COUNT(*) OVER (PARTITION BY utid) AS n FROM bounce WHERE latency IS NOT NULL),\n"
        "bt AS (SELECT utid, n, MAX(CASE WHEN " RANK_SQL(990) " THEN latency END) AS p99 FROM b GROUP BY utid)\n"
        "SELECT t.tid, t.name, COALESCE(wt.n, 0) AS wakeups,\n"
        "  ROUND(wt.p50 / 1000.0, 1) AS p50_us, ROUND(wt.p99 / 1000.0, 1) AS p99_us,\n"
        "  ROUND(wt.mx / 1000.0, 1) AS max_us, ROUND(wt.mx_at / 1e6, 3) AS max_at_ms,\n"
        "  COALESCE(bt.n, 0) AS bounces, ROUND(bt.p99 / 1000.0, 1) AS bounce_p99_us\n"
        "FROM (SELECT utid FROM wt UNION SELECT utid FROM bt) u JOIN thread t USING (utid)\n"
        "LEFT JOIN wt USING (utid) LEFT JOIN bt USING (utid)\n"
        "ORDER BY p99_us DESC, bounce_p99_us DESC, t.tid");
}

/* The classes above the fair one: every row of TRACE_CLASSES but FAIR. */
#define CLASS_NAME(id, name, what) name,
static const char *const class_names[] = { TRACE_CLASSES(CLASS_NAME) };
#undef CLASS_NAME

/* Appends fmt once for each class above the fair one; fmt takes the
 * class's name twice. */
static void add_classes(char *buf, size_t len, const char *fmt)
{
    for (unsigned c = 0; c < TRACE_CLASS_NR; c++)
        if (c != TRACE_CLASS_FAIR)
            add(buf, len, fmt, class_names[c], class_names[c]);
}

/* Per trace: guest seconds, the fair class's CPU releases (LEAVE release
 * records), by the class that took the CPU, a second, and tasks bounced
 * per release. A trace of a scenario run is named by its scenario file
 * and cell. */
static void releases_sql(char *buf, size_t len)
{
    buf[0] = '\0';
    add(buf, len,
        "WITH tr AS (SELECT t.trace_id, (t.end_ts - t.start_ts) / 1e9 AS secs,\n"
        "  COALESCE((SELECT COALESCE(replace(replace(e.file, rtrim(e.file, replace(e.file, '/', '')), ''), '.scn', '')\n"
        "      || CASE WHEN s.params <> '' THEN ' ' || s.params ELSE '' END, 'scenario ' || s.scenario_id)\n"
        "    FROM scenario s LEFT JOIN experiment e USING (experiment_id) WHERE s.trace_id = t.trace_id\n"
        "    ORDER BY s.scenario_id LIMIT 1), 'trace ' || t.trace_id) AS label FROM trace t),\n"
        "rl AS (SELECT trace_id, COUNT(*) AS releases");
    add_classes(buf, len, ", COUNT(CASE WHEN by_class = '%s' THEN 1 END) AS \"%s\"");
    add(buf, len,
        " FROM eevdf_leave WHERE reason = 'release' GROUP BY trace_id),\n"
        "bn AS (SELECT trace_id, COUNT(*) AS bounces FROM bounce GROUP BY trace_id)\n"
        "SELECT tr.trace_id, tr.label AS trace, ROUND(tr.secs, 3) AS guest_s, COALESCE(rl.releases, 0) AS releases");
    add_classes(buf, len, ", COALESCE(rl.\"%s\", 0) AS \"%s\"");
    add(buf, len,
        ",\n  ROUND(COALESCE(rl.releases, 0) / NULLIF(tr.secs, 0), 1) AS per_s,\n"
        "  ROUND(1.0 * COALESCE(bn.bounces, 0) / NULLIF(rl.releases, 0), 2) AS bounced_per_release\n"
        "FROM tr LEFT JOIN rl USING (trace_id) LEFT JOIN bn USING (trace_id) ORDER BY tr.trace_id");
}

/* The kernel's own count against the trace's: on each CPU, its counter
 * releases_CLASS went up by (last - first sample) while the trace holds
 * some LEAVE release by that class between those two samples. Rows only
 * where they differ (loss, or a bug on either side). */
static void releases_check_sql(char *buf, size_t len)
{
    buf[0] = '\0';
    add(buf, len, "WITH c AS (SELECT trace_id, cpu, substr(name, 10) AS class, MIN(ts) AS t0, MAX(ts) AS t1,\n"
                  "  MAX(value) - MIN(value) AS counted FROM counter WHERE name IN (");
    add_classes(buf, len, "'releases_%s', %.0s");
    add(buf, len, "NULL) GROUP BY trace_id, cpu, name)\n"
                  "SELECT trace_id, cpu, class, counted, (SELECT COUNT(*) FROM eevdf_leave l WHERE l.trace_id = c.trace_id\n"
                  "  AND l.cpu = c.cpu AND l.reason = 'release' AND l.by_class = c.class AND l.ts > c.t0 AND l.ts <= c.t1)\n"
                  "  AS traced FROM c WHERE counted <> traced ORDER BY trace_id, cpu, class");
}

/* Prints a warning line to stderr for each CPU whose kernel count of
 * releases differs from the trace's. Returns 0, or 1 on an SQL error. */
static int releases_check(sqlite3 *db)
{
    char sql[REPORT_SQL_MAX];
    releases_check_sql(sql, sizeof sql);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        fprintf(stderr, "runq report: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char cls[64]; /* a counter's name, from the database */
        text_visible(cls, sizeof cls, (const char *)sqlite3_column_text(s, 2));
        fprintf(stderr, "runq report: warning: trace %lld cpu %lld: the kernel counted %lld releases to %s "
                        "(counter releases_%s), the trace has %lld LEAVE release between those samples\n",
                (long long)sqlite3_column_int64(s, 0), (long long)sqlite3_column_int64(s, 1),
                (long long)sqlite3_column_int64(s, 3), cls, cls, (long long)sqlite3_column_int64(s, 4));
    }
    if (rc != SQLITE_DONE)
        fprintf(stderr, "runq report: reading counter: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : 1;
}

static const char report_share[] =
    "SELECT t.tid, t.name, s.cpu, COUNT(*) AS slices,\n"
    "  ROUND(SUM(s.dur) / 1e6, 3) AS run_ms,\n"
    "  ROUND(100.0 * SUM(s.dur) / (SELECT MAX(end_ts - start_ts, 1) FROM trace), 2) AS cpu_pct,\n"
    "  ROUND(100.0 * SUM(s.dur) / (SELECT SUM(s2.dur) FROM sched_slice s2 JOIN thread t2 USING (utid)"
    "   WHERE s2.cpu = s.cpu AND NOT t2.is_idle), 2) AS busy_pct\n"
    "FROM sched_slice s JOIN thread t USING (utid)\n"
    "WHERE NOT t.is_idle GROUP BY s.utid, s.cpu ORDER BY s.cpu, run_ms DESC";

/* Whether the database has trace.engine (schema 9). */
static bool has_engine_column(sqlite3 *db)
{
    sqlite3_stmt *s;
    bool yes = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.pragma_table_info('trace') WHERE name = 'engine'", -1, &s, NULL) ==
        SQLITE_OK) {
        yes = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    return yes;
}

/* The decisions' cost histogram and summary. A decision's cost and the
 * tasks it touched count only where the engine measured them (counted:
 * EVENT_COUNTS_KNOWN_SQL, db/events.h): a Linux trace stores 0 for both,
 * which is no measurement, and they are NULL here, never averaged or
 * binned. counted is "1" for a database older than trace.engine (every
 * trace in it is the kernel's). */
static void decisions_sql(char *buf, size_t len, const char *counted)
{
    buf[0] = '\0';
    for (int part = 0; part < 2; part++) {
        add(buf, len, "WITH %sp AS (SELECT CASE WHEN %s THEN cost_ns END AS cost_ns,\n"
                      "  CASE WHEN %s THEN touched END AS touched FROM eevdf_pick)",
            part ? "" : "RECURSIVE ", counted, counted);
        if (part == 1) {
            add(buf, len, "\nSELECT COUNT(*) AS decisions, COUNT(cost_ns) AS measured, ROUND(AVG(cost_ns)) AS mean_ns,"
                          " MAX(cost_ns) AS max_ns, ROUND(AVG(touched), 2) AS mean_touched FROM p");
            break;
        }
        add(buf, len,
            ",\nb(lo, hi) AS (SELECT 0, 128 UNION ALL SELECT hi, hi * 2 FROM b WHERE hi < 67108864),\n"
            "h AS (SELECT b.lo, b.hi, COUNT(p.cost_ns) AS n FROM b LEFT JOIN p"
            "  ON p.cost_ns >= b.lo AND p.cost_ns < b.hi GROUP BY b.lo)\n"
            "SELECT lo AS from_ns, hi AS below_ns, n AS decisions,\n"
            "  ROUND(100.0 * n / (SELECT COUNT(cost_ns) FROM p), 2) AS pct,\n"
            "  substr('########################################', 1,"
            "   CAST(40.0 * n / (SELECT MAX(n) FROM h) + 0.999 AS INTEGER)) AS histogram\n"
            "FROM h WHERE lo >= (SELECT MIN(lo) FROM h WHERE n > 0) AND lo <= (SELECT MAX(lo) FROM h WHERE n > 0)\n"
            "ORDER BY lo;\n");
    }
}

static const char report_loss[] =
    "SELECT trace_id, policy, " RECORDER_STATUS_SQL " AS status,\n"
    "  " RECORDER_END_REASON_SQL " AS end_reason, records FROM trace;\n"
    "SELECT name, idx AS cpu, severity, value, description FROM stats\n"
    "WHERE severity <> 'info' AND value > 0 ORDER BY severity, name, idx;\n"
    "SELECT cpu, ts_start, ts_end, ts_end - ts_start AS dur_ns, packets_lost, records_dropped, records_late\n"
    "FROM data_gap ORDER BY ts_start";

static const struct report {
    const char *name, *what, *sql; /* sql NULL: made by cmd_report */
} reports[] = {
    { "latency", "latency by population (wake->run, bounce->run, all: count, share, p99, p99.9, max, "
                 "share past --threshold), then per task: wakeups, p50, p99, max and when, bounces, bounce p99",
      NULL },
    { "releases", "per trace (all of them without --trace): CPU releases of the fair class by the class that "
                  "took the CPU, a second, tasks bounced per release; the kernel's counters cross-checked",
      NULL },
    { "share", "CPU share per task: of the trace's length, and of its CPU's busy time", report_share },
    { "decisions", "decision cost histogram (log2 buckets of cost_ns) and summary; a Linux trace measures none",
      NULL },
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
           "       runq report latency [--threshold D] [--class fair|rt|all] ...\n"
           "       runq report experiment [ID] [--db FILE] [--csv | --json]\n"
           "       runq report compare A B [--interval D] [--metric M] [--task NAME] ... (its --help)\n"
           "       runq report fidelity [--db FILE] [--trace ID]\n\n"
           "Canned reports on one trace (default: the newest in the database).\n\n"
           "reports:\n");
    for (size_t i = 0; i < NREPORTS; i++)
        printf("  %-10s %s\n", reports[i].name, reports[i].what);
    printf("  %-10s %s\n", "experiment", "an experiment's table again (default: the newest): runq experiment");
    printf("  %-10s %s\n", "compare", "two runs that differ in one setting, interval by interval, with a sign test");
    printf("  %-10s %s\n", "fidelity", "a Linux trace's picks replayed through runq's own EEVDF pick from the queue "
                                        "recorded at each: the disagreements by class, with their first times, "
                                        "then 'agree: K of M picks (P%)'; docs/eevdf.md");
    printf("\nflags:\n"
           "  --db FILE    database (default %s)\n"
           "  --trace ID   the trace to report on (default: the newest)\n"
           "  --csv        CSV with a header line\n"
           "  --json       JSON\n"
           "  --class C    latency: the populations of class C's tasks only (fair, rt; default all)\n"
           "  --threshold D  latency: the tail's bound for over_D_pct, a duration (500us, 1ms,\n"
           "               2.5ms; default 1ms)\n"
           "  --help       show this help\n\n"
           "Percentiles: of n sorted values the one at 0-based index (n - 1) * p / 100, rounded\n"
           "down (trace/scenario.h's scn_rank, the rule of every scenario engine).\n"
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
    const char *threshold = NULL, *cls = NULL;
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return report_compare(argc - 1, argv + 1); /* flags of its own: cli/compare.c */
    /* --sql and --threshold are report's own flags: taken out before the
     * shared parser. */
    char *args[64];
    int nargs = 0;
    for (int i = 0; i < argc && nargs < 63; i++) {
        if (i > 0 && strcmp(argv[i], "--sql") == 0) {
            show_sql = 1;
        } else if (i > 0 && strncmp(argv[i], "--threshold", 11) == 0 && (argv[i][11] == '=' || !argv[i][11])) {
            threshold = argv[i][11] == '=' ? argv[i] + 12 : i + 1 < argc ? argv[++i] : NULL;
            if (!threshold) {
                fprintf(stderr, "runq report: --threshold needs a value (a duration: 500us, 1ms)\n");
                return 2;
            }
        } else if (i > 0 && strncmp(argv[i], "--class", 7) == 0 && (argv[i][7] == '=' || !argv[i][7])) {
            cls = argv[i][7] == '=' ? argv[i] + 8 : i + 1 < argc ? argv[++i] : NULL;
            if (!cls || (strcmp(cls, "fair") != 0 && strcmp(cls, "rt") != 0 && strcmp(cls, "all") != 0)) {
                fprintf(stderr, "runq report: --class wants fair, rt or all\n");
                return 2;
            }
            if (!strcmp(cls, "all"))
                cls = NULL;
        } else {
            args[nargs++] = argv[i];
        }
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
        errno = 0;
        long long id = strtoll(pos[1], &end, 10);
        if (end == pos[1] || *end || id < 1 || errno) {
            fprintf(stderr, "runq report: experiment takes an experiment id (a positive number), not '%s'\n", pos[1]);
            return 2;
        }
        trace = id;
    } else if (npos != 1) {
        fprintf(stderr, "runq report: name a report (latency, releases, share, decisions, loss, fidelity); "
                        "see 'runq report --help'\n");
        return 2;
    }
    if (strcmp(pos[0], "experiment") == 0)
        return report_experiment(db_path, trace, fmt); /* the id, positional or --trace */
    if (strcmp(pos[0], "fidelity") == 0) {
        if (fmt != DBQ_TABLE || show_sql || threshold || cls) {
            fprintf(stderr, "runq report: fidelity takes --db and --trace only (a replay in C, not one SQL query)\n");
            return 2;
        }
        return report_fidelity(db_path, trace);
    }
    const struct report *r = NULL;
    for (size_t i = 0; i < NREPORTS; i++)
        if (strcmp(reports[i].name, pos[0]) == 0)
            r = &reports[i];
    if (!r) {
        fprintf(stderr, "runq report: no report '%s': want latency, releases, share, decisions, loss or fidelity\n", pos[0]);
        return 2;
    }
    bool is_latency = !strcmp(r->name, "latency"), is_releases = !strcmp(r->name, "releases"),
         is_decisions = !strcmp(r->name, "decisions");
    uint64_t threshold_ns = DEFAULT_THRESHOLD_NS;
    if ((threshold || cls) && !is_latency) {
        fprintf(stderr, "runq report: --%s is for the latency report, not %s\n", threshold ? "threshold" : "class",
                r->name);
        return 2;
    }
    if (threshold && (!scn_parse_duration(threshold, &threshold_ns) || threshold_ns == 0)) {
        fprintf(stderr, "runq report: bad --threshold '%s': want a duration above 0 (500us, 1ms, 2.5ms)\n",
                threshold);
        return 2;
    }
    char made[REPORT_SQL_MAX], tname[32];
    const char *sql = r->sql;
    if (is_latency) {
        scn_format_duration(tname, sizeof tname, threshold_ns);
        latency_sql(made, sizeof made, threshold_ns, tname, cls);
        sql = made;
    } else if (is_releases) {
        releases_sql(made, sizeof made);
        sql = made;
    } else if (is_decisions) {
        decisions_sql(made, sizeof made, EVENT_COUNTS_KNOWN_SQL);
        sql = made;
    }
    if (show_sql) {
        printf("%s;\n", sql);
        return 0;
    }
    sqlite3 *db = dbq_open("report", db_path);
    if (!db)
        return 1;
    if (is_decisions && !has_engine_column(db))
        decisions_sql(made, sizeof made, "1");
    /* releases compares traces: all of them unless one is named */
    bool all = is_releases && !trace;
    if (!trace)
        trace = dbq_latest_trace(db);
    rc = 0;
    if (!trace) {
        fprintf(stderr, "runq report: %s holds no trace yet\n", db_path);
        rc = 1;
    } else if (!all && dbq_scope_trace(db, "report", trace) != 0) {
        rc = 1;
    }
    if (!rc) {
        if (fmt == DBQ_TABLE && all)
            printf("all traces: %s\n\n", r->what);
        else if (fmt == DBQ_TABLE)
            printf("trace %lld: %s\n\n", (long long)trace, r->what);
        rc = dbq_run(db, "report", sql, fmt, stdout);
        if (!rc && is_releases)
            rc = releases_check(db);
    }
    sqlite3_close(db);
    return rc;
}
