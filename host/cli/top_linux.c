/*
 * `runq top --linux`: the flags and the help. The view of the host's own
 * scheduler is tui/top_linux.c.
 */
#include <stdint.h>
#include <unistd.h>

#include "host/cli/flags.h"
#include "host/cli/top_linux.h"
#include "host/engine/linux/run.h"
#include "tui/top_linux.h"

static int parse_cpus(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return linux_parse_cpulist(v, value) ? 0 : -1;
}

static const struct command_spec top_linux_spec = {
    .name = "top --linux",
    .usage = "top --linux [--cpus LIST] [--delay TENTHS] [--record FILE] [--frames N]",
    .about = "A live view of the host's own Linux scheduler, from inside: on each CPU the\n"
             "queue as Linux holds it after its latest pick there, read by a BPF program at\n"
             "every switch: the queue's V and, for each task, its lag (V - vruntime), its\n"
             "virtual deadline against V, its slice and weight, whether it is eligible,\n"
             "delayed (DELAY_DEQUEUE) or running. Needs root and a kernel with BTF.\n"
             "Nothing is stored unless --record FILE is given; nothing stays attached to\n"
             "the kernel after it ends. q or Ctrl-C quits.\n",
    .after = "Entries of another scheduling group (autogroup: another session) are the group's\n"
             "entity, shown as [group]. docs/top.md, \"The host's Linux\".\n",
    .mode = "linux",
};

int top_linux_flags(int argc, char **argv, struct top_linux_opts *o)
{
    *o = (struct top_linux_opts){ .tenths = 10, .frames = isatty(STDOUT_FILENO) ? 0 : 1 };
    const struct flag flags[] = {
        FLAG_FN("cpus", &o->cpus, "LIST", "CPUs to show, as Linux writes them: 1, 0-1 (default all online)",
                parse_cpus, .takes = "a CPU list such as 1, 0-1 or 0,2-3 (CPUs 0..63)"),
        FLAG_NUM("delay", &o->tenths, "TENTHS", "refresh every TENTHS tenths of a second (default 10)", 1, 600,
                 "tenths of a second, 1..600"),
        FLAG_STR("record", &o->record, "FILE", "also record those CPUs into FILE (runq record --linux)"),
        FLAG_NUM("frames", &o->frames, "N",
                 "print N frames as text and end (the default when stdout is\nnot a terminal, with N 1)", 1, 100000,
                 "a number of frames, 1..100000"),
        FLAG_TABLE_END,
    };
    int npos, rc = flags_parse(&top_linux_spec, flags, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    if (o->record && !*o->record)
        return flags_usage_error(&top_linux_spec, "--record needs a file name");
    uint64_t online = linux_online_cpus();
    if (online && (o->cpus & ~online))
        return flags_usage_error(&top_linux_spec, "--cpus names a CPU that is not online");
    return -1;
}
