/*
 * Sending one action line to the recorder (contract in control.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "tui/control.h"

int top_control_send(const char *path, const char *line, char *err, size_t errlen)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (!path || !*path) {
        snprintf(err, errlen, "actions need a live recording");
        return -1;
    }
    if (strlen(path) >= sizeof a.sun_path) {
        snprintf(err, errlen, "control socket path too long");
        return -1;
    }
    for (const char *p = line; *p; p++)
        if (!TRACE_CTL_PRINTABLE(*p)) {
            snprintf(err, errlen, "not a printable line");
            return -1;
        }
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    struct timeval tv = { .tv_sec = 1 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    char buf[TRACE_CTL_LINE_MAX + 1]; /* the line the kernel takes whole, and '\n' */
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    if (n < 0 || (size_t)n >= sizeof buf) {
        snprintf(err, errlen, "line too long");
        close(fd);
        return -1;
    }
    /* MSG_NOSIGNAL: a recorder that went away is an error, not SIGPIPE. */
    for (int off = 0; off < n;) {
        ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "%s: %s", path, w < 0 ? strerror(errno) : "closed");
            close(fd);
            return -1;
        }
        off += (int)w;
    }
    close(fd);
    return 0;
}
