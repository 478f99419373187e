/*
 * The recorder's liveness lock (contract in recorder_lock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/recorder_lock.h"

int recorder_lock_open(const char *path, int for_writing)
{
    return open(path, (for_writing ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0644);
}

static struct flock lock_byte(int64_t trace_id, short type)
{
    struct flock fl = { 0 };
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)(RECORDER_LOCK_BASE + trace_id);
    fl.l_len = 1;
    return fl;
}

int recorder_lock_take(int fd, int64_t trace_id)
{
    if (trace_id < 0) {
        errno = EINVAL;
        return -1;
    }
    struct flock fl = lock_byte(trace_id, F_WRLCK);
    return fcntl(fd, F_OFD_SETLK, &fl) == 0 ? 0 : -1;
}

int recorder_merge_lock(const char *path, int *created)
{
    for (;;) {
        *created = 1;
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST) {
            *created = 0;
            fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd < 0 && errno == ENOENT)
                continue; /* removed between the two opens */
        }
        if (fd < 0)
            return -1;
        struct flock fl = { 0 };
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        fl.l_start = (off_t)RECORDER_MERGE_LOCK;
        fl.l_len = 1;
        int rc;
        while ((rc = fcntl(fd, F_OFD_SETLKW, &fl)) != 0 && errno == EINTR)
            ;
        struct stat held, named;
        if (rc == 0 && fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            /* Made here, but another merge had the lock first and wrote
             * it: it is that merge's now, not ours to remove. */
            if (held.st_size != 0)
                *created = 0;
            return fd;
        }
        int e = errno;
        close(fd);
        if (rc != 0) {
            errno = e;
            return -1;
        }
    }
}

int recorder_lock_held(int fd, int64_t trace_id)
{
    if (fd < 0 || trace_id < 0)
        return -1;
    /* Asking about a read lock finds only a write lock, which is what a
     * recorder holds; the probe's descriptor may be read-only. */
    struct flock fl = lock_byte(trace_id, F_RDLCK);
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
        return -1;
    return fl.l_type != F_UNLCK;
}

int recorder_probe_fd(const char *path)
{
    /* A process reads one database, or a few: a handful of slots. */
    static struct {
        char path[4096];
        int fd;
    } probes[4];
    static int nprobes;
    for (int i = 0; i < nprobes; i++)
        if (strcmp(probes[i].path, path) == 0)
            return probes[i].fd;
    int fd = recorder_lock_open(path, 0);
    if (fd >= 0 && nprobes < (int)(sizeof probes / sizeof probes[0]) && strlen(path) < sizeof probes[0].path) {
        strcpy(probes[nprobes].path, path);
        probes[nprobes++].fd = fd;
    }
    /* Not kept (no slot): still open, never closed, so still safe. */
    return fd;
}

static void alive_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int fd = (int)(intptr_t)sqlite3_user_data(ctx);
    int held = sqlite3_value_type(argv[0]) == SQLITE_INTEGER
                   ? recorder_lock_held(fd, sqlite3_value_int64(argv[0]))
                   : -1;
    if (held < 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int(ctx, held);
}

int recorder_alive_sql(sqlite3 *db, int probe_fd)
{
    /* Not DETERMINISTIC: the answer changes while a query runs. */
    return sqlite3_create_function(db, "runq_recorder_alive", 1, SQLITE_UTF8, (void *)(intptr_t)probe_fd, alive_fn,
                                   NULL, NULL);
}
