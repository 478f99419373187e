#!/usr/bin/env bash
# Schema versions (db/migrate.c): runq record into databases made by older
# runqs. Each old database is built the way its runq built it: the current
# db/schema.sql less the columns added since (a runq of version 1 had
# neither trace.control nor eevdf_leave.deadline), PRAGMA user_version 0,
# and one old trace in it. After recording into it, the database must have
# the version and the columns of a new one, its old rows intact; recording
# again must work (a step run twice fails: duplicate column); a step that
# fails must leave the database as it was; and a database newer than runq
# is refused in one line and left alone. Prints PASS/FAIL lines.
#
# usage: tests/trace/trace_migrate.sh [RUNQ] [TRACE_GEN]
set -u
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
. tests/lib.sh
# Every table's columns, by name: what a schema is, whatever order and
# comments its CREATE TABLE has; and every view, as defined.
columns() {
    sq "$1" "SELECT m.name || '.' || p.name || ' ' || p.type FROM sqlite_master m, pragma_table_info(m.name) p
             WHERE m.type = 'table' ORDER BY m.name, p.name;
             SELECT 'view ' || name || ': ' || sql FROM sqlite_master WHERE type = 'view' ORDER BY name"
}
version() { sq "$1" "PRAGMA user_version"; }

"$GEN" --ms 200 --out "$T/s.bin" || { echo "FAIL fixture: trace_gen failed"; exit 1; }

# A new database: the reference.
if "$RUNQ" record --db "$T/new.db" --file "$T/s.bin" >/dev/null 2>"$T/new.err"; then
    current=$(version "$T/new.db")
    columns "$T/new.db" >"$T/new.cols"
    if [ "$current" -gt 0 ] 2>/dev/null && [ -s "$T/new.cols" ]; then
        pass "new_database_gets_the_current_version ($current)"
    else
        # Every check below compares with it: none could mean anything.
        echo "FAIL new_database_gets_the_current_version: user_version '$current'"
        exit 1
    fi
else
    echo "FAIL fixture: runq record into a new database: $(cat "$T/new.err")"
    exit 1
fi

# old NAME COLUMN...: $T/NAME.db as a runq without those columns
# (table.column; view.NAME: without that view) made it, holding one old
# trace (id 1) with a LEAVE row and a JOIN row.
old() {
    local name=$1 db=$T/$1.db
    shift
    {
        cat db/schema.sql
        for tc in "$@"; do
            case "${tc%%.*}" in
            view) echo "DROP VIEW ${tc#*.};" ;;
            table) echo "DROP TABLE ${tc#*.};" ;;
            *) echo "ALTER TABLE ${tc%%.*} DROP COLUMN ${tc#*.};" ;;
            esac
        done
        echo "INSERT INTO trace(trace_id, created, source, status, records) VALUES (1, 'then', 'old.bin', 'complete', 1);"
        echo "INSERT INTO thread(utid, trace_id, tid, name) VALUES (1, 1, 7, 'old');"
        echo "INSERT INTO eevdf_leave(trace_id, ts, cpu, utid, reason, run_ns) VALUES (1, 10, 0, 1, 'block', 5);"
        echo "INSERT INTO eevdf_place(trace_id, ts, cpu, utid, reason, lag_before) VALUES (1, 5, 0, 1, 'wake', 3);"
        echo "PRAGMA user_version = 0;"
    } | sq "$db" || { failed "$name" "cannot build the old database"; return 1; }
}
# What version 6 added (trace format 3's wakeup check, the view thread_switches).
V6="eevdf_place.curr_utid eevdf_place.wake_check eevdf_place.curr_vruntime eevdf_place.curr_deadline
    eevdf_place.curr_vprot eevdf_place.requeue eevdf_place.charged_first eevdf_place.clipped eevdf_place.wakee_eligible
    eevdf_place.curr_eligible eevdf_place.curr_protected eevdf_place.cut_short eevdf_place.pending view.thread_switches"
# What version 7 added (a scenario task's pipe reads).
V7="scenario_task.reads"
# What version 8 added (trace format 4's classes: the bounce table; its
# view thread_switches is made again, the same as a new database's).
V8="thread.class thread.rt_prio thread.rt_policy eevdf_leave.by_class table.bounce"
# What version 9 added (the engine that made a trace: runq's kernel or Linux).
V9="trace.engine trace.engine_version"
# What version 10 added (Linux traces with internals: who was protected).
V10="queue_snapshot.protected table.linux_group"
# What version 11 added (a Linux run's foreign CPU time, and disturbed).
V11="scenario.foreign_ns scenario.disturbed"

