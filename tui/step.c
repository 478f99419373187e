/*
 * The `runq step` model: cursor, commands, the view as lines, and the
 * explanation of a pick. Contract in step.h.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "bug.h"
#include "db/derive.h"
#include "db/readable.h"
#include "db/visible.h"
#include "db/vtime.h"
#include "host/base/xalloc.h"
#include "tui/step.h"

void step_text_add(struct step_text *t, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    BUG_ON(n < 0); /* only a format this file wrote wrong fails */
    char *line = xmalloc((size_t)n + 1);
    vsnprintf(line, (size_t)n + 1, fmt, again);
    va_end(again);
    va_end(ap);
    /* Names in a line come from the database: made visible here, where
     * every line of both fronts is made (db/visible.h). */
    char *shown = text_visible_dup(line);
    free(line);
    if (!(line = shown)) {
        fprintf(stderr, "runq: out of memory\n");
        exit(1);
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->line = xreallocarray(t->line, (size_t)t->cap, sizeof *t->line);
    }
    t->line[t->n++] = line;
}

void step_text_free(struct step_text *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->line[i]);
    free(t->line);
    memset(t, 0, sizeof *t);
}

/* ns (real or virtual) as µs with three decimals, signed; rotating buffers. */
static const char *us(int64_t ns)
{
    static char buf[16][32];
    static int k;
    char *b = buf[k++ % 16];
    uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    snprintf(b, sizeof buf[0], "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000));
    return b;
}

static const char *sus(int64_t ns) /* with a sign always */
{
    static char buf[8][34];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%s%s", ns >= 0 ? "+" : "", us(ns));
    return b;
}

static int open_view(struct step_view *v, const char *path, int64_t id)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "runq step: %s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    const char *why = db_unreadable_why(db);
    if (why) {
        fprintf(stderr, "runq step: %s: %s\n", path, why);
        sqlite3_close(db);
        return -1;
    }
    char err[256];
    int rc = replay_load(&v->rp, db, id, err, sizeof err);
    sqlite3_close(db);
    if (rc) {
        fprintf(stderr, "runq step: %s: %s\n", path, err);
        return -1;
    }
    if (replay_state_init(&v->rp, &v->st) != 0) {
        fprintf(stderr, "runq step: %s: out of memory\n", path);
        replay_free(&v->rp);
        return -1;
    }
    v->cur = -1;
    const struct events *tr = &v->rp.tr;
    if (strcmp(tr->engine, "runq-kernel") != 0) /* not runq's own kernel: say whose */
        snprintf(v->label, sizeof v->label, "trace %lld (%s%s%s, %s)", (long long)tr->trace_id, tr->engine,
                 tr->engine_version[0] ? " " : "", tr->engine_version, tr->policy);
    else
        snprintf(v->label, sizeof v->label, "trace %lld (%s)", (long long)tr->trace_id, tr->policy);
    return 0;
}

int step_open(struct step *s, const char *db, int64_t a_id, const char *b_db, int64_t b_id)
{
    memset(s, 0, sizeof *s);
    s->focus_cpu = -1;
    for (int i = 0; i < STEP_MARKS; i++)
        s->marks[i] = -1;
    if (open_view(&s->v[0], db, a_id))
        return -1;
    s->nviews = 1;
    if (b_id >= 0) {
        if (open_view(&s->v[1], b_db ? b_db : db, b_id)) {
            step_close(s);
            return -1;
        }
        s->nviews = 2;
    }
    step_goto(s, s->v[0].rp.tr.nev ? 0 : -1);
    return 0;
}

void step_close(struct step *s)
{
    for (int k = 0; k < s->nviews; k++) {
        replay_state_free(&s->v[k].st);
        replay_free(&s->v[k].rp);
    }
    s->nviews = 0;
}

static void view_goto(struct step_view *v, int i)
{
    if (i >= v->rp.tr.nev)
        i = v->rp.tr.nev - 1;
    if (i < -1)
        i = -1;
    v->cur = i;
    replay_seek(&v->rp, &v->st, i + 1);
}

/* The first MARK called name in v's trace, or -1. */
static int first_mark(const struct step_view *v, const char *name)
{
    for (int i = 0; i < v->rp.tr.nev; i++)
        if (v->rp.tr.ev[i].kind == EVENT_MARK && v->rp.tr.ev[i].mark.name &&
            !strcmp(v->rp.tr.ev[i].mark.name, name))
            return i;
    return -1;
}

/* Whether event i of v wakes the task called name. */
static bool wakes(const struct step_view *v, int i, const char *name)
{
    const struct event *e = &v->rp.tr.ev[i];
    if (e->kind != EVENT_WAKE)
        return false;
    /* "io1/3" is io1 with tid 3: the name alone matches it in either run. */
    const char *n = replay_name(&v->rp, e->wake.utid);
    size_t len = strlen(name);
    return !strcmp(n, name) || (!strncmp(n, name, len) && n[len] == '/');
}

/* The event of b that is "the same moment" as a's current one. Two runs
 * drift apart in time (one more decision shifts every later event), so
 * time is not always the right key: a mark both runs put at the same
 * point of their work, or the Nth wakeup of one task, lines them up where
 * it matters. */
static int aligned(const struct step *s, const struct step_view *a, const struct step_view *b)
{
    if (a->cur < 0)
        return -1;
    const struct event *e = &a->rp.tr.ev[a->cur];
    switch (s->align) {
    case STEP_ALIGN_EVENT:
        return a->cur < b->rp.tr.nev ? a->cur : b->rp.tr.nev - 1;
    case STEP_ALIGN_MARK: {
        int ma = first_mark(a, s->align_arg), mb = first_mark(b, s->align_arg);
        if (ma < 0 || mb < 0)
            return -1;
        /* ts are the database's: a difference or a sum past the int64
         * range is no moment of b; one past either end of b finds its
         * end (or nothing before its start) */
        int64_t d;
        if (!rp_ts_sub(e->ts, a->rp.tr.ev[ma].ts, &d))
            return d < 0 ? -1 : b->rp.tr.nev - 1;
        return events_find_ts(&b->rp.tr, rp_ts_add_sat(rp_ts_add_sat(b->rp.tr.ev[mb].ts, d), 1)) - 1;
    }
    case STEP_ALIGN_WAKE: {
        int n = 0;
        for (int i = 0; i <= a->cur; i++)
            n += wakes(a, i, s->align_arg);
        if (n == 0)
            return -1;
        for (int i = 0; i < b->rp.tr.nev; i++)
            if (wakes(b, i, s->align_arg) && --n == 0)
                return i;
        return b->rp.tr.nev - 1; /* b woke it fewer times: its end */
    }
    case STEP_ALIGN_TIME:
    default:
        /* the last event of b at or before the same time since its start */
    {
        int64_t d;
        if (!rp_ts_sub(e->ts, a->rp.tr.start_ts, &d)) /* the database's ts, too far to subtract */
            return e->ts < a->rp.tr.start_ts ? -1 : b->rp.tr.nev - 1;
        return events_find_ts(&b->rp.tr, rp_ts_add_sat(rp_ts_add_sat(b->rp.tr.start_ts, d), 1)) - 1;
    }
    }
}

void step_goto(struct step *s, int i)
{
    view_goto(&s->v[0], i);
    if (s->nviews == 2)
        view_goto(&s->v[1], aligned(s, &s->v[0], &s->v[1]));
}

