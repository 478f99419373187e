/*
 * What the host's Linux cannot run as a scenario says (contract in
 * run.h), and the facts about the host the answer needs: its tick
 * (linux_hz) and its CPUs. Each refusal names the scenario line and says
 * what Linux has instead, or what would have to change on the host.
 * Nothing here changes the machine: a sysfs file is opened for writing and
 * closed unwritten; an RT priority is tried by a thread that then exits.
 *
 * Not refused: the `quantum` directive (runq sim's step; no other engine
 * has one), and a pipe smaller than a page (Linux's minimum: linux_run
 * notes it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "eevdf_features.h"
#include "host/base/clock.h"
#include "host/engine/linux/hostrules.h"
#include "host/engine/linux/run.h"

#define LX_FEATURES_PATH "/sys/kernel/debug/sched/features"

static int refuse(char *err, size_t errlen, const struct scenario *s, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* "name:line: why", or "name: why" for a setting that came from no line
 * (a vary cell's, or a default). */
static int refuse(char *err, size_t errlen, const struct scenario *s, int line, const char *fmt, ...)
{
    va_list ap;
    int n = line > 0 ? snprintf(err, errlen, "%s:%d: ", s->name, line) : snprintf(err, errlen, "%s: ", s->name);

    if (n < 0 || (size_t)n >= errlen)
        return -1;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the host ---- */

/* The first line of path as an integer; false if unreadable. */
static bool read_long(const char *path, long long *out)
{
    FILE *f = fopen(path, "r");
    bool ok = f && fscanf(f, "%lld", out) == 1;

    if (f)
        fclose(f);
    return ok;
}

/* clamp: CPUs past 63 are left out (the host's own list), not refused. */
static bool parse_cpulist(const char *s, uint64_t *mask, bool clamp)
{
    /* "0-1", "0,2-3": ranges separated by commas. */
    uint64_t m = 0;
    for (const char *p = s; *p && *p != '\n';) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            return false;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a)
                return false;
            p = end;
        }
        if (b > 63 && !clamp)
            return false;
        for (long c = a; c <= b && c < 64; c++)
            m |= 1ull << c;
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return false;
    }
    *mask = m;
    return m != 0;
}

bool linux_parse_cpulist(const char *s, uint64_t *mask)
{
    return parse_cpulist(s, mask, false);
}

uint64_t linux_online_cpus(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    char buf[256];
    uint64_t mask = 0;

    if (!f)
        return 0;
    if (!fgets(buf, sizeof buf, f)) {
        fclose(f);
        return 0;
    }
    fclose(f);
    return parse_cpulist(buf, &mask, true) ? mask : 0;
}

/* CONFIG_HZ from a kernel config read line by line; 0 if it has none. */
static unsigned config_hz(FILE *f)
{
    char line[256];
    unsigned hz = 0;

    while (fgets(line, sizeof line, f))
        if (sscanf(line, "CONFIG_HZ=%u", &hz) == 1)
            break;
    return hz;
}

/* The jiffies counter: /proc/timer_list (root) says "jiffies: N"; else
 * /proc/schedstat's "timestamp N" is jiffies too. false if neither. */
static bool read_jiffies(uint64_t *j)
{
    static const struct {
        const char *path, *fmt;
    } src[] = { { "/proc/schedstat", "timestamp %" SCNu64 }, { "/proc/timer_list", "jiffies: %" SCNu64 } };
    char line[256];

    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        FILE *f = fopen(src[i].path, "r");
        bool ok = false;
        if (!f)
            continue;
        while (!ok && fgets(line, sizeof line, f))
            ok = sscanf(line, src[i].fmt, j) == 1;
        fclose(f);
        if (ok)
            return true;
    }
    return false;
}

/* Jiffies counted over 200 ms, rounded to the CONFIG_HZ choices Linux
 * offers (kernel/Kconfig.hz): 100, 250, 300, 1000. 0 if none is close. */
static unsigned measured_hz(void)
{
    static const unsigned choices[] = { 100, 250, 300, 1000 };
    uint64_t j0, j1, t0, t1;
    struct timespec d = { 0, 200000000 };

    if (!read_jiffies(&j0))
        return 0;
    t0 = mono_ns();
    nanosleep(&d, NULL);
    if (!read_jiffies(&j1))
        return 0;
    t1 = mono_ns();
    double rate = (double)(j1 - j0) * 1e9 / (double)(t1 - t0);
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++)
        if (rate > choices[i] * 0.9 && rate < choices[i] * 1.1)
            return choices[i];
    return 0;
}

