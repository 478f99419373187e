/*
 * A trace as Perfetto's plain-text ftrace format (contract in perfetto.h;
 * what the user sees in docs/perfetto.md).
 *
 * Perfetto's importer (src/trace_processor/importers/systrace/) takes a
 * file whose first bytes hold "# tracer", skips lines starting with '#',
 * and reads each other line as
 *
 *   TASK-PID (TGID) [CPU] FLAGS SECONDS.NANOSECONDS: EVENT: ARGS
 *
 * TASK is everything before the first "-PID" followed by a space, so a
 * name may hold '-' but no space; ARGS are split at spaces and at '=',
 * so a name must hold neither (names() replaces them). Of the events it
 * knows, these carry a schedule:
 *
 *   sched_switch      closes the CPU's open slice and opens next's; its
 *                     prev_pid must be the pid the CPU's last switch put
 *                     on it, or the slice stays open (a
 *                     mismatched_sched_switch_tids error), so every CPU's
 *                     switches must chain;
 *   sched_waking      a wakeup: the wakee is pid=, the waker the line's
 *                     task (sched_wakeup lines are not read at all);
 *   tracing_mark_write  B|TGID|NAME and E|TGID (a slice on the line's
 *                     thread), I|TGID|NAME (an instant there), and
 *                     C|TGID|NAME|VALUE (a counter of process TGID; the
 *                     value an integer).
 *
 * It has no line for lost data: ftrace's own "CPU:N [LOST M EVENTS]"
 * fails its line pattern and is only counted as systrace_parse_failure,
 * an import error. So a gap is drawn with what it does read (below).
 *
 * Which rows become which lines, each source one query in time order,
 * merged by (time, rank, source):
 *   1. wakeup      -> sched_waking on the waker's CPU, from the waker
 *                     (swapper/N, pid 0, when the waker is NULL: a timer
 *                     or an interrupt);
 *   2. sched_slice -> sched_switch: one into each slice, from the slice
 *                     before it on that CPU, and one out of each slice
 *                     that no slice follows at once: into CPU N's "no
 *                     data" task (data_gap/N) when a slice comes later,
 *                     else into swapper/N at the CPU's last slice's end;
 *                     each CPU's idle task is pid 0, swapper/N, as in
 *                     Linux. So a gap never becomes idle time;
 *   3. eevdf_pick, eevdf_place, eevdf_leave, sched_tick -> the counter
 *                     "V cpuN (vns)" of process PF_RUNQ_PID; eevdf_pick's next,
 *                     eevdf_place (after placement) and eevdf_leave ->
 *                     "lag (vns)", "deadline (vns)", "vruntime (vns)" of
 *                     the task's own process (tgid = its tid); a NULL
 *                     writes no line, so round robin and Linux traces
 *                     have no counters;
 *   4. data_gap    -> a B/E slice "data_gap ..." on data_gap/N's thread
 *                     over the gap's [ts_start, ts_end];
 *   5. mark        -> an instant on runq's thread.
 * Rank orders lines of one nanosecond: a wakeup before the switch it
 * may cause, counters after it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/perfetto.h"

/* A counter track's last line: a row that says again what the row
 * before it said at the same time (a PICK's numbers and the JOIN's, say)
 * writes no second line. */
struct pf_last {
    int64_t ts, value;
    bool written;
};

struct pf_thread {
    int64_t utid, tid, nice;
    bool idle;
    char *comm; /* safe in a line: no space, '=', '|' or control byte */
    struct pf_last num[3]; /* lag, deadline, vruntime */
};

struct pf {
    sqlite3 *db;
    const char *prog;
    FILE *out;
    int64_t trace;
    struct pf_thread *th; /* sorted by utid */
    size_t nth;
    struct pf_last v[PF_MAX_CPUS];
    bool failed; /* an error was printed */
};

/* Who a line is about: the task, and the process it is put in. */
struct pf_who {
    const char *comm;
    int64_t pid, tgid; /* tgid 0: none, printed as Linux does, "(-------)" */
};

