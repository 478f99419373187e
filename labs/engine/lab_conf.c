/*
 * lab.conf: sections and "key = value" lines (docs/labs.md).
 *
 *   title = Who runs next
 *   minutes = 45
 *   variants = 20            a course's variant count (runq lab pack --variants)
 *
 *   [scenario rr]            policy, hz, cpus, append, record, cmd (repeat),
 *                            or scenario_file and set (repeat): a scenario
 *                            file (docs/scenarios.md) and its cell
 *   [question q1]            type, prompt (repeat: lines), show, truth,
 *                            choices, tolerance or margin, length, unit,
 *                            min, max, phase, explain (repeat)
 *   [moment]                 scenario, after, at (SQL giving a time), find
 *                            (an event query: db/events.h), text
 *
 * and the lab's calibration file, which runq lab calibrate --write makes:
 *
 *   seeds = 5
 *   rr_2 = 12%               a question's spread over those seeds, of its
 *                            margin's kind (relative or absolute)
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "labs/engine/lab.h"
#include "db/visible.h"
#include "eevdf_features.h"
#include "host/base/xalloc.h"
#include "host/scenario/scenario.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

/* Appends a line to a multi-line text. */
static void append_line(char **dst, const char *v)
{
    size_t old = *dst ? strlen(*dst) : 0;
    char *p = xrealloc(*dst, old + strlen(v) + 2);
    if (old)
        p[old++] = '\n';
    strcpy(p + old, v);
    *dst = p;
}

/* Where lab.conf is being read, for its messages. */
struct conf {
    const char *path;
    const char *dir; /* the lab's folder */
    int ln;
};

/* Prints "runq lab: FILE:LINE: message" and returns -1. */
static int conf_err(const struct conf *cf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int conf_err(const struct conf *cf, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "runq lab: %s:%d: ", cf->path, cf->ln);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return -1;
}

enum conf_section { S_TOP, S_SCEN, S_Q, S_MOMENT };

/* A "[kind name]" line (s, its closing ']' still on): starts a scenario,
 * a question or a moment. */
static int conf_section(const struct conf *cf, struct lab *lab, char *s, enum conf_section *sect)
{
    char *end = strchr(s, ']');
    if (!end)
        return conf_err(cf, "a section is [scenario NAME], [question ID] or [moment]");
    *end = 0;
    char *kind = trim(s + 1), *name = kind;
    while (*name && !isspace((unsigned char)*name))
        name++;
    if (*name)
        *name++ = 0;
    name = trim(name);
    if (!strcmp(kind, "scenario")) {
        if (lab->nsc == LAB_MAX_SCEN)
            return conf_err(cf, "at most %d scenarios", LAB_MAX_SCEN);
        if (!*name)
            return conf_err(cf, "[scenario NAME]: the name is missing");
        *sect = S_SCEN;
        snprintf(lab->sc[lab->nsc++].name, sizeof lab->sc[0].name, "%s", name);
    } else if (!strcmp(kind, "question")) {
        if (lab->nq == LAB_MAX_Q)
            return conf_err(cf, "at most %d questions", LAB_MAX_Q);
        if (!*name)
            return conf_err(cf, "[question ID]: the id is missing");
        *sect = S_Q;
        struct lab_question *q = &lab->q[lab->nq++];
        snprintf(q->id, sizeof q->id, "%s", name);
    } else if (!strcmp(kind, "moment")) {
        if (lab->nmo == LAB_MAX_MOMENTS)
            return conf_err(cf, "at most %d moments", LAB_MAX_MOMENTS);
        *sect = S_MOMENT;
        lab->nmo++;
    } else {
        return conf_err(cf, "unknown section [%s]", kind);
    }
    return 0;
}

