/*
 * `runq sim`: the scheduling policies run on the host, one quantum at a
 * time, on a workload written in a small text format (docs/sim.md).
 *
 * Three parts, one file each:
 *   cli/sim_parse.c  the workload format: parse a file, print a workload back
 *   cli/sim_gen.c    a random workload from a seed (`runq sim -s SEED`)
 *   cli/sim.c        the subcommand: flags, the simulation loop, the output
 *
 * Every duration is in ns. The workload says what to run; nothing in it
 * depends on the policy code, so the parser and the generator can be read
 * without knowing EEVDF.
 */
#ifndef RUNQ_CLI_SIM_H
#define RUNQ_CLI_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_TASKS 26
#define SIM_MAX_SEGS 16
#define SIM_NAME_MAX 8
#define SIM_MAX_QUANTA 100000
#define SIM_MAX_FEATURES 32

/* One step of a task's run/sleep pattern. */
enum sim_seg_kind {
    SIM_SEG_RUN,   /* wants the CPU for ns of CPU time */
    SIM_SEG_SLEEP, /* off the queue for ns of wall time */
    SIM_SEG_YIELD, /* gives way (the policy's yield) where the step before ends; no time */
    SIM_SEG_EXIT,  /* leaves for good; only ever the last step */
};

struct sim_seg {
    enum sim_seg_kind kind;
    uint64_t ns;
};

struct sim_task_spec {
    char name[SIM_NAME_MAX + 1];
    int line;          /* where it was declared, for messages; 0 if generated */
    int nice;          /* weight= is turned into the nice with that weight */
    uint64_t slice_ns; /* requested slice; 0: the policy's default */
    uint64_t arrive_ns;
    int nsegs;         /* 0: runs forever */
    struct sim_seg segs[SIM_MAX_SEGS]; /* starts with RUN; repeats unless EXIT ends it */
};

struct sim_feature_setting {
    int feature; /* enum eevdf_feature */
    bool on;
};

struct sim_workload {
    char policy[8];      /* "rr" or "eevdf" */
    unsigned cpus;       /* only scales EEVDF's base slice */
    uint64_t quantum_ns; /* one letter of the schedule */
    uint64_t tick_ns;    /* scheduler tick; 0: one quantum */
    uint64_t run_ns;     /* how long to simulate */
    int nfeatures;       /* switches set, in order, each feature at most once */
    struct sim_feature_setting features[SIM_MAX_FEATURES];
    int ntasks;
    struct sim_task_spec tasks[SIM_MAX_TASKS];
};

/* The defaults every workload starts from: eevdf, 4 CPUs, 1 ms quantum,
 * tick = quantum, 32 quanta, no tasks. */
void sim_workload_init(struct sim_workload *w);

/*
 * Reads a workload from f. name is what messages call the file. On success
 * returns 0 with w filled and checked (every duration a multiple of the
 * quantum, and so on: the simulation may trust it). On error returns -1
 * and leaves in err one line "name:line: message" (no newline).
 */
int sim_parse(FILE *f, const char *name, struct sim_workload *w, char *err, size_t errlen);

/* Records feature NAME as on/off in w (replacing an earlier setting of the
 * same feature). False if there is no such feature. */
bool sim_set_feature(struct sim_workload *w, const char *name, bool on);

/* Writes w in the workload format, so sim_parse reads back the same w. */
void sim_workload_print(FILE *out, const struct sim_workload *w);

/* "0.8ms" -> 800000: a number (decimals allowed) and a unit, ns, us, ms or
 * s, or a bare 0. False unless the value is a whole number of ns, at most
 * an hour. */
bool sim_parse_duration(const char *s, uint64_t *ns);

/* The shortest exact spelling of ns: "0", "800us", "1600us", "2ms", "1s". */
void sim_format_duration(char *buf, size_t len, uint64_t ns);

/* A random problem: 2 to 5 tasks with random nice values, slices, arrivals
 * and patterns. The same seed gives the same workload everywhere: the
 * generator is its own xorshift, not rand(). */
void sim_generate(uint64_t seed, struct sim_workload *w);

#endif
