/*
 * Interrupt and exception entry. Every vector has a stub that pushes a
 * dummy error code where the CPU pushes none, then the vector number, and
 * jumps to the common path, which saves the general registers as a
 * struct trap_frame (trap.h) and calls trap_dispatch(frame).
 */
    .altmacro
    .text
    .macro STUB vec, has_err
    .globl trap_stub_\vec
trap_stub_\vec:
    .if \has_err == 0
    pushq $0
    .endif
    pushq $\vec
    jmp trap_common
    .endm

    .irp v, 0,1,2,3,4,5,6,7,9,15,16,18,19,20,22,23,24,25,26,27,28,31
    STUB \v, 0
    .endr
    .irp v, 8,10,11,12,13,14,17,21,29,30
    STUB \v, 1
    .endr
    .set v, 32
    .rept 224
    STUB %v, 0
    .set v, v + 1
    .endr

trap_common:
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, %rdi
    cld
    call trap_dispatch
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
    addq $16, %rsp
    iretq

    /* Table of stub addresses, indexed by vector, for idt_init. */
    .section .rodata
    .balign 8
    .globl trap_stubs
trap_stubs:
    .macro STUBADDR vec
    .quad trap_stub_\vec
    .endm
    .set v, 0
    .rept 256
    STUBADDR %v
    .set v, v + 1
    .endr

/*
 * void switch_stack(u64 *save_rsp, u64 new_rsp)
 * Saves the callee-saved registers on the current stack, stores the stack
 * pointer in *save_rsp, loads new_rsp and restores the registers saved
 * there. A new task's stack is prepared by task.c to look like one saved
 * here, returning into task_start.
 */
    .text
    .globl switch_stack
switch_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .section .note.GNU-stack,"",@progbits
