/*
 * The trace database writer (contract in writer.h): its life from open to
 * close, and what it does besides storing records.
 *
 *   open      takes the recorder lock (recorder_lock.h), brings the schema
 *             to the current version (migrate.c), prepares the statements
 *             (batch.c), and in one transaction marks the traces of gone
 *             recorders incomplete and starts this one; then keeps a
 *             reserve on the disk for the end.
 *   record    copies the record (or gap) into the hold, in order; the
 *             database is not touched;
 *   commit    when the hold is full or the recorder asks: in one write
 *             transaction (BEGIN IMMEDIATE, waiting for another recorder's
 *             to end), takes the next utid from the database, stores the
 *             held records' rows (ingest.c, and derive.c for the derived
 *             tables), then the rows that say where the trace stands
 *             (thread, stats, cpu, trace), so that every commit leaves a
 *             readable database;
 *   finish    closes what is open, commits, builds the indexes;
 *   abandon   after a failure (a full disk): gives back the reserve and
 *             marks the trace incomplete in what room that makes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bug.h"
#include "db/batch.h"
#include "db/derive.h"
#include "db/ingest.h"
#include "db/migrate.h"
#include "db/recorder_lock.h"
#include "db/writer.h"

/* What a recorder holds between commits (the contract in writer.h): at
 * most HOLD_RECORDS records and gaps, in at most HOLD_BYTES. A commit
 * holds the write lock while it stores them, about 0.3 s for 50,000 at
 * tests/trace/trace_bench.sh's rate: so a reader sees a recording grow, and
 * another recorder waits, about as long as a quarter of a second, the
 * recorder's own commit period. They take about 4 MB (a record is 60 bytes
 * on average, its header here 24); the byte bound is for streams of large
 * records (keyframes of many tasks). */
#define HOLD_RECORDS 50000
#define HOLD_BYTES (8u << 20)

/* How long a writer waits for another's transaction before it gives up:
 * WRITER_WAIT_S, or RUNQ_WRITER_WAIT_S seconds (the tests' way to see the
 * give-up). The longest a working recorder keeps the others out is its
 * index build at the end, 7 s for 2 million records here
 * (tests/trace/trace_bench.sh): ten minutes is for traces a hundred times
 * larger; longer is a recorder that is stuck. */
#define WRITER_WAIT_S 600
/* After giving up, the mark that the trace is incomplete waits no longer. */
#define ABANDON_WAIT_MS 5000

/* One held record or gap; a record's bytes follow it. */
struct held {
    uint64_t ts_next;                        /* a gap's */
    uint32_t packets_lost, records_dropped; /* a gap's */
    uint32_t records_late;                   /* a gap's */
    uint32_t bytes;                          /* the entry's, this header and padding included */
    uint16_t cpu;
    uint16_t is_gap;
    uint32_t pad;
};
_Static_assert(sizeof(struct held) % 8 == 0, "entries stay 8-byte aligned");
_Static_assert(HOLD_BYTES >= sizeof(struct held) + UINT16_MAX + 7, "the hold takes any record (16-bit size)");

#define MAX_EXTRA_STATS 16
struct extra_stat {
    char name[48], severity[16], description[96];
    uint64_t value;
};

struct db_writer {
    struct db_batch b;          /* the connection, its statements, the first failure */
    struct derive d;            /* tasks, CPUs and the derived tables' state */
    int saw_end;
    char *reserve;              /* the room kept for db_writer_abandon (NULL: none) */
    int lock_fd;                /* holds this trace's recorder lock (recorder_lock.h); -1: none */
    uint8_t *hold;              /* HOLD_BYTES: the held records and gaps, in order */
    size_t held_bytes, nheld;
    uint64_t records, start_ts, end_ts;
    uint64_t records_committed; /* records at the last successful commit */
    int have_ts;
    const struct trace_decoder *dec;
    struct extra_stat extra[MAX_EXTRA_STATS];
    int nextra;
    char failure[64];           /* db_writer_failure's words */
};

static int commit_with(struct db_writer *w, const char *status, const char *end_reason, int wait);

/* ---- records ---- */

/* Room for one more held entry of payload bytes, after a commit (waiting
 * for another writer if need be) when the hold is full; NULL after a
 * failure. */
