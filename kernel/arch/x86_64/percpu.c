#include "percpu.h"
#include "cpu.h"

struct cpu cpus[MAX_CPUS];
unsigned ncpus = 1;
static bool gs_ready;

void percpu_install(unsigned i)
{
    cpus[i].self = &cpus[i];
    cpus[i].id = i;
    wrmsr(0xc0000101, (u64)&cpus[i]); /* GS base */
    gs_ready = true;
}

int cpu_id_or_boot(void)
{
    return gs_ready ? (int)this_cpu()->id : 0;
}
