/*
 * The lab's run cache (lab_cache.h says what it keeps and why that is
 * sound).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bug.h"
#include "db/dbfile.h"
#include "host/base/sha256.h"
#include "host/base/xalloc.h"
#include "labs/engine/lab_cache.h"

/* What stands for the run's database path in a stored console: the path
 * differs from one lab's output folder to the next, the run does not. */
#define DB_TOKEN "{runq-lab-cache:db}"

/* Sizes that let the compiler see every path below fit: the folder's
 * name, an entry's (a key), its temporary name, a file in it. */
#define CACHE_DIR_MAX 3072
#define CACHE_ENTRY_MAX (CACHE_DIR_MAX + 8 + 66)
#define CACHE_TMP_MAX (CACHE_ENTRY_MAX + 24)
#define CACHE_FILE_MAX (CACHE_TMP_MAX + 16)
static char cache_dir[CACHE_DIR_MAX + 8];
static int cache_state; /* 0 not looked at yet, 1 on, -1 off */

static int mkdir_own(const char *path)
{
    if (mkdir(path, 0700) && errno != EEXIST)
        return -1;
    return 0;
}

const char *lab_cache_dir(void)
{
    if (cache_state)
        return cache_state > 0 ? cache_dir : NULL;
    cache_state = -1;
    const char *env = getenv("RUNQ_LAB_CACHE");
    if (env && strcmp(env, "off") == 0)
        return NULL;
    char base[CACHE_DIR_MAX];
    if (env && *env) {
        if (strlen(env) >= CACHE_DIR_MAX) {
            fprintf(stderr, "runq lab: RUNQ_LAB_CACHE is too long a path; every scenario boots\n");
            return NULL;
        }
        snprintf(cache_dir, sizeof cache_dir, "%s", env);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg)
            snprintf(base, sizeof base, "%s/runq", xdg);
        else if (home && *home)
            snprintf(base, sizeof base, "%s/.cache/runq", home);
        else
            return NULL;
        char parent[CACHE_DIR_MAX];
        snprintf(parent, sizeof parent, "%s", base);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
            *slash = 0;
            mkdir_own(parent); /* ~/.cache itself, if a fresh account has none */
        }
        mkdir_own(base);
        snprintf(cache_dir, sizeof cache_dir, "%s/lab", base);
    }
    if (mkdir_own(cache_dir)) {
        fprintf(stderr, "runq lab: run cache %s: %s; every scenario boots\n", cache_dir, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (lstat(cache_dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
        fprintf(stderr,
                "runq lab: run cache %s is not a folder of yours that only you can write; "
                "it is not used and every scenario boots (RUNQ_LAB_CACHE=DIR names another)\n",
                cache_dir);
        return NULL;
    }
    cache_state = 1;
    return cache_dir;
}

bool lab_cache_key(const char *kernel, const char *const *argv, char key[65])
{
    static char exe_hash[65];
    struct sha256 s;
    if (!exe_hash[0]) {
        sha256_init(&s);
        if (sha256_add_file(&s, "/proc/self/exe"))
            return false;
        sha256_hex(&s, exe_hash);
    }
    sha256_init(&s);
    sha256_add(&s, "runq lab run 1", 15); /* the entry's layout; a new one never reads an old one */
    sha256_add(&s, exe_hash, 64);
    if (!kernel || sha256_add_file(&s, kernel))
        return false;
    for (int i = 0; argv[i]; i++)
        sha256_add(&s, argv[i], strlen(argv[i]) + 1);
    sha256_hex(&s, key);
    return true;
}

static char *slurp_fd(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap)
            buf = xrealloc(buf, cap *= 2);
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static char *slurp_path(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    char *s = slurp_fd(fd, len);
    close(fd);
    return s;
}

static int write_all(const char *path, const char *buf, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -1;
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        buf += w;
        n -= (size_t)w;
    }
    return close(fd);
}

/* text with every from replaced by to (heap). */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), count = 0;
    BUG_ON(nf == 0);
    for (const char *p = text; (p = strstr(p, from)); p += nf)
        count++;
    char *out = xmalloc(strlen(text) + count * (nt > nf ? nt - nf : 0) + 1), *o = out;
    for (const char *p = text;;) {
        const char *q = strstr(p, from);
        if (!q) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, nt);
        o += nt;
        p = q + nf;
    }
    return out;
}

static int copy_file(const char *from, const char *to)
{
    size_t n;
    char *buf = slurp_path(from, &n);
    if (!buf)
        return -1;
    int rc = write_all(to, buf, n);
    free(buf);
    return rc;
}

bool lab_cache_get(const char *key, const char *console, const char *db)
{
    const char *dir = lab_cache_dir();
    if (!dir)
        return false;
    char path[CACHE_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s/console", dir, key);
    size_t n;
    char *text = slurp_path(path, &n);
    if (!text)
        return false;
    char *out = replace_all(text, DB_TOKEN, db ? db : "");
    free(text);
    bool ok = write_all(console, out, strlen(out)) == 0;
    free(out);
    if (ok && db) {
        db_remove(db);
        snprintf(path, sizeof path, "%s/%s/run.db", dir, key);
        ok = copy_file(path, db) == 0;
    }
    if (!ok) {
        unlink(console);
        if (db)
            db_remove(db);
    }
    return ok;
}

/* Removes the temporary entry dir and what put() wrote in it. */
static void drop_tmp(const char *tmp)
{
    char path[CACHE_FILE_MAX];
    snprintf(path, sizeof path, "%s/console", tmp);
    unlink(path);
    snprintf(path, sizeof path, "%s/run.db", tmp);
    unlink(path);
    rmdir(tmp);
}

void lab_cache_put(const char *key, const char *console, const char *db)
{
    const char *dir = lab_cache_dir();
    if (!dir)
        return;
    char path[CACHE_FILE_MAX], tmp[CACHE_TMP_MAX], final[CACHE_ENTRY_MAX];
    struct stat st;
    snprintf(final, sizeof final, "%s/%s", dir, key);
    if (stat(final, &st) == 0)
        return; /* another lab stored it first */
    if (db) {
        snprintf(path, sizeof path, "%s-wal", db);
        if (stat(path, &st) == 0 && st.st_size > 0)
            return;
    }
    size_t n;
    char *text = slurp_path(console, &n);
    if (!text)
        return;
    char *stored = db && *db ? replace_all(text, db, DB_TOKEN) : xstrdup(text);
    free(text);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld", dir, key, (long)getpid());
    if (mkdir(tmp, 0700)) {
        free(stored);
        return;
    }
    snprintf(path, sizeof path, "%s/console", tmp);
    int rc = write_all(path, stored, strlen(stored));
    free(stored);
    if (rc == 0 && db) {
        snprintf(path, sizeof path, "%s/run.db", tmp);
        rc = copy_file(db, path);
    }
    if (rc || rename(tmp, final))
        drop_tmp(tmp); /* rename fails when another lab's copy got there first: one is enough */
}
