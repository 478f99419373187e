#!/usr/bin/env bash
# Several recorders into one database at once (docs/sql.md, "Several
# recorders, one database"). Three generated streams, of different seeds,
# policies, CPU and task counts, one of them large (300,000 records: its
# transactions span the others' recordings), are each recorded alone into
# a database of its own: the references. Then two of them, and all three,
# are recorded at once into one database, and every trace's rows must be
# the rows of its reference, table by table: the same count and the same
# checksum, with every utid given as its thread's tid (the databases give
# different utids; the rows must say the same). Each utid a trace's rows
# name must be a thread of that trace, no thread row may be shared, every
# trace must be complete. Last, a recorder that another writer keeps out
# for longer than it waits says so, and does not blame the disk.
#
# Each recorder follows a file of its own (--follow), empty until every
# recorder has opened the database and started its trace, so the
# recordings overlap from their start (two recorders that took their
# utids at open gave the same ones). Then the first half of the large
# stream goes in, and the first quarter of each other one, each committed
# before the next goes in, so that the others' commits fall between the
# large one's (checked: their rows' ids interleave); then all the rest at
# once, recorded side by side.
#
# usage: tests/trace/trace_concurrent.sh [RUNQ] [TRACE_GEN]; KEEP=DIR copies the
# scratch files (streams, databases, logs) to DIR, to look into a failure.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
. tests/lib.sh
at_exit 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] && cp -r "$T" "$KEEP"'

"$GEN" --records 300000 --ms 100000000 --cpus 4 --tasks 16 --seed 12 --out "$T/s1.bin" &&
    "$GEN" --seed 7 --tasks 10 --ms 6000 --out "$T/s2.bin" &&
    "$GEN" --seed 5 --tasks 14 --policy rr --ms 5000 --out "$T/s3.bin" ||
    { echo "FAIL fixture: trace_gen failed"; exit 1; }

# The tables and their columns, from a new database; the utid columns are
# the ones compared through thread.tid.
"$RUNQ" record --file "$T/s3.bin" --db "$T/schema.db" >/dev/null 2>&1 ||
    { echo "FAIL fixture: runq record"; exit 1; }
# A recording's tables: those with a trace_id (the experiment tables,
# runq experiment's, hold none of a recording's rows).
tables=$(sq "$T/schema.db" "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS
                            (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'trace_id') ORDER BY m.name")
utid_cols=" utid prev_utid next_utid parent_utid waker_utid waker curr_utid "

# query TABLE: TABLE's rows of the trace in table want, sorted on every column,
# without the ids the database gives (id, trace_id, thread's utid, the
# trace's file name and time), each utid as the tid of its thread in that
# trace (NULL when it is not one of that trace's threads). Sorted, not in
# the order written: records of two CPUs with equal timestamps are merged
# in an order that depends on where the reads cut the stream
# (trace/recorder/record.c), and the recorders here read it in other pieces.
query() {
    local tbl=$1 c cols= order= n=0
    for c in $(sq "$T/schema.db" "SELECT name FROM pragma_table_info('$tbl')"); do
        case "$tbl.$c" in
        *.id | *.trace_id | thread.utid | trace.created | trace.source | trace.control) continue ;;
        esac
        case "$utid_cols" in
        *" $c "*) c="(SELECT u.tid FROM thread u WHERE u.utid = x.$c AND u.trace_id = x.trace_id)" ;;
        esac
        n=$((n + 1))
        cols="$cols${cols:+, }$c"
        order="$order${order:+, }$n"
    done
    local skip=
    # merge_held_max says how the reads fell, not what the trace holds
    [ "$tbl" = stats ] && skip=" AND x.name <> ''merge_held_max''"  # doubled: summary quotes the query
    echo "SELECT $cols FROM $tbl x WHERE x.trace_id = (SELECT id FROM want)$skip ORDER BY $order"
}

# summary DB TRACE: one line a table: its name, row count and checksum
# for trace TRACE of DB. The checksum is the sqlite3 shell's sha3_query,
# which hashes the query's text too: the trace is in a table, not in it.
summary() {
    local tbl sql=
    for tbl in $tables; do
        sql="$sql${sql:+ UNION ALL }SELECT '$tbl', (SELECT count(*) FROM $tbl WHERE trace_id = $2), hex(sha3_query('$(query "$tbl")'))"
    done
    sq -separator ' ' "$1" "CREATE TEMP TABLE want(id); INSERT INTO want VALUES ($2); $sql"
}

