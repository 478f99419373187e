/*
 * runq lab: a lab is a folder labs/NN-name/ with
 *
 *   README.md        the story and the questions, for the student
 *   lab.conf         scenarios, questions and moments (docs/labs.md)
 *   calibration      each measured number's spread over seeds, written by
 *                    runq lab calibrate N --write (no truths: students get it)
 *   explanation.md   shown after the measured values
 *   answers.ref      a reference answers file (passes `check`)
 *   answers.wrong    a wrong one (fails it)
 *
 * lab_conf.c reads lab.conf, lab_eval.c turns a question's `truth` into a
 * value (console lines, SQL on the recorded trace, runq sim) and judges an
 * answer, lab_answer.c reads an answer as typed (units, ranges, choices),
 * lab.c runs a lab and its answers (lab_do), lab_pack.c writes a course;
 * host/cli/lab.c is the command's top: its flags and help.
 */
#ifndef RUNQ_LABS_LAB_H
#define RUNQ_LABS_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "db/events.h"

struct scenario;

#define LAB_MAX_SCEN 8
#define LAB_MAX_CMDS 32
#define LAB_MAX_Q 16
#define LAB_MAX_MOMENTS 8

struct lab_scenario {
    char name[32];
    char policy[8];     /* "" kernel default */
    int hz, cpus;       /* 0: default */
    char append[128];   /* extra kernel args, e.g. lab_bugs=1 */
    char *cmd[LAB_MAX_CMDS];
    int ncmd;
    /* scenario_file = PATH and its set = KEY=VALUE lines: the scenario
     * (heap, the sets applied; NULL: the cmd lines as written), which
     * lab_scenario_program() turns into policy, hz, cpus and cmd. */
    struct scenario *scn;
    char scn_file[256];  /* PATH as lab.conf gives it */
    char scn_set[256];   /* the sets, "hog.count=8 run=6s", for show */
    bool record;        /* record the trace (runq boot --record) */
    bool variant;       /* boot with seed=S, the student's seed (kernel/cmdline.h) */
    /* filled by a run */
    char console[512];  /* path of the console log */
    char db[512];       /* path of the trace database, when recorded */
    char *out;          /* console text (heap) */
    int status;         /* runq boot's exit status */
};

enum lab_qtype { LAB_Q_NUMBER, LAB_Q_CHOICE, LAB_Q_ORDER };

struct lab_question {
    char id[32];
    enum lab_qtype type;
    char *prompt;       /* may span lines */
    char *show;         /* a command whose output is shown with the prompt ("sim -s {seed}") */
    char *truth;        /* how the true answer is computed */
    char *explain;      /* shown after, may be NULL */
    char choices[256];  /* choice: comma-separated */
    double tol;         /* number: tolerance, or with `calibrated` the margin */
    bool tol_rel;       /* tol is a fraction of the truth */
    bool calibrated;    /* margin = ...: judged within spread + margin, the
                         * spread from the lab's calibration file */
    double spread;      /* the most one seed's truth lies from the seeds'
                         * median, of tol's kind (tol_rel: a fraction) */
    bool has_spread;    /* the calibration file names this question */
    int length;         /* order: compare the first N items (0: all) */
    char unit[16];
    double min, max;    /* number: the range an answer may take, in unit */
    bool has_min, has_max; /* given in lab.conf (else the unit's: lab_answer.c) */
    bool after;         /* phase = after: answered after stepping, not predicted */
};

struct lab_moment {
    char scenario[32];
    char after[64];     /* start looking after the mark of this name ("" the start) */
    char find[128];     /* the query as written: "WAKE task=waiter" */
    struct event_query query; /* find, parsed (db/events.h) */
    char *at;           /* SQL on the scenario's trace: start looking at the
                         * time its first row's first column gives (NULL: the
                         * start, or the mark after) */
    char *text;
};

struct lab {
    char dir[512];
    char name[64];      /* "01-who-runs-next" */
    int number;
    char title[128];
    int minutes;
    int variants;       /* a course's variant count (variants = K, from runq lab
                         * pack --variants): students share K runs; 0: every
                         * student their own (lab_student_seed) */
    struct lab_scenario sc[LAB_MAX_SCEN];
    int nsc;
    struct lab_question q[LAB_MAX_Q];
    int nq;
    struct lab_moment mo[LAB_MAX_MOMENTS];
    int nmo;
    int cal_seeds;      /* the calibration file's seeds = K (0: no file) */
};

/* Reads dir/lab.conf, and dir/calibration when there is one. Returns 0, or
 * -1 after printing "runq lab: FILE:LINE: ...". A scenario given as a
 * scenario file is read, its sets applied and its program made for the
 * file's seed, so a file the kernel cannot run is refused here. */
