/*
 * `runq lab list | show N | run N | check N --answers FILE | pack OUT |
 * grade N --key DIR SUBMISSIONS | calibrate N`: the flags, the help and
 * the usage errors the words alone make. The lab engine (its conf, its
 * runs, the answers, the grading and the packing) is labs/engine/, called
 * through labs/engine/lab.h with a struct lab_opts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/visible.h"
#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/scenario/scenario.h"
#include "labs/engine/lab.h"

/* --seeds K: calibrate's seeds 1..K. */
static int set_seeds(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    uint64_t n;
    if (!scn_parse_count(v, 16, &n) || n < 2)
        return -1;
    *(int *)value = (int)n;
    return 0;
}

/* --variants K: 1..LAB_VARIANTS_MAX. */
static int set_variants(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    uint64_t n;
    if (!scn_parse_count(v, LAB_VARIANTS_MAX, &n) || n < 1)
        return -1;
    *(int *)value = (int)n;
    return 0;
}

/* --seed S: a whole number. */
static int set_seed(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    char *end;
    errno = 0;
    long seed = strtol(v, &end, 10);
    if (end == v || *end || seed < 0 || errno)
        return -1;
    *(long *)value = seed;
    return 0;
}

/* The words that name a lab first, and what each does with it. */
static const struct {
    const char *word;
    enum lab_action action;
} actions[] = {
    { "show", LAB_SHOW }, { "run", LAB_RUN }, { "check", LAB_CHECK }, { "grade", LAB_GRADE },
    { "calibrate", LAB_CALIBRATE },
};

static const struct command_spec lab_spec = {
    .name = "lab",
    .usage = "lab list\n"
             "       runq lab show N\n"
             "       runq lab run N [--out DIR] [--seed S | --student ID]\n"
             "       runq lab check N --answers FILE [--key DIR] [--out DIR] [--seed S] [--reveal]\n"
             "       runq lab pack OUT [--variants K]\n"
             "       runq lab grade N --key DIR SUBMISSIONS [--out DIR]\n"
             "       runq lab calibrate N [--seeds K] [--write] [--out DIR]",
    .about = "Labs about who runs next, under the round robin and EEVDF. N is the lab's\n"
             "number or folder name (labs/NN-name, or $RUNQ_LABS).\n"
             "\n"
             "  list    the labs, with their titles and the time they take\n"
             "  show    the lab's story and questions\n"
             "  run     three phases: asks for your predictions (one line each, from the\n"
             "          terminal or stdin; each checked as typed) and stores them with\n"
             "          the time; runs the scenarios deterministically, shows predicted\n"
             "          against measured and offers runq step at the lab's moments;\n"
             "          then asks the questions about what you observed. Says where\n"
             "          each file is and what to run next\n"
             "  pack    writes a course: OUT/student (the labs without their fixed\n"
             "          answers and explanations: hand it out) and OUT/key (keep it)\n"
             "  grade   judges every answers file in SUBMISSIONS with the key: one line\n"
             "          a student and the class's mean (docs/instructor.md); the variant is\n"
             "          the student's ID's (a seed line is said, not obeyed); what is not\n"
             "          graded (a link, a folder, a bad or shared ID) is said on stderr,\n"
             "          and the exit is 1\n"
             "  calibrate  for lab writers: the truths under seeds 1..K (default 5), each\n"
             "          question's spread, and whether its margin bears it; --write\n"
             "          stores the spreads in the lab's calibration file, which check\n"
             "          judges with (within spread plus margin)\n"
             "  check   judges an answers file (\"ID = VALUE\" lines): PASS/FAIL per\n"
             "          question and the score, never the right answer; exit 0 only\n"
             "          when all pass; on a failure the transcript is kept in DIR\n",
    .max_pos = 3,
};