int step_set_align(struct step *s, const char *how, char *msg, size_t msglen)
{
    char word[16] = "", arg[64] = "";
    if (sscanf(how, "%15s %63s", word, arg) < 1)
        word[0] = 0;
    enum step_align a;
    if (!strcmp(word, "time") && !arg[0])
        a = STEP_ALIGN_TIME;
    else if (!strcmp(word, "event") && !arg[0])
        a = STEP_ALIGN_EVENT;
    else if (!strcmp(word, "mark") && arg[0])
        a = STEP_ALIGN_MARK;
    else if (!strcmp(word, "wake") && arg[0])
        a = STEP_ALIGN_WAKE;
    else {
        snprintf(msg, msglen, "align by time, event, mark NAME or wake TASK, not '%s'", how);
        return -1;
    }
    if (strlen(arg) >= sizeof s->align_arg) {
        snprintf(msg, msglen, "align: the name '%s' is too long", arg);
        return -1;
    }
    for (int k = 0; k < s->nviews && (a == STEP_ALIGN_MARK || a == STEP_ALIGN_WAKE); k++) {
        bool found = false;
        for (int i = 0; i < s->v[k].rp.tr.nev && !found; i++)
            found = a == STEP_ALIGN_MARK ? s->v[k].rp.tr.ev[i].kind == EVENT_MARK && s->v[k].rp.tr.ev[i].mark.name &&
                                               !strcmp(s->v[k].rp.tr.ev[i].mark.name, arg)
                                         : wakes(&s->v[k], i, arg);
        if (!found) {
            snprintf(msg, msglen, "align: %s has no %s '%s'", s->v[k].label, a == STEP_ALIGN_MARK ? "mark" : "wakeup of",
                     arg);
            return -1;
        }
    }
    s->align = a;
    memcpy(s->align_arg, arg, strlen(arg) + 1); /* it fits: checked above */
    step_goto(s, s->v[0].cur);
    return 0;
}

static int focus_of(const struct step *s, const struct step_view *v)
{
    if (s->focus_cpu >= 0)
        return s->focus_cpu;
    if (v->cur >= 0 && v->rp.tr.ev[v->cur].cpu >= 0)
        return v->rp.tr.ev[v->cur].cpu;
    return 0;
}

/* Parses "123", "123us", "12.5ms", "1.5s", "800ns" into ns; a bare number
 * is in unit_ns (1000: us). */
static int parse_time(const char *str, double unit_ns, int64_t *ns)
{
    char *end;
    if (*str == '-' || *str == '+')
        return -1;
    double x = strtod(str, &end);
    if (end == str)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    double mul = unit_ns;
    if (!strcmp(end, "ns"))
        mul = 1;
    else if (!*end)
        mul = unit_ns;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (!strcmp(end, "ms"))
        mul = 1e6;
    else if (!strcmp(end, "s"))
        mul = 1e9;
    else
        return -1;
    *ns = (int64_t)(x * mul + 0.5);
    return 0;
}

static int search(struct step *s, const char *text, int dir)
{
    struct step_view *v = &s->v[0];
    char line[512];
    for (int i = v->cur + dir; i >= 0 && i < v->rp.tr.nev; i += dir) {
        replay_describe(&v->rp, i, line, sizeof line);
        if (strcasestr(line, text))
            return i;
    }
    return -2;
}

static int next_pick(const struct step *s, int dir)
{
    const struct step_view *v = &s->v[0];
    int cpu = focus_of(s, v);
    for (int i = v->cur + dir; i >= 0 && i < v->rp.tr.nev; i += dir)
        if (v->rp.tr.ev[i].kind == EVENT_PICK && v->rp.tr.ev[i].cpu == cpu)
            return i;
    return -2;
}

/* ---- the commands: one table for the interpreter, the keys and the help ---- */

/* n [K], p [K]: K events on or back. */
static int cmd_next(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    struct step_view *v = &s->v[0];
    long k = *arg ? strtol(arg, NULL, 10) : 1;
    if (k < 1)
        k = 1;
    long to = v->cur + (key == 'n' ? k : -k);
    if (to >= v->rp.tr.nev)
        to = v->rp.tr.nev - 1;
    if (to < 0)
        to = 0;
    if (to == v->cur) {
        snprintf(msg, msglen, key == 'n' ? "at the last event" : "at the first event");
        return -1;
    }
    step_goto(s, (int)to);
    return 0;
}

/* N, P: the next or previous pick on the focus CPU. */
static int cmd_pick(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)arg;
    int to = next_pick(s, key == 'N' ? 1 : -1);
    if (to < 0) {
        snprintf(msg, msglen, "no %s pick on cpu%d", key == 'N' ? "later" : "earlier", focus_of(s, &s->v[0]));
        return -1;
    }
    step_goto(s, to);
    return 0;
}

/* b TIME. Two time bases, never guessed: +T (or a bare T) counts from
 * the trace's start, in us unless a unit says; @T is absolute, SQL's ts,
 * in ns unless a unit says. A time past the trace's end is an error, not
 * its last event: that is how an absolute ts typed without @ used to
 * land silently somewhere else. */
static int cmd_time(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)key;
    struct step_view *v = &s->v[0];
    int64_t ns, start = (int64_t)v->rp.tr.start_ts, end = v->rp.tr.nev ? v->rp.tr.ev[v->rp.tr.nev - 1].ts : start;
    bool abs = *arg == '@';
    const char *t = *arg == '@' || *arg == '+' ? arg + 1 : arg;
    if (parse_time(t, abs ? 1 : 1e3, &ns)) {
        snprintf(msg, msglen, "b TIME: +T from the trace's start (1500, 1500us, 12.5ms, 1s) or @T absolute as "
                              "SQL's ts (@196052144, @196.05ms), not '%s'", arg);
        return -1;
    }
    /* start and end are the database's: sums and differences with
     * them may leave the int64 range, and then show "?" */
    int64_t at = abs ? ns : rp_ts_add_sat(start, ns), d;
    if (at < start || at > end) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%s", rp_ts_sub(at, start, &d) ? us(d) : "?");
        snprintf(b, sizeof b, "%s", rp_ts_sub(end, start, &d) ? us(d) : "?");
        snprintf(msg, msglen, "b %s: @%lld is +%sus from the start, outside the trace (+0 to +%sus, @%lld to "
                              "@%lld)%s", arg, (long long)at, a, b, (long long)start, (long long)end,
                 abs ? "" : "; an absolute ts takes @");
        return -1;
    }
    int to = events_find_ts(&v->rp.tr, (uint64_t)at + 1) - 1;
    step_goto(s, to < 0 ? 0 : to);
    return 0;
}

static int cmd_align(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)key;
    return step_set_align(s, arg, msg, msglen);
}

static int cmd_goto(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)key;
    struct step_view *v = &s->v[0];
    char *end;
    long k = strtol(arg, &end, 10);
    if (end == arg || k < 0 || k >= v->rp.tr.nev) {
        snprintf(msg, msglen, "g N: an event number 0..%d", v->rp.tr.nev - 1);
        return -1;
    }
    step_goto(s, (int)k);
    return 0;
}

/* / TEXT, ? TEXT: without TEXT, the last one again. */
static int cmd_search(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    if (*arg)
        snprintf(s->last_search, sizeof s->last_search, "%s", arg);
    if (!s->last_search[0]) {
        snprintf(msg, msglen, "/ TEXT: search for a task or an event type");
        return -1;
    }
    int to = search(s, s->last_search, key == '/' ? 1 : -1);
    if (to < 0) {
        snprintf(msg, msglen, "'%s' not found", s->last_search);
        return -1;
    }
    step_goto(s, to);
    return 0;
}

/* m [A] sets mark A at the event shown, ' [A] returns to it. */
static int cmd_mark(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    struct step_view *v = &s->v[0];
    int m = *arg ? tolower((unsigned char)*arg) - 'a' : 0;
    if (m < 0 || m >= STEP_MARKS) {
        snprintf(msg, msglen, "marks are a..z");
        return -1;
    }
    if (key == 'm') {
        s->marks[m] = v->cur;
        snprintf(msg, msglen, "mark %c at event %d", 'a' + m, v->cur);
        return 0;
    }
    if (s->marks[m] < 0) {
        snprintf(msg, msglen, "mark %c is not set", 'a' + m);
        return -1;
    }
    step_goto(s, s->marks[m]);
    return 0;
}

