/*
 * `runq report NAME`: canned questions about one trace, each a read-only
 * SQL query over the tables of docs/sql.md (which shows the same queries).
 * The queries are db/q_report.c's; here are their names, their flags and
 * their help, and the errors said. experiment, compare and fidelity are
 * other modules' work (host/experiment/experiment_table.c,
 * host/analysis/compare.c, host/analysis/fidelity.c), reached by name;
 * compare's flags and help are host/cli/report_compare.c's. The word
 * after "report" picks the report, and so the flag table that parses the
 * rest: each report's --help lists only the flags it takes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli/cli.h"
#include "host/cli/db_flags.h"
#include "host/cli/report_compare.h"
#include "host/experiment/experiment.h"
#include "host/analysis/fidelity.h"
#include "db/q_report.h"
#include "db/query.h"
#include "db/visible.h"
#include "host/scenario/scenario.h"

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

static int report_experiment(int argc, char **argv);
static int report_fidelity_flags(int argc, char **argv);

/* The fidelity report's line in runq report's help, and its --help's
 * paragraph (wrapped), as each SQL report's: one text. */
static const char fidelity_what[] = "a Linux trace's picks replayed through runq's own EEVDF pick from the queue "
                                    "recorded at each: the disagreements by class, with their first times, then "
                                    "'agree: K of M picks (P%)'; docs/eevdf.md";

/* Every report, in the order runq report --help lists them: the word
 * (flags_word picks by it; the help and the messages list it), and either
 * its own function or the SQL report_sql runs. */
static const struct report {
    struct flags_word word; /* first: flags_word reads the table */
    enum dbq_report kind;   /* run NULL: its SQL, db/q_report.c */
    int (*run)(int argc, char **argv);
} reports[] = {
    { { "latency", "latency by population (wake->run, bounce->run, all: count, share, p99, p99.9, max, "
                   "share past --threshold), then per task: wakeups, p50, p99, max and when, bounces, bounce p99" },
      DBQ_REPORT_LATENCY, NULL },
    { { "releases", "per trace (all of them without --trace): CPU releases of the fair class by the class that "
                    "took the CPU, a second, tasks bounced per release; the kernel's counters cross-checked" },
      DBQ_REPORT_RELEASES, NULL },
    { { "share", "CPU share per task: of the trace's length, and of its CPU's busy time" }, DBQ_REPORT_SHARE, NULL },
    { { "decisions", "decision cost histogram (log2 buckets of cost_ns) and summary; a Linux trace measures none" },
      DBQ_REPORT_DECISIONS, NULL },
    { { "loss", "the trace's status, every data-loss and error count, and the gaps" }, DBQ_REPORT_LOSS, NULL },
    { { "experiment", "an experiment's table again (default: the newest): runq experiment" }, 0, report_experiment },
    { { "compare", "two runs that differ in one setting, interval by interval, with a sign test" }, 0, report_compare },
    { { "fidelity", fidelity_what }, 0, report_fidelity_flags },
};
#define NREPORTS (sizeof reports / sizeof reports[0])

static const struct command_spec report_experiment_spec = {
    .name = "report experiment",
    .usage = "report experiment [ID] [--db FILE] [--csv | --json] [--missed-late]",
    .about = "An experiment's table again, from the database: runq experiment's\n"
             "(ID: the experiment; default the newest).\n",
    .max_pos = 1,
    .too_many = "one experiment ID only",
};

/* `runq report experiment [ID]`: an experiment's table again, from the
 * database (ID, or --trace ID: the experiment; default the newest). */
static int report_experiment(int argc, char **argv)
{
    struct db_flags o = DB_FLAGS_INIT;
    bool missed_late = false;
    const struct flag flags[] = {
        DB_FLAG_ROWS(&o, "the experiment, as ID does (default: the newest)"),
        DB_FORMAT_ROWS(&o),
        FLAG_ON("missed-late", &missed_late, XP_MISSED_LATE_HELP),
        FLAG_TABLE_END,
    };
    const char *id = NULL;
    enum dbq_format fmt;
    int npos, rc = flags_parse(&report_experiment_spec, flags, argc, argv, &id, &npos);
    if (rc >= 0)
        return rc;
    if (db_flags_format(&report_experiment_spec, &o, &fmt))
        return 2;
    if (id) {
        char *end;
        errno = 0;
        long long n = strtoll(id, &end, 10);
        if (end == id || *end || n < 1 || errno)
            return flags_usage_error(&report_experiment_spec,
                                     "experiment takes an experiment id (a positive number), not '%s'", id);
        o.trace = n;
    }
    sqlite3 *db = cli_db_open("report", o.db);
    if (!db)
        return 1;
    rc = experiment_table(db, "report", o.trace, fmt, missed_late, stdout);
    sqlite3_close(db);
    return rc;
}

