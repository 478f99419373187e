/*
 * `runq export --perfetto`: a trace as the ftrace text Perfetto imports
 * (host/export/perfetto.c writes it; docs/perfetto.md says what one sees).
 *
 * The flags, and the database opened read-only as every reader opens it
 * (db/query.c), are host/cli/export.c's. Here (contract in export.h): the
 * traces to write, one (--trace, default the newest) or every recorded
 * trace of an experiment, each written to stdout, or to OUT as
 * host/base/outfile.h writes a file, so that a failed or interrupted
 * export leaves no half-written OUT. An experiment's traces
 * each get a file of their own in a directory: their clocks all start at
 * boot and their task ids repeat, so in one file their CPUs and tasks
 * would be drawn over each other.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/query.h"
#include "db/qx_export.h"
#include "host/base/outfile.h"
#include "host/export/export.h"
#include "host/export/perfetto.h"

/* Writes trace to path (stdout when NULL) whole or not at all
 * (host/base/outfile.h). Returns 0 or 1 (the error printed). */
static int export_one(sqlite3 *db, const char *db_name, int64_t trace, const char *path)
{
    if (!path) {
        int rc = perfetto_write(db, "export", db_name, trace, stdout);
        if (!rc && (fflush(stdout) != 0 || ferror(stdout))) {
            fprintf(stderr, "runq export: writing stdout: %s\n", strerror(errno));
            rc = 1;
        }
        return rc;
    }
    struct outfile out;
    if (outfile_open(&out, "export", path))
        return 1;
    if (perfetto_write(db, "export", db_name, trace, out.f)) {
        outfile_abort(&out);
        return 1;
    }
    return outfile_commit(&out);
}

/* The recorded traces of experiment id, in *ids (*n of them). Returns 0,
 * or 1 after the error. */
static int experiment_traces(sqlite3 *db, int64_t id, int64_t **ids, size_t *n)
{
    char err[512];
    bool found;
    if (dbq_export_experiment_traces(db, id, &found, ids, n, err, sizeof err) != 0) {
        fprintf(stderr, "runq export: %s\n", err);
        return 1;
    }
    if (!found)
        fprintf(stderr, "runq export: no experiment %" PRId64 " in this database\n", id);
    else if (!*n)
        fprintf(stderr, "runq export: experiment %" PRId64 " recorded no trace (run on paper only?)\n", id);
    if (!found || !*n) {
        free(*ids);
        *ids = NULL;
        return 1;
    }
    return 0;
}

int export_perfetto(sqlite3 *db, const struct export_opts *o)
{
    const char *db_path = o->db_path, *out = o->out;
    int64_t trace = o->trace;
    int rc = 0;
    if (o->experiment) {
        int64_t *ids;
        size_t n;
        rc = experiment_traces(db, o->experiment, &ids, &n);
        struct stat st;
        if (!rc && mkdir(out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "runq export: %s: %s\n", out, strerror(errno));
            rc = 1;
        } else if (!rc && (stat(out, &st) != 0 || !S_ISDIR(st.st_mode))) {
            fprintf(stderr, "runq export: %s is not a directory: --experiment writes a file a trace into -o DIR\n",
                    out);
            rc = 1;
        }
        for (size_t i = 0; !rc && i < n; i++) {
            char *path = sqlite3_mprintf("%s/trace-%lld.systrace", out, (long long)ids[i]);
            rc = path ? export_one(db, db_path, ids[i], path) : 1;
            if (!rc)
                printf("%s\n", path);
            sqlite3_free(path);
        }
        free(ids);
    } else {
        if (!trace && !(trace = dbq_latest_trace(db))) {
            fprintf(stderr, "runq export: %s holds no trace yet\n", db_path);
            rc = 1;
        } else if (!dbq_export_trace_exists(db, trace)) {
            fprintf(stderr, "runq export: no trace %" PRId64 " in %s\n", trace, db_path);
            rc = 1;
        }
        if (!rc)
            rc = export_one(db, db_path, trace, out);
    }
    return rc;
}