int lab_load(struct lab *lab, const char *dir);
/* A scenario given as a scenario file: its cmd lines made again for seed
 * (a variant's jitter draws are the student's: `scn start`'s seed is the
 * student's seed; otherwise the file's). Each of the scenario's feature
 * switches first as `sched feature NAME on|off`, then its knobs as `sched
 * knob NAME VALUE` (in an order the kernel accepts), then scn_kprog()'s
 * lines. Nothing for a scenario of cmd lines. 0, or -1 after saying why. */
int lab_scenario_program(struct lab_scenario *c, long seed);
/* Where a scenario_file PATH of the lab in dir is read from: beside
 * lab.conf (a course's copy, made by runq lab pack, holds it there under
 * its own name), else PATH below the tree the labs folder is in
 * (dir/../..). Into buf. */
void lab_scenario_path(const char *dir, const char *path, char *buf, size_t len);
/* Does every question with a margin have its calibrated spread? run,
 * check and grade need it; calibrate is what writes it. 0, or -1 after
 * saying which question and what to run. */
int lab_require_calibration(const struct lab *lab);
/* Is q's truth measured on the scenarios (a console line or the trace),
 * rather than fixed (value), per student (sim) or the key's? */
bool lab_truth_measured(const struct lab_question *q);
/* Is a truth computed, measured or by runq sim, rather than written in
 * the key? A student's copy keeps only these (lab pack). */
bool lab_truth_computed(const char *truth);
/* A lab.conf line split in place as lab_load() reads it: true for a
 * "KEY = VALUE" line, with *key and *value trimmed; false for a blank
 * line, a comment, a [section] or a line without '='. lab pack decides
 * what a student may see with it, so that it cannot read a line otherwise
 * than lab_load() does. */
bool lab_conf_pair(char *line, char **key, char **value);
void lab_free(struct lab *lab);

/* The labs folder: $RUNQ_LABS, else labs/ beside the binary's folder
 * (build/runq -> labs/), else ./labs. */
const char *lab_root(char *buf, size_t len);

/* A student's ID: 1 to LAB_STUDENT_ID_MAX of [A-Za-z0-9._-], not starting
 * with '.'. lab grade makes a folder of it under --out, so it can name
 * nothing else ("..", "a/b"), and prints it (no terminal escapes). */
#define LAB_STUDENT_ID_MAX 64
/* 0 when id is one, else -1 with the rule in why. */
int lab_student_id_check(const char *id, char *why, size_t len);

/* Answers file: "ID = VALUE" lines, '#' comments, "seed = N" optional.
 * Returns the value for id (static storage until the next load), or NULL. */
struct lab_answers {
    char id[LAB_MAX_Q + 1][32];
    char val[LAB_MAX_Q + 1][256];
    char why[LAB_MAX_Q + 1][256]; /* the reasoning after '#' in "ID = VALUE # WHY", or "" */
    int n;
    long seed;          /* -1 when not given */
    /* "student = ID", "" when not given. One byte more than an ID may
     * take, so that a longer one stays too long once cut to fit. */
    char student[LAB_STUDENT_ID_MAX + 2];
    bool two_students;  /* two student lines naming different IDs */
};
/* Reads an answers file ("ID = VALUE" lines of any length, # comments) of
 * at most LAB_ANSWERS_MAX bytes. With nofollow a symbolic link is refused
 * (lab grade: only the regular files handed in). 0, or -1 with why in err
 * (a symbolic link, a directory, not a regular file, too long, unreadable);
 * opening never blocks (a FIFO is refused). */
#define LAB_ANSWERS_MAX (64 * 1024)
int lab_answers_load(struct lab_answers *a, const char *path, bool nofollow, char *err, size_t errlen);
const char *lab_answer(const struct lab_answers *a, const char *id);
/* The reasoning the student gave with id's answer ("" if none). */
const char *lab_reasoning(const struct lab_answers *a, const char *id);
/* A typed answer line "VALUE # WHY": VALUE alone, trimmed, into out. */
void lab_answer_value(const char *line, char *out, size_t len);

/* A student's copy of a lab (runq lab pack) says `truth = key` where the
 * answer is fixed: lab_truth then fails with this reason. */
#define LAB_NEEDS_KEY "judged with the instructor's key (runq lab check --key DIR)"

/* What runq lab does with a lab it names (N, after the word). */
enum lab_action {
    LAB_SHOW,      /* the story, the scenarios and the questions */
    LAB_RUN,       /* predictions, the scenarios run, answers after stepping */
    LAB_CHECK,     /* an answers file judged: PASS/FAIL per question */
    LAB_GRADE,     /* every answers file of a folder judged with the key */
    LAB_CALIBRATE, /* the truths over seeds 1..K and each question's spread */
};

