/*
 * Stats rows taken from a written trace (contract in tracestat.h).
 */
#include <stddef.h>

#include "db/tracestat.h"

int dbts_slice_ns(sqlite3 *db, int64_t trace_id, int64_t tid, int cpu, uint64_t t0, uint64_t t1, uint64_t *ns)
{
    sqlite3_stmt *s = NULL;
    *ns = 0;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT COALESCE(SUM(MIN(s.ts + s.dur, ?5) - MAX(s.ts, ?4)), 0) FROM sched_slice s "
                                "JOIN thread t USING (utid) WHERE s.trace_id = ?1 AND (?2 < 0 OR t.tid = ?2) "
                                "AND s.cpu = ?3 AND s.ts < ?5 AND s.ts + s.dur > ?4",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(s, 1, trace_id);
    sqlite3_bind_int64(s, 2, tid);
    sqlite3_bind_int(s, 3, cpu);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)t0);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)t1);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 v = sqlite3_column_int64(s, 0);
        *ns = v > 0 ? (uint64_t)v : 0;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(s);
    return rc;
}

/* Alike in shape to dbts_slice_ns: a statement prepared and bound, each
 * its own. */
int dbts_add_stat(sqlite3 *db, int64_t trace_id, const char *name, int idx, const char *severity, uint64_t value,
                  const char *description)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "INSERT INTO stats (trace_id, name, idx, severity, value, description) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(s, 1, trace_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    if (idx >= 0)
        sqlite3_bind_int(s, 3, idx);
    sqlite3_bind_text(s, 4, severity, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)value);
    sqlite3_bind_text(s, 6, description, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
