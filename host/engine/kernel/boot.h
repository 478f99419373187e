/*
 * The QEMU launcher: how runq turns flags into a kernel command line and a
 * QEMU argv, runs QEMU, and turns its exit status into runq's.
 *
 * The steps are separate so `record`, `lab` and friends can reuse them
 * (boot_launch() below takes them in this order for runq boot and run):
 *
 *     struct boot_opts o;  boot_opts_init(&o);
 *     boot_kernel_path(&o, ...)            which ELF to boot
 *     cmdline = boot_cmdline(&o, true)     "sched=.. -- cmd; poweroff"
 *     boot_qemu_argv(&o, mode, cmdline, &argv)
 *     boot_argv_push(&argv, ...)           any extra QEMU devices
 *     boot_run(&argv, timeout, on_line, ctx, &res)  or boot_run_interactive()
 *
 * Contract with the kernel: it reads "sched=", "hz=", "test=" and its own
 * extras before " -- ", then runs the shell commands after it, separated by
 * "; ". It ends the run through isa-debug-exit (port 0xf4), so QEMU exits
 * 33 (success), 35 (a self-test failed, after printing "FAIL ...") or
 * 37 (panic, after printing "PANIC...").
 */
#ifndef RUNQ_BOOT_H
#define RUNQ_BOOT_H

#include <stdbool.h>
#include <stdio.h>

#define BOOT_DEFAULT_CPUS    4
#define BOOT_DEFAULT_TIMEOUT 600   /* seconds; a guard against hangs only */

struct boot_opts {
    const char *policy;     /* "rr" or "eevdf"; NULL: the kernel's default */
    int hz;                 /* 100, 250 or 1000; 0: the kernel's default */
    int cpus;               /* 1..64 */
    bool deterministic;     /* -icount: same instruction stream every run */
    const char **cmds;      /* shell commands, in order (heap array) */
    int ncmds;
    const char *test;       /* self-test name or "all"; NULL: none */
    int timeout_s;          /* > 0 */
    const char *kernel;     /* NULL: $RUNQ_KERNEL, else beside the binary */
    const char *append;     /* extra kernel args; NULL: none */
    bool gdb;               /* -S: paused, with a gdb stub */
    int gdb_port;           /* its TCP port on localhost; 0: QEMU's -s (:1234) */
    const char *record;     /* SQLite file to record the trace into; NULL: none */
    const char *control;    /* file of control lines for the trace port; NULL: none */
};

/* Fills *o with the defaults above. */
void boot_opts_init(struct boot_opts *o);
/* Frees what the flags allocated (the cmds array, not the strings). */
void boot_opts_free(struct boot_opts *o);


/*
 * Resolves the kernel ELF: o->kernel, else $RUNQ_KERNEL, else kernel.elf in
 * the directory holding the running binary (/proc/self/exe), which is
 * build/kernel.elf for build/runq. Writes it to buf and returns buf, or
 * returns NULL when the path does not fit or /proc/self/exe is unreadable.
 * Does not check that the file exists.
 */
const char *boot_kernel_path(const struct boot_opts *o, char *buf, size_t len);

/*
 * Builds the kernel command line:
 *     [sched=P] [hz=N] [test=T] [append] -- cmd1; cmd2; ...[; poweroff]
 * The " -- " part is left out when there are no commands and no poweroff.
 * Returns a malloc'd string the caller frees, or NULL when out of memory.
 * The commands must have passed runq boot's --cmd check (no ';', no newlines).
 */
char *boot_cmdline(const struct boot_opts *o, bool poweroff);

enum boot_mode {
    BOOT_BATCH,         /* stdin /dev/null, console through a pipe to runq */
    BOOT_INTERACTIVE,   /* console on the terminal, Ctrl-A x to quit */
};

#define BOOT_ARGV_MAX 64

/* A QEMU argv: v[0..n-1] then NULL. Strings point into static storage,
 * `num` (owned here), the opts, the cmdline or the environment. */
struct boot_argv {
    const char *v[BOOT_ARGV_MAX + 1];
    int n;
    char num[16];       /* backing store for the -smp value */
    char chardev[4200]; /* backing store for the trace port's -chardev value */
    char gdbdev[32];    /* backing store for the -gdb value (--gdb-port) */
};

/*
 * Builds the QEMU argv for booting `kernel` with `cmdline` in `mode`:
 * $QEMU (default qemu-system-x86_64), the fixed machine, -accel from
 * --deterministic or $ACCEL, and -s -S for --gdb (-gdb tcp:127.0.0.1:PORT -S
 * for --gdb-port). Returns 0, or -1 if it
 * does not fit in BOOT_ARGV_MAX (a bug: the fixed part is far smaller).
 * `kernel` and `cmdline` must outlive *out.
 */
