/*
 * The engines by name: the one table `runq experiment --engine` looks an
 * engine up in (host/engine/engine.h says what an engine is).
 */
#ifndef RUNQ_ENGINES_H
#define RUNQ_ENGINES_H

#include "host/engine/engine.h"

/* The engine called name ("kernel", "linux", "sim"), or NULL. */
const struct engine_ops *engine_lookup(const char *name);

#endif
