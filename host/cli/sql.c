/*
 * `runq sql`: read-only SQL on a trace database, printed as a table, CSV
 * or JSON. The reading and printing are db/query.c's; its errors are
 * printed here.
 */
#include <stdio.h>

#include "host/cli/cli.h"
#include "host/cli/db_flags.h"
#include "db/query.h"

static const struct command_spec sql_spec = {
    .name = "sql",
    .usage = "sql [--db FILE] [--trace ID] [--csv | --json] \"SELECT ...\"",
    .about = "Runs read-only SQL on a trace database and prints the result: an aligned table,\n"
             "CSV, or JSON (an array of objects per statement, one line each). Several\n"
             "statements separated by ';' run in order. docs/sql.md documents every table.\n\n"
             "Functions beside SQLite's: rel(ts), a time since --trace's trace began (ts\n"
             "less its start_ts; rel(ts, trace_id) for any trace): every stored time is ns\n"
             "of the kernel's clock, runq step shows both; runq_recorder_alive(trace_id), 1\n"
             "while that trace's recorder runs, 0 when it is finished or gone (its status may\n"
             "still say 'recording'), NULL when it cannot tell.\n",
    .max_pos = 1,
    .too_many = "give one SQL string (quote it); see runq sql --help",
};

int cmd_sql(int argc, char **argv)
{
    struct db_flags o = DB_FLAGS_INIT;
    const struct flag flags[] = {
        DB_FLAG_ROWS(&o, "see only trace ID: every table name means that trace's rows\n"
                         "(main.TABLE still reaches all of them); default: all traces"),
        DB_FORMAT_ROWS(&o),
        FLAG_TABLE_END,
    };
    const char *query = NULL;
    enum dbq_format fmt;
    char err[8192]; /* SQLite's message may quote the query */
    int npos, rc = flags_parse(&sql_spec, flags, argc, argv, &query, &npos);
    if (rc >= 0)
        return rc;
    if (db_flags_format(&sql_spec, &o, &fmt))
        return 2;
    if (!query)
        return flags_usage_error(&sql_spec, "give one SQL string; see runq sql --help");
    sqlite3 *db = cli_db_open("sql", o.db);
    if (!db)
        return 1;
    if (o.trace && dbq_scope_trace(db, o.trace, err, sizeof err) != 0)
        rc = 1;
    else
        rc = dbq_run(db, query, fmt, stdout, err, sizeof err);
    if (rc)
        fprintf(stderr, "runq sql: %s\n", err);
    sqlite3_close(db);
    return rc;
}
