#include "string.h"

/* memset and memcpy use the string instructions: one rep instruction moves
 * eight bytes a step, where a byte loop takes several instructions a byte
 * (and under icount every instruction is guest time). */
void *memset(void *dst, int c, size_t n)
{
    u64 pattern = 0x0101010101010101ull * (u8)c;
    void *d = dst;
    size_t words = n / 8, bytes = n % 8;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(words) : "a"(pattern) : "memory");
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(bytes) : "a"(pattern) : "memory");
    return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
    void *d = dst;
    const void *s = src;
    size_t words = n / 8, bytes = n % 8;
    __asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(words) : : "memory");
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(bytes) : : "memory");
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    if (d < s)
        return memcpy(dst, src, n);
    while (n--)
        d[n] = s[n];
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const u8 *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] - y[i];
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (u8)*a - (u8)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (u8)*a - (u8)*b;
        if (!*a)
            return 0;
    }
    return 0;
}

char *strncpy_z(char *dst, const char *src, size_t size)
{
    size_t i = 0;
    if (!size)
        return dst;
    for (; i + 1 < size && src[i]; i++)
        dst[i] = src[i];
    dst[i] = 0;
    return dst;
}

bool parse_long(const char *s, long *out)
{
    bool neg = false;
    long v = 0;
    if (*s == '-' || *s == '+')
        neg = (*s++ == '-');
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        if (v > (0x7fffffffffffffffL - 9) / 10)
            return false;
        v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    return true;
}

int split_words(char *s, char **words, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            *s++ = 0;
        if (!*s)
            return n;
        if (n == max)
            return max + 1;
        words[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
}
