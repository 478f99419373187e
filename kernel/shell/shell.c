#include "shell.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../sched/cpus.h"
#include "../drivers/uart.h"
#include "../lib/bug.h"
#include "../lib/panic.h"
#include "../lib/printf.h"
#include "../lib/string.h"
#include "../sched/sched.h"
#include "../sched/scn.h"
#include "../tests/selftest.h"
#include "../trace/trace.h"
#include "../trace/tracer.h"

#define LINE_MAX 256
#define POLL_NS (10 * NSEC_PER_MSEC)

static char boot_script[2048];
static bool boot_tests_ok;
bool shell_failed;

static bool cmd_help(int argc, char **argv);

static bool cmd_poweroff(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        kprintf("usage: poweroff\n");
        return false;
    }
    bool ok = boot_tests_ok && !shell_failed;
    trace_shutdown(); /* the host gets every record and the END */
    kprintf("poweroff: %s\n", ok ? "ok" : "with failures");
    qemu_exit(ok ? EXIT_SUCCESS_CODE : EXIT_TEST_FAILED);
}

struct ps_ctx {
    int n;
};

static void ps_line(struct task *t, void *arg)
{
    struct ps_ctx *ctx = arg;
    if (t->state == RUN_DEAD)
        return;
    u64 rt = t->runtime_ns; /* approximate for a running task: last charge */
    /* The wake protocol's RunState calls a task on a queue "queued" even
     * while it runs, and an idle task that is not running the same: ps
     * says which task each CPU is running, and that an idle task waits
     * for its CPU to go idle. (A read without the queue's lock: ps is a
     * glance, as RUNTIME_MS is.) */
    const struct rq *rq = &cpus[t->cpu].rq;
    const char *state = rq->curr == t ? "running" : rq->idle == t ? "idle" : run_state_name(t->state);
    kprintf("%4d %-15s %3u %-8s %4d %8lu.%03lu\n", t->id, t->name, t->cpu, state, t->se.nice, rt / NSEC_PER_MSEC,
            rt / 1000 % 1000);
    ctx->n++;
}

static bool cmd_ps(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_ctx ctx = { 0 };
    kprintf("  ID NAME            CPU STATE    NICE  RUNTIME_MS\n");
    tasks_for_each(ps_line, &ctx);
    return true;
}

static bool cmd_echo(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
    kprintf("\n");
    return true;
}

static bool cmd_test(int argc, char **argv)
{
    if (argc != 2) {
        kprintf("usage: test all|NAME\n");
        selftest_list();
        return false;
    }
    return selftest_run(argv[1]);
}

static bool cmd_sched(int argc, char **argv)
{
    return sched_cmd(argc, argv);
}

/* Exercises the panic path on purpose, so tests can check what a crash
 * prints and how runq boot reports it. */
static bool cmd_crash(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "fault") == 0) {
        volatile u64 *bad = (volatile u64 *)0x7ff0000000ull; /* beyond the 4 GiB identity map */
        return *bad == 0;
    }
    if (argc == 2 && strcmp(argv[1], "bug") == 0) {
        BUG_ON(argc == 2);
        return false;
    }
    kprintf("usage: crash fault|bug\n");
    return false;
}

struct spin_args {
    u64 until;
};

static void spin_main(void *arg)
{
    struct spin_args *a = arg;
    while (clock_ns() < a->until) {
        for (int i = 0; i < 256; i++) /* pause now and then: see sched/probe.c */
            __asm__ volatile("");
        cpu_relax();
    }
}

/* A named spinner that runs in the background for MS ms (workloads for the
 * live view and the labs). */
static bool cmd_spin(int argc, char **argv)
{
    static struct spin_args args[64];
    static unsigned next;
    long ms, cpu = -1, nice = 0;
    if (argc < 3 || argc > 5 || !parse_long(argv[2], &ms) || ms < 1 || ms > 3600000 ||
        (argc >= 4 && (!parse_long(argv[3], &cpu) || cpu < 0 || cpu >= (long)ncpus)) ||
        (argc == 5 && (!parse_long(argv[4], &nice) || nice < -20 || nice > 19))) {
        kprintf("usage: spin NAME MS [CPU [NICE]]  (MS 1..3600000, CPU 0..%u, NICE -20..19)\n", ncpus - 1);
        return false;
    }
    struct spin_args *a = &args[next++ % 64];
    a->until = clock_ns() + (u64)ms * NSEC_PER_MSEC;
    struct task *t = task_create(argv[1], spin_main, a, (int)cpu, (int)nice);
    kprintf("spin id=%d name=%s ms=%ld cpu=%u\n", t->id, t->name, ms, t->cpu);
    return true;
}