static struct held *hold(struct db_writer *w, size_t payload)
{
    uint32_t bytes = (uint32_t)((sizeof(struct held) + payload + 7) & ~(size_t)7);
    if (w->nheld == HOLD_RECORDS || w->held_bytes + bytes > HOLD_BYTES)
        commit_with(w, "recording", NULL, 1);
    if (w->b.failed)
        return NULL;
    /* a commit that did not fail stored the hold and emptied it */
    BUG_ON(w->nheld >= HOLD_RECORDS || w->held_bytes + bytes > HOLD_BYTES);
    struct held *h = (struct held *)(w->hold + w->held_bytes);
    *h = (struct held){ .bytes = bytes };
    w->held_bytes += bytes;
    w->nheld++;
    return h;
}

void db_writer_record(struct db_writer *w, unsigned cpu, const struct trace_rec_hdr *r)
{
    BUG_ON(r->size < sizeof *r); /* a whole record: its producer (the decoder, lxrec) made sure */
    if (r->type == TRACE_REC_END)
        w->saw_end = 1; /* after a failure too: the recorder reads on to the end, storing nothing */
    struct held *h = w->b.failed ? NULL : hold(w, r->size);
    if (!h)
        return;
    h->cpu = (uint16_t)cpu;
    memcpy(h + 1, r, r->size);
}

void db_writer_gap(struct db_writer *w, unsigned cpu, uint64_t ts_next, uint32_t packets_lost,
                   uint32_t records_dropped, uint32_t records_late)
{
    struct held *h = w->b.failed ? NULL : hold(w, 0);
    if (!h)
        return;
    h->cpu = (uint16_t)cpu;
    h->is_gap = 1;
    h->ts_next = ts_next;
    h->packets_lost = packets_lost;
    h->records_dropped = records_dropped;
    h->records_late = records_late;
}

/* One record's rows, and the writer's bookkeeping of it. */
static void store_record(struct db_writer *w, unsigned cpu, const struct trace_rec_hdr *r)
{
    uint64_t ts = r->ts_ns;
    unsigned ci = trace_dec_cpu_index((uint16_t)cpu);
    BUG_ON(ci >= TRACE_DEC_NCPU); /* a CPU of the format or the stream's own (writer.h) */
    if (r->type != TRACE_REC_STREAM) {
        if (!w->have_ts || ts < w->start_ts)
            w->start_ts = ts;
        if (!w->have_ts || ts > w->end_ts)
            w->end_ts = ts;
        w->have_ts = 1;
    }
    struct wcpu *c = &w->d.cpu[ci];
    if (!c->seen) {
        c->seen = 1;
        c->first_ts = ts;
    }
    c->last_ts = ts > c->last_ts ? ts : c->last_ts;
    c->records++;
    if (r->type != TRACE_REC_END)
        ingest_record(&w->d, ci, r);
    w->records++;
}

/* The held records' and gaps' rows, in the order they came; the hold is
 * empty after. Inside the commit's transaction. */
static void store_held(struct db_writer *w)
{
    size_t n = 0;
    for (size_t off = 0; off < w->held_bytes && !w->b.failed; n++) {
        const struct held *h = (const struct held *)(w->hold + off);
        BUG_ON(h->bytes < sizeof *h || h->bytes > w->held_bytes - off); /* the entries tile the hold */
        if (h->is_gap)
            ingest_gap(&w->d, trace_dec_cpu_index(h->cpu), h->ts_next, h->packets_lost, h->records_dropped,
                       h->records_late);
        else
            store_record(w, h->cpu, (const struct trace_rec_hdr *)(h + 1));
        off += h->bytes;
    }
    BUG_ON(!w->b.failed && n != w->nheld); /* each entry counted once, in hold() */
    w->held_bytes = 0;
    w->nheld = 0;
}

/* ---- commit, stats ---- */

