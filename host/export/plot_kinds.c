/*
 * `runq plot`'s kinds (contract in host/export/plot.h): each reads what it draws
 * through db/qx_plot.h (docs/sql.md's tables), writes one data file a series and
 * the script's lines after the terminal. Every figure has a title, axis
 * labels with their units, and a legend naming each series: one
 * `plot` element a series, so gnuplot's SVG holds one group a series
 * with its name (what tests/export/plot_test.sh counts).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "host/export/plot.h"
#include "db/events.h"
#include "db/query.h"
#include "db/qx_plot.h"
#include "db/visible.h"
#include "host/base/xalloc.h"
#include "host/scenario/scenario.h"

#define PLOT_MAX_SERIES 16 /* experiment: lines on one set of axes */
#define HIST_BINS_PER_DECADE 5
#define CDF_POINTS 2000    /* a CDF drawn through at most this many quantiles */

/* A distinct colour for series i of n: hues spread by the golden ratio,
 * so neighbours differ however many there are. */
static void series_colour(char *buf, size_t len, int i)
{
    double h = fmod(0.1 + i * 0.618033988749895, 1.0) * 6, s = i % 2 ? 0.55 : 0.75, v = i % 3 == 2 ? 0.7 : 0.9;
    int sector = (int)h;
    double f = h - sector, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double rgb[6][3] = { { v, t, p }, { q, v, p }, { p, v, t }, { p, q, v }, { t, p, v }, { v, p, q } };
    snprintf(buf, len, "#%02x%02x%02x", (int)(rgb[sector][0] * 255), (int)(rgb[sector][1] * 255),
             (int)(rgb[sector][2] * 255));
}

/* A read's error (db/qx_plot.h's err), said; 1. */
static int db_error(const char *err)
{
    fprintf(stderr, "runq plot: %s\n", err);
    return 1;
}

/* The trace's start, end, CPUs and policy; 1 after an error when there is
 * no such trace. */
struct trace_info {
    int64_t id, start, end;
    int ncpus;
    char policy[32];
};

#define TL_MAX_SPAN_NS (366ll * 24 * 3600 * 1000000000ll)

static int trace_info(sqlite3 *db, int64_t id, const char *db_path, struct trace_info *t)
{
    struct dbq_plot_trace row;
    char err[512];
    int found = dbq_plot_trace(db, id, &row, t->policy, sizeof t->policy, err, sizeof err);
    if (found < 0)
        return db_error(err);
    if (!found) {
        fprintf(stderr, "runq plot: no trace %lld in %s\n", (long long)id, db_path);
        return 1;
    }
    t->id = id;
    t->start = row.start;
    t->end = row.end;
    t->ncpus = row.ncpus;
    if (t->ncpus < 1 || t->ncpus > 4096) {
        fprintf(stderr, "runq plot: trace %lld says it has %d CPUs: the database is damaged\n", (long long)id,
                t->ncpus);
        return 1;
    }
    /* Times are ns since boot: a start before 0, an end before the start
     * or a span past a year is no recording's, and the window arithmetic
     * below (end - start, start + ms) would overflow on it. */
    if (t->start < 0 || t->end < t->start || t->end - t->start > TL_MAX_SPAN_NS) {
        fprintf(stderr, "runq plot: trace %lld says it runs from %lld to %lld ns: the database is damaged\n",
                (long long)id, (long long)t->start, (long long)t->end);
        return 1;
    }
    return 0;
}

static int64_t latest_trace(sqlite3 *db, const char *db_path)
{
    int64_t id = dbq_latest_trace(db);
    if (!id)
        fprintf(stderr, "runq plot: %s holds no trace yet\n", db_path);
    return id;
}

/* ---- timeline ---- */

/* Task colours, told apart at a glance; none grey (the marks) or bright
 * red (a data gap). */
static const char *const tl_palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                                          "#bcbd22", "#17becf", "#393b79", "#7b4173", "#6b6ecf", "#ad494a" };
#define TL_SLOTS (int)(sizeof tl_palette / sizeof tl_palette[0])
#define TL_MIN_PX 4.0  /* the narrowest slice drawn, in pixels */
#define TL_AREA 0.65   /* the share of the figure's width the axes take */

/* The timeline's reads in progress: the data file being written (its
 * name in path), the plot command's buffer, and what was drawn. */
struct tl_read {
    struct plot_job *j;
    int64_t start;   /* the trace's: x is ms from it */
    FILE *f, *pl;
    FILE *narrow;    /* slices under min_ms, drawn that wide on top */
    FILE *labels;    /* the gaps' labels: set once lane() is */
    char path[4096], narrow_path[4096];
    double min_ms;
    int64_t utid;    /* whose series f holds; -1 none yet */
    char colour[16]; /* its colour */
    bool slot_used[TL_SLOTS];
    bool *lane;      /* [ncpus]: a CPU something ran on, or lost */
    int ncpus;
    int ntasks, nwake, npicks, nnarrow, ngaps, rc;
};

static unsigned long tl_hash(const char *name)
{
    unsigned long h = 5381;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = h * 33 + *p;
    return h;
}

/* A task's colour from its name, so it keeps it from figure to figure;
 * within one figure the next free colour when another task has it (two
 * tasks of one name, or two names on one colour). */
static void tl_colour(struct tl_read *r, const char *name, char *buf, size_t len)
{
    unsigned slot = (unsigned)(tl_hash(name) % TL_SLOTS), k = 0;
    while (k < TL_SLOTS && r->slot_used[(slot + k) % TL_SLOTS])
        k++;
    if (k == TL_SLOTS) /* more tasks than colours: they repeat */
        memset(r->slot_used, 0, sizeof r->slot_used), k = 0;
    slot = (slot + k) % TL_SLOTS;
    r->slot_used[slot] = true;
    snprintf(buf, len, "%s", tl_palette[slot]);
}

