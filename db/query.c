/*
 * Reading the trace database (contracts in query.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bug.h"
#include "db/query.h"
#include "db/readable.h"
#include "db/recorder_lock.h"
#include "db/visible.h"

/* ---- rel(ts [, trace_id]): the time since a trace's start ----
 * One time base is stored, ns of the kernel's clock; people think in time
 * since the trace began (runq step shows both). rel(ts, trace_id) is ts
 * less that trace's start_ts; rel(ts) means --trace's trace. The last
 * trace's start is kept: a query calls it once a row. */
struct rel_cache {
    int64_t trace_id, start_ts; /* trace_id 0: none looked up yet */
    bool scoped;                /* rel(ts) has a trace: --trace's */
    int64_t scoped_start;
};

static void rel_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    struct rel_cache *c = sqlite3_user_data(cx);
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || (argc == 2 && sqlite3_value_type(argv[1]) == SQLITE_NULL)) {
        sqlite3_result_null(cx);
        return;
    }
    int64_t ts = sqlite3_value_int64(argv[0]), start;
    if (argc == 1) {
        if (!c->scoped) {
            sqlite3_result_error(cx, "rel(ts) needs --trace ID; or give the trace: rel(ts, trace_id)", -1);
            return;
        }
        start = c->scoped_start;
    } else {
        int64_t id = sqlite3_value_int64(argv[1]);
        if (id != c->trace_id) {
            sqlite3_stmt *s;
            bool found = false;
            if (sqlite3_prepare_v2(sqlite3_context_db_handle(cx), "SELECT start_ts FROM main.trace WHERE trace_id = ?",
                                   -1, &s, NULL) == SQLITE_OK) {
                sqlite3_bind_int64(s, 1, id);
                if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
                    c->start_ts = sqlite3_column_int64(s, 0);
                    found = true;
                }
                sqlite3_finalize(s);
            }
            if (!found) {
                sqlite3_result_null(cx); /* no such trace, or it has no records yet */
                return;
            }
            c->trace_id = id;
        }
        start = c->start_ts;
    }
    sqlite3_result_int64(cx, ts - start);
}

