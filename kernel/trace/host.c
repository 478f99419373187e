/*
 * The host's control lines (contract in host.h, protocol in
 * trace/control.h): the tracer's side, which must never block, and the
 * host task, which may.
 *
 * The queue is a ring of TRACE_CTL_RUN_QUEUE lines with one producer (the
 * tracer) and one consumer (the host task). A line stays in its slot
 * while it runs and leaves the ring only when its command returns, so the
 * producer, which writes only the slot after the last one, never touches
 * the line being run, and the consumer reads it without the lock.
 */
#include "host.h"
#include "trace.h"
#include "../../trace/control.h"
#include "../lib/printf.h"
#include "../lib/spinlock.h"
#include "../lib/string.h"
#include "../sched/event.h"
#include "../sched/sched.h"

static trace_run_fn run_line; /* the shell's, from host_init */
static bool crash_allowed;
static bool started; /* the host task exists */

static struct {
    struct spinlock lock;   /* head and len */
    unsigned head, len;     /* len counts the line being run */
    struct event queued;    /* a line was added */
    char line[TRACE_CTL_RUN_QUEUE][TRACE_CTL_LINE_MAX];
} q = { .lock = SPINLOCK_INIT("host") };

static const struct {
    const char *verb;
    int words; /* after the verb; -1: one or more */
} ctl_verbs[] = {
#define TRACE_CTL_ROW(id, verb, words, usage) [TRACE_CTL_##id] = { verb, words },
    TRACE_CTL_VERBS(TRACE_CTL_ROW)
#undef TRACE_CTL_ROW
};

static const struct {
    const char *name;
    enum trace_ctl_run_when when;
} run_commands[] = {
#define TRACE_CTL_RUN_ROW(name, when) { name, TRACE_CTL_RUN_##when },
    TRACE_CTL_RUN_COMMANDS(TRACE_CTL_RUN_ROW)
#undef TRACE_CTL_RUN_ROW
};

/* A line not run, said twice so it is never silent: a MARK (source
 * kernel) "error: TAG LINE" in the trace and "trace: host WHY: LINE" on
 * the console. */
static void refuse(const char *tag, const char *why, const char *line)
{
    char name[TRACE_CTL_LINE_MAX + 32];
    snprintf(name, sizeof name, "error: %s%s", tag, line);
    trace_mark(TRACE_MARK_KERNEL, name);
    kprintf("trace: host %s: %s\n", why, line);
}

/* The verb of a line split into argc words, if the line has that verb's
 * number of words; else TRACE_CTL_NR_VERBS. */
static enum trace_ctl_verb ctl_verb(int argc, char **argv)
{
    for (int v = 0; argc >= 1 && v < TRACE_CTL_NR_VERBS; v++) {
        if (strcmp(argv[0], ctl_verbs[v].verb) != 0)
            continue;
        int words = ctl_verbs[v].words;
        return (words < 0 ? argc >= 2 : argc == 1 + words) ? (enum trace_ctl_verb)v : TRACE_CTL_NR_VERBS;
    }
    return TRACE_CTL_NR_VERBS;
}

/* A line with a byte the protocol does not allow (outside printable ASCII)
 * is refused whole and never printed or stored as it came: an escape
 * sequence would drive the console, and a mark name would carry it into
 * the database. What is shown has '?' for each such byte. */
static bool line_printable(const char *line, char *shown, size_t size)
{
    bool ok = true;
    size_t i = 0;
    for (; line[i] && i + 1 < size; i++) {
        bool p = TRACE_CTL_PRINTABLE((u8)line[i]);
        shown[i] = p ? line[i] : '?';
        ok &= p;
    }
    shown[i] = 0;
    return ok;
}

/* Why the host may not run cmd, or NULL if it may. */
static const char *run_refusal(const char *cmd)
{
    for (size_t i = 0; i < ARRAY_SIZE(run_commands); i++) {
        if (strcmp(cmd, run_commands[i].name) != 0)
            continue;
        if (run_commands[i].when == TRACE_CTL_RUN_TEST && !crash_allowed)
            return "line refused, a command for tests only (the kernel was not booted with host_crash=on)";
        return NULL;
    }
    return "line refused, not a command the host may run (trace/control.h lists them)";
}

static void host_main(void *arg)
{
    (void)arg;
    for (;;) {
        u64 flags = spin_lock_irqsave(&q.lock);
        char *line = q.len ? q.line[q.head] : NULL;
        spin_unlock_irqrestore(&q.lock, flags);
        if (!line) {
            event_wait(&q.queued);
            continue;
        }
        char cmd[TRACE_CTL_LINE_MAX];
        strncpy_z(cmd, line + strlen("run "), sizeof cmd);
        if (!run_line(cmd))
            refuse("", "command failed", line);
        flags = spin_lock_irqsave(&q.lock);
        q.head = (q.head + 1) % TRACE_CTL_RUN_QUEUE;
        q.len--;
        spin_unlock_irqrestore(&q.lock, flags);
    }
}

/* Queues a run line whose command is cmd, or refuses it. */
static void run_later(const char *line, const char *cmd)
{
    const char *why = run_refusal(cmd);
    if (why) {
        refuse("refused: ", why, line);
        return;
    }
    u64 flags = spin_lock_irqsave(&q.lock);
    bool full = q.len == TRACE_CTL_RUN_QUEUE;
    if (!full) {
        strncpy_z(q.line[(q.head + q.len) % TRACE_CTL_RUN_QUEUE], line, TRACE_CTL_LINE_MAX);
        q.len++;
    }
    spin_unlock_irqrestore(&q.lock, flags);
    if (full) {
        refuse("queue full: ", "line refused, the host task's queue is full", line);
        return;
    }
    if (!started) {
        task_create("host", host_main, NULL, -1, 0);
        started = true;
    }
    event_signal(&q.queued);
}

void host_line(const char *line)
{
    char *argv[8], buf[TRACE_CTL_LINE_MAX];
    char copy[TRACE_CTL_LINE_MAX];
    if (!line_printable(line, copy, sizeof copy)) {
        refuse("not printable: ", "line refused, not printable ASCII", copy);
        return;
    }
    int argc = split_words(copy, argv, 8);
    enum trace_ctl_verb v = ctl_verb(argc, argv);
    bool ok = false;
    switch (v) {
    case TRACE_CTL_NICE:
    case TRACE_CTL_SLICE:
    case TRACE_CTL_FEATURE:
        snprintf(buf, sizeof buf, "sched %s %s %s", argv[0], argv[1], argv[2]);
        ok = run_line && run_line(buf);
        break;
    case TRACE_CTL_MARK:
        /* the rest of the line, after the verb and a space */
        trace_mark(TRACE_MARK_HOST, line + strlen(ctl_verbs[v].verb) + 1);
        ok = true;
        break;
    case TRACE_CTL_RUN:
        run_later(line, argv[1]);
        return;
    case TRACE_CTL_NR_VERBS:
        break;
    }
    if (!ok)
        refuse("", "command failed", line);
}

void host_init(trace_run_fn run, bool allow_crash)
{
    run_line = run;
    crash_allowed = allow_crash;
    event_init(&q.queued);
}
