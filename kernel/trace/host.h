/*
 * The host's control lines on the kernel side (trace/control.h): what the
 * tracer does with each line it receives, and the host task that runs the
 * `run` lines.
 *
 * The tracer calls host_line for every line and is never held up by it:
 * nice, slice, feature and mark are done at once (a lookup and a store
 * each), and a run line is only queued. The host task, a task of its own
 * at nice 0 like the shell's, on the CPU with the fewest tasks, runs the
 * queued lines one at a time through the shell's handler. Run inside the tracer, a command that sleeps
 * stopped the draining: `run sleep 10000` beside 8 churn tasks dropped
 * 389,352 of 452,457 records, and `run poweroff` waited 10 s for the
 * tracer (itself) to send END, then powered off without it.
 */
#ifndef RUNQ_KTRACE_HOST_H
#define RUNQ_KTRACE_HOST_H
#include "../lib/types.h"

/* Runs one shell command line (it may modify it); false if it failed. */
typedef bool (*trace_run_fn)(char *line);

/* Boot, from trace_init. run runs the shell's commands (kmain gives
 * shell_exec); allow_crash lets run lines name the commands
 * TRACE_CTL_RUN_COMMANDS marks TEST (host_crash=on). The host task is
 * made at the first run line, so a run the host sends none to has the
 * same tasks, and the same deterministic numbers, as before it existed. */
void host_init(trace_run_fn run, bool allow_crash);

/* The tracer, for each line the host sent (without its newline): does it,
 * queues it for the host task, or refuses it with a MARK and a console
 * line (trace/control.h, step 4 and 5). Never blocks. */
void host_line(const char *line);

#endif
