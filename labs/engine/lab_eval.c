/*
 * A question's truth, and the verdict on an answer.
 *
 * truth forms (docs/labs.md):
 *   metric REF [/ REF]     a field of a shell summary line in the consoles:
 *                          REF = LINE.FIELD[key=value,...][#INDEX], e.g.
 *                          probe.wake_p50_us[policy=rr,spinners=2] or
 *                          share.permille[nices=0,5]#1; the filter
 *                          scenario=NAME picks one scenario's console.
 *                          "A / B" is a ratio, printed with two decimals.
 *   regex SCEN: PATTERN    group 1 of the first console line matching PATTERN
 *   sql SCEN: SELECT ...   first column of the first row, on SCEN's trace
 *   compare A B [FLAGS]: FIELD
 *                          scenarios A and B's recordings judged as `runq
 *                          report compare` judges two runs (host/analysis/compare.c,
 *                          its interval flags): verdict, p, wins_a,
 *                          wins_b, ties or line (the summary line)
 *   sim ARGS               first line of `runq sim ARGS` (the schedule)
 *   sim-answer ARGS        the line after "answer:" (with -s SEED -c)
 *   value X                a fixed answer
 */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "host/analysis/compare.h"
#include "db/query.h"
#include "labs/engine/lab.h"
#include "host/base/xalloc.h"

static void subst(char *out, size_t len, const char *in, const struct lab *lab, long seed)
{
    size_t o = 0;
    while (*in && o + 1 < len) {
        if (!strncmp(in, "{seed}", 6)) {
            o += (size_t)snprintf(out + o, len - o, "%ld", seed);
            in += 6;
        } else if (!strncmp(in, "{lab}", 5)) {
            o += (size_t)snprintf(out + o, len - o, "%s", lab->dir);
            in += 5;
        } else {
            out[o++] = *in++;
        }
        if (o >= len)
            o = len - 1;
    }
    out[o] = 0;
}

char *lab_self(const struct lab *lab, const char *args, long seed)
{
    char buf[1024];
    subst(buf, sizeof buf, args, lab, seed);
    char *argv[64];
    int argc = 0;
    argv[argc++] = "runq";
    for (char *tok = strtok(buf, " \t"); tok && argc < 63; tok = strtok(NULL, " \t"))
        argv[argc++] = tok;
    argv[argc] = NULL;
    int fd[2];
    if (pipe(fd))
        return NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return NULL;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 4096, n = 0;
    char *out = xmalloc(cap);
    ssize_t r;
    while ((r = read(fd[0], out + n, cap - n - 1)) > 0) {
        n += (size_t)r;
        if (cap - n < 2) {
            cap *= 2;
            out = xrealloc(out, cap);
        }
    }
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    out[n] = 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static const struct lab_scenario *scen(const struct lab *lab, const char *name)
{
    for (int i = 0; i < lab->nsc; i++)
        if (!strcmp(lab->sc[i].name, name))
            return &lab->sc[i];
    return NULL;
}

/* The value of key in a "word k=v k=v" line, into val; 0 if found. */
static int line_field(const char *line, const char *key, char *val, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p++) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " ");
            snprintf(val, len, "%.*s", (int)(n < len ? n : len - 1), v);
            return 0;
        }
    }
    return -1;
}

/* A REF taken apart: LINE.FIELD[key=value,...][#INDEX]. */
struct metric {
    char ref[256];                 /* the REF, cut up: word and field point in */
    const char *word, *field;
    char keys[8][32], vals[8][64]; /* the filters */
    int nf;
    int index;                     /* -1: the whole field */
};

/* Filters: key=value pairs split on the commas that start a new key=, so
 * a value may hold commas (nices=0,5). */
static void metric_filters(struct metric *mt, char *filt)
{
    for (char *s = filt; *s && mt->nf < 8;) {
        char *eq = strchr(s, '=');
        if (!eq)
            break;
        snprintf(mt->keys[mt->nf], sizeof mt->keys[0], "%.*s", (int)(eq - s), s);
        char *v = eq + 1, *end = v;
        for (;;) {
            char *comma = strchr(end, ',');
            if (!comma) {
                end = v + strlen(v);
                break;
            }
            char *nx = comma + 1;
            size_t k = strcspn(nx, "=,");
            if (nx[k] == '=') {
                end = comma;
                break;
            }
            end = comma + 1;
        }
        snprintf(mt->vals[mt->nf], sizeof mt->vals[0], "%.*s", (int)(end - v), v);
        mt->nf++;
        s = *end ? end + 1 : end;
    }
}

