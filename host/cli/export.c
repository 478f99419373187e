/*
 * `runq export --perfetto [--db FILE] [--trace ID | --experiment ID] [-o
 * OUT]`: the flags, the help and the database's open. Which traces are
 * written where is host/export/export.c, the ftrace text
 * host/export/perfetto.c.
 */
#include <stdbool.h>
#include <stdint.h>

#include "host/cli/cli.h"
#include "host/cli/db_flags.h"
#include "host/export/export.h"

static const struct command_spec export_spec = {
    .name = "export",
    .usage = "export --perfetto [--db FILE] [--trace ID | --experiment ID] [-o OUT]",
    .about = "Writes a trace as the plain-text ftrace format (systrace) that the Perfetto UI\n"
             "(ui.perfetto.dev: Open trace file) and trace_processor import: each CPU's\n"
             "schedule from sched_slice, wakeups from wakeup (with the waker), EEVDF's V per CPU\n"
             "and each task's lag, deadline and vruntime as counters (virtual ns; none in round\n"
             "robin or Linux traces), and data gaps drawn as such, never as idle time.\n"
             "docs/perfetto.md says what each track shows.\n",
};

int cmd_export(int argc, char **argv)
{
    struct db_flags o = DB_FLAGS_INIT;
    const char *out = NULL;
    int64_t experiment = 0;
    bool perfetto = false;
    const struct flag flags[] = {
        FLAG_ON("perfetto", &perfetto, "the format (the only one yet)"),
        DB_FLAG_ROWS(&o, "the trace to write (default: the newest)"),
        FLAG_NUM64("experiment", &experiment, "ID",
                   "every recorded trace of experiment ID, each its own file\n"
                   "OUT/trace-ID.systrace (needs -o OUT, a directory, made if missing)",
                   1, INT64_MAX, "an experiment id (a positive number)"),
        FLAG_FILE("out", &out, "OUT",
                  "write to OUT (default: stdout): a file is replaced whole or not\n"
                  "at all, a character device or FIFO written in place, a\n"
                  "symbolic link or a directory refused",
                  .short_name = 'o'),
        FLAG_TABLE_END,
    };
    int npos, prc = flags_parse(&export_spec, flags, argc, argv, NULL, &npos);
    if (prc >= 0)
        return prc;
    if (!perfetto)
        return flags_usage_error(&export_spec, "say which format: --perfetto (the only one yet)");
    if (o.trace && experiment)
        return flags_usage_error(&export_spec, "--trace or --experiment, not both");
    if (experiment && !out)
        return flags_usage_error(&export_spec, "--experiment writes a file a trace: give -o DIR");

    sqlite3 *db = cli_db_open("export", o.db);
    if (!db)
        return 1;
    const struct export_opts eo = { .db_path = o.db, .trace = o.trace, .experiment = experiment, .out = out };
    int rc = export_perfetto(db, &eo);
    sqlite3_close(db);
    return rc;
}
