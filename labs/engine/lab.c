/*
 * What runq lab does once its words are read (host/cli/lab.c): list the
 * labs, show one, run it, check or grade answers, calibrate it.
 *
 * A lab's scenarios are `runq boot --deterministic` runs (the same numbers
 * on every machine), two at a time, each console kept in the output folder
 * and each recorded trace in its own database there. The format of a lab
 * is in labs/engine/lab.h and docs/labs.md.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "host/engine/kernel/boot.h"
#include "db/query.h"
#include "labs/engine/lab.h"
#include "labs/engine/lab_cache.h"
#include "db/dbfile.h"
#include "db/visible.h"
#include "host/base/xalloc.h"
#include "host/scenario/scenario.h"
#include "tui/step.h"

#define LAB_JOBS 2
#define LAB_BOOT_TIMEOUT "120"

/* The lab called which (a number or a folder name) in root, or in
 * lab_root() when root is NULL. */
static int find_lab(const char *which, const char *root_in, char *dir, size_t len)
{
    char root[512];
    if (root_in)
        snprintf(root, sizeof root, "%s", root_in);
    else
        lab_root(root, sizeof root);
    DIR *d = opendir(root);
    if (!d) {
        fprintf(stderr, "runq lab: %s: %s\n", root, strerror(errno));
        return -1;
    }
    char *endp;
    long n = strtol(which, &endp, 10);
    bool numeric = endp != which && !*endp;
    struct dirent *e;
    int found = -1;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if ((numeric && atol(e->d_name) == n && strchr(e->d_name, '-')) || !strcmp(e->d_name, which)) {
            snprintf(dir, len, "%.380s/%.200s", root, e->d_name);
            found = 0;
            break;
        }
    }
    closedir(d);
    if (found)
        fprintf(stderr, "runq lab: no lab '%s' in %s; see runq lab list\n", which, root);
    return found;
}

static bool is_lab_name(const char *name)
{
    return name[0] >= '0' && name[0] <= '9' && strchr(name, '-');
}