static void tl_lane(struct tl_read *r, int cpu)
{
    if (cpu >= 0 && cpu < r->ncpus)
        r->lane[cpu] = true;
}

/* A slice: into its task's series, which its first slice opens; one
 * narrower than min_ms also into the narrow series, that wide. */
static bool tl_slice(const struct dbq_plot_slice *s, void *arg)
{
    struct tl_read *r = arg;
    if (s->utid != r->utid) {
        char name[160];
        if (r->f)
            fclose(r->f);
        if (!(r->f = plot_data_file(r->j, r->path, sizeof r->path))) {
            r->rc = 1;
            return false;
        }
        r->utid = s->utid;
        if (s->shared)
            snprintf(name, sizeof name, "%s (tid %d)", s->name, s->tid);
        else
            snprintf(name, sizeof name, "%s", *s->name ? s->name : "?");
        tl_colour(r, s->name, r->colour, sizeof r->colour);
        fprintf(r->pl, "%s", r->ntasks++ ? ", \\\n     " : "plot ");
        plot_quote(r->pl, r->path);
        fprintf(r->pl, " using (($1+$2)/2):(lane($3)):1:2:(lane($3)-0.38):(lane($3)+0.38) with boxxyerror "
                       "fillstyle solid 1.0 noborder lc rgb '%s' title ", r->colour);
        plot_quote(r->pl, name);
    }
    double x0 = (s->from - r->start) / 1e6, x1 = (s->to - r->start) / 1e6;
    fprintf(r->f, "%.6f %.6f %d\n", x0, x1, s->cpu);
    if (x1 - x0 < r->min_ms) {
        fprintf(r->narrow, "%.6f %.6f %d %ld\n", x0, x0 + r->min_ms, s->cpu, strtol(r->colour + 1, NULL, 16));
        r->nnarrow++;
    }
    tl_lane(r, s->cpu);
    return true;
}

static bool tl_point(int64_t ts, int cpu, void *arg, int *count)
{
    struct tl_read *r = arg;
    fprintf(r->f, "%.6f %d\n", (ts - r->start) / 1e6, cpu);
    ++*count;
    return true;
}

static bool tl_wake(int64_t ts, int cpu, void *arg)
{
    tl_lane(arg, cpu); /* the wakee's CPU: it ran there, or will */
    return tl_point(ts, cpu, arg, &((struct tl_read *)arg)->nwake);
}

static bool tl_pick(int64_t ts, int cpu, void *arg)
{
    return tl_point(ts, cpu, arg, &((struct tl_read *)arg)->npicks);
}

/* A gap: a hatched box, labelled where the script sets its labels. */
static bool tl_gap(int64_t a, int64_t b, int cpu, void *arg)
{
    struct tl_read *r = arg;
    double x0 = (a - r->start) / 1e6, x1 = (b - r->start) / 1e6;
    fprintf(r->f, "%.6f %.6f %d\n", x0, x1, cpu);
    fprintf(r->labels, "set label 'lost' at %.6f,lane(%d) center front tc rgb '#b00000'\n", (x0 + x1) / 2, cpu);
    r->ngaps++;
    tl_lane(r, cpu);
    return true;
}

/* ---- moves ---- */

/* The series of moves a timeline draws: one a rule, by its name as
 * stored, in the order they first come; the kernel's seven and Linux's
 * `unknown` fit, and a trace that names more (a database from elsewhere)
 * has the rest drawn as one series, "other rules". */
#define TL_MOVE_RULES 8
struct tl_moves {
    struct tl_read *r;
    struct tl_move_series {
        char *reason; /* NULL: the other rules */
        FILE *f;
        char path[4096];
        int n;
    } ser[TL_MOVE_RULES + 1];
    int nser;
    int rc;
};

/* A rule's colour: by its place in the trace format's table, so a rule
 * keeps it from figure to figure; dark, to show on any task's box. A
 * name the build cannot read (Linux's `unknown`, or any other) is grey. */
static const char *tl_move_colour(const char *reason)
{
    static const char *const by_rule[] = { "#000000", "#d4007a", "#0046c8", "#007a33",
                                           "#b35900", "#5a00b4", "#00838f" };
    unsigned k = (unsigned)event_migrate_parse(reason);
    return k < sizeof by_rule / sizeof by_rule[0] ? by_rule[k] : "#707070";
}

/* A move: into its rule's series (which its first move opens), and a
 * lane for both its CPUs. */
static bool tl_move(const struct dbq_plot_move *m, void *arg)
{
    struct tl_moves *mv = arg;
    int k = 0;
    while (k < mv->nser && k < TL_MOVE_RULES && strcmp(mv->ser[k].reason, m->reason))
        k++;
    if (k == mv->nser) { /* a rule not seen yet: a series of its own, or the other rules' */
        mv->ser[k].reason = k < TL_MOVE_RULES ? xstrdup(m->reason) : NULL;
        if (!(mv->ser[k].f = plot_data_file(mv->r->j, mv->ser[k].path, sizeof mv->ser[k].path))) {
            free(mv->ser[k].reason);
            mv->rc = 1;
            return false;
        }
        mv->nser++;
    }
    struct tl_move_series *sr = &mv->ser[k];
    fprintf(sr->f, "%.6f %d %d\n", (m->ts - mv->r->start) / 1e6, m->src, m->dst);
    sr->n++;
    tl_lane(mv->r, m->src);
    tl_lane(mv->r, m->dst);
    return true;
}

/* The moves in [from, to) as arrows at their time, from the source CPU's
 * lane to the destination's, a series a rule ("move: RULE (N)", the
 * rule's name quoted: it is the database's text). 0; 1 when a file
 * could not be made; -1 when the read failed (err). *count: the moves. */