static void pf_error(struct pf *p, const char *what)
{
    if (!p->failed)
        fprintf(stderr, "runq %s: trace %" PRId64 ": %s\n", p->prog, p->trace, what);
    p->failed = true;
}

static void pf_sql_error(struct pf *p)
{
    char *m = sqlite3_mprintf("%s", sqlite3_errmsg(p->db));
    pf_error(p, m ? m : "out of memory");
    sqlite3_free(m);
}

/* A copy of name that a line can carry: a task's name as one word (no
 * space, '=' or '|'), a mark's or the header's with its spaces (the rest
 * of a B or I line is the name); tidN for a task that has none (its
 * TASK_NEW was lost). Every text the export writes comes from the
 * database or the command line and goes through here: a control byte
 * (a newline, CR, escape) would end the line and let the text write a
 * line of its own, and a byte past ASCII is no part of ftrace's format,
 * so each is written '_'. */
static char *pf_clean(const char *name, int64_t tid, bool spaces)
{
    char *c;
    if (!name || !*name) {
        size_t n = (size_t)snprintf(NULL, 0, "tid%" PRId64, tid) + 1;
        c = malloc(n);
        if (c)
            snprintf(c, n, "tid%" PRId64, tid);
        return c;
    }
    c = strdup(name);
    for (unsigned char *s = (unsigned char *)c; c && *s; s++)
        if ((*s == ' ' && !spaces) || *s < ' ' || *s >= 0x7f || (*s == '=' && !spaces) || *s == '|')
            *s = '_';
    return c;
}

static int pf_load_threads(struct pf *p)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(p->db,
                           "SELECT utid, tid, is_idle, COALESCE(nice, 0), name FROM main.thread "
                           "WHERE trace_id = ?1 ORDER BY utid",
                           -1, &s, NULL) != SQLITE_OK) {
        pf_sql_error(p);
        return -1;
    }
    sqlite3_bind_int64(s, 1, p->trace);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (p->nth == cap) {
            cap = cap ? 2 * cap : 64;
            struct pf_thread *t = realloc(p->th, cap * sizeof *t);
            if (!t)
                break;
            p->th = t;
        }
        struct pf_thread *t = &p->th[p->nth];
        *t = (struct pf_thread){
            .utid = sqlite3_column_int64(s, 0),
            .tid = sqlite3_column_int64(s, 1),
            .idle = sqlite3_column_int(s, 2) != 0,
            .nice = sqlite3_column_int64(s, 3),
        };
        t->comm = pf_clean((const char *)sqlite3_column_text(s, 4), t->tid, false);
        if (!t->comm)
            break;
        p->nth++;
        if (!t->idle && (t->tid < 0 || t->tid >= PF_GAP_PID)) {
            char *m = sqlite3_mprintf("task %s has tid %lld, where the export's own tasks are (%d and up)",
                                      t->comm, (long long)t->tid, PF_GAP_PID);
            pf_error(p, m ? m : "out of memory");
            sqlite3_free(m);
        }
    }
    if (rc == SQLITE_ROW)
        pf_error(p, "out of memory");
    else if (rc != SQLITE_DONE)
        pf_sql_error(p);
    sqlite3_finalize(s);
    return p->failed ? -1 : 0;
}

static struct pf_thread *pf_thread(struct pf *p, int64_t utid)
{
    size_t lo = 0, hi = p->nth;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->th[mid].utid < utid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->nth && p->th[lo].utid == utid)
        return &p->th[lo];
    char *m = sqlite3_mprintf("a row names utid %lld, which the thread table does not describe", (long long)utid);
    pf_error(p, m ? m : "out of memory");
    sqlite3_free(m);
    return NULL;
}

/* The idle task of CPU cpu: pid 0, swapper/N, as Linux names it. idle
 * must hold 24 bytes. */
static struct pf_who pf_idle(char *idle, int64_t cpu)
{
    snprintf(idle, 24, "swapper/%" PRId64, cpu);
    return (struct pf_who){ idle, 0, 0 };
}

