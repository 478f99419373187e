/*
 * PCI configuration space through the legacy 0xCF8/0xCFC ports ("mechanism
 * #1"): enough to find a device, read its BARs and let it do I/O and DMA.
 * The bus is walked from bus 0, following PCI-to-PCI bridges to their
 * secondary buses. Nothing here takes a lock: callers probe during boot,
 * on one CPU, before any other code touches configuration space.
 */
#ifndef RUNQ_PCI_H
#define RUNQ_PCI_H
#include "../lib/types.h"

struct pci_dev {
    u8 bus, slot, func;
    u16 vendor, device;
    u8 class_code, subclass;
};

/* off must be naturally aligned for the access width. */
u32 pci_read32(u8 bus, u8 slot, u8 func, u8 off);
u16 pci_read16(u8 bus, u8 slot, u8 func, u8 off);
u8 pci_read8(u8 bus, u8 slot, u8 func, u8 off);
void pci_write32(u8 bus, u8 slot, u8 func, u8 off, u32 v);
void pci_write16(u8 bus, u8 slot, u8 func, u8 off, u16 v);

/* The first function with this vendor:device id, in bus/slot/function
 * order; false (and *out untouched) if there is none. */
bool pci_find(u16 vendor, u16 device, struct pci_dev *out);

/* Calls fn for every function present (for listings and tests). */
void pci_for_each(void (*fn)(const struct pci_dev *d, void *arg), void *arg);

/* BAR i (0..5) decoded: an I/O BAR gives its port base and *is_io = true,
 * a memory BAR its physical address (64-bit BARs combined with the next
 * one). 0 if the BAR is not implemented. */
u64 pci_bar(const struct pci_dev *d, int i, bool *is_io);

/* Sets the command register's I/O space, memory space and bus master bits. */
void pci_enable(const struct pci_dev *d);

#endif