static void stat_row(struct db_writer *w, const char *name, int idx, const char *sev, uint64_t v,
                     const char *desc)
{
    sqlite3_stmt *s = w->b.st[S_STAT];
    B_INT(s, 1, w->b.trace_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    B_OPT(s, 3, idx >= 0, idx);
    sqlite3_bind_text(s, 4, sev, -1, SQLITE_STATIC);
    B_INT(s, 5, v);
    B_TXT(s, 6, desc);
    run(&w->b, s, "stats");
}

static void write_stats(struct db_writer *w)
{
    sqlite3_stmt *s = w->b.st[S_STAT_DEL];
    B_INT(s, 1, w->b.trace_id);
    run(&w->b, s, "stats");
    if (w->dec) {
        const struct trace_dec_counts *c = &w->dec->c;
        static const struct {
            const char *name, *sev, *desc;
            size_t off;
            int per_cpu;
        } rows[] = {
#define ROW(f, sev, pc, desc) { #f, sev, desc, offsetof(struct trace_dec_counts, f), pc }
            ROW(bytes, "info", 0, "bytes read"),
            ROW(packets, "info", 1, "good packets"),
            ROW(records, "info", 1, "records decoded"),
            ROW(bytes_skipped, "data_loss", 0, "garbage bytes skipped while resynchronising"),
            ROW(resyncs, "data_loss", 0, "times the reader lost and found the packet framing"),
            ROW(crc_errors, "data_loss", 1, "packets dropped for a bad payload CRC"),
            ROW(packets_lost, "data_loss", 1, "packets missing by sequence number"),
            ROW(records_dropped, "data_loss", 1, "records the kernel's ring dropped"),
            ROW(gaps, "data_loss", 1, "places where something was lost"),
            ROW(bytes_truncated, "data_loss", 0, "bytes of a packet cut off at the end"),
            ROW(stream_restarts, "error", 1, "new stream headers starting the sequence numbers over"),
            ROW(packets_duplicate, "error", 1, "packets repeating their CPU's last sequence number, dropped"),
            ROW(packets_behind, "error", 1, "packets behind their CPU's sequence (replayed or late), dropped"),
            ROW(packets_after_end, "error", 1, "packets after the END record, which belong to no trace, dropped"),
            ROW(packets_bad_cpu, "error", 1, "packets from a CPU the stream header does not have, dropped"),
            ROW(bytes_dropped, "info", 0, "bytes of the good packets dropped whole (the four rows above)"),
            ROW(bad_records, "error", 1, "malformed records in good packets"),
            ROW(unknown_records, "info", 1, "records of unknown types, skipped"),
#undef ROW
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            uint64_t v;
            memcpy(&v, (const char *)c + rows[i].off, sizeof v);
            stat_row(w, rows[i].name, -1, rows[i].sev, v, rows[i].desc);
            if (!rows[i].per_cpu)
                continue;
            for (unsigned k = 0; k < TRACE_MAX_CPUS; k++) {
                uint64_t pv;
                memcpy(&pv, (const char *)&w->dec->cpu[k] + rows[i].off, sizeof pv);
                if (pv && (w->dec->seq[k].seen || pv))
                    stat_row(w, rows[i].name, (int)k, rows[i].sev, pv, rows[i].desc);
            }
        }
    }
    stat_row(w, "bad_task_ids", -1, "error", w->d.bad_tid, "records naming an impossible task id");
    stat_row(w, "tasks_over_limit", -1, "error", w->d.tasks_over_limit,
             "records naming a new task while the most a trace holds are held (docs/trace-format.md, Bounds), not stored");
    stat_row(w, "bad_cpu_records", -1, "error", w->d.bad_cpu,
             "records naming a CPU the stream header does not have, not stored");
    stat_row(w, "wakeups_unmatched", -1, "info", w->d.wakeups_unmatched,
             "wakeups whose run was not seen (gap, trace end, woken twice)");
    stat_row(w, "bounces_unmatched", -1, "info", w->d.bounces_unmatched,
             "bounces (LEAVE release) whose next run was not seen (gap, trace end)");
    for (int i = 0; i < w->nextra; i++)
        stat_row(w, w->extra[i].name, -1, w->extra[i].severity, w->extra[i].value,
                 w->extra[i].description);
}

static void write_trace_row(struct db_writer *w, const char *status, const char *end_reason)
{
    sqlite3_stmt *s = w->b.st[S_CPU];
    for (unsigned k = 0; k < TRACE_MAX_CPUS; k++) {
        const struct wcpu *c = &w->d.cpu[k];
        if (!c->seen)
            continue;
        B_INT(s, 1, w->b.trace_id);
        B_INT(s, 2, k);
        B_INT(s, 3, w->dec ? w->dec->cpu[k].packets : 0);
        B_INT(s, 4, c->records);
        B_INT(s, 5, c->first_ts);
        B_INT(s, 6, c->last_ts);
        run(&w->b, s, "cpu");
    }
    s = w->b.st[S_TRACE_UPD];
    B_INT(s, 1, w->records);
    B_OPT(s, 2, w->have_ts, w->start_ts);
    B_OPT(s, 3, w->have_ts, w->end_ts);
    sqlite3_bind_text(s, 4, status, -1, SQLITE_STATIC);
    B_TXT(s, 5, end_reason);
    B_INT(s, 6, w->b.trace_id);
    run(&w->b, s, "trace");
}

/* The next free utid, MAX(utid) + 1 (at least 1), or -1 on an SQLite error. */
static int64_t first_free_utid(sqlite3 *db)
{
    sqlite3_stmt *s;
    int64_t utid = -1;
    if (sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(utid),0)+1 FROM thread", -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(s) == SQLITE_ROW)
        utid = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return utid;
}

/* Begins a commit's write transaction and stores the held records in it.
 * 0: begun; 1: another writer holds the database (wait 0 only: nothing
 * done, the records stay held); -1: failed. */
static int commit_begin(struct db_writer *w, int wait)
{
    int rc = batch_begin(&w->b, wait);
    if (rc != 0)
        return rc;
    /* utids are unique across the database, so joins need no trace_id.
     * Another recorder may have added threads since this one's last
     * commit, and it too takes them from the database inside its write
     * transaction: a task gets its utid while the held records are stored
     * (derive_task), below, and its thread row is written (it is dirty)
     * before this transaction commits, so no two writers can give the
     * same utid. Never lower than where this writer is: its own threads
     * are all in the table already, but nothing else guards that. */
    int64_t next = first_free_utid(w->b.db);
    if (next < 0) {
        batch_fail(&w->b, "thread");
        return -1;
    }
    if (next > w->d.next_utid)
        w->d.next_utid = next;
    store_held(w);
    return w->b.failed ? -1 : 0;
}

/* Writes where the trace stands (threads, stats, cpu, trace) and commits
 * the transaction commit_begin() began. 0 or -1. */
static int commit_end(struct db_writer *w, const char *status, const char *end_reason)
{
    BUG_ON(!w->b.in_txn); /* commit_begin began it */
    batch_flush_all(&w->b);
    derive_write_threads(&w->d);
    write_stats(w);
    write_trace_row(w, status, end_reason);
    if (w->b.failed)
        return -1;
    if (batch_exec(&w->b, "COMMIT") != 0)
        return -1;
    w->b.in_txn = 0;
    w->records_committed = w->records;
    return 0;
}

/* The held records and where the trace stands, in one transaction.
 * wait 0: only if no other writer holds the database, else nothing is
 * done (returns 0, the records stay held). 0 or -1. */
static int commit_with(struct db_writer *w, const char *status, const char *end_reason, int wait)
{
    int rc = commit_begin(w, wait);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    return commit_end(w, status, end_reason);
}

int db_writer_commit(struct db_writer *w)
{
    /* The recorder asks every quarter of a second; when another recorder
     * holds the database the records wait for the next ask, or for a full
     * hold, and this recorder reads on meanwhile (QEMU is not held up). */
    return commit_with(w, "recording", NULL, 0);
}

int db_writer_finish(struct db_writer *w, const char *status, const char *end_reason)
{
    if (commit_begin(w, 1) != 0)
        return -1;
    derive_finish(&w->d, w->end_ts);
    if (commit_end(w, status, end_reason) != 0)
        return -1;
    /* Building an index once, sorted, is much cheaper than keeping it up
     * to date during ingest (29 s against 10 s for tests/trace/trace_bench.sh's
     * stream); later traces of the same database do pay for keeping them.
     * All in one transaction, so a reader sees all the indexes or none
     * (no faster than one each: measured, within this machine's noise).
     * IMMEDIATE: it writes, and another recorder may commit between. */
    if (batch_exec(&w->b, "BEGIN IMMEDIATE") != 0)
        return 1;
    if (batch_exec(&w->b, db_indexes_sql) != 0) {
        sqlite3_exec(w->b.db, "ROLLBACK", NULL, NULL, NULL);
        return 1;
    }
    return batch_exec(&w->b, "COMMIT") == 0 ? 0 : 1;
}

int db_writer_failed(const struct db_writer *w)
{
    return w->b.failed ? (w->b.fail_code ? w->b.fail_code : SQLITE_ERROR) : 0;
}

const char *db_writer_failure(struct db_writer *w)
{
    int code = db_writer_failed(w);
    if (code == SQLITE_FULL)
        return "the disk is full";
    if (code != SQLITE_BUSY || !w->b.gave_up_ms)
        return code ? sqlite3_errstr(code) : NULL;
    snprintf(w->failure, sizeof w->failure, "another recorder held the database for %d s",
             w->b.gave_up_ms / 1000);
    return w->failure;
}

uint64_t db_writer_records_committed(const struct db_writer *w)
{
    return w->records_committed;
}

/* ---- a full disk ---- */

/* A full disk leaves no room even for the few pages that mark the trace
 * incomplete: the WAL cannot start over while its last frames wait for a
 * checkpoint, and a checkpoint needs room in the database file. So the
 * writer holds RESERVE_BYTES of the disk in a file beside the database
 * ("<db>-reserve-<trace id>") while it records, and gives them back for
 * that last transaction. Without the file (no room even for it), the mark
 * may not fit; the recorder says so. */
#define RESERVE_BYTES (1 << 20)

/* "<db>-reserve-<trace id>", malloc'd; NULL when out of memory. */
static char *reserve_path(const char *path, int64_t trace_id)
{
    char *p;
    return asprintf(&p, "%s-reserve-%lld", path, (long long)trace_id) < 0 ? NULL : p;
}

static void reserve_room(struct db_writer *w, const char *path)
{
    if (!(w->reserve = reserve_path(path, w->b.trace_id)))
        return;
    int fd = open(w->reserve, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0 && posix_fallocate(fd, 0, RESERVE_BYTES) == 0) {
        close(fd);
        return;
    }
    if (fd >= 0) {
        close(fd);
        unlink(w->reserve);
    }
    free(w->reserve);
    w->reserve = NULL;
}

static void release_room(struct db_writer *w)
{
    if (w->reserve)
        unlink(w->reserve);
    free(w->reserve);
    w->reserve = NULL;
}

/* Marks trace trace_id incomplete with end_reason; its recorder takes no
 * more commands (control NULL). 0 or -1. */
static int mark_incomplete(sqlite3 *db, int64_t trace_id, const char *end_reason)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
                           "UPDATE trace SET status = 'incomplete', end_reason = ?, control = NULL WHERE trace_id = ?",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, end_reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, trace_id);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(s);
    return rc;
}

