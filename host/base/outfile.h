/*
 * The file a command writes because the user named it with -o (`runq
 * export`, `runq plot`). Whatever ends the command, OUT is either what
 * it was or the whole new file, never half of one; runq never puts a
 * file where a device, a FIFO or a link was, and never follows a link
 * that someone left where its temp file goes. By what OUT is when the
 * command opens it (lstat, not following a link):
 *
 *   missing, or a regular file: written to a new file beside it,
 *     OUT.tmp.XXXXXX, made by mkstemp (O_CREAT|O_EXCL: a name already
 *     there, a link included, is never opened), mode 0666 less the
 *     umask as a file made by fopen would be; outfile_commit renames it
 *     over OUT, on the same file system since it is in OUT's folder;
 *   a character device or a FIFO (/dev/null, a pipe someone reads):
 *     opened and written in place (O_NOFOLLOW); nothing is renamed, so
 *     what was written before an error stays written;
 *   a symbolic link: refused, whatever it points to. Following it would
 *     write where the link's owner chose: in a folder others may write
 *     (/tmp) that is someone else's file, and a rename would replace the
 *     link by a file. The user names the target instead;
 *   anything else (a directory, a socket, a block device): refused.
 *
 * From outfile_open to outfile_commit or outfile_abort, SIGINT, SIGTERM
 * and SIGHUP remove the temp file before the signal ends the process
 * (outfile_open installs the handlers). One outfile is open at a time.
 */
#ifndef RUNQ_CLI_OUTFILE_H
#define RUNQ_CLI_OUTFILE_H

#include <stdio.h>

struct outfile {
    FILE *f;          /* where to write; fileno(f) for a child's stdout */
    const char *path; /* OUT, as given */
    const char *prog; /* "export": errors say "runq export: ..." */
    char *tmp;        /* the temp file renamed over OUT; NULL: OUT in place */
};

/* Opens OUT for writing as above. 0 with o->f open; 1 after one line
 * "runq PROG: ..." on stderr (OUT refused, or no temp file could be
 * made), nothing created. */
int outfile_open(struct outfile *o, const char *prog, const char *path);

/* Flushes and closes o->f and renames the temp file over OUT. 0, or 1
 * after one line on stderr (a write error, a failed rename), the temp
 * file removed and OUT as it was. */
int outfile_commit(struct outfile *o);

/* Closes o->f and removes the temp file: OUT stays as it was, or, when
 * written in place, keeps what was written. */
void outfile_abort(struct outfile *o);

#endif
