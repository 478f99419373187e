/*
 * Panics. A panic stops the other CPUs (VEC_HALT), prints on the console
 * without waiting for its lock (the panicking CPU may hold it), and makes
 * QEMU exit with EXIT_PANIC so `runq boot` reports it.
 */
#ifndef RUNQ_PANIC_H
#define RUNQ_PANIC_H
#include "types.h"

/* isa-debug-exit codes: QEMU exits with (code << 1) | 1. */
enum {
    EXIT_SUCCESS_CODE = 0x10,  /* QEMU status 33 */
    EXIT_TEST_FAILED = 0x11,   /* 35 */
    EXIT_PANIC = 0x12,         /* 37 */
};

__attribute__((noreturn)) void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The two halves, for callers that print their own details in between. */
void panic_begin(void);
__attribute__((noreturn)) void panic_end(void);
__attribute__((noreturn)) void qemu_exit(u32 code);
/* Prints "bt:" and the return addresses found along the frame-pointer chain
 * starting at rbp (a panic's, or an exception's frame from trap.c). */
void backtrace_from(u64 rbp);

#endif
