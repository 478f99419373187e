/*
 * Stats rows taken from a written trace (contract in tracestat.h).
 */
#include <stddef.h>

#include "db/q_rows.h"
#include "db/tracestat.h"

/* The row's sum into out, a uint64_t: 0 when it is not positive. */
static void read_ns(sqlite3_stmt *s, void *out)
{
    sqlite3_int64 v = sqlite3_column_int64(s, 0);
    *(uint64_t *)out = v > 0 ? (uint64_t)v : 0;
}

int dbts_slice_ns(sqlite3 *db, int64_t trace_id, int64_t tid, int cpu, uint64_t t0, uint64_t t1, uint64_t *ns,
                  char *err, size_t errlen)
{
    *ns = 0;
    sqlite3_stmt *s = dbq_prepare(db,
                                  "SELECT COALESCE(SUM(MIN(s.ts + s.dur, ?5) - MAX(s.ts, ?4)), 0) FROM sched_slice s "
                                  "JOIN thread t USING (utid) WHERE s.trace_id = ?1 AND (?2 < 0 OR t.tid = ?2) "
                                  "AND s.cpu = ?3 AND s.ts < ?5 AND s.ts + s.dur > ?4",
                                  DBQ_ARGS(DBQ_INT(trace_id), DBQ_INT(tid), DBQ_INT(cpu), DBQ_INT(t0), DBQ_INT(t1)),
                                  err, errlen);
    return dbq_one(db, s, read_ns, ns, err, errlen) < 0 ? -1 : 0;
}

int dbts_add_stat(sqlite3 *db, int64_t trace_id, const char *name, int idx, const char *severity, uint64_t value,
                  const char *description, char *err, size_t errlen)
{
    sqlite3_stmt *s = dbq_prepare(db,
                                  "INSERT INTO stats (trace_id, name, idx, severity, value, description) "
                                  "VALUES (?, ?, ?, ?, ?, ?)",
                                  DBQ_ARGS(DBQ_INT(trace_id), DBQ_TEXT(name), DBQ_OPT(idx >= 0, idx),
                                           DBQ_TEXT(severity), DBQ_INT(value), DBQ_TEXT(description)),
                                  err, errlen);
    return dbq_one(db, s, NULL, NULL, err, errlen) < 0 ? -1 : 0;
}