/* Before any section: the lab's title and time. */
static int conf_top_key(const struct conf *cf, struct lab *lab, const char *k, const char *v)
{
    if (!strcmp(k, "title"))
        snprintf(lab->title, sizeof lab->title, "%s", v);
    else if (!strcmp(k, "minutes"))
        lab->minutes = atoi(v);
    else if (!strcmp(k, "variants")) {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (end == v || *end || errno || n < 1 || n > LAB_VARIANTS_MAX) {
            char shown[64];
            text_visible(shown, sizeof shown, v);
            return conf_err(cf, "variants = '%s': a whole number of variants, 1..%d", shown, LAB_VARIANTS_MAX);
        }
        lab->variants = (int)n;
    } else
        return conf_err(cf, "unknown key '%s' (title, minutes, variants)", k);
    return 0;
}

void lab_scenario_path(const char *dir, const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    if (path[0] == '/') {
        snprintf(buf, len, "%s", path);
        return;
    }
    snprintf(buf, len, "%s/%s", dir, base ? base + 1 : path);
    if (access(buf, R_OK) != 0)
        snprintf(buf, len, "%s/../../%s", dir, path);
}

/* scenario_file = PATH: the scenario is read now, so that a bad file is
 * refused with its own line; its cell is set by the set lines after. */
static int conf_scenario_file(const struct conf *cf, struct lab_scenario *c, const char *v)
{
    char path[1024], err[400];
    if (c->scn)
        return conf_err(cf, "one scenario_file a scenario");
    if (strlen(v) >= sizeof c->scn_file)
        return conf_err(cf, "scenario_file: the path is longer than %zu", sizeof c->scn_file - 1);
    lab_scenario_path(cf->dir, v, path, sizeof path);
    c->scn = xmalloc(sizeof *c->scn);
    if (scn_load(path, c->scn, err, sizeof err) != 0)
        return conf_err(cf, "scenario_file: %s", err);
    snprintf(c->scn_file, sizeof c->scn_file, "%s", v);
    return 0;
}

/* set = KEY=VALUE: the scenario's cell, as a vary axis KEY takes VALUE
 * (hog.count=8, probe.slice=100us, switch=HRTICK, run=6s). */
static int conf_scenario_set(const struct conf *cf, struct lab_scenario *c, const char *v)
{
    char key[SCN_KEY_MAX + SCN_VALUE_MAX], err[400];
    const char *eq = strchr(v, '=');
    if (!c->scn)
        return conf_err(cf, "set needs a scenario_file = PATH before it");
    if (!eq || eq == v || (size_t)(eq - v) >= sizeof key)
        return conf_err(cf, "set is KEY=VALUE, a vary axis and one of its values (hog.count=8)");
    snprintf(key, sizeof key, "%.*s", (int)(eq - v), v);
    if (scn_apply(c->scn, key, eq + 1, err, sizeof err) != 0)
        return conf_err(cf, "set %s: %s", v, err);
    size_t n = strlen(c->scn_set);
    if (n + strlen(v) + 2 > sizeof c->scn_set)
        return conf_err(cf, "set: too many sets for one scenario");
    snprintf(c->scn_set + n, sizeof c->scn_set - n, "%s%s", n ? " " : "", v);
    return 0;
}

/* A key of a [scenario]: how runq boot runs it. */
static int conf_scenario_key(const struct conf *cf, struct lab_scenario *c, const char *k, const char *v)
{
    if (!strcmp(k, "scenario_file")) {
        return conf_scenario_file(cf, c, v);
    } else if (!strcmp(k, "set")) {
        return conf_scenario_set(cf, c, v);
    } else if (!strcmp(k, "policy")) {
        if (!scn_policy_known(v))
            return conf_err(cf, "policy is rr or eevdf");
        snprintf(c->policy, sizeof c->policy, "%s", v);
    } else if (!strcmp(k, "hz")) {
        c->hz = atoi(v);
    } else if (!strcmp(k, "cpus")) {
        c->cpus = atoi(v);
    } else if (!strcmp(k, "append")) {
        snprintf(c->append, sizeof c->append, "%s", v);
    } else if (!strcmp(k, "record")) {
        c->record = !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on");
    } else if (!strcmp(k, "variant")) {
        if (strcmp(v, "yes") && strcmp(v, "no"))
            return conf_err(cf, "variant is yes (the kernel boots with the student's seed) or no");
        c->variant = !strcmp(v, "yes");
    } else if (!strcmp(k, "cmd")) {
        if (c->ncmd == LAB_MAX_CMDS)
            return conf_err(cf, "at most %d commands a scenario", LAB_MAX_CMDS);
        if (strchr(v, ';'))
            return conf_err(cf, "one shell command a cmd line (no ';')");
        c->cmd[c->ncmd++] = xstrdup(v);
    } else {
        return conf_err(cf,
                        "unknown scenario key '%s' (policy, hz, cpus, append, record, variant, cmd, scenario_file, "
                        "set)",
                        k);
    }
    return 0;
}

