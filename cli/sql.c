/*
 * `runq sql`: read-only SQL on a trace database, printed as a table, CSV
 * or JSON. The reading and printing are db/query.c's; its errors are
 * printed here.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/db_flags.h"
#include "db/query.h"

#define DEFAULT_DB "runq.db"

static void sql_help(void)
{
    printf("usage: runq sql [--db FILE] [--trace ID] [--csv | --json] \"SELECT ...\"\n\n"
           "Runs read-only SQL on a trace database and prints the result: an aligned table,\n"
           "CSV, or JSON (an array of objects per statement, one line each). Several\n"
           "statements separated by ';' run in order. docs/sql.md documents every table.\n\n"
           "Functions beside SQLite's: rel(ts), a time since --trace's trace began (ts\n"
           "less its start_ts; rel(ts, trace_id) for any trace): every stored time is ns\n"
           "of the kernel's clock, runq step shows both; runq_recorder_alive(trace_id), 1\n"
           "while that trace's recorder runs, 0 when it is finished or gone (its status may\n"
           "still say 'recording'), NULL when it cannot tell.\n\n"
           "flags:\n"
           "  --db FILE    database (default %s)\n"
           "  --trace ID   see only trace ID: every table name means that trace's rows\n"
           "               (main.TABLE still reaches all of them); default: all traces\n"
           "  --csv        CSV with a header line\n"
           "  --json       JSON\n"
           "  --help       show this help\n",
           DEFAULT_DB);
}

int cmd_sql(int argc, char **argv)
{
    const char *db_path = DEFAULT_DB, *pos[1];
    int64_t trace = 0;
    enum dbq_format fmt = DBQ_TABLE;
    char err[8192]; /* SQLite's message may quote the query */
    int npos, rc = cli_db_flags("sql", argc, argv, &db_path, &trace, &fmt, pos, 1, &npos, sql_help);
    if (rc >= 0)
        return rc;
    if (npos != 1) {
        fprintf(stderr, "runq sql: give one SQL string; see 'runq sql --help'\n");
        return 2;
    }
    sqlite3 *db = cli_db_open("sql", db_path);
    if (!db)
        return 1;
    if (trace && dbq_scope_trace(db, trace, err, sizeof err) != 0)
        rc = 1;
    else
        rc = dbq_run(db, pos[0], fmt, stdout, err, sizeof err);
    if (rc)
        fprintf(stderr, "runq sql: %s\n", err);
    sqlite3_close(db);
    return rc;
}
