/*
 * An -o file written whole or not at all (contract in outfile.h). The
 * kind of OUT is read once, with lstat, and decides everything after:
 * a temp file renamed over it, or OUT itself opened in place, or a
 * refusal. The temp file's name lives in outfile_tmp while it exists,
 * so that a signal can remove it; signals are held while that name and
 * the file disagree (being made, being renamed).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/base/outfile.h"
#include "host/base/xalloc.h"

static char *volatile outfile_tmp;

static void outfile_on_signal(int sig)
{
    char *t = outfile_tmp;
    if (t)
        unlink(t);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int outfile_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Holds (on) or releases the signals that remove the temp file. */
static void outfile_hold(int on, sigset_t *saved)
{
    if (on) {
        sigset_t set;
        sigemptyset(&set);
        for (size_t i = 0; i < sizeof outfile_signals / sizeof outfile_signals[0]; i++)
            sigaddset(&set, outfile_signals[i]);
        sigprocmask(SIG_BLOCK, &set, saved);
    } else {
        sigprocmask(SIG_SETMASK, saved, NULL);
    }
}

static int outfile_refuse(const struct outfile *o, const char *why)
{
    fprintf(stderr, "runq %s: %s %s\n", o->prog, o->path, why);
    return 1;
}

/* OUT itself, a character device or a FIFO: O_NOFOLLOW and the check
 * after opening make sure it is still one (not a link or a file put
 * there since the lstat). */
static int outfile_in_place(struct outfile *o)
{
    int fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        fprintf(stderr, "runq %s: %s: %s\n", o->prog, o->path, strerror(errno));
        return 1;
    }
    if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        close(fd);
        return outfile_refuse(o, "changed while runq opened it: not writing it");
    }
    if (!(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "runq %s: %s: %s\n", o->prog, o->path, strerror(errno));
        close(fd);
        return 1;
    }
    return 0;
}

/* A new temp file beside OUT. */
static int outfile_temp(struct outfile *o)
{
    size_t n = strlen(o->path) + sizeof ".tmp.XXXXXX";
    char *tmp = xmalloc(n);
    snprintf(tmp, n, "%s.tmp.XXXXXX", o->path);
    sigset_t saved;
    outfile_hold(1, &saved);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0)
        outfile_tmp = o->tmp = tmp;
    outfile_hold(0, &saved);
    if (fd < 0) {
        fprintf(stderr, "runq %s: %s: cannot make a temp file beside it: %s\n", o->prog, o->path, strerror(errno));
        free(tmp);
        return 1;
    }
    /* mkstemp makes it 0600; the figure or export is for reading like
     * any file the user makes */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "runq %s: %s: %s\n", o->prog, tmp, strerror(errno));
        close(fd);
        outfile_abort(o);
        return 1;
    }
    return 0;
}

int outfile_open(struct outfile *o, const char *prog, const char *path)
{
    assert(!outfile_tmp); /* one at a time */
    *o = (struct outfile){ .path = path, .prog = prog };
    for (size_t i = 0; i < sizeof outfile_signals / sizeof outfile_signals[0]; i++)
        signal(outfile_signals[i], outfile_on_signal);
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            fprintf(stderr, "runq %s: %s: %s\n", prog, path, strerror(errno));
            return 1;
        }
        return outfile_temp(o);
    }
    if (S_ISREG(st.st_mode))
        return outfile_temp(o);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return outfile_in_place(o);
    if (S_ISLNK(st.st_mode))
        return outfile_refuse(o, "is a symbolic link: runq does not write through one; name the file it points to");
    if (S_ISDIR(st.st_mode))
        return outfile_refuse(o, "is a directory: name a file to write");
    return outfile_refuse(o, "is neither a file, a character device nor a FIFO: not writing it");
}

int outfile_commit(struct outfile *o)
{
    assert(o->f);
    int err = fflush(o->f) != 0 ? errno : ferror(o->f) ? EIO : 0;
    if (fclose(o->f) != 0 && !err)
        err = errno;
    o->f = NULL;
    if (err) {
        fprintf(stderr, "runq %s: writing %s: %s\n", o->prog, o->tmp ? o->tmp : o->path, strerror(err));
        outfile_abort(o);
        return 1;
    }
    if (!o->tmp)
        return 0;
    sigset_t saved;
    outfile_hold(1, &saved);
    if (rename(o->tmp, o->path) != 0) {
        err = errno;
        unlink(o->tmp);
    }
    outfile_tmp = NULL;
    outfile_hold(0, &saved);
    free(o->tmp);
    o->tmp = NULL;
    if (err) {
        fprintf(stderr, "runq %s: %s: %s\n", o->prog, o->path, strerror(err));
        return 1;
    }
    return 0;
}

void outfile_abort(struct outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (!o->tmp)
        return;
    sigset_t saved;
    outfile_hold(1, &saved);
    unlink(o->tmp);
    outfile_tmp = NULL;
    outfile_hold(0, &saved);
    free(o->tmp);
    o->tmp = NULL;
}