/* The task behind column col of s on CPU cpu (idle tasks are pid 0); a
 * NULL column is the CPU's idle task too (a waker that was a timer or an
 * interrupt). */
static bool pf_task(struct pf *p, sqlite3_stmt *s, int col, int64_t cpu, char *idle, struct pf_who *w)
{
    if (sqlite3_column_type(s, col) == SQLITE_NULL) {
        *w = pf_idle(idle, cpu);
        return true;
    }
    const struct pf_thread *t = pf_thread(p, sqlite3_column_int64(s, col));
    if (!t)
        return false;
    if (t->idle)
        *w = pf_idle(idle, cpu);
    else
        *w = (struct pf_who){ t->comm, t->tid, t->tid };
    return true;
}

static struct pf_who pf_gap_task(char *name, int64_t cpu)
{
    snprintf(name, 24, "data_gap/%" PRId64, cpu);
    /* cpu is a database's: PF_GAP_PID + cpu may overflow, and past
     * PF_MAX_CPUS it would take runq's own pid. Such a CPU's gaps share
     * the last gap pid; the name still says which CPU. */
    int64_t k = cpu >= 0 && cpu < PF_MAX_CPUS ? cpu : PF_MAX_CPUS - 1;
    return (struct pf_who){ name, PF_GAP_PID + k, PF_RUNQ_PID };
}

static const struct pf_who pf_runq = { "runq", PF_RUNQ_PID, PF_RUNQ_PID };

/* Whether value at ts is news on the track whose last line is *last. */
static bool pf_news(struct pf_last *last, int64_t ts, int64_t value)
{
    if (last->written && last->ts == ts && last->value == value)
        return false;
    *last = (struct pf_last){ ts, value, true };
    return true;
}

/* CPU numbers name the no-data tasks and index pf.v. */
static bool pf_cpu_ok(struct pf *p, int64_t cpu)
{
    if (cpu >= 0 && cpu < PF_MAX_CPUS)
        return true;
    char *m = sqlite3_mprintf("CPU %lld, past the %d an export can name", (long long)cpu, PF_MAX_CPUS);
    pf_error(p, m ? m : "out of memory");
    sqlite3_free(m);
    return false;
}

/* The line's head, up to and including "EVENT: ". Linux's layout with
 * the tgid column; the flags field is empty ("....."). Times are ns,
 * written as seconds with all 9 decimals. */
static void pf_head(struct pf *p, const struct pf_who *w, int64_t cpu, int64_t ts, const char *event)
{
    char tgid[24];
    if (w->tgid > 0)
        snprintf(tgid, sizeof tgid, "%" PRId64, w->tgid);
    else
        snprintf(tgid, sizeof tgid, "-------");
    if (ts < 0)
        pf_error(p, "a time before 0, which the format cannot write");
    if (!pf_cpu_ok(p, cpu))
        return;
    fprintf(p->out, "%16s-%-7" PRId64 " (%7s) [%03" PRId64 "] ..... %6" PRId64 ".%09" PRId64 ": %s: ", w->comm,
            w->pid, tgid, cpu, ts / 1000000000, ts % 1000000000, event);
}

/* ---- the sources ---- */

struct pf_src {
    const char *sql; /* ?1 the trace; column 0 the time, 1 the CPU */
    int rank;
    void (*line)(struct pf *p, sqlite3_stmt *s);
    sqlite3_stmt *st;
    bool done;
};

static int64_t col(sqlite3_stmt *s, int c)
{
    return sqlite3_column_int64(s, c);
}

static bool col_null(sqlite3_stmt *s, int c)
{
    return sqlite3_column_type(s, c) == SQLITE_NULL;
}

/* Slices that overlap on a CPU are no schedule: each switch would close
 * a slice Perfetto no longer has open. */
static const char PF_OVERLAP_SQL[] =
    "SELECT cpu, ts FROM (SELECT cpu, ts, LAG(ts + dur) OVER (PARTITION BY cpu ORDER BY ts, id) AS prev_end "
    "FROM main.sched_slice WHERE trace_id = ?1) WHERE ts < prev_end ORDER BY ts LIMIT 1";

