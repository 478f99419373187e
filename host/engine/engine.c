/*
 * What the engines that run each run in a child share (engine.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/engine/engine.h"

pid_t engine_fork_run(const struct engine_settings *e, struct engine_run *r, const char *dir, const char *log_ext,
                      const char *aux_ext, char *err, size_t errlen)
{
    snprintf(r->log, sizeof r->log, "%s/run%d.%s", dir, r->number, log_ext);
    snprintf(r->aux, sizeof r->aux, "%s/run%d.%s", dir, r->number, aux_ext);
    fflush(NULL); /* or the child writes the parent's buffered output again */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (e->in_child)
            e->in_child(parent);
        return 0;
    }
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    r->pid = pid;
    return pid;
}