/* Parses ref into mt; returns 0, or -1 with the reason in why. */
static int metric_parse(const char *ref, struct metric *mt, char *why, size_t wlen)
{
    snprintf(mt->ref, sizeof mt->ref, "%s", ref);
    char *p = mt->ref;
    while (isspace((unsigned char)*p))
        p++;
    char *e = p + strlen(p);
    while (e > p && isspace((unsigned char)e[-1]))
        *--e = 0;
    mt->index = -1;
    mt->nf = 0;
    char *hash = strrchr(p, '#');
    if (hash && (!strchr(p, ']') || hash > strchr(p, ']'))) {
        mt->index = atoi(hash + 1);
        *hash = 0;
    }
    char filt[200] = "";
    char *br = strchr(p, '[');
    if (br) {
        char *close = strchr(br, ']');
        if (!close) {
            snprintf(why, wlen, "metric %s: no ']'", ref);
            return -1;
        }
        *close = 0;
        snprintf(filt, sizeof filt, "%s", br + 1);
        *br = 0;
    }
    char *dot = strchr(p, '.');
    if (!dot) {
        snprintf(why, wlen, "metric %s: expected LINE.FIELD", ref);
        return -1;
    }
    *dot = 0;
    mt->word = p;
    mt->field = dot + 1;
    metric_filters(mt, filt);
    return 0;
}

/* Does scenario c's console count, by the filter scenario=NAME? */
static bool metric_scenario(const struct metric *mt, const struct lab_scenario *c)
{
    for (int f = 0; f < mt->nf; f++)
        if (!strcmp(mt->keys[f], "scenario") && strcmp(mt->vals[f], c->name))
            return false;
    return true;
}

/* The field's value (into v) in a console line, when the line is the
 * metric's kind and passes its other filters; 0 when it is. */
static int metric_line(const struct metric *mt, const char *line, char *v, size_t vlen)
{
    size_t wl = strlen(mt->word);
    if (strncmp(line, mt->word, wl) || line[wl] != ' ')
        return -1;
    bool ok = true;
    for (int f = 0; f < mt->nf && ok; f++)
        if (strcmp(mt->keys[f], "scenario"))
            ok = !line_field(line, mt->keys[f], v, vlen) && !strcmp(v, mt->vals[f]);
    if (!ok || line_field(line, mt->field, v, vlen))
        return -1;
    return 0;
}

/* Item mt->index of the comma list v (or all of v) into val. */
static int metric_item(const struct metric *mt, const char *ref, char *v, char *val, size_t len, char *why,
                       size_t wlen)
{
    if (mt->index < 0) {
        snprintf(val, len, "%.*s", (int)(len - 1), v);
        return 0;
    }
    char *s = v;
    for (int k = 0; k < mt->index && s; k++) {
        s = strchr(s, ',');
        if (s)
            s++;
    }
    if (!s) {
        snprintf(why, wlen, "metric %s: %s has no item %d", ref, mt->field, mt->index);
        return -1;
    }
    s[strcspn(s, ",")] = 0;
    snprintf(val, len, "%.*s", (int)(len - 1), s);
    return 0;
}

/* Evaluates one REF: the first console line, in scenario order, that
 * matches. Returns 0 with the value in val. */
static int metric_ref(const struct lab *lab, const char *ref, char *val, size_t len, char *why, size_t wlen)
{
    struct metric mt;
    if (metric_parse(ref, &mt, why, wlen))
        return -1;
    for (int i = 0; i < lab->nsc; i++) {
        const struct lab_scenario *c = &lab->sc[i];
        if (!metric_scenario(&mt, c) || !c->out)
            continue;
        for (const char *l = c->out; *l;) {
            const char *nl = strchr(l, '\n');
            size_t n = nl ? (size_t)(nl - l) : strlen(l);
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), l);
            l = nl ? nl + 1 : l + n;
            char v[256];
            if (metric_line(&mt, line, v, sizeof v) == 0)
                return metric_item(&mt, ref, v, val, len, why, wlen);
        }
    }
    snprintf(why, wlen, "metric %s: no matching '%s' line in the consoles", ref, mt.word);
    return -1;
}

