/*
 * A child with a pipe between it and its parent, made in one step: the
 * pipe (both ends close-on-exec, so a program the child execs holds
 * neither) and the fork, or neither of them. A child that execs tells its
 * parent through that pipe whether the exec failed: an exec that works
 * closes the child's end unwritten, one that fails writes its errno there
 * (fork_exec_failed), and the parent reads which (fork_exec_errno).
 */
#ifndef RUNQ_HOST_BASE_FORK_H
#define RUNQ_HOST_BASE_FORK_H

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

/* fork() with the pipe p made first: the child's pid (0 in the child), or
 * -1 with errno set and no end of p left open. */
static inline pid_t fork_piped(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
    }
    return pid;
}

/* In the child, once its exec (or what prepares it) failed: errno to the
 * parent through p, and exit 127. */
static inline __attribute__((noreturn)) void fork_exec_failed(const int p[2])
{
    int e = errno;
    ssize_t w = write(p[1], &e, sizeof e);
    (void)w;
    _exit(127);
}

/* In the parent, once the child is started: 0 when its exec worked, else
 * the errno it failed with. Waits for one or the other; closes p. */
static inline int fork_exec_errno(const int p[2])
{
    int e = 0;
    ssize_t r;
    close(p[1]);
    while ((r = read(p[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(p[0]);
    return r == (ssize_t)sizeof e ? e : 0;
}

#endif
