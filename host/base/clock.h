/*
 * The host's monotonic clock, on which every timeout, poll and rate of the
 * host programs is measured (never the wall clock, which may jump).
 */
#ifndef RUNQ_HOST_BASE_CLOCK_H
#define RUNQ_HOST_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC, ns. */
static inline uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