static int cmd_cpu(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)key;
    if (*arg == '-') {
        s->focus_cpu = -1;
        return 0;
    }
    char *end;
    long k = strtol(arg, &end, 10);
    if (end == arg || k < 0 || k >= s->v[0].rp.tr.ncpus) {
        snprintf(msg, msglen, "c N: a CPU 0..%d, or c - to follow the events", s->v[0].rp.tr.ncpus - 1);
        return -1;
    }
    s->focus_cpu = (int)k;
    return 0;
}

static int cmd_rewind(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)key, (void)arg, (void)msg, (void)msglen;
    step_goto(s, 0);
    return 0;
}

static int cmd_quit(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)key, (void)arg, (void)msg, (void)msglen;
    s->quit = true;
    return 0;
}

/* The terminal's scroll keys: half its height, or a line. */
static int cmd_scroll(struct step *s, int key, const char *arg, char *msg, size_t msglen)
{
    (void)arg, (void)msg, (void)msglen;
    int half = s->rows / 2;
    if (key == ' ' || key == STEP_KEY_PGDN)
        s->scroll += half;
    else if (key == STEP_KEY_PGUP)
        s->scroll = s->scroll > half ? s->scroll - half : 0;
    else if (key == STEP_KEY_DOWN || key == 'j')
        s->scroll++;
    else if (s->scroll)
        s->scroll--;
    return 0;
}

const struct step_cmd step_cmds[] = {
#define STEP_CMD_ROW(word, key, key2, arg, syntax, prompt, label, keep, help, act) \
    { word, { word, key, key2 }, arg, syntax, prompt, label, keep, help, act },
    STEP_COMMANDS(STEP_CMD_ROW)
#undef STEP_CMD_ROW
};
const size_t step_ncmds = sizeof step_cmds / sizeof step_cmds[0];

const struct step_cmd *step_cmd_of_key(int key)
{
    for (size_t i = 0; key && i < step_ncmds; i++)
        for (int k = 0; k < 3; k++)
            if (step_cmds[i].keys[k] == key)
                return &step_cmds[i];
    return NULL;
}

/* The row of a --plain command's letter, or NULL. */
static const struct step_cmd *cmd_of_word(char word)
{
    for (size_t i = 0; word && i < step_ncmds; i++)
        if (step_cmds[i].word == word)
            return &step_cmds[i];
    return NULL;
}

const char *step_keys_help(void)
{
    static char help[4096];
    if (help[0])
        return help;
    size_t at = (size_t)snprintf(help, sizeof help, "keys (and --plain commands):\n");
    for (size_t i = 0; i < step_ncmds && at < sizeof help; i++) {
        const struct step_cmd *c = &step_cmds[i];
        /* the command, and the terminal's other keys for it; a terminal's
         * own key alone */
        char keys[64], what[96];
        step_keys_text(keys, sizeof keys, 0, c->keys[1], c->keys[2], "");
        if (!c->word)
            snprintf(what, sizeof what, "%s", keys);
        else if (keys[0])
            snprintf(what, sizeof what, "%s  (%s)", c->syntax, keys);
        else
            snprintf(what, sizeof what, "%s", c->syntax);
        /* the column counts characters, not the bytes of an arrow */
        int pad = 18 - (int)strlen(what);
        for (const char *k = what; *k; k++)
            pad += ((unsigned char)*k & 0xc0) == 0x80;
        int w = snprintf(help + at, sizeof help - at, "  %s%*s ", what, pad > 0 ? pad : 0, "");
        at += w > 0 ? (size_t)w : 0;
        /* a help of two lines: the second under the first */
        for (const char *h = c->help; *h && at + 24 < sizeof help; h++) {
            help[at++] = *h;
            if (*h == '\n')
                at += (size_t)snprintf(help + at, sizeof help - at, "%21s", "");
        }
        if (at < sizeof help)
            help[at++] = '\n';
        help[at < sizeof help ? at : sizeof help - 1] = 0;
    }
    BUG_ON(at >= sizeof help); /* the table outgrew its buffer: make it larger */
    return help;
}

void step_keys_line(char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < step_ncmds && at < n; i++) {
        const struct step_cmd *c = &step_cmds[i];
        if (!c->label)
            continue;
        const struct step_cmd *next = i + 1 < step_ncmds ? &step_cmds[i + 1] : NULL;
        bool shared = next && next->label && !strcmp(next->label, c->label);
        int w = snprintf(buf + at, n - at, "%s%c%s", !at ? " " : buf[at - 1] == '/' ? "" : "  ", c->word,
                         shared ? "/" : "");
        at += w > 0 ? (size_t)w : 0;
        if (!shared && at < n) {
            w = snprintf(buf + at, n - at, " %s", c->label);
            at += w > 0 ? (size_t)w : 0;
        }
    }
    if (at < n)
        snprintf(buf + at, n - at, " ");
}

int step_command(struct step *s, const char *cmd, char *msg, size_t msglen)
{
    while (isspace((unsigned char)*cmd))
        cmd++;
    char c = *cmd;
    const char *arg = c ? cmd + 1 : cmd;
    while (isspace((unsigned char)*arg))
        arg++;
    msg[0] = 0;
    if (!c)
        return 0;
    const struct step_cmd *k = cmd_of_word(c);
    if (!k) {
        char words[64];
        size_t at = 0;
        for (size_t i = 0; i < step_ncmds && at + 3 < sizeof words; i++)
            if (step_cmds[i].word) {
                words[at++] = step_cmds[i].word;
                words[at++] = ' ';
            }
        words[at ? at - 1 : 0] = 0;
        snprintf(msg, msglen, "unknown command '%c' (%s)", c, words);
        return -1;
    }
    int rc = k->act(s, c, arg, msg, msglen);
    if (rc == 0 && !k->keep_scroll)
        s->scroll = 0;
    return rc;
}

/* ---- the pick explained ---- */

static bool idle_utid(const struct replay *rp, int utid)
{
    const struct event_thread *t = events_thread(&rp->tr, utid);
    return t && t->is_idle;
}

static const char *slice_str(int64_t ns)
{
    return ns ? us(ns) : "default";
}

/* A task's place on the number line is known: its vruntime and deadline. */
static bool drawable(const struct tstate_ent *x)
{
    return x->has_vruntime && x->has_deadline;
}

static bool is_linux(const struct replay *rp)
{
    return !strcmp(rp->tr.engine, "linux");
}

/* A Linux trace's "other" (db/derive.h, DERIVE_LINUX_OTHER_TID): every thread outside the
 * scenario's queue that ran on that CPU, one pseudo task. */
static bool is_linux_other(const struct replay *rp, int utid)
{
    const struct event_thread *t = events_thread(&rp->tr, utid);
    return is_linux(rp) && t && t->tid >= DERIVE_LINUX_OTHER_TID(0) && t->tid < DERIVE_LINUX_OTHER_TID(256);
}

/* Why an event lacks EEVDF numbers, for the lines that say it does. A
 * Linux trace from tracefs has none at all; one the BPF recorder made has
 * the scenario's queue, and lacks them only for a thread outside it
 * ("other", here who: Linux runs it from the CPU's root queue or another
 * group's) or for an event whose sample was lost. */
static const char *missing_why(const struct replay *rp, int who)
{
    if (!is_linux(rp))
        return "the trace does not hold them";
    if (!rp->has_numbers)
        return "a Linux trace recorded from tracefs, whose tracepoints carry no V, vruntime, deadline or "
               "lag; the Linux engine's BPF recorder records them";
    if (is_linux_other(rp, who))
        return "other stands for every thread outside the scenario's queue, which Linux runs from the CPU's "
               "root queue (table linux_group) or another group's; the BPF recorder records the scenario's "
               "queue, not those";
    return "the BPF recorder's sample of this event is missing: stats bpf_lost_full and bpf_samples_unmatched "
           "count such samples";
}

