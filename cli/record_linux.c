/*
 * runq record --linux: the flags, the help, and the signals; the
 * recording is linux/record.h's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/record.h"
#include "linux/record.h"
#include "linux/run.h"
#include "scenario/scenario.h"

#define DEFAULT_DB "runq.db"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    stop = sig;
}

static void help(void)
{
    printf("usage: runq record --linux [--cpus LIST] [--pid PID | --comm NAME] [--duration D] [--db FILE]\n\n"
           "Records the host's own Linux scheduler on some CPUs into the trace database,\n"
           "as the Linux engine records a scenario: every switch, wakeup and migration\n"
           "from tracefs and, where BPF can be had (root, a kernel with BTF), Linux's own\n"
           "EEVDF state at each decision: V, each queued task's vruntime, deadline, lag,\n"
           "slice and eligibility (docs/sql.md, \"Traces from Linux\"). runq step, top,\n"
           "report and export then read it as any trace. Needs root.\n\n"
           "The threads that exist when it starts and match --pid or --comm (every thread\n"
           "without either) are named in the trace; anything else that runs on the CPUs\n"
           "is each CPU's \"other\". It ends after --duration, or at Ctrl-C (SIGINT,\n"
           "SIGTERM, SIGHUP), and stores what it recorded either way; nothing stays\n"
           "attached to the kernel after it ends, however it ends.\n\n"
           "flags:\n"
           "  --cpus LIST      CPUs to record, as Linux writes them: 1, 0-1, 0,2-3 (default all)\n"
           "  --pid PID        name that process's threads\n"
           "  --comm NAME      name the threads called NAME (/proc/PID/comm, at most 15 bytes)\n"
           "  --duration D     stop after D (10s, 500ms; default: at Ctrl-C)\n"
           "  --db FILE        database to add the trace to (default %s)\n"
           "  --help           show this help\n\n"
           "The trace id is printed on stdout; what was recorded goes to stderr.\n",
           DEFAULT_DB);
}

static int usage(const char *what, const char *v)
{
    fprintf(stderr, "runq record: %s '%s'; see 'runq record --linux --help'\n", what, v);
    return 2;
}

int record_linux_main(int argc, char **argv)
{
    struct linux_record_opts o = { .db = DEFAULT_DB, .stop = &stop, .notes = stderr };
    int err = 0;
    const char *v;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help();
            return 0;
        } else if (!strcmp(argv[i], "--linux")) {
            continue;
        } else if ((v = record_flag_arg("--db", argc, argv, &i, &err))) {
            if (!*v)
                return usage("--db needs a file name, not", v);
            o.db = v;
        } else if ((v = record_flag_arg("--cpus", argc, argv, &i, &err))) {
            if (!linux_parse_cpulist(v, &o.cpus))
                return usage("--cpus takes a CPU list such as 1, 0-1 or 0,2-3 (CPUs 0..63), not", v);
        } else if ((v = record_flag_arg("--pid", argc, argv, &i, &err))) {
            char *end;
            long p = strtol(v, &end, 10);
            if (*end || end == v || p <= 0 || p > 4194304)
                return usage("--pid takes a process id, not", v);
            o.pid = (pid_t)p;
        } else if ((v = record_flag_arg("--comm", argc, argv, &i, &err))) {
            if (!*v || strlen(v) > 15)
                return usage("--comm takes a thread name of 1 to 15 bytes, not", v);
            o.comm = v;
        } else if ((v = record_flag_arg("--duration", argc, argv, &i, &err))) {
            if (!scn_parse_duration(v, &o.duration_ns) || !o.duration_ns)
                return usage("--duration takes a time such as 10s or 500ms, not", v);
        } else if (err) {
            return 2;
        } else {
            return usage(argv[i][0] == '-' ? "unknown flag" : "unknown argument", argv[i]);
        }
        if (err)
            return 2;
    }
    if (o.pid && o.comm) {
        fprintf(stderr, "runq record: give --pid or --comm, not both\n");
        return 2;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int64_t trace;
    char e[512];
    if (linux_record(&o, &trace, e, sizeof e) < 0) {
        fprintf(stderr, "runq record: %s\n", e);
        return 1;
    }
    printf("%lld\n", (long long)trace);
    return 0;
}
