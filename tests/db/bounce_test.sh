#!/usr/bin/env bash
# Trace format 4 on the host (issue 18): RT tasks that release the fair
# task they find running, the bounce -> run population, migrations, the
# knobs and counters, and the reports built on them. Generated traces
# (tests/trace/trace_gen.c --rt, --migrate, --task-v3), so no kernel is needed.
# Every number a report prints is computed again here, in SQL or awk,
# from the stored rows. Prints PASS/FAIL lines.
#
# usage: tests/db/bounce_test.sh [RUNQ] [TRACE_GEN]
set -u
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
. tests/lib.sh
DB=$T/b.db
q() { sq "$DB" "$@"; }

# trace 1: eevdf, 2 RT tasks on 4 CPUs, 1 release in 3 re-placed;
# trace 2: the same under rr; trace 3: a version-3 stream (48-byte TASK).
"$GEN" --cpus 4 --ms 400 --rt 2 --migrate 3 --out "$T/e.bin" &&
    "$GEN" --cpus 4 --ms 400 --rt 4 --migrate 2 --policy rr --out "$T/r.bin" &&
    "$GEN" --cpus 2 --ms 100 --task-v3 --out "$T/v3.bin" || { echo "FAIL fixture: trace_gen"; exit 1; }
for f in e r v3; do
    "$RUNQ" record --db "$DB" --file "$T/$f.bin" >/dev/null 2>"$T/rec.err" ||
        { echo "FAIL fixture: runq record $f.bin: $(head -c 300 "$T/rec.err")"; exit 1; }
done

