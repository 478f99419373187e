/*
 * The canned reports' SQL (contract in q_report.h): the texts, made from
 * their options, and run through dbq_run.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "db/events.h"
#include "db/q_report.h"
#include "db/recorder_lock.h"
#include "trace/format.h"

/* A report's text as it is made: buf[len], over when it outgrew it. */
struct sqlbuf {
    char *buf;
    size_t len;
    bool over;
};

/* Appends to b; a report's SQL never comes near DBQ_REPORT_SQL_MAX, so
 * past it is a bug, said by dbq_report_sql, not an input. */
static void add(struct sqlbuf *b, const char *fmt, ...)
{
    size_t at = strlen(b->buf);
    va_list ap;
    va_start(ap, fmt);
    int n = b->over ? 0 : vsnprintf(b->buf + at, b->len - at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->len - at)
        b->over = true;
}

/* SQL for value number PER_MILLE of a window partition whose 0-based
 * index is column i and size n: scn_rank() in SQL. */
#define RANK_SQL(per_mille) "i = (n - 1) * " #per_mille " / 1000"

/* Two populations of latencies, as the seed (shared/seeds/004) splits
 * them: wake -> run (wakeup) and bounce -> run (bounce: put back because
 * a higher class took the CPU), and both together; then per task, both.
 * threshold_ns: the tail's bound, `name` its spelling ("1ms"); cls: only
 * the tasks of that class in the populations ("fair", "rt"), or NULL for
 * all (the seed's histograms were of its scheduler's own tasks: --class
 * fair leaves out the RT tasks' own quick wakeups). */
