/*
 * The host's rules (contract in hostrules.h).
 *
 * Linux numbers its sched features by their place in
 * kernel/sched/features.h, which differs between releases and vendors'
 * builds; the kernel's BTF carries the generated enum (__SCHED_FEAT_NAME
 * = bit), so the names come from the running kernel itself, never from a
 * list typed here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "host/engine/linux/hostrules.h"

#define SCHED_DEBUG "/sys/kernel/debug/sched/debug"

static void note(struct hostrules *r, const char *what)
{
    size_t n = strlen(r->missing);
    snprintf(r->missing + n, sizeof r->missing - n, "%s%s", n ? "; " : "", what);
}

/* The `.sysctl_sched_features` mask and `.sysctl_sched_base_slice` (ms)
 * lines of the debug file. */
static bool read_debug(struct hostrules *r, uint64_t *mask)
{
    /* RUNQ_SCHED_DEBUG names another file of that format: for tests, which
     * cannot change the host's features. */
    const char *path = getenv("RUNQ_SCHED_DEBUG");
    path = path && *path ? path : SCHED_DEBUG;
    FILE *f = fopen(path, "r");
    if (!f) {
        char why[200];
        snprintf(why, sizeof why, "%s: %s (debugfs mounted, as root, gives the features and base slice)", path,
                 strerror(errno));
        note(r, why);
        return false;
    }
    char line[256];
    bool have = false;
    for (int i = 0; i < 64 && fgets(line, sizeof line, f); i++) {
        const char *c = strchr(line, ':');
        if (!c)
            continue;
        if (strstr(line, ".sysctl_sched_features")) {
            *mask = strtoull(c + 1, NULL, 10);
            have = true;
        } else if (strstr(line, ".sysctl_sched_base_slice")) {
            double ms = strtod(c + 1, NULL);
            if (ms > 0 && ms < 1e6)
                r->base_slice_ns = (uint64_t)(ms * 1e6 + 0.5);
        }
    }
    fclose(f);
    if (!have)
        note(r, "the sched debug file has no .sysctl_sched_features line");
    return have;
}

#ifdef RUNQ_HAVE_BPF
#include <bpf/btf.h>

static void add_name(struct hostrules *r, unsigned bit, const char *name, bool on)
{
    size_t n = strlen(r->names);
    if (bit >= 32 || n + strlen(name) + 2 > sizeof r->names)
        return;
    snprintf(r->names + n, sizeof r->names - n, "%s%s", n ? "," : "", name);
    if (on)
        r->mask |= 1u << bit;
}


/* Linux's features by bit, from BTF: names[i] for bit i, NULL where no
 * enumerator has that value. The count, or -1. */
static int feature_enum(struct btf *btf, const char *names[32])
{
    int n = (int)btf__type_cnt(btf);
    for (int id = 1; id < n; id++) {
        const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
        if (!btf_is_enum(t))
            continue;
        const struct btf_enum *e = btf_enum(t);
        int vlen = btf_vlen(t), nr = -1;
        for (int i = 0; i < vlen; i++)
            if (strcmp(btf__name_by_offset(btf, e[i].name_off), "__SCHED_FEAT_NR") == 0)
                nr = e[i].val;
        if (nr < 0)
            continue;
        memset(names, 0, 32 * sizeof *names);
        for (int i = 0; i < vlen; i++) {
            const char *s = btf__name_by_offset(btf, e[i].name_off);
            if (e[i].val >= 0 && e[i].val < 32 && e[i].val < nr && strncmp(s, "__SCHED_FEAT_", 13) == 0)
                names[e[i].val] = s + 13;
        }
        return nr < 32 ? nr : 32;
    }
    return -1;
}

static int struct_has(struct btf *btf, const char *type, const char *member)
{
    int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
    if (id < 0)
        return -1;
    const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
    const struct btf_member *m = btf_members(t);
    for (int i = 0; i < btf_vlen(t); i++)
        if (strcmp(btf__name_by_offset(btf, m[i].name_off), member) == 0)
            return 1;
    return 0;
}

