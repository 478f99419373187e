/*
 * Linux's binary trace ring buffer, as tracefs hands it out: the layout of
 * an event (its `format` file), the layout of a page (events/header_page),
 * and the decoding of one page read from per_cpu/cpuN/trace_pipe_raw.
 * Only what the files say is trusted, and a page is hostile input: a
 * length past its end or a header that cannot be is counted and the page
 * skipped whole, never read past.
 *
 * A page, as kernel/trace/ring_buffer.c writes it (read, not copied):
 *
 *     u64     timestamp   the clock at the page's first event
 *     local_t commit      bytes of events; bit 31 RB_MISSED_EVENTS: events
 *                         were lost before this page; bit 30
 *                         RB_MISSED_STORED: their count (an unsigned long)
 *                         follows the events
 *     data                events, back to back, 4-byte aligned
 *
 * and an event starts with a 32-bit word, type_len:5 (low bits) and
 * time_delta:27, then array[]:
 *
 *     type_len 0       data of array[0] - 4 bytes, from array[1]
 *     type_len 1..28   data of type_len * 4 bytes, from array[0]
 *     type_len 29      padding: to the page's end if time_delta is 0, else
 *                      array[0] + 4 bytes (a discarded event)
 *     type_len 30      time extend: the clock moves on by
 *                      array[0] << 27 | time_delta (8 bytes)
 *     type_len 31      absolute time stamp array[0] << 27 | time_delta,
 *                      the top 5 bits taken from the page's (8 bytes)
 *
 * A data event's time is the running clock plus its time_delta.
 */
#ifndef RUNQ_LINUX_FTRACE_H
#define RUNQ_LINUX_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- an event's layout ---- */

#define FTRACE_NAME_MAX 32
#define FTRACE_MAX_FIELDS 32

struct ftrace_field {
    char name[FTRACE_NAME_MAX];
    unsigned offset, size;
    bool is_signed;
    bool data_loc; /* __data_loc: a u32 whose low 16 bits are the offset, high 16 the length */
};

struct ftrace_format {
    unsigned id; /* common_type of its events */
    unsigned nfields;
    struct ftrace_field field[FTRACE_MAX_FIELDS];
};

/* Parses a `format` file's text into f (its "ID:" line and each "field:"
 * line; names longer than FTRACE_NAME_MAX and fields beyond
 * FTRACE_MAX_FIELDS are skipped). 0, or -1 when it has no ID or no field. */
int ftrace_format_parse(const char *text, struct ftrace_format *f);

/* The field called name, or NULL. */
const struct ftrace_field *ftrace_field_find(const struct ftrace_format *f, const char *name);

/* The integer in field fl of an event's data (len bytes), sign-extended
 * if the format says signed. false when the field lies past len or is
 * not 1, 2, 4 or 8 bytes. */
bool ftrace_get_int(const struct ftrace_field *fl, const uint8_t *data, size_t len, int64_t *out);

/* The string in field fl (char[N], or __data_loc char[]) into out,
 * terminated, cut to outlen - 1. false when it lies past len. */
bool ftrace_get_str(const struct ftrace_field *fl, const uint8_t *data, size_t len, char *out, size_t outlen);

/* ---- a page's layout ---- */

struct ftrace_page_layout {
    unsigned ts_off, commit_off, commit_size, data_off;
    unsigned page_size; /* header + data: what one read of trace_pipe_raw returns */
};

/* Parses events/header_page's text; page_size is buffer_subbuf_size_kb
 * in bytes. 0, or -1 when a field is missing or does not fit the page. */
int ftrace_page_layout_parse(const char *text, unsigned page_size, struct ftrace_page_layout *l);

/* ---- decoding a page ---- */

struct ftrace_event {
    uint64_t ts;
    const uint8_t *data; /* into the page */
    uint32_t len;        /* bytes of data (rounded up to 4 by the ring) */
};

/* The most events a page of page_size bytes can hold (each is >= 8 bytes). */
#define FTRACE_MAX_EVENTS(page_size) ((page_size) / 8u + 1u)

/* What the pages decoded so far held. */
struct ftrace_stats {
    uint64_t pages, pages_malformed, events;
    uint64_t missed;            /* events the kernel said it lost (stored counts) */
    uint64_t pages_missed_unknown; /* pages after a loss whose count was not stored */
};

/* What one page said about loss before it. */
struct ftrace_page_loss {
    bool lost;       /* events were lost before this page */
    uint64_t missed; /* how many, when the kernel stored the count; else 0 */
};

/* Decodes the n bytes at page (one read of trace_pipe_raw) into out[],
 * which has room for FTRACE_MAX_EVENTS(l->page_size) events, in the
 * page's order (time order). Returns the number of data events, or -1 for
 * a malformed page (nothing of it is to be used). *loss says what was lost
 * before the page, also for a malformed one whose header could be read.
 * st (may be NULL) counts pages, malformed pages, events and loss. */
int ftrace_page_decode(const struct ftrace_page_layout *l, const uint8_t *page, size_t n, struct ftrace_event *out,
                       struct ftrace_page_loss *loss, struct ftrace_stats *st);

#endif
