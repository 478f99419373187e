/*
 * The flags readers share, and their open (contracts in db_flags.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/db_flags.h"

int cli_db_flags(const char *prog, int argc, char **argv, const char **db, int64_t *trace, enum dbq_format *fmt,
                 const char **pos, int maxpos, int *npos, void (*help)(void))
{
    *npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help();
            return 0;
        }
        if (strcmp(a, "--csv") == 0) {
            *fmt = DBQ_CSV;
            continue;
        }
        if (strcmp(a, "--json") == 0) {
            *fmt = DBQ_JSON;
            continue;
        }
        const char *names[] = { "--db", "--trace" };
        int which = -1;
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(a, names[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
                which = k;
                if (a[n] == '=')
                    v = a + n + 1;
                else if (i + 1 < argc)
                    v = argv[++i];
                else {
                    fprintf(stderr, "runq %s: %s needs a value\n", prog, names[k]);
                    return 2;
                }
            }
        }
        if (which == 0) {
            if (!*v) {
                fprintf(stderr, "runq %s: --db needs a file name\n", prog);
                return 2;
            }
            *db = v;
        } else if (which == 1) {
            char *end;
            long long id = strtoll(v, &end, 10);
            if (!*v || *end || id <= 0) {
                fprintf(stderr, "runq %s: bad --trace '%s': want a trace id (a positive number)\n",
                        prog, v);
                return 2;
            }
            *trace = id;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "runq %s: unknown flag '%s'; see 'runq %s --help'\n", prog, a, prog);
            return 2;
        } else {
            if (*npos == maxpos) {
                fprintf(stderr, "runq %s: unexpected argument '%s'; see 'runq %s --help'\n", prog, a,
                        prog);
                return 2;
            }
            pos[(*npos)++] = a;
        }
    }
    return -1;
}

sqlite3 *cli_db_open(const char *prog, const char *path)
{
    char err[2 * 4096 + 256]; /* the path, twice when it is missing */
    sqlite3 *db = dbq_open(path, err, sizeof err);
    if (!db)
        fprintf(stderr, "runq %s: %s\n", prog, err);
    return db;
}
