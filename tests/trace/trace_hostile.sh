#!/usr/bin/env bash
# Hostile streams (tests/trace/trace_hostile.c): CRC-valid streams that say
# things meant to make runq record work too long, hold too much memory, or
# store wrong data quietly. Each is recorded under /usr/bin/time and must
# finish within the bounds below with what it did wrong counted; the ones
# made from a real stream must store exactly what that stream stores alone.
# Prints PASS/FAIL lines.
#
# Bounds (docs/trace-format.md, "Bounds"): at most MAX_CPU_S seconds of CPU
# and MAX_RSS_KB of memory for any stream. Without the bounds, the streams
# here took 90 s (20,000 gaps naming task id 4194303), 350 MB (600,000
# distinct task ids) and held the whole of a 27 MB stream in the merge (a
# keyframe period of 2^62 ns); runq step took 2.7 GB for one row on CPU 65535.
#
# usage: tests/trace/trace_hostile.sh [RUNQ] [PLAIN_RUNQ] [TRACE_HOSTILE] [TRACE_GEN]
#   RUNQ is checked for what it stores (make test gives the sanitizer
#   build); PLAIN_RUNQ, built without sanitizers, for time and memory.
set -u
RUNQ=${1:-build/runq}
PLAIN=${2:-build/runq}
HOSTILE=${3:-build/tests/trace_hostile}
TRACE_GEN=${4:-build/tests/trace_gen}
export TRACE_GEN
. tests/lib.sh

MAX_CPU_S=20
MAX_RSS_KB=$((250 * 1024))

if [ ! -x /usr/bin/time ]; then
    echo "SKIP trace_hostile: /usr/bin/time is missing (scripts/deps.sh installs it)"
    exit 0
fi

q() { "$RUNQ" sql --db "$1" --csv "$2" | tail -n +2; }
count() { q "$1" "SELECT COALESCE(SUM(value),0) FROM stats WHERE name='$2' AND idx IS NULL"; }

# bounded NAME STREAM: records STREAM with PLAIN_RUNQ into $T/NAME.db
# within the bounds.
bounded() {
    local name=$1 stream=$2
    timeout 300 /usr/bin/time -f "%U %S %M" -o "$T/$name.time" \
        "$PLAIN" record --db "$T/$name.db" --file "$stream" >/dev/null 2>"$T/$name.err"
    local rc=$? u s m
    read -r u s m <"$T/$name.time" 2>/dev/null || { u=0 s=0 m=0; }
    local cpu
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    if [ "$rc" != 0 ]; then
        failed "${name}_bounded" "exit $rc (timeout 300 s): $(head -c 300 "$T/$name.err")"
    elif awk -v c="$cpu" -v m="$MAX_CPU_S" 'BEGIN { exit !(c > m) }' || [ "$m" -gt "$MAX_RSS_KB" ]; then
        failed "${name}_bounded" "${cpu} s of CPU (bound $MAX_CPU_S), ${m} KB (bound $MAX_RSS_KB)"
    else
        pass "${name}_bounded (${cpu} s of CPU, $((m / 1024)) MB)"
    fi
}

# ---- time and memory ----

"$HOSTILE" make ids 600000 >"$T/ids.bin" || { failed fixture "trace_hostile make ids"; exit 1; }
bounded ids "$T/ids.bin"
held=$(q "$T/ids.db" "SELECT COUNT(*) FROM thread")
over=$(count "$T/ids.db" tasks_over_limit)
if [ "$held" = 65536 ] && [ "$over" -gt 0 ] && [ "$(count "$T/ids.db" bad_task_ids)" = 0 ]; then
    pass "ids_beyond_the_task_limit_are_counted ($over records, 65536 tasks kept)"
else
    failed ids_beyond_the_task_limit_are_counted "threads $held, tasks_over_limit $over"
fi

"$HOSTILE" make gaps 20000 >"$T/gaps.bin" || { failed fixture "trace_hostile make gaps"; exit 1; }
bounded gaps "$T/gaps.bin"
if [ "$(count "$T/gaps.db" packets_lost)" = 20000 ] && [ "$(q "$T/gaps.db" "SELECT COUNT(*) FROM data_gap")" = 20000 ]; then
    pass "gaps_are_all_counted"
else
    failed gaps_are_all_counted "packets_lost $(count "$T/gaps.db" packets_lost)"
fi

"$HOSTILE" make silent-cpu 400000 >"$T/silent.bin" || { failed fixture "trace_hostile make silent-cpu"; exit 1; }
bounded silent "$T/silent.bin"
bytes=$(wc -c <"$T/silent.bin")
held=$(count "$T/silent.db" merge_held_max)
# The merge waits for a silent CPU two keyframe periods at most, the period
# taken as at most 1 s: 2 s of the stream's 20 s, a tenth of it.
if [ -n "$held" ] && [ "$held" -gt 0 ] && [ "$held" -lt $((bytes / 5)) ]; then
    pass "silent_cpu_holds_the_merge_back_2_s_at_most ($held of $bytes bytes held)"
