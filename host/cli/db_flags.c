/*
 * The flag rows readers share, and their open (contracts in db_flags.h).
 */
#include <stdio.h>

#include "host/cli/db_flags.h"

int db_flags_format(const struct command_spec *spec, const struct db_flags *o, enum dbq_format *fmt)
{
    if (o->csv && o->json) {
        flags_usage_error(spec, "--csv or --json, not both");
        return -1;
    }
    *fmt = o->csv ? DBQ_CSV : o->json ? DBQ_JSON : DBQ_TABLE;
    return 0;
}

sqlite3 *cli_db_open(const char *prog, const char *path)
{
    char err[2 * 4096 + 256]; /* the path, twice when it is missing */
    sqlite3 *db = dbq_open(path, err, sizeof err);
    if (!db)
        fprintf(stderr, "runq %s: %s\n", prog, err);
    return db;
}