# Each check is one row of numbers over traces 1 and 2; each must hold
# on a trace that has something to check (its first number above 0).
for id in 1 2; do
    # One bounce row for each LEAVE release: the same task, time, CPU and class.
    r=$(q "SELECT (SELECT COUNT(*) FROM eevdf_leave WHERE trace_id = $id AND reason = 'release'),
                  (SELECT COUNT(*) FROM bounce WHERE trace_id = $id),
                  (SELECT COUNT(*) FROM bounce b JOIN eevdf_leave l ON l.trace_id = b.trace_id AND l.utid = b.utid
                     AND l.ts = b.ts_bounce AND l.cpu = b.cpu AND l.reason = 'release' AND l.by_class = b.by_class
                   WHERE b.trace_id = $id)")
    IFS='|' read -r n nb nj <<<"$r"
    if [ "${n:-0}" -gt 0 ] && [ "$nb" = "$n" ] && [ "$nj" = "$n" ]; then
        pass "bounce_rows_are_the_release_leaves_$id ($n)"
    else
        failed "bounce_rows_are_the_release_leaves_$id" "releases $n, bounce rows $nb, of them matching a release $nj"
    fi

    # One migration row (trace format 5's MIGRATE) for each LEAVE migrate:
    # the same task, time and CPU, reason rt_release, queued, its JOIN
    # migrate on dst_cpu next, and a migration_load row for each CPU.
    r=$(q "SELECT (SELECT COUNT(*) FROM eevdf_leave WHERE trace_id = $id AND reason = 'migrate'),
                  (SELECT COUNT(*) FROM migration WHERE trace_id = $id),
                  (SELECT COUNT(*) FROM migration m JOIN eevdf_leave l ON l.trace_id = m.trace_id AND l.utid = m.utid
                     AND l.ts = m.ts AND l.cpu = m.src_cpu AND l.reason = 'migrate'
                   WHERE m.trace_id = $id AND m.reason = 'rt_release' AND m.queued = 1 AND EXISTS (
                     SELECT 1 FROM eevdf_place p WHERE p.trace_id = m.trace_id AND p.utid = m.utid
                       AND p.reason = 'migrate' AND p.cpu = m.dst_cpu AND p.ts >= m.ts)),
                  (SELECT COUNT(*) FROM migration_load WHERE trace_id = $id)")
    IFS='|' read -r n nm nj nl <<<"$r"
    if [ "${n:-0}" -gt 0 ] && [ "$nm" = "$n" ] && [ "$nj" = "$n" ] && [ "$nl" = $((4 * n)) ]; then
        pass "migration_rows_are_the_migrate_leaves_$id ($n)"
    else
        failed "migration_rows_are_the_migrate_leaves_$id" "LEAVE migrate $n, migration rows $nm, of them matching $nj, load rows $nl (want 4 a move)"
    fi

    # Every R+ interval that begins at a LEAVE release is in bounce
    # exactly once, with the same start, and its end where the task ran
    # (ts_run NULL: it ended at a gap or the end of the trace).
    r=$(q "WITH rp AS (SELECT s.utid, s.ts, s.ts + s.dur AS te FROM thread_state s JOIN eevdf_leave l
                         ON l.trace_id = s.trace_id AND l.utid = s.utid AND l.ts = s.ts AND l.reason = 'release'
                       WHERE s.trace_id = $id AND s.state = 'R+')
           SELECT COUNT(*), SUM((SELECT COUNT(*) FROM bounce b WHERE b.trace_id = $id AND b.utid = rp.utid
                                   AND b.ts_bounce = rp.ts AND (b.ts_run = rp.te OR b.ts_run IS NULL)) <> 1),
                  (SELECT COUNT(*) FROM bounce b WHERE b.trace_id = $id AND NOT EXISTS (SELECT 1 FROM rp
                     WHERE rp.utid = b.utid AND rp.ts = b.ts_bounce))
           FROM rp")
    IFS='|' read -r n bad orphan <<<"$r"
    if [ "${n:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ "$orphan" = 0 ]; then
        pass "every_release_interval_is_one_bounce_$id ($n R+ intervals)"
    else
        failed "every_release_interval_is_one_bounce_$id" "$n R+ intervals after a release, $bad without exactly one bounce of the same start and end, $orphan bounces without one"
    fi

    # ts_run and run_cpu are the task's next PICK as next, on any CPU;
    # a release is not a wakeup.
    r=$(q "SELECT COUNT(*), SUM(p.ts IS NOT b.ts_run OR (p.ts IS NOT NULL AND p.cpu IS NOT b.run_cpu)
                                 OR b.latency IS NOT b.ts_run - b.ts_bounce),
                  SUM(b.cpu <> b.run_cpu),
                  (SELECT COUNT(*) FROM wakeup w JOIN eevdf_leave l ON l.trace_id = w.trace_id AND l.utid = w.utid
                     AND l.ts = w.ts_wake AND l.reason = 'release' WHERE w.trace_id = $id)
           FROM bounce b LEFT JOIN eevdf_pick p ON p.id = (SELECT MIN(id) FROM eevdf_pick WHERE trace_id = $id
                AND next_utid = b.utid AND ts > b.ts_bounce)
           WHERE b.trace_id = $id AND b.ts_run IS NOT NULL")
    IFS='|' read -r n bad moved waked <<<"$r"
    if [ "${n:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ "${moved:-0}" -gt 0 ] && [ "$waked" = 0 ]; then
        pass "bounce_ends_at_the_next_pick_$id ($n, $moved on another CPU)"
    else
        failed "bounce_ends_at_the_next_pick_$id" "$n ran, $bad not at their next pick, $moved on another CPU (want some), $waked wakeups at a release (want 0)"
    fi

    # The kernel's counters (releases_rt, migrations: last - first sample
    # per CPU) against the records between those samples.
    r=$(q "WITH c AS (SELECT cpu, name, MIN(ts) AS t0, MAX(ts) AS t1, MAX(value) - MIN(value) AS counted
                      FROM counter WHERE trace_id = $id AND name IN ('releases_rt', 'migrations') GROUP BY cpu, name)
           SELECT SUM(counted), SUM(counted <> (SELECT COUNT(*) FROM eevdf_leave l WHERE l.trace_id = $id
                    AND l.cpu = c.cpu AND l.ts > c.t0 AND l.ts <= c.t1
                    AND l.reason = CASE c.name WHEN 'releases_rt' THEN 'release' ELSE 'migrate' END))
           FROM c")
    IFS='|' read -r n bad <<<"$r"
    if [ "${n:-0}" -gt 0 ] && [ "$bad" = 0 ]; then
        pass "releases_and_migrations_equal_the_counters_$id ($n counted)"
    else
        failed "releases_and_migrations_equal_the_counters_$id" "$n counted, $bad CPU counters differing from the records"
    fi

    # Migration: on each CPU the slices do not overlap, nor a task's
    # states; each Running state is a slice on the same CPU; the R
    # interval a JOIN migrate falls in names the new CPU (the one the task
    # runs on next); the JOIN carries the lag the LEAVE left with.
    r=$(q "SELECT (SELECT COUNT(*) FROM eevdf_place WHERE trace_id = $id AND reason = 'migrate'),
             (SELECT COUNT(*) FROM (SELECT ts, lag(ts + dur) OVER (PARTITION BY cpu ORDER BY ts, id) AS prev_end
                FROM sched_slice WHERE trace_id = $id) WHERE ts < prev_end),
             (SELECT COUNT(*) FROM (SELECT ts, lag(ts + dur) OVER (PARTITION BY utid ORDER BY ts, id) AS prev_end
                FROM thread_state WHERE trace_id = $id) WHERE ts < prev_end),
             (SELECT COUNT(*) FROM thread_state s WHERE s.trace_id = $id AND s.state = 'Running' AND NOT EXISTS
                (SELECT 1 FROM sched_slice x WHERE x.trace_id = $id AND x.utid = s.utid AND x.cpu = s.cpu
                   AND x.ts <= s.ts AND s.ts < x.ts + x.dur + (x.dur = 0))),
             (SELECT COUNT(*) FROM eevdf_place p JOIN thread_state s ON s.trace_id = p.trace_id AND s.utid = p.utid
                AND s.ts <= p.ts AND p.ts < s.ts + s.dur
              WHERE p.trace_id = $id AND p.reason = 'migrate' AND (s.state NOT IN ('R', 'R+') OR s.cpu <> p.cpu)),
             (SELECT COUNT(*) FROM eevdf_place p JOIN eevdf_leave l ON l.trace_id = p.trace_id AND l.utid = p.utid
                AND l.ts = p.ts AND l.reason = 'migrate'
              WHERE p.trace_id = $id AND p.reason = 'migrate' AND p.lag_before IS NOT l.lag)")
    IFS='|' read -r n ov_slice ov_state run_off bad_cpu bad_lag <<<"$r"
    if [ "${n:-0}" -gt 0 ] && [ "$ov_slice$ov_state$run_off$bad_cpu$bad_lag" = 00000 ]; then
        pass "migration_keeps_slices_and_states_consistent_$id ($n migrations)"
    else
        failed "migration_keeps_slices_and_states_consistent_$id" "$n migrations; overlapping slices $ov_slice, states $ov_state; Running without its slice $run_off; R intervals not on the new CPU $bad_cpu; lag not carried $bad_lag"
    fi
done

# A release is an involuntary switch (R+), as a preemption; a migrate is none.
r=$(q "SELECT (SELECT COUNT(*) FROM sched_slice WHERE trace_id = 1 AND end_reason = 'release') -
              (SELECT COUNT(*) FROM eevdf_leave WHERE trace_id = 1 AND reason = 'release'),
              (SELECT COUNT(*) FROM sched_slice WHERE trace_id = 1 AND end_reason = 'release'),
              (SELECT COUNT(*) FROM sched_slice WHERE trace_id = 1 AND end_reason = 'release' AND end_state <> 'R+'),
              (SELECT COUNT(*) FROM sched_slice WHERE trace_id = 1 AND end_reason = 'migrate'),
              (SELECT SUM(involuntary) FROM thread_switches WHERE trace_id = 1) -
              (SELECT COUNT(*) FROM sched_slice WHERE trace_id = 1 AND end_reason IN ('preempt', 'release'))")
IFS='|' read -r miss n bad mig diff <<<"$r"
if [ "${n:-0}" -gt 0 ] && [ "$miss$bad$mig$diff" = 0000 ]; then
    pass "release_is_an_involuntary_switch ($n slices)"
else
    failed release_is_an_involuntary_switch "$n slices ended by release ($miss more than releases), $bad not R+, $mig ended by migrate, involuntary off by $diff"
fi

# Classes, the SET class and the knobs as the stream states them.
r=$(q "SELECT (SELECT group_concat(name || ':' || class || ':' || rt_prio || ':' || COALESCE(rt_policy, '-'), ' ')
                 FROM (SELECT * FROM thread WHERE trace_id = 1 AND class = 'rt' ORDER BY tid)),
              (SELECT COUNT(*) FROM thread WHERE trace_id = 1 AND class = 'fair' AND rt_prio = 0 AND rt_policy IS NULL),
              (SELECT group_concat(name || '=' || new_value, ' ') FROM sched_set WHERE trace_id = 1 AND what = 'knob')")
IFS='|' read -r rt fair knobs <<<"$r"
if [ "$rt" = "rt0:rt:50:fifo rt1:rt:51:rr" ] && [ "${fair:-0}" -gt 0 ] &&
    [ "$knobs" = "replace_on_release=1 rt_runtime_us=950000 rt_period_us=1000000" ]; then
    pass "classes_and_knobs_stored ($rt; $knobs)"
else
    failed classes_and_knobs_stored "rt threads '$rt', fair $fair, knobs '$knobs'"
fi

# A version-3 stream (48-byte TASK records) loads, every task fair.
r=$(q "SELECT (SELECT format_version FROM trace WHERE trace_id = 3), COUNT(*),
              SUM(class IS NOT 'fair' OR rt_prio IS NOT 0 OR rt_policy IS NOT NULL),
              (SELECT COUNT(*) FROM bounce WHERE trace_id = 3)
       FROM thread WHERE trace_id = 3 AND name IS NOT NULL")
IFS='|' read -r v n bad nb <<<"$r"
if [ "$v" = 3 ] && [ "${n:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ "$nb" = 0 ]; then
    pass "v3_trace_loads_as_fair ($n tasks)"
else
    failed v3_trace_loads_as_fair "format $v, $n named tasks, $bad not fair, $nb bounces"
fi

# runq report releases: each number from the rows, here in SQL.
runq report releases --db "$DB" --csv
want=$(q "SELECT t.trace_id, 'trace ' || t.trace_id, ROUND((t.end_ts - t.start_ts) / 1e9, 3), COUNT(l.id),
              COUNT(CASE WHEN l.by_class = 'rt' THEN 1 END),
              ROUND(COUNT(l.id) / ((t.end_ts - t.start_ts) / 1e9), 1),
              ROUND(1.0 * (SELECT COUNT(*) FROM bounce b WHERE b.trace_id = t.trace_id) / NULLIF(COUNT(l.id), 0), 2)
          FROM trace t LEFT JOIN eevdf_leave l ON l.trace_id = t.trace_id AND l.reason = 'release'
          GROUP BY t.trace_id ORDER BY t.trace_id" | tr '|' ',')
got=$(tail -n +2 "$T/out")
if [ "$rc" = 0 ] && [ "$got" = "$want" ] && [ ! -s "$T/err" ] &&
    [ "$(head -n 1 "$T/out")" = "trace_id,trace,guest_s,releases,rt,per_s,bounced_per_release" ]; then
    pass "report_releases_counts_the_release_leaves"
else
    failed report_releases_counts_the_release_leaves "exit $rc; got '$(tr '\n' ' ' <"$T/out")', want '$(echo "$want" | tr '\n' ' ')'; stderr $(head -c 200 "$T/err")"
fi
# A release the trace lost, the kernel's counter still has: a warning line.
cp "$DB" "$T/lost.db"
sq "$T/lost.db" "DELETE FROM eevdf_leave WHERE id = (SELECT id FROM eevdf_leave l WHERE trace_id = 1 AND reason = 'release'
                   AND ts > (SELECT MIN(ts) FROM counter c WHERE c.trace_id = 1 AND c.cpu = l.cpu) ORDER BY ts LIMIT 1)"
runq report releases --db "$T/lost.db" --trace 1
if [ "$rc" = 0 ] && [ "$(grep -c 'warning: trace 1 cpu [0-9]*: the kernel counted [0-9]* releases to rt' "$T/err")" = 1 ]; then
    pass "report_releases_warns_when_the_counter_differs"
else
    failed report_releases_warns_when_the_counter_differs "exit $rc, stderr: $(head -c 300 "$T/err")"
fi

# runq report latency: the populations, computed again in awk with the
# same rule (scn_rank: index (n - 1) * per_mille / 1000 of the sorted values).
runq report latency --db "$DB" --trace 1 --threshold 800us --csv
q "SELECT 'wake->run', latency FROM wakeup WHERE trace_id = 1 AND latency IS NOT NULL
   UNION ALL SELECT 'bounce->run', latency FROM bounce WHERE trace_id = 1 AND latency IS NOT NULL
   UNION ALL SELECT 'all', latency FROM (SELECT latency FROM wakeup WHERE trace_id = 1 UNION ALL
                                         SELECT latency FROM bounce WHERE trace_id = 1) WHERE latency IS NOT NULL
   ORDER BY 1, 2" | tr '|' ' ' >"$T/lat"
# sorted by population, then latency: v[pop, 0..n-1] ascending
want=$(awk '{ v[$1, n[$1]++] = $2 }
    function us(x) { return sprintf("%.1f", x / 1000) }
    function row(p,   c, i, over) {
        c = n[p]
        for (i = 0; i < c; i++) if (v[p, i] > 800000) over++
        printf "%s,%d,%.2f,%s,%s,%s,%.3f\n", p, c, 100 * c / n["all"], us(v[p, int((c - 1) * 990 / 1000)]),
            us(v[p, int((c - 1) * 999 / 1000)]), us(v[p, c - 1]), 100 * over / c
    }
    END { row("wake->run"); row("bounce->run"); row("all") }' "$T/lat")
# SQLite prints a REAL without trailing zeros (12.5, 100.0): so do we.
got=$(sed -n '2,4p' "$T/out" | awk -F, -v OFS=, '{ for (i = 3; i <= NF; i++) $i = sprintf(i == 3 ? "%.2f" : i == 7 ? "%.3f" : "%.1f", $i); print }')
if [ "$rc" = 0 ] && [ "$got" = "$want" ] && [ "$(head -n 1 "$T/out")" = "population,samples,share_pct,p99_us,p999_us,max_us,over_800us_pct" ]; then
    pass "report_latency_populations ($(echo "$want" | tr '\n' ' '))"
else
    failed report_latency_populations "exit $rc; got '$(echo "$got" | tr '\n' ' ')', want '$(echo "$want" | tr '\n' ' ')'"
fi
# ... and per task, beside the wake columns: bounces and their p99.
want=$(q "WITH b AS (SELECT utid, latency, ROW_NUMBER() OVER (PARTITION BY utid ORDER BY latency) - 1 AS i,
                      COUNT(*) OVER (PARTITION BY utid) AS n FROM bounce WHERE trace_id = 1 AND latency IS NOT NULL)
          SELECT t.tid || ',' || n || ',' || (SELECT latency FROM b b2 WHERE b2.utid = b.utid AND b2.i = (b.n - 1) * 990 / 1000)
          FROM b JOIN thread t USING (utid) GROUP BY utid ORDER BY t.tid")
got=$(awk -F, '/^tid,/ { on = 1; next } on && $8 > 0 { printf "%s,%s,%d\n", $1, $8, $9 * 1000 + 0.5 }' "$T/out" | sort -t, -k1,1n)
want=$(echo "$want" | awk -F, '{ printf "%s,%s,%d\n", $1, $2, int($3 / 100 + 0.5) * 100 }' | sort -t, -k1,1n)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
    pass "report_latency_per_task_bounces ($(echo "$want" | wc -l) tasks)"
else
    failed report_latency_per_task_bounces "got '$(echo "$got" | tr '\n' ' ')', want '$(echo "$want" | tr '\n' ' ')'"
fi
# max_at_ms: when the task's longest wait began, in ms since the trace's
# start (runq step's and plot's time base); --absolute: the stored stamp.
# In a copy whose trace starts at its first wakeup (the generator's start
# at 0 would make the two the same).
cp "$DB" "$T/late.db"
sq "$T/late.db" "UPDATE trace SET start_ts = (SELECT MIN(ts_wake) FROM wakeup WHERE trace_id = 1) WHERE trace_id = 1"
runq report latency --db "$T/late.db" --trace 1 --csv
rel=$(awk -F, '/^tid,/ { on = 1; next } on && $7 != "" { print $1 "," $7 }' "$T/out" | sort)
runq report latency --db "$T/late.db" --trace 1 --csv --absolute
abs=$(awk -F, '/^tid,/ { on = 1; next } on && $7 != "" { print $1 "," $7 }' "$T/out" | sort)
want=$(sq "$T/late.db" "SELECT t.tid || ',' || ROUND((w.ts_wake - tr.start_ts) / 1e6, 3) || ',' || ROUND(w.ts_wake / 1e6, 3)
          FROM wakeup w JOIN thread t USING (utid) JOIN trace tr ON tr.trace_id = w.trace_id
          WHERE w.trace_id = 1 AND w.latency = (SELECT MAX(latency) FROM wakeup w2 WHERE w2.utid = w.utid)
            AND w.ts_wake = (SELECT MAX(ts_wake) FROM wakeup w3 WHERE w3.utid = w.utid AND w3.latency = w.latency)" | sort)
num() { awk -F, '{ printf "%s,%.3f\n", $1, $2 }'; }
wrel=$(echo "$want" | cut -d, -f1,2 | num) wabs=$(echo "$want" | cut -d, -f1,3 | num)
if [ -n "$want" ] && [ "$(echo "$rel" | num)" = "$wrel" ] && [ "$(echo "$abs" | num)" = "$wabs" ] && [ "$wrel" != "$wabs" ]; then
    pass "report_latency_max_at_since_start ($(echo "$want" | wc -l) tasks)"
else
    failed report_latency_max_at_since_start "got '$(echo "$rel" | tr '\n' ' ')' / '$(echo "$abs" | tr '\n' ' ')', want '$(echo "$want" | tr '\n' ' ')'"
fi
# --class: only that class's tasks in the populations (the study of seed
# 004 looks at the fair tasks; RT tasks' own wakeups would dilute them).
for c in fair rt; do
    runq report latency --db "$DB" --trace 1 --class $c --csv
    got=$(sed -n '2,3p' "$T/out" | cut -d, -f1,2 | tr '\n' ' ')
    want=$(q "SELECT 'wake->run,' || (SELECT count(*) FROM wakeup w JOIN thread t USING (utid) WHERE w.trace_id = 1 AND w.latency IS NOT NULL AND t.class = '$c')
              || ' bounce->run,' || (SELECT count(*) FROM bounce b JOIN thread t USING (utid) WHERE b.trace_id = 1 AND b.latency IS NOT NULL AND t.class = '$c')")
    if [ "$rc" = 0 ] && [ "$got" = "$want " ] && [ "${want#wake->run,0 }" = "$want" ]; then
        pass "report_latency_class_$c ($want)"
    else
        failed "report_latency_class_$c" "exit $rc; got '$got', want '$want '"
    fi
done
expect report_latency_bad_class 2 "--class takes fair, rt or all, not 'idle'" report latency --db "$DB" --class idle
expect report_latency_bad_threshold 2 "--threshold takes a duration above 0 (500us, 1ms, 2.5ms), not 'soon'" report latency --db "$DB" --threshold soon
expect report_threshold_only_for_latency 2 "unknown flag '--threshold'; see runq report share --help" report share --db "$DB" --threshold 1ms

exit $fail
