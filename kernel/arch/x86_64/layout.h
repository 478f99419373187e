/* Addresses and sizes shared by assembly and C. */
#ifndef RUNQ_LAYOUT_H
#define RUNQ_LAYOUT_H

#define BOOT_STACK_SIZE 16384
#define TASK_STACK_SIZE 16384
#define IST_STACK_SIZE 8192

/* The AP trampoline is copied here: real-mode code must sit below 1 MiB
 * at a 4 KiB boundary (the SIPI vector is its page number). */
#define AP_TRAMPOLINE_ADDR 0x8000

#define MAX_CPUS 64

#endif
