/*
 * Picks and the queues stored at their moments (contract in pick_queue.h).
 *
 * Two reads side by side, both in (ts, cpu) order: the picks, and the
 * snapshot rows; the rows of one (ts, cpu) are gathered once and handed
 * with every pick of that moment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/events.h"
#include "db/pick_queue.h"

static int fail(sqlite3 *db, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return -1;
}

/* Column i of the row s as an int64, or dflt when NULL. */
static int64_t col_or(sqlite3_stmt *s, int i, int64_t dflt)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(s, i);
}

/* A count the database may hold out of int's range, clamped into it. */
static int col_int(sqlite3_stmt *s, int i, int dflt)
{
    int64_t v = col_or(s, i, dflt);
    return v < -1 ? -1 : v > 1000000000 ? 1000000000 : (int)v;
}

int pickq_trace_read(sqlite3 *db, int64_t trace_id, struct pickq_trace *t, char *err, size_t errlen)
{
    struct event_schema sch;
    char sql[512];
    sqlite3_stmt *s;

    memset(t, 0, sizeof *t);
    event_schema_read(db, &sch);
    snprintf(sql, sizeof sql,
             "SELECT %s, %s, ncpus, tick_hz, start_ts,"
             " (SELECT MAX(value) FROM main.stats WHERE trace_id = ?1 AND name = 'linux_picks_internals'),"
             " (SELECT COUNT(*) FROM main.eevdf_pick WHERE trace_id = ?1 AND v IS NOT NULL),"
             " (SELECT COUNT(*) FROM main.queue_snapshot WHERE trace_id = ?1)"
             " FROM main.trace WHERE trace_id = ?1",
             sch.trace_engine ? "COALESCE(engine, 'runq-kernel')" : "'runq-kernel'",
             sch.trace_engine ? "engine_version" : "NULL");
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return fail(db, "reading the trace", err, errlen);
    sqlite3_bind_int64(s, 1, trace_id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *e = (const char *)sqlite3_column_text(s, 0);
        const char *v = (const char *)sqlite3_column_text(s, 1);
        snprintf(t->engine, sizeof t->engine, "%s", e ? e : "?");
        snprintf(t->version, sizeof t->version, "%s", v ? v : "");
        t->ncpus = col_int(s, 2, 0);
        t->tick_hz = col_int(s, 3, 0);
        t->start_ts = col_or(s, 4, 0);
        t->picks_internals = col_or(s, 5, -1);
        t->picks_with_v = col_or(s, 6, 0);
        t->snapshots = col_or(s, 7, 0);
    }
    sqlite3_finalize(s);
    if (rc == SQLITE_DONE) {
        snprintf(err, errlen, "no trace %lld in this database", (long long)trace_id);
        return -1;
    }
    return rc == SQLITE_ROW ? 0 : fail(db, "reading the trace", err, errlen);
}

/* The snapshot rows of one moment, and the read that fills them. */
struct moment {
    sqlite3_stmt *s;
    int rc;                   /* the last sqlite3_step of s */
    int64_t ts;
    int cpu;
    struct pickq_ent *ent;
    int n, cap;
};

/* Adds the snapshot row m->s is on to m. 0, or -1 out of memory. */
static int take_row(struct moment *m)
{
    sqlite3_stmt *s = m->s;
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 64;
        struct pickq_ent *ent = realloc(m->ent, (size_t)cap * sizeof *ent);
        if (!ent)
            return -1;
        m->ent = ent;
        m->cap = cap;
    }
    struct pickq_ent *e = &m->ent[m->n++];
    e->utid = col_int(s, 2, 0);
    e->current = col_or(s, 3, 0) != 0;
    e->eligible = col_or(s, 4, 0) != 0;
    e->delayed = col_or(s, 5, 0) != 0;
    e->nice = col_int(s, 6, 0);
    e->known = true;
    for (int i = 7; i <= 10; i++)
        e->known &= sqlite3_column_type(s, i) != SQLITE_NULL;
    e->weight = col_or(s, 7, 0);
    e->vruntime = col_or(s, 8, 0);
    e->deadline = col_or(s, 9, 0);
    e->slice_ns = col_or(s, 10, 0);
    e->prot = sqlite3_column_type(s, 11) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 11) != 0;
    e->tid = col_int(s, 12, -1);
    e->is_idle = col_or(s, 13, 0) != 0;
    return 0;
}

/* Moves the snapshot read to the moment (ts, cpu): the rows stored there
 * gathered in m, none when there are none. Rows of moments before it
 * (snapshots with no pick) are passed over. 0, or -1 out of memory. */
