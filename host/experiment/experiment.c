/*
 * `runq experiment FILE`'s work: runs a scenario (docs/scenarios.md), or
 * the matrix its vary axes make, each cell --repeat times with seeds
 * seed, seed+1, ..., on one or several engines, and stores every run in
 * the database; then prints the experiment's table from the database
 * (experiment_table.c). The flags are host/cli/experiment.c's;
 * docs/experiments.md is the guide.
 *
 * In order:
 *   1. the scenario, the --vary axes (a --vary replaces the file's axis of
 *      the same key), every cell checked on every engine;
 *   2. the runs: cell c (axis values, the first axis slowest) × repeat r,
 *      numbered c × repeats + r; with --shard I/N only those whose number
 *      is I-1 modulo N;
 *   3. the engines, through host/engine/engine.h: every run of the first
 *      goes before the second's, each engine's runs up to its jobs() at
 *      once (the kernel's `runq boot` children, up to one per host CPU;
 *      Linux's one at a time unless --jobs says more; paper's in this
 *      process). When the host's Linux runs beside runq's kernel or paper,
 *      those take the host's rules (issue 31);
 *   4. each run's results, tasks and metrics go into the database as it
 *      ends (db/experiment.c), with its trace's id: a failed run is stored
 *      too, status failed, with why;
 *   5. the table.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "db/experiment.h"
#include "host/base/xalloc.h"
#include "host/engine/engine.h"
#include "host/engine/engines.h"
#include "host/experiment/experiment.h"
#include "host/experiment/orphans.h"
#include "host/scenario/scenario.h"

/* A usage error found in the file or its axes: "runq experiment: ..."; 2. */
static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "runq experiment: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return 2;
}

/* ---- the matrix ---- */

/* --vary KEY=V1,V2 into the scenario's axes (replacing one of that key),
 * each value checked as the parser checks the file's. */
static int apply_vary_flags(const struct experiment_opts *o, struct scenario *s)
{
    static struct scenario copy;
    for (int i = 0; i < o->nvary; i++) {
        const char *eq = strchr(o->vary[i], '=');
        struct scn_vary v = { 0 };
        if ((size_t)(eq - o->vary[i]) >= sizeof v.key)
            return usage("--vary %s: the key is too long", o->vary[i]);
        memcpy(v.key, o->vary[i], (size_t)(eq - o->vary[i]));
        char vals[512], *save;
        snprintf(vals, sizeof vals, "%s", eq + 1);
        for (char *x = strtok_r(vals, ",", &save); x; x = strtok_r(NULL, ",", &save)) {
            if (v.nvalues == SCN_MAX_VALUES || strlen(x) >= SCN_VALUE_MAX)
                return usage("--vary %s: at most %d values of at most %d characters", v.key, SCN_MAX_VALUES,
                             SCN_VALUE_MAX - 1);
            strcpy(v.values[v.nvalues++], x);
        }
        for (int k = 0; k < v.nvalues; k++) {
            char err[512], inner[512];
            copy = *s;
            if (scn_apply(&copy, v.key, v.values[k], err, sizeof err) < 0)
                return usage("--vary %s: %s", v.key, err);
            if (scn_check(&copy, inner, sizeof inner) < 0)
                return usage("--vary %s=%s: %s", v.key, v.values[k], inner);
        }
        int at = s->nvary;
        char key[SCN_KEY_MAX], other[SCN_KEY_MAX];
        scn_param_key(v.key, key, sizeof key); /* knob.NAME and NAME are one axis */
        for (int a = 0; a < s->nvary; a++) {
            scn_param_key(s->vary[a].key, other, sizeof other);
            if (!strcmp(other, key))
                at = a;
        }
        if (at == SCN_MAX_VARY)
            return usage("at most %d vary axes in all", SCN_MAX_VARY);
        s->vary[at] = v;
        if (at == s->nvary)
            s->nvary++;
    }
    return 0;
}

static int ncells(const struct scenario *s)
{
    int n = 1;
    for (int a = 0; a < s->nvary; a++)
        n *= s->vary[a].nvalues;
    return n;
}

