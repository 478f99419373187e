/*
 * Runs a lab has made before, kept. A lab's scenario runs under icount
 * (runq boot --deterministic): the same runq, the same kernel and the same
 * boot line give the same console and the same trace, byte for byte in
 * every number. So a run is stored under the SHA-256 of exactly those
 * three, and a lab that needs it again (the reference answers checked
 * after a student's, a class graded, calibration, the tests) copies it
 * back instead of booting: a grade is the same, minutes sooner.
 *
 * Where: $RUNQ_LAB_CACHE, else $XDG_CACHE_HOME/runq/lab, else
 * ~/.cache/runq/lab; RUNQ_LAB_CACHE=off keeps nothing and finds nothing.
 * The folder must be the user's own and writable by no one else (a run
 * put there by another local user would be graded as the student's): if
 * it is not, the cache is off for this process and stderr says why, once.
 *
 * An entry is a folder named by the key, made under a temporary name and
 * renamed into place whole, so two labs filling the same entry at once
 * leave one complete copy and a reader never sees half of one. Only runs
 * that ended well are stored.
 */
#ifndef RUNQ_LABS_LAB_CACHE_H
#define RUNQ_LABS_LAB_CACHE_H

#include <stdbool.h>

/* The key of a run: runq's own executable, the kernel image at kernel
 * (the one runq boot will load) and the boot's arguments (argv, NULL
 * ended; the trace database's path must not be among them: it is where
 * the run is written, not what it is). Returns false if a file cannot be
 * read: that run is then neither looked up nor stored. */
bool lab_cache_key(const char *kernel, const char *const *argv, char key[65]);

/* Copies the run stored under key to console and, if db is not NULL, to
 * db (any -wal and -shm of db removed first). In the console the stored
 * run's database path reads as db. True on a hit; false if there is no
 * such run, the cache is off, or a copy failed (then nothing is left at
 * console or db). */
bool lab_cache_get(const char *key, const char *console, const char *db);

/* Stores the run that just ended well: its console and, if db is not
 * NULL, its trace database (refused, quietly, while a -wal beside it
 * still holds pages: the copy would miss them). Failing to store costs
 * the next lab a boot, nothing else, so it is silent. */
void lab_cache_put(const char *key, const char *console, const char *db);

/* The folder in use, or NULL when the cache is off (for messages). */
const char *lab_cache_dir(void);

#endif
