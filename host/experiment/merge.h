/*
 * `runq merge`'s work: runq databases into one, every id renumbered, the
 * shards of an experiment (`runq experiment --shard I/N`) one experiment
 * again (docs/experiments.md, "Beyond one machine"). merge.c's opening
 * comment says how; host/cli/merge.c holds the command's flags and help.
 */
#ifndef RUNQ_EXPERIMENT_MERGE_H
#define RUNQ_EXPERIMENT_MERGE_H

struct merge_opts {
    const char *out;       /* OUT.db: created when missing, else added to */
    int nin;               /* at least 1 */
    const char *const *in; /* the input databases, in the order given */
};

/* Merges o->in into o->out in one transaction, holding OUT's merge lock
 * (db/recorder_lock.h) from before it reads anything to the end, so
 * merges into one OUT wait for each other. Prints a line for OUT and one
 * per experiment it wrote on stdout. 0; or 1 after a refusal or a failure,
 * each said on stderr in lines "runq merge: ...", with OUT as it was (one
 * it created removed again). */
int merge_run(const struct merge_opts *o);

#endif