# migrates NAME: recording into $T/NAME.db brings it to the new schema.
migrates() {
    local name=$1 db=$T/$1.db
    if ! "$RUNQ" record --db "$db" --file "$T/s.bin" >/dev/null 2>"$T/$name.err"; then
        failed "${name}_is_migrated" "runq record exited non-zero: $(head -c 300 "$T/$name.err")"
        return
    fi
    local v old new
    v=$(version "$db")
    old=$(sq "$db" "SELECT COUNT(*) FROM trace WHERE trace_id = 1 AND source = 'old.bin' AND engine = 'runq-kernel'
                    AND (SELECT COUNT(*) FROM eevdf_leave WHERE trace_id = 1 AND deadline IS NULL) = 1
                    AND (SELECT COUNT(*) FROM eevdf_place WHERE trace_id = 1 AND lag_before = 3 AND wake_check IS NULL) = 1")
    new=$(sq "$db" "SELECT MIN((SELECT COUNT(*) FROM eevdf_leave WHERE trace_id = 2 AND deadline IS NOT NULL),
                               (SELECT COUNT(*) FROM thread WHERE trace_id = 2 AND class = 'fair'),
                               (SELECT COUNT(*) FROM eevdf_place WHERE trace_id = 2 AND wake_check IS NOT NULL),
                               (SELECT COUNT(*) FROM thread_switches WHERE trace_id = 2))")
    if [ "$v" != "$current" ]; then
        failed "${name}_is_migrated" "user_version $v, want $current"
    elif ! columns "$db" | diff "$T/new.cols" - >"$T/$name.diff"; then
        failed "${name}_is_migrated" "columns differ from a new database's: $(tr '\n' ' ' <"$T/$name.diff")"
    elif [ "$old" != 1 ] || [ "$new" -lt 1 ] 2>/dev/null; then
        failed "${name}_is_migrated" "old trace kept: $old (want 1); new LEAVEs with a deadline, JOINs with a check, rows of thread_switches: at least $new"
    else
        pass "${name}_is_migrated (to version $v, old trace kept)"
    fi
    if "$RUNQ" record --db "$db" --file "$T/s.bin" >/dev/null 2>"$T/$name.err2" &&
        [ "$(sq "$db" "SELECT COUNT(*) FROM trace")" = 3 ] && [ "$(version "$db")" = "$current" ]; then
        pass "${name}_records_again"
    else
        failed "${name}_records_again" "$(head -c 300 "$T/$name.err2")"
    fi
}

# Version 1 (git show 0069d36:db/schema.sql): none of the later columns.
# shellcheck disable=SC2086
old v1 trace.control eevdf_leave.deadline data_gap.records_late $V6 $V7 $V8 $V9 $V10 $V11 && migrates v1
# Version 2: the control socket, no deadline.
# shellcheck disable=SC2086
old v2 eevdf_leave.deadline data_gap.records_late $V6 $V7 $V8 $V9 $V10 $V11 && migrates v2
# What runqs from version 3 until versions were stamped made: every
# column of version 3, user_version 0.
# shellcheck disable=SC2086
old v3_unstamped data_gap.records_late $V6 $V7 $V8 $V9 $V10 $V11 && migrates v3_unstamped
# Version 3, stamped: no data_gap.records_late.
# shellcheck disable=SC2086
old v3 data_gap.records_late $V6 $V7 $V8 $V9 $V10 $V11 && sq "$T/v3.db" "PRAGMA user_version = 3" && migrates v3
# Version 5 (the experiments' tables): no wakeup check, no thread_switches.
# shellcheck disable=SC2086
old v5 $V6 $V7 $V8 $V9 $V10 $V11 && sq "$T/v5.db" "PRAGMA user_version = 5" && migrates v5
# Version 6 (the wakeup check): no scenario_task.reads.
# shellcheck disable=SC2086
old v6 $V7 $V8 $V9 $V10 $V11 && sq "$T/v6.db" "PRAGMA user_version = 6" && migrates v6

# Version 7 (a scenario task's reads): no classes, no bounce table, and
# its thread_switches counted a slice ended by 'migrate' involuntary.
v7_view=$(sed -n '/^CREATE VIEW IF NOT EXISTS thread_switches/,/;$/p' db/schema.sql | sed "s/'preempt', 'release'/'preempt', 'migrate'/")
# shellcheck disable=SC2086
old v7 $V8 $V9 $V10 $V11 && sq "$T/v7.db" "PRAGMA user_version = 7; DROP VIEW thread_switches; $v7_view" && migrates v7
# Version 8 (the classes): no engine; its traces were runq's kernel's.
# shellcheck disable=SC2086
old v8 $V9 $V10 $V11 && sq "$T/v8.db" "PRAGMA user_version = 8" && migrates v8
# Version 9 (the engine): no queue_snapshot.protected.
# shellcheck disable=SC2086
old v9 $V10 $V11 && sq "$T/v9.db" "PRAGMA user_version = 9; UPDATE trace SET engine = 'runq-kernel'" && migrates v9
# Version 10 (who was protected): no foreign CPU time on a scenario run.
# shellcheck disable=SC2086
old v10 $V11 && sq "$T/v10.db" "PRAGMA user_version = 10; UPDATE trace SET engine = 'runq-kernel'" && migrates v10

# A step that fails (version 1 less its eevdf_leave: step 3 cannot run)
# leaves the database as it was: step 2's column is rolled back too.
# shellcheck disable=SC2086
if old broken trace.control eevdf_leave.deadline data_gap.records_late $V6 $V7 $V8 $V9 $V10 $V11 && sq "$T/broken.db" "DROP TABLE eevdf_leave"; then
    "$RUNQ" record --db "$T/broken.db" --file "$T/s.bin" >/dev/null 2>"$T/broken.err"
    rc=$?
    has_control=$(sq "$T/broken.db" "SELECT COUNT(*) FROM pragma_table_info('trace') WHERE name = 'control'")
    if [ "$rc" = 1 ] && grep -q 'migrating the schema from version 2 to 3' "$T/broken.err" &&
        [ "$has_control" = 0 ] && [ "$(version "$T/broken.db")" = 0 ] &&
        [ "$(sq "$T/broken.db" "SELECT COUNT(*) FROM trace")" = 1 ]; then
        pass failed_migration_changes_nothing
    else
        failed failed_migration_changes_nothing "exit $rc, control column $has_control, user_version $(version "$T/broken.db"): $(head -c 300 "$T/broken.err")"
    fi
fi

# A database newer than this runq: refused in one line, left alone.
cp "$T/new.db" "$T/newer.db"
newer=$((current + 1))
sq "$T/newer.db" "PRAGMA user_version = $newer"
"$RUNQ" record --db "$T/newer.db" --file "$T/s.bin" >/dev/null 2>"$T/newer.err"
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l <"$T/newer.err")" = 1 ] &&
    grep -q "schema version $newer is newer than this runq's ($current)" "$T/newer.err" &&
    [ "$(version "$T/newer.db")" = "$newer" ] && [ "$(sq "$T/newer.db" "SELECT COUNT(*) FROM trace")" = 1 ]; then
    pass newer_database_is_refused
