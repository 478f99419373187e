/*
 * The canned reports of `runq report` (host/cli/report.c; docs/sql.md shows
 * the same queries): each a read-only SQL text over the tables of
 * docs/sql.md, printed as a table, CSV or JSON by dbq_run. Most are fixed
 * text; three are made here: latency (its threshold and class are
 * options), releases (a column for each class above the fair one, from
 * trace/format.h's TRACE_CLASSES, so a new class is a new column without
 * an edit here) and decisions (what counts as measured depends on the
 * database's schema).
 *
 * Percentiles follow the one rule every engine uses (trace/scenario.h,
 * scn_rank): of n sorted values, the one at 0-based index
 * (n - 1) * per_mille / 1000, rounded down.
 */
#ifndef RUNQ_DB_Q_REPORT_H
#define RUNQ_DB_Q_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "db/query.h"

enum dbq_report { DBQ_REPORT_LATENCY, DBQ_REPORT_RELEASES, DBQ_REPORT_SHARE, DBQ_REPORT_DECISIONS, DBQ_REPORT_LOSS };

struct dbq_report_opts {
    /* latency: the tail's bound, and its spelling in the column's name
     * over_NAME_pct (digits, letters and '.': "1ms", "2.5ms") */
    uint64_t threshold_ns;
    const char *threshold;
    /* latency: only the tasks of this class in the populations (a name of
     * trace/format.h's TRACE_CLASSES: "fair", "rt"), or NULL for all */
    const char *cls;
    /* latency: max_at_ms as the database stores it (the trace's own
     * clock, ms since boot), not since the trace's start, the time base
     * step, plot and the other reports use */
    bool absolute;
};

/* Room for any report's text: none comes near it. */
#define DBQ_REPORT_SQL_MAX 8192

/* Report r's SQL text, as it runs on a database of the current schema
 * (what `runq report NAME --sql` prints), into buf. 0, or -1 with err
 * (an option it cannot take; a text past len). */
int dbq_report_sql(enum dbq_report r, const struct dbq_report_opts *o, char *buf, size_t len, char *err,
                   size_t errlen);

/* Runs report r on db (scoped to a trace or not: dbq_scope_trace),
 * printing its results to out in fmt: dbq_run's return codes, with err.
 * The text is the one dbq_report_sql gives, made for db's schema. */
int dbq_report_run(sqlite3 *db, enum dbq_report r, const struct dbq_report_opts *o, enum dbq_format fmt, FILE *out,
                   char *err, size_t errlen);

/* A CPU whose kernel count of releases to a class differs from the
 * trace's: its counter releases_CLASS went up by counted between its
 * first and last sample, while the trace holds traced LEAVE release
 * records by that class between those samples (loss, or a bug on either
 * side). cls is the database's text, NUL-terminated, valid during the
 * call. */
struct dbq_release_mismatch {
    int64_t trace_id, cpu;
    const char *cls;
    int64_t counted, traced;
};

/* Calls fn for each such CPU and class of the traces db sees, by trace,
 * CPU and class. 0, or -1 with err ("reading counter: ..." when the read
 * fails partway; fn has then seen the rows before). */
int dbq_report_release_mismatches(sqlite3 *db, void (*fn)(const struct dbq_release_mismatch *m, void *arg), void *arg,
                                  char *err, size_t errlen);

#endif