int db_writer_abandon(struct db_writer *w, const char *end_reason, uint64_t not_stored)
{
    struct db_batch *b = &w->b;
    /* SQLite may have rolled the transaction back itself (a full disk
     * usually does); then there is nothing to roll back. */
    if (!sqlite3_get_autocommit(b->db))
        sqlite3_exec(b->db, "ROLLBACK", NULL, NULL, NULL);
    b->in_txn = 0;
    w->held_bytes = w->nheld = 0;
    release_room(w);
    /* Having waited out another recorder once, a few seconds more: the
     * trace left 'recording' is marked by the next recorder (its lock goes
     * with this process). */
    if (b->fail_code == SQLITE_BUSY && b->wait_ms > ABANDON_WAIT_MS)
        b->wait_ms = ABANDON_WAIT_MS;
    /* First the whole story: the loss counts of the whole stream, the
     * records not stored among them, and the status. */
    int failed = b->failed;
    b->failed = 0;
    b->quiet = 1;
    if (batch_exec(b, "BEGIN IMMEDIATE") == 0) {
        write_stats(w);
        stat_row(w, "records_not_stored", -1, "data_loss", not_stored,
                 "records read after the database stopped taking them (a full disk, an I/O error, "
                 "another recorder holding it too long)");
        if (!b->failed && mark_incomplete(b->db, b->trace_id, end_reason) == 0 && batch_exec(b, "COMMIT") == 0) {
            b->quiet = 0;
            b->failed = failed;
            return 0;
        }
        if (!sqlite3_get_autocommit(b->db))
            sqlite3_exec(b->db, "ROLLBACK", NULL, NULL, NULL);
    }
    /* Then the least: the status alone, a few bytes. */
    int rc = mark_incomplete(b->db, b->trace_id, end_reason);
    b->quiet = 0;
    b->failed = failed;
    return rc == 0 ? 1 : -1;
}