/* Columns: ts, cpu, from (0 the slice before, 1 the idle task: the CPU's
 * first slice, 2 the CPU's no-data task: after a hole), prev utid,
 * prev end_state, prev priority, to (0 the slice's task, 1 idle: the
 * CPU's last slice ended, 2 no-data: a hole follows), next utid, next
 * priority, and the switch's place among the CPU's switches. */
static const char PF_SWITCH_SQL[] =
    "WITH s AS (SELECT id, ts, dur, cpu, utid, end_state, priority, "
    "  LAG(ts + dur) OVER w AS prev_end, LAG(utid) OVER w AS prev_utid, LAG(end_state) OVER w AS prev_state, "
    "  LAG(priority) OVER w AS prev_prio, LEAD(ts) OVER w AS next_ts, ROW_NUMBER() OVER w AS rn "
    "  FROM main.sched_slice WHERE trace_id = ?1 WINDOW w AS (PARTITION BY cpu ORDER BY ts, id)) "
    "SELECT ts, cpu, CASE WHEN prev_end IS NULL THEN 1 WHEN prev_end = ts THEN 0 ELSE 2 END, "
    "  prev_utid, prev_state, prev_prio, 0, utid, priority, 2 * rn FROM s "
    "UNION ALL "
    "SELECT ts + dur, cpu, 0, utid, end_state, priority, CASE WHEN next_ts IS NULL THEN 1 ELSE 2 END, "
    "  NULL, NULL, 2 * rn + 1 FROM s WHERE next_ts IS NULL OR next_ts > ts + dur "
    "ORDER BY 1, 2, 10";

/* A slice's end as sched_switch's prev_state. Perfetto's text format has
 * no "unknown": a letter it does not know counts as task_state_invalid,
 * an import error. So a slice that ended at a gap or at the trace's end
 * (end_state NULL) ends R, runnable, which is what the task was when the
 * data stopped; the idle task is always R, as in Linux. */
static const char *pf_state(sqlite3_stmt *s, int c, bool idle)
{
    const char *st = (const char *)sqlite3_column_text(s, c);
    if (idle || !st)
        return "R";
    if (strcmp(st, "R+") == 0 || strcmp(st, "S") == 0 || strcmp(st, "X") == 0)
        return st;
    return "R";
}

static int64_t pf_prio(sqlite3_stmt *s, int c)
{
    return col_null(s, c) ? 120 : col(s, c);
}

static void pf_switch_line(struct pf *p, sqlite3_stmt *s)
{
    int64_t ts = col(s, 0), cpu = col(s, 1);
    int from = (int)col(s, 2), to = (int)col(s, 6);
    char pbuf[24], nbuf[24];
    struct pf_who prev, next;
    const char *state = "S"; /* the no-data task "sleeps" between gaps */
    int64_t pprio = 120, nprio = 120;
    if (from == 0) {
        if (!pf_task(p, s, 3, cpu, pbuf, &prev))
            return;
        state = pf_state(s, 4, prev.pid == 0);
        pprio = pf_prio(s, 5);
    } else if (from == 1) {
        prev = pf_idle(pbuf, cpu);
        state = "R";
    } else {
        prev = pf_gap_task(pbuf, cpu);
    }
    if (to == 0) {
        if (!pf_task(p, s, 7, cpu, nbuf, &next))
            return;
        nprio = pf_prio(s, 8);
    } else if (to == 1) {
        next = pf_idle(nbuf, cpu);
    } else {
        next = pf_gap_task(nbuf, cpu);
    }
    pf_head(p, &prev, cpu, ts, "sched_switch");
    fprintf(p->out,
            "prev_comm=%s prev_pid=%" PRId64 " prev_prio=%" PRId64 " prev_state=%s ==> next_comm=%s next_pid=%" PRId64
            " next_prio=%" PRId64 "\n",
            prev.comm, prev.pid, pprio, state, next.comm, next.pid, nprio);
}

