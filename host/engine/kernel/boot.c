/*
 * The QEMU launcher (contracts in boot.h) and what `runq boot` and
 * `runq run` do with it (boot_launch); their flags and help are
 * host/cli/boot.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "bug.h"
#include "host/base/clock.h"
#include "host/base/fork.h"
#include "trace/control.h"
#include "trace/recorder/record.h"

/* QEMU's isa-debug-exit status is (guest code << 1) | 1. */
#define QEMU_EXIT_SUCCESS 33    /* guest wrote 0x10 */
#define QEMU_EXIT_TESTFAIL 35   /* 0x11 */
#define QEMU_EXIT_PANIC 37      /* 0x12 */

#define KILL_GRACE_MS 2000
/* The CPU model under TCG: QEMU's default plus SSE4.2 (see boot_argv_build). */
#define TCG_CPU "qemu64,+sse4.2"

/* ---- options ---- */

void boot_opts_init(struct boot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cpus = BOOT_DEFAULT_CPUS;
    o->timeout_s = BOOT_DEFAULT_TIMEOUT;
}

void boot_opts_free(struct boot_opts *o)
{
    free(o->cmds);
    o->cmds = NULL;
    o->ncmds = 0;
}

/* ---- kernel command line and QEMU argv ---- */

const char *boot_kernel_path(const struct boot_opts *o, char *buf, size_t len)
{
    const char *p = o->kernel ? o->kernel : getenv("RUNQ_KERNEL");
    if (p && *p) {
        if (strlen(p) >= len)
            return NULL;
        return strcpy(buf, p);
    }
    ssize_t n = readlink("/proc/self/exe", buf, len);
    if (n <= 0 || (size_t)n >= len)
        return NULL;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return NULL;
    slash[1] = '\0';
    if (strlen(buf) + sizeof "kernel.elf" > len)
        return NULL;
    return strcat(buf, "kernel.elf");
}

char *boot_cmdline(const struct boot_opts *o, bool poweroff)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return NULL;
    /* Each item writes its own leading space; it is dropped at the end. */
    if (o->policy)
        fprintf(f, " sched=%s", o->policy);
    if (o->hz)
        fprintf(f, " hz=%d", o->hz);
    if (o->test)
        fprintf(f, " test=%s", o->test);
    if (o->append && *o->append)
        fprintf(f, " %s", o->append);
    if (o->ncmds || poweroff) {
        fputs(" --", f);
        for (int i = 0; i < o->ncmds; i++)
            fprintf(f, "%s %s", i ? ";" : "", o->cmds[i]);
        if (poweroff)
            fprintf(f, "%s poweroff", o->ncmds ? ";" : "");
    }
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    if (s[0] == ' ')
        memmove(s, s + 1, strlen(s));
    return s;
}

int boot_argv_push(struct boot_argv *a, const char *arg)
{
    if (a->n >= BOOT_ARGV_MAX)
        return -1;
    a->v[a->n++] = arg;
    a->v[a->n] = NULL;
    return 0;
}