/* "12.5" (absolute) or "40%" (a fraction of the truth), into *x and *rel. */
static int conf_amount(const char *v, double *x, bool *rel)
{
    char *end;
    *x = strtod(v, &end);
    *rel = *end == '%';
    if (end == v || (*end && (*end != '%' || end[1])) || *x < 0)
        return -1;
    if (*rel)
        *x /= 100;
    return 0;
}

/* tolerance = X (fixed) or margin = X (added to the calibrated spread). */
static int conf_tolerance(const struct conf *cf, struct lab_question *q, const char *k, const char *v)
{
    if (conf_amount(v, &q->tol, &q->tol_rel))
        return conf_err(cf, "%s is a number (absolute) or a percentage", k);
    q->calibrated = !strcmp(k, "margin");
    return 0;
}

/* A key of a [question]: what is asked and how an answer is judged. */
static int conf_question_key(const struct conf *cf, struct lab_question *q, const char *k, const char *v)
{
    if (!strcmp(k, "type")) {
        if (!strcmp(v, "number"))
            q->type = LAB_Q_NUMBER;
        else if (!strcmp(v, "choice"))
            q->type = LAB_Q_CHOICE;
        else if (!strcmp(v, "order"))
            q->type = LAB_Q_ORDER;
        else
            return conf_err(cf, "type is number, choice or order");
    } else if (!strcmp(k, "prompt")) {
        append_line(&q->prompt, v);
    } else if (!strcmp(k, "explain")) {
        append_line(&q->explain, v);
    } else if (!strcmp(k, "show")) {
        free(q->show);
        q->show = xstrdup(v);
    } else if (!strcmp(k, "truth")) {
        free(q->truth);
        q->truth = xstrdup(v);
    } else if (!strcmp(k, "choices")) {
        snprintf(q->choices, sizeof q->choices, "%s", v);
    } else if (!strcmp(k, "tolerance") || !strcmp(k, "margin")) {
        return conf_tolerance(cf, q, k, v);
    } else if (!strcmp(k, "length")) {
        q->length = atoi(v);
    } else if (!strcmp(k, "unit")) {
        snprintf(q->unit, sizeof q->unit, "%s", v);
    } else if (!strcmp(k, "min") || !strcmp(k, "max")) {
        char *end;
        double x = strtod(v, &end);
        if (end == v || *end)
            return conf_err(cf, "%s is a number in the question's unit", k);
        if (k[1] == 'i') {
            q->min = x;
            q->has_min = true;
        } else {
            q->max = x;
            q->has_max = true;
        }
    } else if (!strcmp(k, "phase")) {
        if (strcmp(v, "before") && strcmp(v, "after"))
            return conf_err(cf, "phase is before (predicted) or after (answered after stepping)");
        q->after = !strcmp(v, "after");
    } else {
        return conf_err(cf,
                        "unknown question key '%s' (type, prompt, show, truth, choices, tolerance, margin, length, "
                        "unit, min, max, phase, explain)",
                        k);
    }
    return 0;
}

