/*
 * Actions from `runq top` to the kernel. The recorder of a live trace
 * listens on a Unix socket (its path is in the trace row's `control`
 * column) and forwards each line it reads to the kernel over the trace
 * port. The kernel understands:
 *
 *     nice <tid> <n>            n in -20..19
 *     slice <tid> <us>          the task's requested slice
 *     feature <NAME> on|off     an EEVDF feature switch
 *     mark <name>               a named marker in the trace
 *
 * What the kernel did comes back in the trace itself (sched_set and mark
 * rows), which is how the view shows that it worked.
 */
#ifndef RUNQ_TUI_CONTROL_H
#define RUNQ_TUI_CONTROL_H

#include <stddef.h>

/* Connects to the Unix socket at path, writes line and a newline, closes.
 * line must be one printable line. Returns 0, or -1 with a short reason
 * in err. Never blocks for more than about a second. */
int top_control_send(const char *path, const char *line, char *err, size_t errlen);

#endif