unsigned linux_hz(void)
{
    static unsigned cached;
    static bool known;
    struct utsname u;
    char path[128 + sizeof u.release];
    unsigned hz = 0;
    FILE *f;

    if (known)
        return cached;
    if (uname(&u) == 0) {
        snprintf(path, sizeof path, "/boot/config-%s", u.release);
        if ((f = fopen(path, "r"))) {
            hz = config_hz(f);
            fclose(f);
        }
    }
    /* /proc/config.gz is gzip: the host's gzip reads it (no shell words
     * come from outside, the command is fixed). */
    if (!hz && access("/proc/config.gz", R_OK) == 0 && (f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r"))) {
        hz = config_hz(f);
        /* Read to the end so gzip does not die of SIGPIPE mid-stream. */
        char sink[4096];
        while (fread(sink, 1, sizeof sink, f) > 0)
            ;
        pclose(f);
    }
    if (!hz)
        hz = measured_hz();
    cached = hz;
    known = true;
    return hz;
}

/* ---- permissions ---- */

struct trial {
    unsigned rt_prio; /* 0: no RT to try */
    int nice;         /* the lowest nice asked */
    int rt_errno, nice_errno;
};

/* Tries on itself what the run will ask of its threads, then ends: the
 * calling thread and the process keep their own settings. */
static void *trial_main(void *arg)
{
    struct trial *t = arg;
    if (t->rt_prio) {
        struct sched_param p = { .sched_priority = (int)t->rt_prio };
        t->rt_errno = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
        if (!t->rt_errno) {
            struct sched_param z = { .sched_priority = 0 };
            pthread_setschedparam(pthread_self(), SCHED_OTHER, &z);
        }
    }
    if (t->nice < 0 && setpriority(PRIO_PROCESS, 0, t->nice) < 0) /* Linux: who 0 is the calling thread */
        t->nice_errno = errno;
    return NULL;
}

/* ---- RT tasks that never give their CPU up ---- */

/* A task that never leaves its CPU of its own accord: no sleep, every,
 * read or exit step (a yield gives way only to RT tasks of its own
 * priority, a write blocks only on a full pipe). In the RT class nothing
 * of the fair class runs beside it but what RT throttling leaves. */
static bool spins(const struct scn_task *t)
{
    for (int j = 0; j < t->nsteps; j++)
        if (t->steps[j].kind == SCN_SLEEP || t->steps[j].kind == SCN_EVERY || t->steps[j].kind == SCN_READ ||
            t->steps[j].kind == SCN_EXIT)
            return false;
    return true;
}

/* One spinner thread: the CPUs it may take. */
struct spin_slot {
    uint64_t mask;
    int cpu; /* the CPU the matching gives it, -1: none */
};

/* Kuhn's augmenting path: can CPU c be given a spinner, moving others? */
static bool spin_augment(struct spin_slot *slot, int n, int c, uint64_t *seen)
{
    for (int i = 0; i < n; i++) {
        if (!(slot[i].mask >> c & 1) || (*seen >> i & 1))
            continue;
        *seen |= 1ull << i;
        if (slot[i].cpu < 0 || spin_augment(slot, n, slot[i].cpu, seen)) {
            slot[i].cpu = c;
            return true;
        }
    }
    return false;
}

int linux_refuses_rt_hog(const struct scenario *s, bool allowed, char *err, size_t errlen)
{
    /* Each spinner thread may hold one CPU; they hold every usable CPU at
     * once if the CPUs can each be given a spinner of their own (a
     * matching as large as the CPUs). A line of N threads counts at most
     * 64 times: no more CPUs than that. */
    struct spin_slot slot[64];
    int n = 0, line = 0;
    unsigned top = 0;
    uint64_t all = s->cpus >= 64 ? ~0ull : (1ull << s->cpus) - 1;
    uint64_t usable = linux_online_cpus();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        uint64_t allowed_cpus = 0;
        for (int c = 0; c < 64; c++)
            if (CPU_ISSET(c, &set))
                allowed_cpus |= 1ull << c;
        usable &= allowed_cpus;
    }
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];
        if (!t->rt || !spins(t))
            continue;
        if (!line || t->rt_prio > top)
            line = t->line, top = t->rt_prio;
        for (unsigned k = 0; k < t->count && n < 64; k++)
            slot[n++] = (struct spin_slot){ (t->cpumask ? t->cpumask : all) & usable, -1 };
    }
    if (!n || !usable)
        return 0;
    for (int c = 0; c < 64; c++) {
        uint64_t seen = 0;
        if ((usable >> c & 1) && !spin_augment(slot, n, c, &seen))
            return 0; /* CPU c can stay free of spinners */
    }
    unsigned ncpus = (unsigned)__builtin_popcountll(usable);
    if (top >= SCN_PROG_RT_PRIO_MAX)
        return refuse(err, errlen, s, line,
                      "RT tasks that never sleep (no sleep, every, read or exit step) at prio %u would hold all %u "
                      "CPUs of this host, and the engine's own threads (the conductor, the trace reader) need SCHED_FIFO "
                      "%u above them: give them prio %u or less, a sleep, or leave a CPU free",
                      top, ncpus, SCN_PROG_RT_PRIO_MAX, SCN_PROG_RT_PRIO_MAX - 1);
    if (!allowed)
        return refuse(err, errlen, s, line,
                      "RT tasks that never sleep (no sleep, every, read or exit step) would hold all %u CPUs of this "
                      "host: every other program would get only what RT throttling leaves "
                      "(kernel.sched_rt_runtime_us); give one a sleep, leave a CPU free, or pass --allow-rt-hog",
                      ncpus);
    return 0;
}