/* A key of a [moment]: where in which trace, and what to say. */
static int conf_moment_key(const struct conf *cf, struct lab_moment *m, const char *k, const char *v)
{
    if (!strcmp(k, "scenario")) {
        snprintf(m->scenario, sizeof m->scenario, "%s", v);
    } else if (!strcmp(k, "after")) {
        snprintf(m->after, sizeof m->after, "%s", v);
    } else if (!strcmp(k, "at")) {
        free(m->at);
        m->at = xstrdup(v);
    } else if (!strcmp(k, "find")) {
        char why[160];
        snprintf(m->find, sizeof m->find, "%s", v);
        if (event_query_parse(v, &m->query, why, sizeof why) != 0)
            return conf_err(cf, "find: %s", why);
    } else if (!strcmp(k, "text")) {
        append_line(&m->text, v);
    } else {
        return conf_err(cf, "unknown moment key '%s' (scenario, after, at, find, text)", k);
    }
    return 0;
}

bool lab_conf_pair(char *line, char **key, char **value)
{
    char *s = trim(line), *eq = strchr(s, '=');
    if (!*s || *s == '#' || *s == '[' || !eq)
        return false;
    *eq = 0;
    *key = trim(s);
    *value = trim(eq + 1);
    return true;
}

/* One line of lab.conf (newline removed). */
static int conf_line(const struct conf *cf, struct lab *lab, char *line, enum conf_section *sect)
{
    char *s = trim(line), *k, *v;
    if (!*s || *s == '#')
        return 0;
    if (*s == '[')
        return conf_section(cf, lab, s, sect);
    if (!lab_conf_pair(s, &k, &v))
        return conf_err(cf, "expected KEY = VALUE");
    switch (*sect) {
    case S_TOP:
        return conf_top_key(cf, lab, k, v);
    case S_SCEN:
        return conf_scenario_key(cf, &lab->sc[lab->nsc - 1], k, v);
    case S_Q:
        return conf_question_key(cf, &lab->q[lab->nq - 1], k, v);
    case S_MOMENT:
        return conf_moment_key(cf, &lab->mo[lab->nmo - 1], k, v);
    }
    return 0;
}

static bool truth_measured(const char *t)
{
    return !strncmp(t, "metric ", 7) || !strncmp(t, "sql ", 4) || !strncmp(t, "regex ", 6) ||
           !strncmp(t, "compare ", 8);
}

bool lab_truth_measured(const struct lab_question *q)
{
    return q->truth && truth_measured(q->truth);
}

bool lab_truth_computed(const char *truth)
{
    return truth_measured(truth) || !strncmp(truth, "sim ", 4) || !strncmp(truth, "sim-answer ", 11);
}

/* What only the whole file can say: every question has a prompt and a
 * truth, every moment names a recorded scenario. A number measured on the
 * run and predicted before it is judged within its spread over seeds plus
 * a margin, never a tolerance written by hand; one answered after stepping
 * is read off the student's own run, so its tolerance is fixed. */
static int conf_complete(const struct lab *lab, const char *path)
{
    for (int i = 0; i < lab->nq; i++) {
        const struct lab_question *q = &lab->q[i];
        const char *why = NULL;
        if (!q->prompt || !q->truth)
            why = "needs a prompt and a truth";
        else if (q->type == LAB_Q_NUMBER && lab_truth_measured(q) && !q->after && !q->calibrated)
            why = "is measured on the run and predicted: write margin = ... (added to the spread runq lab "
                  "calibrate --write measures), not tolerance";
        else if (q->calibrated && (q->after || q->type != LAB_Q_NUMBER))
            why = "has a margin, but only a number predicted before the run is calibrated: write tolerance";
        if (why) {
            fprintf(stderr, "runq lab: %s: question %s %s\n", path, q->id, why);
            return -1;
        }
    }
    for (int i = 0; i < lab->nmo; i++) {
        bool found = false;
        for (int j = 0; j < lab->nsc; j++)
            found |= !strcmp(lab->sc[j].name, lab->mo[i].scenario) && lab->sc[j].record;
        if (!found) {
            fprintf(stderr, "runq lab: %s: moment %d names no recorded scenario '%s'\n", path, i + 1,
                    lab->mo[i].scenario);
            return -1;
        }
    }
    return 0;
}