/* trace/format.h's words for each reason a decision was asked for. */
#define WHY_WHAT(id, name, what) what,
static const char *const why_what[] = { TRACE_PICK_WHYS(WHY_WHAT) };
#undef WHY_WHAT

/*
 * A pick whose V or winner's numbers the trace does not hold: what it
 * does hold, and that the rest is not known. On a Linux trace the why is
 * sched_switch's prev_state as the Linux engine reads it (host/engine/linux/lxrec.c):
 * still runnable is `preempt` (a preemption, or a yield: the tracepoint
 * does not tell the two apart), not runnable `block`, dead `exit`, and
 * from the idle task `idle`.
 */
static void explain_unknown_pick(const struct replay *rp, int i, const struct tstate_ent *q, int n, struct step_text *t)
{
    const struct event *e = &rp->tr.ev[i];
    const char *next = replay_name(rp, e->pick.next), *prev = replay_name(rp, e->pick.prev);
    unsigned why = e->pick.why;
    if (e->pick.prev == e->pick.next)
        step_text_add(t, "  %s keeps the CPU", next);
    else if (is_linux(rp) && why == TRACE_WHY_PREEMPT)
        step_text_add(t, "  Linux switched from %s while it was still runnable: it was preempted, or it yielded "
                         "(sched_switch does not tell the two apart)",
                      prev);
    else if (is_linux(rp) && why == TRACE_WHY_BLOCK)
        step_text_add(t, "  Linux switched from %s because it blocked or went to sleep", prev);
    else if (is_linux(rp) && why == TRACE_WHY_EXIT)
        step_text_add(t, "  Linux switched from %s because it exited", prev);
    else if (is_linux(rp) && why == TRACE_WHY_IDLE)
        step_text_add(t, "  the CPU was idle: %s is the task that came to run", next);
    else if (why < TRACE_WHY_NR)
        step_text_add(t, "  the decision was asked for because: %s", why_what[why]);
    if (rp->has_numbers && is_linux_other(rp, e->pick.next))
        step_text_add(t, "  why %s and not a task of this queue is not known: Linux decided it outside this queue, "
                         "and the state it decided from was not recorded",
                      next);
    else
        step_text_add(t, "  why %s and not another is not known: the EEVDF state at this pick (V, each task's vruntime, "
                         "deadline and lag) was not recorded",
                      next);
    step_text_add(t, "  (%s)", missing_why(rp, e->pick.next));
    bool header = false;
    for (int k = 0; k < n; k++) {
        if (q[k].utid == e->pick.next)
            continue;
        if (!header)
            step_text_add(t, "  also on the queue:");
        header = true;
        step_text_add(t, "    %-16s %s", replay_name(rp, q[k].utid), q[k].delayed ? "delayed" : "queued");
    }
}

void step_explain_pick(const struct step_view *v, int i, struct step_text *t)
{
    const struct replay *rp = &v->rp;
    if (i < 0 || i >= rp->tr.nev || rp->tr.ev[i].kind != EVENT_PICK)
        return;
    const struct event *e = &rp->tr.ev[i];
    int next_utid = e->pick.next, prev_utid = e->pick.prev;
    struct rp_state st;
    if (replay_state_init(rp, &st) != 0) {
        step_text_add(t, "why %s runs: out of memory", replay_name(rp, next_utid));
        return;
    }
    replay_seek(rp, &st, i);
    if (e->cpu < 0 || e->cpu >= rp->tr.ncpus) {
        /* the database's CPU, beyond the trace's: replay_apply skips such
         * an event, and there is no queue to explain it from */
        step_text_add(t, "why %s runs: pick #%d names cpu%d, which this %d-CPU trace does not have",
                      replay_name(rp, next_utid), i, e->cpu, rp->tr.ncpus);
        replay_state_free(&st);
        return;
    }
    const struct tstate_cpu *c = &st.ts.cpu[e->cpu];
    bool has_V = e->has_v || c->has_v;
    int64_t V = e->has_v ? e->v : c->v;
    const char *next = replay_name(rp, next_utid);
    const char *prev = replay_name(rp, prev_utid);

    step_text_add(t, "why %s runs (pick #%d on cpu%d, asked for by: %s):", next, i, e->cpu,
                  trace_why_name(e->pick.why));
    /* when was the winner woken? */
    int64_t since = rp_ts_add_sat(e->ts, -1000000000LL); /* ts is the database's: may be near INT64_MIN */
    for (int j = i - 1; j >= 0 && rp->tr.ev[j].ts >= since; j--) {
        const struct event *w = &rp->tr.ev[j];
        if (w->kind == EVENT_PICK && w->cpu == e->cpu && w->pick.next == next_utid)
            break;
        if (w->kind == EVENT_WAKE && w->wake.utid == next_utid) {
            int64_t ago;
            step_text_add(t, "  %s was woken %sus ago (#%d) by %s", next,
                          rp_ts_sub(e->ts, w->ts, &ago) ? us(ago) : "?", j,
                          w->wake.waker ? replay_name(rp, w->wake.waker) : "a timer or interrupt");
            break;
        }
    }
    if (idle_utid(rp, next_utid)) {
        step_text_add(t, "  nothing else can run on cpu%d: its idle task runs", e->cpu);
        replay_state_free(&st);
        return;
    }

    struct tstate_ent q[TSTATE_MAX_QUEUE];
    int n = tstate_queue(&st.ts, e->cpu, q); /* rr: list order; EEVDF: by deadline */
    struct tstate_ent *win = NULL;
    for (int k = 0; k < n; k++)
        if (q[k].utid == next_utid) {
            win = &q[k];
            if (e->has_v && e->has_eevdf) {
                win->vruntime = e->pick.vruntime;
                win->deadline = e->pick.deadline;
                win->has_vruntime = win->has_deadline = true;
            }
        }

    if (!rp->tr.eevdf) {
        /* round robin: the head of the list */
        int nq = 0;
        for (int k = 0; k < n; k++)
            nq += q[k].utid != next_utid;
        if (next_utid == prev_utid)
            step_text_add(t, "  kept: no other task is waiting in the list, so the current one goes on");
        else
            step_text_add(t, "  first runnable task in the list: the round robin takes the head, whoever it is");
        if (e->pick.why == TRACE_WHY_IPI)
            step_text_add(t, "  (a wakeup's IPI asked for this decision; the task just woken is at the tail, "
                             "not the head)");
        if (nq) {
            step_text_add(t, "  passed over:");
            int pos = 1;
            for (int k = 0; k < n; k++) {
                const struct tstate_ent *x = &q[k];
                if (x->utid == next_utid)
                    continue;
                if (x->utid == prev_utid && next_utid != prev_utid)
                    step_text_add(t, "    %-16s displaced: back to the tail of the list", replay_name(rp, x->utid));
                else
                    step_text_add(t, "    %-16s behind it in the list (place %d): waits for a tick per task ahead",
                                  replay_name(rp, x->utid), ++pos);
            }
        }
        replay_state_free(&st);
        return;
    }

    /* Without V or the winner's numbers nothing can be worked out: say
     * what the trace has, and that. A Linux trace's "other" never has
     * them (it is not on the recorded queue, whether or not a keyframe
     * put its row there). */
    if (!has_V || (win && !drawable(win)) || is_linux_other(rp, next_utid)) {
        explain_unknown_pick(rp, i, q, n, t);
        replay_state_free(&st);
        return;
    }

    /* EEVDF: the eligible entity with the earliest deadline */
    struct tstate_ent *best = NULL;
    int nelig = 0, nunknown = 0;
    for (int k = 0; k < n; k++) {
        struct tstate_ent *x = &q[k];
        if (!drawable(x)) { /* neither eligible nor not: it is left out of the verdict */
            nunknown++;
            continue;
        }
        if (x->delayed || vt_before(V, x->vruntime))
            continue;
        nelig++;
        if (x->dl_estimated && x->utid != next_utid)
            continue; /* its deadline is not in the trace: it cannot be said to beat anyone */
        if (!best || vt_before(x->deadline, best->deadline) || (x->deadline == best->deadline && x->seq < best->seq))
            best = x;
    }
    if (nunknown)
        step_text_add(t, "  V = %s (virtual us); %d of the %d on the queue eligible, %d not known (their numbers are "
                         "not in the trace)",
                      us(V), nelig, n, nunknown);
    else
        step_text_add(t, "  V = %s (virtual us); %d of the %d on the queue eligible", us(V), nelig, n);
    bool kept = next_utid == prev_utid;
    if (!win) {
        step_text_add(t, "  (%s was not on the rebuilt queue: the trace has a gap before this pick)", next);
    } else if (e->pick.why == TRACE_WHY_PREEMPT_SHORT) {
        step_text_add(t, "  cut in by PREEMPT_SHORT: it woke with a shorter slice (%s us) than %s's and is eligible "
                         "with an earlier deadline, so %s's protected stretch was ignored",
                      slice_str(win->slice_ns), prev, prev);
    } else if (kept && best && best != win && !vt_before(V, win->vruntime)) {
        step_text_add(t, "  kept by RUN_TO_PARITY: %s is still inside its protected stretch (until its deadline "
                         "or the shortest slice queued), so %s, eligible with the earlier deadline %s, waits",
                      next, replay_name(rp, best->utid), us(best->deadline));
    } else if (best == win) {
        step_text_add(t, "  %s: eligible (lag %s >= 0) with the earliest deadline (%s) of the %d eligible",
                      kept ? "kept, still" : "won", sus(vt_sub(V, win->vruntime)), us(win->deadline), nelig);
    } else {
        step_text_add(t, "  won, though the rebuilt queue has %s (lag %s) with deadline %s: the queue between "
                         "keyframes is approximate for the task on the CPU",
                      next, sus(vt_sub(V, win->vruntime)), us(win->deadline));
    }
    if (n > 1)
        step_text_add(t, "  passed over:");
    for (int k = 0; k < n; k++) {
        const struct tstate_ent *x = &q[k];
        if (x == win)
            continue;
        const char *nm = replay_name(rp, x->utid);
        int64_t lag = vt_sub(V, x->vruntime);
        if (!drawable(x))
            step_text_add(t, "    %-16s %s; its vruntime or deadline is not in the trace: not compared", nm,
                          x->delayed ? "delayed" : "queued");
        else if (x->delayed)
            step_text_add(t, "    %-16s delayed: it blocked while ineligible and stays queued until its debt is "
                             "paid (DELAY_DEQUEUE); never picked (lag now %s)",
                          nm, sus(lag));
        else if (lag >= 0 && x->dl_estimated && win && !vt_before(win->deadline, x->deadline))
            step_text_add(t, "    %-16s eligible (lag %s); its deadline was renewed while it ran and the trace "
                             "does not carry the new one (estimated %s)",
                          nm, sus(lag), us(x->deadline));
        else if (lag < 0)
            step_text_add(t, "    %-16s not eligible: lag %s < 0, it has had more than its share", nm, sus(lag));
        else if (!win)
            step_text_add(t, "    %-16s eligible, lag %s, deadline %s", nm, sus(lag), us(x->deadline));
        else if (e->pick.why == TRACE_WHY_PREEMPT_SHORT && x->utid == prev_utid)
            step_text_add(t, "    %-16s eligible, but its protected stretch was cut short (PREEMPT_SHORT)", nm);
        else if (vt_before(win->deadline, x->deadline))
            step_text_add(t, "    %-16s eligible (lag %s), but its deadline %s is later than %s", nm, sus(lag),
                          us(x->deadline), us(win->deadline));
        else if (x->deadline == win->deadline)
            step_text_add(t, "    %-16s eligible, same deadline; the one queued first runs first", nm);
        else
            step_text_add(t, "    %-16s eligible with an earlier deadline %s, but the current task is protected "
                             "(RUN_TO_PARITY)",
                          nm, us(x->deadline));
    }
    replay_state_free(&st);
}