static int tl_moves(struct tl_read *r, sqlite3 *db, int64_t id, int64_t from, int64_t to, bool first, int *count,
                    char *err, size_t errlen)
{
    struct tl_moves mv = { .r = r };
    int rc = dbq_plot_moves(db, id, from, to, tl_move, &mv, err, errlen) != 0 ? -1 : mv.rc;
    *count = 0;
    for (int k = 0; k < mv.nser; k++) {
        struct tl_move_series *sr = &mv.ser[k];
        fclose(sr->f);
        if (!rc) {
            char title[256];
            snprintf(title, sizeof title, "move: %s (%d)", sr->reason ? sr->reason : "other rules", sr->n);
            fprintf(r->pl, "%s", first && !*count ? "plot " : ", \\\n     ");
            plot_quote(r->pl, sr->path);
            fprintf(r->pl, " using 1:(lane($2)):(0):(lane($3)-lane($2)) with vectors head filled size screen "
                           "0.012,25 lw 2 lc rgb '%s' title ",
                    sr->reason ? tl_move_colour(sr->reason) : "#707070");
            plot_quote(r->pl, title);
        }
        *count += sr->n;
        free(sr->reason);
    }
    return rc;
}

/* The window a timeline draws when none was asked: PLOT_WINDOW_MS that
 * show a few decisions, from 5 ms before the probe's first stall when
 * the trace has one, else from its start. 0, or 1 after saying why. */
static int tl_window(sqlite3 *db, int64_t id, const struct trace_info *t, int64_t *from, int64_t *to)
{
    char err[512];
    int64_t ts = 0;
    int found = dbq_plot_first_stall(db, id, PLOT_STALL_NS, &ts, err, sizeof err);
    if (found < 0)
        return db_error(err);
    *from = found && ts - 5000000 > t->start ? ts - 5000000 : t->start;
    *to = *from + PLOT_WINDOW_MS * 1000000ll;
    return 0;
}

/* A series of marks: where on the lane (the top: decisions; the foot:
 * wakeups), the point's type and colour, its legend. */
struct tl_mark {
    double dy;
    int pt;
    const char *colour, *title;
};

/* The marks read (time and CPU each) into a points file of their own,
 * by fn through r, then their series when there were any (*count). 0;
 * 1 when the file could not be made; -1 when the read failed (err), with
 * r->f still open for the caller to close. */
static int tl_points(struct tl_read *r, sqlite3 *db, int64_t id, int64_t from, int64_t to,
                     int (*read)(sqlite3 *, int64_t, int64_t, int64_t, bool (*)(int64_t, int, void *), void *, char *,
                                 size_t),
                     bool (*fn)(int64_t ts, int cpu, void *arg), const int *count, bool first,
                     const struct tl_mark *m, char *err, size_t errlen)
{
    if (!(r->f = plot_data_file(r->j, r->path, sizeof r->path)))
        return 1;
    if (read(db, id, from, to, fn, r, err, errlen) != 0)
        return -1;
    fclose(r->f);
    r->f = NULL;
    if (*count) {
        fprintf(r->pl, "%s", first ? "plot " : ", \\\n     ");
        plot_quote(r->pl, r->path);
        fprintf(r->pl, " using 1:(lane($2)%+.2f) with points pt %d ps 0.7 lc rgb '%s' title ", m->dy, m->pt, m->colour);
        plot_quote(r->pl, m->title);
    }
    return 0;
}

/*
 * One series a task that ran in the window: a box per slice, y its CPU's
 * lane, in a colour its name picks. A slice narrower than TL_MIN_PX is
 * drawn that wide in a series of its own on top (the 50 us probe, the
 * task such a figure is about, would vanish). Idle tasks are not drawn;
 * a CPU with nothing in the window gets no lane (the y label names it).
 * A data gap is not idle (nothing is known of it): a series of its own,
 * hatched and labelled "lost". Decisions are marks at the top of a lane
 * (eevdf_pick), wakeups at its foot (ts_wake, on the wakee's CPU). A move
 * between CPUs (migration, schema 12) is an arrow at its time from its
 * source's lane to its destination's, coloured by its rule, a series a
 * rule; both CPUs get a lane.
 */
