/*
 * runq record --linux: the flags, the help, and the signals; the
 * recording is host/engine/linux/record.h's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli/flags.h"
#include "host/cli/record.h"
#include "host/engine/linux/record.h"
#include "host/engine/linux/run.h"
#include "host/scenario/scenario.h"

#define DEFAULT_DB "runq.db"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    stop = sig;
}

static int parse_cpus(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return linux_parse_cpulist(v, value) ? 0 : -1;
}

static int parse_comm(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!*v || strlen(v) > 15)
        return -1;
    *(const char **)value = v;
    return 0;
}

static int parse_duration(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return scn_parse_duration(v, value) && *(uint64_t *)value ? 0 : -1;
}

static const struct command_spec record_linux_spec = {
    .name = "record --linux",
    .usage = "record --linux [--cpus LIST] [--pid PID | --comm NAME] [--duration D] [--db FILE]",
    .about = "Records the host's own Linux scheduler on some CPUs into the trace database,\n"
             "as the Linux engine records a scenario: every switch, wakeup and migration\n"
             "from tracefs and, where BPF can be had (root, a kernel with BTF), Linux's own\n"
             "EEVDF state at each decision: V, each queued task's vruntime, deadline, lag,\n"
             "slice and eligibility (docs/sql.md, \"Traces from Linux\"). runq step, top,\n"
             "report and export then read it as any trace. Needs root.\n\n"
             "The threads that exist when it starts and match --pid or --comm (every thread\n"
             "without either) are named in the trace; anything else that runs on the CPUs\n"
             "is each CPU's \"other\". It ends after --duration, or at Ctrl-C (SIGINT,\n"
             "SIGTERM, SIGHUP), and stores what it recorded either way; nothing stays\n"
             "attached to the kernel after it ends, however it ends.\n",
    .after = "The trace id is printed on stdout; what was recorded goes to stderr.\n",
    .mode = "linux",
};

int record_linux_flags(int argc, char **argv, struct linux_record_opts *o)
{
    int pid = 0;
    *o = (struct linux_record_opts){ .db = DEFAULT_DB };
    const struct flag flags[] = {
        FLAG_FN("cpus", &o->cpus, "LIST", "CPUs to record, as Linux writes them: 1, 0-1, 0,2-3 (default all)",
                parse_cpus, .takes = "a CPU list such as 1, 0-1 or 0,2-3 (CPUs 0..63)"),
        FLAG_NUM("pid", &pid, "PID", "name that process's threads", 1, 4194304, "a process id"),
        FLAG_FN("comm", &o->comm, "NAME", "name the threads called NAME (/proc/PID/comm, at most 15 bytes)",
                parse_comm, .takes = "a thread name of 1 to 15 bytes"),
        FLAG_FN("duration", &o->duration_ns, "D", "stop after D (10s, 500ms; default: at Ctrl-C)", parse_duration,
                .takes = "a time such as 10s or 500ms"),
        FLAG_STR("db", &o->db, "FILE", "database to add the trace to (default " DEFAULT_DB ")"),
        FLAG_TABLE_END,
    };
    int npos, rc = flags_parse(&record_linux_spec, flags, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    o->pid = pid;
    if (!*o->db)
        return flags_usage_error(&record_linux_spec, "--db needs a file name");
    if (o->pid && o->comm)
        return flags_usage_error(&record_linux_spec, "give --pid or --comm, not both");
    return -1;
}

int record_linux(struct linux_record_opts *o)
{
    o->stop = &stop;
    o->notes = stderr;
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int64_t trace;
    char e[512];
    if (linux_record(o, &trace, e, sizeof e) < 0) {
        fprintf(stderr, "runq record: %s\n", e);
        return 1;
    }
    printf("%lld\n", (long long)trace);
    return 0;
}
