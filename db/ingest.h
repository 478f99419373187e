/*
 * One trace record into the database (db/ only): the rows of the tables
 * that hold records as they came (eevdf_pick, eevdf_place, eevdf_leave,
 * sched_tick, queue_snapshot, counter, sched_set, mark, data_gap, and the
 * stream header's columns of trace), and the transitions the record makes
 * in the derived tables (derive.h). The writer (writer.c) calls these in
 * time order inside its open transaction and keeps the per-record
 * bookkeeping (timestamps, counts, END).
 */
#ifndef RUNQ_DB_INGEST_H
#define RUNQ_DB_INGEST_H

#include <stdint.h>

#include "db/derive.h"
#include "trace/format.h"

/* Record r of ring ci (trace_dec_cpu_index); END is the writer's. */
void ingest_record(struct derive *d, unsigned ci, const struct trace_rec_hdr *r);

/* CPU ci (or TRACE_DEC_GLOBAL) lost packets_lost packets, records_dropped
 * records in its ring and records_late records too late to merge, between
 * its last record and one at ts_next. */
void ingest_gap(struct derive *d, unsigned ci, uint64_t ts_next, uint32_t packets_lost,
                uint32_t records_dropped, uint32_t records_late);

#endif