int db_writer_set_control(struct db_writer *w, const char *path)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(w->b.db, "UPDATE trace SET control = ? WHERE trace_id = ?", -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (path)
        sqlite3_bind_text(s, 1, path, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, 1);
    sqlite3_bind_int64(s, 2, w->b.trace_id);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(s);
    return rc;
}

int db_writer_set_engine(struct db_writer *w, const char *engine, const char *version)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(w->b.db, "UPDATE trace SET engine = ?, engine_version = ? WHERE trace_id = ?", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, engine, -1, SQLITE_TRANSIENT);
    B_TXT(s, 2, version);
    sqlite3_bind_int64(s, 3, w->b.trace_id);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(s);
    return rc;
}

/* ---- open, close ---- */

/* WRITER_WAIT_S, or RUNQ_WRITER_WAIT_S seconds (1 to 86400) if set, in ms. */
static int writer_wait_ms(void)
{
    const char *v = getenv("RUNQ_WRITER_WAIT_S");
    char *end;
    long s = v ? strtol(v, &end, 10) : 0;
    return v && *v && !*end && s >= 1 && s <= 86400 ? (int)s * 1000 : WRITER_WAIT_S * 1000;
}

/* SQLite's memory in a recording (docs/trace-format.md, "Bounds"): its
 * page cache, CACHE_KIB, and while the indexes are built at the end a sort
 * buffer as large (SQLite sizes it from the cache); a larger sort spills
 * to temporary files. Held in memory (temp_store=MEMORY, a 64 MiB cache),
 * the index build kept the whole sort: 466 MB for 10 M records, when the
 * rest of a recording needs about 43 MB at any length (issue 30). A
 * larger cache bought no speed (3.5 s for 1 M records at 64 MiB, 3.2 s at
 * 16).
 * HEAP_MAX_MIB caps what SQLite may take whatever this misses (the cap
 * is the process's: a recorder has one connection): at the cap SQLite
 * recycles its cache and works slower (1 M records took 7 s instead of 3
 * under a cap of 1 MiB), and where it cannot, a statement fails with "out
 * of memory" and the recorder stops storing and says so, as at a full
 * disk. */