/* Columns: ts_wake, the waker's CPU, waker, wakee, the wakee's CPU. */
static const char PF_WAKE_SQL[] =
    "SELECT ts_wake, COALESCE(waker_cpu, cpu, 0), waker, utid, COALESCE(cpu, waker_cpu, 0) FROM main.wakeup "
    "WHERE trace_id = ?1 ORDER BY ts_wake, id";

static void pf_wake_line(struct pf *p, sqlite3_stmt *s)
{
    int64_t cpu = col(s, 1);
    char buf[24];
    struct pf_who waker;
    if (!pf_task(p, s, 2, cpu, buf, &waker))
        return;
    const struct pf_thread *wakee = pf_thread(p, col(s, 3));
    if (!wakee)
        return;
    pf_head(p, &waker, cpu, col(s, 0), "sched_waking");
    fprintf(p->out, "comm=%s pid=%" PRId64 " prio=%" PRId64 " target_cpu=%03" PRId64 "\n", wakee->comm,
            wakee->idle ? 0 : wakee->tid, 120 + wakee->nice, col(s, 4));
}

/* Columns: ts, cpu, V. Every row that stored V; at one time, in the
 * order pick, place, leave, tick. */
static const char PF_V_SQL[] =
    "SELECT ts, cpu, v FROM ("
    " SELECT ts, cpu, v, 0 AS src, id AS k FROM main.eevdf_pick WHERE trace_id = ?1 AND v IS NOT NULL"
    " UNION ALL SELECT ts, cpu, v, 1, id FROM main.eevdf_place WHERE trace_id = ?1 AND v IS NOT NULL"
    " UNION ALL SELECT ts, cpu, v, 2, id FROM main.eevdf_leave WHERE trace_id = ?1 AND v IS NOT NULL"
    " UNION ALL SELECT ts, cpu, v, 3, rowid FROM main.sched_tick WHERE trace_id = ?1 AND v IS NOT NULL) "
    "ORDER BY ts, src, k";

static void pf_v_line(struct pf *p, sqlite3_stmt *s)
{
    if (!pf_cpu_ok(p, col(s, 1)) || !pf_news(&p->v[col(s, 1)], col(s, 0), col(s, 2)))
        return;
    pf_head(p, &pf_runq, col(s, 1), col(s, 0), "tracing_mark_write");
    fprintf(p->out, "C|%d|V cpu%" PRId64 " (vns)|%" PRId64 "\n", PF_RUNQ_PID, col(s, 1), col(s, 2));
}

/* Columns: ts, cpu, utid, lag, deadline, vruntime: a task's numbers at
 * each decision about it. */
static const char PF_TASK_SQL[] =
    "SELECT ts, cpu, utid, lag, deadline, vruntime FROM ("
    " SELECT ts, cpu, next_utid AS utid, lag, deadline, vruntime, 0 AS src, id AS k FROM main.eevdf_pick"
    "  WHERE trace_id = ?1 AND next_utid IS NOT NULL"
    "  AND (lag IS NOT NULL OR deadline IS NOT NULL OR vruntime IS NOT NULL)"
    " UNION ALL SELECT ts, cpu, utid, lag_after, deadline, vruntime, 1, id FROM main.eevdf_place"
    "  WHERE trace_id = ?1 AND (lag_after IS NOT NULL OR deadline IS NOT NULL OR vruntime IS NOT NULL)"
    " UNION ALL SELECT ts, cpu, utid, lag, deadline, vruntime, 2, id FROM main.eevdf_leave"
    "  WHERE trace_id = ?1 AND (lag IS NOT NULL OR deadline IS NOT NULL OR vruntime IS NOT NULL)) "
    "ORDER BY ts, src, k";