static int sql_first(const struct lab_scenario *c, const char *sql, char *buf, size_t len)
{
    char err[300];
    sqlite3 *db = c->db[0] ? dbq_open(c->db, err, sizeof err) : NULL;
    if (!db) {
        snprintf(buf, len, "scenario %s has no trace database", c->name);
        return -1;
    }
    int got = dbq_first(db, sql, buf, len, NULL, NULL, err, sizeof err);
    sqlite3_close(db);
    if (got < 0)
        snprintf(buf, len, "sql: %s", err);
    else if (got == 0)
        snprintf(buf, len, "sql: no row");
    return got == 1 ? 0 : -1;
}

/* "metric A" or "metric A / B" (a ratio, two decimals). */
static int truth_metric(const struct lab *lab, const char *expr_in, char *buf, size_t len, char *why, size_t wlen)
{
    char a[128], b[128], expr[512];
    snprintf(expr, sizeof expr, "%s", expr_in);
    char *slash = strstr(expr, " / ");
    if (slash)
        *slash = 0;
    if (metric_ref(lab, expr, a, sizeof a, why, wlen))
        return -1;
    if (!slash) {
        snprintf(buf, len, "%s", a);
        return 0;
    }
    if (metric_ref(lab, slash + 3, b, sizeof b, why, wlen))
        return -1;
    double x = atof(a), y = atof(b);
    if (y == 0) {
        snprintf(why, wlen, "ratio: division by zero");
        return -1;
    }
    snprintf(buf, len, "%.2f", x / y);
    return 0;
}

/* Group 1 of the first line of c's console that matches the pattern. */
static int truth_regex(const struct lab_scenario *c, const char *pattern, char *buf, size_t len, char *why,
                       size_t wlen)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE)) {
        snprintf(why, wlen, "bad regex");
        return -1;
    }
    regmatch_t m[2];
    int rc = c->out ? regexec(&re, c->out, 2, m, 0) : 1;
    regfree(&re);
    if (rc || m[1].rm_so < 0) {
        snprintf(why, wlen, "regex: no match in %s's console", c->name);
        return -1;
    }
    snprintf(buf, len, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), c->out + m[1].rm_so);
    return 0;
}

/* "sql SCEN: SELECT ..." or "regex SCEN: PATTERN" (t), on one scenario.
 * sql_first's reasons go straight to buf; *direct says so. */
static int truth_scenario(const struct lab *lab, const char *t, char *buf, size_t len, char *why, size_t wlen,
                          bool *direct)
{
    bool sql = t[0] == 's';
    const char *rest = t + (sql ? 4 : 6);
    const char *colon = strchr(rest, ':');
    if (!colon) {
        snprintf(why, wlen, "%s SCENARIO: ...", sql ? "sql" : "regex");
        return -1;
    }
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(colon - rest), rest);
    const struct lab_scenario *c = scen(lab, name);
    if (!c) {
        snprintf(why, wlen, "no scenario '%s'", name);
        return -1;
    }
    const char *body = colon + 1;
    while (isspace((unsigned char)*body))
        body++;
    if (sql) {
        *direct = true;
        return sql_first(c, body, buf, len);
    }
    return truth_regex(c, body, buf, len, why, wlen);
}

/* "compare A B [FLAGS]: FIELD" (t after "compare "): the paired
 * comparison of two recorded scenarios, by the code of runq report
 * compare. verdict is the scenario whose side the sign test finds better
 * (p < LAB_COMPARE_ALPHA), else "none". */
