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
 * Which rows become which lines: each source is one query of
 * db/qx_export.c, in time order, and they come merged by time, then
 * source (enum dbq_export_kind, in this order):
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
 * So at one nanosecond a wakeup comes before the switch it may cause,
 * and counters after it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "host/export/perfetto.h"
#include "db/qx_export.h"
#include "host/base/xalloc.h"

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
    size_t nth, thcap;
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
        c = xmalloc(n);
        snprintf(c, n, "tid%" PRId64, tid);
        return c;
    }
    c = xstrdup(name);
    for (unsigned char *s = (unsigned char *)c; *s; s++)
        if ((*s == ' ' && !spaces) || *s < ' ' || *s >= 0x7f || (*s == '=' && !spaces) || *s == '|')
            *s = '_';
    return c;
}

/* A thread row into p->th; true: go on. */
static bool pf_add_thread(const struct dbq_export_thread *row, void *arg)
{
    struct pf *p = arg;
    if (p->nth == p->thcap) {
        p->thcap = p->thcap ? 2 * p->thcap : 64;
        p->th = xreallocarray(p->th, p->thcap, sizeof *p->th);
    }
    struct pf_thread *t = &p->th[p->nth++];
    *t = (struct pf_thread){ .utid = row->utid, .tid = row->tid, .idle = row->idle, .nice = row->nice };
    t->comm = pf_clean(row->name, t->tid, false);
    if (!t->idle && (t->tid < 0 || t->tid >= PF_GAP_PID)) {
        char *m = sqlite3_mprintf("task %s has tid %lld, where the export's own tasks are (%d and up)", t->comm,
                                  (long long)t->tid, PF_GAP_PID);
        pf_error(p, m ? m : "out of memory");
        sqlite3_free(m);
    }
    return true;
}