int lab_list(void)
{
    char root[512];
    lab_root(root, sizeof root);
    int n;
    char **names = lab_sorted_names(root, is_lab_name, &n);
    if (!names) {
        fprintf(stderr, "runq lab: %s: %s\n", root, strerror(errno));
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        struct lab lab;
        if (lab_load(&lab, dir) == 0) {
            printf("%2d  %-22s %-30s %2d questions, about %d min\n", lab.number, lab.name, lab.title, lab.nq,
                   lab.minutes);
            lab_free(&lab);
        } else {
            rc = 1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int cat_file(const char *dir, const char *name, FILE *out)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    lab_copy_stream(f, out);
    fclose(f);
    return 0;
}

static const char *type_name(enum lab_qtype t)
{
    return t == LAB_Q_NUMBER ? "number" : t == LAB_Q_CHOICE ? "choice" : "order";
}

/* Text with {lab} replaced by the lab's folder, as lab_self() does for a
 * command (heap). */
static char *expand_lab(const struct lab *lab, const char *text)
{
    size_t n = strlen(text) + 1, dl = strlen(lab->dir);
    for (const char *p = strstr(text, "{lab}"); p; p = strstr(p + 5, "{lab}"))
        n += dl;
    char *out = xmalloc(n), *o = out;
    for (const char *p = text; *p;) {
        if (!strncmp(p, "{lab}", 5)) {
            memcpy(o, lab->dir, dl);
            o += dl;
            p += 5;
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return out;
}

static void print_question(const struct lab *lab, const struct lab_question *q, long seed, FILE *out)
{
    char *prompt = expand_lab(lab, q->prompt ? q->prompt : "");
    fprintf(out, "\n[%s] (%s%s%s%s)\n%s\n", q->id, type_name(q->type), q->unit[0] ? ", in " : "", q->unit,
            q->after ? "; answered after stepping" : "", prompt ? prompt : "");
    free(prompt);
    if (q->type == LAB_Q_CHOICE && q->choices[0])
        fprintf(out, "  choices: %s\n", q->choices);
    if (q->type == LAB_Q_NUMBER && q->unit[0])
        fprintf(out, "  (a unit may be typed: 1.4ms, 25356 us, 25%%; it is converted to %s)\n", q->unit);
    if (q->show) {
        char *s = lab_self(lab, q->show, seed);
        if (s) {
            fprintf(out, "%s", s);
            free(s);
        }
    }
}

/* The machine each scenario boots: the student must know what they predict for. */
static void print_scenarios(const struct lab *lab, FILE *out)
{
    fprintf(out, "\n---- the scenarios (runq boot --deterministic) ----\n");
    for (int i = 0; i < lab->nsc; i++) {
        const struct lab_scenario *c = &lab->sc[i];
        char hz[32];
        if (c->hz)
            snprintf(hz, sizeof hz, "%d Hz", c->hz);
        else
            snprintf(hz, sizeof hz, "the kernel's default Hz");
        fprintf(out, "  %-8s policy %s, %s, %d CPUs%s%s%s:", c->name, c->policy[0] ? c->policy : "(default)", hz,
                c->cpus ? c->cpus : BOOT_DEFAULT_CPUS, c->append[0] ? ", kernel args " : "", c->append,
                c->variant ? ", your seed" : "");
        /* A scenario file is read as written, not as the scn lines made of it. */
        if (c->scn)
            fprintf(out, " %s%s%s", c->scn_file, c->scn_set[0] ? " with " : "", c->scn_set);
        for (int k = 0; k < c->ncmd && !c->scn; k++)
            fprintf(out, "%s %s", k ? ";" : "", c->cmd[k]);
        fprintf(out, "\n");
    }
}

static int lab_show(struct lab *lab, long seed)
{
    if (cat_file(lab->dir, "README.md", stdout))
        printf("%s\n", lab->title);
    print_scenarios(lab, stdout);
    printf("\n---- questions ----\n");
    for (int i = 0; i < lab->nq; i++)
        print_question(lab, &lab->q[i], seed, stdout);
    return 0;
}

/* ---- running the scenarios ---- */

static int mkdirs(const char *path)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    if (mkdir(buf, 0755) && errno != EEXIST) {
        fprintf(stderr, "runq lab: %s: %s\n", buf, strerror(errno));
        return -1;
    }
    return 0;
}

/* The boot line of scenario c, into argv (at least 16 + 2 * LAB_MAX_CMDS
 * + 1 slots; the strings in bufs), with c->console and c->db set to where
 * this run writes. The trace database's path is argv[dbarg] (0: none), so
 * that the run cache can leave it out of the run's key. */
struct boot_line {
    const char *argv[16 + 2 * LAB_MAX_CMDS];
    char cpus[16], hz[16], append[200];
    int dbarg;
};

static void scenario_line(struct lab_scenario *c, const char *outdir, long seed, struct boot_line *b)
{
    const char **argv = b->argv;
    int n = 0;
    argv[n++] = "runq";
    argv[n++] = "boot";
    argv[n++] = "--deterministic";
    argv[n++] = "--timeout";
    argv[n++] = LAB_BOOT_TIMEOUT;
    if (c->policy[0]) {
        argv[n++] = "--policy";
        argv[n++] = c->policy;
    }
    if (c->hz) {
        snprintf(b->hz, sizeof b->hz, "%d", c->hz);
        argv[n++] = "--hz";
        argv[n++] = b->hz;
    }
    if (c->cpus) {
        snprintf(b->cpus, sizeof b->cpus, "%d", c->cpus);
        argv[n++] = "--cpus";
        argv[n++] = b->cpus;
    }
    /* A variant scenario boots with the student's seed: their own numbers. */
    snprintf(b->append, sizeof b->append, "%s%s", c->append, c->variant ? (c->append[0] ? " seed=" : "seed=") : "");
    if (c->variant)
        snprintf(b->append + strlen(b->append), sizeof b->append - strlen(b->append), "%ld", seed);
    if (b->append[0]) {
        argv[n++] = "--append";
        argv[n++] = b->append;
    }
    char name[sizeof c->name]; /* a copy: GCC cannot tell c->name from c->console */
    memcpy(name, c->name, sizeof name);
    snprintf(c->console, sizeof c->console, "%s/%s.console", outdir, name);
    c->db[0] = 0;
    b->dbarg = 0;
    if (c->record) {
        snprintf(c->db, sizeof c->db, "%s/%s.db", outdir, name);
        argv[n++] = "--record";
        b->dbarg = n;
        argv[n++] = c->db;
    }
    for (int i = 0; i < c->ncmd; i++) {
        argv[n++] = "--cmd";
        argv[n++] = c->cmd[i];
    }
    argv[n] = NULL;
}

/* The run cache's key of boot line b (lab_cache.h): its database path
 * left out, the kernel runq boot would load put in. False: no key, the
 * run is neither looked up nor stored. */
static bool line_key(struct boot_line *b, char key[65])
{
    struct boot_opts o;
    char kernel[PATH_MAX];
    boot_opts_init(&o);
    const char *k = boot_kernel_path(&o, kernel, sizeof kernel);
    boot_opts_free(&o);
    const char *db = b->dbarg ? b->argv[b->dbarg] : NULL;
    if (db)
        b->argv[b->dbarg] = "-";
    bool ok = k && lab_cache_key(k, b->argv, key);
    if (db)
        b->argv[b->dbarg] = db;
    return ok;
}

static pid_t start_scenario(struct lab_scenario *c, const struct boot_line *b)
{
    if (c->db[0]) {
        db_remove(c->db);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(c->console, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) {
            dup2(nul, 0);
            close(nul);
        }
        execv("/proc/self/exe", (char *const *)b->argv);
        _exit(127);
    }
    return pid;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = xmalloc((size_t)n + 1);
    size_t r = fread(s, 1, (size_t)n, f);
    s[r] = 0;
    fclose(f);
    return s;
}

/* Runs every scenario, LAB_JOBS at a time, or takes its run from the run
 * cache (lab_cache.h) when the same runq, kernel and boot line made it
 * before. Returns 0 when all succeeded. */
static int run_scenarios(struct lab *lab, const char *outdir, FILE *log, long seed)
{
    pid_t pids[LAB_MAX_SCEN];
    struct boot_line lines[LAB_MAX_SCEN];
    char keys[LAB_MAX_SCEN][65];
    bool keyed[LAB_MAX_SCEN];
    int next = 0, running = 0, failed = 0, cached = 0;
    time_t t0 = time(NULL);
    for (int i = 0; i < lab->nsc; i++)
        if (lab_scenario_program(&lab->sc[i], seed))
            return -1;
    while (next < lab->nsc || running) {
        while (running < LAB_JOBS && next < lab->nsc) {
            struct lab_scenario *c = &lab->sc[next];
            scenario_line(c, outdir, seed, &lines[next]);
            keyed[next] = line_key(&lines[next], keys[next]);
            bool hit = keyed[next] && lab_cache_get(keys[next], c->console, c->record ? c->db : NULL);
            if (log)
                fprintf(log, "  running scenario %-10s (%s%s%s, %d commands)%s\n", c->name,
                        c->policy[0] ? c->policy : "default policy", c->append[0] ? ", " : "", c->append, c->ncmd,
                        hit ? ": the same run made before, from the run cache" : "");
            if (hit) {
                c->status = 0;
                free(c->out);
                c->out = slurp(c->console);
                pids[next++] = 0;
                cached++;
                continue;
            }
            pids[next] = start_scenario(c, &lines[next]);
            if (pids[next] < 0) {
                fprintf(stderr, "runq lab: fork: %s\n", strerror(errno));
                return -1;
            }
            next++;
            running++;
        }
        if (!running)
            continue;
        int st;
        pid_t p = wait(&st);
        if (p < 0)
            break;
        for (int i = 0; i < next; i++)
            if (pids[i] == p) {
                struct lab_scenario *c = &lab->sc[i];
                c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                free(c->out);
                c->out = slurp(c->console);
                if (c->status) {
                    failed++;
                    fprintf(stderr, "runq lab: scenario %s failed (runq boot exited %d); console in %s\n", c->name,
                            c->status, c->console);
                } else if (keyed[i]) {
                    lab_cache_put(keys[i], c->console, c->record ? c->db : NULL);
                }
                running--;
            }
    }
    if (log)
        fprintf(log, "  %d scenarios in %ld s%s\n", lab->nsc, (long)(time(NULL) - t0),
                cached ? " (some from the run cache: RUNQ_LAB_CACHE=off boots every one)" : "");
    return failed ? -1 : 0;
}

static long default_seed(long from_answers)
{
    if (from_answers >= 0)
        return from_answers;
    const char *e = getenv("RUNQ_SEED");
    return e && *e ? atol(e) : 1;
}

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Measured values: every question's truth; written to DIR/measured.txt
 * only when the caller may show them (check --reveal). */
static void measure(struct lab *lab, long seed, char truth[][256], bool *ok, const char *outdir, bool write)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/measured.txt", outdir);
    FILE *f = write ? fopen(path, "w") : NULL;
    for (int i = 0; i < lab->nq; i++) {
        ok[i] = lab_truth(lab, &lab->q[i], seed, truth[i], 256) == 0;
        if (f)
            fprintf(f, "%s = %s%s\n", lab->q[i].id, ok[i] ? "" : "ERROR ", truth[i]);
    }
    if (f)
        fclose(f);
}

/* A moment's at: the index of the first event at or after the time its
 * query answers, and not before from; -1 when it answers none. */
static int moment_at(sqlite3 *h, const struct events *tr, int from, const char *sql)
{
    char text[64], err[256];
    int64_t ts;
    bool is_int;
    if (dbq_first(h, sql, text, sizeof text, &ts, &is_int, err, sizeof err) != 1 || !is_int)
        return -1;
    int at = events_find_ts(tr, ts);
    return at < from ? from : at;
}

/* The event of a moment: the first event its query matches in its trace,
 * after its mark and its at. Its index is the one runq step shows (the same events). */
static int moment_event(const struct lab *lab, const struct lab_moment *m, const char **db)
{
    for (int i = 0; i < lab->nsc; i++) {
        const struct lab_scenario *c = &lab->sc[i];
        if (strcmp(c->name, m->scenario) || !c->db[0])
            continue;
        *db = c->db;
        char err[256];
        sqlite3 *h = dbq_open(c->db, err, sizeof err);
        if (!h)
            return -1;
        struct events tr;
        int at = -1;
        if (events_load(&tr, h, 0, err, sizeof err) == 0) {
            int from = m->after[0] ? events_find_mark(&tr, 0, m->after) : 0;
            if (from >= 0 && m->at)
                from = moment_at(h, &tr, from, m->at);
            if (from >= 0)
                at = events_find(&tr, from, &m->query);
        }
        events_free(&tr);
        sqlite3_close(h);
        return at;
    }
    return -1;
}

static void show_moments(const struct lab *lab, bool offer)
{
    if (!lab->nmo)
        return;
    printf("\n---- step through it ----\n");
    for (int i = 0; i < lab->nmo; i++) {
        const struct lab_moment *m = &lab->mo[i];
        const char *db = NULL;
        int at = moment_event(lab, m, &db);
        printf("\n%d. %s\n", i + 1, m->text ? m->text : "");
        if (at < 0) {
            printf("   (no event matching '%s' in scenario %s's trace)\n", m->find, m->scenario);
            continue;
        }
        printf("   runq step --db %s 1 --at %d\n", db, at);
        if (!offer)
            continue;
        printf("   step through it now? [y/N] ");
        fflush(stdout);
        char yn[16];
        if (!fgets(yn, sizeof yn, stdin) || (yn[0] != 'y' && yn[0] != 'Y'))
            continue;
        struct step s;
        if (step_open(&s, db, 0, NULL, -1) == 0) {
            step_goto(&s, at);
            step_curses_main(&s);
            step_close(&s);
        }
    }
}

/* Asks q at the terminal (or reads stdin) until the answer is valid or
 * blank (no answer); a refused one is said why, then asked again. */
static void ask(const struct lab *lab, const struct lab_question *q, long seed, const char *label, char *out,
                size_t len)
{
    print_question(lab, q, seed, stdout);
    for (int tries = 0;; tries++) {
        printf("%s> ", label);
        fflush(stdout);
        if (!fgets(out, (int)len, stdin))
            out[0] = 0;
        out[strcspn(out, "\r\n")] = 0;
        if (!isatty(0))
            printf("%s\n", out);
        char why[256], value[256];
        lab_answer_value(out, value, sizeof value);
        if (!value[0] || lab_answer_check(q, value, NULL, why, sizeof why) == 0)
            return;
        printf("  refused: %s%s\n", why, feof(stdin) || tries >= 4 ? "; left blank" : "; try again (or leave it blank)");
        if (feof(stdin) || tries >= 4) {
            out[0] = 0;
            return;
        }
    }
}

/* The answers file lab check reads: every answer so far, and when. */
static int store_answers(const struct lab *lab, const char *path, const char *what, long seed, const char *student,
                         char (*ans)[256])
{
    char when[32];
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "runq lab: %s: %s\n", path, strerror(errno));
        return -1;
    }
    utc_now(when, sizeof when);
    fprintf(f, "# runq lab %s: %s, written at %s\nseed = %ld\n", lab->name, what, when, seed);
    if (student)
        fprintf(f, "student = %s\n", student);
    for (int i = 0; i < lab->nq; i++)
        if (ans[i][0])
            fprintf(f, "%s = %s\n", lab->q[i].id, ans[i]);
    fflush(f);
    fsync(fileno(f));
    fclose(f);
    return 0;
}