int plot_timeline(sqlite3 *db, const struct plot_opts *o, struct plot_job *j)
{
    struct trace_info t;
    int64_t id = o->ntraces ? o->trace[0] : latest_trace(db, o->db_path);
    if (!id || trace_info(db, id, o->db_path, &t))
        return 1;
    int64_t from = t.start + (int64_t)(o->from_ms * 1e6), to = t.start + (int64_t)(o->to_ms * 1e6);
    if (o->auto_window && tl_window(db, id, &t, &from, &to))
        return 1;
    if (from >= t.end) {
        fprintf(stderr, "runq plot: trace %lld lasts %.3f ms: --from %g starts after its end\n", (long long)id,
                (t.end - t.start) / 1e6, o->from_ms);
        return 1;
    }
    if (to > t.end)
        to = t.end;
    double x0 = (from - t.start) / 1e6, x1 = (to - t.start) / 1e6;

    /* The slices, task by task: a task's series is written when its
     * first slice comes. A name two tasks share gets each one's tid. */
    struct tl_read r = { .j = j, .start = t.start, .utid = -1, .ncpus = t.ncpus };
    r.min_ms = TL_MIN_PX * (x1 - x0) / (TL_AREA * o->width);
    r.lane = xcalloc((size_t)t.ncpus, sizeof *r.lane);
    int rc = 0;
    char err[512];
    /* the plot command: its elements, one a series, are written to a
     * buffer while the data files are */
    char *plot = NULL, *labels = NULL;
    size_t plotlen = 0, labelslen = 0;
    if (!(r.pl = open_memstream(&plot, &plotlen)) || !(r.labels = open_memstream(&labels, &labelslen))) {
        fprintf(stderr, "runq plot: out of memory\n");
        if (r.pl)
            fclose(r.pl);
        free(plot);
        free(r.lane);
        return 1;
    }
    if (!(r.narrow = plot_data_file(j, r.narrow_path, sizeof r.narrow_path)))
        rc = 1;
    if (!rc && dbq_plot_slices(db, id, from, to, tl_slice, &r, err, sizeof err) != 0)
        goto db_failed;
    if (r.f)
        fclose(r.f);
    r.f = NULL;
    rc = rc || r.rc;
    int ntasks = r.ntasks;
    if (!rc && r.nnarrow) {
        fprintf(r.pl, ", \\\n     ");
        plot_quote(r.pl, r.narrow_path);
        fprintf(r.pl, " using (($1+$2)/2):(lane($3)):1:2:(lane($3)-0.38):(lane($3)+0.38):4 with boxxyerror "
                      "fillstyle solid 1.0 noborder lc rgb variable title 'slices under %.3g ms, drawn that wide'",
                r.min_ms);
    }

    /* Wakeups and decisions in the window, and the gaps that overlap it. */
    static const struct tl_mark wake_mark = { 0.44, 9, "#202020", "wakeup (on the wakee's CPU)" },
                                pick_mark = { -0.44, 11, "#606060", "decision (a pick)" };
    int pr = rc ? 1
                : tl_points(&r, db, id, from, to, dbq_plot_wakeups, tl_wake, &r.nwake, !ntasks, &wake_mark, err,
                            sizeof err);
    if (pr == 0)
        pr = tl_points(&r, db, id, from, to, dbq_plot_picks, tl_pick, &r.npicks, !ntasks && !r.nwake, &pick_mark, err,
                       sizeof err);
    if (pr < 0)
        goto db_failed;
    rc = rc || pr;
    if (!rc && (r.f = plot_data_file(j, r.path, sizeof r.path))) {
        /* a gap's missing end is the trace's: nothing came after it */
        if (dbq_plot_gaps(db, id, from, to, t.end, tl_gap, &r, err, sizeof err) != 0)
            goto db_failed;
        fclose(r.f);
        r.f = NULL;
        if (r.ngaps) {
            fprintf(r.pl, "%s", ntasks || r.nwake || r.npicks ? ", \\\n     " : "plot ");
            plot_quote(r.pl, r.path);
            fprintf(r.pl, " using (($1+$2)/2):(lane($3)):1:2:(lane($3)-0.45):(lane($3)+0.45) with boxxyerror "
                          "fillstyle pattern 4 border lc rgb '#b00000' lc rgb '#b00000' title 'lost (data gap: not "
                          "idle, unknown)'");
        }
    } else {
        rc = 1;
    }
    int nmoves = 0;
    if (!rc) {
        int mr = tl_moves(&r, db, id, from, to, !ntasks && !r.nwake && !r.npicks && !r.ngaps, &nmoves, err, sizeof err);
        if (mr < 0)
            goto db_failed;
        rc = mr;
    }
    int nwake = r.nwake, ngaps = r.ngaps;
    fclose(r.pl);
    fclose(r.labels);
    if (r.narrow)
        fclose(r.narrow);
    if (!rc && !ntasks && !nwake && !ngaps && !nmoves) {
        fprintf(stderr, "runq plot: trace %lld: nothing ran between %g and %g ms\n", (long long)id, x0, x1);
        rc = 1;
    }
    if (rc) {
        free(plot);
        free(labels);
        free(r.lane);
        return rc;
    }
    /* One lane a CPU something ran on (or was lost on), in CPU order;
     * lane() maps a CPU to its lane, NaN (not drawn) for the others. */
    int nlanes = 0;
    char idle[256] = "";
    fprintf(j->gp, "lane(c) = ");
    for (int c = 0; c < t.ncpus; c++)
        if (r.lane[c])
            fprintf(j->gp, "c == %d ? %d : ", c, nlanes++);
        else if (strlen(idle) < sizeof idle - 16)
            snprintf(idle + strlen(idle), sizeof idle - strlen(idle), "%s%d", idle[0] ? ", " : "", c);
    fprintf(j->gp, "NaN\n%s", labels);
    char title[128];
    snprintf(title, sizeof title, "Trace %lld (%s%s%d CPU%s): who ran, %g to %g ms", (long long)id, t.policy,
             *t.policy ? ", " : "", t.ncpus, t.ncpus == 1 ? "" : "s", x0, x1);
    fprintf(j->gp, "set title ");
    plot_quote(j->gp, title);
    fprintf(j->gp, "\n");
    fprintf(j->gp, "set xlabel 'time from the trace''s start (ms)'\n");
    if (idle[0])
        fprintf(j->gp, "set ylabel 'CPU (nothing on %s)'\n", idle);
    else
        fprintf(j->gp, "set ylabel 'CPU'\n");
    fprintf(j->gp, "set xrange [%.6f:%.6f]\nset yrange [%d.5:-0.5]\n", x0, x1, nlanes - 1);
    fprintf(j->gp, "set ytics (");
    for (int c = 0, l = 0; c < t.ncpus; c++)
        if (r.lane[c])
            fprintf(j->gp, "%s'CPU %d' %d", l ? ", " : "", c, l), l++;
    fprintf(j->gp, ")\nset grid xtics\nset key outside right top vertical Left reverse noautotitle\n");
    fprintf(j->gp, "%s\n", plot);
    free(plot);
    free(labels);
    free(r.lane);
    return 0;

db_failed: /* a read failed: r.f is the data file being written, or NULL */
    if (r.f)
        fclose(r.f);
    fclose(r.pl);
    fclose(r.labels);
    fclose(r.narrow);
    free(plot);
    free(labels);
    free(r.lane);
    return db_error(err);
}

/* ---- latency ---- */