static int truth_compare(const struct lab *lab, const char *t, char *buf, size_t len, char *why, size_t wlen)
{
    char spec[512];
    snprintf(spec, sizeof spec, "%s", t);
    char *colon = strrchr(spec, ':');
    if (!colon) {
        snprintf(why, wlen, "compare A B [FLAGS]: FIELD");
        return -1;
    }
    *colon = 0;
    char *field = colon + 1;
    while (isspace((unsigned char)*field))
        field++;
    enum { VERDICT, P, WINS_A, WINS_B, TIES, LINE, NFIELDS } f = VERDICT;
    static const char *const fields[NFIELDS] = { "verdict", "p", "wins_a", "wins_b", "ties", "line" };
    while (f < NFIELDS && strcmp(field, fields[f]))
        f++;
    if (f == NFIELDS) {
        snprintf(why, wlen, "compare: no field '%.40s' (verdict, p, wins_a, wins_b, ties, line)", field);
        return -1;
    }
    char *word[40], *save = NULL;
    int n = 0;
    for (char *w = strtok_r(spec, " \t", &save); w && n < 40; w = strtok_r(NULL, " \t", &save))
        word[n++] = w;
    if (n < 2) {
        snprintf(why, wlen, "compare A B [FLAGS]: FIELD, two scenarios");
        return -1;
    }
    const struct lab_scenario *side[2] = { scen(lab, word[0]), scen(lab, word[1]) };
    for (int k = 0; k < 2; k++)
        if (!side[k] || !side[k]->db[0]) {
            snprintf(why, wlen, "compare: no recorded scenario '%s'", word[k]);
            return -1;
        }
    struct compare_opts o;
    struct compare_result r;
    char err[256];
    /* Each scenario's database holds one trace, its run: trace 1. */
    if (compare_words(word + 2, n - 2, &o, err, sizeof err) ||
        compare_pair(side[0]->db, "1", side[1]->db, "1", &o, &r, err, sizeof err)) {
        snprintf(why, wlen, "compare %.20s %.20s: %.200s", word[0], word[1], err);
        return -1;
    }
    bool leans_a = r.wins[0] > r.wins[1];
    switch (f) {
    case VERDICT:
        snprintf(buf, len, "%s", r.wins[0] != r.wins[1] && r.p < LAB_COMPARE_ALPHA ? side[!leans_a]->name : "none");
        break;
    case P:
        snprintf(buf, len, "%.2g", r.p);
        break;
    case WINS_A:
    case WINS_B:
        snprintf(buf, len, "%u", r.wins[f == WINS_B]);
        break;
    case TIES:
        snprintf(buf, len, "%u", r.ties);
        break;
    default:
        compare_summary(&r, buf, len);
        break;
    }
    return 0;
}

/* "sim ARGS": the first line of runq sim's output; "sim-answer ARGS": the
 * line after "answer:". */
static int truth_sim(const struct lab *lab, const char *t, long seed, char *buf, size_t len, char *why, size_t wlen)
{
    bool ans = t[3] == '-';
    char args[512];
    snprintf(args, sizeof args, "sim %s", t + (ans ? 11 : 4));
    char *out = lab_self(lab, args, seed);
    if (!out) {
        snprintf(why, wlen, "runq %.200s failed", args);
        return -1;
    }
    const char *l = out;
    if (ans) {
        l = strstr(out, "answer:\n");
        l = l ? l + 8 : NULL;
    }
    if (!l) {
        free(out);
        snprintf(why, wlen, "runq %.200s: no answer line", args);
        return -1;
    }
    snprintf(buf, len, "%.*s", (int)strcspn(l, "\n"), l);
    free(out);
    return 0;
}

int lab_truth(const struct lab *lab, const struct lab_question *q, long seed, char *buf, size_t len)
{
    const char *t = q->truth;
    char why[256] = "";
    bool direct = false; /* the reason is in buf already */
    int rc;
    if (!strncmp(t, "value ", 6)) {
        snprintf(buf, len, "%s", t + 6);
        return 0;
    }
    if (!strcmp(t, "key")) {
        snprintf(buf, len, "%s", LAB_NEEDS_KEY);
        return -1;
    }
    if (!strncmp(t, "metric ", 7))
        rc = truth_metric(lab, t + 7, buf, len, why, sizeof why);
    else if (!strncmp(t, "sql ", 4) || !strncmp(t, "regex ", 6))
        rc = truth_scenario(lab, t, buf, len, why, sizeof why, &direct);
    else if (!strncmp(t, "compare ", 8))
        rc = truth_compare(lab, t + 8, buf, len, why, sizeof why);
    else if (!strncmp(t, "sim ", 4) || !strncmp(t, "sim-answer ", 11))
        rc = truth_sim(lab, t, seed, buf, len, why, sizeof why);
    else {
        snprintf(why, sizeof why, "unknown truth '%s'", t);
        rc = -1;
    }
    if (rc && !direct)
        snprintf(buf, len, "%s", why);
    return rc;
}

