/*
 * What the Linux runner says: an error into the caller's buffer, and a
 * note (an adjustment the engine made) into the run's notes file. In a
 * file of their own because every part of the runner says things, and
 * none of them should need run.c, the conductor, for it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "host/engine/linux/runner.h"

int lx_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void lx_note(const struct lx_run *run, const char *fmt, ...)
{
    va_list ap;
    if (!run->o || !run->o->notes)
        return;
    va_start(ap, fmt);
    vfprintf(run->o->notes, fmt, ap);
    va_end(ap);
    fputc('\n', run->o->notes);
}