/* ---- the refusals ---- */

/* The balancing switches (kernel/sched/eevdf_features.h): 1 when this
 * Linux does what `name` on asks, 0 when not (or not known), -1 when
 * name is not one. Linux has no switch for BALANCE_WAKE, BALANCE_NEWIDLE
 * and BALANCE_PERIODIC: it always places a woken task
 * (select_task_rq_fair()), pulls when a CPU goes idle
 * (sched_balance_newidle()) and balances periodically
 * (sched_balance_rq()). WA_IDLE and WA_WEIGHT are its own features: on
 * if the host's feature mask says so (hostrules.h). */
static int linux_balances(const char *name)
{
    if (!strcmp(name, "BALANCE_WAKE") || !strcmp(name, "BALANCE_NEWIDLE") || !strcmp(name, "BALANCE_PERIODIC"))
        return 1;
    if (strcmp(name, "WA_IDLE") && strcmp(name, "WA_WEIGHT"))
        return -1;
    const struct hostrules *r = hostrules_read();
    if (!r->features_known)
        return 0;
    char names[HOSTRULES_NAMES_MAX], *save;
    snprintf(names, sizeof names, "%s", r->names);
    unsigned bit = 0;
    for (char *n = strtok_r(names, ",", &save); n && bit < 32; n = strtok_r(NULL, ",", &save), bit++)
        if (!strcmp(n, name))
            return r->mask >> bit & 1;
    return 0;
}

