#include "gdt.h"
#include "layout.h"
#include "../../lib/string.h"

struct tss {
    u32 reserved0;
    u64 rsp[3];
    u64 reserved1;
    u64 ist[7];
    u64 reserved2;
    u16 reserved3;
    u16 iomap_base;
} __attribute__((packed));

/* null, code, data, then a 16-byte TSS descriptor per CPU */
static u64 gdt[3 + 2 * MAX_CPUS] __attribute__((aligned(16)));
static struct tss tss[MAX_CPUS];
static u8 ist_stacks[MAX_CPUS][IST_STACK_SIZE] __attribute__((aligned(16)));

void gdt_load(unsigned cpu)
{
    gdt[1] = 0x00af9a000000ffffull;
    gdt[2] = 0x00cf92000000ffffull;

    struct tss *t = &tss[cpu];
    memset(t, 0, sizeof *t);
    t->ist[0] = (u64)&ist_stacks[cpu][IST_STACK_SIZE];
    t->iomap_base = sizeof *t;

    u64 base = (u64)t, limit = sizeof *t - 1;
    u64 *d = &gdt[3 + 2 * cpu];
    d[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
           (((base >> 24) & 0xff) << 56);
    d[1] = base >> 32;

    struct {
        u16 limit;
        u64 base;
    } __attribute__((packed)) desc = { sizeof gdt - 1, (u64)gdt };
    __asm__ volatile("lgdt %0" ::"m"(desc));
    __asm__ volatile("pushq $0x08; leaq 1f(%%rip), %%rax; pushq %%rax; lretq; 1:" ::: "rax", "memory");
    __asm__ volatile("movw %w0, %%ds; movw %w0, %%es; movw %w0, %%ss" ::"r"(GDT_KERNEL_DATA));
    u16 sel = (u16)((3 + 2 * cpu) * 8);
    __asm__ volatile("ltr %0" ::"r"(sel));
}
