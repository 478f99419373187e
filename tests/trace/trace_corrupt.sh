#!/usr/bin/env bash
# Corruption test for the trace pipeline: damages a generated stream the
# ways a real one is damaged (bits flipped, a packet lost, garbage, a ring
# overflow, the end cut off), records each with runq record, and checks that
# the loss is counted, the reader resynchronised, nothing crossed a gap, and
# the trace status is right. Prints PASS/FAIL lines.
#
# usage: tests/trace/trace_corrupt.sh [RUNQ] [TRACE_GEN]
set -u
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
. tests/lib.sh
q() { "$RUNQ" sql --db "$1" --csv "$2" | tail -n +2; }

# record NAME GEN-ARGS...: stream in $T/NAME.bin, db $T/NAME.db
record() {
    local name=$1
    shift
    "$GEN" --ms 400 "$@" --out "$T/$name.bin" || { failed "$name" "trace_gen failed"; return 1; }
    "$RUNQ" record --db "$T/$name.db" --file "$T/$name.bin" >/dev/null 2>"$T/$name.err" ||
        { failed "$name" "runq record exited $?: $(cat "$T/$name.err")"; return 1; }
}
stat() { q "$1" "SELECT COALESCE(SUM(value),0) FROM stats WHERE name='$2' AND idx IS NULL"; }