/* By default a little work per wakeup so every stint has a run time,
 * short enough that the sleep sets the period and the record rate follows
 * TASKS / PERIOD_US. A longer RUN_US makes tasks that block owing service
 * beside a spinner: EEVDF's delayed dequeue. */
#define CHURN_SPIN_NS (2 * NSEC_PER_USEC)

struct churn_args {
    u64 until, period_ns, run_ns;
};

static void churn_main(void *arg)
{
    const struct churn_args *a = arg;
    /* Copied at once: a later churn may reuse the slot while we run. */
    u64 until = a->until, period_ns = a->period_ns, run_ns = a->run_ns;
    while (clock_ns() < until) {
        task_sleep_ns(period_ns);
        u64 end = clock_ns() + run_ns;
        while (clock_ns() < end)
            cpu_relax(); /* pause: see sched/probe.c */
    }
}

/* Background tasks that sleep and wake at a fixed period: each cycle is a
 * timer wakeup, a placement, a pick, a leave and the next pick, about five
 * trace records, so the trace rate is set from the shell (the end-to-end
 * trace bench, tests/trace/bench_trace_e2e.sh). */
static bool cmd_churn(int argc, char **argv)
{
    static struct churn_args args[16]; /* the tasks outlive the command */
    static unsigned next;
    long tasks, period_us, ms, cpu = -1, run_us = -1;
    if (argc < 4 || argc > 6 || !parse_long(argv[1], &tasks) || tasks < 1 || tasks > 64 ||
        !parse_long(argv[2], &period_us) || period_us < 1 || period_us > 1000000 || !parse_long(argv[3], &ms) ||
        ms < 1 || ms > 3600000 || (argc >= 5 && (!parse_long(argv[4], &cpu) || cpu < 0 || cpu >= (long)ncpus)) ||
        (argc == 6 && (!parse_long(argv[5], &run_us) || run_us < 1 || run_us > 1000000))) {
        kprintf("usage: churn TASKS PERIOD_US MS [CPU [RUN_US]]  (TASKS 1..64, PERIOD_US 1..1000000, "
                "MS 1..3600000, CPU 0..%u, RUN_US 1..1000000, default 2)\n",
                ncpus - 1);
        return false;
    }
    struct churn_args *a = &args[next++ % 16];
    a->until = clock_ns() + (u64)ms * NSEC_PER_MSEC;
    a->period_ns = (u64)period_us * NSEC_PER_USEC;
    a->run_ns = run_us > 0 ? (u64)run_us * NSEC_PER_USEC : CHURN_SPIN_NS;
    for (long i = 0; i < tasks; i++) {
        char name[TASK_NAME_LEN];
        snprintf(name, sizeof name, "churn/%ld", i);
        task_create(name, churn_main, a, (int)cpu, 0);
    }
    if (cpu < 0)
        kprintf("churn tasks=%ld period_us=%ld ms=%ld\n", tasks, period_us, ms);
    else
        kprintf("churn tasks=%ld period_us=%ld ms=%ld cpu=%ld\n", tasks, period_us, ms, cpu);
    return true;
}

static bool cmd_scn(int argc, char **argv)
{
    return scn_line(argc, argv);
}

static bool cmd_sleep(int argc, char **argv)
{
    long ms;
    if (argc != 2 || !parse_long(argv[1], &ms) || ms < 0 || ms > 3600000) {
        kprintf("usage: sleep MS\n");
        return false;
    }
    task_sleep_ns((u64)ms * NSEC_PER_MSEC);
    return true;
}

static bool cmd_mark(int argc, char **argv)
{
    if (argc < 2) {
        kprintf("usage: mark NAME\n");
        return false;
    }
    char name[TRACE_MARK_NAME_MAX + 1];
    struct strbuf b;
    strbuf_init(&b, name, sizeof name);
    for (int i = 1; i < argc; i++)
        strbuf_printf(&b, "%s%s", i > 1 ? " " : "", argv[i]);
    if (b.cut) {
        kprintf("mark: NAME is longer than %d bytes\n", TRACE_MARK_NAME_MAX);
        return false;
    }
    trace_mark(TRACE_MARK_SHELL, name);
    kprintf("mark %s\n", name);
    return true;
}

