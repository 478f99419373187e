#!/usr/bin/env bash
# Tests of pipes in scenarios and of seed 001's handoff (issue 17;
# docs/scenarios.md "Pipes", docs/experiments.md "The pipe handoff"):
#   - the format refuses a pipe it cannot run, naming the line; runq sim
#     refuses pipes;
#   - the kernel runs scenarios/pipe-handoff.scn (a pair on one CPU), and
#     each task's voluntary and involuntary switches, counted by the
#     kernel, equal what its trace says in SQL;
#   - the two ends of every pair make the same number of handoffs;
#   - the thread's direction, in guest time: with REQUEUE_UPDATE_CURR
#     (333238da9a19) DELAY_ZERO off gives more handoffs than on (over
#     10 %), and on gives fewer than without 333238da9a19 (over 10 %);
#     without it DELAY_ZERO changes under a quarter as much; and with
#     every task alone on its CPU (scenarios/pipe-handoff-apart.scn) it
#     changes nothing.
# Usage: tests/kernel/handoff_test.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. "$(dirname "$0")/../lib.sh"

# ---- refusals ----
refusals experiment --dry-run <<'EOF'
undeclared_pipe|1|no pipe 'ping' declared above|task a pattern=write:ping
pipe_after_use|1|no pipe 'p' declared above|task a pattern=read:p\npipe p
too_many_bytes|2|do not fit in pipe p (size=8)|pipe p size=8\ntask a pattern=write:p:9\ntask b pattern=read:p
counts_differ|3|give both lines one count|pipe p\ntask a*2 pattern=write:p\ntask b*3 pattern=read:p
never_read|1|pipe p is read by no task|pipe p\ntask a pattern=write:p
bad_pipe_option|1|bad pipe option 'big'|pipe p big
count_of_unknown|1|no task line 'main' above|task echo*main
count_of_varied|4|task echo keeps main's count|pipe p\ntask main*2 pattern=write:p\ntask echo*main pattern=read:p\nvary echo.count 3
EOF
printf 'pipe p\ntask a cpu=0 pattern=write:p\ntask b cpu=0 pattern=read:p\n' >"$T/sim.scn"
expect sim_refuses_pipes 2 "runq sim has no pipes" experiment --engine sim "$T/sim.scn"

# The count of echo*main follows main's, also when varied.
printf 'pipe p\ntask main*2 pattern=write:p\ntask echo*main pattern=read:p\nvary main.count 3\n' >"$T/follow.scn"
runq experiment --dry-run "$T/follow.scn"
if [ "$rc" = 0 ] && grep -q "scn task echo 3 " "$T/out" && grep -q "scn pipe p 3 4096" "$T/out"; then
    pass count_follows_its_line
else
    failed count_follows_its_line "exit $rc: $(grep 'scn task\|scn pipe' "$T/out" | tr '\n' ';')"
fi

# ---- the kernel: a pair on one CPU, the 2 x 2 matrix ----
sed 's/^measure echo invol$/measure echo invol handoffs/' scenarios/pipe-handoff.scn >"$T/pipe-handoff.scn"
if ! runq experiment --quiet --csv --db "$T/h.db" "$T/pipe-handoff.scn"; then
    failed kernel_runs_pipe_handoff "exit $rc: $(tail -3 "$T/err")"
    exit 1
