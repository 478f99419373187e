/*
 * Durations as text (contracts in scenario.h): read and written as the
 * scenario format spells them ("800us", "1.6ms"), and printed as runq sim
 * -v prints its times ("1600", "-533.333" us).
 *
 * A file of its own, needing nothing of the policies, so that the Linux
 * reference of the differential test (tests/policy/linux_ref.h) reads and
 * prints workloads with these and links nothing of runq's decisions.
 */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "scenario.h"

static const struct {
    const char *name;
    uint64_t ns;
} scn_units[] = { { "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull }, { "ns", 1ull } };

bool scn_parse_duration(const char *s, uint64_t *out)
{
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;

    if (strcmp(s, "0") == 0) {
        *out = 0;
        return true;
    }
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > SCN_DURATION_MAX)
            return false;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        for (; isdigit((unsigned char)*p); p++) {
            if (scale >= 1000000000ull)
                return false;
            frac = frac * 10 + (uint64_t)(*p - '0');
            scale *= 10;
        }
    }
    for (size_t u = 0; u < sizeof scn_units / sizeof scn_units[0]; u++) {
        if (strcmp(p, scn_units[u].name) != 0)
            continue;
        uint64_t unit = scn_units[u].ns;
        if (frac * unit % scale != 0)
            return false; /* finer than a nanosecond */
        /* Checked before the product: 18446744074s times 1e9 wraps past
         * 2^64 to 0.29 s, which the bound after it would take. */
        if (whole > SCN_DURATION_MAX / unit)
            return false;
        *out = whole * unit + frac * unit / scale;
        return *out <= SCN_DURATION_MAX;
    }
    return false;
}

void scn_format_duration(char *buf, size_t len, uint64_t ns)
{
    if (ns == 0) {
        snprintf(buf, len, "0");
        return;
    }
    for (size_t u = 0; u < sizeof scn_units / sizeof scn_units[0]; u++)
        if (ns % scn_units[u].ns == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(ns / scn_units[u].ns), scn_units[u].name);
            return;
        }
}

void scn_format_us(char *buf, size_t len, int64_t ns)
{
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    int n = snprintf(buf, len, "%s%" PRIu64, ns < 0 ? "-" : "", a / 1000);

    if (a % 1000 && n > 0 && (size_t)n < len) {
        char frac[8];
        snprintf(frac, sizeof frac, ".%03u", (unsigned)(a % 1000));
        for (size_t k = strlen(frac) - 1; frac[k] == '0'; k--)
            frac[k] = '\0';
        snprintf(buf + n, len - (size_t)n, "%s", frac);
    }
}
