/* COM1 (16550 at 0x3f8): the console. Output is polled; input is polled by
 * the shell, which sleeps between looks. */
#ifndef RUNQ_UART_H
#define RUNQ_UART_H
#include "../lib/types.h"

void uart_init(void);
void uart_putc(char c);
void uart_puts(const char *s);
/* A received byte, or -1 if none is waiting. */
int uart_getc(void);

#endif