struct lat_series {
    int64_t trace;
    char label[200];
    double *us; /* latencies in µs, sorted */
    size_t n, cap;
};

/* A trace's name in a legend: its scenario's parameters, else its
 * policy, else "trace N". */
static int trace_label(sqlite3 *db, const struct trace_info *t, char *buf, size_t len)
{
    char err[512];
    if (dbq_plot_trace_params(db, t->id, buf, len, err, sizeof err) != 0)
        return db_error(err);
    if (!buf[0])
        snprintf(buf, len, "%s", t->policy);
    if (!buf[0])
        snprintf(buf, len, "trace %lld", (long long)t->id);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A latency into ls, in µs; true: go on. */
static bool lat_add(int64_t ns, void *arg)
{
    struct lat_series *ls = arg;
    if (ls->n == ls->cap) {
        ls->cap = ls->cap ? 2 * ls->cap : 1024;
        ls->us = xreallocarray(ls->us, ls->cap, sizeof *ls->us);
    }
    ls->us[ls->n++] = ns / 1e3;
    return true;
}

static int lat_load(sqlite3 *db, const struct plot_opts *o, struct lat_series *ls)
{
    char err[512];
    if (dbq_plot_latencies(db, ls->trace, o->task, lat_add, ls, err, sizeof err) != 0)
        return db_error(err);
    if (!ls->n) {
        fprintf(stderr, "runq plot: trace %lld has no wakeup that ran%s%s%s\n", (long long)ls->trace,
                o->task ? " of a task called '" : "", o->task ? o->task : "", o->task ? "'" : "");
        return 1;
    }
    qsort(ls->us, ls->n, sizeof *ls->us, cmp_double);
    return 0;
}

/* Every trace of the database, into ls while they fit. */
struct lat_traces {
    struct lat_series *ls;
    int n;
    bool more; /* there are more than PLOT_MAX_TRACES */
};

static bool lat_trace(int64_t id, void *arg)
{
    struct lat_traces *lt = arg;
    if (lt->n == PLOT_MAX_TRACES) {
        lt->more = true;
        return false;
    }
    lt->ls[lt->n++].trace = id;
    return true;
}

/* One panel's plot command: a series a trace, from its data file in
 * path[i], drawn as how says, in its colour, named by its label. */
static void lat_plot(FILE *gp, const struct lat_series *ls, int n, char (*path)[4096], const char *how)
{
    char colour[16], name[256];
    for (int i = 0; i < n; i++) {
        series_colour(colour, sizeof colour, i);
        fprintf(gp, "%s", i ? ", \\\n     " : "plot ");
        plot_quote(gp, path[i]);
        fprintf(gp, " %s lc rgb '%s' title ", how, colour);
        snprintf(name, sizeof name, "%s (%zu wakeups)", ls[i].label, ls[i].n);
        plot_quote(gp, name);
    }
    fprintf(gp, "\n");
}

/*
 * Each trace's latencies, on log axes in µs: the histogram in bins of
 * equal width on that axis (HIST_BINS_PER_DECADE a decade), as the share
 * of the trace's wakeups, so traces of different lengths compare; the
 * CDF through at most CDF_POINTS quantiles. A latency below the first
 * bin (0 ns: run at once) counts in the first.
 */
int plot_latency(sqlite3 *db, const struct plot_opts *o, struct plot_job *j)
{
    struct lat_series ls[PLOT_MAX_TRACES] = { 0 };
    int n = o->ntraces, rc = 1;
    if (!n) { /* every trace, if they fit */
        struct lat_traces lt = { ls, 0, false };
        char err[512];
        if (dbq_plot_traces(db, lat_trace, &lt, err, sizeof err) != 0)
            return db_error(err);
        if (lt.more) {
            fprintf(stderr, "runq plot: %s holds more than %d traces: name up to %d with --trace\n", o->db_path,
                    PLOT_MAX_TRACES, PLOT_MAX_TRACES);
            return 1;
        }
        n = lt.n;
        if (!n) {
            fprintf(stderr, "runq plot: %s holds no trace yet\n", o->db_path);
            return 1;
        }
    } else {
        for (int i = 0; i < n; i++)
            ls[i].trace = o->trace[i];
    }
    for (int i = 0; i < n; i++) {
        struct trace_info t;
        if (trace_info(db, ls[i].trace, o->db_path, &t) || trace_label(db, &t, ls[i].label, sizeof ls[i].label) ||
            lat_load(db, o, &ls[i]))
            goto done;
    }
    /* Two traces of one label (two EEVDF runs) are told apart by id. */
    char dup[PLOT_MAX_TRACES] = { 0 };
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (!strcmp(ls[a].label, ls[b].label))
                dup[a] = dup[b] = 1;
    for (int i = 0; i < n; i++)
        if (dup[i]) {
            size_t l = strlen(ls[i].label);
            snprintf(ls[i].label + l, sizeof ls[i].label - l, " (trace %lld)", (long long)ls[i].trace);
        }

    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        if (ls[i].us[ls[i].n - 1] > hi)
            hi = ls[i].us[ls[i].n - 1];
        for (size_t k = 0; k < ls[i].n; k++)
            if (ls[i].us[k] > 0) {
                if (ls[i].us[k] < lo)
                    lo = ls[i].us[k];
                break;
            }
    }
    if (!isfinite(lo)) /* every one ran at once */
        lo = hi = 0.001;
    int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
    if (d1 <= d0)
        d1 = d0 + 1;
    int nbins = (d1 - d0) * HIST_BINS_PER_DECADE;
    char hpath[PLOT_MAX_TRACES][4096], cpath[PLOT_MAX_TRACES][4096];
    for (int i = 0; i < n; i++) {
        FILE *f = plot_data_file(j, hpath[i], sizeof hpath[i]);
        if (!f)
            goto done;
        size_t k = 0;
        for (int b = 0; b < nbins; b++) {
            double a = pow(10, d0 + (double)b / HIST_BINS_PER_DECADE), z = pow(10, d0 + (double)(b + 1) / HIST_BINS_PER_DECADE);
            size_t c = 0;
            for (; k < ls[i].n && (ls[i].us[k] < z || b == nbins - 1); k++)
                c++;
            fprintf(f, "%.6g %.6g %.6f\n", a, z, 100.0 * (double)c / (double)ls[i].n);
        }
        fclose(f);
        if (!(f = plot_data_file(j, cpath[i], sizeof cpath[i])))
            goto done;
        size_t step = ls[i].n > CDF_POINTS ? ls[i].n / CDF_POINTS : 1;
        for (size_t q = 0; q < ls[i].n; q += step)
            fprintf(f, "%.6g %.6f\n", ls[i].us[q] > 0 ? ls[i].us[q] : pow(10, d0), 100.0 * (double)(q + 1) / (double)ls[i].n);
        fprintf(f, "%.6g 100\n", ls[i].us[ls[i].n - 1] > 0 ? ls[i].us[ls[i].n - 1] : pow(10, d0));
        fclose(f);
    }

    FILE *gp = j->gp;
    char title[512];
    int tl = snprintf(title, sizeof title, "Wake latency (wake to run)%s%s: ", o->task ? " of " : "",
                      o->task ? o->task : "");
    for (int i = 0; i < n && tl < (int)sizeof title; i++)
        tl += snprintf(title + tl, sizeof title - (size_t)tl, "%s%s", i ? " vs " : "", ls[i].label);
    fprintf(gp, "set logscale x 10\nset xrange [%g:%g]\nset format x '%%g'\nset grid\n", pow(10, d0), pow(10, d1));
    fprintf(gp, "set xlabel 'wake latency (µs, log scale)'\nset key top right box\n");
    bool both = !o->cdf_only && !o->hist_only;
    if (both) {
        fprintf(gp, "set multiplot layout 2,1 title ");
        plot_quote(gp, title);
        fprintf(gp, " font ',12'\n");
    } else {
        fprintf(gp, "set title ");
        plot_quote(gp, title);
        fprintf(gp, "\n");
    }
    if (!o->cdf_only) {
        if (both)
            fprintf(gp, "set title 'Histogram: share of each trace''s wakeups, %d bins a decade'\n",
                    HIST_BINS_PER_DECADE);
        fprintf(gp, "set ylabel 'share of wakeups (%%)'\nset yrange [0:*]\nset style fill transparent solid 0.35 border\n");
        lat_plot(gp, ls, n, hpath, "using (sqrt($1*$2)):3:1:2:(0):3 with boxxyerror");
    }
    if (!o->hist_only) {
        if (both)
            fprintf(gp, "set title 'CDF: share of wakeups that ran within x'\n");
        fprintf(gp, "set ylabel 'wakeups run within x (%%)'\nset yrange [0:100]\nset key bottom right\n");
        lat_plot(gp, ls, n, cpath, "using 1:2 with steps lw 2");
    }
    if (both)
        fprintf(gp, "unset multiplot\n");
    rc = 0;
done:
    for (int i = 0; i < n; i++)
        free(ls[i].us);
    return rc;
}

