/*
 * The runq control protocol: command lines from the host to the kernel.
 * The one source of truth for the three programs that speak it, as
 * trace/format.h is for the trace stream the other way:
 *
 *     runq top (tui/control.c)                        sends a line
 *       ─▶ runq record (trace/recorder/relay.c)                  relays it
 *         ─▶ the trace port, host to guest
 *           ─▶ the kernel's tracer (kernel/trace/tracer.c)  runs it
 *
 * Freestanding: macros and an enum only, included by the kernel too.
 * docs/trace-format.md ("Commands to the kernel") describes it for users.
 *
 * ---- Framing ------------------------------------------------------------
 *
 *   1. The recorder of a live trace (runq record --socket PATH) listens on
 *      a Unix stream socket at PATH TRACE_CTL_SOCKET_SUFFIX and stores that
 *      path in its trace row's `control` column while it records (NULL
 *      before and after). A recorder reading a file offers no socket.
 *      The socket is mode 0600 whatever the umask, and is not made in a
 *      directory every user may write unless it is sticky: what reaches it
 *      runs in the kernel.
 *   2. A client connects, writes lines and closes. A line is printable
 *      ASCII (0x20..0x7e) ended by '\n'. The recorder reads at most
 *      TRACE_CTL_CONN_MAX - 1 bytes of one connection, each within
 *      TRACE_CTL_IDLE_MS of the last and all within TRACE_CTL_LIFE_MS of
 *      the connect, and writes each non-empty line, newline included and
 *      otherwise unchanged, to the trace port. It refuses a line with a
 *      NUL byte (the kernel reads lines as C strings: it would run what
 *      comes before the NUL) and one that does not fit whole beside the
 *      lines still waiting for the port. What is left after the last
 *      newline is dropped. It answers each non-empty line with one line,
 *      "ok" (sent on) or "error: WHY" (not sent); a client need not read
 *      them. Nothing a client does holds the recorder up: one that is
 *      silent or connected past those times, or leaves its answers
 *      unread, is dropped, and so is one beyond the few it serves at once
 *      (trace/recorder/relay.c).
 *   3. The kernel takes the line's first TRACE_CTL_LINE_MAX - 1 characters
 *      (a '\r' before the newline is dropped), splits it into words at
 *      spaces, and runs it by its first word, the verb (table below).
 *   4. The recorder's answer says only whether the line went on. What the
 *      kernel did with it comes back in the trace: a SET record for nice,
 *      slice and feature, a MARK (source host) for mark, whatever the
 *      shell command does for run. A line the kernel cannot run (unknown
 *      verb, wrong word count, a command that fails) becomes a MARK with
 *      source kernel named "error: LINE", and a console line. A line with a byte outside 0x20..0x7e is not run: the
 *      kernel refuses it whole, as "error: not printable: LINE" with '?'
 *      for each such byte, so none reaches the console or a mark name.
 *   5. The tracer does nice, slice, feature and mark itself (none can
 *      block). A run line goes to the host task, a task of its own that
 *      runs the queued lines one at a time (kernel/trace/host.c), so a
 *      command that sleeps or takes long never stops the trace. A run
 *      line is refused, as a MARK "error: refused: LINE" and a console
 *      line, if its command is not in TRACE_CTL_RUN_COMMANDS below, and
 *      as "error: queue full: LINE" if TRACE_CTL_RUN_QUEUE lines are
 *      already waiting.
 */
#ifndef RUNQ_TRACE_CONTROL_H
#define RUNQ_TRACE_CONTROL_H

/* The kernel's boot command line (runq boot's flags, --append and the
 * --cmd lines after " -- ", built by host/engine/kernel/boot.c, parsed by kernel/cmdline.c)
 * holds at most RUNQ_CMDLINE_MAX - 1 bytes: runq boot refuses a longer one
 * before QEMU starts, the kernel panics on one that reaches it anyway. */
#define RUNQ_CMDLINE_MAX 2048

/* The control socket's path: the trace socket's path and this. */
#define TRACE_CTL_SOCKET_SUFFIX ".ctl"
/* The kernel's line buffer: longer lines are cut to this less one. */
#define TRACE_CTL_LINE_MAX 200
/* The recorder's buffer for one connection's lines. */
#define TRACE_CTL_CONN_MAX 512
/* How long a connection may be silent, and how long it may last. */
#define TRACE_CTL_IDLE_MS 200
#define TRACE_CTL_LIFE_MS 1000

/*
 * The verbs: X(ID, "verb", words, "usage"). words is how many words follow
 * the verb, or -1 for one or more: the rest of the line, as it is.
 *
 *   nice    the task's nice value, -20..19
 *   slice   the task's requested slice, µs
 *   feature an EEVDF feature switch (sched feature NAME on|off)
 *   mark    a named marker in the trace
 *   run     a shell command line whose command is in TRACE_CTL_RUN_COMMANDS
 *
 * nice, slice and feature are the shell's `sched nice|slice|feature`, with
 * its checks and messages.
 */
#define TRACE_CTL_VERBS(X)                                  \
    X(NICE, "nice", 2, "nice <tid> <n>")                    \
    X(SLICE, "slice", 2, "slice <tid> <us>")                \
    X(FEATURE, "feature", 2, "feature <NAME> on|off")       \
    X(MARK, "mark", -1, "mark <name>")                      \
    X(RUN, "run", -1, "run <shell command>")

enum trace_ctl_verb {
#define TRACE_CTL_ENUM(id, verb, words, usage) TRACE_CTL_##id,
    TRACE_CTL_VERBS(TRACE_CTL_ENUM)
#undef TRACE_CTL_ENUM
    TRACE_CTL_NR_VERBS
};

/*
 * The shell commands a run line may name (its first word after "run"):
 * X(command, when), when ALWAYS, or TEST: only in a kernel booted with
 * host_crash=on, which only tests of the panic path pass (what reaches the
 * channel must not be able to panic the kernel). Every other command is
 * refused: test (the self-tests measure a quiet machine, and a failure
 * would fail the run), vser (it writes on the trace port under the tracer,
 * or takes the host's lines from it), and any command the shell gains
 * until it is added here. poweroff is allowed: it runs in the host task,
 * so the tracer sends its END first, as at the shell's poweroff.
 */
#define TRACE_CTL_RUN_COMMANDS(X) \
    X("help", ALWAYS)             \
    X("ps", ALWAYS)               \
    X("sched", ALWAYS)            \
    X("trace", ALWAYS)            \
    X("mark", ALWAYS)             \
    X("spin", ALWAYS)             \
    X("churn", ALWAYS)            \
    X("sleep", ALWAYS)            \
    X("echo", ALWAYS)             \
    X("poweroff", ALWAYS)         \
    X("crash", TEST)

enum trace_ctl_run_when { TRACE_CTL_RUN_ALWAYS, TRACE_CTL_RUN_TEST };

/* The run lines the host task holds at most (the one it runs included):
 * the next is refused. */
#define TRACE_CTL_RUN_QUEUE 16

/* Whether a byte may be in a line (the newline ends it). */
#define TRACE_CTL_PRINTABLE(c) ((c) >= 0x20 && (c) <= 0x7e)

#endif