/* ---- a wakeup explained ---- */

/* The PICK of the decision that followed the JOIN at i on its CPU, or -1
 * when none did. The core traces the joins of a decision, then the
 * displaced task's LEAVE, then the PICK, all within microseconds; a
 * wakeup that does not preempt has no PICK. A keyframe between is no
 * decision: a Linux trace the BPF recorder made has one at every switch,
 * just before its LEAVE and PICK. */
static int join_decision(const struct replay *rp, int i)
{
    const struct event *e = &rp->tr.ev[i];

    for (int j = i + 1; j < rp->tr.nev && rp->tr.ev[j].ts - e->ts <= 20000; j++) {
        const struct event *x = &rp->tr.ev[j];
        if (x->cpu != e->cpu)
            continue;
        if (x->kind == EVENT_PICK)
            return j;
        if (x->kind != EVENT_JOIN && x->kind != EVENT_LEAVE && x->kind != EVENT_KEYFRAME)
            return -1;
    }
    return -1;
}

/* The wakeup check the JOIN at i carries (trace format 3), in words: what
 * the woken task brought and got, what current was, the answer and why,
 * and the decision the trace shows next. The reasons follow Linux 6.18's
 * check_preempt_wakeup_fair(): the wakee preempts when it is the pick,
 * the pick being the eligible task with the earliest deadline, unless an
 * eligible current still inside its protected stretch keeps the CPU
 * (which PREEMPT_SHORT cancels for a wakee with a shorter slice). */