# The references, and what makes them worth comparing with. Where the
# reads cut a stream decides which of its records fall behind the
# time-order merge (records_late), and such a record changes the rows
# derived from it: a stream with any would test the reading, not the
# writers.
for i in 1 2 3; do
    "$RUNQ" record --file "$T/s$i.bin" --db "$T/ref$i.db" >/dev/null 2>"$T/ref$i.err" ||
        { echo "FAIL fixture: recording s$i alone: $(cat "$T/ref$i.err")"; exit 1; }
    late=$(sq "$T/ref$i.db" "SELECT value FROM stats WHERE name = 'records_late'")
    [ "$late" = 0 ] || { echo "FAIL fixture: s$i has $late records behind the merge: choose another stream"; exit 1; }
    summary "$T/ref$i.db" 1 >"$T/ref$i.sum"
    for tbl in thread eevdf_pick sched_slice thread_state wakeup; do
        [ "$(awk -v t="$tbl" '$1 == t { print $2 }' "$T/ref$i.sum")" -gt 0 ] 2>/dev/null ||
            { echo "FAIL fixture: s$i alone stored no $tbl rows"; exit 1; }
    done
done
pass "references_recorded_alone ($(awk '$1 == "trace" { next } { n += $2 } END { print n }' "$T"/ref?.sum) rows in $(wc -w <<<"$tables") tables)"

# wait_traces DB N: waits (up to 30 s) until DB holds N traces.
wait_traces() {
    local k
    for k in $(seq 1 300); do
        [ -s "$1" ] && [ "$(sq "$1" "SELECT count(*) FROM trace" 2>/dev/null)" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# wait_commit DB TRACE: waits (up to 30 s) until trace TRACE of DB has
# committed records.
wait_commit() {
    local k
    for k in $(seq 1 300); do
        [ "$(sq "$1" "SELECT records > 0 FROM trace WHERE trace_id = $2" 2>/dev/null)" = 1 ] && return 0
        sleep 0.1
    done
    return 1
}

# piece FROM TO FIRST|REST: appends to TO the first part of FROM (a
# quarter of it, or half of stream 1) or the rest.
piece() {
    local size cut
    size=$(wc -c <"$1")
    case "$1" in *s1.bin) cut=$((size / 2)) ;; *) cut=$((size / 4)) ;; esac
    if [ "$3" = FIRST ]; then head -c "$cut" "$1" >>"$2"; else tail -c +$((cut + 1)) "$1" >>"$2"; fi
}

