/*
 * Text made visible (contract in visible.h).
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "db/visible.h"

size_t text_utf8_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    if (c >= 0xc2 && c <= 0xdf)
        return (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
    }
    return 0;
}

size_t text_visible(char *out, size_t len, const char *s)
{
    assert(out && len >= 1);
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t need = 0, at = 0; /* need: the whole result; at: what fits in out */
    bool full = false;
    while (*p) {
        char esc[4];
        const char *piece = (const char *)p;
        size_t n = 1, u = *p >= 0x80 ? text_utf8_len((const char *)p) : 0;
        /* A C1 control is well-formed UTF-8 (c2 80..c2 9f): it is shown as
         * its code point's escape, as a raw 0x80..0x9f byte is. */
        bool c1 = u == 2 && p[0] == 0xc2 && p[1] <= 0x9f;
        if (u && !c1) {
            n = u;
        } else if (*p < 0x20 || *p >= 0x7f) {
            unsigned b = c1 ? p[1] : *p;
            esc[0] = '\\';
            esc[1] = 'x';
            esc[2] = hex[b >> 4];
            esc[3] = hex[b & 15];
            piece = esc;
            n = 4;
        }
        if (!full && at + n < len) {
            memcpy(out + at, piece, n);
            at += n;
        } else {
            full = true; /* nothing after a piece that did not fit: no holes */
        }
        need += n;
        p += u ? u : 1;
    }
    out[at] = '\0';
    return need;
}

char *text_visible_dup(const char *s)
{
    char one;
    size_t need = text_visible(&one, 1, s);
    char *d = malloc(need + 1);
    if (d)
        text_visible(d, need + 1, s);
    return d;
}