static void explain_check(const struct replay *rp, int i, struct step_text *t)
{
    const struct event *e = &rp->tr.ev[i];
    unsigned f = e->join.jflags;
    const char *wn = replay_name(rp, e->join.utid), *cn = e->join.curr ? replay_name(rp, e->join.curr) : NULL;
    bool w_elig = f & TRACE_JF_WAKEE_ELIGIBLE, c_elig = f & TRACE_JF_CURR_ELIGIBLE,
         c_prot = f & TRACE_JF_CURR_PROTECTED, numbers = cn && e->join.has_curr_eevdf;
    const char *w_dl = us(e->join.deadline), *c_dl = us(e->join.curr_deadline);

    if (e->join.check == TRACE_JC_PREEMPT)
        step_text_add(t, "why %s preempts %s (wakeup check, #%d on cpu%d):", wn, cn ? cn : "-", i, e->cpu);
    else if (e->join.check == TRACE_JC_KEPT)
        step_text_add(t, "why %s keeps the CPU as %s wakes (wakeup check, #%d on cpu%d):", cn ? cn : "-", wn, i,
                      e->cpu);
    else if (e->join.check == TRACE_JC_UNKNOWN)
        step_text_add(t, "%s wakes beside %s (#%d on cpu%d): Linux's answer to its wakeup check is not recorded; "
                         "the state after its check:",
                      wn, cn ? cn : "-", i, e->cpu);
    else
        step_text_add(t, "why %s's wakeup was not checked (#%d on cpu%d):", wn, i, e->cpu);
    if (e->has_v)
        step_text_add(t, "  V = %s (virtual us) after the join", us(e->v));
    bool late_charge = (f & TRACE_JF_REQUEUE) && !(f & TRACE_JF_CHARGED_FIRST);
    const char *how = !(f & TRACE_JF_REQUEUE) ? ""
                      : late_charge ? " (a delayed task requeued; its lag was taken before current was charged)"
                                    : " (a delayed task requeued; current was charged first)";
    /* Its eligibility is the check's: after a late charge V has moved
     * since the numbers of the join. */
    char elig[64];
    snprintf(elig, sizeof elig, "%s%s", w_elig ? "eligible" : "not eligible",
             late_charge && cn ? " at the check, after current's charge moved V" : "");
    if (e->has_eevdf && f & TRACE_JF_CLIPPED)
        step_text_add(t, "  %s woke%s: its lag %s was clipped to 0 by DELAY_ZERO; placed at lag %s, deadline %s; %s",
                      wn, how, sus(e->join.lag_before), sus(e->join.lag_after), w_dl, elig);
    else if (e->has_eevdf)
        step_text_add(t, "  %s woke%s: it brought lag %s; placed at lag %s, deadline %s; %s", wn, how,
                      sus(e->join.lag_before), sus(e->join.lag_after), w_dl, elig);
    if (numbers) {
        int64_t left = vt_sub(e->join.curr_vprot, e->join.curr_vruntime);
        char prot[192];
        if (c_prot)
            snprintf(prot, sizeof prot, "protected until its vruntime reaches %s (it is %s short)",
                     us(e->join.curr_vprot), us(left));
        else if (left == 0 && e->join.check == TRACE_JC_UNKNOWN)
            /* Linux, after its check: vprot exactly at vruntime is what
             * cancel_protect_slice() leaves (a PREEMPT_SHORT preemption). */
            snprintf(prot, sizeof prot, "its protected stretch ends where it stands (vprot = vruntime %s: "
                                        "what the check leaves when PREEMPT_SHORT cuts it)",
                     us(e->join.curr_vprot));
        else
            snprintf(prot, sizeof prot, "its protected stretch is over (it ended at vruntime %s)",
                     us(e->join.curr_vprot));
        step_text_add(t, "  %s (current): vruntime %s, deadline %s; %s; %s", cn, us(e->join.curr_vruntime), c_dl,
                      c_elig ? "eligible" : "not eligible", prot);
    }

    if (e->join.check == TRACE_JC_KEPT && numbers) {
        if (!w_elig)
            step_text_add(t, "  so %s keeps the CPU: %s is not eligible, it has had more than its share", cn, wn);
        else if (c_elig && c_prot && vt_before(e->join.curr_deadline, e->join.deadline))
            step_text_add(t, "  so %s keeps the CPU: its protection held (and its deadline %s is earlier than "
                             "%s's %s)",
                          cn, c_dl, wn, w_dl);
        else if (c_elig && c_prot)
            step_text_add(t, "  so %s keeps the CPU: its protection held", cn);
        else if (c_elig && vt_before(e->join.curr_deadline, e->join.deadline))
            step_text_add(t, "  so %s keeps the CPU: it is eligible with the earlier deadline (%s < %s)", cn, c_dl,
                          w_dl);
        else
            step_text_add(t, "  so %s keeps the CPU: another queued task has a deadline earlier than %s's, so %s "
                             "is not the pick",
                          cn, wn, wn);
    } else if (e->join.check == TRACE_JC_PREEMPT && numbers) {
        if (f & TRACE_JF_CUT_SHORT)
            step_text_add(t, "  so %s preempts: %s's protection was cut short by PREEMPT_SHORT (%s asks for a "
                             "shorter slice), and %s is eligible with the earlier deadline (%s < %s)",
                          wn, cn, wn, wn, w_dl, c_dl);
        else if (!c_elig)
            step_text_add(t, "  so %s preempts: %s is not eligible, and %s is the eligible task with the earliest "
                             "deadline",
                          wn, cn, wn);
        else if (!c_prot && e->join.deadline == e->join.curr_deadline)
            step_text_add(t, "  so %s preempts: %s's protection is over, and %s is eligible with the same "
                             "deadline (%s): the queued task wins a tie",
                          wn, cn, wn, w_dl);
        else if (!c_prot)
            step_text_add(t, "  so %s preempts: %s's protection is over, and %s is eligible with the earlier "
                             "deadline (%s < %s)",
                          wn, cn, wn, w_dl, c_dl);
        else
            step_text_add(t, "  so %s preempts: it is the pick", wn);
    } else if (e->join.check == TRACE_JC_UNKNOWN) {
        step_text_add(t, "  (what the check answered shows in what followed: a switch to %s right after, or none)", wn);
    } else if (e->join.check == TRACE_JC_KEPT || e->join.check == TRACE_JC_PREEMPT) {
        step_text_add(t, "  so %s", e->join.check == TRACE_JC_KEPT ? "current keeps the CPU" : "it preempts");
    } else if (f & TRACE_JF_PENDING) {
        step_text_add(t, "  a decision was already due: not asked (Linux asks only when no reschedule is pending); "
                         "the decision picks");
    } else {
        step_text_add(t, "  nothing ran on cpu%d: not asked; the decision picks", e->cpu);
    }

    int d = join_decision(rp, i);
    if (d >= 0) {
        const struct event *p = &rp->tr.ev[d];
        char what[96];
        if (p->pick.prev == p->pick.next)
            snprintf(what, sizeof what, "%s keeps the CPU", replay_name(rp, p->pick.next));
        else
            snprintf(what, sizeof what, "%s -> %s", replay_name(rp, p->pick.prev), replay_name(rp, p->pick.next));
        step_text_add(t, "  %s (#%d, asked for by: %s): %s",
                      e->join.check == TRACE_JC_KEPT ? "a decision followed all the same" : "the decision that followed",
                      d, trace_why_name(p->pick.why), what);
    } else if (cn && is_linux(rp)) {
        /* Linux writes sched_switch only when the task changes: a
         * decision that kept current leaves no trace. */
        step_text_add(t, "  no switch followed: %s runs on (a decision that keeps it writes no sched_switch)", cn);
    } else if (cn) {
        step_text_add(t, "  no decision followed: %s runs on", cn);
    } else {
        step_text_add(t, "  no decision followed");
    }
}