int boot_qemu_argv(const struct boot_opts *o, enum boot_mode mode,
                   const char *kernel, const char *cmdline, struct boot_argv *out)
{
    const char *qemu = getenv("QEMU");
    const char *accel = getenv("ACCEL");
    out->n = 0;
    out->v[0] = NULL;
    snprintf(out->num, sizeof out->num, "%d", o->cpus);
    const char *fixed[] = {
        qemu && *qemu ? qemu : "qemu-system-x86_64",
        "-machine", "pc", "-m", "256M", "-smp", out->num,
        "-kernel", kernel, "-append", cmdline,
        "-display", "none", "-no-reboot",
        "-serial", mode == BOOT_INTERACTIVE ? "mon:stdio" : "stdio",
        "-monitor", "none",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
    };
    int err = 0;
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        err |= boot_argv_push(out, fixed[k]);
    const char *acc = o->deterministic ? "tcg" : accel && *accel ? accel : "tcg";
    if (o->deterministic) {
        /* Timer interrupts land on the same instruction every run only when
         * QEMU's clock is the instruction count, which needs TCG. */
        err |= boot_argv_push(out, "-icount");
        err |= boot_argv_push(out, "shift=3,sleep=off,align=off");
    }
    err |= boot_argv_push(out, "-accel");
    err |= boot_argv_push(out, acc);
    err |= boot_argv_push(out, "-cpu");
    /* KVM's default CPU model hides features the host has. Under TCG the
     * default model lacks SSE4.2, whose crc32 instruction makes the
     * tracer's CRC five times cheaper (kernel/lib/crc32c.c). */
    err |= boot_argv_push(out, strcmp(acc, "kvm") == 0 ? "host" : TCG_CPU);
    if (o->gdb && o->gdb_port) {
        /* Loopback only: the stub can read and write all guest memory. */
        snprintf(out->gdbdev, sizeof out->gdbdev, "tcp:127.0.0.1:%d", o->gdb_port);
        err |= boot_argv_push(out, "-gdb");
        err |= boot_argv_push(out, out->gdbdev);
        err |= boot_argv_push(out, "-S");
    } else if (o->gdb) {
        err |= boot_argv_push(out, "-s");
        err |= boot_argv_push(out, "-S");
    }
    return err ? -1 : 0;
}

int boot_argv_trace_port(struct boot_argv *a, enum boot_port kind, const char *path)
{
    static const char *const forms[] = {
        [BOOT_PORT_FILE] = "file,id=trace,path=%s",
        [BOOT_PORT_PIPE] = "pipe,id=trace,path=%s",
        [BOOT_PORT_SOCKET] = "socket,id=trace,path=%s,server=on,wait=on",
    };
    char *chardev = a->chardev;
    int n = snprintf(chardev, sizeof a->chardev, forms[kind], path);
    if (n < 0 || (size_t)n >= sizeof a->chardev)
        return -1;
    /* ioeventfd=off: the guest's notify is handled in its own instruction,
     * so icount stays deterministic; vectors=0: the driver polls. The
     * string lives in the argv itself. */
    int err = boot_argv_push(a, "-device");
    err |= boot_argv_push(a, "virtio-serial-pci,ioeventfd=off,vectors=0");
    err |= boot_argv_push(a, "-chardev");
    err |= boot_argv_push(a, chardev);
    err |= boot_argv_push(a, "-device");
    err |= boot_argv_push(a, "virtserialport,chardev=trace,name=org.runq.trace.0");
    return err ? -1 : 0;
}

/* ---- running QEMU ---- */

/* SIGINT/SIGTERM/SIGHUP arrive as a byte on this pipe, so poll() sees them without
 * the race between checking a flag and going to sleep. */
static int boot_sigpipe[2] = { -1, -1 };

static void boot_on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    if (write(boot_sigpipe[1], &b, 1) < 0) {
        /* Pipe full: a signal is already pending, which is all we need. */
    }
    errno = saved;
}

static int64_t now_ms(void)
{
    return (int64_t)(mono_ns() / 1000000);
}

/* One output stream of QEMU, cut into lines. A line longer than the buffer
 * is passed on in pieces rather than dropped. */
struct boot_stream {
    int fd;
    size_t len;
    char buf[4096];
};

struct boot_capture {
    boot_line_fn on_line;
    void *ctx;
    char fail[256];     /* first console line starting "FAIL " */
    char panic[256];    /* first console line starting "PANIC" or "panic" */
    char err[256];      /* last non-empty line QEMU wrote to stderr */
};

static void keep(char *dst, size_t n, const char *line)
{
    snprintf(dst, n, "%s", line);
}

static void emit(struct boot_capture *c, bool is_err, char *line, size_t len)
{
    line[len] = '\0';
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    if (is_err) {
        fprintf(stderr, "%s\n", line);
        if (len)
            keep(c->err, sizeof c->err, line);
        return;
    }
    if (!c->fail[0] && strncmp(line, "FAIL ", 5) == 0)
        keep(c->fail, sizeof c->fail, line);
    if (!c->panic[0] && (strncmp(line, "PANIC", 5) == 0 || strncmp(line, "panic", 5) == 0))
        keep(c->panic, sizeof c->panic, line);
    if (c->on_line) {
        c->on_line(c->ctx, line);
    } else {
        fprintf(stdout, "%s\n", line);
        fflush(stdout);
    }
}

