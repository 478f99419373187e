/*
 * The task table's columns: headers, widths, how a cell reads, how rows
 * sort and which rows show. No ncurses: the draw code prints what these
 * return, and tests/tui/top_model_test.c checks them.
 *
 * A column that means nothing for a task shows "-": the EEVDF columns
 * (LAG, DEADLINE, ELIG) and SLICE under the round robin, DEADLINE and ELIG
 * for a task that is not queued, the latency columns before a wakeup,
 * MOVED for a task that has not moved in the last second.
 */
#ifndef RUNQ_TUI_TABLE_H
#define RUNQ_TUI_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/model.h"

#define TOP_COLUMNS(X)                                           \
    X(TID, "TID", 5, 1, "kernel task id")                        \
    X(NAME, "NAME", 9, 0, "task name")                           \
    X(CPU, "CPU", 3, 1, "where it runs or last ran")             \
    X(MOVED, "MOVED", 10, 0, "why it last moved, in the last second") \
    X(NICE, "NICE", 4, 1, "nice, -20..19")                       \
    X(SLICE, "SLICE", 7, 1, "requested slice (base: the policy's)") \
    X(STATE, "STATE", 5, 0, "run R R+ S D(elayed) X ?")          \
    X(PCPU, "%CPU", 5, 1, "share of a CPU over the last second") \
    X(LAG, "LAG", 8, 1, "V - vruntime: positive is owed CPU")    \
    X(DEADLINE, "DEADLINE", 8, 1, "virtual deadline - V")        \
    X(ELIG, "ELIG", 4, 0, "eligible: lag >= 0")                  \
    X(P50, "WAKE50", 7, 1, "wake latency, median")               \
    X(P99, "WAKE99", 7, 1, "wake latency, 99th percentile")      \
    X(LMAX, "WAKEMAX", 7, 1, "wake latency, worst")              \
    X(BNC, "BOUNCE", 6, 1, "bounces: released to a higher class (RT)") \
    X(B99, "BNC99", 7, 1, "bounce -> run latency, 99th percentile") \
    X(VOL, "VOL", 6, 1, "voluntary switches (blocked, slept, yielded)") \
    X(INVOL, "INVOL", 6, 1, "involuntary switches (preempted, released)")

enum top_col {
#define TOP_COL_ENUM(id, hdr, w, right, what) TOP_COL_##id,
    TOP_COLUMNS(TOP_COL_ENUM)
#undef TOP_COL_ENUM
    TOP_COL_NR
};

struct top_col_def {
    const char *header;
    int width;
    bool right;
    const char *what;
};
extern const struct top_col_def top_cols[TOP_COL_NR];

/* The text of one cell, at most the column's width. */
void top_cell(const struct top_snapshot *s, const struct top_task *t, enum top_col c, char *buf,
              size_t n);

/* A move's rule as MOVED shows it, at most its width: the trace's name
 * where it fits, else a shortening that keeps its first word
 * (wake_idle_sibling: wake_sib); "unknown" for TRACE_MIGRATE_NR, a rule
 * the trace could not tell (Linux's) or this build cannot name. */
const char *top_move_reason(enum trace_migrate_reason r);

/* Durations as people read them: "850ns", "42.1us", "2.10ms", "1.50s";
 * signed ones keep their sign. */
void top_fmt_ns(char *buf, size_t n, int64_t ns);

/* Which tasks show: not idle tasks, not tasks that exited over a second
 * ago, and, with a filter, those whose name contains it (any case) or
 * whose TID is it. Writes their indexes into idx (room for s->ntasks);
 * returns how many. */
size_t top_visible(const struct top_snapshot *s, const char *filter, int *idx);

/* Sorts idx by column c: TID, NAME, CPU, NICE and STATE ascending, the
 * rest largest first; invert flips it. Ties go by TID. */
void top_sort(const struct top_snapshot *s, int *idx, size_t n, enum top_col c, bool invert);

/* Case-insensitive substring test for search and filter. */
bool top_match(const struct top_task *t, const char *needle);

#endif
