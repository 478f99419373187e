/*
 * `runq boot` and `runq run`: one flag table for both, their help, and
 * the call into host/engine/kernel/boot.h's boot_launch(), which boots
 * the kernel and records its trace. `runq run --engine ...` is a
 * scenario on an engine: runq experiment's flags under run's own name and
 * help (run_on_engine, host/cli/experiment.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "host/base/xalloc.h"
#include "host/cli/cli.h"
#include "host/cli/flags.h"
#include "host/engine/kernel/boot.h"

/* Digits only, in [lo, hi]: no sign, spaces or suffix slip through strtol. */
static bool parse_int(const char *s, long lo, long hi, int *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return false;
    long v = strtol(s, NULL, 10);
    if (v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* Printable ASCII only: the guest console and shell are plain ASCII, and a
 * control character would be invisible in the error it later causes. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            return false;
    return true;
}

/* Whether s holds "--" as a whole word: the kernel splits its command line
 * at the first " -- ", so extra args containing one would eat the commands. */
static bool has_dashdash_word(const char *s)
{
    for (const char *p = s; (p = strstr(p, "--")) != NULL; p += 2)
        if ((p == s || p[-1] == ' ') && (p[2] == '\0' || p[2] == ' '))
            return true;
    return false;
}

/* The flags' own checks (struct flag's fn): nonzero with err left empty
 * is "--NAME takes <the row's takes>, not 'V'". */

static int set_hz(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    int hz;
    if (!parse_int(v, 100, 1000, &hz) || (hz != 100 && hz != 250 && hz != 1000))
        return -1;
    *(int *)value = hz;
    return 0;
}

static int set_cpus(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return parse_int(v, 1, 64, value) ? 0 : -1;
}

static int set_timeout(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return parse_int(v, 1, 1000000, value) ? 0 : -1;
}

static int set_gdb_port(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct boot_opts *o = value;
    if (!parse_int(v, 1, 65535, &o->gdb_port))
        return -1;
    o->gdb = true;
    return 0;
}

static int set_test(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(v))
        return -1;
    *(const char **)value = v;
    return 0;
}

/* --cmd, repeatable: appends to o->cmds (checked by boot_flags once
 * parsed: a value with a newline cannot be echoed in a one-line error). */
static int add_cmd(const char *v, void *value, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct boot_opts *o = value;
    o->cmds = xreallocarray(o->cmds, (size_t)o->ncmds + 1, sizeof *o->cmds);
    o->cmds[o->ncmds++] = v;
    return 0;
}

/* The flags of runq boot (run: runq run's) into rows, setting *o: one
 * table for both, runq run leaving out what a live shell has no use
 * for (--test, --timeout, --record: it records into --db). */
static void boot_flag_table(struct boot_opts *o, bool run, struct flag *rows, size_t nrows)
{
    const struct flag all[] = {
        FLAG_FN("policy", &o->policy, "rr|eevdf", "scheduling policy (default: the kernel's)", flag_policy,
                .takes = "rr or eevdf"),
        FLAG_FN("hz", &o->hz, "N", "timer ticks per second: 100, 250 or 1000 (default: the kernel's)", set_hz,
                .takes = "100, 250 or 1000"),
        FLAG_FN("cpus", &o->cpus, "N", "number of CPUs, 1..64 (default 4)", set_cpus, .takes = "1..64"),
        FLAG_ON("deterministic", &o->deterministic, "count instructions (-icount) so every run is identical; slower"),
        FLAG_FN("cmd", o, "\"CMD\"", "guest shell command; repeat for more, run in order (with the other\n"
                "flags, at most 2047 bytes of kernel command line)", add_cmd),
        FLAG_FN("test", &o->test, "NAME|all", "run one kernel self-test, or all of them", set_test,
                .takes = "a self-test's name or all"),
        FLAG_FN("timeout", &o->timeout_s, "S", "kill QEMU after S wall-clock seconds (default 600)", set_timeout,
                .takes = "a positive number of seconds"),
        FLAG_FILE("kernel", &o->kernel, "PATH", "kernel ELF (default $RUNQ_KERNEL, else kernel.elf beside runq)"),
        FLAG_STR("append", &o->append, "\"ARGS\"", "extra kernel command-line arguments"),
        FLAG_ON("gdb", &o->gdb, "start paused, with a gdb stub on localhost:1234"),
        FLAG_FN("gdb-port", o, "PORT",
                "--gdb with the stub on localhost:PORT (1..65535), so runs side by\nside do not collide",
                set_gdb_port, .takes = "a TCP port, 1..65535"),
        FLAG_FILE("record", &o->record, "FILE.db", "record the scheduler trace into this SQLite file"),
        FLAG_FILE("db", &o->record, "FILE.db", "database the live trace is recorded into (default runq.db)"),
        FLAG_FILE("control", &o->control, "FILE",
                  "with --deterministic --record: FILE's lines go to the kernel on the\ntrace port at boot, as the "
                  "control socket's do in a live run"),
    };
    size_t n = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        const char *name = all[k].name;
        bool live_only = !strcmp(name, "db");
        bool batch_only = !strcmp(name, "test") || !strcmp(name, "timeout") || !strcmp(name, "record");
        if (run ? batch_only : live_only)
            continue;
        BUG_ON(n + 1 >= nrows); /* room for this row and the end row */
        rows[n++] = all[k];
    }
    rows[n] = (struct flag)FLAG_TABLE_END;
}