/* Three phases: predict (stored before anything runs), run and step, then
 * answer what was observed; lab check judges the answers file. */
static const char *printable(const char *in, char *out, size_t len);

/* The first probe effect line a recorded scenario's console holds
 * (kernel/shell/sched_cmd.c's): what tracing took of the measured CPU,
 * which the figures above include. Said once. */
static void show_probe_effect(const struct lab *lab)
{
    for (int i = 0; i < lab->nsc; i++) {
        const char *at = lab->sc[i].out ? strstr(lab->sc[i].out, "probe effect: ") : NULL;
        if (!at || (at != lab->sc[i].out && at[-1] != '\n'))
            continue;
        char line[400], shown[1600];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(at, "\r\n"), at);
        printf("  (%s: %s)\n", lab->sc[i].name, printable(line, shown, sizeof shown));
        return;
    }
}

static int lab_run(struct lab *lab, const char *outdir, long seed, const char *student)
{
    cat_file(lab->dir, "README.md", stdout);
    print_scenarios(lab, stdout);
    printf("\n---- 1. your predictions ----\n"
           "Answer each question before anything runs: a number (a unit may be typed), a choice\n"
           "or an order, and after a '#' your reasoning if you like (5ms # half a tick): it is\n"
           "kept with the answer and shown by lab check. A blank line skips one.\n");
    char (*ans)[256] = xcalloc(LAB_MAX_Q, 256);
    int nafter = 0;
    for (int i = 0; i < lab->nq; i++) {
        if (lab->q[i].after) {
            nafter++;
            continue;
        }
        ask(lab, &lab->q[i], seed, "your prediction", ans[i], 256);
    }
    char ppath[1200], apath[1200];
    snprintf(ppath, sizeof ppath, "%s/predictions.txt", outdir);
    snprintf(apath, sizeof apath, "%s/answers.txt", outdir);
    if (store_answers(lab, ppath, "predictions, made before the scenarios ran", seed, student, ans)) {
        free(ans);
        return 1;
    }
    printf("\nPredictions stored in %s.\n\n---- 2. running ----\n", ppath);

    int rc = run_scenarios(lab, outdir, stdout, seed);
    char truth[LAB_MAX_Q][256];
    bool ok[LAB_MAX_Q];
    measure(lab, seed, truth, ok, outdir, false);
    printf("\n---- predicted against measured (your own run) ----\n");
    printf("  %-14s %-26s %-26s %s\n", "question", "predicted", "measured", "");
    int right = 0, asked = 0;
    for (int i = 0; i < lab->nq; i++) {
        const struct lab_question *q = &lab->q[i];
        if (q->after)
            continue;
        char why[300], meas[300];
        char value[256];
        lab_answer_value(ans[i], value, sizeof value);
        bool pass = ok[i] && lab_judge(lab, q, value, truth[i], why, sizeof why);
        /* A measurement of this run is the student's own; a choice's
         * answer is the lab's, and only lab check judges it. */
        bool shown = q->type != LAB_Q_CHOICE && strcmp(truth[i], LAB_NEEDS_KEY);
        asked += shown;
        right += shown && pass;
        if (q->type == LAB_Q_CHOICE || !strcmp(truth[i], LAB_NEEDS_KEY))
            snprintf(meas, sizeof meas, "(judged by lab check)");
        else
            snprintf(meas, sizeof meas, "%.255s%s%.15s", truth[i], q->unit[0] ? " " : "", q->unit);
        printf("  %-14s %-26.26s %-26.26s %s\n", q->id, ans[i][0] ? ans[i] : "(none)", meas,
               !strcmp(truth[i], LAB_NEEDS_KEY) ? "" : !ok[i] ? "could not measure"
                                                   : q->type == LAB_Q_CHOICE ? "" : pass ? "close enough" : "off");
    }
    printf("  %d of %d measured predictions within the tolerance%s\n", right, asked,
           asked < lab->nq - nafter ? " (the others are judged by lab check)" : "");
    show_probe_effect(lab);
    show_moments(lab, isatty(0) && isatty(1));
    if (nafter) {
        printf("\n---- 3. your answers, after stepping ----\n"
               "These are about what the run did: step through it (above) or ask runq sql.\n");
        for (int i = 0; i < lab->nq; i++)
            if (lab->q[i].after)
                ask(lab, &lab->q[i], seed, "your answer", ans[i], 256);
    }
    if (store_answers(lab, apath, "predictions and answers", seed, student, ans)) {
        free(ans);
        return 1;
    }
    printf("\n---- explanation ----\n");
    cat_file(lab->dir, "explanation.md", stdout);
    for (int i = 0; i < lab->nq; i++) {
        if (!lab->q[i].explain)
            continue;
        char *x = lab_explain(lab, lab->q[i].explain);
        printf("\n[%s] %s\n", lab->q[i].id, x ? x : lab->q[i].explain);
        free(x);
    }
    printf("\nYour predictions: %s (as made, before the run)\n"
           "All your answers: %s\n"
           "Consoles and traces: %s\n"
           "Next: runq lab check %d --answers %s   (PASS or FAIL per question, and the score)\n",
           ppath, apath, outdir, lab->number, apath);
    free(ans);
    return rc ? 1 : 0;
}


