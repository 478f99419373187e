#!/usr/bin/env bash
# runq export --perfetto (docs/perfetto.md) on generated traces: EEVDF,
# round robin, one with data lost, and one made to look like a Linux
# recording (no EEVDF numbers, Linux's idle and `other` tids). Each
# export is read back by tests/export/export_check.py (the grammar, Perfetto's
# own line pattern, the switches chained per CPU) and what it reads is
# compared with SQL over the same trace: every slice, every wakeup, every
# counter value, every gap. No Perfetto here: trace_processor is on no
# registry this project reaches (docs/perfetto.md, "How it is tested").
#
# usage: tests/export/export_test.sh [RUNQ] [TRACE_GEN]
set -u
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
. tests/lib.sh
DB=$T/f.db
CHECK="python3 tests/export/export_check.py"
q() { sq "$DB" "$@"; }

# traces 1 (eevdf) and 2 (rr); 3: eevdf with loss (a packet lost, CPU 1's
# ring dropping records); 4: eevdf with RT tasks (no lag for them).
record_fixtures --cpus 4 --ms 300 --tasks 10
"$GEN" --cpus 4 --ms 300 --tasks 10 --drop-packet 9 --ring-drop 30 --out "$T/g.bin" &&
    "$GEN" --cpus 4 --ms 200 --rt 2 --out "$T/rt.bin" &&
    "$RUNQ" record --file "$T/g.bin" --db "$DB" >/dev/null 2>&1 &&
    "$RUNQ" record --file "$T/rt.bin" --db "$DB" >/dev/null 2>&1 || { failed fixture "gap and rt traces"; exit 1; }
# trace 5: trace 1 as the Linux engine records one: no EEVDF numbers,
# idle tasks at 4193792 + CPU, an `other` task at 4194048 + CPU.
q "INSERT INTO trace SELECT 5, created, source, status, end_reason, format_version, ncpus, tick_hz, tsc_hz,
     keyframe_ns, policy, features, feature_names, cmdline, start_ts, end_ts, records, control, 'linux', '6.18'
   FROM trace WHERE trace_id = 1;
   INSERT INTO thread (utid, trace_id, tid, name, nice, cpu, is_idle, class)
     SELECT utid + 100000, 5, CASE WHEN is_idle THEN 4193792 + cpu WHEN tid = 4 THEN 4194049 ELSE tid END,
            CASE WHEN tid = 4 AND NOT is_idle THEN 'other' ELSE name END, nice, cpu, is_idle, class FROM thread WHERE trace_id = 1;
   INSERT INTO sched_slice (trace_id, ts, dur, cpu, utid, end_state, end_reason, priority)
     SELECT 5, ts, dur, cpu, utid + 100000, end_state, end_reason, priority FROM sched_slice WHERE trace_id = 1;
   INSERT INTO wakeup (trace_id, utid, ts_wake, ts_run, latency, waker, cpu, waker_cpu)
     SELECT 5, utid + 100000, ts_wake, ts_run, latency, waker + 100000, cpu, waker_cpu FROM wakeup WHERE trace_id = 1;
   INSERT INTO eevdf_pick (trace_id, ts, cpu, prev_utid, next_utid, why)
     SELECT 5, ts, cpu, prev_utid + 100000, next_utid + 100000, why FROM eevdf_pick WHERE trace_id = 1;
   INSERT INTO eevdf_leave (trace_id, ts, cpu, utid, reason, run_ns)
     SELECT 5, ts, cpu, utid + 100000, reason, run_ns FROM eevdf_leave WHERE trace_id = 1;
   INSERT INTO eevdf_place (trace_id, ts, cpu, utid, reason, weight)
     SELECT 5, ts, cpu, utid + 100000, reason, weight FROM eevdf_place WHERE trace_id = 1;
   INSERT INTO mark SELECT 5, ts, cpu, source, name FROM mark WHERE trace_id = 1;" ||
    { failed fixture "linux-like trace"; exit 1; }