/* A lab_do() call: the command's words and flags, already checked as
 * words (each field's action is the only one that reads it). */
struct lab_opts {
    enum lab_action action;
    const char *which;       /* the lab: its number or folder name */
    const char *out;         /* where consoles, traces, answers and transcripts go;
                              * NULL: runq-lab/NN-name (show: unused) */
    const char *key;         /* check, grade: the folder of labs to find which in
                              * (the instructor's key); NULL: lab_root() */
    const char *answers;     /* check: the answers file (not NULL) */
    const char *submissions; /* grade: the folder of answers files (not NULL) */
    const char *student;     /* the student's ID (lab_student_id_check passed): its
                              * variant, before seed; run stores it; NULL: none */
    long seed;               /* the variant (--seed); -1: not given: check takes the
                              * answers' seed line, else their student's; run and
                              * show $RUNQ_SEED, else 1; grade always the student's */
    int seeds;               /* calibrate: seeds 1..K, 2..16 */
    int variants;            /* pack: the course's variant count (0: one a student) */
    bool write;              /* calibrate: write the lab's calibration file */
    bool reveal;             /* check: print and write each measured value */
};

/* Does o->action with the lab o->which names. Returns the command's
 * status: 0, 1 on a failure (a lab.conf, a scenario, a file; said on
 * stderr as "runq lab: ..."), 2 when no lab is called which or --reveal
 * asks a student's copy for its truths; check and grade: 1 when an answer
 * fails or an entry is not graded. */
int lab_do(const struct lab_opts *o);

/* lab list: one line a lab in lab_root(). 0, or 1 when a lab's folder
 * cannot be read (said on stderr). */
int lab_list(void);

/* lab pack OUT: OUT/student (no fixed answers, no explanations) and
 * OUT/key (the labs as they are), from lab_root(). variants > 0 writes
 * "variants = K" into both copies' lab.conf (LAB_VARIANTS_MAX at most).
 * 0, or 1. */
#define LAB_VARIANTS_MAX 100000
int lab_pack(const char *out, int variants);
/* A student's variant seed, from the ID alone (the grader recomputes it):
 * one of a million when lab->variants is 0, else one of lab->variants
 * seeds, never seed 1 (answers.ref's, public in the labs tree). */
long lab_student_seed(const struct lab *lab, const char *id);
/* Copies in to out, to the end. */
void lab_copy_stream(FILE *in, FILE *out);
/* The names in dir but "." and ".." that keep(name) accepts (hidden ones
 * too: keep decides), sorted (heap, each and the array; *n their count),
 * or NULL with errno set. */
char **lab_sorted_names(const char *dir, bool (*keep)(const char *name), int *n);

/* Computes question q's true answer into buf, after the scenarios have run.
 * `seed` is substituted for {seed}. Returns 0, or -1 with the reason in buf. */
int lab_truth(const struct lab *lab, const struct lab_question *q, long seed, char *buf, size_t len);

/* Runs `runq ARGS` (ARGS split on spaces; {seed} becomes seed and {lab} the
 * lab's folder) and returns its stdout (heap), or NULL. */
char *lab_self(const struct lab *lab, const char *args, long seed);

/* Is `answer` a valid answer to q as typed? A number is converted to q's
 * unit into *value (may be NULL). 0, or -1 with the reason in why: not a
 * number, a unit of another kind, out of range, not one of the choices. */
int lab_answer_check(const struct lab_question *q, const char *answer, double *value, char *why, size_t len);

/* A compare truth's verdict names a side only when the sign test's p is
 * below this (docs/labs.md). */
#define LAB_COMPARE_ALPHA 0.05

/* An explanation with each "{sql SCENARIO: QUERY}" replaced by the query's
 * answer on that scenario's recorded trace, and each "{compare A B FLAGS:
 * FIELD}" by that truth's value, so that what it says about the run is
 * measured on the run (heap; NULL if out of memory). */
char *lab_explain(const struct lab *lab, const char *text);

/* Does `answer` pass against `truth`? why gets a short reason, which never
 * names the truth: a caller that may show it prints it itself. */
bool lab_judge(const struct lab *lab, const struct lab_question *q, const char *answer, const char *truth, char *why,
               size_t len);

/* The tolerance an answer to q is judged with, of tol's kind: the margin
 * plus the calibrated spread, or the fixed tolerance. */
double lab_tolerance(const struct lab_question *q);
/* "12%" or "500" as text; a calibrated question's says where it comes
 * from: "40% (spread over 5 seeds ±12% plus margin 28%)". */
void lab_tol_str(const struct lab *lab, const struct lab_question *q, char *buf, size_t len);
/* A tolerance of q's kind as text: "12%" or "500". */
void lab_tol_value(const struct lab_question *q, double tol, char *buf, size_t len);

#endif