fi
pass kernel_runs_pipe_handoff
# value PARAMS METRIC: the cell's mean (the CSV: experiment,cell,params,
# then one column per measure).
col() { head -1 "$T/h.csv" | tr ',' '\n' | grep -nx "\"\\?$1\"\\?" | cut -d: -f1; }
cp "$T/out" "$T/h.csv"
value() {
    awk -F, -v p="$1" -v c="$(col "$2")" 'NR > 1 { q = $3; gsub(/"/, "", q); if (q == p) print $c }' "$T/h.csv"
}
on_on=$(value "switch=default feature.REQUEUE_UPDATE_CURR=on" main.handoffs)
off_on=$(value "switch=NO_DELAY_ZERO feature.REQUEUE_UPDATE_CURR=on" main.handoffs)
on_off=$(value "switch=default feature.REQUEUE_UPDATE_CURR=off" main.handoffs)
off_off=$(value "switch=NO_DELAY_ZERO feature.REQUEUE_UPDATE_CURR=off" main.handoffs)
# ratio A B: A / B as a number with 4 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
within() { awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'; }
r=$(ratio "$off_on" "$on_on")
within "$r" 1.10 10 && pass "delay_zero_off_recovers_with_333238da9a19 (x$r: $on_on -> $off_on handoffs/s)" ||
    failed delay_zero_off_recovers_with_333238da9a19 "DELAY_ZERO off / on = $r ($off_on / $on_on), want > 1.10"
r=$(ratio "$on_off" "$on_on")
within "$r" 1.10 10 && pass "333238da9a19_is_the_regression (x$r without it: $on_on -> $on_off)" ||
    failed 333238da9a19_is_the_regression "without / with = $r ($on_off / $on_on), want > 1.10"
r=$(ratio "$off_off" "$on_off")
# Without the commit the regression is gone: what DELAY_ZERO changes then
# is under a quarter of what it changes with the commit. (A bound in
# percent would be tuned to one build: the kernel's own code moves these
# digits, 1.0 % and 2.1 % in two builds, against 25.6 % and 26.9 %.)
with=$(ratio "$off_on" "$on_on")
awk -v a="$r" -v w="$with" 'BEGIN { d = a - 1; if (d < 0) d = -d; exit !(d < (w - 1) / 4) }' &&
    pass "without_333238da9a19_delay_zero_changes_little (x$r, against x$with with it)" ||
    failed without_333238da9a19_delay_zero_changes_little "off / on = $r ($off_off / $on_off), want a change under a quarter of x$with's"
bad=""
for p in "switch=default feature.REQUEUE_UPDATE_CURR=on" "switch=NO_DELAY_ZERO feature.REQUEUE_UPDATE_CURR=off"; do
    m=$(value "$p" main.handoffs) e=$(value "$p" echo.handoffs)
    within "$(ratio "$m" "$e")" 0.999 1.001 || bad="$bad $p: main $m echo $e;"
done
[ -z "$bad" ] && pass pairs_hand_off_equally || failed pairs_hand_off_equally "$bad"
# Per pair, as stored: each task's reads in scenario_task, the two ends of
# a pair within one read of each other.
pairs=$(sq "$T/h.db" "SELECT COUNT(*), SUM(ABS(m.reads - e.reads) <= 1 AND m.reads > 1000)
                      FROM scenario_task m JOIN scenario_task e ON e.scenario_id = m.scenario_id AND e.idx = m.idx
                      WHERE m.task = 'main' AND e.task = 'echo'")
[ "$pairs" = "4|4" ] && pass "pairs_reads_stored_per_task (4 cells: $(sq "$T/h.db" "SELECT GROUP_CONCAT(reads, '/') FROM scenario_task WHERE task = 'main'") reads)" ||
    failed pairs_reads_stored_per_task "pairs stored and equal: $pairs, want 4|4"

# Each task's switches: the kernel's counters against its trace. A switch
# is a slice that ends with the task blocking, sleeping, yielding, being
# delayed or exiting (voluntary) or preempted (involuntary), before the
# run's end mark, followed on its CPU by another task (a block that the
# same task's next slice follows was no switch, as in Linux).
sq "$T/h.db" "
WITH s AS (SELECT trace_id, utid, ts, dur, end_reason,
                  LEAD(utid) OVER (PARTITION BY trace_id, cpu ORDER BY ts) AS next_utid FROM sched_slice),
     e AS (SELECT trace_id, ts FROM mark WHERE name = 'scn end'),
     c AS (SELECT s.trace_id, s.utid,
                  SUM(end_reason IN ('block', 'sleep', 'yield', 'delayed', 'exit') AND next_utid != s.utid) AS vol,
                  SUM(end_reason = 'preempt' AND next_utid != s.utid) AS invol
           FROM s JOIN e ON e.trace_id = s.trace_id WHERE s.ts + s.dur <= e.ts GROUP BY s.trace_id, s.utid)
SELECT sc.params, st.name, st.vcsw, c.vol, st.ivcsw, c.invol
FROM scenario_task st JOIN scenario sc USING (scenario_id) JOIN c ON c.trace_id = sc.trace_id AND c.utid = st.utid
WHERE sc.trace_id NOT IN (SELECT trace_id FROM stats WHERE severity = 'data_loss' AND idx IS NULL AND value > 0)" \
    >"$T/sw" 2>&1
n=$(wc -l <"$T/sw")
# A trace that lost records (the tracer fell behind: counted in stats, and
# shown) cannot be compared with the counters: its cell is left out, and
# named. Since the RT class's layer made a traced handoff dearer, the
# fastest cell (DELAY_ZERO off, the commit out, about 19,000 handoffs a
# second) overflows CPU 1's 256 KiB ring twice; three cells must remain.
lossy=$(sq "$T/h.db" "SELECT GROUP_CONCAT(sc.params || ': ' || st.value || ' lost', '; ') FROM scenario sc
                      JOIN stats st ON st.trace_id = sc.trace_id WHERE st.severity = 'data_loss' AND st.idx IS NULL AND st.value > 0")
bad=""
bad="$bad"$(awk -F'|' '{ dv = $3 - $4; di = $5 - $6; if (dv < -1 || dv > 1 || di < -1 || di > 1) print $1 " " $2 ": kernel " $3 "/" $5 ", trace " $4 "/" $6 }' "$T/sw")
total=$(awk -F'|' '{ s += $3 + $5 } END { print s + 0 }' "$T/sw")
if [ "$n" -ge 6 ] && [ -z "$bad" ] && [ "$total" -gt 10000 ]; then
    pass "switch_counters_match_the_trace ($n tasks, $total switches; voluntary/involuntary each within 1${lossy:+; left out, their traces lost records: $lossy})"
else
    failed switch_counters_match_the_trace "$n rows of 8 (6 at least), $total switches; $bad $(head -c 200 "$T/sw")${lossy:+; lossy: $lossy}"
fi

# ---- every task alone on its CPU: nothing to decide ----
if runq experiment --quiet --csv --db "$T/a.db" --vary feature.REQUEUE_UPDATE_CURR=on scenarios/pipe-handoff-apart.scn; then
    cp "$T/out" "$T/h.csv"
    a_on=$(value "switch=default feature.REQUEUE_UPDATE_CURR=on" main.handoffs)
    a_off=$(value "switch=NO_DELAY_ZERO feature.REQUEUE_UPDATE_CURR=on" main.handoffs)
    r=$(ratio "$a_off" "$a_on")
    within "$r" 0.99 1.01 && pass "apart_delay_zero_changes_nothing (x$r: $a_on, $a_off handoffs/s)" ||
        failed apart_delay_zero_changes_nothing "off / on = $r ($a_off / $a_on), want within 1 %"
else
    failed apart_delay_zero_changes_nothing "exit $rc: $(tail -3 "$T/err")"
fi
exit $fail
