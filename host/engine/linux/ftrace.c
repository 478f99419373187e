/*
 * Linux's trace ring buffer pages (the layout and its sources are in
 * ftrace.h). Everything here reads bytes that came from outside: each
 * length is checked against what is left before it is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/engine/linux/ftrace.h"

/* ---- format files ---- */

/* One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line into fl.
 * NAME is the last word of the declaration, its array suffix dropped. */
static bool parse_field_line(const char *line, struct ftrace_field *fl)
{
    const char *decl = strstr(line, "field:");
    if (!decl)
        return false;
    decl += strlen("field:");
    const char *semi = strchr(decl, ';');
    if (!semi)
        return false;
    const char *end = semi;
    /* "char prev_comm[16]" and "__data_loc char[] comm": the brackets
     * after the name go, those before it belong to the type */
    const char *br = memchr(decl, '[', (size_t)(end - decl));
    while (end > decl && end[-1] == ' ')
        end--;
    if (br && end > decl && end[-1] == ']') {
        const char *b = end - 1;
        while (b > decl && *b != '[')
            b--;
        end = b;
    }
    const char *start = end;
    while (start > decl && start[-1] != ' ' && start[-1] != '\t')
        start--;
    size_t n = (size_t)(end - start);
    if (n == 0 || n >= FTRACE_NAME_MAX)
        return false;
    const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:"), *g = strstr(semi, "signed:");
    if (!o || !s)
        return false;
    char *e;
    unsigned long off = strtoul(o + strlen("offset:"), &e, 10), size = strtoul(s + strlen("size:"), &e, 10);
    if (off > 65535 || size > 65535)
        return false;
    memset(fl, 0, sizeof *fl);
    memcpy(fl->name, start, n);
    fl->offset = (unsigned)off;
    fl->size = (unsigned)size;
    fl->is_signed = g && g[strlen("signed:")] == '1';
    fl->data_loc = strstr(decl, "__data_loc") && strstr(decl, "__data_loc") < semi;
    return true;
}

int ftrace_format_parse(const char *text, struct ftrace_format *f)
{
    memset(f, 0, sizeof *f);
    bool have_id = false;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        if (n >= sizeof line)
            n = sizeof line - 1; /* a longer line is a print fmt: not needed */
        memcpy(line, p, n);
        line[n] = '\0';
        if (strncmp(line, "ID:", 3) == 0) {
            char *e;
            unsigned long id = strtoul(line + 3, &e, 10);
            have_id = e != line + 3 && id <= 65535;
            f->id = (unsigned)id;
        } else if (f->nfields < FTRACE_MAX_FIELDS && parse_field_line(line, &f->field[f->nfields])) {
            f->nfields++;
        }
        p = nl ? nl + 1 : NULL;
    }
    return have_id && f->nfields ? 0 : -1;
}

const struct ftrace_field *ftrace_field_find(const struct ftrace_format *f, const char *name)
{
    for (unsigned i = 0; i < f->nfields; i++)
        if (strcmp(f->field[i].name, name) == 0)
            return &f->field[i];
    return NULL;
}

/* Little-endian unsigned of n (1..8) bytes at p. */
static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

bool ftrace_get_int(const struct ftrace_field *fl, const uint8_t *data, size_t len, int64_t *out)
{
    unsigned n = fl->size;
    if ((n != 1 && n != 2 && n != 4 && n != 8) || fl->offset > len || len - fl->offset < n)
        return false;
    uint64_t v = le(data + fl->offset, n);
    if (fl->is_signed && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    *out = (int64_t)v;
    return true;
}

bool ftrace_get_str(const struct ftrace_field *fl, const uint8_t *data, size_t len, char *out, size_t outlen)
{
    size_t off = fl->offset, n = fl->size;
    if (fl->data_loc) {
        if (fl->size != 4 || off > len || len - off < 4)
            return false;
        uint32_t loc = (uint32_t)le(data + off, 4);
        off = loc & 0xffff;
        n = loc >> 16;
    }
    if (off > len || len - off < n || outlen == 0)
        return false;
    size_t k = strnlen((const char *)data + off, n);
    if (k >= outlen)
        k = outlen - 1;
    memcpy(out, data + off, k);
    out[k] = '\0';
    return true;
}

/* ---- the page header ---- */

int ftrace_page_layout_parse(const char *text, unsigned page_size, struct ftrace_page_layout *l)
{
    struct ftrace_format f;
    memset(l, 0, sizeof *l);
    /* header_page has no ID line: parse it as fields only */
    memset(&f, 0, sizeof f);
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[256];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        if (f.nfields < FTRACE_MAX_FIELDS && parse_field_line(line, &f.field[f.nfields]))
            f.nfields++;
        p = nl ? nl + 1 : NULL;
    }
    const struct ftrace_field *ts = ftrace_field_find(&f, "timestamp"), *commit = ftrace_field_find(&f, "commit"),
                              *data = ftrace_field_find(&f, "data");
    if (!ts || !commit || !data || ts->size != 8 || (commit->size != 4 && commit->size != 8))
        return -1;
    if (ts->offset + 8 > data->offset || commit->offset + commit->size > data->offset || data->offset >= page_size)
        return -1;
    l->ts_off = ts->offset;
    l->commit_off = commit->offset;
    l->commit_size = commit->size;
    l->data_off = data->offset;
    l->page_size = page_size;
    return 0;
}

