#include "pci.h"
#include "../arch/x86_64/cpu.h"

#define PCI_ADDR 0xcf8
#define PCI_DATA 0xcfc

#define PCI_VENDOR 0x00
#define PCI_COMMAND 0x04
#define PCI_CLASS 0x08 /* revision, prog-if, subclass, class */
#define PCI_HEADER_TYPE 0x0e
#define PCI_BAR0 0x10
#define PCI_SECONDARY_BUS 0x19 /* header type 1 (bridges) */

#define CMD_IO (1u << 0)
#define CMD_MEMORY (1u << 1)
#define CMD_BUS_MASTER (1u << 2)

#define MAX_DEPTH 8 /* bridges behind bridges; a loop in a broken tree stops here */

static u32 cfg_addr(u8 bus, u8 slot, u8 func, u8 off)
{
    return (1u << 31) | ((u32)bus << 16) | ((u32)(slot & 31) << 11) | ((u32)(func & 7) << 8) | (off & 0xfc);
}

u32 pci_read32(u8 bus, u8 slot, u8 func, u8 off)
{
    outl(PCI_ADDR, cfg_addr(bus, slot, func, off));
    return inl(PCI_DATA);
}

u16 pci_read16(u8 bus, u8 slot, u8 func, u8 off)
{
    outl(PCI_ADDR, cfg_addr(bus, slot, func, off));
    return inw(PCI_DATA + (off & 2));
}

u8 pci_read8(u8 bus, u8 slot, u8 func, u8 off)
{
    outl(PCI_ADDR, cfg_addr(bus, slot, func, off));
    return inb(PCI_DATA + (off & 3));
}

void pci_write32(u8 bus, u8 slot, u8 func, u8 off, u32 v)
{
    outl(PCI_ADDR, cfg_addr(bus, slot, func, off));
    outl(PCI_DATA, v);
}

void pci_write16(u8 bus, u8 slot, u8 func, u8 off, u16 v)
{
    outl(PCI_ADDR, cfg_addr(bus, slot, func, off));
    outw(PCI_DATA + (off & 2), v);
}

struct walk {
    void (*fn)(const struct pci_dev *d, void *arg);
    void *arg;
    bool stop; /* set by fn through the find callback */
};

static void walk_bus(struct walk *w, u8 bus, int depth);

static void walk_func(struct walk *w, u8 bus, u8 slot, u8 func, int depth)
{
    u32 id = pci_read32(bus, slot, func, PCI_VENDOR);
    if ((id & 0xffff) == 0xffff)
        return;
    u32 class = pci_read32(bus, slot, func, PCI_CLASS);
    struct pci_dev d = {
        .bus = bus, .slot = slot, .func = func,
        .vendor = (u16)id, .device = (u16)(id >> 16),
        .class_code = (u8)(class >> 24), .subclass = (u8)(class >> 16),
    };
    w->fn(&d, w->arg);
    if (w->stop)
        return;
    /* A PCI-to-PCI bridge: its secondary bus holds more devices. */
    u8 htype = pci_read8(bus, slot, func, PCI_HEADER_TYPE) & 0x7f;
    if (htype == 1 && d.class_code == 0x06 && d.subclass == 0x04 && depth < MAX_DEPTH) {
        u8 secondary = pci_read8(bus, slot, func, PCI_SECONDARY_BUS);
        if (secondary > bus) /* 0 = not configured by the firmware; anything lower would loop */
            walk_bus(w, secondary, depth + 1);
    }
}

static void walk_bus(struct walk *w, u8 bus, int depth)
{
    for (u8 slot = 0; slot < 32 && !w->stop; slot++) {
        if ((pci_read32(bus, slot, 0, PCI_VENDOR) & 0xffff) == 0xffff)
            continue;
        bool multi = pci_read8(bus, slot, 0, PCI_HEADER_TYPE) & 0x80;
        for (u8 func = 0; func < (multi ? 8 : 1) && !w->stop; func++)
            walk_func(w, bus, slot, func, depth);
    }
}

void pci_for_each(void (*fn)(const struct pci_dev *d, void *arg), void *arg)
{
    struct walk w = { fn, arg, false };
    walk_bus(&w, 0, 0);
}

struct find {
    u16 vendor, device;
    struct pci_dev *out;
    struct walk *w;
    bool found;
};

static void find_one(const struct pci_dev *d, void *arg)
{
    struct find *f = arg;
    if (d->vendor == f->vendor && d->device == f->device) {
        *f->out = *d;
        f->found = true;
        f->w->stop = true;
    }
}

bool pci_find(u16 vendor, u16 device, struct pci_dev *out)
{
    struct find f = { vendor, device, out, NULL, false };
    struct walk w = { find_one, &f, false };
    f.w = &w;
    walk_bus(&w, 0, 0);
    return f.found;
}

u64 pci_bar(const struct pci_dev *d, int i, bool *is_io)
{
    u8 off = (u8)(PCI_BAR0 + 4 * i);
    u32 lo = pci_read32(d->bus, d->slot, d->func, off);
    *is_io = lo & 1;
    if (lo & 1)
        return lo & ~3u;
    u64 addr = lo & ~15u;
    if (((lo >> 1) & 3) == 2 && i < 5) /* 64-bit memory BAR: the next BAR holds the high half */
        addr |= (u64)pci_read32(d->bus, d->slot, d->func, (u8)(off + 4)) << 32;
    return addr;
}

void pci_enable(const struct pci_dev *d)
{
    u16 cmd = pci_read16(d->bus, d->slot, d->func, PCI_COMMAND);
    pci_write16(d->bus, d->slot, d->func, PCI_COMMAND, cmd | CMD_IO | CMD_MEMORY | CMD_BUS_MASTER);
}
