/*
 * Runs that end with their runq experiment (contract in orphans.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "host/experiment/orphans.h"

#define ORPHANS_ENV "RUNQ_EXPERIMENT"
#define ORPHANS_GRACE_MS 3000

/* Process pid's start time (clock ticks since boot, /proc/PID/stat's
 * 22nd field): with the pid, it names one process, a pid used again
 * being another. 0 when it does not run. */
static unsigned long long start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The name, field 2, may hold spaces and parentheses: count from the
     * last ')'. Field 3 follows it; the start time is field 22. */
    char *p = strrchr(buf, ')');
    unsigned long long t = 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p)
        t = strtoull(p + 1, NULL, 10);
    return t;
}

void orphans_die_with(pid_t parent)
{
    /* In the run's child (orphans.h): a parent asking it of itself would
     * die with its own parent, and mark its own runs as orphans. */
    BUG_ON(parent <= 0 || parent == getpid());
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) /* it died before the line above */
        _exit(127);
    char mark[64];
    snprintf(mark, sizeof mark, "%d:%llu", (int)parent, start_time(parent));
    setenv(ORPHANS_ENV, mark, 1);
}

/* The owner in pid's environment's mark: true with *owner and *start. */
static bool marked(pid_t pid, pid_t *owner, unsigned long long *start)
{
    char path[64];
    static char env[65536];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(env, 1, sizeof env - 1, f);
    fclose(f);
    env[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(env + i) + 1) {
        int o;
        if (strncmp(env + i, ORPHANS_ENV "=", sizeof ORPHANS_ENV) == 0 &&
            sscanf(env + i + sizeof ORPHANS_ENV, "%d:%llu", &o, start) == 2 && o > 0) {
            *owner = (pid_t)o;
            return true;
        }
    }
    return false;
}

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void orphans_reap(void)
{
    /* Found and signalled in one pass, then waited for: at most as many
     * as a few experiments' jobs, so a fixed list is plenty; more are
     * left for the next start. */
    pid_t found[256];
    int n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) && n < (int)(sizeof found / sizeof found[0])) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        pid_t pid = (pid_t)strtol(de->d_name, NULL, 10), owner;
        unsigned long long start;
        if (pid == getpid() || !marked(pid, &owner, &start) || owner == getpid())
            continue;
        bool alive = start ? start_time(owner) == start : kill(owner, 0) == 0 || errno != ESRCH;
        if (alive)
            continue; /* its runq experiment still runs */
        if (kill(pid, SIGTERM) == 0) {
            fprintf(stderr, "runq experiment: ended process %d, a run left by runq experiment %d, which no longer "
                            "runs\n",
                    (int)pid, (int)owner);
            found[n++] = pid;
        }
    }
    closedir(d);
    long long give_up = ms_now() + ORPHANS_GRACE_MS;
    for (int i = 0; i < n; i++) {
        while (kill(found[i], 0) == 0 && ms_now() < give_up) {
            struct timespec nap = { 0, 20000000 };
            nanosleep(&nap, NULL);
        }
        if (kill(found[i], 0) == 0)
            kill(found[i], SIGKILL);
    }
}
