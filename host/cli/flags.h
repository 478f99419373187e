/*
 * One flag parser for every command, git's parse-options way: a command
 * declares its flags once, as a table of struct flag, and the same table
 * parses argv and prints the flags part of its --help, so the two cannot
 * drift apart.
 *
 * The rules every command then shares (docs/architecture.md, "Flags"):
 *   - `--name VALUE` or `--name=VALUE`; a bool flag takes no value;
 *   - a flag with a short name (git's -v) is also `-v`, or `-s VALUE` or
 *     `-sVALUE`; switches are not bundled (-vc is unknown);
 *   - `--help` or `-h` prints the help on stdout and exits 0;
 *   - `--` ends the flags: what follows is positional, dashes and all;
 *   - a usage error is one line on stderr, "runq CMD: ...", and exit 2:
 *     an unknown flag, a missing or malformed value, too many positional
 *     arguments.
 */
#ifndef RUNQ_CLI_FLAGS_H
#define RUNQ_CLI_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum flag_type {
    FLAG_END = 0, /* the table's last row */
    FLAG_BOOL,    /* --name: *(bool *)value = true */
    FLAG_STRING,  /* --name V: *(const char **)value = V (argv's own string) */
    FLAG_INT,     /* --name N: a decimal in [lo, hi] into *(int *)value */
    FLAG_I64,     /* --name N: a decimal in [lo, hi] into *(int64_t *)value */
    FLAG_FUNC,    /* --name V: fn(V, value, err, errlen) at each occurrence (a repeatable flag's fn
                     appends); nonzero: a usage error saying err, or, err left empty, what it takes */
};

struct flag {
    const char *name; /* "db" for --db */
    enum flag_type type;
    void *value;
    const char *arg;  /* the value's name in the help ("FILE"); NULL for a bool */
    const char *help; /* its help; each '\n' starts a line under the first */
    long long lo, hi; /* FLAG_INT, FLAG_I64: the bounds */
    const char *takes; /* FLAG_INT, FLAG_I64, FLAG_FUNC: what it takes, for "--at takes an event number, not 'x'" */
    int (*fn)(const char *v, void *value, char *err, size_t errlen); /* FLAG_FUNC */
    char short_name;   /* 'v' for -v as well as --name; 0: none */
    bool *given;       /* set true once the flag is given (and its value taken); NULL: none */
};

/* Table rows, by type (designated, so a row names only what it uses).
 * Further fields may follow the last argument, designated:
 * FLAG_ON("decisions", &d, "...", .short_name = 'v'). */
#define FLAG_STR(n, var, a, h, ...)                                                                           \
    { .name = (n), .type = FLAG_STRING, .value = (var), .arg = (a), .help = (h), __VA_ARGS__ }
#define FLAG_ON(n, var, h, ...) { .name = (n), .type = FLAG_BOOL, .value = (var), .help = (h), __VA_ARGS__ }
#define FLAG_NUM(n, var, a, h, l, hi_, t, ...)                                                                \
    { .name = (n), .type = FLAG_INT, .value = (var), .arg = (a), .help = (h), .lo = (l), .hi = (hi_), .takes = (t), \
      __VA_ARGS__ }
#define FLAG_NUM64(n, var, a, h, l, hi_, t, ...)                                                              \
    { .name = (n), .type = FLAG_I64, .value = (var), .arg = (a), .help = (h), .lo = (l), .hi = (hi_), .takes = (t), \
      __VA_ARGS__ }
#define FLAG_FN(n, var, a, h, f, ...)                                                                         \
    { .name = (n), .type = FLAG_FUNC, .value = (var), .arg = (a), .help = (h), .fn = (f), __VA_ARGS__ }
#define FLAG_TABLE_END { .type = FLAG_END }

/* FLAG_FUNCs the tables of several commands share. */
/* A file name, not empty, into *(const char **)value. */
int flag_file(const char *v, void *value, char *err, size_t errlen);
/* A policy runq runs, rr or eevdf (scn_policy_known), into *(const char **)value. */
int flag_policy(const char *v, void *value, char *err, size_t errlen);
/* A seed, 0..2^64-1 (scn_parse_count), into *(uint64_t *)value. */
int flag_seed(const char *v, void *value, char *err, size_t errlen);

