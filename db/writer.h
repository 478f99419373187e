/*
 * The trace database writer: turns a time-ordered stream of trace records
 * into rows of db/schema.sql, in batched transactions with prepared
 * statements, WAL mode. Besides the raw event tables (eevdf_pick,
 * eevdf_place, eevdf_leave, sched_tick, queue_snapshot, counter, sched_set,
 * mark) it derives sched_slice, thread_state and wakeup as it goes, with one
 * state machine per task and per CPU (docs/sql.md says what each state
 * means).
 *
 * Its parts, each with its contract in its header: writer.c the life of a
 * writer (open, commit, finish, the recorder lock, the reserve for a full
 * disk), migrate.c schema versions, batch.c statements and batching,
 * ingest.c one record's rows, derive.c the derived tables.
 *
 * Contract:
 *   - records arrive in timestamp order across CPUs (trace/recorder/record.c merges
 *     the per-CPU packets); a record a little out of order is stored as is
 *     and the durations it would make negative are clamped to 0, and a
 *     CPU's slice to start no earlier than its last one ended;
 *   - db_writer_gap() says that CPU cpu lost records before the next one:
 *     every interval open on that CPU ends at the CPU's last record, is
 *     followed by an unknown ('?') stretch, and is never stretched across;
 *   - db_writer_record() and db_writer_gap() only copy the record (or
 *     gap) into memory, in order: the hold, at most 50,000 of them in at
 *     most 8 MiB. Their rows are written by the next commit: when the
 *     hold is full, at db_writer_commit() and at db_writer_finish();
 *   - the database is written only inside a commit's transaction, so a
 *     writer holds SQLite's write lock only while it writes, and several
 *     writers (recorders) may record into one database at once, each
 *     taking its turn between the others' commits. A commit waits for the
 *     other writer's transaction to end, saying so (say) after 2 s,
 *     up to 600 s (RUNQ_WRITER_WAIT_S seconds if set); then it fails
 *     (SQLITE_BUSY). db_writer_commit() alone does not wait: it leaves the
 *     records held for the next commit;
 *   - a utid is unique in the database: each commit takes the next one
 *     from MAX(thread.utid) inside its transaction, and writes the thread
 *     row of every utid it gives before it commits, so two writers cannot
 *     give the same one;
 *   - each commit leaves a readable database: the trace row, threads and
 *     stats so far are written in the same transaction;
 *   - db_writer_finish() closes what is open at the last timestamp, writes
 *     the status, commits, and then creates the indexes of db/indexes.sql
 *     if they do not exist yet. After it only db_writer_close() is valid.
 */
#ifndef RUNQ_DB_WRITER_H
#define RUNQ_DB_WRITER_H

#include <stdint.h>

#include "trace/decode.h"
#include "trace/format.h"

struct db_writer;

/* Where a writer's lines for the user go: db/ prints nothing, so say
 * gets each line (no newline) for the caller to print with its own
 * prefix: the first failure when it happens ("database: eevdf_pick: disk
 * I/O error", "out of memory"), and a wait's progress ("waiting for
 * another recorder's transaction (2 s; gives up at 600 s)"). */
typedef void db_writer_say_fn(void *arg, const char *line);

/* Opens (creating if needed) the database at path, brings its schema to
 * the current version (migrate.h; a database newer than this runq is
 * refused), and starts a trace with status 'recording'. say (may be NULL:
 * the lines go nowhere) and say_arg are the writer's for its life, from
 * the opening's own waits on. Returns NULL with a one-line message in err
 * on failure. */
struct db_writer *db_writer_open(const char *path, const char *source, db_writer_say_fn *say, void *say_arg,
                                 char *err, size_t errlen);

/* The trace's id (a row of table trace). */
int64_t db_writer_trace_id(const struct db_writer *w);

/* Where loss counts come from (written to stats at each commit); may be NULL. */
void db_writer_set_decoder(struct db_writer *w, const struct trace_decoder *d);

/* One record produced by ring `cpu` (0..255 or TRACE_CPU_GLOBAL), held
 * for the next commit (a full hold commits first, waiting if need be). */
void db_writer_record(struct db_writer *w, unsigned cpu, const struct trace_rec_hdr *r);

/* CPU cpu lost packets/records between its last record and one at
 * ts_next (records_late: those the merge could not put in order). */
void db_writer_gap(struct db_writer *w, unsigned cpu, uint64_t ts_next, uint32_t packets_lost,
                   uint32_t records_dropped, uint32_t records_late);

/* Extra stats row kept by the caller (e.g. the merge's late records). */
void db_writer_set_stat(struct db_writer *w, const char *name, const char *severity, uint64_t value,
                        const char *description);

/* Did the stream say it ended cleanly (END record)? */
int db_writer_saw_end(const struct db_writer *w);
/* Records stored so far. */
uint64_t db_writer_records(const struct db_writer *w);

/* Commits the held records, unless another writer holds the database:
 * then they stay held, for the next commit. Returns 0 (committed or put
 * off), or -1 after saying the error (say). */
int db_writer_commit(struct db_writer *w);

/* Publishes (path) or withdraws (NULL) the Unix socket on which the
 * recorder takes command lines for the kernel while this trace is live
 * (trace.control; runq top sends its actions there). Outside a batch
 * transaction. */
int db_writer_set_control(struct db_writer *w, const char *path);

/* Names what made the trace (trace.engine, trace.engine_version): a
 * new trace says "runq-kernel"; the Linux engine (host/engine/linux/lxrec.c) says
 * "linux" and the host kernel's release. Outside a batch transaction, as
 * db_writer_set_control. 0, or -1. */
int db_writer_set_engine(struct db_writer *w, const char *engine, const char *version);

/* Closes open intervals, sets status ('complete' or 'incomplete') and
 * end_reason, commits, then builds the indexes. Returns 0; -1 when the
 * trace could not be stored (db_writer_failed says why); 1 when it is
 * stored but the indexes are not (queries work, slower; the next
 * recording into the database builds them). */
int db_writer_finish(struct db_writer *w, const char *status, const char *end_reason);

/* After a failure every call above does nothing. db_writer_failed() says
 * whether one happened: 0, or SQLite's primary result code (SQLITE_FULL:
 * the disk is full). The database keeps what the last successful commit
 * wrote, db_writer_records_committed() records. */
int db_writer_failed(const struct db_writer *w);
uint64_t db_writer_records_committed(const struct db_writer *w);
/* What stopped the writer, for a message: "the disk is full", "another
 * recorder held the database for N s", or SQLite's words for the code;
 * NULL when nothing did. Valid until the next call. */
const char *db_writer_failure(struct db_writer *w);

/* After a failure: drops the open transaction and, in one of its own,
 * marks the trace 'incomplete' with end_reason and stores the stream's
 * final loss counts with not_stored (records read but not stored) as the
 * data_loss row records_not_stored. On a full disk that often still fits;
 * when it does not, it marks the trace alone (a few bytes). Returns 0 when
 * all is stored, 1 when only the mark is, -1 when the trace row still says
 * 'recording'. */
int db_writer_abandon(struct db_writer *w, const char *end_reason, uint64_t not_stored);

void db_writer_close(struct db_writer *w);

/* The indexes, embedded from db/indexes.sql by scripts/embed.sh. */
extern const char db_indexes_sql[];

#endif