# ---- 1, 2: each trace's export, its grammar, and its slices and wakeups against SQL ----
for id in 1 2 3 4 5; do
    runq export --perfetto --db "$DB" --trace "$id" -o "$T/t$id.systrace"
    if [ "$rc" != 0 ] || [ -s "$T/err" ]; then
        failed "export_$id" "exit $rc: $(head -c 300 "$T/err")"
        continue
    fi
    if $CHECK "$T/t$id.systrace" "$T/r$id" >"$T/check" 2>&1; then
        pass "grammar_$id ($(grep -vc '^#' "$T/t$id.systrace") lines)"
    else
        failed "grammar_$id" "$(head -n 5 "$T/check")"
    fi
    q "SELECT s.cpu || '|' || s.ts || '|' || s.dur || '|' || CASE WHEN t.is_idle THEN 0 ELSE t.tid END
       FROM sched_slice s JOIN thread t USING (utid) WHERE s.trace_id = $id" | sort >"$T/want"
    sort "$T/r$id/slices" >"$T/got"
    n=$(wc -l <"$T/want")
    if [ "$n" -gt 50 ] && diff "$T/want" "$T/got" >"$T/diff"; then
        pass "slices_round_trip_$id ($n)"
    else
        failed "slices_round_trip_$id" "$n in SQL, $(wc -l <"$T/got") read back: $(head -n 6 "$T/diff")"
    fi
    q "SELECT w.ts_wake || '|' || CASE WHEN e.is_idle THEN 0 ELSE e.tid END || '|' ||
              CASE WHEN k.utid IS NULL OR k.is_idle THEN 0 ELSE k.tid END
       FROM wakeup w JOIN thread e ON e.utid = w.utid LEFT JOIN thread k ON k.utid = w.waker
       WHERE w.trace_id = $id" | sort >"$T/want"
    sort "$T/r$id/wakeups" >"$T/got"
    n=$(wc -l <"$T/want")
    if [ "$n" -gt 10 ] && diff "$T/want" "$T/got" >"$T/diff"; then
        pass "wakeups_round_trip_$id ($n, $(q "SELECT COUNT(*) FROM wakeup WHERE trace_id = $id AND waker IS NULL") by no task)"
    else
        failed "wakeups_round_trip_$id" "$n in SQL, $(wc -l <"$T/got") read back: $(head -n 6 "$T/diff")"
    fi
done

# ---- 3: counters equal the stored values ----
# V per CPU: every row that stored V; each task's lag, deadline and
# vruntime at its picks (as next), placements (after) and leaves.
for id in 1 4; do
    q "SELECT DISTINCT '$(echo 4194560)|V cpu' || cpu || ' (vns)|' || ts || '|' || v FROM (
         SELECT ts, cpu, v FROM eevdf_pick WHERE trace_id = $id UNION ALL SELECT ts, cpu, v FROM eevdf_place WHERE trace_id = $id
         UNION ALL SELECT ts, cpu, v FROM eevdf_leave WHERE trace_id = $id UNION ALL SELECT ts, cpu, v FROM sched_tick WHERE trace_id = $id)
       WHERE v IS NOT NULL;
       WITH n AS (SELECT ts, next_utid AS utid, lag, deadline, vruntime FROM eevdf_pick WHERE trace_id = $id
                  UNION ALL SELECT ts, utid, lag_after, deadline, vruntime FROM eevdf_place WHERE trace_id = $id
                  UNION ALL SELECT ts, utid, lag, deadline, vruntime FROM eevdf_leave WHERE trace_id = $id)
       SELECT DISTINCT t.tid || '|' || k.name || '|' || n.ts || '|' || CASE k.name WHEN 'lag (vns)' THEN n.lag
                WHEN 'deadline (vns)' THEN n.deadline ELSE n.vruntime END
       FROM n JOIN thread t ON t.utid = n.utid AND NOT t.is_idle
       JOIN (SELECT 'lag (vns)' AS name UNION ALL SELECT 'deadline (vns)' UNION ALL SELECT 'vruntime (vns)') k
       WHERE CASE k.name WHEN 'lag (vns)' THEN n.lag WHEN 'deadline (vns)' THEN n.deadline ELSE n.vruntime END IS NOT NULL" |
        sort >"$T/want"
    sort -u "$T/r$id/counters" >"$T/got"
    picks=$(q "SELECT COUNT(*) FROM eevdf_pick WHERE trace_id = $id AND v IS NOT NULL")
    # a sample, spelled out: the tenth pick's V and its task's lag and deadline
    IFS='|' read -r ts cpu v tid lag dl <<<"$(q "SELECT p.ts, p.cpu, p.v, t.tid, p.lag, p.deadline FROM eevdf_pick p
        JOIN thread t ON t.utid = p.next_utid WHERE p.trace_id = $id AND NOT t.is_idle ORDER BY p.id LIMIT 1 OFFSET 9")"
    if [ "$picks" -gt 50 ] && diff "$T/want" "$T/got" >"$T/diff" &&
        grep -qx "4194560|V cpu$cpu (vns)|$ts|$v" "$T/got" && grep -qx "$tid|lag (vns)|$ts|$lag" "$T/got" &&
        grep -qx "$tid|deadline (vns)|$ts|$dl" "$T/got"; then
        pass "counters_equal_stored_$id ($(wc -l <"$T/want") values; at $ts V=$v, task $tid lag $lag deadline $dl)"
    else
        failed "counters_equal_stored_$id" "$picks picks; sample at $ts cpu $cpu V=$v tid $tid lag $lag dl $dl; $(head -n 6 "$T/diff")"
    fi