/* The end of a repeatable flag's FLAG_FUNC that keeps its values, in
 * order, in a list of at most max (runq experiment's --vary, runq sim's
 * --feature): v appended to list[0..*n-1], 0; or -1 with err from full, a
 * printf format given max ("at most %d --vary axes"), when the list holds
 * max already. */
int flag_push(const char **list, int *n, int max, const char *v, const char *full, char *err, size_t errlen);

/* --n FILE: a row of flag_file's. */
#define FLAG_FILE(n, var, a, h, ...) FLAG_FN(n, var, a, h, flag_file, .takes = "a file name", __VA_ARGS__)
/* --n SEED: a row of flag_seed's, *given_ set when it is given (a seed of
 * 0 is one too). */
#define FLAG_SEED(n, var, given_, a, h, ...)                                                                  \
    FLAG_FN(n, var, a, h, flag_seed, .given = (given_), .takes = "a whole number 0..18446744073709551615", __VA_ARGS__)

/* A command's words: its name, synopsis, help text and how many positional
 * arguments it takes. A command declares them at file scope, named
 * CMD_spec, unless they are made from its arguments (each report's, each
 * plot kind's, merge's max_pos); its flag table, whose rows point at the
 * command's locals, is declared where it parses and passed beside the
 * spec. The command then returns at once on flags_parse's rc >= 0 and
 * makes its own checks. No min_pos, no flags_run: the commands that need
 * a positional argument check it after checks whose message comes first
 * (runq sql --csv --json says "--csv or --json, not both", not that the
 * SQL is missing), and the layers they call take different arguments. */
struct command_spec {
    const char *name;  /* "step" (or "report latency": what follows "runq ") */
    const char *usage; /* the synopsis after "usage: runq " */
    const char *about; /* the paragraphs between the synopsis and "flags:"; NULL: none */
    const char *after; /* what follows the flags (keys, examples); NULL: none */
    void (*after_fn)(FILE *out); /* then prints the rest, when it comes from another table
                                    (runq top's keys, from its action table); NULL: none */
    int max_pos;       /* positional arguments taken at most */
    const char *too_many; /* the usage error when there are more ("one TRACE only") */
    const char *mode;  /* the flag that chose this form of a command ("linux" for "record --linux",
                          see flags_mode()): taken, not listed; NULL: none */
};

/* Whether argv[1..argc-1] holds --MODE before any "--": which form of a
 * command (and so which table) parses the rest. */
bool flags_mode(int argc, char **argv, const char *mode);

/* Parses argv[1..argc-1] by the table flags, setting each flag's value as
 * it comes; positional arguments go to pos[0..*npos-1] in order. Returns -1
 * to go on, or the exit code the command returns at once: 0 after --help
 * (printed on stdout), 2 after a usage error (printed). */
int flags_parse(const struct command_spec *c, const struct flag *flags, int argc, char **argv, const char **pos,
                int *npos);

/* The whole help: synopsis, about, "flags:" with one row a flag (the
 * value's name, then the help in a column; "-v, " before each name when
 * the table has short names), --help's own row, after. */
void flags_help(const struct command_spec *c, const struct flag *flags, FILE *out);

/* One word of a command of several kinds (runq report NAME, runq plot
 * KIND), the first member of each row of the command's table: the word,
 * and one line on it for the command's help. */
struct flags_word {
    const char *name;
    const char *what;
};

/* The word a command of several kinds takes first, which picks the table
 * the rest is parsed by, among the n rows of words (each row size bytes,
 * a struct flags_word first: one table gives the words, their help and
 * their messages). Its row's index; or -1, *rc then the exit code to
 * return: 0 after help() for --help or -h; 2 after "runq CMD: name a WHAT
 * first (A, B, C); see runq CMD --help" when argv[1] is missing or another
 * flag, or "runq CMD: no WHAT 'W': want A, B or C". */
int flags_word(int argc, char **argv, const char *cmd, const char *what, const struct flags_word *words, size_t n,
               size_t size, void (*help)(void), int *rc);

/* The rows of words (as flags_word takes them) for a help: "  NAME  WHAT"
 * each, NAME in 10 columns, on stdout. */
void flags_words_print(const struct flags_word *words, size_t n, size_t size);

/* A usage error the command finds itself after parsing: "runq NAME: ..."
 * on stderr; returns 2, the exit code to return. */
int flags_usage_error(const struct command_spec *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