static void latency_sql(struct sqlbuf *b, uint64_t threshold_ns, const char *name, const char *cls, bool absolute)
{
    char where[64];
    snprintf(where, sizeof where, cls ? "IN (SELECT utid FROM thread WHERE class = '%s')" : "IS NOT NULL", cls);
    add(b,
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
    add(b,
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
        "  ROUND(wt.mx / 1000.0, 1) AS max_us, ROUND((wt.mx_at - %s) / 1e6, 3) AS max_at_ms,\n"
        "  COALESCE(bt.n, 0) AS bounces, ROUND(bt.p99 / 1000.0, 1) AS bounce_p99_us\n"
        "FROM (SELECT utid FROM wt UNION SELECT utid FROM bt) u JOIN thread t USING (utid)\n"
        "LEFT JOIN wt USING (utid) LEFT JOIN bt USING (utid)\n"
        "ORDER BY p99_us DESC, bounce_p99_us DESC, t.tid",
        /* One time base: since the start of the task's trace, as step
         * and plot count (absolute: the stored stamp). */
        absolute ? "0" : "(SELECT tr.start_ts FROM trace tr WHERE tr.trace_id = t.trace_id)");
}

/* The classes above the fair one: every row of TRACE_CLASSES but FAIR. */
#define CLASS_NAME(id, name, what) name,
static const char *const class_names[] = { TRACE_CLASSES(CLASS_NAME) };
#undef CLASS_NAME

/* Appends fmt once for each class above the fair one; fmt takes the
 * class's name twice. */
static void add_classes(struct sqlbuf *b, const char *fmt)
{
    for (unsigned c = 0; c < TRACE_CLASS_NR; c++)
        if (c != TRACE_CLASS_FAIR)
            add(b, fmt, class_names[c], class_names[c]);
}

/* Per trace: guest seconds, the fair class's CPU releases (LEAVE release
 * records), by the class that took the CPU, a second, and tasks bounced
 * per release. A trace of a scenario run is named by its scenario file
 * and cell. */
static void releases_sql(struct sqlbuf *b)
{
    add(b,
        "WITH tr AS (SELECT t.trace_id, (t.end_ts - t.start_ts) / 1e9 AS secs,\n"
        "  COALESCE((SELECT COALESCE(replace(replace(e.file, rtrim(e.file, replace(e.file, '/', '')), ''), '.scn', '')\n"
        "      || CASE WHEN s.params <> '' THEN ' ' || s.params ELSE '' END, 'scenario ' || s.scenario_id)\n"
        "    FROM scenario s LEFT JOIN experiment e USING (experiment_id) WHERE s.trace_id = t.trace_id\n"
        "    ORDER BY s.scenario_id LIMIT 1), 'trace ' || t.trace_id) AS label FROM trace t),\n"
        "rl AS (SELECT trace_id, COUNT(*) AS releases");
    add_classes(b, ", COUNT(CASE WHEN by_class = '%s' THEN 1 END) AS \"%s\"");
    add(b,
        " FROM eevdf_leave WHERE reason = 'release' GROUP BY trace_id),\n"
        "bn AS (SELECT trace_id, COUNT(*) AS bounces FROM bounce GROUP BY trace_id)\n"
        "SELECT tr.trace_id, tr.label AS trace, ROUND(tr.secs, 3) AS guest_s, COALESCE(rl.releases, 0) AS releases");
    add_classes(b, ", COALESCE(rl.\"%s\", 0) AS \"%s\"");
    add(b,
        ",\n  ROUND(COALESCE(rl.releases, 0) / NULLIF(tr.secs, 0), 1) AS per_s,\n"
        "  ROUND(1.0 * COALESCE(bn.bounces, 0) / NULLIF(rl.releases, 0), 2) AS bounced_per_release\n"
        "FROM tr LEFT JOIN rl USING (trace_id) LEFT JOIN bn USING (trace_id) ORDER BY tr.trace_id");
}

/* The kernel's own count against the trace's: on each CPU, its counter
 * releases_CLASS went up by (last - first sample) while the trace holds
 * some LEAVE release by that class between those two samples. Rows only
 * where they differ (loss, or a bug on either side). */
static void releases_check_sql(struct sqlbuf *b)
{
    add(b, "WITH c AS (SELECT trace_id, cpu, substr(name, 10) AS class, MIN(ts) AS t0, MAX(ts) AS t1,\n"
                  "  MAX(value) - MIN(value) AS counted FROM counter WHERE name IN (");
    add_classes(b, "'releases_%s', %.0s");
    add(b, "NULL) GROUP BY trace_id, cpu, name)\n"
                  "SELECT trace_id, cpu, class, counted, (SELECT COUNT(*) FROM eevdf_leave l WHERE l.trace_id = c.trace_id\n"
                  "  AND l.cpu = c.cpu AND l.reason = 'release' AND l.by_class = c.class AND l.ts > c.t0 AND l.ts <= c.t1)\n"
                  "  AS traced FROM c WHERE counted <> traced ORDER BY trace_id, cpu, class");
}

static const char report_share[] =
    "SELECT t.tid, t.name, s.cpu, COUNT(*) AS slices,\n"
    "  ROUND(SUM(s.dur) / 1e6, 3) AS run_ms,\n"
    "  ROUND(100.0 * SUM(s.dur) / (SELECT MAX(end_ts - start_ts, 1) FROM trace), 2) AS cpu_pct,\n"
    "  ROUND(100.0 * SUM(s.dur) / (SELECT SUM(s2.dur) FROM sched_slice s2 JOIN thread t2 USING (utid)"
    "   WHERE s2.cpu = s.cpu AND NOT t2.is_idle), 2) AS busy_pct\n"
    "FROM sched_slice s JOIN thread t USING (utid)\n"
    "WHERE NOT t.is_idle GROUP BY s.utid, s.cpu ORDER BY s.cpu, run_ms DESC";

/* The decisions' cost histogram and summary. A decision's cost and the
 * tasks it touched count only where the engine measured them (counted:
 * EVENT_COUNTS_KNOWN_SQL, db/events.h): a Linux trace stores 0 for both,
 * which is no measurement, and they are NULL here, never averaged or
 * binned. counted is "1" for a database older than trace.engine (every
 * trace in it is the kernel's). */
static void decisions_sql(struct sqlbuf *b, const char *counted)
{
    for (int part = 0; part < 2; part++) {
        add(b, "WITH %sp AS (SELECT CASE WHEN %s THEN cost_ns END AS cost_ns,\n"
                      "  CASE WHEN %s THEN touched END AS touched FROM eevdf_pick)",
            part ? "" : "RECURSIVE ", counted, counted);
        if (part == 1) {
            add(b, "\nSELECT COUNT(*) AS decisions, COUNT(cost_ns) AS measured, ROUND(AVG(cost_ns)) AS mean_ns,"
                          " MAX(cost_ns) AS max_ns, ROUND(AVG(touched), 2) AS mean_touched FROM p");
            break;
        }
        add(b,
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

/* The names an option pastes into a report's text, checked so that no
 * quote can end where it stands: a class of trace/format.h, a
 * threshold's spelling (digits, letters, '.'). */
static bool is_class(const char *cls)
{
    for (unsigned c = 0; c < TRACE_CLASS_NR; c++)
        if (strcmp(class_names[c], cls) == 0)
            return true;
    return false;
}

static bool is_word(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!(*s >= '0' && *s <= '9') && !(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && *s != '.')
            return false;
    return true;
}

/* Report r's text into buf; counted: what counts as a measured decision
 * (EVENT_COUNTS_KNOWN_SQL, or "1" before trace.engine). */
static int report_sql(enum dbq_report r, const struct dbq_report_opts *o, const char *counted, char *buf, size_t len,
                      char *err, size_t errlen)
{
    struct sqlbuf b = { buf, len, false };
    if (!len) {
        snprintf(err, errlen, "internal error: no room for a report's SQL");
        return -1;
    }
    buf[0] = '\0';
    switch (r) {
    case DBQ_REPORT_LATENCY:
        if (o->cls && !is_class(o->cls)) {
            snprintf(err, errlen, "no class '%.32s'", o->cls);
            return -1;
        }
        if (!o->threshold || !is_word(o->threshold)) {
            snprintf(err, errlen, "internal error: a threshold's spelling must be digits, letters and '.'");
            return -1;
        }
        latency_sql(&b, o->threshold_ns, o->threshold, o->cls, o->absolute);
        break;
    case DBQ_REPORT_RELEASES:
        releases_sql(&b);
        break;
    case DBQ_REPORT_SHARE:
        add(&b, "%s", report_share);
        break;
    case DBQ_REPORT_DECISIONS:
        decisions_sql(&b, counted);
        break;
    case DBQ_REPORT_LOSS:
        add(&b, "%s", report_loss);
        break;
    default:
        snprintf(err, errlen, "internal error: no report %d", (int)r);
        return -1;
    }
    if (b.over) {
        snprintf(err, errlen, "internal error: a report's SQL outgrew its buffer");
        return -1;
    }
    return 0;
}

int dbq_report_sql(enum dbq_report r, const struct dbq_report_opts *o, char *buf, size_t len, char *err,
                   size_t errlen)
{
    return report_sql(r, o, EVENT_COUNTS_KNOWN_SQL, buf, len, err, errlen);
}

int dbq_report_run(sqlite3 *db, enum dbq_report r, const struct dbq_report_opts *o, enum dbq_format fmt, FILE *out,
                   char *err, size_t errlen)
{
    char sql[DBQ_REPORT_SQL_MAX];
    /* A database older than trace.engine (schema 9): every trace in it is
     * the kernel's, every decision measured. */
    const char *counted = r == DBQ_REPORT_DECISIONS && dbq_has_column(db, "trace", "engine", err, errlen) <= 0
                              ? "1"
                              : EVENT_COUNTS_KNOWN_SQL;
    if (report_sql(r, o, counted, sql, sizeof sql, err, errlen) != 0)
        return 1;
    return dbq_run(db, sql, fmt, out, err, errlen);
}

int dbq_report_release_mismatches(sqlite3 *db, void (*fn)(const struct dbq_release_mismatch *m, void *arg), void *arg,
                                  char *err, size_t errlen)
{
    char sql[DBQ_REPORT_SQL_MAX];
    struct sqlbuf b = { sql, sizeof sql, false };
    sqlite3_stmt *s;
    sql[0] = '\0';
    releases_check_sql(&b);
    if (b.over) {
        snprintf(err, errlen, "internal error: a report's SQL outgrew its buffer");
        return -1;
    }
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *cls = (const char *)sqlite3_column_text(s, 2);
        struct dbq_release_mismatch m = {
            .trace_id = sqlite3_column_int64(s, 0),
            .cpu = sqlite3_column_int64(s, 1),
            .cls = cls ? cls : "",
            .counted = sqlite3_column_int64(s, 3),
            .traced = sqlite3_column_int64(s, 4),
        };
        fn(&m, arg);
    }
    if (rc != SQLITE_DONE)
        snprintf(err, errlen, "reading counter: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : -1;
}
