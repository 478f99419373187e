/*
 * `runq record`: the flags and the help. Recording a stream is
 * trace/recorder/record.c's; `runq record --linux`, a form with its own
 * table, is host/cli/record_linux.c's.
 */
#include <stdbool.h>

#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/cli/record.h"
#include "host/engine/linux/record.h"
#include "trace/recorder/record.h"

#define DEFAULT_DB "runq.db"
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct command_spec record_spec = {
    .name = "record",
    .usage = "record [--db FILE] [--socket PATH | --file PATH] [--follow]",
    .about = "Reads the kernel's trace stream, checks its framing, CRCs and sequence numbers,\n"
             "and stores it as a new trace in an SQLite database (WAL mode, so runq sql and\n"
             "runq top can read it while it grows). Lost data is counted in the stats and\n"
             "data_gap tables, never hidden. The trace is marked complete when the stream's\n"
             "END record arrives, incomplete when it stops early (SIGINT, SIGTERM, SIGHUP, a\n"
             "cut stream, QEMU gone); either way everything read is committed. If the disk\n"
             "fills, it keeps what it committed, reads on, and says what it could not store.\n",
    .after = "The trace id is printed on stdout; a summary goes to stderr.\n\n"
             "runq record --linux [--cpus LIST] [--pid PID | --comm NAME] [--duration D] [--db FILE]\n"
             "records the host's own Linux instead, with its EEVDF state (runq record --linux --help).\n",
};

/* The flags into o. Returns -1 to record, or the exit status: 0 after
 * --help, 2 for a usage error (said in one line). */
static int record_flags(int argc, char **argv, struct record_opts *o)
{
    *o = (struct record_opts){ .db = DEFAULT_DB };
    const struct flag flags[] = {
        FLAG_STR("db", &o->db, "FILE", "database to add the trace to (default " DEFAULT_DB ")"),
        FLAG_STR("socket", &o->sock, "PATH",
                 "connect to QEMU's chardev socket (waits up to " STR(RECORD_CONNECT_WAIT_S) " s for it)"),
        FLAG_STR("file", &o->file, "PATH", "read a file ('-' for stdin), e.g. from -chardev file"),
        FLAG_ON("follow", &o->follow, "at the end of the file wait for more, like tail -f, until\n"
                "the END record (then it stores what the file holds and\n"
                "ends, the trace complete) or SIGINT"),
        FLAG_ON("require-end", &o->require_end, "exit 1 if the stream ends without its END record (the\n"
                "trace is stored all the same, incomplete)"),
        FLAG_TABLE_END,
    };
    int npos, rc = flags_parse(&record_spec, flags, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    if (!o->sock == !o->file)
        return flags_usage_error(&record_spec, "give exactly one of --socket PATH or --file PATH");
    if (!*o->db)
        return flags_usage_error(&record_spec, "--db needs a file name");
    return -1;
}

int cmd_record(int argc, char **argv)
{
    if (flags_mode(argc, argv, "linux")) {
        struct linux_record_opts lo;
        int rc = record_linux_flags(argc, argv, &lo);
        return rc >= 0 ? rc : record_linux(&lo);
    }
    struct record_opts o;
    bool stored;
    int rc = record_flags(argc, argv, &o);
    return rc >= 0 ? rc : record_stream(&o, &stored);
}