/* Cell c of base into *out, and its parameters "k=v k=v". */
static int cell_scenario(const struct scenario *base, int c, struct scenario *out, char *params, size_t plen,
                         char *err, size_t errlen)
{
    int idx[SCN_MAX_VARY];
    size_t n = 0;
    BUG_ON(c < 0 || c >= ncells(base)); /* a cell of the matrix: each axis' index in range below */
    *out = *base;
    for (int a = base->nvary - 1; a >= 0; a--) {
        idx[a] = c % base->vary[a].nvalues;
        c /= base->vary[a].nvalues;
    }
    params[0] = '\0';
    for (int a = 0; a < base->nvary; a++) {
        const char *v = base->vary[a].values[idx[a]];
        if (scn_apply(out, base->vary[a].key, v, err, errlen) < 0)
            return -1;
        char key[SCN_KEY_MAX];
        scn_param_key(base->vary[a].key, key, sizeof key);
        n += (size_t)snprintf(params + n, n < plen ? plen - n : 0, "%s%s=%s", a ? " " : "", key, v);
    }
    out->nvary = 0; /* a cell is one scenario */
    return scn_check(out, err, errlen);
}

/* The table's columns: the file's measure lines, or the defaults. */
static int columns(const struct scenario *s, struct scn_measure *m, char *text, size_t len)
{
    int n = s->nmeasures;
    if (n)
        memcpy(m, s->measures, (size_t)n * sizeof *m);
    else
        n = scn_default_measures(s, m, SCN_MAX_MEASURES);
    size_t k = 0;
    text[0] = '\0';
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(text + k, k < len ? len - k : 0, "%s%s.%s", i ? "," : "", s->tasks[m[i].task].name,
                              scn_metric_name(m[i].metric));
    return n;
}

/* ---- one run ---- */

/* A run of the experiment: the engine's part (what it runs, what it
 * left), and where it sits in the matrix. */