done
# RT tasks have no lag: trace 4's RT task writes no lag line
rt=$(q "SELECT tid FROM thread WHERE trace_id = 4 AND class = 'rt' LIMIT 1")
if [ -n "$rt" ] && ! grep -q "^$rt|lag" "$T/r4/counters"; then
    pass "rt_task_has_no_lag_counter (tid $rt)"
else
    failed rt_task_has_no_lag_counter "tid '$rt': $(grep -m2 "^$rt|lag" "$T/r4/counters")"
fi

# ---- 4: loss: no slice across a gap, the no-data task over it, the marker ----
ngap=$(q "SELECT COUNT(*) FROM data_gap WHERE trace_id = 3")
q "SELECT cpu || '|' || ts_start || '|' || ts_end FROM data_gap WHERE trace_id = 3" >"$T/gaps"
bad=0 covered=0 marked=0 long=0
while IFS='|' read -r cpu t0 t1; do
    [ "$t1" -gt "$t0" ] && long=$((long + 1)) # records dropped at one instant lose no time
    bad=$((bad + $(awk -F'|' -v c="$cpu" -v a="$t0" -v b="$t1" '$1 == c && $2 < b && $2 + $3 > a' "$T/r3/slices" | wc -l)))
    covered=$((covered + $(awk -F'|' -v c="$cpu" -v a="$t0" -v b="$t1" '$1 == c && $2 <= a && $2 + $3 >= b' "$T/r3/nodata" | wc -l)))
    marked=$((marked + $(grep -c "^$cpu|$t0|$t1|data_gap cpu=$cpu packets_lost=" "$T/r3/gaps")))
done <"$T/gaps"
if [ "$ngap" -ge 2 ] && [ "$bad" = 0 ] && [ "$covered" = "$long" ] && [ "$marked" = "$ngap" ] &&
    [ "$(wc -l <"$T/r3/gaps")" = "$ngap" ]; then
    pass "gap_is_no_data_not_idle ($ngap gaps: no slice across one, the $long longer than 0 under CPU N's data_gap/N task, each marked)"
else
    failed gap_is_no_data_not_idle "$ngap gaps, $long of them longer than 0; $bad slices across one (idle included), $covered covered by data_gap/N, $marked marked"
fi

# ---- 5: a Linux-like trace: no counters, no error ----
if [ -s "$T/r5/slices" ] && [ ! -s "$T/r5/counters" ] && ! grep -q 'C|' "$T/t5.systrace"; then
    pass "linux_like_trace_has_no_counters"