static void pf_task_line(struct pf *p, sqlite3_stmt *s)
{
    static const char *const names[] = { "lag (vns)", "deadline (vns)", "vruntime (vns)" };
    struct pf_thread *t = pf_thread(p, col(s, 2));
    if (!t || t->idle)
        return;
    struct pf_who w = { t->comm, t->tid, t->tid };
    for (int i = 0; i < 3; i++) {
        if (col_null(s, 3 + i) || !pf_news(&t->num[i], col(s, 0), col(s, 3 + i)))
            continue;
        pf_head(p, &w, col(s, 1), col(s, 0), "tracing_mark_write");
        fprintf(p->out, "C|%" PRId64 "|%s|%" PRId64 "\n", w.tgid, names[i], col(s, 3 + i));
    }
}

/* Columns: ts, cpu, 0 begin / 1 end, packets lost, records dropped,
 * records late (NULL: not known), and the order on the CPU: a gap's end
 * before the next gap's begin at the same time. */
static const char PF_GAP_SQL[] =
    "WITH g AS (SELECT cpu, COALESCE(ts_start, ts_end) AS t0, COALESCE(ts_end, ts_start) AS t1,"
    "  packets_lost, records_dropped, records_late,"
    "  ROW_NUMBER() OVER (PARTITION BY cpu ORDER BY COALESCE(ts_start, ts_end), rowid) AS rn"
    "  FROM main.data_gap WHERE trace_id = ?1 AND COALESCE(ts_start, ts_end) IS NOT NULL) "
    "SELECT t0, cpu, 0, packets_lost, records_dropped, records_late, 2 * rn FROM g "
    "UNION ALL SELECT t1, cpu, 1, NULL, NULL, NULL, 2 * rn + 1 FROM g "
    "ORDER BY 1, 2, 7";

static void pf_gap_line(struct pf *p, sqlite3_stmt *s)
{
    char buf[24];
    struct pf_who w = pf_gap_task(buf, col(s, 1));
    pf_head(p, &w, col(s, 1), col(s, 0), "tracing_mark_write");
    if (col(s, 2)) {
        fprintf(p->out, "E|%d\n", PF_RUNQ_PID);
        return;
    }
    fprintf(p->out, "B|%d|data_gap cpu=%" PRId64 " packets_lost=%" PRId64 " records_dropped=%" PRId64, PF_RUNQ_PID,
            col(s, 1), col(s, 3), col(s, 4));
    if (!col_null(s, 5))
        fprintf(p->out, " records_late=%" PRId64, col(s, 5));
    fputc('\n', p->out);
}

/* Columns: ts, cpu (a stream-wide mark on CPU 0), name. */
static const char PF_MARK_SQL[] =
    "SELECT ts, COALESCE(cpu, 0), name FROM main.mark WHERE trace_id = ?1 ORDER BY ts, rowid";

static void pf_mark_line(struct pf *p, sqlite3_stmt *s)
{
    char *name = pf_clean((const char *)sqlite3_column_text(s, 2), 0, true);
    if (!name) {
        pf_error(p, "out of memory");
        return;
    }
    pf_head(p, &pf_runq, col(s, 1), col(s, 0), "tracing_mark_write");
    fprintf(p->out, "I|%d|%s\n", PF_RUNQ_PID, name);
    free(name);
}

/* The header names the trace by the database's text (its file, policy
 * and engine): each a comment line only once pf_clean has taken out
 * the newlines that would start a line of events. */