int lab_scenario_program(struct lab_scenario *c, long seed)
{
    struct scenario *s = c->scn;
    char err[400];
    if (!s)
        return 0;
    for (int i = 0; i < c->ncmd; i++)
        free(c->cmd[i]);
    c->ncmd = 0;
    for (int i = 0; i < s->nfeatures && c->ncmd < LAB_MAX_CMDS; i++) {
        char line[80];
        snprintf(line, sizeof line, "sched feature %s %s",
                 eevdf_feature_name((enum eevdf_feature)s->features[i].feature), s->features[i].on ? "on" : "off");
        c->cmd[c->ncmd++] = xstrdup(line);
    }
    int order[SCN_MAX_KNOBS];
    scn_knob_order(s, order);
    for (int i = 0; i < s->nknobs && c->ncmd < LAB_MAX_CMDS; i++) {
        char line[80];
        snprintf(line, sizeof line, "sched knob %s %lld", scn_knob_name(s->knobs[order[i]].knob),
                 (long long)s->knobs[order[i]].value);
        c->cmd[c->ncmd++] = xstrdup(line);
    }
    uint64_t file_seed = s->seed;
    if (c->variant)
        s->seed = (uint64_t)seed;
    int n = scn_kprog(s, c->cmd + c->ncmd, LAB_MAX_CMDS - c->ncmd, err, sizeof err);
    s->seed = file_seed;
    if (n < 0) {
        fprintf(stderr, "runq lab: scenario %s: %s\n", c->name, err);
        return -1;
    }
    c->ncmd += n;
    return 0;
}

/* A scenario given as a file: the machine is the file's (change it with
 * set = hz=1000), the commands its program; the cell, once every set is
 * applied, must pass the file's checks. */
static int conf_scenarios(struct lab *lab, const char *path)
{
    for (int i = 0; i < lab->nsc; i++) {
        struct lab_scenario *c = &lab->sc[i];
        char err[400];
        if (!c->scn)
            continue;
        if (c->policy[0] || c->hz || c->cpus || c->ncmd) {
            fprintf(stderr,
                    "runq lab: %s: scenario %s: the scenario file says the machine and the commands; write set = "
                    "hz=... (policy, cpus) instead of policy, hz, cpus or cmd\n",
                    path, c->name);
            return -1;
        }
        if (scn_check(c->scn, err, sizeof err) != 0) {
            fprintf(stderr, "runq lab: %s: scenario %s (%s): %s\n", path, c->name, c->scn_set, err);
            return -1;
        }
        snprintf(c->policy, sizeof c->policy, "%s", c->scn->policy);
        c->hz = (int)c->scn->hz;
        c->cpus = (int)c->scn->cpus;
        if (lab_scenario_program(c, (long)c->scn->seed))
            return -1;
    }
    return 0;
}