/* A question whose answer only the instructor's key holds (a student's
 * copy: truth = key). */
static bool needs_key(const char *truth)
{
    return !strcmp(truth, LAB_NEEDS_KEY);
}

/* Text from a file or a folder name, for a terminal, through db/visible.h's
 * one rule: a name cannot move the cursor or retitle the window. Into out;
 * returns out. */
static const char *printable(const char *in, char *out, size_t len)
{
    text_visible(out, len, in);
    return out;
}

/* Judges the answers a (read from the file named answers) with the seed
 * given: PASS/FAIL per question (quiet: none), never the truth unless
 * reveal; *score and *total the result. The exit status: 0 only when
 * every question passes. */
/* verdict, if not NULL, gets a letter a question: 'P' passed, 'F' failed,
 * 'K' left to the instructor's key. */
/* What one variant's runs measured: lab grade judges every student of a
 * variant against it, so a class of K variants costs K runs and K
 * measurements, not one a student (the run cache spares the boots, not
 * the copies and the queries). */
static int lab_judge_all(struct lab *lab, const char *outdir, const struct lab_answers *a, const char *answers,
                         long seed, bool reveal, bool quiet, int *score, int *total, char *verdict, int rc,
                         char truth[][256], const bool *ok, const char *ran_in);

struct lab_measured {
    long seed;
    int rc;                      /* run_scenarios' */
    char truth[LAB_MAX_Q][256];
    bool ok[LAB_MAX_Q];
    char dir[1200];              /* where the runs are (the first student's folder) */
};

/* memo, if not NULL, is the variant's measurement when its seed is seed
 * (then nothing runs), else it is filled from this run. */
