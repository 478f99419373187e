/*
 * `runq export --perfetto`: a trace as the ftrace text Perfetto imports
 * (cli/perfetto.c writes it; docs/perfetto.md says what one sees).
 *
 * In order: the flags; the database, opened read-only as every reader
 * opens it (db/query.c); the traces to write: one (--trace, default the
 * newest) or every recorded trace of an experiment; each written to
 * stdout, or to OUT as cli/outfile.h writes a file, so that a failed or
 * interrupted export leaves no half-written OUT. An experiment's traces
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

#include "cli/cli.h"
#include "cli/db_flags.h"
#include "cli/outfile.h"
#include "cli/perfetto.h"
#include "db/query.h"
#include "db/qx_export.h"

#define DEFAULT_DB "runq.db"

static void export_help(void)
{
    printf("usage: runq export --perfetto [--db FILE] [--trace ID | --experiment ID] [-o OUT]\n\n"
           "Writes a trace as the plain-text ftrace format (systrace) that the Perfetto UI\n"
           "(ui.perfetto.dev: Open trace file) and trace_processor import: each CPU's\n"
           "schedule from sched_slice, wakeups from wakeup (with the waker), EEVDF's V per CPU\n"
           "and each task's lag, deadline and vruntime as counters (virtual ns; none in round\n"
           "robin or Linux traces), and data gaps drawn as such, never as idle time.\n"
           "docs/perfetto.md says what each track shows.\n\n"
           "flags:\n"
           "  --perfetto        the format (the only one yet)\n"
           "  --db FILE         database (default %s)\n"
           "  --trace ID        the trace to write (default: the newest)\n"
           "  --experiment ID   every recorded trace of experiment ID, each its own file\n"
           "                    OUT/trace-ID.systrace (needs -o OUT, a directory, made if missing)\n"
           "  -o, --out OUT     write to OUT (default: stdout): a file is replaced whole or not\n"
           "                    at all, a character device or FIFO written in place, a\n"
           "                    symbolic link or a directory refused\n"
           "  --help            show this help\n",
           DEFAULT_DB);
}

/* Writes trace to path (stdout when NULL) whole or not at all
 * (cli/outfile.h). Returns 0 or 1 (the error printed). */
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

/* A positive id from v into *id; false after a usage error. */
static bool parse_id(const char *flag, const char *v, int64_t *id)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || n <= 0 || errno) {
        fprintf(stderr, "runq export: bad %s '%s': want an id (a positive number)\n", flag, v);
        return false;
    }
    *id = n;
    return true;
}

int cmd_export(int argc, char **argv)
{
    const char *db_path = DEFAULT_DB, *out = NULL;
    int64_t trace = 0, experiment = 0;
    bool perfetto = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            export_help();
            return 0;
        }
        if (strcmp(a, "--perfetto") == 0) {
            perfetto = true;
            continue;
        }
        static const char *const valued[] = { "--db", "--trace", "--experiment", "--out", "-o" };
        const char *name = NULL, *v = NULL;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !name; k++) {
            size_t n = strlen(valued[k]);
            if (strncmp(a, valued[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
                name = valued[k];
                v = a[n] == '=' ? a + n + 1 : i + 1 < argc ? argv[++i] : NULL;
            }
        }
        if (!name) {
            fprintf(stderr, "runq export: %s '%s'; see 'runq export --help'\n",
                    a[0] == '-' ? "unknown flag" : "unexpected argument", a);
            return 2;
        }
        if (!v || !*v) {
            fprintf(stderr, "runq export: %s needs a value\n", name);
            return 2;
        }
        if (strcmp(name, "--db") == 0)
            db_path = v;
        else if (strcmp(name, "--trace") == 0 ? !parse_id(name, v, &trace)
                 : strcmp(name, "--experiment") == 0 ? !parse_id(name, v, &experiment)
                                                     : !(out = v))
            return 2;
    }
    if (!perfetto) {
        fprintf(stderr, "runq export: say which format: --perfetto (the only one yet)\n");
        return 2;
    }
    if (trace && experiment) {
        fprintf(stderr, "runq export: --trace or --experiment, not both\n");
        return 2;
    }
    if (experiment && !out) {
        fprintf(stderr, "runq export: --experiment writes a file a trace: give -o DIR\n");
        return 2;
    }

    sqlite3 *db = cli_db_open("export", db_path);
    if (!db)
        return 1;
    int rc = 0;
    if (experiment) {
        int64_t *ids;
        size_t n;
        rc = experiment_traces(db, experiment, &ids, &n);
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
    sqlite3_close(db);
    return rc;
}
