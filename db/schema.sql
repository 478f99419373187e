-- The runq trace database (docs/sql.md documents every table and column).
-- One database holds many traces; every row carries trace_id. Names follow
-- Perfetto's where the idea is the same (thread, sched_slice, thread_state,
-- stats) so that SQL written for Perfetto carries over. Times are ns since
-- the kernel's clock started; virtual times are EEVDF's virtual ns.
-- EEVDF-only columns are NULL in round-robin traces. The indexes are in
-- db/indexes.sql: the writer builds them when a trace is finished, which
-- is several times faster than keeping them up to date row by row.
--
-- This is the current schema version (PRAGMA user_version, db/migrate.c):
-- a new database gets it whole, an older one is brought to it by steps.
-- A change here is a new step there, in the same commit: tests/trace_migrate.sh
-- fails when a database brought up from version 1 differs from a new one.

CREATE TABLE IF NOT EXISTS trace (
    trace_id       INTEGER PRIMARY KEY,
    created        TEXT NOT NULL,     -- wall-clock UTC time the recording began
    source         TEXT,              -- socket path or file name
    status         TEXT NOT NULL,     -- recording | complete | incomplete
    end_reason     TEXT,              -- end | eof | truncated | interrupted
    format_version INTEGER,
    ncpus          INTEGER,
    tick_hz        INTEGER,
    tsc_hz         INTEGER,
    keyframe_ns    INTEGER,
    policy         TEXT,              -- rr | eevdf
    features       INTEGER,           -- EEVDF feature bit mask
    feature_names  TEXT,              -- comma-separated, bit order
    cmdline        TEXT,
    start_ts       INTEGER,           -- first record
    end_ts         INTEGER,           -- last record
    records        INTEGER,           -- records stored so far
    control        TEXT,              -- live only: Unix socket taking command lines for the kernel
    engine         TEXT,              -- what made it: runq-kernel | linux (schema 9)
    engine_version TEXT               -- linux: the host kernel's release (uname -r); runq-kernel: NULL
);

CREATE TABLE IF NOT EXISTS cpu (
    trace_id INTEGER NOT NULL,
    cpu      INTEGER NOT NULL,
    packets  INTEGER,
    records  INTEGER,
    first_ts INTEGER,
    last_ts  INTEGER,
    PRIMARY KEY (trace_id, cpu)
);

CREATE TABLE IF NOT EXISTS thread (
    utid      INTEGER PRIMARY KEY,    -- unique in the whole database
    trace_id  INTEGER NOT NULL,
    tid       INTEGER NOT NULL,       -- the kernel's task id
    name      TEXT,
    nice      INTEGER,
    slice_ns  INTEGER,                -- requested slice (0: policy default)
    cpu       INTEGER,                -- home CPU
    is_idle   INTEGER NOT NULL DEFAULT 0,
    pinned    INTEGER,
    parent_utid INTEGER,
    start_ts  INTEGER,                -- TASK_NEW, or first seen
    end_ts    INTEGER,                -- TASK_EXIT
    class     TEXT,                   -- fair | rt: its scheduling class, latest known (schema 8)
    rt_prio   INTEGER,                -- rt: 1..99 (99 highest); fair: 0
    rt_policy TEXT                    -- rt: fifo | rr; fair: NULL
);

CREATE TABLE IF NOT EXISTS sched_slice (
    id         INTEGER PRIMARY KEY,
    trace_id   INTEGER NOT NULL,
    ts         INTEGER NOT NULL,
    dur        INTEGER NOT NULL,
    cpu        INTEGER NOT NULL,
    utid       INTEGER NOT NULL,
    end_state  TEXT,                  -- R, R+, S, X; NULL: unknown (gap, trace end)
    end_reason TEXT,                  -- LEAVE reason, or gap / trace_end / switch
    priority   INTEGER                -- 120 + nice, as Linux reports it
);

CREATE TABLE IF NOT EXISTS thread_state (
    id         INTEGER PRIMARY KEY,
    trace_id   INTEGER NOT NULL,
    ts         INTEGER NOT NULL,
    dur        INTEGER NOT NULL,
    utid       INTEGER NOT NULL,
    state      TEXT NOT NULL,         -- Running, R, R+, S, X, ? (unknown: a gap)
    cpu        INTEGER,               -- where it ran or is queued
    waker_utid INTEGER                -- for R after a wakeup: who woke it
);

CREATE TABLE IF NOT EXISTS wakeup (
    id        INTEGER PRIMARY KEY,
    trace_id  INTEGER NOT NULL,
    utid      INTEGER NOT NULL,       -- the task woken
    ts_wake   INTEGER NOT NULL,
    ts_run    INTEGER,                -- when it next ran; NULL: never seen (gap, end)
    latency   INTEGER,                -- ts_run - ts_wake
    waker     INTEGER,                -- utid of the waker; NULL: timer or interrupt
    cpu       INTEGER,                -- the wakee's CPU
    waker_cpu INTEGER
);