static const char boot_environment[] =
    "environment:\n"
    "  QEMU         QEMU binary (default qemu-system-x86_64)\n"
    "  ACCEL        accelerator without --deterministic (default tcg, with -cpu\n"
    "               qemu64,+sse4.2 for the tracer's crc32; kvm: -cpu host)\n"
    "  RUNQ_KERNEL  kernel ELF when --kernel is not given\n";

static const struct command_spec boot_spec = {
    .name = "boot",
    .usage = "boot [flags]",
    .about = "Boots the kernel in QEMU, runs each --cmd (then poweroff) or --test,\n"
             "copies the guest console to stdout, and exits 0 only if the guest\n"
             "reported success; otherwise 1 with the reason on stderr.\n",
    .after = boot_environment,
};

static const struct command_spec run_spec = {
    .name = "run",
    .usage = "run [flags]",
    .about = "Boots the kernel to its shell on this terminal; Ctrl-A x quits QEMU.\n"
             "The --cmd commands run first; nothing powers the guest off. The trace is\n"
             "recorded live into --db (default runq.db). On a terminal with tmux, the live\n"
             "view (runq top) opens beside the shell; RUNQ_NO_TOP=1 leaves it out.\n\n"
             "runq run --engine ENGINE FILE [flags] runs one scenario file on that engine\n"
             "(kernel, linux: the host's own Linux, recorded through tracefs; sim) and\n"
             "prints its row: runq experiment's flags (runq experiment --help).\n",
    .after = boot_environment,
};

/* Parses argv into *o by boot's or run's table. Returns -1 to go on, or
 * the exit code: 0 after --help, 2 after a usage error (both printed). */
static int boot_flags(int argc, char **argv, bool run, struct boot_opts *o)
{
    struct flag rows[20];
    boot_flag_table(o, run, rows, sizeof rows / sizeof rows[0]);
    const struct command_spec *spec = run ? &run_spec : &boot_spec;
    int npos, rc = flags_parse(spec, rows, argc, argv, NULL, &npos);
    if (rc >= 0)
        return rc;
    /* What reaches the kernel's command line, checked here rather than
     * as each flag comes, so no error echoes a control character. */
    if (o->append && (!printable(o->append) || has_dashdash_word(o->append)))
        return flags_usage_error(spec, "--append must be printable ASCII without a '--' word");
    for (int i = 0; i < o->ncmds; i++) {
        if (strchr(o->cmds[i], ';') || strchr(o->cmds[i], '\n'))
            return flags_usage_error(spec, "--cmd may not contain ';' or a newline; pass one --cmd per command");
        if (!printable(o->cmds[i]))
            return flags_usage_error(spec, "--cmd must be printable ASCII");
    }
    return -1;
}

/* Parses argv by boot's or run's table, then runs it. */
static int boot_main(int argc, char **argv, bool run)
{
    struct boot_opts o;
    boot_opts_init(&o);
    int rc = boot_flags(argc, argv, run, &o);
    if (rc < 0)
        rc = boot_launch(&o, run, argc, argv);
    boot_opts_free(&o);
    return rc;
}

int cmd_boot(int argc, char **argv)
{
    return boot_main(argc, argv, false);
}

int cmd_run(int argc, char **argv)
{
    /* A scenario on an engine: run's own spec over experiment's flags. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--engine") == 0 || strncmp(argv[i], "--engine=", 9) == 0)
            return run_on_engine(argc, argv);
    return boot_main(argc, argv, true);
}