/* Breaks s's lines at spaces so that none is longer than width. */
static void wrap(char *s, size_t width)
{
    char *line = s, *space = NULL;
    for (char *p = s; *p; p++) {
        if (*p == '\n') {
            line = p + 1, space = NULL;
            continue;
        }
        if (*p == ' ')
            space = p;
        if ((size_t)(p - line) >= width && space) {
            *space = '\n';
            line = space + 1, space = NULL;
        }
    }
}

/* `runq report fidelity`: a replay in C (host/analysis/fidelity.c), not one SQL
 * query, so --db and --trace only. */
static int report_fidelity_flags(int argc, char **argv)
{
    struct db_flags o = DB_FLAGS_INIT;
    const struct flag flags[] = {
        DB_FLAG_ROWS(&o, "the Linux trace to replay (default: the newest)"),
        FLAG_TABLE_END,
    };
    char about[512];
    snprintf(about, sizeof about, "%c%s.\n", toupper((unsigned char)fidelity_what[0]), fidelity_what + 1);
    wrap(about, 80);
    const struct command_spec spec = {
        .name = "report fidelity", .usage = "report fidelity [--db FILE] [--trace ID]", .about = about
    };
    int npos, rc = flags_parse(&spec, flags, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    sqlite3 *db = cli_db_open("report", o.db);
    if (!db)
        return 1;
    rc = fidelity_report(db, &(struct fidelity_opts){ .db = o.db, .trace = o.trace });
    sqlite3_close(db);
    return rc;
}

/* --threshold's FLAG_FUNC: a duration above 0 into *(uint64_t *)value. */
static int threshold_flag(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    uint64_t ns;
    if (!scn_parse_duration(v, &ns) || ns == 0)
        return 1;
    *(uint64_t *)value = ns;
    return 0;
}

/* --class's FLAG_FUNC: fair or rt into *(const char **)value, all as NULL. */
static int class_flag(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (strcmp(v, "fair") && strcmp(v, "rt") && strcmp(v, "all"))
        return 1;
    *(const char **)value = strcmp(v, "all") ? v : NULL;
    return 0;
}

static const char percentile_note[] =
    "Percentiles: of n sorted values the one at 0-based index (n - 1) * p / 100,\n"
    "rounded down (trace/scenario.h's scn_rank, the rule of every scenario engine).\n"
    "Each report is plain SQL over the tables in docs/sql.md; 'runq report NAME --sql'\n"
    "prints it.\n";

/* `runq report NAME` for the reports that are one SQL query: r's own
 * table (latency's has --threshold and --class). */
static int report_sql(const struct report *r, int argc, char **argv)
{
    struct db_flags o = DB_FLAGS_INIT;
    bool show_sql = false, is_latency = r->kind == DBQ_REPORT_LATENCY, is_releases = r->kind == DBQ_REPORT_RELEASES;
    uint64_t threshold_ns = DEFAULT_THRESHOLD_NS;
    const char *cls = NULL;
    bool absolute = false;
#define REPORT_ROWS                                                                                           \
    DB_FLAG_ROWS(&o, is_releases ? "the trace to report on (default: all of them)"                            \
                                 : "the trace to report on (default: the newest)"),                           \
    DB_FORMAT_ROWS(&o), FLAG_ON("sql", &show_sql, "print the report's SQL instead of running it")
    const struct flag latency_flags[] = {
        REPORT_ROWS,
        FLAG_FN("class", &cls, "C", "the populations of class C's tasks only (fair, rt; default all)", class_flag,
                .takes = "fair, rt or all"),
        FLAG_FN("threshold", &threshold_ns, "D",
                "the tail's bound for over_D_pct, a duration (500us, 1ms,\n2.5ms; default 1ms)", threshold_flag,
                .takes = "a duration above 0 (500us, 1ms, 2.5ms)"),
        FLAG_ON("absolute", &absolute, "max_at_ms as the trace's own clock stamps it, not since the\n"
                "trace's start (runq step's and runq plot's time)"),
        FLAG_TABLE_END,
    };
    const struct flag flags[] = { REPORT_ROWS, FLAG_TABLE_END };
#undef REPORT_ROWS
    char name[32], usage[128], about[512];
    snprintf(name, sizeof name, "report %s", r->word.name);
    snprintf(usage, sizeof usage, "report %s [--db FILE] [--trace ID] [--csv | --json] [--sql]%s", r->word.name,
             is_latency ? " [--class C] [--threshold D] [--absolute]" : "");
    snprintf(about, sizeof about, "The %s report: %s.\n\n%s", r->word.name, r->word.what, percentile_note);
    wrap(about, 80);
    const struct command_spec spec = { .name = name, .usage = usage, .about = about };
    enum dbq_format fmt;
    int npos, rc = flags_parse(&spec, is_latency ? latency_flags : flags, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    if (db_flags_format(&spec, &o, &fmt))
        return 2;
    char tname[32], err[8192]; /* SQLite's message may quote a name of the database's */
    scn_format_duration(tname, sizeof tname, threshold_ns);
    struct dbq_report_opts ro = { .threshold_ns = threshold_ns, .threshold = tname, .cls = cls, .absolute = absolute };
    if (show_sql) {
        char sql[DBQ_REPORT_SQL_MAX];
        if (dbq_report_sql(r->kind, &ro, sql, sizeof sql, err, sizeof err) != 0) {
            fprintf(stderr, "runq report: %s\n", err);
            return 1;
        }
        printf("%s;\n", sql);
        return 0;
    }
    sqlite3 *db = cli_db_open("report", o.db);
    if (!db)
        return 1;
    /* releases compares traces: all of them unless one is named */
    int64_t trace = o.trace;
    bool all = is_releases && !trace;
    if (!trace)
        trace = dbq_latest_trace(db);
    rc = 0;
    if (!trace) {
        fprintf(stderr, "runq report: %s holds no trace yet\n", o.db);
        rc = 1;
    } else if (!all && dbq_scope_trace(db, trace, err, sizeof err) != 0) {
        fprintf(stderr, "runq report: %s\n", err);
        rc = 1;
    }
    if (!rc) {
        if (fmt == DBQ_TABLE && all)
            printf("all traces: %s\n\n", r->word.what);
        else if (fmt == DBQ_TABLE)
            printf("trace %lld: %s\n\n", (long long)trace, r->word.what);
        rc = dbq_report_run(db, r->kind, &ro, fmt, stdout, err, sizeof err);
        if (!rc && is_releases && dbq_report_release_mismatches(db, release_warning, NULL, err, sizeof err) != 0)
            rc = 1;
        if (rc)
            fprintf(stderr, "runq report: %s\n", err);
    }
    sqlite3_close(db);
    return rc;
}

static void report_help(void)
{
    printf("usage: runq report NAME [--db FILE] [--trace ID] [--csv | --json] [--sql]\n"
           "       runq report latency [--threshold D] [--class fair|rt|all] ...\n"
           "       runq report experiment [ID] [--db FILE] [--csv | --json] [--missed-late]\n"
           "       runq report compare A B [--interval D] [--metric M] [--task NAME] ...\n"
           "       runq report fidelity [--db FILE] [--trace ID]\n\n"
           "Canned reports on one trace (default: the newest in the database).\n"
           "'runq report NAME --help' lists NAME's flags.\n\n"
           "reports:\n");
    flags_words_print(&reports[0].word, NREPORTS, sizeof reports[0]);
    printf("\n%s", percentile_note);
}

int cmd_report(int argc, char **argv)
{
    int rc;
    int i = flags_word(argc, argv, "report", "report", &reports[0].word, NREPORTS, sizeof reports[0], report_help, &rc);
    if (i < 0)
        return rc;
    argc--, argv++; /* the report's own argv: its flags parsed from argv[1] */
    return reports[i].run ? reports[i].run(argc, argv) : report_sql(&reports[i], argc, argv);
}