static void read_btf(struct hostrules *r, bool have_mask, uint64_t mask)
{
    struct btf *btf = btf__load_vmlinux_btf();
    if (!btf) {
        note(r, "no kernel BTF (/sys/kernel/btf/vmlinux): feature names and LAG_CLAMP_MAX_SLICE unknown");
        return;
    }
    const char *names[32];
    int nr = feature_enum(btf, names);
    if (nr < 0)
        note(r, "the kernel's BTF has no __SCHED_FEAT_ enum: feature names unknown");
    for (int i = 0; i < nr; i++)
        add_name(r, (unsigned)i, names[i] ? names[i] : "?", have_mask && (mask >> i & 1));
    r->features_known = nr > 0 && have_mask;
    r->lag_clamp_max_slice = struct_has(btf, "sched_entity", "max_slice");
    if (r->lag_clamp_max_slice >= 0)
        add_name(r, nr > 0 ? (unsigned)nr : 0, "LAG_CLAMP_MAX_SLICE", r->lag_clamp_max_slice == 1);
    btf__free(btf);
}
#else
static void read_btf(struct hostrules *r, bool have_mask, uint64_t mask)
{
    (void)have_mask;
    (void)mask;
    note(r, "runq was built without libbpf: feature names and LAG_CLAMP_MAX_SLICE unknown");
}
#endif

/* The preemption model. /sys/kernel/debug/sched/preempt names the modes
 * with the current one in parentheses, "none (voluntary) full"; on this
 * host root may not open it, and uname -v says only how the kernel was
 * built. */
static void read_preempt(struct hostrules *r)
{
    char line[128] = "";
    FILE *f = fopen("/sys/kernel/debug/sched/preempt", "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    const char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;
    if (open && close && close - open - 1 < (long)sizeof r->preempt) {
        snprintf(r->preempt, sizeof r->preempt, "%.*s", (int)(close - open - 1), open + 1);
        return;
    }
    struct utsname u;
    if (uname(&u) == 0) {
        if (strstr(u.version, "PREEMPT_DYNAMIC"))
            snprintf(r->preempt, sizeof r->preempt, "dynamic, mode not readable");
        else if (strstr(u.version, "PREEMPT_RT"))
            snprintf(r->preempt, sizeof r->preempt, "PREEMPT_RT");
        else if (strstr(u.version, "PREEMPT"))
            snprintf(r->preempt, sizeof r->preempt, "PREEMPT");
    }
}

const struct hostrules *hostrules_read(void)
{
    static struct hostrules r;
    static bool done;
    if (done)
        return &r;
    done = true;
    r.lag_clamp_max_slice = -1;
    uint64_t mask = 0;
    bool have = read_debug(&r, &mask);
    read_preempt(&r);
    read_btf(&r, have, mask);
    return &r;
}

void hostrules_describe(const struct hostrules *r, char *buf, size_t len)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
    buf[0] = '\0';
    PUT("LAG_CLAMP_MAX_SLICE %s", r->lag_clamp_max_slice == 1 ? "on (6e3c0a4e1ad1's clamp)"
                                  : r->lag_clamp_max_slice == 0 ? "off (vanilla 6.18's clamp)" : "unknown");
    if (r->base_slice_ns)
        PUT("; base slice %.3f ms", r->base_slice_ns / 1e6);
    if (r->preempt[0])
        PUT("; preemption %s", r->preempt);
    if (r->features_known) {
        PUT("; features on:");
        char copy[HOSTRULES_NAMES_MAX];
        snprintf(copy, sizeof copy, "%s", r->names);
        unsigned bit = 0;
        const char *sep = " ";
        for (char *s = strtok(copy, ","); s; s = strtok(NULL, ","), bit++)
            if (r->mask >> bit & 1 && strcmp(s, "LAG_CLAMP_MAX_SLICE") != 0) {
                PUT("%s%s", sep, s);
                sep = ",";
            }
    }
    if (r->missing[0])
        PUT(" (unknown: %s)", r->missing);
#undef PUT
    if (n >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}
