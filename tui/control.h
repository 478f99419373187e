/*
 * Actions from `runq top` to the kernel: one line of the control protocol
 * (trace/control.h: the verbs, the framing, what comes back) to the
 * recorder of a live trace, whose socket path is in the trace row's
 * `control` column.
 */
#ifndef RUNQ_TUI_CONTROL_H
#define RUNQ_TUI_CONTROL_H

#include <stddef.h>

#include "trace/control.h"

/* Connects to the Unix socket at path, writes line and a newline, closes.
 * line must be one printable line the kernel takes whole (shorter than
 * TRACE_CTL_LINE_MAX). Returns 0, or -1 with a short reason in err. Never
 * blocks for more than about a second. */
int top_control_send(const char *path, const char *line, char *err, size_t errlen);

#endif