#define CACHE_KIB 16384
#define HEAP_MAX_MIB 256

/* Opens the database at path, in WAL mode, at the current schema version,
 * with every statement prepared. 0, or -1 with a message in err. */
static int connect_db(struct db_writer *w, const char *path, char *err, size_t errlen)
{
    sqlite3 **db = &w->b.db;
    sqlite3_hard_heap_limit64((sqlite3_int64)HEAP_MAX_MIB << 20);
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "cannot open");
        return -1;
    }
    batch_wait_for_writers(&w->b, writer_wait_ms());
    if (db_check_runq(*db, path, err, errlen) != 0)
        return -1;
    char *msg = NULL;
    /* WAL: readers (runq top, runq sql) see every commit while we write. */
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                                      "PRAGMA cache_size=-%d; PRAGMA temp_store=FILE;", CACHE_KIB);
    if (sqlite3_exec(*db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(*db));
        sqlite3_free(msg);
        return -1;
    }
    if (db_migrate(*db, path, err, errlen) != 0)
        return -1;
    return batch_prepare(&w->b, path, err, errlen);
}

/* Traces left 'recording' by a recorder that is gone (its lock byte free)
 * become 'incomplete', end_reason 'recorder_gone', and its reserve file
 * goes. Inside the opening transaction. 0, or -1 on an SQLite error. */
