/*
 * runq lab pack: a course's two trees from the labs folder.
 *
 *   OUT/student/NN-name/   README.md, calibration (spreads, no truths), and
 *                          lab.conf with every fixed answer taken out
 *                          ("truth = value X" becomes "truth = key") and
 *                          no explanation: what students get
 *   OUT/key/NN-name/       the lab as it is, answers.ref, answers.wrong and
 *                          explanation.md included: what the instructor keeps
 *
 * Both hold a copy of each scenario file the lab's scenarios name
 * (scenario_file = scenarios/x.scn), as x.scn beside lab.conf, where
 * lab_scenario_path() looks first: a course runs without the source tree.
 *
 * A student's `runq lab check` (RUNQ_LABS=OUT/student) judges what it
 * measures on the student's own run and leaves the key's questions
 * unjudged; `runq lab check --key OUT/key` and `runq lab grade` judge all.
 * docs/instructor.md walks through a course.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "labs/engine/lab.h"
#include "host/base/xalloc.h"

/* Opens from for reading and to for writing, or says which failed. */
static int open_pair(const char *from, const char *to, FILE **in, FILE **out)
{
    *in = fopen(from, "r");
    *out = *in ? fopen(to, "w") : NULL;
    if (*out)
        return 0;
    fprintf(stderr, "runq lab pack: %s: %s\n", *in ? to : from, strerror(errno));
    if (*in)
        fclose(*in);
    return -1;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in, *out;
    if (open_pair(from, to, &in, &out))
        return -1;
    lab_copy_stream(in, out);
    fclose(in);
    return fclose(out) ? -1 : 0;
}

/* from's lab.conf into to: with strip, without its fixed answers and
 * explanations (below); with variants > 0, "variants = K" first, in place
 * of the conf's own. Each line is read
 * whole and split by lab_conf_pair(), as lab_load() reads it: a fixed
 * buffer once cut a long explain line in two and copied its tail, and a
 * prefix test let "\vexplain = ..." through. What is kept is written as
 * lab_load() sees it (up to a NUL byte). A truth stays only if it is
 * computed (measured, or runq sim); any other becomes "truth = key". */
static int write_conf(const char *from, const char *to, bool strip, int variants)
{
    FILE *in, *out;
    if (open_pair(from, to, &in, &out))
        return -1;
    char *line = NULL, *copy = NULL;
    size_t cap = 0;
    if (strip)
        fprintf(out, "# A student's copy, made by runq lab pack: fixed answers are in the instructor's key.\n");
    if (variants)
        fprintf(out, "# The course's variants (runq lab pack --variants): students share them.\nvariants = %d\n",
                variants);
    while (getline(&line, &cap, in) > 0) {
        line[strcspn(line, "\n")] = 0;
        char *k, *v;
        free(copy);
        copy = xstrdup(line);
        bool pair = lab_conf_pair(copy, &k, &v);
        if (pair && variants && !strcmp(k, "variants"))
            continue;
        if (pair && strip && !strcmp(k, "explain"))
            continue;
        if (pair && strip && !strcmp(k, "truth") && !lab_truth_computed(v))
            fputs("truth = key\n", out);
        else
            fprintf(out, "%s\n", line);
    }
    free(copy);
    free(line);
    fclose(in);
    return fclose(out) ? -1 : 0;
}

static int mkdir_p(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* Copies each of names that is in from into to. 0, or -1. */
static int copy_present(const char *from, const char *to, const char *const *names, size_t n)
{
    int rc = 0;
    for (size_t k = 0; k < n; k++) {
        char a[1400], b[1400];
        struct stat st;
        snprintf(a, sizeof a, "%s/%s", from, names[k]);
        snprintf(b, sizeof b, "%s/%s", to, names[k]);
        if (stat(a, &st) == 0 && copy_file(a, b))
            rc = -1;
    }
    return rc;
}

/* Copies the scenario files the lab names into sdir and kdir, each under
 * its own name. 0, or -1 after saying why. */
static int copy_scenario_files(const struct lab *lab, const char *sdir, const char *kdir)
{
    for (int i = 0; i < lab->nsc; i++) {
        const struct lab_scenario *c = &lab->sc[i];
        char from[1200], a[1400], b[1400];
        if (!c->scn)
            continue;
        const char *base = strrchr(c->scn_file, '/');
        base = base ? base + 1 : c->scn_file;
        lab_scenario_path(lab->dir, c->scn_file, from, sizeof from);
        snprintf(a, sizeof a, "%s/%s", sdir, base);
        snprintf(b, sizeof b, "%s/%s", kdir, base);
        if (copy_file(from, a) || copy_file(from, b))
            return -1;
    }
    return 0;
}

/* Packs the lab in src into sdir and kdir. The lab is read first, so that
 * one lab_load() refuses leaves no student copy of it. 0, or -1. */
static int pack_lab(const char *src, const char *sdir, const char *kdir, const char *out, int variants)
{
    static const char *const key_files[] = { "README.md",      "lab.conf",    "calibration",
                                             "explanation.md", "answers.ref", "answers.wrong" };
    /* The spreads the student's own check judges with: no truths. */
    static const char *const student_files[] = { "README.md", "calibration" };
    char a[1400], b[1400];
    struct lab lab;
    if (lab_load(&lab, src))
        return -1;
    int rc = 0;
    if (mkdir_p(sdir) || mkdir_p(kdir)) {
        fprintf(stderr, "runq lab pack: %s: %s\n", out, strerror(errno));
        rc = -1;
    }
    snprintf(a, sizeof a, "%s/lab.conf", src);
    snprintf(b, sizeof b, "%s/lab.conf", sdir);
    if (rc || copy_present(src, kdir, key_files, sizeof key_files / sizeof key_files[0]) ||
        copy_present(src, sdir, student_files, sizeof student_files / sizeof student_files[0]) ||
        write_conf(a, b, true, variants) || copy_scenario_files(&lab, sdir, kdir))
        rc = -1;
    snprintf(b, sizeof b, "%s/lab.conf", kdir);
    if (!rc && variants && write_conf(a, b, false, variants))
        rc = -1;
    lab_free(&lab);
    return rc;
}

int lab_pack(const char *out, int variants)
{
    char root[512];
    lab_root(root, sizeof root);
    DIR *d = opendir(root);
    if (!d) {
        fprintf(stderr, "runq lab pack: %s: %s\n", root, strerror(errno));
        return 1;
    }
    int n = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || !strchr(e->d_name, '-'))
            continue;
        char src[800], sdir[1200], kdir[1200];
        snprintf(src, sizeof src, "%s/%s", root, e->d_name);
        snprintf(sdir, sizeof sdir, "%s/student/%s", out, e->d_name);
        snprintf(kdir, sizeof kdir, "%s/key/%s", out, e->d_name);
        if (pack_lab(src, sdir, kdir, out, variants))
            rc = 1;
        n++;
    }
    closedir(d);
    if (!rc && variants)
        printf("%d variants a lab: a student's is drawn from their ID\n", variants);
    if (!rc)
        printf("packed %d labs from %s:\n  %s/student   hand this out (RUNQ_LABS=%s/student runq lab run N)\n"
               "  %s/key       keep this (runq lab check N --key %s/key, runq lab grade N --key %s/key DIR)\n",
               n, root, out, out, out, out, out);
    return rc;
}
