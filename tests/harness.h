/*
 * The harness of the host unit tests (the C programs in tests/): one way
 * to name a test, check a condition, skip, select and report, so that no
 * test can pass by accident.
 *
 *   static void inverse_weights(void) { CHECK(w == 1024, "w %u", w); }
 *   static const struct harness_test tests[] = { HARNESS_TEST(inverse_weights), ... };
 *   HARNESS_MAIN(tests)
 *
 * Contract:
 *   - `prog` runs every test; `prog NAME...` only those named, and exits 2
 *     (a usage error, with the list of names) if a name is not a test, so
 *     a misspelled name cannot look like a pass or a caught bug;
 *     `prog --list` prints the names.
 *   - Each test prints exactly one line: "PASS name", "FAIL name: why", or
 *     "SKIP name: why" (harness_skip: it could not run here).
 *   - CHECK(cond, fmt, ...) fails the test and returns from it when cond is
 *     false. A test that returns without having checked anything fails
 *     ("no check ran"): an empty or short-circuited test cannot pass.
 *   - The exit status is 1 if any test failed, else 0.
 */
#ifndef RUNQ_TESTS_HARNESS_H
#define RUNQ_TESTS_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct harness_test {
    const char *name;
    void (*fn)(void);
};

#define HARNESS_TEST(fn) { #fn, fn }
#define HARNESS_COUNT(tests) (sizeof(tests) / sizeof((tests)[0]))

/* The running test's state: read by the macros, reset per test. */
static struct {
    const char *name;
    unsigned checks;
    int failed, skipped;
    char detail[256]; /* shown after PASS */
} harness;

/* Ends the running test as FAIL or SKIP, with a reason: the first such
 * ending counts, later ones are ignored. */
static inline void harness_end(const char *tag, int *flag, const char *fmt, va_list ap)
{
    if (harness.failed || harness.skipped)
        return;
    *flag = 1;
    printf("%s %s: ", tag, harness.name);
    vprintf(fmt, ap);
    printf("\n");
}

/* Marks the running test failed with a reason (the first reason wins). */
static inline __attribute__((format(printf, 1, 2))) void harness_fail(const char *fmt, ...)
{
    va_list ap;

    harness.checks++;
    va_start(ap, fmt);
    harness_end("FAIL", &harness.failed, fmt, ap);
    va_end(ap);
}

/* The running test cannot run here (a missing tool, the wrong machine):
 * it reports SKIP with the reason, never PASS. */
static inline __attribute__((format(printf, 1, 2))) void harness_skip(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    harness_end("SKIP", &harness.skipped, fmt, ap);
    va_end(ap);
}

/* Text shown after "PASS name" if the test passes (what it measured). */
static inline __attribute__((format(printf, 1, 2))) void harness_detail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(harness.detail, sizeof harness.detail, fmt, ap);
    va_end(ap);
}

/* The name of the running test. */
static inline const char *harness_name(void)
{
    return harness.name;
}

/* Does fn() die (abort, as BUG_ON does) in a child process? Its stderr
 * is thrown away: the BUG message is the expected outcome. */
static inline int harness_dies(void (*fn)(void))
{
    pid_t pid;
    int status;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(0);
        fn();
        _exit(0);
    }
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status);
}

#define CHECK(cond, ...)              \
    do {                              \
        harness.checks++;             \
        if (!(cond)) {                \
            harness_fail(__VA_ARGS__); \
            return;                   \
        }                             \
    } while (0)

static inline int harness_main(int argc, char **argv, const struct harness_test *tests, size_t n)
{
    int any_failed = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        size_t i = 0;

        while (i < n && strcmp(argv[a], tests[i].name))
            i++;
        if (i == n) {
            fprintf(stderr, "%s: no test named '%s'; the tests are:\n", argv[0], argv[a]);
            for (i = 0; i < n; i++)
                fprintf(stderr, "  %s\n", tests[i].name);
            return 2;
        }
    }
    for (size_t i = 0; i < n; i++) {
        int want = argc < 2;

        for (int a = 1; a < argc; a++)
            want |= !strcmp(argv[a], tests[i].name);
        if (!want)
            continue;
        harness.name = tests[i].name;
        harness.checks = 0;
        harness.failed = harness.skipped = 0;
        harness.detail[0] = '\0';
        tests[i].fn();
        if (!harness.failed && !harness.skipped && harness.checks == 0)
            harness_fail("no check ran");
        if (!harness.failed && !harness.skipped)
            printf("PASS %s%s%s%s\n", harness.name, harness.detail[0] ? " (" : "", harness.detail,
                   harness.detail[0] ? ")" : "");
        any_failed |= harness.failed;
    }
    return any_failed;
}

/* main() of a test program with nothing to do around its tests. */
#define HARNESS_MAIN(tests)                                              \
    int main(int argc, char **argv)                                      \
    {                                                                    \
        return harness_main(argc, argv, tests, HARNESS_COUNT(tests));    \
    }

#endif