int cmd_lab(int argc, char **argv)
{
    struct lab_opts o = { .seed = -1 };
    /* One table for every subcommand word: each flag's help says which
     * take it, and the checks after parsing refuse it elsewhere. */
    const struct flag flags[] = {
        FLAG_STR("out", &o.out, "DIR", "where predictions, consoles, traces and transcripts go\n"
                 "(default runq-lab/NN-name)"),
        FLAG_FN("seed", &o.seed, "S", "the variant of runq sim questions (default: the answers\n"
                "file's seed, else $RUNQ_SEED, else 1)", set_seed, .takes = "a whole number"),
        FLAG_STR("answers", &o.answers, "FILE", "check: the answers to judge"),
        FLAG_STR("key", &o.key, "DIR", "check, grade: the instructor's key (lab pack's OUT/key),\n"
                 "which holds the fixed answers a student's copy lacks"),
        FLAG_STR("student", &o.student, "ID", "run: your variant, from your ID (stored in the answers)"),
        FLAG_FN("seeds", &o.seeds, "K", "calibrate: the truths under seeds 1..K, 2..16 (default 5)", set_seeds,
                .takes = "2..16"),
        FLAG_ON("write", &o.write, "calibrate: store the spreads in the lab's calibration file"),
        FLAG_FN("variants", &o.variants, "K", "pack: the course's variants, 1..100000 (default: one a\n"
                "student): a class shares K runs, graded once each", set_variants, .takes = "1..100000"),
        FLAG_ON("reveal", &o.reveal, "check: print each measured value too, and write\n"
                "DIR/measured.txt (only with the key, or the labs tree)"),
        FLAG_TABLE_END,
    };
    const char *pos[3] = { NULL, NULL, NULL };
    int npos, prc = flags_parse(&lab_spec, flags, argc, argv, pos, &npos);
    if (prc >= 0)
        return prc;
    const char *sub = pos[0], *extra = pos[2];
    o.which = pos[1];
    if (o.student) {
        char why[160], shown[256];
        if (lab_student_id_check(o.student, why, sizeof why)) {
            text_visible(shown, sizeof shown, o.student);
            fprintf(stderr, "runq lab: --student '%s': %s\n", shown, why);
            return 2;
        }
    }
    if (!sub) {
        fprintf(stderr, "runq lab: list, show N, run N, check N --answers FILE, pack OUT or grade N --key DIR "
                        "SUBMISSIONS; see runq lab --help\n");
        return 2;
    }
    if (!strcmp(sub, "list"))
        return lab_list();
    if (!strcmp(sub, "pack")) {
        if (!o.which) {
            fprintf(stderr, "runq lab: pack needs the folder to write the course into\n");
            return 2;
        }
        return lab_pack(o.which, o.variants);
    }
    size_t a = 0;
    while (a < sizeof actions / sizeof actions[0] && strcmp(sub, actions[a].word))
        a++;
    if (a == sizeof actions / sizeof actions[0]) {
        fprintf(stderr, "runq lab: '%s' is not list, show, run, check, pack, grade or calibrate\n", sub);
        return 2;
    }
    o.action = actions[a].action;
    if (o.action == LAB_CALIBRATE && !o.seeds)
        o.seeds = 5;
    if (!o.which) {
        fprintf(stderr, "runq lab: %s needs a lab number\n", sub);
        return 2;
    }
    if (o.variants) {
        fprintf(stderr, "runq lab: --variants is for pack (a packed course's lab.conf carries it)\n");
        return 2;
    }
    if (o.write && o.action != LAB_CALIBRATE) {
        fprintf(stderr, "runq lab: --write is for calibrate\n");
        return 2;
    }
    if (extra && o.action != LAB_GRADE) {
        fprintf(stderr, "runq lab: unexpected '%s'\n", extra);
        return 2;
    }
    if (o.action == LAB_CHECK && !o.answers) {
        fprintf(stderr, "runq lab: check needs --answers FILE\n");
        return 2;
    }
    if (o.action == LAB_GRADE && (!o.key || !extra)) {
        fprintf(stderr, "runq lab: grade needs --key DIR and the folder of answers files\n");
        return 2;
    }
    o.submissions = extra;
    return lab_do(&o);
}