else
    failed linux_like_trace_has_no_counters "$(wc -l <"$T/r5/counters") counter lines"
fi
if grep -q ' next_comm=other next_pid=4194049 ' "$T/t5.systrace" && ! grep -q 'pid=419379[2-5] ' "$T/t5.systrace"; then
    pass "linux_idle_is_pid_0_and_other_kept"
else
    failed linux_idle_is_pid_0_and_other_kept "other not there, or an idle tid written"
fi

# ---- the command: defaults, stdout, experiments, refusals ----
runq export --perfetto --db "$DB"
if [ "$rc" = 0 ] && cmp -s "$T/out" "$T/t5.systrace"; then pass default_is_newest_to_stdout; else
    failed default_is_newest_to_stdout "exit $rc, or not trace 5's export"; fi
q "INSERT INTO experiment (experiment_id, created, engine, cells, repeats) VALUES (7, 'now', 'kernel', 2, 1);
   INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, status) VALUES
     (7, 0, 0, 1, 1, 'kernel', 'ok'), (7, 1, 0, 1, 2, 'kernel', 'ok'), (7, 1, 0, 1, NULL, 'sim', 'ok');
   INSERT INTO experiment (experiment_id, created, engine, cells, repeats) VALUES (8, 'now', 'sim', 1, 1);"
runq export --perfetto --db "$DB" --experiment 7 -o "$T/exp"
if [ "$rc" = 0 ] && [ "$(cat "$T/out")" = "$T/exp/trace-1.systrace
$T/exp/trace-2.systrace" ] && cmp -s "$T/exp/trace-1.systrace" "$T/t1.systrace" &&
    cmp -s "$T/exp/trace-2.systrace" "$T/t2.systrace" && [ "$(ls "$T/exp" | wc -l)" = 2 ]; then
    pass experiment_a_file_a_trace
else
    failed experiment_a_file_a_trace "exit $rc: $(head -c 300 "$T/out" "$T/err")"
fi
expect no_such_trace 1 "no trace 99 in" export --perfetto --db "$DB" --trace 99
expect no_such_experiment 1 "no experiment 9" export --perfetto --db "$DB" --experiment 9 -o "$T/x"
expect experiment_without_trace 1 "recorded no trace" export --perfetto --db "$DB" --experiment 8 -o "$T/x"
expect no_database 1 "no such database" export --perfetto --db "$T/none.db"
expect needs_format 2 "--perfetto" export --db "$DB"
expect bad_trace 2 "--trace takes a trace id (a positive number), not 'x'" export --perfetto --db "$DB" --trace x
expect trace_and_experiment 2 "not both" export --perfetto --db "$DB" --trace 1 --experiment 7 -o "$T/x"
expect experiment_needs_dir 2 "-o DIR" export --perfetto --db "$DB" --experiment 7
expect unknown_flag 2 "unknown flag '--csv'" export --perfetto --csv
expect out_needs_value 2 "--out needs a value" export --perfetto -o
expect help 0 "" export --help
stdout_has help_names_the_format "--perfetto"
# A trace runq cannot write as a schedule (two slices overlapping on a
# CPU): exit 1, and neither OUT nor its temp file left behind.
cp "$DB" "$T/bad.db"
sq "$T/bad.db" "UPDATE sched_slice SET dur = dur + 1000000 WHERE id = (SELECT MIN(id) FROM sched_slice WHERE trace_id = 1 AND end_reason = 'preempt')"
expect overlap_refused 1 "slices overlap on CPU" export --perfetto --db "$T/bad.db" --trace 1 -o "$T/bad.systrace"
if [ -z "$(ls "$T"/bad.systrace* 2>/dev/null)" ]; then pass failed_export_leaves_no_file; else
    failed failed_export_leaves_no_file "$(ls "$T"/bad.systrace*)"; fi

# ---- docs/perfetto.md's examples ----
run_doc_examples docs/perfetto.md

exit $fail
