-- Indexes for the common questions (docs/sql.md). Applied by the writer
-- when a trace is finished (db_writer_finish) and by runq sql/report
-- never (they open read-only).
CREATE INDEX IF NOT EXISTS thread_by_tid ON thread (trace_id, tid);
CREATE INDEX IF NOT EXISTS sched_slice_by_cpu ON sched_slice (trace_id, cpu, ts);
CREATE INDEX IF NOT EXISTS sched_slice_by_utid ON sched_slice (utid, ts);
CREATE INDEX IF NOT EXISTS thread_state_by_utid ON thread_state (utid, ts);
CREATE INDEX IF NOT EXISTS wakeup_by_utid ON wakeup (utid, ts_wake);
CREATE INDEX IF NOT EXISTS bounce_by_utid ON bounce (utid, ts_bounce);
CREATE INDEX IF NOT EXISTS eevdf_pick_by_cpu ON eevdf_pick (trace_id, cpu, ts);
CREATE INDEX IF NOT EXISTS eevdf_place_by_utid ON eevdf_place (utid, ts);
CREATE INDEX IF NOT EXISTS eevdf_leave_by_utid ON eevdf_leave (utid, ts);
CREATE INDEX IF NOT EXISTS queue_snapshot_by_cpu ON queue_snapshot (trace_id, cpu, ts);
CREATE INDEX IF NOT EXISTS stats_by_trace ON stats (trace_id, name);