/* ---- experiment ---- */

struct xp_point {
    double x, mean, min, max;
    int cell;
};

struct xp_series {
    char key[256]; /* the other axes' KEY=VALUE (and the engine, of several) */
    struct xp_point *p;
    int n;
};

/* value of KEY in params ("probe.jitter=0 hog.slice=700us"), into buf;
 * the rest (the other axes, in their order) into rest. false when absent. */
static bool param_split(const char *params, const char *key, char *buf, size_t len, char *rest, size_t restlen)
{
    bool found = false;
    size_t kl = strlen(key), rl = 0;
    rest[0] = '\0';
    for (const char *p = params; *p;) {
        size_t w = strcspn(p, " ");
        if (w > kl && !strncmp(p, key, kl) && p[kl] == '=') {
            snprintf(buf, len, "%.*s", (int)(w - kl - 1), p + kl + 1);
            found = true;
        } else if (w && rl + w + 2 < restlen) {
            rl += (size_t)snprintf(rest + rl, restlen - rl, "%s%.*s", rl ? " " : "", (int)w, p);
        }
        p += w;
        p += strspn(p, " ");
    }
    return found;
}

/* s (a database's text: an experiment's axes, columns, metric names) as
 * text_visible shows it, in buf, for a message on the terminal */
static const char *shown(char *buf, size_t len, const char *s)
{
    text_visible(buf, len, s);
    return buf;
}

static int cmp_point(const void *a, const void *b)
{
    const struct xp_point *x = a, *y = b;
    /* cells are a database's integers: compare, never subtract (overflow) */
    return x->x < y->x ? -1 : x->x > y->x ? 1 : (x->cell > y->cell) - (x->cell < y->cell);
}

/* How x's values read: all durations (plotted in a unit that suits the
 * largest), all numbers (a trailing % kept in the label), or names,
 * placed in order as categories. */
enum x_kind { X_DURATION, X_NUMBER, X_NAME };

static bool x_number(const char *v, double *out, bool *pct)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v)
        return false;
    *pct = *end == '%';
    if (*end && strcmp(end, "%") != 0)
        return false;
    *out = d;
    return true;
}

/* The unit a time axis reads best in, for values up to max ns. */
static void time_unit(double max, const char **unit, double *div)
{
    if (max >= 1e6) {
        *unit = "ms";
        *div = 1e6;
    } else if (max >= 1e3) {
        *unit = "µs";
        *div = 1e3;
    } else {
        *unit = "ns";
        *div = 1;
    }
}