static int lab_check(struct lab *lab, const char *outdir, const struct lab_answers *a, const char *answers,
                     long seed, bool reveal, bool quiet, int *score, int *total, char *verdict,
                     struct lab_measured *memo)
{
    char who[4 * sizeof a->student];
    printable(a->student, who, sizeof who);
    bool again = memo && memo->dir[0] && memo->seed == seed;
    if (!again) {
        int rc = run_scenarios(lab, outdir, NULL, seed);
        char truth[LAB_MAX_Q][256];
        bool ok[LAB_MAX_Q];
        measure(lab, seed, truth, ok, outdir, reveal);
        if (memo) {
            memo->seed = seed;
            memo->rc = rc;
            memcpy(memo->truth, truth, sizeof truth);
            memcpy(memo->ok, ok, sizeof ok);
            snprintf(memo->dir, sizeof memo->dir, "%s", outdir);
        }
        return lab_judge_all(lab, outdir, a, answers, seed, reveal, quiet, score, total, verdict, rc, truth, ok,
                             NULL);
    }
    return lab_judge_all(lab, outdir, a, answers, seed, reveal, quiet, score, total, verdict, memo->rc, memo->truth,
                         memo->ok, memo->dir);
}

/* The answers a against the truths measured: the verdicts, the score and
 * the transcript (lab_check). ran_in, if not NULL, is where the variant's
 * runs are (another student's folder): the transcript names it instead of
 * showing consoles this check did not run. */
static int lab_judge_all(struct lab *lab, const char *outdir, const struct lab_answers *a, const char *answers,
                         long seed, bool reveal, bool quiet, int *score, int *total, char *verdict, int rc,
                         char truth[][256], const bool *ok, const char *ran_in)
{
    char who[4 * sizeof a->student];
    printable(a->student, who, sizeof who);
    int pass = 0, keyed = 0;
    char path[1200];
    snprintf(path, sizeof path, "%s/transcript.txt", outdir);
    FILE *t = fopen(path, "w");
    char when[32];
    utc_now(when, sizeof when);
    if (t)
        fprintf(t, "runq lab check %s --answers %s (seed %ld%s%s) at %s\n\n", lab->name, answers, seed,
                a->student[0] ? ", student " : "", who, when);
    for (int i = 0; i < lab->nq; i++) {
        const struct lab_question *q = &lab->q[i];
        const char *ans = lab_answer(a, q->id);
        char why[300], why_shown[600], shown[400], line[1200];
        /* The answer and the reasoning are the student's text: on the
         * instructor's terminal they are shown, never obeyed. */
        printable(ans && *ans ? ans : "nothing", shown, sizeof shown);
        if (!ok[i] && needs_key(truth[i])) {
            keyed++;
            if (verdict)
                verdict[i] = 'K';
            snprintf(line, sizeof line, "KEY  %s: answered %s; %s", q->id, shown, truth[i]);
            if (!quiet)
                printf("%s\n", line);
            if (t)
                fprintf(t, "%s\n", line);
            continue;
        }
        bool good = ok[i] && lab_judge(lab, q, ans, truth[i], why, sizeof why);
        if (!ok[i])
            snprintf(why, sizeof why, "could not measure: %s", truth[i]);
        snprintf(line, sizeof line, "%s %s: answered %s; %s", good ? "PASS" : "FAIL", q->id, shown,
                 printable(why, why_shown, sizeof why_shown));
        if (!quiet) {
            printf("%s\n", line);
            if (*lab_reasoning(a, q->id))
                printf("   reasoning: %s\n", printable(lab_reasoning(a, q->id), shown, sizeof shown));
            if (reveal && ok[i])
                printf("   measured: %s%s%s\n", truth[i], q->unit[0] ? " " : "", q->unit);
        }
        if (t)
            fprintf(t, reveal ? "%s\n   truth: %s -> %s\n" : "%s\n", line, q->truth, truth[i]);
        pass += good;
        if (verdict)
            verdict[i] = good ? 'P' : 'F';
    }
    if (!quiet) {
        printf("score %d/%d\n", pass, lab->nq - keyed);
        if (keyed)
            printf("%d question(s) left to the instructor's key\n", keyed);
    }
    *score = pass;
    *total = lab->nq - keyed;
    bool all = pass == lab->nq && rc == 0;
    if (t) {
        fprintf(t, "score %d/%d\n", pass, lab->nq - keyed);
        if (ran_in) {
            char shown[4 * 1200];
            fprintf(t, "\nthe scenarios of this variant (seed %ld) ran once, for %s\n", seed,
                    printable(ran_in, shown, sizeof shown));
        }
        for (int i = 0; i < lab->nsc && !ran_in; i++)
            fprintf(t, "\n==== scenario %s (exit %d) ====\n%s", lab->sc[i].name, lab->sc[i].status,
                    lab->sc[i].out ? lab->sc[i].out : "(no console)\n");
        fclose(t);
        if (all)
            unlink(path);
        else if (!quiet)
            printf("transcript: %s\n", path);
    }
    return all ? 0 : 1;
}

static bool any_name(const char *name)
{
    (void)name;
    return true;
}

/* One entry of the submissions folder, as lab grade sees it. */
struct submission {
    char path[1200];    /* SUBMISSIONS/NAME */
    char id[LAB_STUDENT_ID_MAX + 2]; /* the student: "student = ID", else NAME less its extension */
    struct lab_answers a;
    char skip[512];     /* why it is not graded; "" when it is */
};

/* Reads the entry name of subdir into s: its answers and its student ID,
 * or why it is skipped. Only a regular file is read, never through a
 * symbolic link (a link to the key would score full marks), and the ID
 * must be one (lab_student_id_check): it names the student's folder in
 * --out. */
