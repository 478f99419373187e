#include "acpi.h"
#include "../../lib/printf.h"
#include "../../lib/string.h"

struct sdt_header {
    char sig[4];
    u32 length;
    u8 revision, checksum;
    char oem[6], oem_table[8];
    u32 oem_rev, creator, creator_rev;
} __attribute__((packed));

static bool checksum_ok(const void *p, u32 len)
{
    u8 sum = 0;
    for (u32 i = 0; i < len; i++)
        sum += ((const u8 *)p)[i];
    return sum == 0;
}

static void parse_madt(const struct sdt_header *h, struct acpi_info *out)
{
    const u8 *p = (const u8 *)h;
    out->lapic_base = *(const u32 *)(p + 36);
    for (u32 off = 44; off + 2 <= h->length;) {
        u8 type = p[off], len = p[off + 1];
        if (len < 2)
            break;
        if (type == 0 && len >= 8) { /* processor local APIC */
            u32 flags = *(const u32 *)(p + off + 4);
            if ((flags & 1) && out->ncpus < MAX_CPUS)
                out->apic_ids[out->ncpus++] = p[off + 3];
        } else if (type == 5 && len >= 12) { /* 64-bit LAPIC address override */
            out->lapic_base = *(const u64 *)(p + off + 4);
        }
        off += len;
    }
}

bool acpi_parse(u64 rsdp_paddr, struct acpi_info *out)
{
    memset(out, 0, sizeof *out);
    const u8 *rsdp = (const u8 *)rsdp_paddr;
    if (!rsdp || memcmp(rsdp, "RSD PTR ", 8) != 0) {
        kprintf("acpi: no RSDP at %p\n", (void *)rsdp_paddr);
        return false;
    }
    u8 rev = rsdp[15];
    u64 root = rev >= 2 ? *(const u64 *)(rsdp + 24) : *(const u32 *)(rsdp + 16);
    unsigned entry_size = rev >= 2 ? 8 : 4;
    const struct sdt_header *rh = (const struct sdt_header *)root;
    if (!checksum_ok(rh, rh->length)) {
        kprintf("acpi: bad root table checksum\n");
        return false;
    }
    u32 n = (rh->length - sizeof *rh) / entry_size;
    const u8 *entries = (const u8 *)(rh + 1);
    for (u32 i = 0; i < n; i++) {
        u64 a = entry_size == 8 ? *(const u64 *)(entries + 8 * i) : *(const u32 *)(entries + 4 * i);
        const struct sdt_header *h = (const struct sdt_header *)a;
        if (!checksum_ok(h, h->length))
            continue;
        if (memcmp(h->sig, "APIC", 4) == 0)
            parse_madt(h, out);
        else if (memcmp(h->sig, "HPET", 4) == 0)
            out->hpet_base = *(const u64 *)((const u8 *)h + 44);
    }
    if (!out->ncpus) {
        kprintf("acpi: MADT lists no enabled CPU\n");
        return false;
    }
    return true;
}
