/*
 * host/base/sha256.c against FIPS 180-4's examples (one block, the empty
 * message, two blocks) and a message fed in pieces that straddle blocks:
 * the run cache's keys (labs/engine/lab_cache.c) are only as good as this.
 */
#include <stdio.h>
#include <string.h>

#include "host/base/sha256.h"

static int failures;

static void check(const char *name, const char *msg, size_t step, const char *want)
{
    struct sha256 s;
    char got[65];
    size_t n = strlen(msg);
    sha256_init(&s);
    for (size_t i = 0; i < n; i += step)
        sha256_add(&s, msg + i, n - i < step ? n - i : step);
    sha256_hex(&s, got);
    if (strcmp(got, want) == 0) {
        printf("PASS %s\n", name);
    } else {
        printf("FAIL %s: %s, want %s\n", name, got, want);
        failures++;
    }
}

int main(void)
{
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check("sha256_abc", "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check("sha256_empty", "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check("sha256_two_blocks", two, 56, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check("sha256_in_pieces", two, 7, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    return failures ? 1 : 0;
}