else
    failed newer_database_is_refused "exit $rc: $(head -c 300 "$T/newer.err")"
fi

# Another program's database given as --db: refused before anything is
# written (13 runq tables were made in it and its own `trace` table got
# ALTERed, issue 13), the file byte for byte as it was.
sq "$T/foreign.db" "CREATE TABLE trace(x); CREATE TABLE notes(y); INSERT INTO notes VALUES('mine')"
before=$(sha256sum <"$T/foreign.db")
"$RUNQ" record --db "$T/foreign.db" --file "$T/s.bin" >/dev/null 2>"$T/foreign.err"
rc=$?
if [ "$rc" = 1 ] && grep -q "foreign.db: not a runq trace database (it holds another program's tables)" "$T/foreign.err" &&
    [ "$(sha256sum <"$T/foreign.db")" = "$before" ] && [ ! -e "$T/foreign.db-wal" ]; then
    pass foreign_database_is_left_as_it_was
else
    failed foreign_database_is_left_as_it_was "exit $rc, tables: $(sq "$T/foreign.db" .tables | tr -s ' \n' ' '): $(head -c 200 "$T/foreign.err")"
fi

# Not a regular file: refused before SQLite opens it (as root, --db
# /dev/null left /dev/null-journal behind, issue 13).
rm -f /dev/null-journal /dev/null-wal /dev/null-shm 2>/dev/null
"$RUNQ" record --db /dev/null --file "$T/s.bin" >/dev/null 2>"$T/null.err"
rc=$?
if [ "$rc" = 1 ] && grep -q '^runq record: /dev/null: not a regular file' "$T/null.err" && ! ls /dev/null-* >/dev/null 2>&1; then
    pass dev_null_is_not_a_database
else
    failed dev_null_is_not_a_database "exit $rc, left: $(ls /dev/null-* 2>/dev/null): $(head -c 200 "$T/null.err")"
fi
rm -f /dev/null-journal /dev/null-wal /dev/null-shm 2>/dev/null

exit $fail