static int seek(struct moment *m, int64_t ts, int cpu)
{
    if (m->n && m->ts == ts && m->cpu == cpu)
        return 0;
    m->n = 0;
    m->ts = ts;
    m->cpu = cpu;
    for (; m->rc == SQLITE_ROW; m->rc = sqlite3_step(m->s)) {
        int64_t rts = sqlite3_column_int64(m->s, 0);
        int rcpu = col_int(m->s, 1, -1);
        if (rts > ts || (rts == ts && rcpu > cpu))
            break;
        if (rts == ts && rcpu == cpu && take_row(m) != 0)
            return -1;
    }
    return 0;
}

int pickq_each(sqlite3 *db, int64_t trace_id, void (*fn)(const struct pickq_pick *p, void *arg), void *arg,
               char *err, size_t errlen)
{
    struct event_schema sch;
    char sql[1024];
    sqlite3_stmt *ps = NULL;
    struct moment m = {0};
    int rc = -1;

    event_schema_read(db, &sch);
    if (sqlite3_prepare_v2(db,
                           "SELECT p.ts, p.cpu, p.prev_utid, p.next_utid, p.v, p.nr_runnable,"
                           " tp.tid, tp.is_idle, tn.tid, tn.is_idle"
                           " FROM main.eevdf_pick p LEFT JOIN main.thread tp ON tp.utid = p.prev_utid"
                           " LEFT JOIN main.thread tn ON tn.utid = p.next_utid"
                           " WHERE p.trace_id = ?1 ORDER BY p.ts, p.cpu, p.id",
                           -1, &ps, NULL) != SQLITE_OK) {
        fail(db, "reading eevdf_pick", err, errlen);
        goto out;
    }
    snprintf(sql, sizeof sql,
             "SELECT q.ts, q.cpu, q.utid, q.is_current, q.eligible, q.delayed, q.nice, q.weight, q.vruntime,"
             " q.deadline, q.slice_ns, %s, t.tid, t.is_idle"
             " FROM main.queue_snapshot q LEFT JOIN main.thread t ON t.utid = q.utid"
             " WHERE q.trace_id = ?1 ORDER BY q.ts, q.cpu, q.rowid",
             sch.snapshot_protected ? "q.protected" : "NULL");
    if (sqlite3_prepare_v2(db, sql, -1, &m.s, NULL) != SQLITE_OK) {
        fail(db, "reading queue_snapshot", err, errlen);
        goto out;
    }
    sqlite3_bind_int64(ps, 1, trace_id);
    sqlite3_bind_int64(m.s, 1, trace_id);
    m.rc = sqlite3_step(m.s);
    int prc;
    while ((prc = sqlite3_step(ps)) == SQLITE_ROW) {
        struct pickq_pick p = {
            .ts = sqlite3_column_int64(ps, 0),
            .cpu = col_int(ps, 1, -1),
            .prev = col_int(ps, 2, 0),
            .next = col_int(ps, 3, 0),
            .has_v = sqlite3_column_type(ps, 4) != SQLITE_NULL,
            .v = col_or(ps, 4, 0),
            .nr_runnable = col_int(ps, 5, -1),
            .prev_tid = col_int(ps, 6, -1),
            .prev_idle = col_or(ps, 7, 0) != 0,
            .next_tid = col_int(ps, 8, -1),
            .next_idle = col_or(ps, 9, 0) != 0,
        };
        if (seek(&m, p.ts, p.cpu) != 0) {
            snprintf(err, errlen, "reading queue_snapshot: out of memory");
            goto out;
        }
        p.ent = m.ent;
        p.nent = m.n;
        fn(&p, arg);
    }
    if (prc != SQLITE_DONE)
        fail(db, "reading eevdf_pick", err, errlen);
    else if (m.rc != SQLITE_DONE && m.rc != SQLITE_ROW)
        fail(db, "reading queue_snapshot", err, errlen);
    else
        rc = 0;
out:
    sqlite3_finalize(ps);
    sqlite3_finalize(m.s);
    free(m.ent);
    return rc;
}

/* The CPU's snapshot before the leave's, and the entities that were
 * delayed there (DELAY_DEQUEUE: blocked, still queued) and are gone from
 * the leave's snapshot without an event: pick_next_entity() dequeued
 * them when it picked them (a delayed entity picked is dequeued and the
 * pick goes again), after prev left. They were in the queue whose
 * average gave prev its lag (found in the 15-pair pipe cell: 6.7 % of
 * its leaves matched neither clamp without them). A pick on that CPU in
 * between (no snapshot of it), or an event of theirs, makes it unsure. */
#define PREV_SNAP                                                                                                 \
    "(SELECT MAX(o.ts) FROM main.queue_snapshot o WHERE o.trace_id = ?1 AND o.cpu = l.cpu AND o.ts < l.ts)"