void step_explain_join(const struct step_view *v, int i, struct step_text *t)
{
    const struct replay *rp = &v->rp;
    if (i < 0 || i >= rp->tr.nev || rp->tr.ev[i].kind != EVENT_JOIN || !rp->tr.eevdf)
        return;
    const struct event *e = &rp->tr.ev[i];
    if (e->join.has_check && (e->join.reason == TRACE_JOIN_WAKE || e->join.reason == TRACE_JOIN_REQUEUE)) {
        explain_check(rp, i, t);
        return;
    }
    /* Before trace format 3: only a wakeup that no decision followed,
     * from the rebuilt queue. */
    if (e->join.reason == TRACE_JOIN_MIGRATE || join_decision(rp, i) >= 0)
        return;
    struct rp_state st;
    if (replay_state_init(rp, &st) != 0)
        return; /* out of memory: no explanation, as for a join it cannot explain */
    replay_seek(rp, &st, i + 1); /* the queue with the joiner on it */
    if (e->cpu < 0 || e->cpu >= rp->tr.ncpus) { /* the database's CPU, no queue of this trace */
        replay_state_free(&st);
        return;
    }
    const struct tstate_cpu *c = &st.ts.cpu[e->cpu];
    struct tstate_ent q[TSTATE_MAX_QUEUE];
    int n = tstate_queue(&st.ts, e->cpu, q);
    struct tstate_ent *w = NULL, *cur = NULL;
    for (int k = 0; k < n; k++) {
        if (q[k].utid == e->join.utid)
            w = &q[k];
        if (q[k].current)
            cur = &q[k];
    }
    if (!w || !cur || w == cur || idle_utid(rp, cur->utid)) {
        replay_state_free(&st);
        return;
    }
    const char *wn = replay_name(rp, w->utid), *cn = replay_name(rp, cur->utid);
    if (!c->has_v || !drawable(w) || !drawable(cur)) {
        step_text_add(t, "why %s waits (woken, #%d on cpu%d; no decision followed):", wn, i, e->cpu);
        step_text_add(t, "  %s keeps the CPU, and why is not known: neither the wakeup check nor the EEVDF state "
                         "(V, lag, deadline) was recorded",
                      cn);
        step_text_add(t, "  (%s)", missing_why(rp, !drawable(cur) ? cur->utid : w->utid));
        replay_state_free(&st);
        return;
    }
    int64_t V = c->v;
    bool w_elig = !vt_before(V, w->vruntime), c_elig = !vt_before(V, cur->vruntime);
    const struct tstate_ent *best = NULL;
    for (int k = 0; k < n; k++) {
        const struct tstate_ent *x = &q[k];
        if (drawable(x) && !x->delayed && !vt_before(V, x->vruntime) &&
            (!best || vt_before(x->deadline, best->deadline)))
            best = x;
    }
    step_text_add(t, "why %s waits (woken, #%d on cpu%d; no decision followed):", wn, i, e->cpu);
    step_text_add(t, "  V = %s (virtual us); %s keeps the CPU: a wakeup preempts only if the woken task is "
                     "then the pick", us(V), cn);
    if (!w_elig) {
        step_text_add(t, "  not eligible: lag %s < 0, it has had more than its share", sus(vt_sub(V, w->vruntime)));
    } else if (c_elig && vt_before(w->deadline, cur->deadline)) {
        step_text_add(t, "  kept by RUN_TO_PARITY: %s is still inside its protected stretch (until its deadline "
                         "or the shortest slice queued), so %s, eligible with the earlier deadline %s, waits",
                      cn, wn, us(w->deadline));
        step_text_add(t, "  passed over:");
        step_text_add(t, "    %-16s eligible with an earlier deadline %s, but the current task is protected "
                         "(RUN_TO_PARITY)",
                      wn, us(w->deadline));
    } else if (best && best != w && vt_before(best->deadline, w->deadline)) {
        step_text_add(t, "  eligible (lag %s), but %s has the earlier deadline %s (its own is %s)",
                      sus(vt_sub(V, w->vruntime)), replay_name(rp, best->utid), us(best->deadline), us(w->deadline));
    } else {
        step_text_add(t, "  eligible (lag %s) with deadline %s; the pick is still %s", sus(vt_sub(V, w->vruntime)),
                      us(w->deadline), cn);
    }
    replay_state_free(&st);
}

/* ---- a move ---- */

/* What each MIGRATE reason did, as the sentence says it. */
static const char *move_rule(enum trace_migrate_reason r)
{
    static const char *const rule[] = {
        [TRACE_MIGRATE_WAKE_IDLE_PREV] = "woken on its idle previous CPU",
        [TRACE_MIGRATE_WAKE_IDLE_SIBLING] = "woken onto an idle CPU (select_idle_sibling)",
        [TRACE_MIGRATE_WAKE_AFFINE] = "woken onto its waker's CPU (wake_affine)",
        [TRACE_MIGRATE_NEWIDLE] = "newidle pull",
        [TRACE_MIGRATE_PERIODIC] = "periodic balance",
        [TRACE_MIGRATE_AFFINITY] = "its allowed CPUs no longer held its CPU",
        [TRACE_MIGRATE_RT_RELEASE] = "a higher class took its CPU (replace_on_release)",
        [TRACE_MIGRATE_WAKE] = "woken onto another CPU (a rule Linux's tracepoints do not name)",
        [TRACE_MIGRATE_UNKNOWN] = "a rule the recorder could not see",
    };
    _Static_assert(sizeof rule / sizeof rule[0] == TRACE_MIGRATE_NR, "a phrase for every MIGRATE reason");
    return r < TRACE_MIGRATE_NR ? rule[r] : "a rule this runq does not know";
}

/* CPU cpu as move m found it: "had 3 runnable (2 waiting)", "was idle",
 * or, the puller of a newidle move, "was going idle". */
static void move_cpu_phrase(const struct events *tr, const struct event_move *m, int cpu, char *buf, size_t len)
{
    if (cpu < 0 || cpu >= m->n) {
        snprintf(buf, len, "held what was not recorded");
        return;
    }
    const struct event_move_cpu *c = &tr->mvcpu[m->first + cpu];
    int waiting = c->nr - (c->running ? 1 : 0);
    if (cpu == m->dst && m->reason == TRACE_MIGRATE_NEWIDLE)
        snprintf(buf, len, "was going idle");
    else if (c->nr == 0)
        snprintf(buf, len, "was idle");
    else
        snprintf(buf, len, "had %d runnable (%d waiting)", c->nr, waiting < 0 ? 0 : waiting);
}

void step_explain_move(const struct step_view *v, int i, struct step_text *t)
{
    const struct replay *rp = &v->rp;
    if (i < 0 || i >= rp->tr.nev)
        return;
    const struct event *e = &rp->tr.ev[i];
    bool leave = e->kind == EVENT_LEAVE && e->leave.reason == TRACE_LEAVE_MIGRATE;
    bool join = e->kind == EVENT_JOIN && e->join.reason == TRACE_JOIN_MIGRATE;
    if (!leave && !join)
        return;
    const char *name = replay_name(rp, event_task(e));
    const struct event_move *m = events_move_of(&rp->tr, event_task(e), e->ts);
    if (!m || m->src == m->dst || (leave ? m->src : m->dst) != e->cpu) {
        step_text_add(t, "why %s moved (#%d on cpu%d): not recorded (no MIGRATE record: a trace before format 5, or "
                         "one lost in a gap)",
                      name, i, e->cpu);
        return;
    }
    step_text_add(t, "why %s moved (#%d):", name, i);
    /* A move without the CPUs' loads (the host's Linux: its other run
     * queues are out of a BPF program's reach) says the rule alone. */
    if (m->n == 0) {
        step_text_add(t, "  moved from CPU %d to CPU %d: %s; the CPUs' loads were not recorded", m->src, m->dst,
                      move_rule(m->reason));
        return;
    }
    char src[64], dst[64];
    move_cpu_phrase(&rp->tr, m, m->src, src, sizeof src);
    move_cpu_phrase(&rp->tr, m, m->dst, dst, sizeof dst);
    step_text_add(t, "  moved from CPU %d to CPU %d: %s; CPU %d %s, CPU %d %s", m->src, m->dst, move_rule(m->reason),
                  m->src, src, m->dst, dst);
    char line[512];
    size_t at = (size_t)snprintf(line, sizeof line, "  every CPU then (runnable, fair load):");
    for (int c = 0; c < m->n && at < sizeof line; c++) {
        const struct event_move_cpu *x = &rp->tr.mvcpu[m->first + c];
        at += (size_t)snprintf(line + at, sizeof line - at, " cpu%d %d/%lld", c, x->nr, (long long)x->load);
    }
    step_text_add(t, "%s", line);
}

/* ---- the view ---- */

/* The number line's widest picture: a terminal wider than this (or
 * --width) shows no more of it. (It wrote into a 512-byte row whatever the
 * width: --width 100000 or a 4000-column terminal overflowed the stack.) */
#define NUMBERLINE_COLS_MAX 400