/* Reads what is ready; returns false at end of file, after passing on any
 * unterminated last line. */
static bool stream_pump(struct boot_stream *s, struct boot_capture *c, bool is_err)
{
    ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - 1 - s->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        if (s->len)
            emit(c, is_err, s->buf, s->len);
        s->len = 0;
        return false;
    }
    s->len += (size_t)n;
    char *start = s->buf, *nl;
    while ((nl = memchr(start, '\n', s->len - (size_t)(start - s->buf))) != NULL) {
        emit(c, is_err, start, (size_t)(nl - start));
        start = nl + 1;
    }
    s->len -= (size_t)(start - s->buf);
    memmove(s->buf, start, s->len);
    if (s->len == sizeof s->buf - 1) {
        emit(c, is_err, s->buf, s->len);
        s->len = 0;
    }
    return true;
}

/* Maps how QEMU ended to runq's exit code and reason. */
static int boot_verdict(int status, bool interactive, const struct boot_capture *c,
                        struct boot_result *res)
{
    res->reason[0] = '\0';
    res->exit_code = 1;
    if (WIFSIGNALED(status)) {
        snprintf(res->reason, sizeof res->reason, "qemu killed by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 1;
    }
    int code = WEXITSTATUS(status);
    if (code == QEMU_EXIT_SUCCESS || (interactive && code == 0)) {
        res->exit_code = 0;
    } else if (code == QEMU_EXIT_TESTFAIL) {
        snprintf(res->reason, sizeof res->reason, "self-test failed: %s",
                 c && c->fail[0] ? c->fail : "(no FAIL line on the console)");
    } else if (code == QEMU_EXIT_PANIC) {
        snprintf(res->reason, sizeof res->reason, "kernel panic: %s",
                 c && c->panic[0] ? c->panic : "(no PANIC line on the console)");
    } else {
        /* With -no-reboot a guest reset or triple fault makes QEMU exit 0. */
        snprintf(res->reason, sizeof res->reason, "qemu exited with status %d%s%s", code,
                 c && c->err[0] ? ": " : code == 0 ? " (guest reset without isa-debug-exit)" : "",
                 c && c->err[0] ? c->err : "");
    }
    return res->exit_code;
}

/* Spawns argv with the given stdin/stdout/stderr (-1: inherit), default
 * SIGINT/SIGTERM/SIGQUIT/SIGHUP/SIGPIPE, in its own process group if asked,
 * and killed (SIGKILL) when runq dies: a runq boot killed with SIGKILL left
 * QEMU running with no timeout to end it (issue 13). Returns 0 or an errno
 * value (the child's exec failure comes back through a close-on-exec
 * pipe). */
static int boot_spawn(const struct boot_argv *a, bool own_group, int out_fd, int err_fd,
                      pid_t *pid)
{
    int p[2];
    pid_t parent = getpid();
    pid_t c = fork_piped(p);
    if (c < 0)
        return errno;
    if (c == 0) {
        close(p[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* runq died before the line above */
            _exit(127);
        /* Its own group, so one kill() reaches anything it forks, and a
         * terminal Ctrl-C reaches runq only, which then ends QEMU itself. */
        if (own_group)
            setpgid(0, 0);
        if (out_fd >= 0) {
            int in = open("/dev/null", O_RDONLY);
            if (in < 0 || dup2(in, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
                goto failed;
        } else if (err_fd >= 0 && dup2(err_fd, 2) < 0) { /* the terminal's stdin and stdout, a filtered stderr */
            goto failed;
        }
        static const int defaults[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE };
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
            signal(defaults[i], SIG_DFL);
        execvp(a->v[0], (char *const *)a->v);
    failed:
        fork_exec_failed(p);
    }
    int e = fork_exec_errno(p);
    if (e) { /* exec failed: reap the child */
        waitpid(c, NULL, 0);
        return e;
    }
    *pid = c;
    return 0;
}

static void spawn_failed(int rc, const struct boot_argv *a, struct boot_result *res)
{
    res->exit_code = 1;
    if (rc == ENOENT)
        snprintf(res->reason, sizeof res->reason, "%s not found; run make deps", a->v[0]);
    else
        snprintf(res->reason, sizeof res->reason, "cannot start %s: %s", a->v[0], strerror(rc));
}

/* How the pump loop ended. */
enum boot_end { END_EXIT, END_TIMEOUT, END_SIGNAL };

/* Copies QEMU's output until both streams reach end of file, ending the
 * process group `pid` (SIGTERM, then SIGKILL after the grace) on timeout or
 * a signal to runq. Returns why it ended; *sig is the signal for END_SIGNAL. */
static enum boot_end boot_pump(pid_t pid, struct boot_stream *out, struct boot_stream *err,
                               int timeout_s, struct boot_capture *c, int *sig)
{
    enum boot_end why = END_EXIT;
    bool hard_killed = false;
    int64_t deadline = now_ms() + (int64_t)timeout_s * 1000, kill_at = -1;
    while (out->fd >= 0 || err->fd >= 0) {
        int64_t t = now_ms();
        if (why == END_EXIT && timeout_s > 0 && t >= deadline) {
            why = END_TIMEOUT;
            kill(-pid, SIGTERM);
            kill_at = t + KILL_GRACE_MS;
        }
        if (kill_at >= 0 && t >= kill_at) {
            if (hard_killed)
                break;  /* something outside the group holds the pipes */
            kill(-pid, SIGKILL);
            hard_killed = true;
            kill_at = t + KILL_GRACE_MS;
        }
        int wait = -1;
        if (kill_at >= 0)
            wait = (int)(kill_at - t);
        else if (why == END_EXIT && timeout_s > 0)
            wait = (int)(deadline - t);
        struct pollfd pfd[3] = {
            { .fd = out->fd, .events = POLLIN },
            { .fd = err->fd, .events = POLLIN },
            { .fd = boot_sigpipe[0], .events = POLLIN },
        };
        if (poll(pfd, 3, wait) < 0)
            continue;   /* EINTR; nothing else is possible with valid fds */
        unsigned char b;
        if ((pfd[2].revents & POLLIN) && read(boot_sigpipe[0], &b, 1) == 1 && why == END_EXIT) {
            why = END_SIGNAL;
            *sig = b;
            kill(-pid, SIGTERM);
            kill_at = now_ms() + KILL_GRACE_MS;
        }
        if (pfd[0].revents && !stream_pump(out, c, false)) {
            close(out->fd);
            out->fd = -1;
        }
        if (pfd[1].revents && !stream_pump(err, c, true)) {
            close(err->fd);
            err->fd = -1;
        }
    }
    if (out->fd >= 0)
        close(out->fd);
    if (err->fd >= 0)
        close(err->fd);
    return why;
}

int boot_run(const struct boot_argv *a, int timeout_s, boot_line_fn on_line,
             void *ctx, struct boot_result *res)
{
    struct boot_capture cap = { .on_line = on_line, .ctx = ctx };
    int op[2] = { -1, -1 }, ep[2] = { -1, -1 };
    res->reason[0] = '\0';
    res->exit_code = 1;
    if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0 ||
        pipe2(boot_sigpipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        snprintf(res->reason, sizeof res->reason, "pipe: %s", strerror(errno));
        for (int k = 0; k < 2; k++) {
            if (op[k] >= 0)
                close(op[k]);
            if (ep[k] >= 0)
                close(ep[k]);
        }
        return 1;
    }
    struct sigaction sa = { .sa_handler = boot_on_signal }, old_int, old_term, old_hup, old_pipe;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    /* A reader of runq's stdout going away must not kill runq and orphan QEMU. */
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigaction(SIGPIPE, &ign, &old_pipe);

    pid_t pid;
    int rc = boot_spawn(a, true, op[1], ep[1], &pid);
    close(op[1]);
    close(ep[1]);
    if (rc != 0) {
        spawn_failed(rc, a, res);
        close(op[0]);
        close(ep[0]);
    } else {
        struct boot_stream out = { .fd = op[0] }, err = { .fd = ep[0] };
        int sig = 0, status = 0;
        enum boot_end why = boot_pump(pid, &out, &err, timeout_s, &cap, &sig);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (why == END_TIMEOUT) {
            snprintf(res->reason, sizeof res->reason, "timeout after %d s", timeout_s);
        } else if (why == END_SIGNAL) {
            res->exit_code = 128 + sig;
            snprintf(res->reason, sizeof res->reason, "interrupted by %s; qemu stopped",
                     sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
        } else {
            boot_verdict(status, false, &cap, res);
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    close(boot_sigpipe[0]);
    close(boot_sigpipe[1]);
    boot_sigpipe[0] = boot_sigpipe[1] = -1;
    return res->exit_code;
}

/* QEMU's stderr on its way to the terminal, less its "...: info: QEMU
 * waiting for connection on: ..." line: the socket it waits on is runq's own trace
 * port, which runq's recorder connects to at once, and the line read as
 * something for the user to do. A process of its own, so the shell's
 * terminal stays QEMU's; it ends when QEMU closes its stderr. -1 when it
 * could not start (QEMU then writes to the terminal itself). */
static pid_t start_stderr_filter(int *write_end)
{
    int p[2];
    pid_t f = fork_piped(p);
    if (f < 0)
        return -1;
    if (f == 0) {
        close(p[1]);
        static const char drop[] = "QEMU waiting for connection on:";
        char buf[4096];
        size_t n = 0;
        for (;;) {
            ssize_t r = read(p[0], buf + n, sizeof buf - n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r > 0)
                n += (size_t)r;
            /* whole lines out, except the one dropped; at EOF or a full
             * buffer, the rest as it is */
            size_t start = 0;
            for (size_t i = 0; i < n; i++)
                if (buf[i] == '\n') {
                    size_t len = i + 1 - start;
                    /* "qemu-system-x86_64: info: QEMU waiting for ..." */
                    if (!memmem(buf + start, len, drop, sizeof drop - 1) && write(2, buf + start, len) < 0)
                        _exit(1);
                    start = i + 1;
                }
            memmove(buf, buf + start, n - start);
            n -= start;
            if (r <= 0 || n == sizeof buf) {
                if (n && write(2, buf, n) < 0)
                    _exit(1);
                n = 0;
                if (r <= 0)
                    _exit(0);
            }
        }
    }
    close(p[0]);
    *write_end = p[1];
    return f;
}

int boot_run_interactive(const struct boot_argv *a, struct boot_result *res)
{
    /* The keys go to QEMU's console. A closed terminal (or tmux session)
     * hangs QEMU up as well, which ends it: runq run lives on to wait for
     * the recorder and clean up. */
    struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit, old_hup;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigaction(SIGHUP, &ign, &old_hup);
    pid_t pid;
    int status = 0;
    res->reason[0] = '\0';
    int err_fd = -1;
    pid_t filter = start_stderr_filter(&err_fd);
    int rc = boot_spawn(a, false, -1, err_fd, &pid);
    if (err_fd >= 0)
        close(err_fd);
    if (rc != 0) {
        spawn_failed(rc, a, res);
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        boot_verdict(status, true, NULL, res);
    }
    if (filter > 0)
        while (waitpid(filter, NULL, 0) < 0 && errno == EINTR)
            ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    return res->exit_code;
}

/* ---- runq boot and runq run ---- */

/* Builds the kernel path, cmdline and QEMU argv shared by boot and run
 * from the parsed *o. Returns an exit code (0 = go ahead). */
static int boot_prepare(bool run, struct boot_opts *o, char *kernel, size_t klen, char **cmdline,
                        struct boot_argv *qa)
{
    const char *prog = run ? "run" : "boot";
    if (!boot_kernel_path(o, kernel, klen)) {
        fprintf(stderr, "runq %s: cannot work out the kernel path; pass --kernel PATH\n", prog);
        return 1;
    }
    if (access(kernel, R_OK) != 0) {
        fprintf(stderr, "runq %s: kernel %s: %s (run make, or pass --kernel PATH)\n", prog,
                kernel, strerror(errno));
        return 1;
    }
    *cmdline = boot_cmdline(o, !run);
    if (!*cmdline) {
        fprintf(stderr, "runq %s: out of memory\n", prog); /* open_memstream's */
        return 1;
    }
    if (strlen(*cmdline) >= RUNQ_CMDLINE_MAX) {
        fprintf(stderr, "runq %s: the kernel command line would be %zu bytes; it holds at most %d "
                "(the flags, --append and every --cmd together)\n", prog, strlen(*cmdline), RUNQ_CMDLINE_MAX - 1);
        return 2;
    }
    /* The fixed part is far smaller than BOOT_ARGV_MAX (boot.h). */
    int built = boot_qemu_argv(o, run ? BOOT_INTERACTIVE : BOOT_BATCH, kernel, *cmdline, qa);
    BUG_ON(built < 0);
    if (o->gdb)
        fprintf(stderr, "runq %s: QEMU is paused; attach with: gdb %s -ex 'target remote :%d'\n",
                prog, kernel, o->gdb_port ? o->gdb_port : 1234);
    return 0;
}

/* Starts `runq record` (this binary) on the trace socket in the background;
 * require_end: it fails if the stream ends without its END record. */
static pid_t start_recorder(const char *socket, const char *db, bool require_end)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Ends with runq boot, however it ends (SIGTERM: it commits and
         * marks the trace interrupted). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        /* Its stdout is the trace id, for scripts; beside a live shell it
         * was a stray number on the terminal, and its stderr line says
         * the same ("runq record: trace N in DB"). */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
        execl(self, "runq", "record", "--socket", socket, "--db", db, require_end ? "--require-end" : (char *)NULL,
              (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Records a finished run's trace file into the database, in this process;
 * a stream without its END record fails (runq record says so). *stored:
 * whether the trace reached the database. */
static int record_file(const char *file, const char *db, bool *stored)
{
    return record_stream(&(struct record_opts){ .db = db, .file = file, .require_end = true }, stored);
}

/* --control FILE: FILE's bytes wait in the FIFO `fifo`, which QEMU's pipe
 * chardev reads as the trace port's input (BOOT_PORT_PIPE). A
 * deterministic run has no recorder beside it to relay lines, and lines
 * that are all there at boot reach the kernel whatever the host's speed.
 * The FIFO is opened read-write, so neither this open nor QEMU's blocks,
 * and QEMU never reads an end of file (which would close the port) while
 * this descriptor lives: the caller holds it until QEMU is gone. Returns
 * it, or -1 after saying why. */
static int control_fifo(const char *fifo, const char *file)
{
    int in = open(file, O_RDONLY | O_CLOEXEC), fd = -1;
    if (in < 0) {
        fprintf(stderr, "runq boot: --control %s: %s\n", file, strerror(errno));
        return -1;
    }
    if (mkfifo(fifo, 0600) != 0 || (fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
        fprintf(stderr, "runq boot: %s: %s\n", fifo, strerror(errno));
        close(in);
        return -1;
    }
    fcntl(fd, F_SETPIPE_SZ, 1 << 20); /* a larger FIFO if the system allows; else its default */
    char buf[4096];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(fd, buf, (size_t)n) != n) {
            fprintf(stderr, "runq boot: --control %s: longer than the FIFO holds (%d bytes)\n", file,
                    fcntl(fd, F_GETPIPE_SZ));
            n = -1;
            break;
        }
    }
    if (n < 0) {
        if (errno)
            fprintf(stderr, "runq boot: --control %s: %s\n", file, strerror(errno));
        close(fd);
        fd = -1;
    }
    close(in);
    return fd;
}

/* Appends s to buf, single-quoted for sh. */
static void sh_quote(char *buf, size_t size, const char *s)
{
    size_t n = strlen(buf);
    if (n + 3 >= size)
        return;
    buf[n++] = '\'';
    for (; *s && n + 5 < size; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    buf[n++] = '\'';
    buf[n++] = ' ';
    buf[n] = 0;
}

/* runq run opens the live view beside the shell: inside tmux in a split
 * pane; on a terminal outside tmux, in a new tmux session holding both. */
static void open_live_view(int argc, char **argv, const struct boot_opts *o)
{
    if (getenv("RUNQ_NO_TOP") || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO) || o->gdb)
        return;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || system("command -v tmux >/dev/null 2>&1") != 0)
        return;
    self[n] = 0;
    const char *db = o->record ? o->record : "runq.db";
    /* The view waits for the recording to exist (the recorder makes the
     * database after QEMU is up): a view started first used to end at
     * once, "no such database", and its pane with it. */
    char top[PATH_MAX * 2 + 64] = "";
    sh_quote(top, sizeof top, self);
    strncat(top, "top --wait 60 --db ", sizeof top - strlen(top) - 1);
    sh_quote(top, sizeof top, db);
    if (getenv("TMUX")) {
        /* Split the pane runq run was typed in, not whichever pane of the
         * session happens to be active. */
        const char *pane = getenv("TMUX_PANE");
        pid_t pid = fork();
        if (pid == 0) {
            if (pane && *pane)
                execlp("tmux", "tmux", "split-window", "-h", "-d", "-t", pane, top, (char *)NULL);
            else
                execlp("tmux", "tmux", "split-window", "-h", "-d", top, (char *)NULL);
            _exit(127);
        }
        if (pid > 0)
            waitpid(pid, NULL, 0);
        return;
    }
    /* Not in tmux: start a session running this same command (it then
     * takes the branch above), and leave when it ends. */
    char cmd[8192] = "";
    sh_quote(cmd, sizeof cmd, self);
    for (int i = 0; i < argc; i++)
        sh_quote(cmd, sizeof cmd, argv[i]);
    execlp("tmux", "tmux", "new-session", cmd, (char *)NULL);
}

/* A live run's figures are the host's real time, shared with whatever
 * else runs here: `sched probe` on a busy machine prints numbers far from
 * the docs' deterministic ones, and nothing said why. Said once, before
 * the console, with the host's load when it is above its CPUs. */
static void say_live_mode(void)
{
    double load[1];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(stderr, "runq run: live mode: every time the kernel prints is the host's real time, "
                    "shared with whatever else runs here; for exact, repeatable figures run it "
                    "deterministic (runq boot --deterministic --cmd ..., or runq experiment)\n");
    if (getloadavg(load, 1) == 1 && cpus > 0 && load[0] > (double)cpus)
        fprintf(stderr, "runq run: the host is busy (load %.1f on %ld CPUs): live figures will wander\n", load[0],
                cpus);
}

int boot_launch(const struct boot_opts *opts, bool run, int argc, char **argv)
{
    struct boot_opts o = *opts; /* a live run's record names runq.db when opts names none */
    struct boot_argv qa;
    struct boot_result res;
    char kernel[PATH_MAX];
    char *cmdline = NULL;
    char tmpdir[] = "/tmp/runq-trace-XXXXXX", port[PATH_MAX] = "", fifo[PATH_MAX] = "";
    int control = -1; /* --control's FIFO, held while QEMU runs */
    pid_t recorder = -1;
    bool keep = false; /* the stream file outlives a failed recording */
    if (run)
        open_live_view(argc, argv, &o);
    int rc = boot_prepare(run, &o, kernel, sizeof kernel, &cmdline, &qa);
    if (run && !o.record)
        o.record = "runq.db"; /* a live run always records */
    if (rc == 0 && o.control && (!o.record || !o.deterministic)) {
        fprintf(stderr, "runq boot: --control needs --deterministic and --record (a live run takes lines on its "
                        "control socket)\n");
        rc = 2;
    }
    if (rc == 0 && o.record) {
        if (!mkdtemp(tmpdir)) {
            fprintf(stderr, "runq %s: cannot make a temporary directory: %s\n", run ? "run" : "boot",
                    strerror(errno));
            rc = 1;
        } else {
            /* A deterministic run writes the port to a file, recorded once
             * QEMU is done; a live one streams through a socket to a
             * recorder running beside it. */
            bool live = run || !o.deterministic;
            char base[sizeof tmpdir + sizeof "/trace.sock"];
            enum boot_port kind = live ? BOOT_PORT_SOCKET : o.control ? BOOT_PORT_PIPE : BOOT_PORT_FILE;
            snprintf(base, sizeof base, "%s/%s", tmpdir, live ? "trace.sock" : o.control ? "trace" : "trace.bin");
            /* the pipe chardev writes BASE.out, a file made here, and reads BASE.in */
            snprintf(port, sizeof port, "%s%s", base, o.control ? ".out" : "");
            if (o.control) {
                snprintf(fifo, sizeof fifo, "%s.in", base);
                int made = open(port, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                if (made >= 0)
                    close(made);
                if (made < 0 || (control = control_fifo(fifo, o.control)) < 0)
                    rc = 1;
            }
            int added = rc == 0 ? boot_argv_trace_port(&qa, kind, base) : 0;
            BUG_ON(added < 0); /* base is a short path in /tmp, and the argv has room (boot.h) */
            if (rc == 0 && live) {
                recorder = start_recorder(port, o.record, !run);
                if (recorder < 0) {
                    fprintf(stderr, "runq %s: cannot start the recorder\n", run ? "run" : "boot");
                    rc = 1;
                }
            }
        }
    }
    if (rc == 0 && run && !o.deterministic)
        say_live_mode();
    if (rc == 0) {
        rc = run ? boot_run_interactive(&qa, &res) : boot_run(&qa, o.timeout_s, NULL, NULL, &res);
        if (rc != 0)
            fprintf(stderr, "runq %s: %s\n", run ? "run" : "boot", res.reason);
        if (control >= 0)
            close(control);
        control = -1;
        if (recorder > 0) {
            int st;
            waitpid(recorder, &st, 0); /* it stops at the end of the stream */
            /* A recorder that exits with a failure has said why; one that
             * was killed could not, so this says it (it exited 1 with no
             * reason). */
            if (WIFSIGNALED(st))
                fprintf(stderr, "runq %s: the recorder was killed by signal %d; its trace in %s is incomplete "
                        "(runq report loss --db %s)\n", run ? "run" : "boot", WTERMSIG(st), o.record, o.record);
            /* A batch run that was asked to record fails without its
             * record; an interactive one keeps QEMU's verdict. */
            if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && !run)
                rc = rc ? rc : 1;
        } else if (o.record && port[0]) {
            /* Even a failed run's trace is worth keeping: it is marked
             * incomplete if the stream did not end cleanly. */
            bool stored;
            if (record_file(port, o.record, &stored) != 0)
                rc = rc ? rc : 1;
            keep = !stored;
        }
    }
    if (keep) {
        /* The recording failed (a full disk, say): the stream is all
         * there is of this run, so it stays. */
        fprintf(stderr, "runq %s: the trace stream is kept in %s; record it with: runq record --file %s --db FILE.db\n",
                run ? "run" : "boot", port, port);
    } else if (port[0]) {
        if (fifo[0])
            unlink(fifo);
        /* A recorder that was killed left its control socket too. */
        char ctl[PATH_MAX + sizeof TRACE_CTL_SOCKET_SUFFIX];
        snprintf(ctl, sizeof ctl, "%s" TRACE_CTL_SOCKET_SUFFIX, port);
        unlink(ctl);
        unlink(port);
        rmdir(tmpdir);
    }
    if (control >= 0)
        close(control);
    free(cmdline);
    return rc;
}
