/*
 * build/tests/linux_ref: the Linux 6.18 reference for `runq sim -v`
 * (linux_ref.h), and the workload generator of the differential test.
 *
 *   linux_ref [--runq D1,D3,...] FILE    decide FILE as Linux ('-': stdin),
 *                                        with those runq departures put in
 *   linux_ref --gen SEED [--switches] [--no-yield]
 *                                        print a random workload (without
 *                                        yields: one older runq sims read)
 *
 * Exit 0, 1 on a failure, 2 on a usage or workload error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux_ref.h"

static const char *const lref_compat_names[] = {
#define LREF_COMPAT_NAME(name, what) #name,
    LREF_COMPATS(LREF_COMPAT_NAME)
#undef LREF_COMPAT_NAME
};

static const char *const lref_compat_whats[] = {
#define LREF_COMPAT_WHAT(name, what) what,
    LREF_COMPATS(LREF_COMPAT_WHAT)
#undef LREF_COMPAT_WHAT
};

int lref_compat_lookup(const char *name)
{
    for (int c = 0; c < LREF_NR_COMPATS; c++)
        if (strcmp(lref_compat_names[c], name) == 0)
            return c;
    return -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: linux_ref [--runq D1,D2,...] FILE | linux_ref --gen SEED [--switches] [--no-yield]\n"
                    "runq's departures from Linux, for --runq:\n");
    for (int c = 0; c < LREF_NR_COMPATS; c++)
        fprintf(stderr, "  %s  %s\n", lref_compat_names[c], lref_compat_whats[c]);
    return 2;
}

/* "D1,D3" -> a bit mask; false on an unknown name. */
static bool parse_compat(char *list, uint32_t *mask)
{
    for (char *n = strtok(list, ","); n; n = strtok(NULL, ",")) {
        int c = lref_compat_lookup(n);
        if (c < 0)
            return false;
        *mask |= 1u << c;
    }
    return true;
}

int main(int argc, char **argv)
{
    static struct lref_workload w;
    const char *file = NULL, *seed = NULL;
    bool switches = false, yields = true;
    uint32_t mask = 0;
    char err[512];

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runq") == 0 && i + 1 < argc) {
            if (!parse_compat(argv[++i], &mask))
                return usage();
        } else if (strcmp(argv[i], "--gen") == 0 && i + 1 < argc) {
            seed = argv[++i];
        } else if (strcmp(argv[i], "--switches") == 0) {
            switches = true;
        } else if (strcmp(argv[i], "--no-yield") == 0) {
            yields = false;
        } else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0) {
            file = argv[i];
        } else {
            return usage();
        }
    }
    if (seed) {
        char *end;
        unsigned long long s;

        errno = 0;
        s = strtoull(seed, &end, 10);
        if (file || errno || *end || !*seed)
            return usage();
        lref_generate(s, switches, yields, &w);
        printf("# linux_ref --gen %s%s%s\n", seed, switches ? " --switches" : "", yields ? "" : " --no-yield");
        lref_workload_print(stdout, &w);
        return 0;
    }
    if (!file || switches || !yields)
        return usage();
    {
        bool is_stdin = strcmp(file, "-") == 0;
        FILE *f = is_stdin ? stdin : fopen(file, "r");
        int rc;

        if (!f) {
            fprintf(stderr, "linux_ref: cannot open '%s': %s\n", file, strerror(errno));
            return 2;
        }
        rc = lref_parse(f, file, &w, err, sizeof err);
        if (!is_stdin)
            fclose(f);
        if (rc) {
            fprintf(stderr, "linux_ref: %s\n", err);
            return 2;
        }
    }
    return lref_run(stdout, &w, mask) ? 1 : 0;
}
