/*
 * The CPUs' areas themselves. Data alone, in a file of its own: the task
 * table (task.c) counts each CPU's tasks in them and the core schedules
 * on them, and neither should need the other's file for it.
 */
#include "cpus.h"

struct cpu cpus[MAX_CPUS];