#define VANISHED                                                                                                  \
    "FROM main.queue_snapshot d WHERE d.trace_id = ?1 AND d.cpu = l.cpu AND d.ts = " PREV_SNAP                    \
    " AND d.delayed = 1 AND d.utid <> l.utid AND NOT EXISTS (SELECT 1 FROM main.queue_snapshot c"                \
    " WHERE c.trace_id = ?1 AND c.cpu = l.cpu AND c.ts = l.ts AND c.utid = d.utid)"

int pickq_leaves(sqlite3 *db, int64_t trace_id, void (*fn)(const struct pickq_leave *l, void *arg), void *arg,
                 char *err, size_t errlen)
{
    /* The snapshot of the leave's moment, and the thread's own row in the
     * latest snapshot before it on that CPU (where it ran or waited: the
     * index on (trace, cpu, ts) walks back from the leave to it, a few
     * rows, where a search by thread read every row of the trace). A current row
     * with no numbers only says who runs (the idle task, or a task of
     * another queue): no entity of this one. */
    static const char sql[] =
        "SELECT l.ts, l.cpu, l.vruntime, l.lag,"
        " (SELECT weight FROM main.queue_snapshot o WHERE o.trace_id = ?1 AND o.cpu = l.cpu AND o.ts < l.ts"
        "  AND o.utid = l.utid ORDER BY o.ts DESC LIMIT 1),"
        " (SELECT slice_ns FROM main.queue_snapshot o WHERE o.trace_id = ?1 AND o.cpu = l.cpu AND o.ts < l.ts"
        "  AND o.utid = l.utid ORDER BY o.ts DESC LIMIT 1),"
        " SUM(CASE WHEN NOT (q.is_current AND q.weight IS NULL) THEN q.weight * (q.vruntime - l.vruntime) END),"
        " SUM(CASE WHEN NOT (q.is_current AND q.weight IS NULL) THEN q.weight END), MAX(CASE WHEN NOT (q.is_current AND q.weight IS NULL) THEN q.slice_ns END),"
        " COUNT(q.utid),"
        " SUM(NOT (q.is_current AND q.weight IS NULL) AND (q.weight IS NULL OR q.vruntime IS NULL OR t.name = 'other')),"
        /* the delayed ones the pick dequeued (below): 11..13 their sums, 14 why they cannot be told */
        " (SELECT SUM(d.weight * (d.vruntime - l.vruntime)) " VANISHED "),"
        " (SELECT SUM(d.weight) " VANISHED "),"
        " (SELECT MAX(d.slice_ns) " VANISHED "),"
        " (SELECT COUNT(*) FROM main.eevdf_pick k WHERE k.trace_id = ?1 AND k.cpu = l.cpu"
        "   AND k.ts > " PREV_SNAP " AND k.ts < l.ts)"
        " + (SELECT COUNT(*) " VANISHED " AND (d.weight IS NULL OR d.vruntime IS NULL OR EXISTS"
        "   (SELECT 1 FROM main.eevdf_place e WHERE e.utid = d.utid AND e.ts > d.ts AND e.ts <= l.ts)"
        "   OR EXISTS (SELECT 1 FROM main.eevdf_leave e WHERE e.utid = d.utid AND e.ts > d.ts AND e.ts <= l.ts)))"
        " FROM main.eevdf_leave l"
        " LEFT JOIN main.queue_snapshot q ON q.trace_id = ?1 AND q.ts = l.ts AND q.cpu = l.cpu"
        " LEFT JOIN main.thread t ON t.utid = q.utid"

        " WHERE l.trace_id = ?1 AND l.reason = 'block' AND l.lag IS NOT NULL AND l.vruntime IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM main.queue_snapshot p WHERE p.trace_id = ?1 AND p.ts = l.ts"
        "  AND p.cpu = l.cpu AND p.utid = l.utid)"
        " GROUP BY l.id ORDER BY l.ts, l.cpu";
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return fail(db, "reading the leaves", err, errlen);
    sqlite3_bind_int64(s, 1, trace_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct pickq_leave l = {
            .ts = col_or(s, 0, 0), .cpu = col_int(s, 1, -1), .vruntime = col_or(s, 2, 0), .lag = col_or(s, 3, 0),
            .weight = col_or(s, 4, 0), .slice_ns = col_or(s, 5, 0), .sum_wdv = col_or(s, 6, 0),
            .sum_w = col_or(s, 7, 0), .max_slice = col_or(s, 8, 0), .rows = col_int(s, 9, 0),
        };
        l.sum_wdv += col_or(s, 11, 0);
        l.sum_w += col_or(s, 12, 0);
        if (col_or(s, 13, 0) > l.max_slice)
            l.max_slice = col_or(s, 13, 0);
        l.whole = l.rows > 0 && col_or(s, 10, 1) == 0 && col_or(s, 14, 1) == 0;
        fn(&l, arg);
    }
    int ok = rc == SQLITE_DONE;
    sqlite3_finalize(s);
    return ok ? 0 : fail(db, "reading the leaves", err, errlen);
}
