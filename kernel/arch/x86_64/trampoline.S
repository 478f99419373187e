/*
 * Application processor start-up. smp.c copies ap_tramp_start..ap_tramp_end
 * to AP_TRAMPOLINE_ADDR and sends INIT-SIPI-SIPI; the AP starts here in
 * real mode at CS:IP = 0x0800:0000. It climbs to protected mode, enables
 * PAE paging with the boot CPU's page tables, enters long mode, loads the
 * stack smp.c left in the data block and jumps to ap_main(cpu index).
 *
 * Everything is addressed relative to the copy: ADDR(x) is where label x
 * lives once copied.
 */
#include "layout.h"

#define ADDR(x) ((x) - ap_tramp_start + AP_TRAMPOLINE_ADDR)

    .section .rodata
    .code16
    .globl ap_tramp_start, ap_tramp_end
    .globl ap_tramp_cr3, ap_tramp_stack, ap_tramp_cpu
ap_tramp_start:
    cli
    cld
    xorw %ax, %ax
    movw %ax, %ds
    lgdtl ADDR(tramp_gdt_desc)
    movl %cr0, %eax
    orl $1, %eax
    movl %eax, %cr0
    ljmpl $0x18, $ADDR(tramp32)

    .code32
tramp32:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movl %cr4, %eax
    orl $0x20, %eax
    movl %eax, %cr4
    movl ADDR(ap_tramp_cr3), %eax
    movl %eax, %cr3
    movl $0xc0000080, %ecx
    rdmsr
    orl $0x100, %eax
    wrmsr
    movl %cr0, %eax
    orl $0x80000001, %eax
    movl %eax, %cr0
    ljmp $0x08, $ADDR(tramp64)

    .code64
tramp64:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movq ADDR(ap_tramp_stack), %rsp
    xorq %rbp, %rbp
    movl ADDR(ap_tramp_cpu), %edi
    movabsq $ap_main, %rax
    call *%rax
1:  cli
    hlt
    jmp 1b

    .balign 16
tramp_gdt:
    .quad 0
    .quad 0x00af9a000000ffff    /* 0x08: 64-bit code */
    .quad 0x00cf92000000ffff    /* 0x10: data */
    .quad 0x00cf9a000000ffff    /* 0x18: 32-bit code */
tramp_gdt_end:
tramp_gdt_desc:
    .word tramp_gdt_end - tramp_gdt - 1
    .long ADDR(tramp_gdt)
    .balign 8
ap_tramp_cr3:   .quad 0
ap_tramp_stack: .quad 0
ap_tramp_cpu:   .quad 0
ap_tramp_end:
    .section .note.GNU-stack,"",@progbits
