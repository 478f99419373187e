/*
 * lab.conf: sections and "key = value" lines (docs/labs.md).
 *
 *   title = Who runs next
 *   minutes = 45
 *
 *   [scenario rr]            policy, hz, cpus, append, record, cmd (repeat)
 *   [question q1]            type, prompt (repeat: lines), show, truth,
 *                            choices, tolerance, length, unit, explain (repeat)
 *   [moment]                 scenario, after, find (an event query:
 *                            db/events.h), text
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/lab.h"

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
    char *p = realloc(*dst, old + strlen(v) + 2);
    if (!p) {
        fprintf(stderr, "runq lab: out of memory\n");
        exit(1);
    }
    if (old)
        p[old++] = '\n';
    strcpy(p + old, v);
    *dst = p;
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
    char line[1024];
    int ln = 0;
    enum { S_TOP, S_SCEN, S_Q, S_MOMENT } sect = S_TOP;
#define ERR(...)                                                                                                      \
    do {                                                                                                             \
        fprintf(stderr, "runq lab: %s:%d: ", path, ln);                                                              \
        fprintf(stderr, __VA_ARGS__);                                                                                \
        fprintf(stderr, "\n");                                                                                       \
        fclose(f);                                                                                                   \
        return -1;                                                                                                   \
    } while (0)
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (!end)
                ERR("a section is [scenario NAME], [question ID] or [moment]");
            *end = 0;
            char *kind = trim(s + 1), *name = kind;
            while (*name && !isspace((unsigned char)*name))
                name++;
            if (*name)
                *name++ = 0;
            name = trim(name);
            if (!strcmp(kind, "scenario")) {
                if (lab->nsc == LAB_MAX_SCEN)
                    ERR("at most %d scenarios", LAB_MAX_SCEN);
                if (!*name)
                    ERR("[scenario NAME]: the name is missing");
                sect = S_SCEN;
                snprintf(lab->sc[lab->nsc++].name, sizeof lab->sc[0].name, "%s", name);
            } else if (!strcmp(kind, "question")) {
                if (lab->nq == LAB_MAX_Q)
                    ERR("at most %d questions", LAB_MAX_Q);
                if (!*name)
                    ERR("[question ID]: the id is missing");
                sect = S_Q;
                struct lab_question *q = &lab->q[lab->nq++];
                snprintf(q->id, sizeof q->id, "%s", name);
                q->tol = 0;
            } else if (!strcmp(kind, "moment")) {
                if (lab->nmo == LAB_MAX_MOMENTS)
                    ERR("at most %d moments", LAB_MAX_MOMENTS);
                sect = S_MOMENT;
                lab->nmo++;
            } else {
                ERR("unknown section [%s]", kind);
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq)
            ERR("expected KEY = VALUE");
        *eq = 0;
        char *k = trim(s), *v = trim(eq + 1);
        if (sect == S_TOP) {
            if (!strcmp(k, "title"))
                snprintf(lab->title, sizeof lab->title, "%s", v);
            else if (!strcmp(k, "minutes"))
                lab->minutes = atoi(v);
            else
                ERR("unknown key '%s' (title, minutes)", k);
        } else if (sect == S_SCEN) {
            struct lab_scenario *c = &lab->sc[lab->nsc - 1];
            if (!strcmp(k, "policy")) {
                if (strcmp(v, "rr") && strcmp(v, "eevdf"))
                    ERR("policy is rr or eevdf");
                snprintf(c->policy, sizeof c->policy, "%s", v);
            } else if (!strcmp(k, "hz")) {
                c->hz = atoi(v);
            } else if (!strcmp(k, "cpus")) {
                c->cpus = atoi(v);
            } else if (!strcmp(k, "append")) {
                snprintf(c->append, sizeof c->append, "%s", v);
            } else if (!strcmp(k, "record")) {
                c->record = !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on");
            } else if (!strcmp(k, "cmd")) {
                if (c->ncmd == LAB_MAX_CMDS)
                    ERR("at most %d commands a scenario", LAB_MAX_CMDS);
                if (strchr(v, ';'))
                    ERR("one shell command a cmd line (no ';')");
                c->cmd[c->ncmd++] = strdup(v);
            } else {
                ERR("unknown scenario key '%s' (policy, hz, cpus, append, record, cmd)", k);
            }
        } else if (sect == S_Q) {
            struct lab_question *q = &lab->q[lab->nq - 1];
            if (!strcmp(k, "type")) {
                if (!strcmp(v, "number"))
                    q->type = LAB_Q_NUMBER;
                else if (!strcmp(v, "choice"))
                    q->type = LAB_Q_CHOICE;
                else if (!strcmp(v, "order"))
                    q->type = LAB_Q_ORDER;
                else
                    ERR("type is number, choice or order");
            } else if (!strcmp(k, "prompt")) {
                append_line(&q->prompt, v);
            } else if (!strcmp(k, "explain")) {
                append_line(&q->explain, v);
            } else if (!strcmp(k, "show")) {
                free(q->show);
                q->show = strdup(v);
            } else if (!strcmp(k, "truth")) {
                free(q->truth);
                q->truth = strdup(v);
            } else if (!strcmp(k, "choices")) {
                snprintf(q->choices, sizeof q->choices, "%s", v);
            } else if (!strcmp(k, "tolerance")) {
                char *end;
                q->tol = strtod(v, &end);
                q->tol_rel = *end == '%';
                if (end == v || (*end && *end != '%') || q->tol < 0)
                    ERR("tolerance is a number (absolute) or a percentage");
                if (q->tol_rel)
                    q->tol /= 100;
            } else if (!strcmp(k, "length")) {
                q->length = atoi(v);
            } else if (!strcmp(k, "unit")) {
                snprintf(q->unit, sizeof q->unit, "%s", v);
            } else {
                ERR("unknown question key '%s' (type, prompt, show, truth, choices, tolerance, length, unit, "
                    "explain)",
                    k);
            }
        } else {
            struct lab_moment *m = &lab->mo[lab->nmo - 1];
            if (!strcmp(k, "scenario"))
                snprintf(m->scenario, sizeof m->scenario, "%s", v);
            else if (!strcmp(k, "after"))
                snprintf(m->after, sizeof m->after, "%s", v);
            else if (!strcmp(k, "find")) {
                char why[160];
                snprintf(m->find, sizeof m->find, "%s", v);
                if (event_query_parse(v, &m->query, why, sizeof why) != 0)
                    ERR("find: %s", why);
            }
            else if (!strcmp(k, "text"))
                append_line(&m->text, v);
            else
                ERR("unknown moment key '%s' (scenario, after, find, text)", k);
        }
    }
    fclose(f);
    for (int i = 0; i < lab->nq; i++) {
        ln = 0;
        if (!lab->q[i].prompt || !lab->q[i].truth) {
            fprintf(stderr, "runq lab: %s: question %s needs a prompt and a truth\n", path, lab->q[i].id);
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
#undef ERR
}

void lab_free(struct lab *lab)
{
    for (int i = 0; i < lab->nsc; i++) {
        for (int j = 0; j < lab->sc[i].ncmd; j++)
            free(lab->sc[i].cmd[j]);
        free(lab->sc[i].out);
    }
    for (int i = 0; i < lab->nq; i++) {
        free(lab->q[i].prompt);
        free(lab->q[i].show);
        free(lab->q[i].truth);
        free(lab->q[i].explain);
    }
    for (int i = 0; i < lab->nmo; i++)
        free(lab->mo[i].text);
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

int lab_answers_load(struct lab_answers *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->seed = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
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
        if (a->n == LAB_MAX_Q + 1)
            break;
        snprintf(a->id[a->n], sizeof a->id[0], "%s", k);
        snprintf(a->val[a->n], sizeof a->val[0], "%s", v);
        a->n++;
    }
    fclose(f);
    return 0;
}

const char *lab_answer(const struct lab_answers *a, const char *id)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->id[i], id))
            return a->val[i];
    return NULL;
}