static void submission_read(struct submission *s, const char *subdir, const char *name)
{
    char why[256];
    snprintf(s->path, sizeof s->path, "%s/%s", subdir, name);
    if (name[0] == '.') {
        snprintf(s->skip, sizeof s->skip, "a hidden file: not graded (rename it to grade it)");
        return;
    }
    if (lab_answers_load(&s->a, s->path, true, why, sizeof why)) {
        snprintf(s->skip, sizeof s->skip, "%s", why);
        return;
    }
    if (s->a.two_students) {
        snprintf(s->skip, sizeof s->skip, "two student lines with different IDs: whose is it?");
        return;
    }
    /* The ID is checked whole, before it is cut to fit s->id. */
    bool named = s->a.student[0];
    char id[sizeof s->path];
    snprintf(id, sizeof id, "%s", named ? s->a.student : name);
    char *dot = strrchr(id, '.');
    if (dot && !named)
        *dot = 0;
    if (lab_student_id_check(id, why, sizeof why)) {
        char shown[4 * sizeof id];
        snprintf(s->skip, sizeof s->skip, "%s '%.200s' is not an ID: %s",
                 named ? "student" : "no student line, and its name", printable(id, shown, sizeof shown), why);
        return;
    }
    snprintf(s->id, sizeof s->id, "%.*s", LAB_STUDENT_ID_MAX, id);
}

/* Two submissions of one student (IDs equal but for case: on a file
 * system that ignores case they share a folder): none of them is graded,
 * and each says where the others are. */
static void submissions_unique(struct submission *s, int n)
{
    bool *dup = xcalloc((size_t)n, sizeof *dup);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!s[i].skip[0] && !s[j].skip[0] && !strcasecmp(s[i].id, s[j].id))
                dup[i] = dup[j] = true;
    for (int i = 0; i < n; i++) {
        if (!dup[i])
            continue;
        char others[400] = "";
        for (int j = 0; j < n; j++)
            if (j != i && dup[j] && !strcasecmp(s[i].id, s[j].id)) {
                char shown[200];
                snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s", others[0] ? ", " : "",
                         printable(s[j].path, shown, sizeof shown));
            }
        snprintf(s[i].skip, sizeof s[i].skip, "student %s is also in %s: none of them is graded", s[i].id, others);
    }
    free(dup);
}

/* lab grade: every answers file in subdir, judged with the key: one line
 * a student (the answers' "student = ID", else the file's name) and the
 * class's mean. The student's variant comes from the ID alone: a seed line
 * would let a student pick a variant whose answers are known, so it is
 * said beside the score and never obeyed. What is not graded (not a
 * regular file, a bad or a shared ID) is said on stderr, one line an
 * entry, before any grading, and counted: the exit status is 0 only when
 * every entry was graded. */
static int64_t grade_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int lab_grade(struct lab *lab, const char *outdir, const char *subdir)
{
    int n;
    char **names = lab_sorted_names(subdir, any_name, &n);
    if (!names) {
        fprintf(stderr, "runq lab: %s: %s\n", subdir, strerror(errno));
        return 1;
    }
    struct submission *s = xcalloc((size_t)n, sizeof *s);
    for (int i = 0; i < n; i++) {
        submission_read(&s[i], subdir, names[i]);
        free(names[i]);
    }
    free(names);
    submissions_unique(s, n);
    int graded = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        char shown[4 * sizeof s[i].path];
        if (s[i].skip[0]) {
            fprintf(stderr, "runq lab: grade: %s: skipped: %s\n", printable(s[i].path, shown, sizeof shown),
                    s[i].skip);
            skipped++;
        }
    }
    printf("%-24s %s\n", "student", "score");
    double sum = 0;
    /* One row a student in OUT/grades.csv, and each question's count of
     * right answers for the class summary: which question misleads. */
    char csvpath[1200];
    snprintf(csvpath, sizeof csvpath, "%s/grades.csv", outdir);
    FILE *csv = mkdirs(outdir) ? NULL : fopen(csvpath, "w");
    if (!csv)
        fprintf(stderr, "runq lab: grade: %s: %s (no CSV)\n", csvpath, strerror(errno));
    if (csv) {
        fprintf(csv, "student,seed,score,total");
        for (int q = 0; q < lab->nq; q++)
            fprintf(csv, ",%s", lab->q[q].id);
        fputc('\n', csv);
    }
    int right[LAB_MAX_Q] = { 0 }, asked[LAB_MAX_Q] = { 0 };
    int todo = 0, done = 0, nmemo = 0;
    for (int i = 0; i < n; i++)
        todo += !s[i].skip[0];
    struct lab_measured *memo = xcalloc((size_t)(todo ? todo : 1), sizeof *memo);
    int64_t t0 = grade_now_ms();
    bool progress = isatty(STDERR_FILENO) || todo >= 20;
    for (int i = 0; i < n; i++) {
        if (s[i].skip[0])
            continue;
        if (progress && done > 0) {
            double each = (double)(grade_now_ms() - t0) / 1000.0 / done;
            fprintf(stderr, "runq lab: grade: %d of %d, %.1f s each, about %.0f s left\n", done, todo, each,
                    each * (todo - done));
        }
        done++;
        char out[1400], note[200] = "";
        long seed = lab_student_seed(lab, s[i].id);
        if (s[i].a.seed >= 0 && s[i].a.seed != seed)
            snprintf(note, sizeof note, "   seed = %ld in the answers ignored: graded with %s's variant (seed %ld)",
                     s[i].a.seed, s[i].id, seed);
        snprintf(out, sizeof out, "%s/%s", outdir, s[i].id);
        int score = 0, total = 0;
        if (mkdirs(out)) {
            skipped++;
            continue;
        }
        char verdict[LAB_MAX_Q];
        memset(verdict, 'F', sizeof verdict);
        /* The variant's measurement, made by its first student's check. */
        int v = 0;
        while (v < nmemo && memo[v].seed != seed)
            v++;
        if (v == nmemo)
            nmemo++;
        lab_check(lab, out, &s[i].a, s[i].path, seed, false, true, &score, &total, verdict, &memo[v]);
        printf("%-24s %d/%d%s\n", s[i].id, score, total, note);
        if (csv) {
            /* an ID is letters, digits, '.', '_' and '-' (lab_student_id_check):
             * no comma or quote, but one that starts with '-' is a formula
             * to a spreadsheet, so it goes in as text */
            fprintf(csv, "%s%s,%ld,%d,%d", s[i].id[0] == '-' ? "'" : "", s[i].id, seed, score, total);
            for (int q = 0; q < lab->nq; q++)
                fprintf(csv, ",%s", verdict[q] == 'P' ? "1" : verdict[q] == 'K' ? "key" : "0");
            fputc('\n', csv);
        }
        for (int q = 0; q < lab->nq; q++) {
            asked[q] += verdict[q] != 'K';
            right[q] += verdict[q] == 'P';
        }
        graded++;
        sum += total ? (double)score / total : 0;
    }
    free(s);
    free(memo);
    if (graded)
        printf("%d graded, mean %.0f%%", graded, 100 * sum / graded);
    else
        printf("no answers files graded in %s", subdir);
    if (skipped)
        printf("; %d skipped (see stderr)", skipped);
    printf("\n");
    if (graded && lab->variants)
        printf("%d of the course's %d variants, each run and measured once\n", nmemo, lab->variants);
    else if (graded)
        printf("%d variant%s (one a student), each run and measured once\n", nmemo, nmemo == 1 ? "" : "s");
    if (graded) {
        printf("\n%-24s %8s %8s\n", "question", "right", "share");
        for (int q = 0; q < lab->nq; q++) {
            if (asked[q])
                printf("%-24s %8d %7.0f%%\n", lab->q[q].id, right[q], 100.0 * right[q] / asked[q]);
            else
                printf("%-24s %8s %8s\n", lab->q[q].id, "-", "key");
        }
    }
    if (csv) {
        bool bad = ferror(csv);
        if (fclose(csv) || bad)
            fprintf(stderr, "runq lab: grade: %s: %s\n", csvpath, strerror(errno));
        else if (graded)
            printf("grades: %s (a row a student, 1/0 a question)\n", csvpath);
    }
    return graded && !skipped ? 0 : 1;
}