/* One "ID = SPREAD" or "seeds = K" line of the calibration file. */
static int calibration_line(const struct conf *cf, struct lab *lab, char *line)
{
    char *s = trim(line);
    if (!*s || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (!eq)
        return conf_err(cf, "expected ID = SPREAD");
    *eq = 0;
    char *k = trim(s), *v = trim(eq + 1);
    if (!strcmp(k, "seeds")) {
        lab->cal_seeds = atoi(v);
        return lab->cal_seeds >= 2 ? 0 : conf_err(cf, "seeds is how many seeds the spread is over, 2 or more");
    }
    for (int i = 0; i < lab->nq; i++) {
        struct lab_question *q = &lab->q[i];
        if (strcmp(q->id, k))
            continue;
        bool rel;
        if (!q->calibrated)
            return conf_err(cf, "question %s has no margin = ...: it is not calibrated", k);
        if (conf_amount(v, &q->spread, &rel))
            return conf_err(cf, "%s: a spread is a number (absolute) or a percentage", k);
        if (rel != q->tol_rel)
            return conf_err(cf, "%s: the spread is %s but the margin is %s; run runq lab calibrate %d --write", k,
                            rel ? "relative" : "absolute", q->tol_rel ? "relative" : "absolute", lab->number);
        q->has_spread = true;
        return 0;
    }
    return conf_err(cf, "no question '%s' in lab.conf", k);
}

/* dir/calibration, when there is one: each calibrated question's spread. */
static int calibration_load(struct lab *lab, const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/calibration", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    struct conf cf = { .path = path };
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (!rc && getline(&line, &cap, f) > 0) {
        cf.ln++;
        line[strcspn(line, "\n")] = 0;
        rc = calibration_line(&cf, lab, line);
    }
    free(line);
    fclose(f);
    if (!rc && !lab->cal_seeds) {
        cf.ln = 0;
        rc = conf_err(&cf, "no seeds = K line");
    }
    return rc;
}

int lab_load(struct lab *lab, const char *dir)
{
    memset(lab, 0, sizeof *lab);
    snprintf(lab->dir, sizeof lab->dir, "%s", dir);
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    snprintf(lab->name, sizeof lab->name, "%s", base);
    lab->number = atoi(base);
    char path[600];
    snprintf(path, sizeof path, "%s/lab.conf", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "runq lab: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct conf cf = { .path = path, .dir = dir };
    enum conf_section sect = S_TOP;
    /* A line of any length is one line: a fixed buffer read a long explain
     * line as several, and lab pack copied its tail to the student. */
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        cf.ln++;
        line[strcspn(line, "\n")] = 0;
        if (conf_line(&cf, lab, line, &sect) != 0) {
            free(line);
            fclose(f);
            lab_free(lab); /* what the lines before it allocated */
            return -1;
        }
    }
    free(line);
    fclose(f);
    if (conf_complete(lab, path) || conf_scenarios(lab, path) || calibration_load(lab, dir)) {
        lab_free(lab);
        return -1;
    }
    return 0;
}

int lab_require_calibration(const struct lab *lab)
{
    for (int i = 0; i < lab->nq; i++) {
        if (lab->q[i].calibrated && !lab->q[i].has_spread) {
            fprintf(stderr,
                    "runq lab: %s: question %s has a margin but no calibrated spread in %s/calibration; "
                    "run runq lab calibrate %d --write\n",
                    lab->name, lab->q[i].id, lab->dir, lab->number);
            return -1;
        }
    }
    return 0;
}

void lab_free(struct lab *lab)
{
    for (int i = 0; i < lab->nsc; i++) {
        for (int j = 0; j < lab->sc[i].ncmd; j++)
            free(lab->sc[i].cmd[j]);
        free(lab->sc[i].out);
        free(lab->sc[i].scn);
    }
    for (int i = 0; i < lab->nq; i++) {
        free(lab->q[i].prompt);
        free(lab->q[i].show);
        free(lab->q[i].truth);
        free(lab->q[i].explain);
    }
    for (int i = 0; i < lab->nmo; i++) {
        free(lab->mo[i].text);
        free(lab->mo[i].at);
    }
    memset(lab, 0, sizeof *lab);
}

const char *lab_root(char *buf, size_t len)
{
    const char *env = getenv("RUNQ_LABS");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return buf;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0; /* .../build */
            snprintf(buf, len, "%s/../labs", exe);
            if (access(buf, R_OK) == 0)
                return buf;
            snprintf(buf, len, "%s/labs", exe);
            if (access(buf, R_OK) == 0)
                return buf;
        }
    }
    snprintf(buf, len, "labs");
    return buf;
}