-- A fair task put back on its queue because a higher class (RT) took its
-- CPU (a LEAVE `release`), and how long until it ran again: the bounce ->
-- run population, beside wakeup's wake -> run (schema 8).
CREATE TABLE IF NOT EXISTS bounce (
    id        INTEGER PRIMARY KEY,
    trace_id  INTEGER NOT NULL,
    utid      INTEGER NOT NULL,       -- the task bounced
    ts_bounce INTEGER NOT NULL,       -- the LEAVE release: when it was put back
    ts_run    INTEGER,                -- its next PICK, on any CPU; NULL: never seen (gap, end)
    latency   INTEGER,                -- ts_run - ts_bounce
    cpu       INTEGER,                -- where it was bounced
    run_cpu   INTEGER,                -- where it ran next
    by_class  TEXT                    -- the class that took the CPU: rt
);

-- A task moved between CPUs (a MIGRATE record, trace format 5; schema
-- 12): the rule that moved it and the two CPUs' loads as that rule saw
-- them, just before the move. A queued task's move (queued 1) is followed
-- by its eevdf_leave `migrate` on src_cpu; every move by its eevdf_place
-- `migrate` on dst_cpu. migration_load has every CPU's load at the move.
CREATE TABLE IF NOT EXISTS migration (
    id          INTEGER PRIMARY KEY,
    trace_id    INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    utid        INTEGER NOT NULL,     -- the task moved
    src_cpu     INTEGER NOT NULL,
    dst_cpu     INTEGER NOT NULL,
    reason      TEXT NOT NULL,        -- wake_idle_prev wake_idle_sibling wake_affine newidle periodic affinity rt_release
    queued      INTEGER NOT NULL,     -- 1: it left a queue; 0: it was waking
    src_nr      INTEGER,              -- src_cpu's runnable tasks, the running one (and the mover) included
    src_running INTEGER,              -- 1: a task was on src_cpu
    src_load    INTEGER,              -- src_cpu's fair load: runnable weights summed (1024 a nice-0 task)
    dst_nr      INTEGER,
    dst_running INTEGER,
    dst_load    INTEGER
);