static void numberline(const struct replay *rp, const struct tstate_cpu *c, const struct tstate_ent *q, int n, int width,
                       struct step_text *t)
{
    int cols = width - 22;
    if (cols > NUMBERLINE_COLS_MAX)
        cols = NUMBERLINE_COLS_MAX;
    if (cols < 16 || n == 0)
        return;
    /* Nothing is drawn where it is not known: a point at 0 for a number
     * the trace lacks would be a position made up. */
    int known = 0;
    for (int k = 0; k < n; k++)
        known += drawable(&q[k]);
    if (!c->has_v || !known) {
        step_text_add(t, "    (no number line: %s not in the trace here)",
                      !c->has_v && !known ? "V, the vruntimes and the deadlines are"
                      : !c->has_v       ? "V is"
                                        : "the vruntimes and deadlines are");
        return;
    }
    /* Positions are distances from V (modulo 2^64, db/vtime.h), in 128
     * bits: two of them may be almost 2^64 apart. */
    /* lo and hi bound every point drawn (V, each vruntime and each
     * deadline): the database's values need not keep vruntime <= deadline,
     * and a point outside [lo, hi] made a column outside the row (an index
     * out of bounds, or one truncated to a negative int). */
    __int128 lo = 0, hi = 0;
    for (int k = 0; k < n; k++) {
        if (!drawable(&q[k]))
            continue;
        int64_t p[2] = { vt_sub(q[k].vruntime, c->v), vt_sub(q[k].deadline, c->v) };
        for (int j = 0; j < 2; j++) {
            if (p[j] < lo)
                lo = p[j];
            if (p[j] > hi)
                hi = p[j];
        }
    }
    if (hi <= lo)
        hi = lo + 1;
    __int128 span = hi - lo;
#define COL(x) ((int)(((__int128)vt_sub((x), c->v) - lo) * (cols - 1) / span))
    char row[NUMBERLINE_COLS_MAX + 1];
    for (int k = 0; k < n; k++) {
        if (!drawable(&q[k])) {
            step_text_add(t, "  %c %-16s ? (not in the trace)", q[k].current ? '*' : ' ', replay_name(rp, q[k].utid));
            continue;
        }
        int a = COL(q[k].vruntime), b = COL(q[k].deadline);
        memset(row, ' ', (size_t)cols);
        row[cols] = 0;
        for (int x = a; x <= b && x < cols; x++)
            row[x] = '-';
        if (a >= 0 && a < cols)
            row[a] = '|';
        if (b >= 0 && b < cols && b != a)
            row[b] = '<';
        while (row[0] && row[strlen(row) - 1] == ' ')
            row[strlen(row) - 1] = 0;
        step_text_add(t, "  %c %-16s %s", q[k].current ? '*' : ' ', replay_name(rp, q[k].utid), row);
    }
    memset(row, '.', (size_t)cols);
    row[cols] = 0;
    int vc = COL(c->v);
    if (vc >= 0 && vc < cols)
        row[vc] = 'V';
    step_text_add(t, "    %-16s %s", "", row);
    step_text_add(t, "    %-16s | vruntime, < deadline, V the queue's V; %s virtual us across", "",
                  span > INT64_MAX ? "over 2^63 ns" : us((int64_t)span));
#undef COL
}

/* What the table shows for a number the trace may not hold: "?" when it
 * does not. */
static const char *us_or_unknown(bool known, int64_t ns)
{
    return known ? us(ns) : "?";
}

static void render_cpu(const struct step *s, const struct step_view *v, int cpu, bool detail, int width,
                       struct step_text *t)
{
    (void)s;
    const struct replay *rp = &v->rp;
    const struct tstate_cpu *c = &v->st.ts.cpu[cpu];
    struct tstate_ent q[TSTATE_MAX_QUEUE];
    int n = tstate_queue(&v->st.ts, cpu, q);
    if (rp->tr.eevdf)
        step_text_add(t, "cpu%d  V=%s  on the CPU: %s%s", cpu, c->has_v ? us(c->v) : "?", replay_name(rp, c->curr),
                      c->known ? "" : "  (not yet known: no keyframe or pick seen)");
    else
        step_text_add(t, "cpu%d  on the CPU: %s%s", cpu, replay_name(rp, c->curr),
                      c->known ? "" : "  (not yet known: no keyframe or pick seen)");
    if (!n) {
        step_text_add(t, "  (nothing queued)");
        return;
    }
    if (rp->tr.eevdf) {
        int dls = 0;
        for (int k = 0; k < n; k++)
            dls += q[k].has_deadline;
        /* tstate_queue: by deadline, the unknown ones last as queued */
        step_text_add(t, "    %-16s %-8s %12s %13s %11s %4s %6s",
                      dls == n ? "task (by deadline)" : dls ? "task (by deadline, ? last)" : "task (as queued)",
                      "state", "vruntime", "deadline", "lag", "elig", "weight");
        for (int k = 0; k < n; k++) {
            const struct tstate_ent *x = &q[k];
            bool has_lag = c->has_v && x->has_vruntime;
            int64_t lag = has_lag ? vt_sub(c->v, x->vruntime) : 0;
            char wbuf[24] = "?";
            if (x->weight_known)
                snprintf(wbuf, sizeof wbuf, "%lld", (long long)x->weight);
            step_text_add(t, "  %c %-16s %-8s %12s %1s%11s %11s %4s %6s", x->current ? '*' : ' ',
                          replay_name(rp, x->utid), x->current ? "run" : x->delayed ? "delayed" : "queued",
                          us_or_unknown(x->has_vruntime, x->vruntime), x->has_deadline && x->dl_estimated ? "~" : "",
                          us_or_unknown(x->has_deadline, x->deadline), has_lag ? sus(lag) : "?",
                          x->delayed ? "-" : !has_lag ? "?" : lag >= 0 ? "yes" : "no", wbuf);
        }
        if (detail)
            numberline(rp, c, q, n, width, t);
    } else {
        step_text_add(t, "    %-16s %s", "task (list order)", "state");
        for (int k = 0; k < n; k++)
            step_text_add(t, "  %c %-16s %s", q[k].current ? '*' : ' ', replay_name(rp, q[k].utid),
                          q[k].current ? "run" : k == (q[0].current ? 1 : 0) ? "queued (head)" : "queued");
    }
}

void step_render(const struct step *s, int k, int width, struct step_text *t)
{
    const struct step_view *v = &s->v[k];
    const struct replay *rp = &v->rp;
    /* the database's ts and start: their difference may not fit, then "?" */
    int64_t now = 0, at = v->cur >= 0 ? rp->tr.ev[v->cur].ts : rp->tr.start_ts;
    bool now_ok = v->cur < 0 || rp_ts_sub(at, rp->tr.start_ts, &now);
    step_text_add(t, "%s, %d cpus, %d Hz: event %d of %d, t=+%sus @%lld", v->label, rp->tr.ncpus, rp->tr.tick_hz,
                  v->cur, rp->tr.nev, now_ok ? us(now) : "?", (long long)at);
    if (k == 1) {
        static const char *const how[] = { "by time since the start", "by event number", "by mark", "by wakeup of" };
        step_text_add(t, "  (follows the first view %s%s%s)", how[s->align], s->align_arg[0] ? " " : "", s->align_arg);
    }
    if (rp->tr.bad_cpu)
        step_text_add(t, "  (left out: %d event(s) naming a CPU beyond %u, which no trace has)", rp->tr.bad_cpu,
                      TRACE_MAX_CPUS - 1);
    if (rp->tr.eevdf && !rp->has_numbers && rp->tr.nev)
        step_text_add(t, "  (this trace holds no EEVDF state: V, vruntime, deadline, lag and eligibility show as ?)");
    char line[512];
    for (int i = v->cur - 2; i <= v->cur + 2; i++) {
        if (i < 0 || i >= rp->tr.nev)
            continue;
        replay_describe(rp, i, line, sizeof line);
        step_text_add(t, "%s %s", i == v->cur ? ">" : " ", line);
    }
    int focus = focus_of(s, v);
    for (int cpu = 0; cpu < rp->tr.ncpus; cpu++)
        render_cpu(s, v, cpu, cpu == focus, width, t);
    step_explain_pick(v, v->cur, t);
    step_explain_join(v, v->cur, t);
    step_explain_move(v, v->cur, t);
}
