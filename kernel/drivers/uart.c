#include "uart.h"
#include "../arch/x86_64/cpu.h"

#define COM1 0x3f8

void uart_init(void)
{
    outb(COM1 + 1, 0x00); /* no interrupts: the shell polls */
    outb(COM1 + 3, 0x80); /* divisor latch */
    outb(COM1 + 0, 0x01); /* 115200 baud */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03); /* 8N1 */
    outb(COM1 + 2, 0xc7); /* FIFOs on and cleared */
    outb(COM1 + 4, 0x03);
}

void uart_putc(char c)
{
    if (c == '\n')
        uart_putc('\r');
    while (!(inb(COM1 + 5) & 0x20))
        cpu_relax();
    outb(COM1, (u8)c);
}

void uart_puts(const char *s)
{
    while (*s)
        uart_putc(*s++);
}

int uart_getc(void)
{
    if (!(inb(COM1 + 5) & 0x01))
        return -1;
    return inb(COM1);
}