char *lab_explain(const struct lab *lab, const char *text)
{
    size_t cap = strlen(text) + 1024, n = 0;
    char *out = xmalloc(cap);
    for (const char *p = text; *p;) {
        bool cmp = !strncmp(p, "{compare ", 9);
        const char *end = cmp || !strncmp(p, "{sql ", 5) ? strchr(p, '}') : NULL;
        char piece[512];
        const char *add = piece;
        size_t alen;
        if (end) {
            char t[1024], why[256] = "";
            bool direct = false;
            snprintf(t, sizeof t, "%.*s", (int)(end - p - 1), p + 1);
            int rc = cmp ? truth_compare(lab, t + 8, piece, sizeof piece, why, sizeof why)
                         : truth_scenario(lab, t, piece, sizeof piece, why, sizeof why, &direct);
            if (rc && !direct)
                snprintf(piece, sizeof piece, "(could not measure: %s)", why);
            alen = strlen(piece);
            p = end + 1;
        } else {
            add = p;
            alen = 1;
            p++;
        }
        if (n + alen + 1 > cap) {
            cap = 2 * (n + alen + 1);
            out = xrealloc(out, cap);
        }
        memcpy(out + n, add, alen);
        n += alen;
    }
    out[n] = 0;
    return out;
}

static void norm_order(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in && o + 1 < len; in++)
        if (isalnum((unsigned char)*in) || *in == '_' || *in == '.')
            out[o++] = (char)toupper((unsigned char)*in);
    out[o] = 0;
}

double lab_tolerance(const struct lab_question *q)
{
    return q->calibrated ? q->spread + q->tol : q->tol;
}

void lab_tol_value(const struct lab_question *q, double tol, char *buf, size_t len)
{
    if (q->tol_rel)
        snprintf(buf, len, "%g%%", tol * 100);
    else
        snprintf(buf, len, "%g", tol);
}

void lab_tol_str(const struct lab *lab, const struct lab_question *q, char *buf, size_t len)
{
    char all[32], spread[32], margin[32];
    lab_tol_value(q, lab_tolerance(q), all, sizeof all);
    if (!q->calibrated) {
        snprintf(buf, len, "%s", all);
        return;
    }
    lab_tol_value(q, q->spread, spread, sizeof spread);
    lab_tol_value(q, q->tol, margin, sizeof margin);
    snprintf(buf, len, "%s (spread over %d seeds ±%s plus margin %s)", all, lab->cal_seeds, spread, margin);
}

bool lab_judge(const struct lab *lab, const struct lab_question *q, const char *answer, const char *truth, char *why,
               size_t len)
{
    double a;
    if (lab_answer_check(q, answer, &a, why, len))
        return false;
    if (q->type == LAB_Q_NUMBER) {
        double t = atof(truth), tol = q->tol_rel ? lab_tolerance(q) * fabs(t) : lab_tolerance(q);
        char ts[128];
        lab_tol_str(lab, q, ts, sizeof ts);
        bool ok = fabs(a - t) <= tol + 1e-9;
        snprintf(why, len, "%g%s%s %s within ±%s of the measured value", a, q->unit[0] ? " " : "", q->unit,
                 ok ? "is" : "is not", ts);
        return ok;
    }
    if (q->type == LAB_Q_CHOICE) {
        const char *b = answer;
        while (isspace((unsigned char)*b))
            b++;
        size_t n = strlen(b);
        while (n && isspace((unsigned char)b[n - 1]))
            n--;
        bool ok = n == strlen(truth) && !strncasecmp(b, truth, n);
        snprintf(why, len, ok ? "right" : "not the answer");
        return ok;
    }
    char an[512], t[512];
    norm_order(answer, an, sizeof an);
    norm_order(truth, t, sizeof t);
    size_t n = q->length > 0 ? (size_t)q->length : strlen(t);
    bool ok = strlen(an) >= n && strlen(t) >= n && !strncmp(an, t, n) && (q->length > 0 || strlen(an) == strlen(t));
    if (ok) {
        snprintf(why, len, "right");
    } else {
        size_t k = 0;
        while (k < n && an[k] && an[k] == t[k])
            k++;
        snprintf(why, len, "wrong from item %zu on (the first %zu count)", k + 1, n);
    }
    return ok;
}
