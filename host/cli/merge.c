/*
 * `runq merge OUT.db IN.db...`: the help and the positional arguments;
 * the merge is host/experiment/merge.c's (merge_run).
 */
#include <stdlib.h>

#include "host/base/xalloc.h"
#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/experiment/merge.h"

int cmd_merge(int argc, char **argv)
{
    const struct flag flags[] = { FLAG_TABLE_END };
    const struct command_spec spec = {
        .name = "merge",
        .usage = "merge OUT.db IN.db...",
        .about = "Merges runq databases into OUT.db (created when missing, else added to), so that\n"
                 "an experiment run in shards on several machines (runq experiment --shard I/N) is\n"
                 "one experiment again. Every trace, thread, scenario run and experiment gets a new\n"
                 "id in OUT.db, and every column naming one follows it. The shards of one\n"
                 "experiment (the same file, engine, axes, cells, repeats, columns and N) become\n"
                 "one experiment; its shard column is empty when all N shards are there, as after\n"
                 "an unsharded run, else it lists the shards it holds (1,3/4). A line per\n"
                 "experiment says how many runs it holds and which cells lack some.\n\n"
                 "It refuses, naming the file, a database that is not runq's or is of another\n"
                 "schema version than this runq's, one with a trace still recording, a shard given\n"
                 "twice, shards of experiments that differ (seeds, a cell's scenario), and ids too\n"
                 "near the 64-bit limits to renumber. All of it is one transaction: after a refusal\n"
                 "or a failure OUT.db is as it was. Merges into one OUT.db wait for each other.\n"
                 "docs/experiments.md shows it after GNU parallel and a Slurm job array.\n",
        .max_pos = argc,
    };
    const char **pos = xcalloc((size_t)argc + 1, sizeof *pos);
    int npos;
    int rc = flags_parse(&spec, flags, argc, argv, pos, &npos);
    if (rc < 0 && npos < 2)
        rc = flags_usage_error(&spec, "give OUT.db and at least one IN.db; see runq merge --help");
    if (rc < 0) {
        const struct merge_opts o = { .out = pos[0], .nin = npos - 1, .in = pos + 1 };
        rc = merge_run(&o);
    }
    free(pos);
    return rc;
}
