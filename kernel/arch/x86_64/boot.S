/*
 * PVH entry. QEMU's -kernel finds pvh_start32 through the Xen ELF note
 * below and jumps to it in 32-bit protected mode, paging off, with EBX
 * pointing at struct hvm_start_info. We build identity-mapped page tables
 * for the first 4 GiB (2 MiB pages: the kernel, its heap and the LAPIC,
 * IOAPIC and HPET registers all live there), enter long mode and call
 * kmain(start_info) on the boot stack.
 */
#include "layout.h"

    .section .note.Xen, "a"
    .balign 4
    .long 4                 /* name size: "Xen\0" */
    .long 4                 /* descriptor size */
    .long 18                /* XEN_ELFNOTE_PHYS32_ENTRY */
    .asciz "Xen"
    .balign 4
    .long pvh_start32
    .balign 4

    .section .boot32, "ax"
    .code32
    .globl pvh_start32
pvh_start32:
    cli
    cld
    movl %ebx, boot_start_info

    /* PML4[0] -> PDPT; PDPT[0..3] -> PD[0..3]; PD entries: 2 MiB pages. */
    movl $boot_pdpt, %eax
    orl $3, %eax
    movl %eax, boot_pml4
    movl $0, %ecx
1:  movl %ecx, %eax
    shll $12, %eax
    addl $boot_pd, %eax
    orl $3, %eax
    movl %eax, boot_pdpt(, %ecx, 8)
    incl %ecx
    cmpl $4, %ecx
    jne 1b
    movl $0, %ecx
2:  movl %ecx, %eax
    shll $21, %eax
    orl $0x83, %eax         /* present, writable, 2 MiB page */
    movl %eax, boot_pd(, %ecx, 8)
    movl $0, boot_pd + 4(, %ecx, 8)
    incl %ecx
    cmpl $2048, %ecx
    jne 2b

    movl %cr4, %eax
    orl $0x20, %eax         /* PAE */
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $0xc0000080, %ecx  /* EFER */
    rdmsr
    orl $0x100, %eax        /* LME */
    wrmsr
    movl %cr0, %eax
    orl $0x80000001, %eax   /* PG | PE */
    movl %eax, %cr0
    lgdt boot_gdt_desc
    ljmp $0x08, $long_mode_entry

    .code64
long_mode_entry:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    xorw %ax, %ax
    movw %ax, %fs
    movw %ax, %gs
    movq $boot_stack_top, %rsp
    xorq %rbp, %rbp
    movl boot_start_info, %edi
    call kmain
3:  cli
    hlt
    jmp 3b

    .section .rodata
    .balign 16
    .globl boot_gdt
boot_gdt:
    .quad 0
    .quad 0x00af9a000000ffff    /* 0x08: 64-bit code */
    .quad 0x00cf92000000ffff    /* 0x10: data */
boot_gdt_end:
    .globl boot_gdt_desc
boot_gdt_desc:
    .word boot_gdt_end - boot_gdt - 1
    .quad boot_gdt

    .section .data
    .globl boot_start_info
boot_start_info:
    .long 0

    .section .bss
    .balign 4096
    .globl boot_pml4
boot_pml4:  .skip 4096
boot_pdpt:  .skip 4096
boot_pd:    .skip 4096 * 4
    .balign 16
boot_stack: .skip BOOT_STACK_SIZE
    .globl boot_stack_top
boot_stack_top:
    .section .note.GNU-stack,"",@progbits