static int rel_register(sqlite3 *db)
{
    struct rel_cache *c = calloc(1, sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    int rc = sqlite3_create_function_v2(db, "rel", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, c, rel_fn, NULL, NULL, free);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(db, "rel", 1, SQLITE_UTF8, c, rel_fn, NULL, NULL, NULL);
    return rc;
}

/* rel(ts)'s trace, for dbq_scope_trace: the 1-argument function again,
 * with a cache of its own that knows the trace's start. */
static int rel_scope(sqlite3 *db, int64_t trace_id)
{
    sqlite3_stmt *s;
    struct rel_cache *c = calloc(1, sizeof *c);
    if (!c || sqlite3_prepare_v2(db, "SELECT start_ts FROM main.trace WHERE trace_id = ?", -1, &s, NULL) != SQLITE_OK) {
        free(c);
        return SQLITE_ERROR;
    }
    sqlite3_bind_int64(s, 1, trace_id);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        c->scoped = true;
        c->scoped_start = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return sqlite3_create_function_v2(db, "rel", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, c, rel_fn, NULL, NULL, free);
}

sqlite3 *dbq_open(const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen, "%s: no such database (record one with runq record --db %s)", path, path);
        return NULL;
    }
    int probe = recorder_probe_fd(path); /* before SQLite opens it: recorder_lock.h */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        recorder_alive_sql(db, probe) != SQLITE_OK || rel_register(db) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    const char *why = db_unreadable_why(db);
    if (why) {
        snprintf(err, errlen, "%s: %s", path, why);
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

int64_t dbq_latest_trace(sqlite3 *db)
{
    sqlite3_stmt *s;
    int64_t id = 0;
    if (sqlite3_prepare_v2(db, "SELECT MAX(trace_id) FROM main.trace", -1, &s, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(s) == SQLITE_ROW)
        id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return id;
}

/* Whether sql, its parameters bound to the texts a and b (b NULL: only
 * a), gives a row: 1 or 0, or -1 with err. */
static int gives_row(sqlite3 *db, const char *sql, const char *a, const char *b, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_text(s, 1, a, -1, SQLITE_TRANSIENT);
    if (b)
        sqlite3_bind_text(s, 2, b, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int dbq_has_table(sqlite3 *db, const char *name, char *err, size_t errlen)
{
    return gives_row(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?1", name, NULL, err,
                     errlen);
}

int dbq_has_column(sqlite3 *db, const char *table, const char *column, char *err, size_t errlen)
{
    return gives_row(db, "SELECT 1 FROM main.pragma_table_info(?1) WHERE name = ?2", table, column, err, errlen);
}

int dbq_scope_trace(sqlite3 *db, int64_t trace_id, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.trace WHERE trace_id=?", -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s (is it a runq database?)", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(s, 1, trace_id);
    found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (!found) {
        snprintf(err, errlen, "no trace %lld in this database", (long long)trace_id);
        return -1;
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT m.name FROM main.sqlite_master m WHERE m.type IN ('table', 'view') AND EXISTS "
                           "(SELECT 1 FROM pragma_table_info(m.name) WHERE name='trace_id')",
                           -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        char *sql = sqlite3_mprintf("CREATE TEMP VIEW \"%w\" AS SELECT * FROM main.\"%w\" WHERE trace_id=%lld",
                                    t, t, (long long)trace_id);
        char *msg = NULL;
        if (!sql || sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
            snprintf(err, errlen, "%s", msg ? msg : "out of memory");
            rc = -1;
        }
        sqlite3_free(msg);
        sqlite3_free(sql);
    }
    if (rc == 0 && step != SQLITE_DONE) { /* a damaged page: not every table would be scoped */
        snprintf(err, errlen, "reading sqlite_master: %s", sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(s);
    if (rc == 0 && rel_scope(db, trace_id) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        rc = -1;
    }
    return rc;
}

/* ---- output ---- */

void dbq_csv_field(FILE *out, const char *v, bool quote)
{
    if (!quote && !strpbrk(v, ",\"\n\r")) {
        fputs(v, out);
        return;
    }
    fputc('"', out);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', out);
        fputc(*v, out);
    }
    fputc('"', out);
}

/* A JSON string (RFC 8259) of v: the same characters, every control
 * escaped, so the line is valid JSON and a terminal showing it acts on
 * nothing: C0, DEL and the C1 controls as \u00XX, which a parser reads
 * back as the same code points. A byte that is not well-formed UTF-8 has
 * no JSON spelling: it becomes U+FFFD, the replacement character
 * (db/visible.h's test of a character). */
void dbq_json_string(FILE *out, const char *v)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p == '\n') {
            fputs("\\n", out);
        } else if (*p == '\t') {
            fputs("\\t", out);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(out, "\\u%04x", *p);
        } else if (*p < 0x80) {
            fputc(*p, out);
        } else {
            size_t n = text_utf8_len((const char *)p);
            if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) /* a C1 control */
                fprintf(out, "\\u%04x", p[1]);
            else if (n)
                fwrite(p, 1, n, out);
            else
                fputs("\\ufffd", out);
            p += n ? n - 1 : 0;
        }
    }
    fputc('"', out);
}

/* The most of a blob a cell shows, in bytes: a longer one is cut, with its
 * size said (zeroblob(5e8) took minutes to print whole). */
#define BLOB_SHOWN_MAX 1024

/* A value as text; blobs as hex, x'0a1b', at most BLOB_SHOWN_MAX bytes of
 * them. Returns a malloc'd string or NULL (NULL value). */
static char *value_text(sqlite3_stmt *s, int i)
{
    int type = sqlite3_column_type(s, i);
    if (type == SQLITE_NULL)
        return NULL;
    if (type == SQLITE_BLOB) {
        int n = sqlite3_column_bytes(s, i);
        const unsigned char *b = sqlite3_column_blob(s, i);
        int shown = n > BLOB_SHOWN_MAX ? BLOB_SHOWN_MAX : n;
        /* x' + two digits a byte + ' + " (+N of M bytes)" + NUL */
        size_t size = 2 + 2 * (size_t)shown + 1 + 48 + 1;
        char *h = malloc(size);
        if (!h)
            return NULL;
        size_t len = 0;
        h[len++] = 'x';
        h[len++] = '\'';
        for (int k = 0; k < shown; k++) {
            static const char hex[] = "0123456789abcdef";
            h[len++] = hex[b[k] >> 4];
            h[len++] = hex[b[k] & 15];
        }
        h[len++] = '\'';
        if (shown < n)
            len += (size_t)snprintf(h + len, size - len, " (first %d of %d bytes)", shown, n);
        h[len] = '\0';
        return h;
    }
    return strdup((const char *)sqlite3_column_text(s, i));
}

/* v (malloc'd, or NULL) as a table shows it: visible (db/visible.h), since
 * a table is read on a terminal and its text is the database's or the
 * query's. Takes v; returns a malloc'd string, or NULL (v NULL, or *oom
 * set when out of memory). */
static char *visible_dup(char *v, bool *oom)
{
    if (!v)
        return NULL;
    char *d = text_visible_dup(v);
    free(v);
    if (!d)
        *oom = true;
    return d;
}

struct table {
    char **cell; /* rows x cols, NULL = SQL NULL */
    size_t rows, cap;
    int cols;
};

/* Prints the table t of s's rows; -1 when out of memory (nothing printed). */
static int print_table(FILE *out, sqlite3_stmt *s, struct table *t)
{
    size_t *w = calloc((size_t)t->cols, sizeof *w);
    int *num = calloc((size_t)t->cols, sizeof *num);
    char **name = calloc((size_t)t->cols, sizeof *name);
    int rc = w && num && name ? 0 : -1;
    for (int c = 0; c < t->cols && !rc; c++)
        if (!(name[c] = text_visible_dup(sqlite3_column_name(s, c))))
            rc = -1;
    if (rc) {
        for (int c = 0; name && c < t->cols; c++)
            free(name[c]);
        free(w);
        free(num);
        free(name);
        return -1;
    }
    for (int c = 0; c < t->cols; c++) {
        num[c] = 1;
        size_t dec = 0; /* the most decimals a value of the column has */
        for (size_t r = 0; r < t->rows; r++) {
            const char *v = t->cell[r * (size_t)t->cols + (size_t)c];
            if (v && strspn(v, "-0123456789.e+") != strlen(v))
                num[c] = 0;
            const char *dot = v ? strchr(v, '.') : NULL;
            if (dot && !strpbrk(v, "eE") && strlen(dot + 1) > dec)
                dec = strlen(dot + 1);
        }
        /* A numeric column's decimals line up: SQLite prints 50.0 beside
         * 27.147, which right-aligned put the points in different places.
         * Zeros are added to the values with a point, never digits taken
         * away (a value reads as stored); whole numbers stay whole. */
        for (size_t r = 0; num[c] && dec && r < t->rows; r++) {
            char **v = &t->cell[r * (size_t)t->cols + (size_t)c];
            const char *dot = *v ? strchr(*v, '.') : NULL;
            if (!dot || strpbrk(*v, "eE") || strlen(dot + 1) >= dec)
                continue;
            size_t len = strlen(*v), add = dec - strlen(dot + 1);
            char *p = realloc(*v, len + add + 1);
            if (!p)
                continue;
            memset(p + len, '0', add);
            p[len + add] = '\0';
            *v = p;
        }
        w[c] = strlen(name[c]);
        for (size_t r = 0; r < t->rows; r++) {
            const char *v = t->cell[r * (size_t)t->cols + (size_t)c];
            size_t n = v ? strlen(v) : 4;
            if (n > w[c])
                w[c] = n;
        }
    }
    for (int c = 0; c < t->cols; c++)
        fprintf(out, "%s%-*s", c ? "  " : "", c == t->cols - 1 ? 0 : (int)w[c], name[c]);
    fputc('\n', out);
    for (int c = 0; c < t->cols; c++) {
        fprintf(out, "%s", c ? "  " : "");
        for (size_t k = 0; k < w[c]; k++)
            fputc('-', out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->cols; c++) {
            const char *v = t->cell[r * (size_t)t->cols + (size_t)c];
            if (!v)
                v = "NULL";
            if (num[c])
                fprintf(out, "%s%*s", c ? "  " : "", (int)w[c], v);
            else
                fprintf(out, "%s%-*s", c ? "  " : "", c == t->cols - 1 ? 0 : (int)w[c], v);
        }
        fputc('\n', out);
    }
    if (!t->rows)
        fprintf(out, "(no rows)\n");
    for (int c = 0; c < t->cols; c++)
        free(name[c]);
    free(name);
    free(w);
    free(num);
    return 0;
}

/* Runs one prepared statement to the end, printing its rows. 0, or 1
 * with err. */
static int print_stmt(sqlite3 *db, sqlite3_stmt *s, enum dbq_format fmt, FILE *out, char *err, size_t errlen)
{
    int cols = sqlite3_column_count(s), rc;
    struct table t = { .cols = cols };
    size_t nrow = 0;
    bool oom = false;
    if (fmt == DBQ_CSV && cols) {
        for (int c = 0; c < cols; c++) {
            if (c)
                fputc(',', out);
            dbq_csv_field(out, sqlite3_column_name(s, c), false);
        }
        fputc('\n', out);
    }
    if (fmt == DBQ_JSON && cols)
        fputc('[', out);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fmt == DBQ_TABLE) {
            if (t.rows == t.cap) {
                t.cap = t.cap ? t.cap * 2 : 64;
                char **n = realloc(t.cell, t.cap * (size_t)cols * sizeof *n);
                if (!n) {
                    rc = SQLITE_NOMEM;
                    break;
                }
                t.cell = n;
            }
            for (int c = 0; c < cols; c++)
                t.cell[t.rows * (size_t)cols + (size_t)c] = visible_dup(value_text(s, c), &oom);
            t.rows++;
            if (oom) {
                rc = SQLITE_NOMEM;
                break;
            }
            continue;
        }
        if (fmt == DBQ_JSON)
            fputs(nrow ? ",{" : "{", out);
        for (int c = 0; c < cols; c++) {
            char *v = value_text(s, c);
            int type = sqlite3_column_type(s, c);
            if (fmt == DBQ_CSV) {
                if (c)
                    fputc(',', out);
                if (v)
                    dbq_csv_field(out, v, false);
            } else {
                if (c)
                    fputc(',', out);
                dbq_json_string(out, sqlite3_column_name(s, c));
                fputc(':', out);
                if (!v)
                    fputs("null", out);
                else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
                    fputs(v, out);
                else
                    dbq_json_string(out, v);
            }
            free(v);
        }
        fputs(fmt == DBQ_JSON ? "}" : "\n", out);
        nrow++;
    }
    if (fmt == DBQ_JSON && cols)
        fputs("]\n", out);
    if (fmt == DBQ_TABLE && cols && rc == SQLITE_DONE && print_table(out, s, &t) != 0)
        rc = SQLITE_NOMEM;
    for (size_t k = 0; k < t.rows * (size_t)cols; k++)
        free(t.cell[k]);
    free(t.cell);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
        return 1;
    }
    return 0;
}

