/*
 * SHA-256 (FIPS 180-4), for content keys: a cached run is found by the
 * hash of everything that made it (host/base is below every host module,
 * so any of them may key a cache or a generated file by its inputs).
 * Not for secrets: nothing here is constant-time.
 */
#ifndef RUNQ_HOST_BASE_SHA256_H
#define RUNQ_HOST_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len;       /* bytes fed so far */
    unsigned char buf[64];
    size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_add(struct sha256 *s, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL; s is spent. */
void sha256_hex(struct sha256 *s, char out[65]);
/* Adds the bytes of the file at path. Returns 0, or -1 (errno set) if it
 * cannot be read: the hash is then of no use. */
int sha256_add_file(struct sha256 *s, const char *path);

#endif