else
    failed silent_cpu_holds_the_merge_back_2_s_at_most "merge_held_max '$held' of a $bytes-byte stream (want < a fifth)"
fi

# ---- what is stored ----

"$HOSTILE" make bad-cpu >"$T/badcpu.bin" &&
    "$RUNQ" record --db "$T/badcpu.db" --file "$T/badcpu.bin" >/dev/null 2>&1 ||
    { failed fixture "bad-cpu stream"; exit 1; }
beyond=$(q "$T/badcpu.db" "SELECT COUNT(*) FROM eevdf_pick WHERE cpu >= 2")
if [ "$(count "$T/badcpu.db" packets_bad_cpu)" = 100 ] && [ "$(count "$T/badcpu.db" bad_cpu_records)" = 100 ] &&
    [ "$beyond" = 0 ] && [ "$(q "$T/badcpu.db" "SELECT COUNT(*) FROM eevdf_pick")" = 100 ]; then
    pass "cpus_beyond_the_header_are_counted_not_stored"
else
    failed cpus_beyond_the_header_are_counted_not_stored "packets_bad_cpu $(count "$T/badcpu.db" packets_bad_cpu), bad_cpu_records $(count "$T/badcpu.db" bad_cpu_records), picks beyond $beyond"
fi

# A database edited to claim what no stream can: runq step stays bounded.
"$GEN" --seed 5 --ms 300 --out "$T/base0.bin" && "$RUNQ" record --db "$T/edit.db" --file "$T/base0.bin" >/dev/null 2>&1 ||
    { failed fixture "base stream"; exit 1; }
sqlite3 "$T/edit.db" "INSERT INTO eevdf_pick(trace_id,ts,cpu,next_utid,why,nr_runnable,touched,cost_ns)
    VALUES (1, 5000000, 65535, 2, 'tick', 1, 1, 1)"
echo q | timeout 60 /usr/bin/time -f "%M" -o "$T/step.time" "$PLAIN" step --db "$T/edit.db" --plain 1 >"$T/step.out" 2>&1
rc=$?
m=$(cat "$T/step.time" 2>/dev/null | tail -1)
if [ "$rc" = 0 ] && [ "${m:-999999999}" -lt $((100 * 1024)) ] && grep -q "left out: 1 event" "$T/step.out"; then
    pass "step_leaves_out_a_row_on_cpu_65535 ($((m / 1024)) MB)"
else
    failed step_leaves_out_a_row_on_cpu_65535 "exit $rc, ${m} KB: $(head -c 300 "$T/step.out")"
fi
sqlite3 "$T/edit.db" "UPDATE trace SET ncpus = 2000000000"
echo q | timeout 60 "$PLAIN" step --db "$T/edit.db" --plain 1 >"$T/step.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "says it has 2000000000 CPUs" "$T/step.out"; then
    pass "step_refuses_a_trace_of_2e9_cpus"
else
    failed step_refuses_a_trace_of_2e9_cpus "exit $rc: $(head -c 300 "$T/step.out")"
fi

# Virtual times at the int64 limits (a wrapped trace, or a database made
# to look like one): runq step (the sanitizer build in make test) goes
# through every event, the number line included, with no undefined
# arithmetic (db/vtime.h).
cp "$T/base0.bin" "$T/wrap.bin" && "$RUNQ" record --db "$T/wrap.db" --file "$T/wrap.bin" >/dev/null 2>&1
sqlite3 "$T/wrap.db" "
    UPDATE eevdf_pick SET v = 9223372036854775000 + (ts % 700), vruntime = -9223372036854775000,
        deadline = 9223372036854775807, lag = -9223372036854775807;
    UPDATE eevdf_place SET vruntime = 9223372036854775807 - (ts % 1000), deadline = -9223372036854775807,
        lag_before = 9223372036854775807, lag_after = -9223372036854775808, v = -9223372036854775000;
    UPDATE eevdf_leave SET vruntime = -9223372036854775807, lag = 9223372036854775807, v = 9223372036854775807,
        deadline = -9223372036854775807;
    UPDATE queue_snapshot SET v = 9223372036854775807, vruntime = -9223372036854775808,
        deadline = 9223372036854775807, lag = -9223372036854775808;
    UPDATE sched_tick SET v = -9223372036854775808;"
{ for c in 0 1 2 3; do echo "c $c"; for i in $(seq 40); do echo n; done; done; echo q; } |
    timeout 120 "$RUNQ" step --db "$T/wrap.db" --plain 1 >"$T/wrap.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && ! grep -q "runtime error" "$T/wrap.out" && grep -q "virtual us across" "$T/wrap.out"; then
    pass "step_at_the_int64_limits"
else
    failed step_at_the_int64_limits "exit $rc: $(grep -m1 "runtime error" "$T/wrap.out" || tail -c 300 "$T/wrap.out")"
