#include "cmdline.h"
#include "arch/x86_64/layout.h"
#include "lib/panic.h"
#include "lib/printf.h"
#include "lib/string.h"

struct boot_config boot_config;


static const struct sched_policy *policy_by_name(const char *name)
{
    if (strcmp(name, "rr") == 0)
        return &rr_policy;
    if (strcmp(name, "eevdf") == 0)
        return &eevdf_policy;
    return NULL;
}

void cmdline_parse(const char *line, struct boot_config *out)
{
    struct boot_config *cfg = &boot_config;
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = &eevdf_policy;
    cfg->hz = 250;
    cfg->max_cpus = MAX_CPUS;
    cfg->trace = true;

    static char buf[CMDLINE_MAX];
    if (strlen(line) >= sizeof buf)
        panic("cmdline: longer than %d bytes", CMDLINE_MAX - 1);
    strncpy_z(buf, line, sizeof buf);

    char *words[64];
    char *p = buf;
    /* The script is everything after the first " -- " (or a leading "-- "). */
    for (char *s = buf; *s; s++) {
        if ((s == buf || s[-1] == ' ') && s[0] == '-' && s[1] == '-' && (s[2] == ' ' || !s[2])) {
            strncpy_z(cfg->script, s[2] ? s + 3 : "", sizeof cfg->script);
            *s = 0;
            break;
        }
    }
    int n = split_words(p, words, 64);
    if (n > 64)
        panic("cmdline: more than 64 options");
    for (int i = 0; i < n; i++) {
        char *w = words[i], *eq = w;
        while (*eq && *eq != '=')
            eq++;
        if (!*eq) {
            kprintf("cmdline: ignoring '%s' (not key=value)\n", w);
            continue;
        }
        *eq = 0;
        const char *v = eq + 1;
        long num;
        if (strcmp(w, "sched") == 0) {
            cfg->policy = policy_by_name(v);
            if (!cfg->policy)
                panic("cmdline: sched=%s: expected rr or eevdf", v);
        } else if (strcmp(w, "hz") == 0) {
            if (!parse_long(v, &num) || (num != 100 && num != 250 && num != 1000))
                panic("cmdline: hz=%s: expected 100, 250 or 1000", v);
            cfg->hz = (unsigned)num;
        } else if (strcmp(w, "cpus") == 0) {
            if (!parse_long(v, &num) || num < 1 || num > MAX_CPUS)
                panic("cmdline: cpus=%s: expected 1..%d", v, MAX_CPUS);
            cfg->max_cpus = (unsigned)num;
        } else if (strcmp(w, "test") == 0) {
            strncpy_z(cfg->test, v, sizeof cfg->test);
        } else if (strcmp(w, "trace") == 0) {
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
                panic("cmdline: trace=%s: expected on or off", v);
            cfg->trace = strcmp(v, "on") == 0;
        } else if (strcmp(w, "host_crash") == 0) {
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
                panic("cmdline: host_crash=%s: expected on or off", v);
            cfg->host_crash = strcmp(v, "on") == 0;
        } else if (strcmp(w, "lab_bugs") == 0) {
            cfg->lab_bugs = strcmp(v, "1") == 0;
        } else if (strcmp(w, "seed") == 0) {
            if (!parse_long(v, &num) || num < 0)
                panic("cmdline: seed=%s: expected a whole number", v);
            cfg->seed = (u64)num;
        } else if (strcmp(w, "console") == 0 || strcmp(w, "earlyprintk") == 0) {
            /* harmless options people pass out of habit */
        } else {
            kprintf("cmdline: ignoring unknown option '%s'\n", w);
        }
    }
    *out = *cfg;
}