static int pf_load_threads(struct pf *p)
{
    char err[512];
    if (dbq_export_threads(p->db, p->trace, pf_add_thread, p, err, sizeof err) != 0)
        pf_error(p, err);
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

/* The task utid on CPU cpu (idle tasks are pid 0); no task (!known)
 * is the CPU's idle task too (a waker that was a timer or an
 * interrupt). */
static bool pf_task(struct pf *p, bool known, int64_t utid, int64_t cpu, char *idle, struct pf_who *w)
{
    if (!known) {
        *w = pf_idle(idle, cpu);
        return true;
    }
    const struct pf_thread *t = pf_thread(p, utid);
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

/* ---- the lines ---- */

/* A slice's end as sched_switch's prev_state. Perfetto's text format has
 * no "unknown": a letter it does not know counts as task_state_invalid,
 * an import error. So a slice that ended at a gap or at the trace's end
 * (end_state NULL) ends R, runnable, which is what the task was when the
 * data stopped; the idle task is always R, as in Linux. */
static const char *pf_state(const char *st, bool idle)
{
    if (idle || !st)
        return "R";
    if (strcmp(st, "R+") == 0 || strcmp(st, "S") == 0 || strcmp(st, "X") == 0)
        return st;
    return "R";
}

static int64_t pf_prio(bool known, int64_t prio)
{
    return known ? prio : 120;
}

static void pf_switch_line(struct pf *p, const struct dbq_export_row *r)
{
    int64_t ts = r->ts, cpu = r->cpu;
    char pbuf[24], nbuf[24];
    struct pf_who prev, next;
    const char *state = "S"; /* the no-data task "sleeps" between gaps */
    int64_t pprio = 120, nprio = 120;
    if (r->sw.from == DBQ_EXPORT_SLICE) {
        if (!pf_task(p, r->sw.has_prev, r->sw.prev_utid, cpu, pbuf, &prev))
            return;
        state = pf_state(r->sw.prev_state, prev.pid == 0);
        pprio = pf_prio(r->sw.has_prev_prio, r->sw.prev_prio);
    } else if (r->sw.from == DBQ_EXPORT_IDLE) {
        prev = pf_idle(pbuf, cpu);
        state = "R";
    } else {
        prev = pf_gap_task(pbuf, cpu);
    }
    if (r->sw.to == DBQ_EXPORT_SLICE) {
        if (!pf_task(p, r->sw.has_next, r->sw.next_utid, cpu, nbuf, &next))
            return;
        nprio = pf_prio(r->sw.has_next_prio, r->sw.next_prio);
    } else if (r->sw.to == DBQ_EXPORT_IDLE) {
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

static void pf_wake_line(struct pf *p, const struct dbq_export_row *r)
{
    char buf[24];
    struct pf_who waker;
    if (!pf_task(p, r->wake.has_waker, r->wake.waker, r->cpu, buf, &waker))
        return;
    const struct pf_thread *wakee = pf_thread(p, r->wake.wakee);
    if (!wakee)
        return;
    pf_head(p, &waker, r->cpu, r->ts, "sched_waking");
    fprintf(p->out, "comm=%s pid=%" PRId64 " prio=%" PRId64 " target_cpu=%03" PRId64 "\n", wakee->comm,
            wakee->idle ? 0 : wakee->tid, 120 + wakee->nice, r->wake.target_cpu);
}

static void pf_v_line(struct pf *p, const struct dbq_export_row *r)
{
    if (!pf_cpu_ok(p, r->cpu) || !pf_news(&p->v[r->cpu], r->ts, r->v.v))
        return;
    pf_head(p, &pf_runq, r->cpu, r->ts, "tracing_mark_write");
    fprintf(p->out, "C|%d|V cpu%" PRId64 " (vns)|%" PRId64 "\n", PF_RUNQ_PID, r->cpu, r->v.v);
}

static void pf_task_line(struct pf *p, const struct dbq_export_row *r)
{
    static const char *const names[] = { "lag (vns)", "deadline (vns)", "vruntime (vns)" };
    struct pf_thread *t = pf_thread(p, r->task.utid);
    if (!t || t->idle)
        return;
    struct pf_who w = { t->comm, t->tid, t->tid };
    for (int i = 0; i < 3; i++) {
        if (!r->task.has[i] || !pf_news(&t->num[i], r->ts, r->task.num[i]))
            continue;
        pf_head(p, &w, r->cpu, r->ts, "tracing_mark_write");
        fprintf(p->out, "C|%" PRId64 "|%s|%" PRId64 "\n", w.tgid, names[i], r->task.num[i]);
    }
}

static void pf_gap_line(struct pf *p, const struct dbq_export_row *r)
{
    char buf[24];
    struct pf_who w = pf_gap_task(buf, r->cpu);
    pf_head(p, &w, r->cpu, r->ts, "tracing_mark_write");
    if (r->gap.end) {
        fprintf(p->out, "E|%d\n", PF_RUNQ_PID);
        return;
    }
    fprintf(p->out, "B|%d|data_gap cpu=%" PRId64 " packets_lost=%" PRId64 " records_dropped=%" PRId64, PF_RUNQ_PID,
            r->cpu, r->gap.packets_lost, r->gap.records_dropped);
    if (r->gap.has_late)
        fprintf(p->out, " records_late=%" PRId64, r->gap.records_late);
    fputc('\n', p->out);
}

static void pf_mark_line(struct pf *p, const struct dbq_export_row *r)
{
    char *name = pf_clean(r->mark.name, 0, true);
    pf_head(p, &pf_runq, r->cpu, r->ts, "tracing_mark_write");
    fprintf(p->out, "I|%d|%s\n", PF_RUNQ_PID, name);
    free(name);
}

/* One row's lines (none once out has failed); false to stop: the export
 * failed, or out did. */
static bool pf_line(const struct dbq_export_row *r, void *arg)
{
    static void (*const line[DBQ_EXPORT_NKINDS])(struct pf *p, const struct dbq_export_row *r) = {
        [DBQ_EXPORT_WAKE] = pf_wake_line, [DBQ_EXPORT_SWITCH] = pf_switch_line, [DBQ_EXPORT_V] = pf_v_line,
        [DBQ_EXPORT_TASK] = pf_task_line, [DBQ_EXPORT_GAP] = pf_gap_line,       [DBQ_EXPORT_MARK] = pf_mark_line,
    };
    struct pf *p = arg;
    BUG_ON((unsigned)r->kind >= DBQ_EXPORT_NKINDS || !line[r->kind]); /* db/qx_export.c gives these kinds only */
    if (!ferror(p->out))
        line[r->kind](p, r);
    return !p->failed && !ferror(p->out);
}

/* The header names the trace by the database's text (its file, policy
 * and engine): each a comment line only once pf_clean has taken out
 * the newlines that would start a line of events. A trace row that
 * cannot be read leaves them unknown. */
static void pf_header(struct pf *p, const char *db_name)
{
    struct dbq_export_head h;
    char err[512];
    dbq_export_head(p->db, p->trace, &h, err, sizeof err);
    char *db = pf_clean(db_name, 0, true), *policy = pf_clean(h.policy ? h.policy : "?", 0, true),
         *engine = pf_clean(h.engine ? h.engine : "?", 0, true);
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
            p->trace, db, policy, engine, h.ncpus);
    free(db);
    free(policy);
    free(engine);
    dbq_export_head_free(&h);
}

/* Slices that overlap on a CPU are no schedule: each switch would close
 * a slice Perfetto no longer has open. */
static bool pf_check_schedule(struct pf *p)
{
    int64_t cpu, ts;
    char err[512];
    int rc = dbq_export_overlap(p->db, p->trace, &cpu, &ts, err, sizeof err);
    if (rc > 0) {
        char *m = sqlite3_mprintf("slices overlap on CPU %lld at %lld ns: not a schedule a switch can describe",
                                  (long long)cpu, (long long)ts);
        pf_error(p, m ? m : "out of memory");
        sqlite3_free(m);
    } else if (rc < 0) {
        pf_error(p, err);
    }
    return !p->failed;
}

int perfetto_write(sqlite3 *db, const char *prog, const char *db_name, int64_t trace, FILE *out)
{
    struct pf p = { .db = db, .prog = prog, .out = out, .trace = trace };
    char err[512];
    if (pf_load_threads(&p) == 0 && pf_check_schedule(&p)) {
        pf_header(&p, db_name);
        if (!p.failed && dbq_export_rows(db, trace, pf_line, &p, err, sizeof err) != 0)
            pf_error(&p, err);
    }
    for (size_t i = 0; i < p.nth; i++)
        free(p.th[i].comm);
    free(p.th);
    return p.failed ? 1 : 0;
}