int dbq_run(sqlite3 *db, const char *sql, enum dbq_format fmt, FILE *out, char *err, size_t errlen)
{
    const char *tail = sql;
    int n = 0;
    while (tail && *tail) {
        sqlite3_stmt *s = NULL;
        const char *next;
        if (sqlite3_prepare_v2(db, tail, -1, &s, &next) != SQLITE_OK) {
            snprintf(err, errlen, "%s", sqlite3_errmsg(db));
            return 1;
        }
        tail = next;
        if (!s)
            continue; /* whitespace or a comment */
        if (!sqlite3_stmt_readonly(s)) {
            snprintf(err, errlen, "only read-only statements are allowed: %.60s", sqlite3_sql(s));
            sqlite3_finalize(s);
            return 2;
        }
        if (n++ && fmt == DBQ_TABLE)
            fputc('\n', out);
        int rc = print_stmt(db, s, fmt, out, err, errlen);
        sqlite3_finalize(s);
        if (rc)
            return rc;
    }
    return 0;
}

int dbq_first(sqlite3 *db, const char *sql, char *text, size_t textlen, int64_t *ival, bool *is_int, char *err,
              size_t errlen)
{
    BUG_ON(!db || !sql || !text || !textlen);
    sqlite3_stmt *st;
    const char *tail = NULL;
    text[0] = 0;
    if (is_int)
        *is_int = false;
    if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    if (!st) {
        snprintf(err, errlen, "no statement");
        return -1;
    }
    if (!sqlite3_stmt_readonly(st)) {
        sqlite3_finalize(st);
        snprintf(err, errlen, "the statement would write; only reading is allowed");
        return -1;
    }
    int rc = 0;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        snprintf(text, textlen, "%s", (const char *)sqlite3_column_text(st, 0));
        if (sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
            if (ival)
                *ival = sqlite3_column_int64(st, 0);
            if (is_int)
                *is_int = true;
        }
        rc = 1;
    } else if (step != SQLITE_ROW && step != SQLITE_DONE) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}
