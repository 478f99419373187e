#include "percpu.h"
#include "cpu.h"

unsigned ncpus = 1;
u32 cpu_apic_id[MAX_CPUS];
static bool online[MAX_CPUS];
static u8 *areas;
static size_t area_stride;
static bool gs_ready;

void percpu_init(void *base, size_t stride)
{
    areas = base;
    area_stride = stride;
}

void percpu_install(unsigned i)
{
    struct percpu_head *h = (struct percpu_head *)(areas + i * area_stride);
    h->self = h;
    h->id = i;
    wrmsr(0xc0000101, (u64)h); /* GS base */
    gs_ready = true;
}

int cpu_id_or_boot(void)
{
    return gs_ready ? (int)((struct percpu_head *)percpu_area())->id : 0;
}

void cpu_set_online(unsigned i)
{
    __atomic_store_n(&online[i], true, __ATOMIC_RELEASE);
}

bool cpu_online(unsigned i)
{
    return __atomic_load_n(&online[i], __ATOMIC_ACQUIRE);
}