/* lab check --answers FILE: for self-study the answers' seed line gives
 * the variant (docs/labs.md), else the student's ID, else RUNQ_SEED or 1;
 * seed_flag (--seed, --student) before all. A seed line that is not the
 * student's own variant is said: lab grade would not obey it. */
static int lab_check_file(struct lab *lab, const char *outdir, const char *answers, long seed_flag, bool reveal)
{
    struct lab_answers a;
    char why[128];
    if (lab_answers_load(&a, answers, false, why, sizeof why)) {
        fprintf(stderr, "runq lab: %s: %s\n", answers, why);
        return 1;
    }
    long own = a.student[0] ? lab_student_seed(lab, a.student) : -1;
    long seed = seed_flag >= 0 ? seed_flag : a.seed >= 0 ? a.seed : own >= 0 ? own : default_seed(-1);
    if (seed_flag < 0 && a.seed >= 0 && own >= 0 && a.seed != own) {
        char who[4 * sizeof a.student];
        printf("note: seed = %ld is not student %s's variant (seed %ld): judged with seed %ld; runq lab grade "
               "judges with the student's\n",
               a.seed, printable(a.student, who, sizeof who), own, a.seed);
    }
    int score, total;
    return lab_check(lab, outdir, &a, answers, seed, reveal, false, &score, &total, NULL, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A calibrated question's spread over the seeds' truths v[0..n): the most
 * one seed's truth lies from their median (*med), of the margin's kind; a
 * prediction derived from the model sits near the median, and must pass
 * against every seed's truth. Rounded up: to a whole percent, or to 0.01. */
static double spread_of(const struct lab_question *q, double *v, int n, double *med)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    *med = v[n / 2];
    double need = 0;
    for (int k = 0; k < n; k++) {
        double off = fabs(*med - v[k]), x = q->tol_rel ? (v[k] ? off / fabs(v[k]) : 0) : off;
        if (x > need)
            need = x;
    }
    return ceil(need * 100 - 1e-9) / 100;
}

/* The verdict on a number that differs between seeds: with a margin, the
 * spread it measured (fair while the margin bears it, so that the seeds do
 * not decide more than the reasoning); with a fixed tolerance, whether the
 * median passes against every seed. *bad is set when not. */
static void calibrate_number(const struct lab *lab, const struct lab_question *q, double *v, int seeds, double *spread,
                             char *buf, size_t len, bool *bad)
{
    double med;
    *spread = spread_of(q, v, seeds, &med);
    char ss[32], ms[32], ts[160];
    lab_tol_value(q, *spread, ss, sizeof ss);
    lab_tol_value(q, q->tol, ms, sizeof ms);
    if (q->calibrated) {
        *bad = *spread > q->tol + 1e-9;
        char was[64] = "", cal[32];
        if (q->has_spread) {
            lab_tol_value(q, q->spread, cal, sizeof cal);
            snprintf(was, sizeof was, "; the lab's calibration: ±%s", cal);
        }
        snprintf(buf, len, "%s: spread ±%s around the median %g, %s margin %s%s", *bad ? "UNSTABLE" : "fair", ss,
                 med, *bad ? "more than its" : "within its", ms, was);
        return;
    }
    bool covered = true;
    for (int k = 0; k < seeds; k++)
        covered = covered && fabs(med - v[k]) <= (q->tol_rel ? q->tol * fabs(v[k]) : q->tol) + 1e-9;
    *bad = !covered;
    lab_tol_str(lab, q, ts, sizeof ts);
    snprintf(buf, len, "%s: the median %g passes %s every seed with ±%s (it needs ±%s)", covered ? "fair" : "UNSTABLE",
             med, covered ? "against" : "not against", ts, ss);
}

/* Writes the lab's calibration file: each calibrated question's spread. */
static int calibration_write(const struct lab *lab, const double *spread, int seeds)
{
    char path[700], tmp[720];
    snprintf(path, sizeof path, "%s/calibration", lab->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "runq lab: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# Written by runq lab calibrate %d --seeds %d --write; do not edit.\n"
               "# Each question with a margin (lab.conf): its spread, the most one seed's truth\n"
               "# lies from the median of seeds 1..%d's truths (a percentage: of that truth).\n"
               "# lab check passes an answer within spread + margin of the student's truth.\n"
               "seeds = %d\n", lab->number, seeds, seeds, seeds);
    for (int i = 0; i < lab->nq; i++) {
        if (!lab->q[i].calibrated)
            continue;
        char ss[32];
        lab_tol_value(&lab->q[i], spread[i], ss, sizeof ss);
        fprintf(f, "%s = %s\n", lab->q[i].id, ss);
    }
    if (fclose(f) || rename(tmp, path)) {
        fprintf(stderr, "runq lab: %s: %s\n", path, strerror(errno));
        return -1;
    }
    printf("wrote %s\n", path);
    return 0;
}

/* lab calibrate: the lab's truths under seeds 1..K, each question's spread,
 * and whether the question bears it: a question whose truth moves more
 * than its margin between students is not fair, and is rewritten. With
 * write, the spreads go to the lab's calibration file. */
static int lab_calibrate(struct lab *lab, const char *outdir, int seeds, bool write)
{
    static char truth[LAB_MAX_Q][16][256];
    bool ok[LAB_MAX_Q];
    double spread[LAB_MAX_Q] = { 0 };
    int bad = 0;
    for (int k = 0; k < seeds; k++) {
        char dir[700];
        snprintf(dir, sizeof dir, "%s/seed-%d", outdir, k + 1);
        if (mkdirs(dir))
            return 1;
        fprintf(stderr, "  seed %d of %d\n", k + 1, seeds);
        char one[LAB_MAX_Q][256];
        run_scenarios(lab, dir, NULL, k + 1);
        measure(lab, k + 1, one, ok, dir, true);
        for (int i = 0; i < lab->nq; i++)
            snprintf(truth[i][k], 256, "%s", ok[i] ? one[i] : "?");
    }
    printf("%-16s %-8s %-40s %s\n", "question", "type", "over seeds 1..N", "verdict");
    for (int i = 0; i < lab->nq; i++) {
        const struct lab_question *q = &lab->q[i];
        char vals[400] = "";
        for (int k = 0; k < seeds; k++)
            snprintf(vals + strlen(vals), sizeof vals - strlen(vals), "%s%.40s", k ? ", " : "", truth[i][k]);
        const char *verdict = "the same for every seed";
        char buf[300];
        bool same = true, measured = true;
        for (int k = 1; k < seeds; k++)
            same = same && !strcmp(truth[i][k], truth[i][0]);
        for (int k = 0; k < seeds; k++)
            measured = measured && strcmp(truth[i][k], "?");
        bool per_student = (q->truth && strstr(q->truth, "{seed}")) || (q->show && strstr(q->show, "{seed}"));
        if (!measured) {
            verdict = "UNSTABLE: could not be measured under every seed";
            bad++;
        } else if (!same && per_student) {
            verdict = "each student's own problem ({seed}): varies by seed, as it should";
        } else if (!same && q->after) {
            verdict = "observed on the student's own run: varies by seed, as it should";
        } else if (!same && q->type != LAB_Q_NUMBER) {
            verdict = "UNSTABLE: the answer differs between seeds";
            bad++;
        } else if (!same) {
            double v[16];
            bool unfair;
            for (int k = 0; k < seeds; k++)
                v[k] = atof(truth[i][k]);
            calibrate_number(lab, q, v, seeds, &spread[i], buf, sizeof buf, &unfair);
            verdict = buf;
            bad += unfair;
        } else if (q->calibrated) {
            snprintf(buf, sizeof buf, "the same for every seed: spread 0, margin alone");
            verdict = buf;
        }
        printf("%-16s %-8s %-40.40s %s\n", q->id, type_name(q->type), vals, verdict);
    }
    printf("%d of %d questions unstable over %d seeds\n", bad, lab->nq, seeds);
    if (write && calibration_write(lab, spread, seeds))
        return 1;
    return bad ? 1 : 0;
}

static unsigned long long fnv1a(const char *s)
{
    unsigned long long h = 1469598103934665603ull;
    for (const char *p = s; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 1099511628211ull;
    }
    return h;
}

/* A student's variant from their ID (FNV-1a): neighbours do not share
 * numbers, and the grader recomputes it from the ID in the answers. A
 * course of K variants (lab pack --variants) maps the ID to one of K and
 * that to a seed, so a class shares K runs (graded once each). */
long lab_student_seed(const struct lab *lab, const char *id)
{
    if (!lab->variants)
        return (long)(fnv1a(id) % 1000000) + 1;
    char name[48];
    snprintf(name, sizeof name, "variant %llu", fnv1a(id) % (unsigned)lab->variants);
    return (long)(fnv1a(name) % 999999) + 2; /* never 1: answers.ref's seed */
}

int lab_do(const struct lab_opts *o)
{
    long seed = o->seed;
    char dir[600];
    if (find_lab(o->which, o->key, dir, sizeof dir))
        return 2;
    struct lab lab;
    if (lab_load(&lab, dir))
        return 1;
    bool keyless = false;
    for (int i = 0; i < lab.nq; i++)
        keyless = keyless || (lab.q[i].truth && !strcmp(lab.q[i].truth, "key"));
    if (o->action != LAB_SHOW && o->action != LAB_CALIBRATE && lab_require_calibration(&lab)) {
        lab_free(&lab);
        return 1;
    }
    if (o->reveal && keyless) {
        fprintf(stderr, "runq lab: --reveal needs the instructor's key (--key DIR): this copy of the lab has none\n");
        lab_free(&lab);
        return 2;
    }
    if (o->student)
        seed = lab_student_seed(&lab, o->student);
    int rc;
    if (o->action == LAB_SHOW) {
        rc = lab_show(&lab, default_seed(seed));
    } else {
        char outdir[600];
        snprintf(outdir, sizeof outdir, "%s", o->out ? o->out : "runq-lab");
        if (!o->out)
            snprintf(outdir, sizeof outdir, "runq-lab/%s", lab.name);
        if (mkdirs(outdir)) {
            lab_free(&lab);
            return 1;
        }
        if (o->action == LAB_RUN)
            rc = lab_run(&lab, outdir, default_seed(seed), o->student);
        else if (o->action == LAB_GRADE)
            rc = lab_grade(&lab, outdir, o->submissions);
        else if (o->action == LAB_CALIBRATE)
            rc = lab_calibrate(&lab, outdir, o->seeds, o->write);
        else
            rc = lab_check_file(&lab, outdir, o->answers, seed, o->reveal);
    }
    lab_free(&lab);
    return rc;
}