-- Every CPU's load at a move: one row a CPU, the move being migration's
-- row of the same trace_id, ts and utid (schema 12).
CREATE TABLE IF NOT EXISTS migration_load (
    trace_id    INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    utid        INTEGER NOT NULL,
    cpu         INTEGER NOT NULL,
    nr_running  INTEGER NOT NULL,
    running     INTEGER NOT NULL,
    load        INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS eevdf_pick (
    id          INTEGER PRIMARY KEY,
    trace_id    INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    cpu         INTEGER NOT NULL,
    prev_utid   INTEGER,
    next_utid   INTEGER,
    why         TEXT,                 -- tick ipi yield block slice preempt preempt_short idle exit
    v           INTEGER,              -- V at the pick
    vruntime    INTEGER,              -- next's
    deadline    INTEGER,              -- next's
    lag         INTEGER,              -- next's: V - vruntime
    nr_eligible INTEGER,
    nr_runnable INTEGER,
    touched     INTEGER,
    cost_ns     INTEGER
);

CREATE TABLE IF NOT EXISTS eevdf_place (
    id          INTEGER PRIMARY KEY,
    trace_id    INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    cpu         INTEGER NOT NULL,
    utid        INTEGER NOT NULL,
    reason      TEXT,                 -- new wake migrate requeue
    vruntime    INTEGER,
    deadline    INTEGER,
    lag_before  INTEGER,
    lag_after   INTEGER,
    v           INTEGER,
    weight      INTEGER,
    nr_runnable INTEGER,
    -- A join by waking: the wakeup check (trace format 3; all NULL before).
    -- The 0/1 columns are the JOIN's jflags in bit order (db/events.h).
    curr_utid      INTEGER,           -- the CPU's current task at the check; NULL: none
    wake_check     TEXT,              -- preempt kept none
    curr_vruntime  INTEGER,           -- current's, at the check
    curr_deadline  INTEGER,
    curr_vprot     INTEGER,           -- its protected stretch lasts while its vruntime is short of this
    requeue        INTEGER,           -- a delayed task woken where it still was
    charged_first  INTEGER,           -- current charged before its lag was taken
    clipped        INTEGER,           -- DELAY_ZERO clipped its positive lag to 0
    wakee_eligible INTEGER,
    curr_eligible  INTEGER,
    curr_protected INTEGER,
    cut_short      INTEGER,           -- PREEMPT_SHORT cut current's protection
    pending        INTEGER            -- a decision was already due: not asked
);

CREATE TABLE IF NOT EXISTS eevdf_leave (
    id       INTEGER PRIMARY KEY,
    trace_id INTEGER NOT NULL,
    ts       INTEGER NOT NULL,
    cpu      INTEGER NOT NULL,
    utid     INTEGER NOT NULL,
    reason   TEXT,                    -- block sleep yield preempt exit migrate delayed dequeued release
    vruntime INTEGER,
    lag      INTEGER,
    v        INTEGER,
    run_ns   INTEGER,                 -- the stint that ended
    deadline INTEGER,                 -- virtual deadline now (the stint may have renewed it)
    by_class TEXT                     -- release: the class that took the CPU (rt); else NULL (schema 8)
);

CREATE TABLE IF NOT EXISTS sched_tick (
    trace_id    INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    cpu         INTEGER NOT NULL,
    utid        INTEGER,
    v           INTEGER,
    nr_runnable INTEGER
);

CREATE TABLE IF NOT EXISTS queue_snapshot (
    trace_id   INTEGER NOT NULL,
    ts         INTEGER NOT NULL,
    cpu        INTEGER NOT NULL,
    v          INTEGER,
    utid       INTEGER NOT NULL,
    is_current INTEGER NOT NULL,
    eligible   INTEGER,
    delayed    INTEGER,
    nice       INTEGER,
    weight     INTEGER,
    vruntime   INTEGER,
    deadline   INTEGER,
    lag        INTEGER,
    slice_ns   INTEGER,
    protected  INTEGER                -- its vruntime short of its protected stretch's end; NULL: not known (schema 10)
);

-- Linux traces with internals (schema 10): at each pick of a scenario
-- thread, the level above its queue (autogroup: the session's group entity).
CREATE TABLE IF NOT EXISTS linux_group (
    trace_id   INTEGER NOT NULL,
    ts         INTEGER NOT NULL,      -- the pick's (eevdf_pick.ts)
    cpu        INTEGER NOT NULL,
    depth      INTEGER NOT NULL,      -- the group entity's se.depth (0: it sits in the CPU's root queue)
    weight     INTEGER,               -- the group entity's weight: its task group's share on this CPU
    vruntime   INTEGER,
    deadline   INTEGER,
    lag        INTEGER,               -- V (of the queue it sits in) - vruntime
    slice_ns   INTEGER,
    eligible   INTEGER,
    is_current INTEGER,               -- the group is that queue's current
    v          INTEGER,               -- V of the queue it sits in
    nr_queued  INTEGER                -- entities in that queue: other sessions' groups, tasks of the root
);

CREATE TABLE IF NOT EXISTS counter (
    trace_id INTEGER NOT NULL,
    ts       INTEGER NOT NULL,
    cpu      INTEGER NOT NULL,
    name     TEXT NOT NULL,           -- decisions decision_ns switches wakes ticks idle_ns busy_ns ring_used
                                      -- releases_rt rt_ns rt_throttled migrations (trace format 4)
                                      -- trace_records trace_timed trace_timed_ns (the probe effect)
    value    INTEGER NOT NULL         -- cumulative since boot
);

CREATE TABLE IF NOT EXISTS sched_set (
    trace_id  INTEGER NOT NULL,
    ts        INTEGER NOT NULL,
    utid      INTEGER,                -- NULL for global settings
    what      TEXT NOT NULL,          -- nice slice feature policy hz class knob
    name      TEXT,                   -- feature, policy or knob name; class: fair fifo rr
    old_value INTEGER,
    new_value INTEGER
);

CREATE TABLE IF NOT EXISTS mark (
    trace_id INTEGER NOT NULL,
    ts       INTEGER NOT NULL,
    cpu      INTEGER,                 -- NULL: stream-wide
    source   TEXT,                    -- shell host kernel
    name     TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS data_gap (
    trace_id        INTEGER NOT NULL,
    cpu             INTEGER NOT NULL,
    ts_start        INTEGER,          -- last record before the gap
    ts_end          INTEGER,          -- first record after it
    packets_lost    INTEGER,
    records_dropped INTEGER,
    records_late    INTEGER           -- arrived too late to merge, not stored (NULL before version 4)
);

CREATE TABLE IF NOT EXISTS stats (
    trace_id    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    idx         INTEGER,              -- CPU for per-CPU rows; NULL: whole stream
    severity    TEXT NOT NULL,        -- info | data_loss | error
    value       INTEGER NOT NULL,
    description TEXT
);

-- Scenarios and experiments (docs/scenarios.md, docs/experiments.md). An
-- experiment is a matrix of cells (one value of each vary axis) run
-- `repeats` times; each run of a scenario is a row of scenario, with its
-- trace when the engine records one (the kernel), NULL on paper (sim).
CREATE TABLE IF NOT EXISTS experiment (
    experiment_id INTEGER PRIMARY KEY,
    created       TEXT NOT NULL,     -- wall-clock UTC time it began
    file          TEXT,              -- the scenario file
    engine        TEXT NOT NULL,     -- kernel | sim | linux, or several: kernel,linux,sim
    axes          TEXT,              -- the vary keys, comma-separated, slowest first
    cells         INTEGER NOT NULL,
    repeats       INTEGER NOT NULL,
    shard         TEXT,              -- I/N when one shard of the matrix ran here; NULL: all
    columns       TEXT,              -- the table's columns, TASK.METRIC comma-separated
    command       TEXT               -- the command line
);

CREATE TABLE IF NOT EXISTS scenario (
    scenario_id   INTEGER PRIMARY KEY,
    experiment_id INTEGER,           -- NULL: run alone
    cell          INTEGER,           -- 0-based, the first axis slowest
    repeat        INTEGER,           -- 0-based
    seed          INTEGER NOT NULL,
    trace_id      INTEGER,           -- its trace; NULL when not recorded
    engine        TEXT NOT NULL,     -- kernel | sim | linux
    params        TEXT,              -- the cell: KEY=VALUE, space-separated
    run_ns        INTEGER,
    status        TEXT NOT NULL,     -- ok | failed
    error         TEXT,              -- why it failed
    -- no comma in the comments below: DROP COLUMN of a last column takes
    -- the last comma before it for the separator (tests/trace_migrate.sh)
    text          TEXT,              -- the scenario as run in the scenario format
    foreign_ns    INTEGER,           -- linux (schema 11): time of its CPUs in the window neither its own nor idle; NULL: not measured
    disturbed     INTEGER            -- linux (schema 11): 1 when foreign_ns passed 2 % of run_ns (else 0); NULL: not measured
);

CREATE TABLE IF NOT EXISTS scenario_task (
    scenario_id INTEGER NOT NULL,
    instance    INTEGER NOT NULL,    -- its place once counts are expanded
    task        TEXT NOT NULL,       -- its task line's name (the group)
    idx         INTEGER NOT NULL,    -- its place in that line
    name        TEXT NOT NULL,       -- hog3
    tid         INTEGER,             -- the engine's task id (thread.tid); NULL on paper
    utid        INTEGER,             -- its thread row in the trace; NULL when not recorded
    cpu         INTEGER,
    window_ns   INTEGER,             -- measured from its arrival to the end
    runtime_ns  INTEGER,
    wakeups     INTEGER,
    missed      INTEGER,
    stalls      INTEGER,
    dropped     INTEGER,             -- wakeups whose lateness was not kept
    p50_ns      INTEGER,
    p90_ns      INTEGER,
    p99_ns      INTEGER,
    p999_ns     INTEGER,
    max_ns      INTEGER,
    iters       INTEGER,             -- NULL on paper
    vcsw        INTEGER,
    ivcsw       INTEGER,
    reads       INTEGER,             -- pipe reads that got their bytes: its handoffs (schema 7)
    PRIMARY KEY (scenario_id, instance)
);

CREATE TABLE IF NOT EXISTS scenario_metric (
    scenario_id INTEGER NOT NULL,
    task        TEXT NOT NULL,       -- a task line
    metric      TEXT NOT NULL,       -- stall p50 p99 share work ... (docs/scenarios.md)
    value       REAL,                -- NULL: the engine cannot say
    PRIMARY KEY (scenario_id, task, metric)
);

-- Each task's switches away from it, as the kernel counts them
-- (kernel/sched/core.c, schedule(): nvcsw, nivcsw): a slice that ended
-- because the task blocked, slept, exited or yielded is a voluntary
-- switch, one whose task was still runnable (preempted, or released to
-- a higher class) an involuntary one. A slice ends only when another task
-- is picked, so a task that blocks and is picked again at once (next ==
-- prev) switched nothing; a task moved between queues (migrate) was not
-- running and switched nothing either.
-- Slices cut by a gap or the trace's end, and the idle task's turns (no
-- LEAVE), are neither. db/events.c's leave_meaning says the same of each
-- reason (tests/top_model_test.c holds the two together).
CREATE VIEW IF NOT EXISTS thread_switches AS
SELECT trace_id, utid, name, voluntary, involuntary,
       CAST(involuntary AS REAL) / NULLIF(voluntary + involuntary, 0) AS involuntary_share
FROM (SELECT t.trace_id, t.utid, t.name,
             COUNT(CASE WHEN s.end_reason IN ('block', 'sleep', 'exit', 'yield', 'delayed') THEN 1 END) AS voluntary,
             COUNT(CASE WHEN s.end_reason IN ('preempt', 'release') THEN 1 END) AS involuntary
      FROM thread t LEFT JOIN sched_slice s ON s.utid = t.utid
      GROUP BY t.utid);