static void pf_header(struct pf *p, const char *db_name)
{
    sqlite3_stmt *s;
    const char *text[2] = { NULL, NULL }; /* policy, engine */
    int64_t ncpus = 0;
    if (sqlite3_prepare_v2(p->db, "SELECT policy, engine, ncpus FROM main.trace WHERE trace_id = ?1", -1, &s,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, p->trace);
        if (sqlite3_step(s) == SQLITE_ROW) {
            for (int i = 0; i < 2; i++)
                text[i] = (const char *)sqlite3_column_text(s, i);
            ncpus = col(s, 2);
        }
    }
    char *db = pf_clean(db_name, 0, true), *policy = pf_clean(text[0] && *text[0] ? text[0] : "?", 0, true),
         *engine = pf_clean(text[1] && *text[1] ? text[1] : "?", 0, true);
    if (!db || !policy || !engine)
        pf_error(p, "out of memory");
    else
        fprintf(p->out,
                "# tracer: nop\n"
                "#\n"
                "# runq export --perfetto: trace %" PRId64 " of %s (policy %s, engine %s, %" PRId64 " CPUs)\n"
                "# open it in ui.perfetto.dev or trace_processor: docs/perfetto.md\n"
                "#\n"
                "#                                _-----=> irqs-off/BH-disabled\n"
                "#                               / _----=> need-resched\n"
                "#                              | / _---=> hardirq/softirq\n"
                "#                              || / _--=> preempt-depth\n"
                "#                              ||| / _-=> migrate-disable\n"
                "#                              |||| /     delay\n"
                "#           TASK-PID     TGID  |||||  TIMESTAMP  FUNCTION\n"
                "#              | |         |   |||||     |         |\n",
                p->trace, db, policy, engine, ncpus);
    free(db);
    free(policy);
    free(engine);
    sqlite3_finalize(s);
}

static bool pf_check_schedule(struct pf *p)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(p->db, PF_OVERLAP_SQL, -1, &s, NULL) != SQLITE_OK) {
        pf_sql_error(p);
        return false;
    }
    sqlite3_bind_int64(s, 1, p->trace);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        char *m = sqlite3_mprintf("slices overlap on CPU %lld at %lld ns: not a schedule a switch can describe",
                                  (long long)col(s, 0), (long long)col(s, 1));
        pf_error(p, m ? m : "out of memory");
        sqlite3_free(m);
    } else if (rc != SQLITE_DONE) {
        pf_sql_error(p);
    }
    sqlite3_finalize(s);
    return !p->failed;
}

int perfetto_write(sqlite3 *db, const char *prog, const char *db_name, int64_t trace, FILE *out)
{
    struct pf p = { .db = db, .prog = prog, .out = out, .trace = trace };
    struct pf_src src[] = {
        { PF_WAKE_SQL, 0, pf_wake_line, NULL, false },   { PF_SWITCH_SQL, 1, pf_switch_line, NULL, false },
        { PF_V_SQL, 2, pf_v_line, NULL, false },         { PF_TASK_SQL, 2, pf_task_line, NULL, false },
        { PF_GAP_SQL, 3, pf_gap_line, NULL, false },     { PF_MARK_SQL, 3, pf_mark_line, NULL, false },
    };
    const size_t nsrc = sizeof src / sizeof src[0];
    if (pf_load_threads(&p) == 0 && pf_check_schedule(&p)) {
        pf_header(&p, db_name);
        for (size_t i = 0; i < nsrc && !p.failed; i++) {
            if (sqlite3_prepare_v2(db, src[i].sql, -1, &src[i].st, NULL) != SQLITE_OK) {
                pf_sql_error(&p);
                break;
            }
            sqlite3_bind_int64(src[i].st, 1, trace);
        }
        for (size_t i = 0; i < nsrc && !p.failed; i++) {
            int rc = sqlite3_step(src[i].st);
            src[i].done = rc != SQLITE_ROW;
            if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                pf_sql_error(&p);
        }
        /* The merge: each source is in time order, so the earliest of
         * their current rows is the next line. */
        while (!p.failed && !ferror(out)) {
            struct pf_src *best = NULL;
            for (size_t i = 0; i < nsrc; i++) {
                if (src[i].done)
                    continue;
                int64_t ts = col(src[i].st, 0);
                if (!best || ts < col(best->st, 0) || (ts == col(best->st, 0) && src[i].rank < best->rank))
                    best = &src[i];
            }
            if (!best)
                break;
            best->line(&p, best->st);
            int rc = sqlite3_step(best->st);
            best->done = rc != SQLITE_ROW;
            if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                pf_sql_error(&p);
        }
    }
    for (size_t i = 0; i < nsrc; i++)
        sqlite3_finalize(src[i].st);
    for (size_t i = 0; i < p.nth; i++)
        free(p.th[i].comm);
    free(p.th);
    return p.failed ? 1 : 0;
}
