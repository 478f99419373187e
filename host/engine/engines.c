/*
 * The engines' table (engines.h).
 */
#include <string.h>

#include "host/engine/engines.h"

static const struct engine_ops *const engines[] = {
    &kernel_engine_ops,
    &linux_engine_ops,
    &sim_engine_ops,
};

const struct engine_ops *engine_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (!strcmp(engines[i]->name, name))
            return engines[i];
    return NULL;
}
