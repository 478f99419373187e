/*
 * Whether a trace's recorder still runs.
 *
 * A trace row says 'recording' from the moment its recorder starts until it
 * marks the trace complete or incomplete. A recorder that never gets there
 * (kill -9, a crash, a power cut) leaves 'recording' behind for good. So each
 * recorder also holds a lock on one byte of its database file, at
 * RECORDER_LOCK_BASE + trace_id: far past SQLite's own lock bytes (at 1 GiB),
 * and an open-file-description lock, which the kernel drops when the
 * recorder's process ends however it ends. 'recording' with that byte free
 * means the recorder is gone.
 *
 * Contract, because of POSIX locks: closing any descriptor of a file drops
 * every POSIX lock the process holds on it, SQLite's included. So the
 * descriptor these functions lock or probe through is opened before the
 * process opens the database with SQLite, and closed only after SQLite has
 * closed it (or at exit).
 */
#ifndef RUNQ_DB_RECORDER_LOCK_H
#define RUNQ_DB_RECORDER_LOCK_H

#include <stdint.h>

#define RECORDER_LOCK_BASE ((int64_t)1 << 40)

/* Opens path for locking (read-write) or probing (read-only). -1 with errno
 * on failure; a missing file is created only for locking. */
int recorder_lock_open(const char *path, int for_writing);

/* Takes trace_id's byte through fd (from recorder_lock_open(path, 1)).
 * 0, or -1 with errno (EAGAIN: another recorder holds it). */
int recorder_lock_take(int fd, int64_t trace_id);

/* Is trace_id's byte held by some other open file description: 1 yes (its
 * recorder runs), 0 no (gone, or finished), -1 cannot tell. */
int recorder_lock_held(int fd, int64_t trace_id);

/* A read-only descriptor for probing path, opened on the first call for
 * that path and kept open until exit. Call it before SQLite opens path in
 * this process. -1 when the file cannot be opened. */
int recorder_probe_fd(const char *path);

/* The merge lock: one more byte, RECORDER_MERGE_LOCK, that `runq merge`
 * holds on OUT from before it reads OUT until it has committed, so two
 * merges into one OUT run one after the other, each deciding which of
 * OUT's experiments its shards join from what the one before wrote.
 * Opens path read-write, creating it (empty) when missing, and waits for
 * the byte. The descriptor, or -1 with errno; *created says this call
 * made the file. If path was removed or replaced while it waited (the
 * merge before it failed and removed an OUT it had made), it opens and
 * waits again: the lock is on the file path names when it returns.
 * The lock goes when the descriptor is closed or the process ends. */
#define RECORDER_MERGE_LOCK (RECORDER_LOCK_BASE - 1)
int recorder_merge_lock(const char *path, int *created);

/* Gives db the SQL function runq_recorder_alive(trace_id): 1 while that
 * trace's recorder runs, 0 when none holds its lock (finished, or gone),
 * NULL when it cannot tell (probe_fd -1). SQLITE_OK or an SQLite error. */
struct sqlite3;
int recorder_alive_sql(struct sqlite3 *db, int probe_fd);

/* The trace table's status, end_reason and control as a reader should
 * show them: 'recording' whose recorder is gone reads 'incomplete',
 * 'recorder_gone', no control socket, as the next recorder to open the
 * database will store it. SQL expressions over the trace table's columns,
 * for a SELECT list. */
#define RECORDER_GONE_SQL "status = 'recording' AND runq_recorder_alive(trace_id) = 0"
#define RECORDER_STATUS_SQL "CASE WHEN " RECORDER_GONE_SQL " THEN 'incomplete' ELSE status END"
#define RECORDER_END_REASON_SQL "CASE WHEN " RECORDER_GONE_SQL " THEN 'recorder_gone' ELSE end_reason END"
#define RECORDER_CONTROL_SQL "CASE WHEN " RECORDER_GONE_SQL " THEN NULL ELSE control END"

#endif
