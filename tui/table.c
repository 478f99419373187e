/*
 * The task table's columns, sort and filter (contracts in table.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/decode.h"
#include "tui/table.h"

const struct top_col_def top_cols[TOP_COL_NR] = {
#define TOP_COL_DEF(id, hdr, w, right, what) [TOP_COL_##id] = { hdr, w, right, what },
    TOP_COLUMNS(TOP_COL_DEF)
#undef TOP_COL_DEF
};

void top_fmt_ns(char *buf, size_t n, int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    double a = ns < 0 ? -(double)ns : (double)ns;
    if (a < 1e3)
        snprintf(buf, n, "%s%.0fns", sign, a);
    else if (a < 1e4)
        snprintf(buf, n, "%s%.2fus", sign, a / 1e3);
    else if (a < 1e6)
        snprintf(buf, n, "%s%.1fus", sign, a / 1e3);
    else if (a < 1e7)
        snprintf(buf, n, "%s%.2fms", sign, a / 1e6);
    else if (a < 1e9)
        snprintf(buf, n, "%s%.1fms", sign, a / 1e6);
    else
        snprintf(buf, n, "%s%.2fs", sign, a / 1e9);
}

const char *top_move_reason(enum trace_migrate_reason r)
{
    /* The names longer than the column; any other is the trace's own. */
    static const char *const shortened[TRACE_MIGRATE_NR] = {
        [TRACE_MIGRATE_WAKE_IDLE_PREV] = "wake_prev",
        [TRACE_MIGRATE_WAKE_IDLE_SIBLING] = "wake_sib",
        [TRACE_MIGRATE_WAKE_AFFINE] = "wake_aff",
    };
    if ((unsigned)r >= TRACE_MIGRATE_NR)
        return "unknown";
    const char *name = trace_migrate_reason_name(r);
    return shortened[r] ? shortened[r] : name;
}

/* Whether t moved within the rate window before the view's time. */
static bool moved_lately(const struct top_snapshot *s, const struct top_task *t)
{
    return t->moves && t->move_ts <= s->h.now && s->h.now - t->move_ts < TOP_RATE_WINDOW_NS;
}

static bool queued(const struct top_task *t)
{
    return t->state == THREAD_RUNNING || t->state == THREAD_RUNNABLE || t->state == THREAD_PREEMPTED ||
           t->state == THREAD_DELAYED;
}

void top_cell(const struct top_snapshot *s, const struct top_task *t, enum top_col c, char *buf, size_t n)
{
    bool ee = s->h.eevdf && t->has_eevdf;
    snprintf(buf, n, "-");
    switch (c) {
    case TOP_COL_TID: snprintf(buf, n, "%d", t->tid); return;
    case TOP_COL_NAME: snprintf(buf, n, "%s", t->name); return;
    case TOP_COL_CPU: snprintf(buf, n, "%d", t->cpu); return;
    case TOP_COL_MOVED:
        if (moved_lately(s, t))
            snprintf(buf, n, "%.*s", top_cols[TOP_COL_MOVED].width, top_move_reason(t->move_reason));
        return;
    case TOP_COL_NICE: snprintf(buf, n, "%d", t->nice); return;
    case TOP_COL_SLICE:
        if (!s->h.eevdf)
            return;
        if (t->slice_ns)
            top_fmt_ns(buf, n, t->slice_ns);
        else
            snprintf(buf, n, "base");
        return;
    case TOP_COL_STATE: snprintf(buf, n, "%s", top_state_name(t->state)); return;
    case TOP_COL_PCPU: snprintf(buf, n, "%.1f", t->cpu_pct); return;
    case TOP_COL_LAG:
        if (ee)
            top_fmt_ns(buf, n, t->lag);
        return;
    case TOP_COL_DEADLINE:
        if (ee && queued(t))
            top_fmt_ns(buf, n, t->deadline_rel);
        return;
    case TOP_COL_ELIG:
        if (ee && queued(t))
            snprintf(buf, n, "%s", t->eligible ? "yes" : "no");
        return;
    case TOP_COL_P50:
        if (t->lat_n)
            top_fmt_ns(buf, n, (int64_t)t->lat_p50);
        return;
    case TOP_COL_P99:
        if (t->lat_n)
            top_fmt_ns(buf, n, (int64_t)t->lat_p99);
        return;
    case TOP_COL_LMAX:
        if (t->lat_n)
            top_fmt_ns(buf, n, (int64_t)t->lat_max);
        return;
    case TOP_COL_BNC: snprintf(buf, n, "%llu", (unsigned long long)t->bnc_n); return;
    case TOP_COL_B99:
        if (t->bnc_n)
            top_fmt_ns(buf, n, (int64_t)t->bnc_p99);
        return;
    case TOP_COL_VOL: snprintf(buf, n, "%llu", (unsigned long long)t->vol); return;
    case TOP_COL_INVOL: snprintf(buf, n, "%llu", (unsigned long long)t->invol); return;
    case TOP_COL_NR: return;
    }
}

