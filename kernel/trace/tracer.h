/*
 * The tracer task (tracer.c): frames the rings' records into packets of
 * trace/format.h and sends them on the trace port, and hands the command
 * lines the host sends back (trace/control.h) to host.c.
 *
 * The tracer sits below the shell (docs/architecture.md): the control
 * lines that are shell commands run through the handler trace_init is
 * given, which kmain makes the shell's shell_exec.
 */
#ifndef RUNQ_KTRACER_H
#define RUNQ_KTRACER_H
#include "../lib/types.h"
#include "host.h"

/* Boot CPU, after SMP: rings for every CPU, and the tracer task and the
 * host task (host.h) if the trace port exists. Tracing starts on (all
 * types) when it does. The host's nice, slice, feature and run lines go
 * to run; host_crash: run lines may name crash (host_crash=on). */
void trace_init(const char *cmdline, trace_run_fn run, bool host_crash);

/* Every CPU writes a keyframe at its next decision, and the others are
 * sent an IPI so that one comes now: an idle CPU halts without ticks and
 * would otherwise say nothing, and a reader must know what each CPU runs
 * from the moment tracing starts. */
void trace_ask_keyframes(void);

/* Shell: trace on|off|status, trace mask TYPE... */
bool trace_cmd(int argc, char **argv);
/* Before power-off: stops emitting, sends what the rings hold and an END
 * record, and waits (bounded) until the host has it all. */
void trace_shutdown(void);

#endif
