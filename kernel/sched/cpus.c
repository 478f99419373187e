/*
 * The CPUs' state (cpus.h): one struct cpu a CPU, its per-CPU area. Its
 * own file so that the core (core.c) and the task lifecycle (task.c), which
 * both read it, depend on it and not on each other.
 */
#include "cpus.h"

struct cpu cpus[MAX_CPUS];