# Slices on a CPU are disjoint and none overlaps a gap of its CPU; no known
# thread state (not '?') of a task of that CPU runs on past the gap's end.
# (A state may end inside a gap: a WAKE from another CPU proves the task
# slept until then.)
no_stretch() {
    local db=$1
    local overl cross
    overl=$(q "$db" "SELECT COUNT(*) FROM sched_slice a JOIN sched_slice b ON a.trace_id=b.trace_id
        AND a.cpu=b.cpu AND a.id<b.id AND a.ts < b.ts+b.dur AND b.ts < a.ts+a.dur")
    cross=$(q "$db" "SELECT COUNT(*) FROM sched_slice s JOIN data_gap g ON g.trace_id=s.trace_id
        AND g.cpu=s.cpu AND s.ts < g.ts_end AND s.ts+s.dur > g.ts_start")
    local tcross
    tcross=$(q "$db" "SELECT COUNT(*) FROM thread_state s JOIN thread t USING(utid) JOIN data_gap g
        ON g.trace_id=s.trace_id AND g.cpu=t.cpu AND s.state<>'?' AND s.ts < g.ts_end AND s.ts+s.dur > g.ts_end")
    [ "$overl" = 0 ] && [ "$cross" = 0 ] && [ "$tcross" = 0 ] ||
        { echo "overlaps $overl, slices across gaps $cross, states across gaps $tcross"; return 1; }
}

# clean: nothing lost, complete
if record clean; then
    st=$(q "$T/clean.db" "SELECT status||' '||end_reason FROM trace")
    loss=$(q "$T/clean.db" "SELECT COUNT(*) FROM stats WHERE severity<>'info' AND value>0")
    recs=$(q "$T/clean.db" "SELECT records FROM trace")
    if [ "$st" = "complete end" ] && [ "$loss" = 0 ] && [ "$recs" -gt 1000 ]; then
        pass clean_stream_is_complete_without_loss
    else
        failed clean_stream_is_complete_without_loss "status '$st', $loss loss rows, $recs records"
    fi
fi

# a dropped packet: one packet lost, counted against its CPU, one gap row
if record dropped --drop-packet 20; then
    lost=$(stat "$T/dropped.db" packets_lost)
    gaps=$(q "$T/dropped.db" "SELECT COUNT(*) FROM data_gap")
    st=$(q "$T/dropped.db" "SELECT status FROM trace")
    why=$(no_stretch "$T/dropped.db")
    if [ "$lost" = 1 ] && [ "$gaps" = 1 ] && [ "$st" = complete ] && [ -z "$why" ]; then
        pass a_dropped_packet_is_one_gap_and_nothing_crosses_it
    else
        failed a_dropped_packet_is_one_gap_and_nothing_crosses_it "lost $lost gaps $gaps status $st $why"
    fi
    unk=$(q "$T/dropped.db" "SELECT COUNT(*) FROM thread_state WHERE state='?'")
    [ "$unk" -gt 0 ] && pass a_gap_leaves_unknown_thread_states ||
        failed a_gap_leaves_unknown_thread_states "no '?' rows"
fi

# flipped bits: CRC errors, resyncs, the skipped bytes counted, and no
# record stored from a damaged packet (the good records are a subset)
if record flipped --flip 6; then
    crc=$(stat "$T/flipped.db" crc_errors)
    hdr=$(stat "$T/flipped.db" resyncs)
    skipped=$(stat "$T/flipped.db" bytes_skipped)
    lost=$(stat "$T/flipped.db" packets_lost)
    clean=$(q "$T/clean.db" "SELECT records FROM trace")
    got=$(q "$T/flipped.db" "SELECT records FROM trace")
    if [ "$hdr" -ge 1 ] && [ "$skipped" -gt 0 ] && [ "$lost" -ge 1 ] && [ "$got" -lt "$clean" ]; then
        pass flipped_bits_resync_and_count_the_loss
    else
        failed flipped_bits_resync_and_count_the_loss "crc $crc resyncs $hdr skipped $skipped lost $lost records $got/$clean"
    fi
    # Every pick stored must be one of the clean stream's picks.
    extra=$(sqlite3 "$T/flipped.db" "ATTACH '$T/clean.db' AS c;
        SELECT COUNT(*) FROM eevdf_pick p WHERE NOT EXISTS (SELECT 1 FROM c.eevdf_pick q
        WHERE q.ts=p.ts AND q.cpu=p.cpu AND q.cost_ns=p.cost_ns AND q.why=p.why)")
    [ "$extra" = 0 ] && pass no_damaged_record_is_stored ||
        failed no_damaged_record_is_stored "$extra picks not in the clean stream"
    why=$(no_stretch "$T/flipped.db")
    [ -z "$why" ] && pass intervals_never_cross_a_gap || failed intervals_never_cross_a_gap "$why"
fi

# garbage between packets: exactly that many bytes skipped, nothing lost
if record garbage --garbage-at 15 --garbage-len 333; then
    skipped=$(stat "$T/garbage.db" bytes_skipped)
    lost=$(stat "$T/garbage.db" packets_lost)
    [ "$skipped" = 333 ] && [ "$lost" = 0 ] && pass garbage_is_skipped_byte_for_byte ||
        failed garbage_is_skipped_byte_for_byte "skipped $skipped lost $lost"
fi

# ring overflow: the kernel's dropped counter becomes records_dropped
if record ringdrop --ring-drop 40; then
    dropped=$(stat "$T/ringdrop.db" records_dropped)
    gcpu=$(q "$T/ringdrop.db" "SELECT group_concat(cpu) FROM data_gap")
    why=$(no_stretch "$T/ringdrop.db")
    [ "$dropped" = 40 ] && [ "$gcpu" = 1 ] && [ -z "$why" ] && pass a_ring_overflow_is_counted_on_its_cpu ||
        failed a_ring_overflow_is_counted_on_its_cpu "dropped $dropped gap cpus '$gcpu' $why"
fi

# the stream cut mid-packet: incomplete, truncated bytes counted, data kept
size=$(wc -c <"$T/clean.bin")
if record cut --cut $((size / 2 + 7)); then
    st=$(q "$T/cut.db" "SELECT status||' '||end_reason FROM trace")
    tr=$(stat "$T/cut.db" bytes_truncated)
    recs=$(q "$T/cut.db" "SELECT records FROM trace")
    [ "$st" = "incomplete truncated" ] && [ "$tr" -gt 0 ] && [ "$recs" -gt 100 ] &&
        pass a_cut_stream_is_incomplete_and_kept || failed a_cut_stream_is_incomplete_and_kept "status '$st' truncated $tr records $recs"
fi

# a packet cut in the middle with the last packets, END among them, intact
# after it: the cut packet is lost (counted), the rest kept, and the trace
# is complete (it said "incomplete truncated": the END was there)
if record near; then
    after=$(python3 - "$T/near.bin" "$T/near_cut.bin" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
offs, o = [], 0
while o + 24 <= len(b):
    offs.append(o)
    o += 24 + struct.unpack_from('<H', b, o + 4)[0]
# the last packet whose half is longer than all the packets after it: cut
# there, the stream ends inside the length the cut packet claims
size = lambda k: 24 + struct.unpack_from('<H', b, k + 4)[0]
i = max(j for j in range(len(offs) - 1) if size(offs[j]) // 2 > len(b) - offs[j + 1])
k = offs[i]
open(sys.argv[2], 'wb').write(b[:k + size(k) // 2] + b[offs[i + 1]:])
print(len(offs) - 1 - i)
PY
)
    "$RUNQ" record --db "$T/near_cut.db" --file "$T/near_cut.bin" >/dev/null 2>&1
    st=$(q "$T/near_cut.db" "SELECT status||' '||end_reason FROM trace")
    tr=$(stat "$T/near_cut.db" bytes_truncated)
    good=$(stat "$T/near_cut.db" packets)
    all=$(stat "$T/near.db" packets)
    [ "$st" = "complete end" ] && [ "$tr" -gt 0 ] && [ "$good" = $((all - 1)) ] &&
        pass "a_cut_before_the_end_loses_one_packet (the $after packets after it kept)" ||
        failed a_cut_before_the_end_loses_one_packet "status '$st' truncated $tr, good packets $good of $all"
fi

# no END record: incomplete (eof)
if record noend --no-end; then
    st=$(q "$T/noend.db" "SELECT status||' '||end_reason FROM trace")
    [ "$st" = "incomplete eof" ] && pass a_stream_without_end_is_incomplete ||
        failed a_stream_without_end_is_incomplete "status '$st'"
fi

# one database, many traces: ids, utids unique, --trace scopes
db=$T/many.db
"$GEN" --ms 100 --policy rr --out "$T/a.bin" && "$GEN" --ms 100 --seed 2 --out "$T/b.bin"
"$RUNQ" record --db "$db" --file "$T/a.bin" >/dev/null 2>&1
"$RUNQ" record --db "$db" --file "$T/b.bin" >/dev/null 2>&1
n=$(q "$db" "SELECT COUNT(*) FROM trace")
dup=$(q "$db" "SELECT COUNT(*) - COUNT(DISTINCT utid) FROM thread")
p1=$("$RUNQ" sql --db "$db" --trace 1 --csv "SELECT DISTINCT policy FROM trace JOIN eevdf_pick USING(trace_id)" | tail -n +2)
nulls=$("$RUNQ" sql --db "$db" --trace 1 --csv "SELECT COUNT(*) FROM eevdf_pick WHERE v IS NOT NULL" | tail -n +2)
[ "$n" = 2 ] && [ "$dup" = 0 ] && [ "$p1" = rr ] && [ "$nulls" = 0 ] && pass one_database_holds_many_traces ||
    failed one_database_holds_many_traces "traces $n dup utids $dup trace-1 policy '$p1' rr V values $nulls"

# committed DB: waits (up to 20 s: make test runs suites side by side) for
# the recorder following a file into DB to have committed records.
committed() {
    local i
    for i in $(seq 100); do
        [ "$(q "$1" "SELECT records > 0 FROM trace" 2>/dev/null)" = 1 ] && return
        sleep 0.2
    done
}

# a trace that is never finished is readable up to its last commit
"$GEN" --ms 3000 --out "$T/long.bin"
head -c 400000 "$T/long.bin" >"$T/grow.bin"
"$RUNQ" record --db "$T/live.db" --file "$T/grow.bin" --follow >/dev/null 2>&1 &
pid=$!
committed "$T/live.db"
mid=$(q "$T/live.db" "SELECT status||' '||(records>0) FROM trace")
kill -INT $pid
wait $pid
rc=$?
end=$(q "$T/live.db" "SELECT status||' '||end_reason FROM trace")
[ "$mid" = "recording 1" ] && [ "$rc" = 130 ] && [ "$end" = "incomplete interrupted" ] &&
    pass a_live_trace_is_readable_and_sigint_commits || failed a_live_trace_is_readable_and_sigint_commits "while recording '$mid', rc $rc, after '$end'"

# a recorder killed without a word (kill -9): its row still says
# 'recording', but nobody holds its lock any more (db/recorder_lock.h), so
# readers show it incomplete (recorder_gone) and the next recording into the
# database stores that and deletes its reserve file
"$RUNQ" record --db "$T/dead.db" --file "$T/grow.bin" --follow >/dev/null 2>&1 &
pid=$!
committed "$T/dead.db"
alive=$("$RUNQ" sql --db "$T/dead.db" --csv "SELECT runq_recorder_alive(1)" | tail -n +2)
shown=$("$RUNQ" report loss --db "$T/dead.db" --csv | sed -n 2p)
kill -KILL $pid
wait $pid 2>/dev/null
row=$(q "$T/dead.db" "SELECT status FROM trace")
gone=$("$RUNQ" sql --db "$T/dead.db" --csv "SELECT runq_recorder_alive(1)" | tail -n +2)
shown_gone=$("$RUNQ" report loss --db "$T/dead.db" --csv | sed -n 2p)
reserve_left=$(ls "$T" | grep -c '^dead.db-reserve-1$')
"$RUNQ" record --db "$T/dead.db" --file "$T/long.bin" >/dev/null 2>&1
after=$(q "$T/dead.db" "SELECT group_concat(trace_id||':'||status||':'||end_reason, ' ') FROM trace")
reserve_after=$(ls "$T" | grep -c '^dead.db-reserve-')
if [ "$alive" = 1 ] && [ "${shown%,*}" = "1,eevdf,recording," ] && [ "$row" = recording ] && [ "$gone" = 0 ] &&
    [ "${shown_gone%,*}" = "1,eevdf,incomplete,recorder_gone" ] && [ "$reserve_left" = 1 ] &&
    [ "$after" = "1:incomplete:recorder_gone 2:complete:end" ] && [ "$reserve_after" = 0 ]; then
    pass a_killed_recorders_trace_is_shown_and_stored_incomplete
else
    failed a_killed_recorders_trace_is_shown_and_stored_incomplete \
        "alive '$alive' shown '$shown'; killed: row '$row' alive '$gone' shown '$shown_gone' reserve $reserve_left; next recording: '$after' reserve $reserve_after"
fi

exit $fail
