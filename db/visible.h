/*
 * Text from a database made safe to show on a terminal. A trace is a file
 * that people share, and every name in it (a task's, a mark's, a policy's)
 * was written by whoever made the file: printed raw, "\x1b[2J" clears the
 * screen and "\x1b]0;...\x07" retitles the window. Every reader that shows
 * database text on a terminal (runq step, top, report, sql's table) passes
 * it through text_visible; what goes to a file for a program (CSV, JSON)
 * stays the data.
 */
#ifndef RUNQ_DB_VISIBLE_H
#define RUNQ_DB_VISIBLE_H

#include <stddef.h>

/*
 * Copies s into out (len bytes, len >= 1; always NUL-terminated) with every
 * byte a terminal would act on, or could not show, written as \xHH
 * (lower-case hex): the C0 controls (below 0x20, tab and newline too), DEL
 * (0x7f), the C1 controls U+0080..U+009F (whose UTF-8 is c2 80..c2 9f, and
 * which some terminals take as CSI, OSC, ...) and every byte that is not
 * part of well-formed UTF-8 (a lone 0x9b is CSI to a Latin-1 terminal).
 * Printable ASCII and well-formed UTF-8 of other characters are kept, so a
 * name in Greek reads as Greek. A backslash stays a backslash: the result
 * is for reading, not for parsing back.
 *
 * Like snprintf, returns the length of the whole result (without the NUL)
 * whatever len is; the copy is cut at len - 1 bytes, never inside an
 * escape or a character. s NULL is "".
 */
size_t text_visible(char *out, size_t len, const char *s);

/* text_visible of s (NULL: "") in a string of its own, from malloc; NULL
 * only when memory is out. */
char *text_visible_dup(const char *s);

/* The length in bytes of the well-formed UTF-8 character (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF) that s starts with,
 * or 0 when s does not start with one or starts with ASCII. For a writer
 * that spells the others its own way (JSON). */
size_t text_utf8_len(const char *s);

#endif
