/*
 * `runq plot KIND`: a figure of a trace database as a PNG or an SVG file
 * (docs/plot.md). The kinds (host/export/plot_kinds.c) read the database and
 * write gnuplot's input; this file is everything around them (plot_draw,
 * contract in plot.h), in order:
 *
 *   1. the flags, checked before anything is opened (a usage error
 *      exits 2 in one line): host/cli/plot.c's, as is the database's open;
 *   2. a temp directory of our own, and in it the script: the terminal
 *      (by OUT's extension, at the size asked), then the kind's titles,
 *      data files and plot lines;
 *   3. OUT opened as host/base/outfile.h says (a temp file beside it, or a
 *      device or FIFO in place);
 *   4. gnuplot run on the script by fork/exec, no shell between, in the
 *      temp directory, its stdout the file of step 3 and its stderr kept
 *      for the one line we print if it fails;
 *   5. the temp file renamed to OUT only once gnuplot succeeded, so OUT
 *      is either the old file or the whole new one, never half a figure;
 *   6. the temp directory removed.
 *
 * No path reaches the script: gnuplot writes the figure to its stdout
 * and reads the data files by their names in its working directory. The
 * only text in it that runq did not write is the database's (a policy,
 * task names, an experiment's parameters), and every such string goes
 * through plot_quote; data files hold numbers only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/visible.h"
#include "host/base/fork.h"
#include "host/base/outfile.h"
#include "host/export/plot.h"

#define GNUPLOT_APT "sudo apt-get install -y gnuplot-nox"

/* The length of the character at p: 1 for ASCII, else db/visible.h's
 * well-formed UTF-8 length, 0 for a byte that starts none. */
static size_t char_len(const unsigned char *p)
{
    return *p < 0x80 ? 1 : text_utf8_len((const char *)p);
}

void plot_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = char_len(p);
        bool control = *p < 0x20 || *p == 0x7f || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0); /* C0, DEL, C1 */
        if (*p == '\'')
            fputs("''", f);
        else if (!n || control)
            fputc('?', f);
        else
            fwrite(p, 1, n, f);
        p += n ? n : 1;
    }
    fputc('\'', f);
}

FILE *plot_data_file(struct plot_job *j, char *name, size_t len)
{
    char path[PATH_MAX];
    snprintf(name, len, "d%d.dat", j->nfiles++);
    snprintf(path, sizeof path, "%s/%s", j->dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "runq plot: %s: %s\n", path, strerror(errno));
    return f;
}

/* Removes dir and the files in it (only files: the job makes no more). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
                    unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* Runs `gnuplot SCRIPT` in dir, with stdin on /dev/null, stdout on outfd
 * and stderr in errpath. Returns gnuplot's exit status, 127 when there
 * is no gnuplot to run (errno from exec in *exec_errno), -1 when it
 * could not start. */
static int run_gnuplot(const char *script, const char *dir, int outfd, const char *errpath, int *exec_errno)
{
    int pfd[2];
    *exec_errno = 0;
    /* exec's failure comes back through a close-on-exec pipe: a child
     * that exec'd gnuplot closes it unwritten. */
    pid_t pid = fork_piped(pfd);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int err = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(outfd, 1) < 0 || dup2(err, 2) < 0 || chdir(dir) != 0)
            _exit(126);
        char *argv[] = { "gnuplot", (char *)script, NULL };
        execvp("gnuplot", argv);
        fork_exec_failed(pfd);
    }
    int e = fork_exec_errno(pfd);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (e) {
        *exec_errno = e;
        return 127;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* The last line of gnuplot's stderr that says something: its error. */
static void gnuplot_error(const char *errpath, char *buf, size_t len)
{
    FILE *f = fopen(errpath, "r");
    char line[512];
    snprintf(buf, len, "no message");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strspn(line, " ^") < strlen(line))
            snprintf(buf, len, "%s", line);
    }
    fclose(f);
}

int plot_draw(sqlite3 *db, plot_kind_fn *kind, const struct plot_opts *o)
{
    int rc;
    const char *tmpdir = getenv("TMPDIR");
    /* dir leaves room in the others for the names of the files in it */
    char dir[PATH_MAX - 64], script[PATH_MAX], errpath[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/runq-plot.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") >= (int)sizeof dir ||
        !mkdtemp(dir)) {
        fprintf(stderr, "runq plot: cannot make a temp directory %s: %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    snprintf(errpath, sizeof errpath, "%s/gnuplot.err", dir);
    rc = 1;
    struct plot_job job = { .gp = fopen(script, "w"), .dir = dir };
    if (!job.gp) {
        fprintf(stderr, "runq plot: %s: %s\n", script, strerror(errno));
        goto done;
    }
    fprintf(job.gp, "set encoding utf8\n");
    if (o->svg)
        fprintf(job.gp, "set terminal svg size %d,%d fixed noenhanced font 'sans,11' background '#ffffff'\n",
                o->width, o->height);
    else /* pngcairo draws better; the plain png terminal is gnuplot-nox's other PNG */
        fprintf(job.gp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                        "    set terminal pngcairo size %d,%d noenhanced font 'sans,10' background '#ffffff'\n"
                        "} else {\n    set terminal png size %d,%d noenhanced\n}\n",
                o->width, o->height, o->width, o->height);
    rc = kind(db, o, &job);
    fprintf(job.gp, "unset output\n");
    if (fclose(job.gp) != 0 && !rc) {
        fprintf(stderr, "runq plot: %s: %s\n", script, strerror(errno));
        rc = 1;
    }
    struct outfile of;
    if (rc || (rc = outfile_open(&of, "plot", o->out)))
        goto done;
    int e;
    int st = run_gnuplot(script, dir, fileno(of.f), errpath, &e);
    struct stat sb;
    rc = 1;
    if (st == 127 && e) {
        fprintf(stderr, "runq plot: cannot run gnuplot (%s): install it with 'make deps' or '%s'\n",
                e == ENOENT ? "not found on PATH" : strerror(e), GNUPLOT_APT);
    } else if (st != 0) {
        char msg[512];
        gnuplot_error(errpath, msg, sizeof msg);
        fprintf(stderr, "runq plot: gnuplot failed (%s%d): %s\n", st < 0 ? "could not start, " : "exit ",
                st, msg);
    } else if (fstat(fileno(of.f), &sb) != 0 || (S_ISREG(sb.st_mode) && sb.st_size == 0)) {
        fprintf(stderr, "runq plot: gnuplot wrote no figure to %s\n", of.tmp ? of.tmp : o->out);
    } else {
        rc = 0;
    }
    if (rc)
        outfile_abort(&of);
    else
        rc = outfile_commit(&of);
done:
    remove_dir(dir);
    return rc;
}