static const struct shell_cmd commands[] = {
    { "help", "help", "list the commands", cmd_help },
    { "ps", "ps", "tasks: id, name, cpu, state, nice, runtime", cmd_ps },
    { "sched", "sched ...", "scheduler counters, probes and settings (sched help)", cmd_sched },
    { "vser", "vser ...", "virtio-serial trace port: status, send N, echo TEXT, recv [MS]", vser_cmd },
    { "test", "test all|NAME", "run boot self-tests now", cmd_test },
    { "trace", "trace [on|off|mask T...]", "trace port status; switch tracing or choose record types", trace_cmd },
    { "mark", "mark NAME", "put a named phase marker (at most 64 bytes) in the trace", cmd_mark },
    { "spin", "spin NAME MS [CPU [NICE]]", "start a named spinner for MS ms in the background", cmd_spin },
    { "churn", "churn TASKS PERIOD_US MS [CPU [RUN_US]]", "tasks sleeping PERIOD_US us, running RUN_US, for MS ms",
      cmd_churn },
    { "scn", "scn reset|task|step|start ...", "run a scenario the host wrote (runq experiment, docs/scenarios.md)",
      cmd_scn },
    { "sleep", "sleep MS", "the shell sleeps (lets background tasks run)", cmd_sleep },
    { "echo", "echo WORDS", "print the words (marks a point in the console log)", cmd_echo },
    { "crash", "crash fault|bug", "panic on purpose: a page fault or a failed BUG_ON (for tests)", cmd_crash },
    { "poweroff", "poweroff", "power off (QEMU exits; failure status if a test failed)", cmd_poweroff },
};

static bool cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        kprintf("  %-16s %s\n", commands[i].usage, commands[i].help);
    sched_cmd_help();
    return true;
}

bool shell_exec(char *line)
{
    char *argv[SHELL_MAX_WORDS];
    int argc = split_words(line, argv, SHELL_MAX_WORDS);
    if (!argc)
        return true;
    if (argc > SHELL_MAX_WORDS) {
        kprintf("%s: more than %d words\n", argv[0], SHELL_MAX_WORDS);
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        if (strcmp(argv[0], commands[i].name) == 0)
            return commands[i].run(argc, argv);
    kprintf("%s: unknown command (try help)\n", argv[0]);
    return false;
}

static void run_line(char *line)
{
    if (!shell_exec(line))
        shell_failed = true;
}

/* A line typed at the console. A command that does not exist there is a
 * typo: answered and forgotten, so the run's exit status says how the
 * kernel ended, not what was mistyped (a newcomer's `clear` made
 * `make run` exit 2 after poweroff). A script's line (--cmd, the boot
 * command line) is a test's: a command it names that does not exist
 * fails the run, as before (run_line). */
static void run_typed_line(char *line)
{
    char copy[LINE_MAX];
    strncpy_z(copy, line, sizeof copy);
    char *argv[SHELL_MAX_WORDS];
    int argc = split_words(copy, argv, SHELL_MAX_WORDS);
    if (argc > 0 && argc <= SHELL_MAX_WORDS) {
        size_t i = 0;
        while (i < ARRAY_SIZE(commands) && strcmp(argv[0], commands[i].name) != 0)
            i++;
        if (i == ARRAY_SIZE(commands)) {
            kprintf("unknown command: %s (help lists them)\n", argv[0]);
            return;
        }
    }
    run_line(line);
}

static void read_line(char *buf, size_t size)
{
    size_t n = 0;
    for (;;) {
        int c = uart_getc();
        if (c < 0) {
            task_sleep_ns(POLL_NS);
            continue;
        }
        if (c == '\r' || c == '\n') {
            kprintf("\n");
            buf[n] = 0;
            return;
        }
        if ((c == 0x7f || c == 8) && n) {
            n--;
            kprintf("\b \b");
        } else if (c >= 32 && c < 127 && n + 1 < size) {
            buf[n++] = (char)c;
            kprintf("%c", c);
        }
    }
}

bool shell_exec_host(char *line)
{
    /* A command from the host (runq top's actions, through the trace
     * port) printed its answer after "runq> " and left the user without a
     * prompt: the answer gets a line of its own and a prompt follows it.
     * (What was being typed stays in the line, unshown: knowing it would
     * take a change in read_line, which every deterministic run executes,
     * moving every documented number; host lines reach none of them.) */
    kprintf("\n");
    bool ok = shell_exec(line);
    kprintf("runq> ");
    return ok;
}

static void shell_main(void *arg)
{
    (void)arg;
    char *s = boot_script;
    while (*s) {
        char *end = s;
        while (*end && *end != ';')
            end++;
        char saved = *end;
        *end = 0;
        while (*s == ' ')
            s++;
        if (*s) {
            kprintf("runq> %s\n", s);
            char line[LINE_MAX];
            strncpy_z(line, s, sizeof line);
            run_line(line);
        }
        if (!saved)
            break;
        s = end + 1;
    }
    for (;;) {
        char line[LINE_MAX];
        kprintf("runq> ");
        read_line(line, sizeof line);
        run_typed_line(line);
    }
}

void shell_start(const char *script, bool tests_ok)
{
    strncpy_z(boot_script, script, sizeof boot_script);
    boot_tests_ok = tests_ok;
    task_create("shell", shell_main, NULL, 0, 0);
}