/* ---- decoding ---- */

#define RB_MISSED_EVENTS (1ull << 31)
#define RB_MISSED_STORED (1ull << 30)
#define RB_COMMIT_MASK ((1ull << 30) - 1)
#define TS_SHIFT 27
#define TS_MSB (0xf8ull << 56) /* the bits an absolute time stamp cannot hold */
enum { TYPE_DATA_MAX = 28, TYPE_PADDING = 29, TYPE_TIME_EXTEND = 30, TYPE_TIME_STAMP = 31 };

/* Walks the events; -1 at the first thing a writer cannot have made. */
static int walk(const uint8_t *d, size_t len, uint64_t ts, uint64_t page_ts, struct ftrace_event *out)
{
    int nev = 0;
    size_t pos = 0;
    while (pos < len) {
        if (len - pos < 4)
            return -1;
        uint32_t w = (uint32_t)le(d + pos, 4);
        unsigned type = w & 31u, delta = w >> 5;
        /* array[0], where the type has one */
        bool has_arr = len - pos >= 8;
        uint32_t a0 = has_arr ? (uint32_t)le(d + pos + 4, 4) : 0;
        size_t size;
        if (type == 0) {
            if (!has_arr || a0 < 4 || a0 > len - pos - 4)
                return -1;
            size = 4 + (size_t)a0;
            ts += delta;
            out[nev++] = (struct ftrace_event){ .ts = ts, .data = d + pos + 8, .len = a0 - 4 };
        } else if (type <= TYPE_DATA_MAX) {
            size = 4 + 4 * (size_t)type;
            if (size > len - pos)
                return -1;
            ts += delta;
            out[nev++] = (struct ftrace_event){ .ts = ts, .data = d + pos + 4, .len = 4 * type };
        } else if (type == TYPE_PADDING) {
            if (delta == 0)
                break; /* the rest of the page is padding */
            if (!has_arr || a0 > len - pos - 4)
                return -1;
            size = 4 + (size_t)a0;
            if (size < 8)
                return -1; /* a discarded event has at least its header and length */
        } else {
            if (!has_arr)
                return -1;
            size = 8;
            uint64_t v = ((uint64_t)a0 << TS_SHIFT) | delta;
            if (type == TYPE_TIME_EXTEND) {
                ts += v;
            } else {
                /* The stamp holds 59 bits; a clock whose top bits are set
                 * lends them from the page's stamp, carrying if it wrapped. */
                if (page_ts & TS_MSB) {
                    v |= page_ts & TS_MSB;
                    if (v < page_ts)
                        v += 1ull << 59;
                }
                ts = v;
            }
        }
        pos += (size + 3) & ~(size_t)3;
    }
    return nev;
}

int ftrace_page_decode(const struct ftrace_page_layout *l, const uint8_t *page, size_t n, struct ftrace_event *out,
                       struct ftrace_page_loss *loss, struct ftrace_stats *st)
{
    loss->lost = false;
    loss->missed = 0;
    if (st)
        st->pages++;
    if (n < l->data_off || n > l->page_size) {
        if (st)
            st->pages_malformed++;
        return -1;
    }
    uint64_t page_ts = le(page + l->ts_off, 8);
    uint64_t commit = le(page + l->commit_off, l->commit_size);
    size_t len = (size_t)(commit & RB_COMMIT_MASK), room = n - l->data_off;
    const uint8_t *d = page + l->data_off;
    int nev = -1;
    if (commit & RB_MISSED_EVENTS) {
        loss->lost = true;
        /* the count sits right after the events, when there was room */
        if ((commit & RB_MISSED_STORED) && len <= room && room - len >= 8)
            loss->missed = le(d + len, 8);
        if (st && (commit & RB_MISSED_STORED) && len <= room && room - len >= 8)
            st->missed += loss->missed;
        else if (st)
            st->pages_missed_unknown++;
    }
    if (len <= room)
        nev = walk(d, len, page_ts, page_ts, out);
    if (st && nev < 0)
        st->pages_malformed++;
    if (st && nev > 0)
        st->events += (uint64_t)nev;
    return nev;
}