fi

# Streams made from a real one.
"$GEN" --seed 3 --ms 1000 --out "$T/base.bin" || { failed fixture "trace_gen"; exit 1; }
npk=$("$HOSTILE" mangle count <"$T/base.bin")
rows() {
    q "$1" "SELECT (SELECT COUNT(*) FROM eevdf_pick) || ' ' || (SELECT COUNT(*) FROM eevdf_place) || ' ' ||
        (SELECT COUNT(*) FROM wakeup) || ' ' || (SELECT COUNT(*) FROM sched_slice) || ' ' ||
        (SELECT COUNT(*) FROM thread_state) || ' ' || (SELECT COALESCE(SUM(ts), 0) FROM eevdf_pick) AS r"
}
"$RUNQ" record --db "$T/base.db" --file "$T/base.bin" >/dev/null 2>&1 || { failed fixture "base recording"; exit 1; }
want=$(rows "$T/base.db")

# mangled NAME HOW...: the base stream mangled, recorded into $T/NAME.db.
mangled() {
    local name=$1
    shift
    "$HOSTILE" mangle "$@" <"$T/base.bin" >"$T/$name.bin" &&
        "$RUNQ" record --db "$T/$name.db" --file "$T/$name.bin" >/dev/null 2>"$T/$name.err"
}

if mangled dup dup && [ "$(rows "$T/dup.db")" = "$want" ] &&
    [ $(($(count "$T/dup.db" packets_duplicate) + $(count "$T/dup.db" packets_after_end))) = "$npk" ]; then
    pass "duplicated_packets_are_dropped_and_counted"
else
    failed duplicated_packets_are_dropped_and_counted "rows '$(rows "$T/dup.db")' want '$want'; packets_duplicate $(count "$T/dup.db" packets_duplicate) + after_end $(count "$T/dup.db" packets_after_end), want $npk"
fi

if mangled twice twice && [ "$(rows "$T/twice.db")" = "$want" ] && [ "$(count "$T/twice.db" packets_after_end)" = "$npk" ]; then
    pass "data_after_end_belongs_to_no_trace"
else
    failed data_after_end_belongs_to_no_trace "rows '$(rows "$T/twice.db")' want '$want'; packets_after_end $(count "$T/twice.db" packets_after_end), want $npk"
fi

# A third of the stream, played again from its middle (the packet count
# depends on the generator's policy; the test holds for any).
ra=$((npk / 3)) rb=$((2 * npk / 3))
if mangled replay replay "$ra" "$rb" && [ "$(rows "$T/replay.db")" = "$want" ] &&
    [ $(($(count "$T/replay.db" packets_behind) + $(count "$T/replay.db" packets_duplicate))) = $((rb - ra)) ] &&
    [ "$(count "$T/replay.db" stream_restarts)" = 0 ]; then
    pass "replayed_packets_are_dropped_and_counted"
else
    failed replayed_packets_are_dropped_and_counted "rows '$(rows "$T/replay.db")' want '$want'; behind $(count "$T/replay.db" packets_behind), duplicate $(count "$T/replay.db" packets_duplicate), want $((rb - ra)) in all"
fi

# Two packets of one CPU swapped: one packet's records cannot be stored in
# order, and that is all (not tens of packets lost).
if mangled swap swap 1 10 && [ "$(count "$T/swap.db" packets_lost)" = 1 ] &&
    [ "$(count "$T/swap.db" packets_behind)" = 1 ] && [ "$(count "$T/swap.db" gaps)" = 1 ]; then
    pass "one_swap_costs_one_packet"
else
    failed one_swap_costs_one_packet "packets_lost $(count "$T/swap.db" packets_lost), behind $(count "$T/swap.db" packets_behind), gaps $(count "$T/swap.db" gaps)"
fi

# CPU 1's packets 40 packets late, beyond the merge: its late records are
# data loss, each in a gap, and report loss says so.
if mangled delay delay 1 40; then
    late=$(count "$T/delay.db" records_late)
    in_gaps=$(q "$T/delay.db" "SELECT COALESCE(SUM(records_late), 0) FROM data_gap WHERE cpu = 1")
    "$RUNQ" report loss --db "$T/delay.db" >"$T/delay.loss" 2>&1
    if [ "$late" -gt 0 ] && [ "$in_gaps" = "$late" ] && grep -q "records_late .*data_loss" "$T/delay.loss" &&
        [ "$(q "$T/delay.db" "SELECT severity FROM stats WHERE name = 'records_late' AND idx IS NULL")" = data_loss ]; then
        pass "late_records_are_data_loss_in_gaps ($late records)"
    else
        failed late_records_are_data_loss_in_gaps "records_late $late, in gaps $in_gaps: $(head -c 400 "$T/delay.loss")"
    fi
else
    failed late_records_are_data_loss_in_gaps "could not record: $(head -c 300 "$T/delay.err")"
fi

exit $fail