/* How the trace port's host side is made (boot_argv_trace_port). */
enum boot_port {
    /* The file `path` (deterministic runs: a file is never full, so no
     * host timing leaks into the guest). */
    BOOT_PORT_FILE,
    /* The same, written to `path`.out, and the lines the guest reads come
     * from `path`.in, which must exist (QEMU's pipe chardev; runq boot
     * --control makes it a FIFO it holds open, so QEMU never reads an end
     * of file, which would close the port). */
    BOOT_PORT_PIPE,
    /* A listening Unix socket at `path` that QEMU waits on until the
     * recorder connects, so nothing early is lost. */
    BOOT_PORT_SOCKET,
};

/* Adds the virtio-serial trace port to a QEMU argv, its host side made
 * as `kind` says. Returns 0, or -1 if it does not fit. */
int boot_argv_trace_port(struct boot_argv *a, enum boot_port kind, const char *path);

int boot_qemu_argv(const struct boot_opts *o, enum boot_mode mode,
                   const char *kernel, const char *cmdline, struct boot_argv *out);

/* Appends one argument; returns 0, or -1 when full. */
int boot_argv_push(struct boot_argv *a, const char *arg);

/* Called once per console line, without its "\n" or trailing "\r". */
typedef void (*boot_line_fn)(void *ctx, const char *line);

struct boot_result {
    int exit_code;      /* what runq should exit with */
    char reason[512];   /* why it is non-zero, without the "runq CMD: " prefix */
};

/*
 * Runs a BOOT_BATCH argv to the end. QEMU gets stdin /dev/null and its own
 * process group; its stdout (the guest console) goes line by line to
 * on_line (NULL: copied to stdout, flushed per line) and its stderr is
 * copied to runq's stderr. Ends QEMU (SIGTERM, then SIGKILL after 2 s) when
 * `timeout_s` (> 0) passes or runq gets SIGINT/SIGTERM; runq's own
 * handlers for those are restored before returning.
 * Fills *res and returns res->exit_code:
 *     0    QEMU exited 33 (guest success)
 *     1    self-test failed (35), panic (37), timeout, QEMU missing or
 *          any other exit or signal
 *     130/143  runq got SIGINT/SIGTERM
 */
int boot_run(const struct boot_argv *a, int timeout_s, boot_line_fn on_line,
             void *ctx, struct boot_result *res);

/*
 * Runs a BOOT_INTERACTIVE argv on the terminal and waits for it, ignoring
 * SIGINT/SIGQUIT meanwhile as system() does. QEMU exiting 0 (quit from the
 * monitor) or 33 is success; otherwise as boot_run(), without console lines.
 */
int boot_run_interactive(const struct boot_argv *a, struct boot_result *res);

/*
 * What runq boot (run false) and runq run (run true) do once their flags
 * are parsed into *o (host/cli/boot.c has checked them: --append and each
 * --cmd printable, no ';' in a --cmd, no '--' word in --append):
 *
 *   - boot: boots the kernel in batch (boot_run), runs o's commands and
 *     powers off; run: boots it to its shell on this terminal
 *     (boot_run_interactive), nothing powered off;
 *   - with o->record (run: always, runq.db when o->record is NULL) records
 *     the trace: a deterministic boot from the port's file once QEMU is
 *     done (record_stream(), in this process; the file is kept, and its
 *     path said, when the trace could not be stored), any other run live,
 *     through `runq record --socket` started beside QEMU;
 *   - o->control's lines go to the kernel on the trace port at boot
 *     (refused, exit 2, without o->deterministic and a record);
 *   - run on a terminal with tmux (RUNQ_NO_TOP unset, no --gdb) opens
 *     `runq top` beside the shell; outside tmux that means running the
 *     same command again inside a new tmux session: argv[0..argc-1] is the
 *     command as runq was given it (argv[0] "run"), and on success this
 *     does not return.
 *
 * Messages go to stderr as "runq boot: ..." or "runq run: ...". Returns
 * the exit status: 0 on the guest's success (and a stored trace, for a
 * boot that records); 1 when the kernel is not found, QEMU fails or the
 * guest reports a failure (boot_run()'s reasons), or a boot's recording
 * failed; 2 when the kernel command line would be longer than
 * RUNQ_CMDLINE_MAX or o->control lacks --deterministic and --record;
 * 128+signal when interrupted.
 */
int boot_launch(const struct boot_opts *o, bool run, int argc, char **argv);

#endif