int plot_experiment(sqlite3 *db, const struct plot_opts *o, struct plot_job *j)
{
    int64_t id = o->experiment, newest;
    bool has;
    char err[512];
    if (dbq_plot_experiments(db, &has, &newest, err, sizeof err) != 0)
        return db_error(err);
    if (has && !id)
        id = newest;
    if (!has || !id) {
        fprintf(stderr, "runq plot: %s holds no experiment (runq experiment --db %s FILE makes one)\n", o->db_path,
                o->db_path);
        return 1;
    }
    char file[512], engine[64], axes[512], columns[2048];
    struct dbq_plot_experiment xr;
    int got = dbq_plot_experiment(db, id, &xr, err, sizeof err);
    if (got < 0)
        return db_error(err);
    if (!got) {
        fprintf(stderr, "runq plot: no experiment %lld in %s\n", (long long)id, o->db_path);
        return 1;
    }
    snprintf(file, sizeof file, "%s", xr.file);
    snprintf(engine, sizeof engine, "%s", xr.engine);
    snprintf(axes, sizeof axes, "%s", xr.axes);
    snprintf(columns, sizeof columns, "%s", xr.columns);
    int repeats = xr.repeats;
    dbq_plot_experiment_free(&xr);

    /* the metric: TASK.METRIC, split at the first dot (p99.9 has one) */
    char metric[128], task[64];
    const char *msrc = o->metric ? o->metric : columns;
    size_t ml = strcspn(msrc, ",");
    /* without --metric the metric is the experiment's first column: text
     * from the database, shown (shown()) and never printed as it is */
    char seen[512];
    if (ml >= sizeof metric) {
        fprintf(stderr, "runq plot: --metric '%s' is too long for a metric\n", shown(seen, sizeof seen, msrc));
        return 1;
    }
    memcpy(metric, msrc, ml);
    metric[ml] = '\0';
    char *dot = strchr(metric, '.');
    if (!dot || dot == metric || !dot[1]) {
        fprintf(stderr, "runq plot: --metric wants TASK.METRIC (probe.stall), not '%s'\n",
                shown(seen, sizeof seen, metric));
        return 1;
    }
    snprintf(task, sizeof task, "%.*s", (int)(dot - metric), metric);
    const char *mname = dot + 1;
    int rows, values;
    if (dbq_plot_metric_count(db, id, task, mname, &rows, &values, err, sizeof err) != 0)
        return db_error(err);
    if (!rows) {
        char m1[512], c1[2048];
        fprintf(stderr, "runq plot: experiment %lld has no metric %s (its table's: %s)\n", (long long)id,
                shown(m1, sizeof m1, metric), *columns ? shown(c1, sizeof c1, columns) : "none");
        return 1;
    }
    if (!values) {
        char m1[512];
        fprintf(stderr, "runq plot: experiment %lld has no value of %s: the engine cannot say\n", (long long)id,
                shown(m1, sizeof m1, metric));
        return 1;
    }

    /* the x axis: --x, else the first vary axis */
    char x[128];
    if (!*axes) {
        fprintf(stderr, "runq plot: experiment %lld varies nothing: no axis to plot against\n", (long long)id);
        return 1;
    }
    const char *xsrc = o->x ? o->x : axes;
    size_t xl = o->x ? strlen(xsrc) : strcspn(xsrc, ",");
    if (xl >= sizeof x) {
        char x1[1024];
        fprintf(stderr, "runq plot: --x '%s' is too long for an axis\n", shown(x1, sizeof x1, xsrc));
        return 1;
    }
    memcpy(x, xsrc, xl);
    x[xl] = '\0';
    bool found = false;
    for (const char *p = axes; *p;) {
        size_t w = strcspn(p, ",");
        found |= w == strlen(x) && !strncmp(p, x, w);
        p += w + (p[w] == ',');
    }
    if (!found) {
        char x1[512], a1[1024];
        fprintf(stderr, "runq plot: experiment %lld does not vary %s: its axes are %s\n", (long long)id,
                shown(x1, sizeof x1, x), shown(a1, sizeof a1, axes));
        return 1;
    }

    /* Each cell's mean, min and max over its successful repeats, by
     * series (the rest of its parameters). */
    bool several = strchr(engine, ',') != NULL;
    struct xp_series *ser = xcalloc(PLOT_MAX_SERIES, sizeof *ser);
    char (*xval)[SCN_VALUE_MAX + 1] = NULL; /* the values of x, in cell order, for names */
    int nser = 0, nx = 0, rc = 1, npoints = 0;
    struct dbq_plot_cell *cells;
    size_t ncells;
    if (dbq_plot_cells(db, id, task, mname, &cells, &ncells, err, sizeof err) != 0) {
        free(ser);
        return db_error(err);
    }
    enum x_kind xk = X_DURATION;
    bool pct = false;
    for (size_t ci = 0; ci < ncells; ci++) {
        const struct dbq_plot_cell *cl = &cells[ci];
        char v[SCN_VALUE_MAX + 1], rest[200], key[256];
        if (!param_split(cl->params, x, v, sizeof v, rest, sizeof rest))
            continue; /* not a cell of the matrix */
        snprintf(key, sizeof key, "%s%s%s", several ? cl->engine : "", several && *rest ? " " : "", rest);
        int k = 0;
        while (k < nser && strcmp(ser[k].key, key))
            k++;
        if (k == nser) {
            if (nser == PLOT_MAX_SERIES) {
                char x1[512], a1[1024];
                fprintf(stderr, "runq plot: more than %d series (one for each value of the axes besides %s): "
                                "too many for one figure; plot against another axis with --x (of %s)\n",
                        PLOT_MAX_SERIES, shown(x1, sizeof x1, x), shown(a1, sizeof a1, axes));
                goto done;
            }
            snprintf(ser[nser++].key, sizeof ser[0].key, "%s", key);
        }
        int xi = 0;
        while (xi < nx && strcmp(xval[xi], v))
            xi++;
        if (xi == nx) {
            xval = xreallocarray(xval, (size_t)nx + 1, sizeof *xval);
            snprintf(xval[nx++], sizeof *xval, "%s", v);
        }
        struct xp_series *se = &ser[k];
        se->p = xreallocarray(se->p, (size_t)se->n + 1, sizeof *se->p);
        se->p[se->n++] = (struct xp_point){ .x = xi, .cell = cl->cell, .mean = cl->mean, .min = cl->min,
                                            .max = cl->max };
        npoints++;
    }
    if (!npoints) {
        char m1[512];
        fprintf(stderr, "runq plot: experiment %lld has no successful run with a value of %s\n", (long long)id,
                shown(m1, sizeof m1, metric));
        goto done;
    }

    /* what x's values are, all of them; then each as a number (a
     * point's x so far is its value's index) */
    for (int i = 0; i < nx; i++) {
        uint64_t ns;
        double num;
        bool p = false;
        if (xk == X_DURATION && !scn_parse_duration(xval[i], &ns))
            xk = X_NUMBER;
        if (xk == X_NUMBER && !x_number(xval[i], &num, &p))
            xk = X_NAME;
        pct |= p && xk == X_NUMBER;
    }
    if (xk == X_NAME)
        pct = false;
    double xmax = 0, xdiv = 1;
    const char *xunit = "";
    BUG_ON(nx <= 0); /* npoints > 0: each point added its value */
    double *xnum = xcalloc((size_t)nx, sizeof *xnum);
    for (int i = 0; i < nx; i++) {
        uint64_t ns;
        bool p;
        if (xk == X_DURATION && scn_parse_duration(xval[i], &ns))
            xnum[i] = (double)ns;
        else if (xk == X_NUMBER)
            x_number(xval[i], &xnum[i], &p);
        else
            xnum[i] = i;
        if (xnum[i] > xmax)
            xmax = xnum[i];
    }
    if (xk == X_DURATION)
        time_unit(xmax, &xunit, &xdiv);
    else if (pct)
        xunit = "%";
    int mi = scn_metric_lookup(mname);
    enum scn_metric_kind yk = mi < 0 ? SCN_KIND_COUNT : scn_metric_kind((enum scn_metric)mi);
    double ymax = 0, ydiv = 1;
    for (int k = 0; k < nser; k++)
        for (int i = 0; i < ser[k].n; i++) {
            ser[k].p[i].x = xnum[(int)ser[k].p[i].x] / xdiv;
            if (ser[k].p[i].max > ymax)
                ymax = ser[k].p[i].max;
        }
    const char *yunit = "";
    if (yk == SCN_KIND_SHARE) {
        yunit = "%";
        ydiv = 0.01;
    } else if (yk == SCN_KIND_TIME) {
        time_unit(ymax, &yunit, &ydiv);
    } else if (yk == SCN_KIND_RATE) {
        yunit = "/s";
    }

    FILE *gp = j->gp;
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    char buf[2048];
    snprintf(buf, sizeof buf, "Experiment %lld (%s, engine %s): %s against %s", (long long)id, base, engine, metric,
             x);
    fprintf(gp, "plot_title = ");
    plot_quote(gp, buf);
    fprintf(gp, "\nset xlabel ");
    if (*xunit)
        snprintf(buf, sizeof buf, "%s (%s)", x, xunit);
    else
        snprintf(buf, sizeof buf, "%s", x);
    plot_quote(gp, buf);
    snprintf(buf, sizeof buf, "%s: %s%s%s%s", metric, mi < 0 ? "as stored" : scn_metric_what((enum scn_metric)mi),
             *yunit ? " (" : "", yunit, *yunit ? ")" : "");
    fprintf(gp, "\nset ylabel ");
    plot_quote(gp, buf);
    snprintf(buf, sizeof buf, "the mean of %d repeat%s, bars from the least to the most", repeats,
             repeats == 1 ? "" : "s");
    /* the spread's meaning, as the title's second line */
    fprintf(gp, "\nset title plot_title.\"\\n\".");
    plot_quote(gp, buf);
    fprintf(gp, "\nset grid\nset key outside right top vertical\n"
                "set yrange [0:*]\nset offsets graph 0.02, graph 0.02, 0, 0\n");
    if (xk == X_NAME) {
        fprintf(gp, "set xtics (");
        for (int i = 0; i < nx; i++) {
            fprintf(gp, "%s", i ? ", " : "");
            plot_quote(gp, xval[i]);
            fprintf(gp, " %d", i);
        }
        fprintf(gp, ")\n");
    }
    char colour[16], path[4096];
    for (int k = 0; k < nser; k++) {
        FILE *f = plot_data_file(j, path, sizeof path);
        if (!f) {
            free(xnum);
            goto done;
        }
        qsort(ser[k].p, (size_t)ser[k].n, sizeof *ser[k].p, cmp_point);
        for (int i = 0; i < ser[k].n; i++)
            fprintf(f, "%.10g %.10g %.10g %.10g\n", ser[k].p[i].x, ser[k].p[i].mean / ydiv, ser[k].p[i].min / ydiv,
                    ser[k].p[i].max / ydiv);
        fclose(f);
        series_colour(colour, sizeof colour, k);
        fprintf(gp, "%s", k ? ", \\\n     " : "plot ");
        plot_quote(gp, path);
        fprintf(gp, " using 1:2:3:4 with yerrorlines lw 1.5 pt 7 ps 0.6 lc rgb '%s' title ", colour);
        plot_quote(gp, *ser[k].key ? ser[k].key : metric);
    }
    fprintf(gp, "\n");
    free(xnum);
    rc = 0;
done:
    dbq_plot_cells_free(cells, ncells);
    for (int k = 0; k < nser; k++)
        free(ser[k].p);
    free(ser);
    free(xval);
    return rc;
}