struct xp_run {
    struct engine_run run;
    const struct engine_ops *engine;
    int cell, repeat;
    uint64_t seed;
    int attempt; /* 0: the run; n: its nth rerun (--rerun-disturbed) */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Did other processes take more than XP_DISTURBED_PERCENT of r's window
 * on its CPUs? (false when that is not known) */
static bool disturbed(const struct xp_run *r)
{
    const struct engine_foreign *f = &r->run.foreign;
    return f->known && (double)f->ns * 100 > (double)r->run.sc.run_ns * XP_DISTURBED_PERCENT;
}

/* "run 3 (engine linux, cell 1: k=v, repeat 0": a run as its lines name it
 * (the engine only when there are several). */
static void run_name(const struct experiment_opts *o, const struct xp_run *r, char *buf, size_t len)
{
    snprintf(buf, len, "run %d (%s%s%scell %d%s%s, repeat %d", r->run.number, o->nengines > 1 ? "engine " : "",
             o->nengines > 1 ? r->engine->name : "", o->nengines > 1 ? ", " : "", r->cell,
             r->run.params[0] ? ": " : "", r->run.params, r->repeat);
}

/* One line on a disturbed run as it ends: what others took of its
 * window, on each of its CPUs ("CPU 0 0.3%, CPU 1 48.2%"), and whether it
 * runs again. */
static void say_disturbed(const struct experiment_opts *o, const struct xp_run *r, bool again)
{
    const struct engine_foreign *f = &r->run.foreign;
    char name[400], cpus[512], unknown[64] = "";
    size_t n = 0;
    double window = (double)r->run.sc.run_ns;
    cpus[0] = '\0';
    for (unsigned c = 0; c < 64; c++)
        if (f->cpus >> c & 1)
            n += (size_t)snprintf(cpus + n, n < sizeof cpus ? sizeof cpus - n : 0, "%sCPU %u %.1f%%", n ? ", " : "",
                                  c, 100.0 * (double)f->cpu_ns[c] / window);
    if (f->unknown_ns)
        snprintf(unknown, sizeof unknown, ", %.1f%% of it unaccounted for in the trace",
                 100.0 * (double)f->unknown_ns / window);
    run_name(o, r, name, sizeof name);
    fprintf(stderr, "%srunq experiment: %s%s) disturbed: other processes took %.1f%% of its window on its CPUs "
            "(%s%s)%s\n",
            isatty(2) ? "\n" : "", name, r->attempt ? ", run again" : "", 100.0 * (double)f->ns / window, cpus,
            unknown,
            again ? "; running it again" : o->rerun ? "; kept, marked disturbed (no reruns left)"
                                                    : "; kept, marked disturbed");
}

/* Stores run r with result res (NULL: it failed, err says why). */
static int store(sqlite3 *db, int64_t xid, const struct xp_run *r, const struct scn_result *res, int64_t trace,
                 const char *why)
{
    static struct dbx_task tasks[SCN_MAX_INSTANCES];
    static struct dbx_metric metrics[SCN_MAX_TASKS * SCN_NR_METRICS];
    const struct scenario *sc = &r->run.sc;
    char *text = NULL, err[512];
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    int nm = 0;

    if (f) {
        scn_print(f, sc);
        fclose(f);
    }
    if (res) {
        BUG_ON(res->ntasks > SCN_MAX_INSTANCES || sc->ntasks > SCN_MAX_TASKS); /* what tasks and metrics hold */
        for (unsigned i = 0; i < res->ntasks; i++) {
            const struct scn_task_result *t = &res->task[i];
            struct dbx_task *d = &tasks[i];
            memset(d, 0, sizeof *d);
            d->instance = (int)i;
            d->idx = (int)t->index;
            d->cpu = t->cpu;
            d->task = sc->tasks[t->task].name;
            d->name = t->name;
            d->tid = t->tid;
            d->window_ns = t->st.window_ns;
            d->runtime_ns = t->st.runtime_ns;
            d->wakeups = t->st.wakeups;
            d->missed = t->st.missed;
            d->stalls = t->st.stalls;
            d->dropped = t->st.dropped;
            memcpy(d->late, t->st.late, sizeof d->late);
            d->vcsw = t->st.vcsw;
            d->ivcsw = t->st.ivcsw;
            d->reads = t->st.reads;
            d->has_iters = res->has_iters;
            d->iters = t->st.iters;
        }
        for (int t = 0; t < sc->ntasks; t++)
            for (int m = 0; m < SCN_NR_METRICS; m++) {
                metrics[nm].task = sc->tasks[t].name;
                metrics[nm].metric = scn_metric_name((enum scn_metric)m);
                metrics[nm].value = scn_metric_value(sc, res, t, (enum scn_metric)m);
                nm++;
            }
    }
    struct dbx_scenario s = {
        .experiment_id = xid, .cell = r->cell, .repeat = r->repeat, .seed = r->seed, .run_ns = sc->run_ns,
        .trace_id = trace, .engine = r->engine->name, .params = r->run.params, .status = res ? "ok" : "failed",
        .error = why, .text = text, .ntasks = res ? (int)res->ntasks : 0, .tasks = tasks, .nmetrics = nm,
        .metrics = metrics, .foreign_known = r->run.foreign.known, .foreign_ns = r->run.foreign.ns,
        .disturbed = disturbed(r),
    };
    int rc = dbx_add_scenario(db, &s, err, sizeof err) < 0 ? -1 : 0;
    if (rc)
        fprintf(stderr, "runq experiment: %s\n", err);
    free(text);
    return rc;
}

static void progress(const struct experiment_opts *o, int done, int total, double t0, int failed)
{
    if (o->quiet)
        return;
    double el = now_s() - t0, left = done ? el / done * (total - done) : 0;
    bool tty = isatty(2);
    fprintf(stderr, "%sruns %d/%d done%s%.0d%s, %.0f s elapsed%s", tty ? "\r" : "", done, total,
            failed ? ", " : "", failed, failed ? " failed" : "", el, done < total ? "" : "\n");
    if (done < total && done)
        fprintf(stderr, ", about %.0f s left%s", left, tty ? "   " : "\n");
    else if (done < total)
        fprintf(stderr, "%s", tty ? "" : "\n");
}

/* The engine of the runs under way (the slots hold one engine's at a time). */
static const struct engine_ops *slot_engine(const struct xp_run *slot, int n)
{
    const struct engine_ops *e = NULL;
    for (int j = 0; j < n; j++) {
        BUG_ON(slot[j].run.pid && e && slot[j].engine != e); /* run_all starts one engine's at a time */
        if (slot[j].run.pid && !e)
            e = slot[j].engine;
    }
    return e;
}

/* The slots holding a run under way: all (pid 0), or pid's. */
static int slots_running(const struct xp_run *slot, int n, pid_t pid)
{
    int k = 0;
    for (int j = 0; j < n; j++)
        k += slot[j].run.pid != 0 && (!pid || slot[j].run.pid == pid);
    return k;
}

static bool uses(const struct experiment_opts *o, const char *engine)
{
    for (int i = 0; i < o->nengines; i++)
        if (o->engines[i] == engine_lookup(engine))
            return true;
    return false;
}

/* The runs of all engines whose number falls in this shard. */
static int shard_runs(const struct experiment_opts *o, int total)
{
    int mine = 0;
    for (int k = 0; k < total; k++)
        mine += !o->shard_n || k % o->shard_n == o->shard_i - 1;
    return mine;
}

/* --dry-run: the matrix as it would run, and what each engine that says
 * more would run for its first cell; nothing runs and no database is
 * opened. */
static int dry_run(const struct experiment_opts *o, const struct engine_settings *es, const struct scenario *base,
                   uint64_t seed, int nc, int total)
{
    static struct scenario cell;
    char params[256], err[512];
    printf("%s: %d cell%s x %d repeat%s (seeds %llu..%llu) = %d run%s, %d here, engine %s\n", o->file, nc,
           nc == 1 ? "" : "s", o->repeat, o->repeat == 1 ? "" : "s", (unsigned long long)seed,
           (unsigned long long)(seed + (uint64_t)o->repeat - 1), total, total == 1 ? "" : "s",
           shard_runs(o, total), o->engine);
    for (int c = 0; c < nc; c++) {
        cell_scenario(base, c, &cell, params, sizeof params, err, sizeof err);
        printf("  cell %d: %s\n", c, params[0] ? params : "(no axes)");
    }
    for (int e = 0; e < o->nengines; e++)
        if (o->engines[e]->dry_run) {
            cell_scenario(base, 0, &cell, params, sizeof params, err, sizeof err);
            cell.seed = seed;
            o->engines[e]->dry_run(es, &cell, stdout);
        }
    return 0;
}

/* What the runs of one experiment share, for run_all. */
struct xp_plan {
    const struct experiment_opts *o;
    const struct engine_settings *es;
    const struct scenario *base;
    const struct engine_host_rules *adopt; /* what the engines not on the host take of its rules */
    uint64_t seed;
    int total, mine; /* runs in all, and in this shard */
    sqlite3 *db;
    int64_t xid;
    const char *dir; /* the runs' files */
};

/* How the runs went. */
struct xp_tally {
    int done;   /* runs that ended */
    int failed; /* of which failed */
    int mine;   /* runs meant to: the shard's, and the reruns of disturbed ones */
    bool kept;  /* a failed run's files are kept in the plan's dir */
};

/* Runs p's runs, each engine's up to its jobs() at once and every run of
 * one engine before the next's, storing each as it ends, and counts them
 * in *t. 0, or 1 when a run could not start or be stored. A signal
 * (stop_signal) ends it early: no new runs, the running ones end. */
static int run_all(const struct xp_plan *p, struct xp_tally *t)
{
    const struct experiment_opts *o = p->o;
    char err[1024];
    int maxjobs = 1;
    for (int e = 0; e < o->nengines; e++)
        if (o->engines[e]->jobs(p->es) > maxjobs)
            maxjobs = o->engines[e]->jobs(p->es);
    struct xp_run *slot = xcalloc((size_t)maxjobs, sizeof *slot);
    /* Disturbed runs to run again (--rerun-disturbed), in the order seen. */
    struct xp_again {
        int number, attempt;
    } *again = NULL;
    int nagain = 0;
    double t0 = now_s();
    int next = 0, running = 0, per_engine = p->total / o->nengines, rc = 0;
    *t = (struct xp_tally){ .mine = p->mine };
    bool forwarded = false;
    while ((t->done < t->mine || running) && rc == 0) {
        if (stop_signal && !running)
            break;
        /* A signal sent to this process alone (kill PID, not the
         * terminal's Ctrl-C to the group) reaches the runs too: a Linux
         * run must end and take its tracing instance away. */
        if (stop_signal && !forwarded) {
            for (int j = 0; j < maxjobs; j++)
                if (slot[j].run.pid)
                    kill(slot[j].run.pid, (int)stop_signal);
            forwarded = true;
        }
        /* Fill the free slots with the next runs, of one engine at a
         * time: the next engine's first run waits until every run of
         * the one before has ended. A disturbed run's rerun goes first:
         * its engine's runs are the ones under way. */
        while (!stop_signal && (nagain || next < p->total)) {
            int k = nagain ? again[0].number : next, attempt = 0;
            BUG_ON(k < 0 || k >= p->total); /* so k / per_engine is an engine's index */
            const struct engine_ops *eng = o->engines[k / per_engine];
            if (running && (running >= eng->jobs(p->es) || slot_engine(slot, maxjobs) != eng))
                break;
            if (nagain) {
                attempt = again[0].attempt;
                memmove(again, again + 1, (size_t)--nagain * sizeof *again);
            } else {
                next++;
                if (o->shard_n && k % o->shard_n != o->shard_i - 1)
                    continue;
            }
            struct xp_run *r = NULL;
            for (int j = 0; j < maxjobs; j++)
                if (!slot[j].run.pid)
                    r = &slot[j];
            /* running < the engine's jobs <= maxjobs: a slot is free */
            BUG_ON(!r);
            memset(&r->run.foreign, 0, sizeof r->run.foreign);
            r->run.number = k;
            r->run.log[0] = r->run.aux[0] = '\0';
            r->attempt = attempt;
            r->engine = eng;
            r->cell = k % per_engine / o->repeat;
            r->repeat = k % o->repeat;
            r->seed = p->seed + (uint64_t)r->repeat;
            cell_scenario(p->base, r->cell, &r->run.sc, r->run.params, sizeof r->run.params, err, sizeof err);
            if (!eng->host_rules)
                for (int i = 0; i < p->adopt->n; i++)
                    scn_set_feature(&r->run.sc, p->adopt->feature[i], p->adopt->on[i]);
            r->run.sc.seed = r->seed;
            static struct scn_result res;
            r->run.pid = 0;
            int started = eng->start(p->es, &r->run, p->dir, &res, err, sizeof err);
            if (!eng->finish) {
                /* Run and over (on paper). */
                bool ok = started == 0;
                if (store(p->db, p->xid, r, ok ? &res : NULL, 0, ok ? NULL : err) < 0)
                    rc = 1;
                t->failed += !ok;
                t->done++;
                progress(o, t->done, t->mine, t0, t->failed);
                continue;
            }
            if (started < 0) {
                fprintf(stderr, "runq experiment: %s\n", err);
                rc = 1;
                break;
            }
            running++;
            /* The pool's bookkeeping: the run's child in one slot, the
             * runs under way no more than the engine's jobs, each counted. */
            BUG_ON(r->run.pid <= 0 || slots_running(slot, maxjobs, r->run.pid) != 1);
            BUG_ON(running > eng->jobs(p->es) || running != slots_running(slot, maxjobs, 0));
        }
        if (!running)
            continue;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0) {
            fprintf(stderr, "runq experiment: wait: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        struct xp_run *r = NULL;
        for (int j = 0; j < maxjobs; j++)
            if (slot[j].run.pid == pid)
                r = &slot[j];
        if (!r)
            continue;
        BUG_ON(slots_running(slot, maxjobs, pid) != 1); /* each pid in the pool once */
        running--;
        BUG_ON(running < 0); /* each slot's pid was counted once when it started */
        static struct scn_result res;
        char why[512] = "";
        int64_t trace = 0;
        bool ok = r->engine->finish(p->es, &r->run, st, &res, &trace, why, sizeof why) == 0;
        if (!ok && stop_signal)
            snprintf(why, sizeof why, "interrupted (signal %d)", (int)stop_signal);
        if (!ok) {
            char name[400];
            run_name(o, r, name, sizeof name);
            fprintf(stderr, "%srunq experiment: %s) failed: %s (%s: %s)\n", isatty(2) && !o->quiet ? "\n" : "",
                    name, why, r->engine->log_name, r->run.log);
            t->kept = true;
        } else {
            unlink(r->run.log);
            unlink(r->run.aux);
        }
        if (store(p->db, p->xid, r, ok ? &res : NULL, trace, ok ? NULL : why) < 0)
            rc = 1;
        if (ok && disturbed(r)) {
            /* Kept and marked: the table leaves it out of its cell when
             * the cell has a clean run; run again if asked. */
            bool more = r->attempt < o->rerun && !stop_signal;
            if (more) {
                again = xreallocarray(again, (size_t)nagain + 1, sizeof *again);
                again[nagain++] = (struct xp_again){ r->run.number, r->attempt + 1 };
                t->mine++;
            }
            if (!o->quiet)
                say_disturbed(o, r, more);
        }
        t->failed += !ok;
        r->run.pid = 0;
        t->done++;
        /* a finished run left the pool once; no run ends twice */
        BUG_ON(running != slots_running(slot, maxjobs, 0) || t->done > t->mine || t->failed > t->done);
        progress(o, t->done, t->mine, t0, t->failed);
    }
    free(slot);
    free(again);
    return rc;
}

/* The lines that say, before the runs, what runs where (unless --quiet),
 * and the host's rules the engines beside the host's take into *adopt
 * (none when no engine runs on the host, or none beside it). */
static void announce(const struct experiment_opts *o, const struct scenario *base, int64_t xid, int nc, int mine,
                     struct engine_host_rules *adopt)
{
    if (!o->quiet)
        fprintf(stderr, "runq experiment: experiment %lld, %d cell%s x %d repeat%s%s, %d run%s here, engine %s%s\n",
                (long long)xid, nc, nc == 1 ? "" : "s", o->repeat, o->repeat == 1 ? "" : "s",
                o->nengines > 1 ? " on each engine" : "", mine, mine == 1 ? "" : "s", o->engine,
                !uses(o, "kernel") ? "" : o->realtime ? " (kernel in real time)" : " (kernel deterministic)");
    const struct engine_ops *host = NULL;
    bool beside = false;
    for (int e = 0; e < o->nengines; e++) {
        if (o->engines[e]->host_rules)
            host = o->engines[e];
        else
            beside = true;
    }
    memset(adopt, 0, sizeof *adopt);
    if (!host || (o->quiet && !beside))
        return;
    host->host_rules(base, adopt);
    if (!o->quiet)
        fprintf(stderr, "runq experiment: %s's rules: %s\n", host->name, adopt->describe);
    if (!beside) {
        adopt->n = 0;
        return;
    }
    if (!o->quiet) {
        char set[512] = "";
        size_t n = 0;
        for (int i = 0; i < adopt->n; i++)
            n += (size_t)snprintf(set + n, n < sizeof set ? sizeof set - n : 0, "%s%s %s", i ? ", " : "",
                                  adopt->feature[i], adopt->on[i] ? "on" : "off");
        fprintf(stderr, "runq experiment: kernel and sim take the host's rules: %s%s (%d more as runq's defaults "
                        "already have them; the scenario's own settings stand)\n",
                adopt->n ? "" : "none differs from runq's defaults", set, adopt->agree);
    }
}

int experiment_run(const struct experiment_opts *o)
{
    static struct scenario base;
    char err[1024], colnames[2048], axes[512] = "", shard[32] = "";
    struct scn_measure cols[SCN_MAX_MEASURES];
    int rc;

    BUG_ON(o->nengines < 1 || o->nengines > XP_MAX_ENGINES || o->repeat < 1);
    if (scn_load(o->file, &base, err, sizeof err) < 0) {
        fprintf(stderr, "runq experiment: %s\n", err);
        return 2;
    }
    if ((rc = apply_vary_flags(o, &base)) != 0)
        return rc;
    uint64_t seed = o->seed_given ? o->seed : base.seed;
    if ((uint64_t)o->repeat - 1 > UINT64_MAX - seed)
        return usage("--repeat %d from seed %llu runs past the largest seed, 18446744073709551615", o->repeat,
                     (unsigned long long)seed);
    int nc = ncells(&base), total = nc * o->repeat * o->nengines;
    if (total > XP_MAX_RUNS)
        return usage("%d runs is too many (at most %d)", total, XP_MAX_RUNS);
    columns(&base, cols, colnames, sizeof colnames);
    for (int a = 0, n = 0; a < base.nvary; a++)
        n += snprintf(axes + n, sizeof axes - (size_t)n, "%s%s", a ? "," : "", base.vary[a].key);
    if (o->shard_n)
        snprintf(shard, sizeof shard, "%d/%d", o->shard_i, o->shard_n);
    const struct engine_settings es = {
        .file = o->file, .db = o->no_record ? NULL : o->db, .jobs = o->jobs, .timeout = o->timeout,
        .realtime = o->realtime, .allow_rt_hog = o->allow_rt_hog, .quiet = o->quiet, .stop = &stop_signal,
        .in_child = orphans_die_with,
    };

    /* Every run is checked before any starts, on every engine: an
     * engine's refusal is a usage error, with the line. */
    static struct scenario probe;
    for (int c = 0; c < nc; c++) {
        char params[256];
        if (cell_scenario(&base, c, &probe, params, sizeof params, err, sizeof err) < 0) {
            fprintf(stderr, "runq experiment: cell %s: %s\n", params, err);
            return 2;
        }
        for (int e = 0; e < o->nengines; e++)
            if (o->engines[e]->refuses(&es, &probe, err, sizeof err) < 0) {
                char who[320];
                snprintf(who, sizeof who, "%s%s%s%s", o->nengines > 1 ? "engine " : "",
                         o->nengines > 1 ? o->engines[e]->name : "", o->nengines > 1 && params[0] ? ", " : "",
                         params);
                fprintf(stderr, "runq experiment: %s%s%s\n", who, who[0] ? ": " : "", err);
                return 2;
            }
    }

    if (o->dry_run)
        return dry_run(o, &es, &base, seed, nc, total);

    /* Runs a runq experiment killed outright left behind (orphans.h). */
    orphans_reap();
    sqlite3 *db = dbx_open(o->db, err, sizeof err);
    if (!db) {
        fprintf(stderr, "runq experiment: %s\n", err);
        return 1;
    }
    char command[2048];
    size_t cl = 0;
    command[0] = '\0';
    for (int i = 0; i < o->argc; i++)
        cl += (size_t)snprintf(command + cl, cl < sizeof command ? sizeof command - cl : 0, "%s%s", i ? " " : "runq ",
                               o->argv[i]);
    struct dbx_experiment xe = { o->file, o->engine, axes, shard[0] ? shard : NULL, colnames, command, nc, o->repeat };
    int64_t xid = dbx_add_experiment(db, &xe, err, sizeof err);
    if (xid < 0) {
        fprintf(stderr, "runq experiment: %s\n", err);
        sqlite3_close(db);
        return 1;
    }

    static struct engine_host_rules adopt;
    int mine = shard_runs(o, total);
    announce(o, &base, xid, nc, mine, &adopt);

    char dir[] = "/tmp/runq-experiment-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "runq experiment: a temporary directory: %s\n", strerror(errno));
        sqlite3_close(db);
        return 1;
    }
    /* Ctrl-C, a TERM or a hangup (the terminal closed, the ssh session
     * gone): no new runs; the running ones (signalled too, as one process
     * group) end, and are stored as failed with why. A reader of stdout
     * gone must not kill this process before it has stored them. */
    struct sigaction sa = { 0 }, ign = { .sa_handler = SIG_IGN };
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &ign, NULL);
    const struct xp_plan plan = { .o = o, .es = &es, .base = &base, .adopt = &adopt, .seed = seed, .total = total,
                                  .mine = mine, .db = db, .xid = xid, .dir = dir };
    struct xp_tally t;
    rc = run_all(&plan, &t);
    if (!t.kept)
        rmdir(dir);
    if (stop_signal && !o->quiet)
        fprintf(stderr, "runq experiment: stopped by signal %d after %d of %d runs; experiment %lld holds them\n",
                (int)stop_signal, t.done, t.mine, (long long)xid);
    if (rc == 0)
        rc = experiment_table(db, "experiment", xid, o->fmt, o->missed_late, stdout);
    sqlite3_close(db);
    if (rc == 0 && t.failed)
        rc = 1;
    return stop_signal ? 128 + (int)stop_signal : rc;
}