/* Opens an answers file for reading, refusing what is not one: with
 * nofollow a symbolic link (lab grade: a link to the key is not a
 * student's answers), and anything but a regular file (a directory reads
 * as no answers, a FIFO would block, /dev/zero never ends). O_NONBLOCK so
 * that opening a FIFO returns at once, to be refused by fstat. */
static FILE *answers_open(const char *path, bool nofollow, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (nofollow && errno == ELOOP)
            snprintf(err, errlen, "a symbolic link: only regular files are graded");
        else
            snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    FILE *f = NULL;
    if (S_ISDIR(st.st_mode))
        snprintf(err, errlen, "not a regular file: a directory");
    else if (!S_ISREG(st.st_mode))
        snprintf(err, errlen, "not a regular file");
    else if (st.st_size > LAB_ANSWERS_MAX)
        snprintf(err, errlen, "longer than %d bytes: not an answers file", LAB_ANSWERS_MAX);
    else if (!(f = fdopen(fd, "r")))
        snprintf(err, errlen, "%s", strerror(errno));
    if (!f)
        close(fd);
    return f;
}

int lab_answers_load(struct lab_answers *a, const char *path, bool nofollow, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->seed = -1;
    FILE *f = answers_open(path, nofollow, err, errlen);
    if (!f)
        return -1;
    /* Lines of any length (the file is bounded): a fixed buffer split a
     * long line, and its tail read as a line of its own ("seed = 1"). */
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq)
            continue;
        *eq = 0;
        char *k = trim(s), *v = trim(eq + 1);
        if (!strcmp(k, "seed")) {
            a->seed = atol(v);
            continue;
        }
        if (!strcmp(k, "student")) {
            /* Two different IDs in one file: which student is it? */
            a->two_students = a->two_students || (a->student[0] && strcmp(a->student, v));
            snprintf(a->student, sizeof a->student, "%s", v);
            continue;
        }
        if (a->n == LAB_MAX_Q + 1)
            break;
        snprintf(a->id[a->n], sizeof a->id[0], "%s", k);
        char *hash = strchr(v, '#');
        a->why[a->n][0] = 0;
        if (hash) {
            *hash = 0;
            snprintf(a->why[a->n], sizeof a->why[0], "%s", trim(hash + 1));
            v = trim(v);
        }
        snprintf(a->val[a->n], sizeof a->val[0], "%s", v);
        a->n++;
    }
    free(line);
    fclose(f);
    return 0;
}

int lab_student_id_check(const char *id, char *why, size_t len)
{
    size_t n = strlen(id);
    bool ok = n >= 1 && n <= LAB_STUDENT_ID_MAX && id[0] != '.';
    for (const char *p = id; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
             *p == '_' || *p == '-';
    if (!ok)
        snprintf(why, len, "an ID is 1 to %d letters, digits, '.', '_' or '-', not starting with '.'",
                 LAB_STUDENT_ID_MAX);
    return ok ? 0 : -1;
}

const char *lab_answer(const struct lab_answers *a, const char *id)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->id[i], id))
            return a->val[i];
    return NULL;
}

const char *lab_reasoning(const struct lab_answers *a, const char *id)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->id[i], id))
            return a->why[i];
    return "";
}

void lab_answer_value(const char *line, char *out, size_t len)
{
    snprintf(out, len, "%s", line);
    char *hash = strchr(out, '#');
    if (hash)
        *hash = 0;
    char *t = trim(out);
    memmove(out, t, strlen(t) + 1);
}

void lab_copy_stream(FILE *in, FILE *out)
{
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **lab_sorted_names(const char *dir, bool (*keep)(const char *name), int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 16;
    char **names = xmalloc(cap * sizeof *names);
    struct dirent *e;
    *n = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !keep(e->d_name))
            continue;
        if ((size_t)*n == cap) {
            names = xreallocarray(names, 2 * cap, sizeof *names);
            cap *= 2;
        }
        names[(*n)++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)*n, sizeof *names, name_cmp);
    return names;
}