bool top_match(const struct top_task *t, const char *needle)
{
    if (!needle || !*needle)
        return true;
    char tid[16];
    snprintf(tid, sizeof tid, "%d", t->tid);
    if (!strcmp(tid, needle))
        return true;
    size_t nl = strlen(needle);
    for (const char *h = t->name; *h; h++) {
        size_t k = 0;
        while (k < nl && h[k] && tolower((unsigned char)h[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == nl)
            return true;
    }
    return false;
}

size_t top_visible(const struct top_snapshot *s, const char *filter, int *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntasks; i++) {
        const struct top_task *t = &s->tasks[i];
        if (t->is_idle || (t->start_ts > s->h.now))
            continue;
        if (t->end_ts && t->end_ts + 1000000000ull < s->h.now)
            continue;
        if (!top_match(t, filter))
            continue;
        idx[n++] = (int)i;
    }
    return n;
}

/* qsort has no context argument in C11. */
static const struct top_snapshot *sort_s;
static enum top_col sort_c;
static int sort_dir;

static int cmp_num(double a, double b)
{
    return a < b ? -1 : a > b;
}

static int sort_cmp(const void *pa, const void *pb)
{
    const struct top_task *a = &sort_s->tasks[*(const int *)pa], *b = &sort_s->tasks[*(const int *)pb];
    int r = 0;
    switch (sort_c) {
    case TOP_COL_TID: break;
    case TOP_COL_NAME: r = strcmp(a->name, b->name); break;
    case TOP_COL_CPU: r = cmp_num(a->cpu, b->cpu); break;
    case TOP_COL_MOVED: /* the latest move first; one not in the column last */
        r = cmp_num(moved_lately(sort_s, a) ? (double)a->move_ts : -1, moved_lately(sort_s, b) ? (double)b->move_ts : -1);
        break;
    case TOP_COL_NICE: r = cmp_num(a->nice, b->nice); break;
    case TOP_COL_SLICE: r = cmp_num((double)a->slice_ns, (double)b->slice_ns); break;
    case TOP_COL_STATE: r = cmp_num(a->state, b->state); break;
    case TOP_COL_PCPU: r = cmp_num(a->cpu_pct, b->cpu_pct); break;
    case TOP_COL_LAG: r = cmp_num((double)a->lag, (double)b->lag); break;
    case TOP_COL_DEADLINE: r = cmp_num((double)a->deadline_rel, (double)b->deadline_rel); break;
    case TOP_COL_ELIG: r = cmp_num(a->eligible, b->eligible); break;
    case TOP_COL_P50: r = cmp_num((double)a->lat_p50, (double)b->lat_p50); break;
    case TOP_COL_P99: r = cmp_num((double)a->lat_p99, (double)b->lat_p99); break;
    case TOP_COL_LMAX: r = cmp_num((double)a->lat_max, (double)b->lat_max); break;
    case TOP_COL_BNC: r = cmp_num((double)a->bnc_n, (double)b->bnc_n); break;
    case TOP_COL_B99: r = cmp_num((double)a->bnc_p99, (double)b->bnc_p99); break;
    case TOP_COL_VOL: r = cmp_num((double)a->vol, (double)b->vol); break;
    case TOP_COL_INVOL: r = cmp_num((double)a->invol, (double)b->invol); break;
    case TOP_COL_NR: break;
    }
    if (!r)
        return cmp_num(a->tid, b->tid) * (sort_dir < 0 && sort_c == TOP_COL_TID ? -1 : 1);
    return r * sort_dir;
}

void top_sort(const struct top_snapshot *s, int *idx, size_t n, enum top_col c, bool invert)
{
    bool asc = c == TOP_COL_TID || c == TOP_COL_NAME || c == TOP_COL_CPU || c == TOP_COL_NICE ||
               c == TOP_COL_STATE;
    sort_s = s;
    sort_c = c;
    sort_dir = (asc ? 1 : -1) * (invert ? -1 : 1);
    qsort(idx, n, sizeof *idx, sort_cmp);
}
