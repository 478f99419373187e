/*
 * `runq report NAME`: canned questions about one trace, each a read-only
 * SQL query over the tables of docs/sql.md (which shows the same queries).
 * The queries are db/q_report.c's; here are their names, their flags and
 * their help, and the errors said. experiment, compare and fidelity are
 * other commands' work (cli/experiment_table.c, cli/compare.c,
 * cli/fidelity.c), reached by name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/db_flags.h"
#include "cli/experiment.h"
#include "cli/fidelity.h"
#include "db/q_report.h"
#include "db/query.h"
#include "db/visible.h"
#include "scenario/scenario.h"

#define DEFAULT_DB "runq.db"
#define DEFAULT_THRESHOLD_NS 1000000ull

/* Prints a warning line to stderr for a CPU whose kernel count of
 * releases differs from the trace's. */
static void release_warning(const struct dbq_release_mismatch *m, void *arg)
{
    char cls[64]; /* a counter's name, from the database */
    (void)arg;
    text_visible(cls, sizeof cls, m->cls);
    fprintf(stderr, "runq report: warning: trace %lld cpu %lld: the kernel counted %lld releases to %s "
                    "(counter releases_%s), the trace has %lld LEAVE release between those samples\n",
            (long long)m->trace_id, (long long)m->cpu, (long long)m->counted, cls, cls, (long long)m->traced);
}

static const struct report {
    const char *name, *what;
    enum dbq_report kind; /* its SQL: db/q_report.c */
} reports[] = {
    { "latency", "latency by population (wake->run, bounce->run, all: count, share, p99, p99.9, max, "
                 "share past --threshold), then per task: wakeups, p50, p99, max and when, bounces, bounce p99",
      DBQ_REPORT_LATENCY },
    { "releases", "per trace (all of them without --trace): CPU releases of the fair class by the class that "
                  "took the CPU, a second, tasks bounced per release; the kernel's counters cross-checked",
      DBQ_REPORT_RELEASES },
    { "share", "CPU share per task: of the trace's length, and of its CPU's busy time", DBQ_REPORT_SHARE },
    { "decisions", "decision cost histogram (log2 buckets of cost_ns) and summary; a Linux trace measures none",
      DBQ_REPORT_DECISIONS },
    { "loss", "the trace's status, every data-loss and error count, and the gaps", DBQ_REPORT_LOSS },
};
#define NREPORTS (sizeof reports / sizeof reports[0])

/* `runq report experiment [--trace ID]`: an experiment's table again,
 * from the database (ID: the experiment; default the newest). */
static int report_experiment(const char *db_path, int64_t id, enum dbq_format fmt)
{
    sqlite3 *db = cli_db_open("report", db_path);
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
    int rc = cli_db_flags("report", nargs, args, &db_path, &trace, &fmt, pos, 2, &npos,
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
    bool is_latency = r->kind == DBQ_REPORT_LATENCY, is_releases = r->kind == DBQ_REPORT_RELEASES;
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
    char tname[32], err[8192]; /* SQLite's message may quote a name of the database's */
    scn_format_duration(tname, sizeof tname, threshold_ns);
    struct dbq_report_opts ro = { .threshold_ns = threshold_ns, .threshold = tname, .cls = cls };
    if (show_sql) {
        char sql[DBQ_REPORT_SQL_MAX];
        if (dbq_report_sql(r->kind, &ro, sql, sizeof sql, err, sizeof err) != 0) {
            fprintf(stderr, "runq report: %s\n", err);
            return 1;
        }
        printf("%s;\n", sql);
        return 0;
    }
    sqlite3 *db = cli_db_open("report", db_path);
    if (!db)
        return 1;
    /* releases compares traces: all of them unless one is named */
    bool all = is_releases && !trace;
    if (!trace)
        trace = dbq_latest_trace(db);
    rc = 0;
    if (!trace) {
        fprintf(stderr, "runq report: %s holds no trace yet\n", db_path);
        rc = 1;
    } else if (!all && dbq_scope_trace(db, trace, err, sizeof err) != 0) {
        fprintf(stderr, "runq report: %s\n", err);
        rc = 1;
    }
    if (!rc) {
        if (fmt == DBQ_TABLE && all)
            printf("all traces: %s\n\n", r->what);
        else if (fmt == DBQ_TABLE)
            printf("trace %lld: %s\n\n", (long long)trace, r->what);
        rc = dbq_report_run(db, r->kind, &ro, fmt, stdout, err, sizeof err);
        if (!rc && is_releases && dbq_report_release_mismatches(db, release_warning, NULL, err, sizeof err) != 0)
            rc = 1;
        if (rc)
            fprintf(stderr, "runq report: %s\n", err);
    }
    sqlite3_close(db);
    return rc;
}