int linux_refuses(const struct scenario *s, char *err, size_t errlen)
{
    if (strcmp(s->policy, "rr") == 0)
        return refuse(err, errlen, s, s->lines.policy,
                      "policy rr: Linux's fair class is EEVDF; runq's round robin is not in Linux (SCHED_RR is an "
                      "RT policy: class=rt rt=rr)");

    for (int i = 0; i < s->nfeatures; i++) {
        const struct scn_feature_setting *fs = &s->features[i];
        const char *name = eevdf_feature_name((enum eevdf_feature)fs->feature);
        int balances = linux_balances(name);
        if (balances == 1 && fs->on)
            continue; /* what Linux does anyway */
        if (balances >= 0)
            return refuse(err, errlen, s, fs->line,
                          "feature %s %s: Linux %s; runq's Linux engine does not change the machine's scheduler",
                          name, fs->on ? "on" : "off",
                          strncmp(name, "WA_", 3) ? "always balances this way (it has no switch to turn it off)"
                          : balances            ? "has it on here (its sched features)"
                                                : "has it off here, or its feature mask cannot be read");
        int fd = open(LX_FEATURES_PATH, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return refuse(err, errlen, s, fs->line,
                          "feature %s %s: EEVDF feature switches: Linux's are in " LX_FEATURES_PATH
                          ", which this kernel does not let runq change (open for writing: %s)",
                          name, fs->on ? "on" : "off", strerror(errno));
        close(fd);
        return refuse(err, errlen, s, fs->line,
                      "feature %s %s: EEVDF feature switches: Linux's are in " LX_FEATURES_PATH
                      ", the whole machine's; runq's Linux engine does not change them for a run",
                      name, fs->on ? "on" : "off");
    }

    for (int i = 0; i < s->nknobs; i++) {
        const struct scn_knob_setting *k = &s->knobs[i];
        const char *name = scn_knob_name(k->knob);
        const char *sysctl = strcmp(name, "rt_runtime_us") == 0  ? "sched_rt_runtime_us"
                             : strcmp(name, "rt_period_us") == 0 ? "sched_rt_period_us"
                                                                 : NULL;
        long long have;
        char path[64];
        if (!sysctl)
            return refuse(err, errlen, s, k->line,
                          "knob %s: it has no Linux counterpart (runq's kernel's own choice of what its fair "
                          "tasks do when a higher class takes their CPU)",
                          name);
        snprintf(path, sizeof path, "/proc/sys/kernel/%s", sysctl);
        if (!read_long(path, &have))
            return refuse(err, errlen, s, k->line, "knob %s: cannot read %s", name, path);
        if (have != k->value)
            return refuse(err, errlen, s, k->line,
                          "knob %s %" PRId64 ": this Linux has %lld; runq does not change the machine's sysctls "
                          "(sysctl kernel.%s=%" PRId64 " does, for every process)",
                          name, k->value, have, sysctl, k->value);
    }

    if (s->tick_ns) { /* given: hz or tick, from a line or a vary cell */
        unsigned hz = linux_hz();
        int line = s->lines.hz ? s->lines.hz : s->lines.tick;
        char want[48], d[32];
        scn_format_duration(d, sizeof d, s->tick_ns);
        if (!s->lines.tick && s->hz)
            snprintf(want, sizeof want, "hz %u", s->hz);
        else
            snprintf(want, sizeof want, "tick %s", d);
        if (!hz)
            return refuse(err, errlen, s, line,
                          "%s: cannot tell this Linux's tick (no kernel config, no jiffies to count)", want);
        if (s->tick_ns != 1000000000ull / hz)
            return refuse(err, errlen, s, line,
                          "%s: this Linux ticks at %u Hz (CONFIG_HZ, fixed when the kernel was built)", want, hz);
    }

    uint64_t online = linux_online_cpus();
    uint64_t allowed = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < 64; c++)
            if (CPU_ISSET(c, &set))
                allowed |= 1ull << c;
    uint64_t usable = online & allowed;
    unsigned nusable = (unsigned)__builtin_popcountll(usable);
    uint64_t want = s->cpus >= 64 ? ~0ull : (1ull << s->cpus) - 1;
    if ((want & usable) != want)
        return refuse(err, errlen, s, s->lines.cpus,
                      "cpus %u%s: the host has %u CPUs this process may use (%u online); scenario CPU n is host "
                      "CPU n: give cpus %u (or --vary cpus=%u)",
                      s->cpus, s->lines.cpus ? "" : " (the default)", nusable,
                      (unsigned)__builtin_popcountll(online), nusable, nusable);
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];
        uint64_t lack = t->cpumask & ~usable;
        if (lack)
            return refuse(err, errlen, s, t->line, "task %s: cpu %d is not a CPU this process may use on this host",
                          t->name, __builtin_ctzll(lack));
    }

    struct trial tr = { 0 };
    int rt_line = 0, nice_line = 0;
    for (int i = 0; i < s->ntasks; i++) {
        const struct scn_task *t = &s->tasks[i];
        if (t->rt && t->rt_prio > tr.rt_prio) {
            tr.rt_prio = t->rt_prio;
            rt_line = t->line;
        }
        if (!t->rt && t->nice < tr.nice) {
            tr.nice = t->nice;
            nice_line = t->line;
        }
    }
    if (tr.rt_prio || tr.nice < 0) {
        pthread_t th;
        int e = pthread_create(&th, NULL, trial_main, &tr);
        if (e)
            return refuse(err, errlen, s, 0, "cannot start a thread to try the priorities: %s", strerror(e));
        pthread_join(th, NULL);
        if (tr.rt_errno)
            return refuse(err, errlen, s, rt_line,
                          "class=rt prio=%u: Linux refuses SCHED_FIFO here (%s): RT priorities need root or "
                          "CAP_SYS_NICE (and RLIMIT_RTPRIO, and RT time in this cgroup); euid %d",
                          tr.rt_prio, strerror(tr.rt_errno), (int)geteuid());
        if (tr.nice_errno)
            return refuse(err, errlen, s, nice_line,
                          "nice=%d: Linux refuses a negative nice here (%s): it needs root or CAP_SYS_NICE (or "
                          "RLIMIT_NICE); euid %d",
                          tr.nice, strerror(tr.nice_errno), (int)geteuid());
    }
    return 0;
}

bool linux_root_task_group(void)
{
    char on = '0', line[64] = "";
    FILE *f = fopen("/proc/sys/kernel/sched_autogroup_enabled", "r");
    if (f) {
        on = (char)fgetc(f);
        fclose(f);
    }
    if (on != '1')
        return false;
    /* RUNQ_PROC_AUTOGROUP: the tests' stand-in (no test can leave its
     * session's group for the root one). */
    const char *path = getenv("RUNQ_PROC_AUTOGROUP");
    f = fopen(path && *path ? path : "/proc/self/autogroup", "r");
    if (!f)
        return false;
    /* "/autogroup-N nice K" for a session's group; nothing for the root. */
    bool root = !fgets(line, sizeof line, f) || strncmp(line, "/autogroup-", 11) != 0;
    fclose(f);
    return root;
}