static int sweep_gone_recorders(struct db_writer *w, const char *path)
{
    if (w->lock_fd < 0)
        return 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(w->b.db, "SELECT trace_id FROM trace WHERE status = 'recording'", -1, &q, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        if (recorder_lock_held(w->lock_fd, id) != 0)
            continue; /* running, or cannot tell: leave it */
        rc = mark_incomplete(w->b.db, id, "recorder_gone");
        char *reserve = reserve_path(path, id);
        if (reserve)
            unlink(reserve);
        free(reserve);
    }
    sqlite3_finalize(q);
    return rc;
}

/* The new trace's row, status 'recording', and its lock, in one write
 * transaction with the sweep: no other recorder can sweep the new trace
 * before its lock is held. 0, or -1 with a message in err. */
static int start_trace(struct db_writer *w, const char *path, const char *source, char *err, size_t errlen)
{
    sqlite3 *db = w->b.db;
    sqlite3_stmt *s;
    time_t now = time(NULL);
    struct tm tm;
    char created[32];
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sweep_gone_recorders(w, path) != 0 ||
        sqlite3_prepare_v2(db, "INSERT INTO trace(created,source,status,records,engine) VALUES(?,?,'recording',0,'runq-kernel')",
                           -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_text(s, 1, created, -1, SQLITE_TRANSIENT);
    B_TXT(s, 2, source);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    w->b.trace_id = sqlite3_last_insert_rowid(db);
    /* A lock that cannot be taken leaves the trace unguarded, as on a file
     * system without such locks; the descriptor stays open all the same:
     * closing it now would drop SQLite's locks. */
    if (w->lock_fd >= 0)
        (void)recorder_lock_take(w->lock_fd, w->b.trace_id);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

struct db_writer *db_writer_open(const char *path, const char *source, db_writer_say_fn *say, void *say_arg,
                                 char *err, size_t errlen)
{
    struct db_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->b.say = say;
    w->b.say_arg = say_arg;
    derive_init(&w->d, &w->b);
    if (!(w->hold = malloc(HOLD_BYTES))) {
        snprintf(err, errlen, "out of memory");
        free(w);
        return NULL;
    }
    /* A database is a regular file: SQLite would put its journal beside
     * anything else (`--db /dev/null` as root left /dev/null-journal). */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file: give a database file (a new one is created)", path);
        free(w->hold);
        free(w);
        return NULL;
    }
    /* Before SQLite opens the file, and closed after it (recorder_lock.h).
     * Without it (a file system without such locks) all still works but
     * a recorder that dies leaves its trace 'recording'. */
    w->lock_fd = recorder_lock_open(path, 1);
    if (connect_db(w, path, err, errlen) != 0 || start_trace(w, path, source, err, errlen) != 0) {
        db_writer_close(w);
        return NULL;
    }
    reserve_room(w, path);
    return w;
}

void db_writer_close(struct db_writer *w)
{
    if (!w)
        return;
    release_room(w);
    if (w->b.in_txn)
        sqlite3_exec(w->b.db, "ROLLBACK", NULL, NULL, NULL);
    batch_finalize(&w->b);
    sqlite3_close(w->b.db);
    if (w->lock_fd >= 0)
        close(w->lock_fd); /* after SQLite's: recorder_lock.h */
    derive_free(&w->d);
    free(w->hold);
    free(w);
}

int64_t db_writer_trace_id(const struct db_writer *w)
{
    return w->b.trace_id;
}

void db_writer_set_decoder(struct db_writer *w, const struct trace_decoder *d)
{
    w->dec = d;
}

void db_writer_set_stat(struct db_writer *w, const char *name, const char *severity, uint64_t value,
                        const char *description)
{
    int i;
    for (i = 0; i < w->nextra; i++)
        if (strcmp(w->extra[i].name, name) == 0)
            break;
    if (i == w->nextra) {
        if (w->nextra == MAX_EXTRA_STATS)
            return;
        w->nextra++;
    }
    snprintf(w->extra[i].name, sizeof w->extra[i].name, "%s", name);
    snprintf(w->extra[i].severity, sizeof w->extra[i].severity, "%s", severity);
    snprintf(w->extra[i].description, sizeof w->extra[i].description, "%s", description);
    w->extra[i].value = value;
}

int db_writer_saw_end(const struct db_writer *w)
{
    return w->saw_end;
}

uint64_t db_writer_records(const struct db_writer *w)
{
    return w->records;
}
