#include "apic.h"
#include "clock.h"
#include "cpu.h"
#include "trap.h"

#define LAPIC_ID 0x20
#define LAPIC_TPR 0x80
#define LAPIC_EOI 0xb0
#define LAPIC_SVR 0xf0
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR 0x390
#define LAPIC_TIMER_DIV 0x3e0

static u64 lapic_base;
static u64 timer_khz; /* timer counts per millisecond */

static inline void lw(u32 reg, u32 v) { mmio_write32(lapic_base + reg, v); }
static inline u32 lr(u32 reg) { return mmio_read32(lapic_base + reg); }

void lapic_init(u64 base)
{
    lapic_base = base;
    /* Mask the legacy PICs: every interrupt we use comes from the LAPIC. */
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
    lapic_enable_this_cpu();
}

void lapic_enable_this_cpu(void)
{
    lw(LAPIC_TPR, 0);
    lw(LAPIC_SVR, 0x100 | VEC_SPURIOUS);
    lw(LAPIC_TIMER_DIV, 0xb); /* divide by 1 */
    lw(LAPIC_LVT_TIMER, 1u << 16); /* masked until armed */
}

u32 lapic_id(void)
{
    return lr(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
    lw(LAPIC_EOI, 0);
}

void lapic_calibrate(void)
{
    lw(LAPIC_LVT_TIMER, (1u << 16) | VEC_TIMER);
    lw(LAPIC_TIMER_INIT, 0xffffffff);
    u64 h0 = hpet_now_ns();
    while (hpet_now_ns() - h0 < 10 * NSEC_PER_MSEC)
        cpu_relax();
    u32 left = lr(LAPIC_TIMER_CUR);
    u64 h1 = hpet_now_ns();
    lw(LAPIC_TIMER_INIT, 0);
    timer_khz = (u64)(0xffffffffu - left) * 1000000u / (h1 - h0);
    timer_khz = (timer_khz + 500) / 1000 * 1000;
}

void lapic_timer_oneshot(u64 ns)
{
    u64 count = ns * timer_khz / 1000000u;
    if (ns > 1000000000000ull || count > 0xffffffffu)
        count = 0xffffffffu;
    if (count == 0)
        count = 1;
    lw(LAPIC_LVT_TIMER, VEC_TIMER); /* one-shot, unmasked */
    lw(LAPIC_TIMER_INIT, (u32)count);
}

void lapic_timer_stop(void)
{
    lw(LAPIC_TIMER_INIT, 0);
}

static void icr_wait(void)
{
    while (lr(LAPIC_ICR_LO) & (1u << 12))
        cpu_relax();
}

static void icr_send(u32 apic_id, u32 lo)
{
    u64 flags = irq_save();
    icr_wait();
    lw(LAPIC_ICR_HI, apic_id << 24);
    lw(LAPIC_ICR_LO, lo);
    icr_wait();
    irq_restore(flags);
}

void lapic_send_ipi(u32 apic_id, u8 vector)
{
    icr_send(apic_id, (1u << 14) | vector);
}

void lapic_send_ipi_all_but_self(u8 vector)
{
    icr_send(0, (3u << 18) | (1u << 14) | vector);
}

void lapic_send_init(u32 apic_id)
{
    icr_send(apic_id, 0x4500);
}

void lapic_send_sipi(u32 apic_id, u32 page)
{
    icr_send(apic_id, 0x4600 | page);
}
