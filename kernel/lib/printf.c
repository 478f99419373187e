#include "printf.h"
#include "string.h"
#include "bug.h"
#include "spinlock.h"
#include "../drivers/uart.h"

struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void put_num(struct out *o, u64 v, int base, bool upper, bool neg, int width, char pad, bool left)
{
    char tmp[24];
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    int n = 0;
    do {
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v);
    int len = n + (neg ? 1 : 0);
    if (neg && pad == '0')
        put(o, '-');
    if (!left)
        for (; width > len; width--)
            put(o, pad);
    if (neg && pad != '0')
        put(o, '-');
    while (n)
        put(o, tmp[--n]);
    if (left)
        for (; width > len; width--)
            put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        fmt++;
        bool left = false;
        char pad = ' ';
        for (;; fmt++) {
            if (*fmt == '-')
                left = true;
            else if (*fmt == '0')
                pad = '0';
            else
                break;
        }
        int width = 0;
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        int lng = 0;
        while (*fmt == 'l' || *fmt == 'z') {
            lng++;
            fmt++;
        }
        switch (*fmt) {
        case 'd':
        case 'i': {
            s64 v = lng ? va_arg(ap, s64) : va_arg(ap, int);
            put_num(&o, v < 0 ? -(u64)v : (u64)v, 10, false, v < 0, width, pad, left);
            break;
        }
        case 'u':
            put_num(&o, lng ? va_arg(ap, u64) : va_arg(ap, unsigned), 10, false, false, width, pad, left);
            break;
        case 'x':
        case 'X':
            put_num(&o, lng ? va_arg(ap, u64) : va_arg(ap, unsigned), 16, *fmt == 'X', false, width, pad,
                    left);
            break;
        case 'p':
            put(&o, '0');
            put(&o, 'x');
            put_num(&o, (u64)va_arg(ap, void *), 16, false, false, 16, '0', false);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            int len = (int)strlen(s);
            if (!left)
                for (; width > len; width--)
                    put(&o, ' ');
            while (*s)
                put(&o, *s++);
            if (left)
                for (; width > len; width--)
                    put(&o, ' ');
            break;
        }
        case 'c':
            put(&o, (char)va_arg(ap, int));
            break;
        case '%':
            put(&o, '%');
            break;
        default:
            put(&o, '%');
            put(&o, *fmt);
            if (!*fmt)
                fmt--;
        }
    }
    if (size)
        buf[o.len < size ? o.len : size - 1] = 0;
    return (int)o.len;
}

void strbuf_init(struct strbuf *b, char *buf, size_t size)
{
    BUG_ON(size == 0);
    b->buf = buf;
    b->size = size;
    b->len = 0;
    b->cut = false;
    buf[0] = '\0';
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    size_t room = b->size - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->buf + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        b->len = b->size - 1;
        b->cut = true;
    } else {
        b->len += (size_t)n;
    }
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

static struct spinlock console_lock = SPINLOCK_INIT("console");

/* Formats into a stack buffer first, so the console lock (irqs off) is held
 * only while the bytes go out. Unlocked is the panic path's: it must not wait
 * for a lock that a halted CPU may hold. */
static void console_vprintf(bool locked, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (!locked) {
        uart_puts(buf);
        return;
    }
    u64 flags = spin_lock_irqsave(&console_lock);
    uart_puts(buf);
    spin_unlock_irqrestore(&console_lock, flags);
}

void kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    console_vprintf(true, fmt, ap);
    va_end(ap);
}

void kprintf_unlocked(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    console_vprintf(false, fmt, ap);
    va_end(ap);
}