# at_once NAME N: streams s1..sN recorded at once into $T/NAME.db (trace i
# is stream i), then every check of the header above.
at_once() {
    local name=$1 n=$2 db=$T/$1.db i rc bad= pids=() feeders=()
    for i in $(seq 1 "$n"); do
        : >"$T/$name.in$i"
        "$RUNQ" record --follow --file "$T/$name.in$i" --db "$db" >/dev/null 2>"$T/$name.err$i" &
        pids+=($!)
        wait_traces "$db" "$i" || { failed "${name}_recorders_start" "trace $i did not appear: $(cat "$T/$name.err$i")"; return; }
    done
    # The first parts in turn, each committed before the next goes in,
    # then all the rest at once.
    for i in $(seq 1 "$n"); do
        piece "$T/s$i.bin" "$T/$name.in$i" FIRST
        wait_commit "$db" "$i" || { failed "${name}_first_parts_commit" "trace $i: $(cat "$T/$name.err$i")"; return; }
    done
    for i in $(seq 1 "$n"); do
        piece "$T/s$i.bin" "$T/$name.in$i" REST &
        feeders+=($!)
    done
    for i in $(seq 1 "$n"); do
        wait "${pids[$((i - 1))]}"
        rc=$?
        [ "$rc" = 0 ] || bad="$bad recorder $i exited $rc: $(tr '\n' ' ' <"$T/$name.err$i" | head -c 300);"
    done
    wait "${feeders[@]}"
    local states
    states=$(sq "$db" "SELECT group_concat(trace_id || ' ' || status || ' ' || end_reason, ', ') FROM
                         (SELECT * FROM trace ORDER BY trace_id)")
    [ -z "$bad" ] && [ "$states" = "$(seq -s, 1 "$n" | sed 's/,/ complete end, /g') complete end" ] &&
        pass "${name}_all_complete" || failed "${name}_all_complete" "$states;$bad"

    for i in $(seq 1 "$n"); do
        summary "$db" "$i" >"$T/$name.$i.sum"
        if diff "$T/ref$i.sum" "$T/$name.$i.sum" >"$T/$name.$i.diff"; then
            pass "${name}_trace_${i}_rows_are_its_recording_alone ($(awk '{ n += $2 } END { print n }' "$T/$name.$i.sum") rows)"
        else
            failed "${name}_trace_${i}_rows_are_its_recording_alone" "table rows checksum, alone < > at once: $(grep '^[<>]' "$T/$name.$i.diff" | tr '\n' ' ')"
        fi
    done

    # Every utid a row names is a thread of the row's trace.
    local tbl c foreign= k
    for tbl in $tables; do
        for c in $(sq "$T/schema.db" "SELECT name FROM pragma_table_info('$tbl')"); do
            case "$utid_cols" in *" $c "*) ;; *) continue ;; esac
            k=$(sq "$db" "SELECT count(*) FROM $tbl x WHERE x.$c IS NOT NULL AND NOT EXISTS
                            (SELECT 1 FROM thread u WHERE u.utid = x.$c AND u.trace_id = x.trace_id)")
            [ "$k" = 0 ] || foreign="$foreign $tbl.$c: $k;"
        done
    done
    [ -z "$foreign" ] && pass "${name}_every_utid_is_a_thread_of_its_trace" ||
        failed "${name}_every_utid_is_a_thread_of_its_trace" "rows naming another trace's thread (or none):$foreign"

    local threads want=0
    threads=$(sq "$db" "SELECT count(*) FROM thread")
    for i in $(seq 1 "$n"); do want=$((want + $(awk '$1 == "thread" { print $2 }' "$T/ref$i.sum"))); done
    [ "$threads" = "$want" ] && pass "${name}_no_thread_row_shared ($threads threads)" ||
        failed "${name}_no_thread_row_shared" "$threads thread rows, the traces alone have $want"

    # The others' commits fell between the large one's: their picks' ids
    # lie inside its range.
    local apart=
    for i in $(seq 2 "$n"); do
        k=$(sq "$db" "SELECT count(*) FROM eevdf_pick WHERE trace_id = $i AND id BETWEEN
                        (SELECT min(id) FROM eevdf_pick WHERE trace_id = 1) AND (SELECT max(id) FROM eevdf_pick WHERE trace_id = 1)")
        [ "$k" -gt 0 ] 2>/dev/null || apart="$apart trace $i;"
    done
    [ -z "$apart" ] && pass "${name}_commits_interleaved" ||
        failed "${name}_commits_interleaved" "committed wholly before or after trace 1:$apart"
    ok=$(sq "$db" "PRAGMA integrity_check")
    [ "$ok" = ok ] && pass "${name}_integrity" || failed "${name}_integrity" "$ok"
}

at_once two 2
at_once three 3

# ---- a writer that keeps the database too long ----
# A sqlite3 shell holds the write lock; the recorder waits 3 s
# (RUNQ_WRITER_WAIT_S) for it, saying so, gives up naming the wait, and
# once the shell lets go marks its trace incomplete.
db=$T/held.db
: >"$T/held.in"
RUNQ_WRITER_WAIT_S=3 "$RUNQ" record --follow --file "$T/held.in" --db "$db" >/dev/null 2>"$T/held.err" &
pid=$!
wait_traces "$db" 1 || failed held_recorder_starts "$(cat "$T/held.err")"
# The holder waits for the lock (the recorder is inside a transaction of
# its own most of the time: a BEGIN IMMEDIATE without a timeout failed on
# a loaded machine, nothing was held and the recorder stored the whole
# stream), then says so with a file.
{
    echo '.timeout 30000'
    echo 'BEGIN IMMEDIATE;'
    echo ".shell touch '$T/held'"
    while [ ! -e "$T/release" ]; do sleep 0.05; done
    echo 'COMMIT;'
} | sq "$db" &
holder=$!
for _ in $(seq 1 600); do # until the shell holds the lock
    [ -e "$T/held" ] && break
    sleep 0.05
done
cat "$T/s2.bin" >>"$T/held.in"
for _ in $(seq 1 300); do # until the recorder gives up (30 s: the old one never says so)
    grep -q 'held the database' "$T/held.err" && break
    sleep 0.1
done
touch "$T/release"
wait "$holder"
wait "$pid"
rc=$?
row=$(sq "$db" "SELECT status || ' ' || end_reason FROM trace")
if [ "$rc" = 1 ] && grep -q "waiting for another recorder's transaction" "$T/held.err" &&
    grep -q 'stopped storing: another recorder held the database for 3 s' "$T/held.err" &&
    grep -q 'record it again when the other recorder is done' "$T/held.err" &&
    ! grep -q -e 'room' -e 'database is locked' "$T/held.err" && [ "$row" = "incomplete db_error" ]; then
    pass a_recorder_kept_out_says_by_whom_and_how_long
else
    failed a_recorder_kept_out_says_by_whom_and_how_long "rc=$rc trace '$row'; $(tr '\n' ' ' <"$T/held.err" | head -c 600)"
fi
exit $fail
