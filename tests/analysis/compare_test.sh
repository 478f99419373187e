#!/usr/bin/env bash
# runq report compare (host/analysis/compare.c, docs/compare.md) on real databases
# made without the kernel: traces of tests/trace/trace_gen.c, recorded, with
# scenario rows written beside them as runq experiment writes them.
#   - every interval's numbers and verdict, computed here in awk from the
#     raw wakeup rows (its own interval arithmetic and percentile rule);
#   - the sign test against known values, on wakeup rows written so that
#     each side wins a known number of intervals (4 vs 10: p = 0.18;
#     0 vs 10: 0.002; 7 vs 7: 1), each deciding sample on an interval's
#     first nanosecond;
#   - the checks of one scenario and seed, and the refusals;
#   - the examples of docs/compare.md, output line for line.
# Prints PASS/FAIL lines.
#
# usage: tests/analysis/compare_test.sh [RUNQ] [TRACE_GEN]
set -u
cd "$(dirname "$0")/../.."
RUNQ=$(realpath "${1:-build/runq}")
TRACE_GEN=${2:-build/tests/trace_gen}
. tests/lib.sh

# ---- fixtures ----
# Traces: 1 seed 7; 2 seed 7 with RUN_TO_PARITY off; 3 seed 8; 4 as 2 but
# 250 ms long; 5 seed 7 with RUN_TO_PARITY and PLACE_LAG off; 6 as 2 with
# records dropped half-way (data gaps); neither 5 nor 6 has a scenario row. Scenario runs: 1, 2 (experiment 1, cells 0 and 1), 3 (cell 0,
# repeat 1, seed 8), 4 (experiment 2: the same file again, trace 4), 5
# (experiment 3: another scenario, also trace 4), 6 (on paper: no trace).
G=$T/g.db
gen() { "$GEN" --cpus 2 --tasks 6 --seed "$@"; }
gen 7 --ms 300 --out "$T/1.bin" && gen 7 --ms 300 --feature NO_RUN_TO_PARITY --out "$T/2.bin" &&
    gen 8 --ms 300 --out "$T/3.bin" && gen 7 --ms 250 --feature NO_RUN_TO_PARITY --out "$T/4.bin" &&
    gen 7 --ms 300 --feature NO_RUN_TO_PARITY --feature NO_PLACE_LAG --out "$T/5.bin" &&
    gen 7 --ms 300 --feature NO_RUN_TO_PARITY --ring-drop 40 --out "$T/6.bin" ||
    { failed fixture "trace_gen failed"; exit 1; }
for i in 1 2 3 4 5 6; do
    "$RUNQ" record --file "$T/$i.bin" --db "$G" >/dev/null 2>&1 || { failed fixture "could not record $i"; exit 1; }
done
# With real-time tasks (trace format 4, issue 18), where trace_gen makes
# them: 7 and 8 as 1 and 2, and RT bursts that bounce fair tasks.
rt=0
if "$GEN" --help | grep -q -- '--rt N'; then
    rt=1
    gen 7 --ms 300 --rt 2 --out "$T/7.bin" && gen 7 --ms 300 --rt 2 --feature NO_RUN_TO_PARITY --out "$T/8.bin" &&
        "$RUNQ" record --file "$T/7.bin" --db "$G" >/dev/null 2>&1 &&
        "$RUNQ" record --file "$T/8.bin" --db "$G" >/dev/null 2>&1 || { failed fixture "could not record 7, 8"; exit 1; }
fi
text() { printf 'policy eevdf\ncpus 2\nquantum 10us\nhz 250\nrun 300ms\n%bfeature RUN_TO_PARITY %s\ntask %s*3\n' "$1" "$2" "$3"; }
sq "$G" "
INSERT INTO experiment (experiment_id, created, file, engine, axes, cells, repeats) VALUES
  (1, 'now', 'x.scn', 'kernel', 'feature.RUN_TO_PARITY', 2, 2),
  (2, 'now', 'x.scn', 'kernel', 'feature.RUN_TO_PARITY', 1, 1),
  (3, 'now', 'y.scn', 'kernel', 'feature.RUN_TO_PARITY', 2, 1);
INSERT INTO scenario (scenario_id, experiment_id, cell, repeat, seed, trace_id, engine, params, status, text) VALUES
  (1, 1, 0, 0, 7, 1, 'kernel', 'feature.RUN_TO_PARITY=on', 'ok', '$(text 'seed 7\n' on hog)'),
  (2, 1, 1, 0, 7, 2, 'kernel', 'feature.RUN_TO_PARITY=off', 'ok', '$(text 'seed 7\n' off hog)'),
  (3, 1, 0, 1, 8, 3, 'kernel', 'feature.RUN_TO_PARITY=on', 'ok', '$(text 'seed 8\n' on hog)'),
  (4, 2, 0, 0, 7, 4, 'kernel', 'feature.RUN_TO_PARITY=off', 'ok', '$(text 'seed 7\n' off hog)'),
  (5, 3, 0, 0, 7, 4, 'kernel', 'feature.RUN_TO_PARITY=off', 'ok', '$(text 'seed 7\n' off spin)'),
  (6, 3, 1, 0, 7, NULL, 'sim', 'feature.RUN_TO_PARITY=on', 'ok', '$(text 'seed 7\n' on spin)');" ||
    { failed fixture "could not write the scenario rows"; exit 1; }

# expected DB A B D_NS THRESHOLD_NS METRIC NAME_REGEX: the CSV runq report
# compare --csv should print for traces A and B, made here from the raw
# rows: each run's window is its trace's first to last record (trace_gen
# marks no scn start), cut at start + k*D; a sample is in the interval
# its wakeup is; of n sorted samples the p-th per mille is the one at
# index floor((n-1)*p/1000); an interval that a data gap of either trace
# overlaps is unknown; bounces (bounce rows with a latency) and releases
# (LEAVE release) by their own time, in columns of their own when any of
# the paired intervals has one.
expected() {
    local db=$1 a=$2 b=$3 d=$4 th=$5 metric=$6 re=$7
    sq -separator ' ' "$db" "SELECT trace_id, start_ts, end_ts FROM trace WHERE trace_id IN ($a, $b)" >"$T/win"
    sq -separator ' ' "$db" "SELECT w.trace_id, w.ts_wake, w.latency, t.name FROM wakeup w JOIN thread t USING (utid)
                             WHERE w.trace_id IN ($a, $b) AND NOT t.is_idle AND w.latency IS NOT NULL" |
        awk -v re="$re" -v d="$d" -v winf="$T/win" '
            BEGIN { while ((getline l < winf) > 0) { split(l, f, " "); s[f[1]] = f[2]; n[f[1]] = int((f[3] - f[2]) / d) } }
            $4 ~ re && $2 >= s[$1] { iv = int(($2 - s[$1]) / d); if (iv < n[$1]) print $1, iv, $3 }' |
        sort -n -k1,1 -k2,2 -k3,3 >"$T/samples"
    sq -separator ' ' "$db" "SELECT trace_id, ts_start, ts_end FROM data_gap WHERE trace_id IN ($a, $b)" >"$T/gaps"
    : >"$T/bounces"
    if [ -n "$(sq "$db" "SELECT 1 FROM sqlite_master WHERE name = 'bounce'")" ]; then
        sq -separator ' ' "$db" "SELECT 'b', x.trace_id, x.ts_bounce, t.name FROM bounce x JOIN thread t USING (utid)
                                 WHERE x.trace_id IN ($a, $b) AND NOT t.is_idle AND x.latency IS NOT NULL
                                 UNION ALL SELECT 'r', x.trace_id, x.ts, t.name FROM eevdf_leave x JOIN thread t USING (utid)
                                 WHERE x.trace_id IN ($a, $b) AND NOT t.is_idle AND x.reason = 'release'" >"$T/bounces"
    fi
    awk -v a="$a" -v b="$b" -v th="$th" -v metric="$metric" -v winf="$T/win" -v gapf="$T/gaps" -v d="$d" \
        -v bf="$T/bounces" -v re="$re" '
        BEGIN {
            while ((getline l < winf) > 0) { split(l, f, " "); nf[f[1]] = int((f[3] - f[2]) / d); s[f[1]] = f[2] }
            m = nf[a] < nf[b] ? nf[a] : nf[b]
            while ((getline l < bf) > 0) {
                split(l, f, " ")
                i = int((f[3] - s[f[2]]) / d)
                if (f[4] !~ re || f[3] < s[f[2]] || i >= nf[f[2]]) continue
                bc[f[1], f[2], i]++
                if (i < m) shown = 1
            }
            while ((getline l < gapf) > 0) {
                split(l, f, " ")
                for (i = 0; i < nf[f[1]]; i++)
                    if (f[2] < s[f[1]] + (i + 1) * d && f[3] > s[f[1]] + i * d) gap[i] = 1
            }
        }
        { k = $1 SUBSEP $2; c = ++cnt[k]; v[k, c] = $3; past[k] += $3 > th }
        function at(k, p) { return v[k, int((cnt[k] - 1) * p / 1000) + 1] }
        function side(t, i,   k, r) {
            k = t SUBSEP i
            r = cnt[k] ? "," cnt[k] "," past[k] + 0 "," at(k, 990) "," at(k, 999) "," v[k, cnt[k]] : ",0,0,0,0,0"
            return r (shown ? "," bc["b", t, i] + 0 "," bc["r", t, i] + 0 : "")
        }
        END {
            h = "interval"
            for (j = 0; j < 2; j++) {
                p = j ? "b" : "a"
                h = h "," p "_wakeups," p "_past," p "_p99_ns," p "_p999_ns," p "_max_ns"
                if (shown) h = h "," p "_bounces," p "_releases"
            }
            print h ",better"
            for (i = 0; i < m; i++) {
                ka = a SUBSEP i; kb = b SUBSEP i
                if (i in gap) w = "unknown"
                else if (!cnt[ka] || !cnt[kb]) w = "none"
                else {
                    if (metric == "tail") { x = past[ka] * cnt[kb]; y = past[kb] * cnt[ka] }
                    else if (metric == "max") { x = v[ka, cnt[ka]]; y = v[kb, cnt[kb]] }
                    else { p = metric == "p99" ? 990 : 999; x = at(ka, p); y = at(kb, p) }
                    w = x < y ? "A" : x > y ? "B" : "tie"
                }
                print i side(a, i) side(b, i) "," w
            }
        }' "$T/samples"
}

# check NAME EXPECTED_ARGS -- RUNQ_ARGS: runq's CSV against expected's.
check() {
    local name=$1
    shift
    local exp=()
    while [ "$1" != -- ]; do exp+=("$1"); shift; done
    shift
    expected "${exp[@]}" >"$T/want"
    runq report compare --csv "$@"
    local rows
    rows=$(($(wc -l <"$T/want") - 1))
    if [ "$rc" != 0 ]; then
        failed "$name" "exit $rc: $(head -c 300 "$T/err")"
    elif [ "$rows" -lt 8 ] || [ "$(grep -c ',[AB]$' "$T/want")" -lt 3 ]; then
        failed "$name" "the fixture gives only $rows intervals, $(grep -c ',[AB]$' "$T/want") won: too few to check"
    elif ! diff -u "$T/want" "$T/out" >"$T/diff"; then
        failed "$name" "differs from the rows: $(head -n 12 "$T/diff" | tr '\n' '|')"
    else
        pass "$name ($rows intervals, $(grep -c ',A$' "$T/want") A, $(grep -c ',B$' "$T/want") B)"
    fi
}

# ---- every interval's numbers, from the rows ----
check intervals_tail_match_rows "$G" 1 2 20000000 1000000 tail . -- 1 2 --db "$G" --interval 20ms
check intervals_p99_half_ms_match_rows "$G" 1 2 10000000 500000 p99 . -- 1/0 1/1 --db "$G" --interval 10ms \
    --threshold 500us --metric p99
check intervals_max_of_tasks_match_rows "$G" 1 2 25000000 1000000 max '^(io1|spin)' -- run:1 run:2 --db "$G" \
    --interval 25ms --metric max --task io1 --task 'spin*'
check intervals_p999_dropped_match_rows "$G" 1 4 20000000 1000000 p99.9 . -- 1 run:4 --db "$G" --interval 20ms \
    --metric p99.9
check intervals_across_gaps_unknown "$G" 1 6 20000000 1000000 tail . -- 1 6 --db "$G" --interval 20ms
grep -q ',unknown$' "$T/want" && pass "gap_fixture_has_gaps ($(grep -c ',unknown$' "$T/want") intervals unknown)" ||
    failed gap_fixture_has_gaps "trace 6 has no data gap in a whole interval"
if [ "$rt" = 1 ]; then
    check intervals_with_bounces_match_rows "$G" 7 8 20000000 1000000 tail '^(io|spin)' -- 7 8 --db "$G" \
        --interval 20ms --task 'io*' --task 'spin*'
    grep -q '^interval,.*_bounces,.*_releases' "$T/out" && [ "$(awk -F, 'NR > 1 { n += $7 + $8 } END { print n + 0 }' "$T/out")" -gt 20 ] &&
        pass bounce_fixture_has_bounces || failed bounce_fixture_has_bounces "$(head -n 2 "$T/out" | tr '\n' '|')"
else
    echo "SKIP intervals_with_bounces_match_rows: $GEN makes no real-time tasks (no --rt)"
fi

# The summary line counts what the rows say, in the seed's words, with the
# one setting that differs as each side's name.
expected "$G" 1 2 20000000 1000000 tail . >"$T/want"
wa=$(grep -c ',A$' "$T/want") wb=$(grep -c ',B$' "$T/want") wt=$(grep -c ',tie$' "$T/want")
runq report compare 1 2 --db "$G" --interval 20ms
want="feature.RUN_TO_PARITY=on better in $wa intervals, feature.RUN_TO_PARITY=off in $wb, $wt ties, sign test p = "
if [ "$rc" = 0 ] && [ "$(grep -c "^$want[0-9.e-]*$" "$T/out")" = 1 ]; then
    pass "summary_counts_the_rows ($(tail -n 1 "$T/out"))"
else
    failed summary_counts_the_rows "want '$want...', got: $(tail -n 2 "$T/out" | tr '\n' '|') (exit $rc)"
fi
grep -q '^  feature.RUN_TO_PARITY  *on | off$' "$T/out" && grep -q 'one scenario (experiment 1, x.scn), one seed (7)' "$T/out" &&
    pass settings_that_differ_named || failed settings_that_differ_named "$(sed -n 1,8p "$T/out" | tr '\n' '|')"

# Intervals both runs have in full: trace 1 has 15 of 20 ms, trace 4 12.
runq report compare 1 run:4 --db "$G" --interval 20ms
grep -q 'A has 15 whole, B 12: 12 pairs, 3 dropped' "$T/out" && grep -q 'one scenario (x.scn; x.scn' "$T/out" &&
    pass only_whole_intervals_both_have || failed only_whole_intervals_both_have "exit $rc: $(sed -n 1,9p "$T/out" | tr '\n' '|')"

# ---- the sign test, on intervals won by design ----
# Traces 1 and 2, their wakeups replaced: interval i (10 ms) gets, on each
# side, one sample at its first nanosecond that decides it (0.5 ms or
# 2 ms, past the 1 ms threshold) and one of 100 ns at its last.
K=$T/k.db
cp "$G" "$K"
won() {
    local pattern=$1
    sq "$K" "DELETE FROM wakeup WHERE trace_id IN (1, 2)" &&
        awk -v p="$pattern" 'BEGIN {
            print "BEGIN;"
            for (i = 0; i < length(p); i++) {
                c = substr(p, i + 1, 1)
                la = c == "B" ? 2000000 : 500000; lb = c == "A" ? 2000000 : 500000
                for (t = 1; t <= 2; t++) {
                    l = t == 1 ? la : lb; s = i * 10000000
                    printf "INSERT INTO wakeup (trace_id, utid, ts_wake, ts_run, latency, cpu) SELECT %d, MIN(utid), %d, %d, %d, 0 FROM thread WHERE trace_id = %d AND NOT is_idle;\n", t, s, s + l, l, t
                    printf "INSERT INTO wakeup (trace_id, utid, ts_wake, ts_run, latency, cpu) SELECT %d, MIN(utid), %d, %d, 100, 0 FROM thread WHERE trace_id = %d AND NOT is_idle;\n", t, s + 9999999, s + 10000099, t
                }
            }
            print "COMMIT;"
        }' | sq "$K" && [ "$(sq "$K" "SELECT MIN(start_ts) FROM trace WHERE trace_id IN (1, 2)")" = 0 ]
}
sign() {
    local name=$1 pattern=$2 want=$3
    won "$pattern" || { failed "$name" "could not write the wakeups"; return; }
    runq report compare 1 2 --db "$K" --interval 10ms
    if [ "$rc" = 0 ] && [ "$(tail -n 1 "$T/out")" = "$want" ]; then
        pass "$name ($want)"
    else
        failed "$name" "want '$want', got '$(tail -n 1 "$T/out")' (exit $rc: $(head -c 200 "$T/err"))"
    fi
}
on=feature.RUN_TO_PARITY=on off=feature.RUN_TO_PARITY=off
sign sign_test_4_vs_10 AAAABBBBBBBBBBTTTTTTTTTTTTTTTT \
    "$on better in 4 intervals, $off in 10, 16 ties, sign test p = 0.18"
sign sign_test_0_vs_10 TTTTTBBBBBBBBBBTTTTTTTTTTTTTTT "$on better in 0 intervals, $off in 10, 20 ties, sign test p = 0.002"
sign sign_test_7_vs_7_ties_dropped ABABABABABABABTTTTTTTTTTTTTTTT \
    "$on better in 7 intervals, $off in 7, 16 ties, sign test p = 1"
sign sign_test_nothing_to_test TTTTTTTTTTTTTTTTTTTTTTTTTTTTTT \
    "$on better in 0 intervals, $off in 0, 30 ties: no interval that one side won, nothing to test"
# The metric decides: by max, every interval above is the larger sample's.
runq report compare 1 2 --db "$K" --interval 10ms --metric max --csv
[ "$rc" = 0 ] && [ "$(grep -c ',tie$' "$T/out")" = 30 ] && pass metric_max_ties_equal_maxima ||
    failed metric_max_ties_equal_maxima "exit $rc: $(grep -vc ',tie$' "$T/out") rows not a tie"

# ---- one scenario and seed, or a refusal ----
expect refuses_other_seed 1 "other seeds: A's is 7, B's 8; --force compares them anyway" report compare 1 3 --db "$G"
expect force_compares_other_seed 0 "warning: other seeds" report compare 1 3 --db "$G" --force --interval 20ms
expect refuses_other_scenario 1 "other scenarios: A's (x.scn) and B's (y.scn) differ" report compare 1/0 run:5 --db "$G"
expect refuses_other_scenario_by_trace 1 "other scenarios" report compare 2 4 --db "$G"
expect warns_two_settings 0 "warning: 2 settings differ, not one" report compare 1 5 --db "$G" --interval 20ms
grep -q '^A better in [0-9]* intervals, B in ' "$T/out" && grep -q 'feature.PLACE_LAG  *on | off  (in the trace)' "$T/out" &&
    pass two_settings_named_a_and_b || failed two_settings_named_a_and_b "$(tail -n 1 "$T/out")"
expect warns_not_scenario_runs 0 "warning: B is not a scenario run" report compare 1 5 --db "$G" --interval 20ms
expect refuses_unknown_trace 1 "B: no trace 99 in the database" report compare 1 99 --db "$G"
expect refuses_unknown_run 1 "A: no scenario run 99 in the database" report compare run:99 1 --db "$G"
expect refuses_unknown_cell 1 "A: no scenario run 9/0 in the database" report compare 9/0 1 --db "$G"
expect refuses_run_without_trace 1 "B: scenario run 6 has no trace" report compare 1 run:6 --db "$G"
expect refuses_same_trace 1 "A and B are the same trace (1)" report compare 1 1/0 --db "$G"
expect refuses_no_such_task 1 "has no wake->run samples of the chosen tasks" report compare 1 2 --db "$G" --task nosuch --interval 20ms
cp "$G" "$T/n.db" && sq "$T/n.db" "DELETE FROM wakeup WHERE trace_id = 2"
expect refuses_run_without_wakeups 1 "B: trace 2 has no wake->run samples in its whole intervals" \
    report compare 1 2 --db "$T/n.db" --interval 20ms
expect refuses_run_shorter_than_interval 1 "A: its run (300.00ms of trace 1) is shorter than one interval (1s)" \
    report compare 1 2 --db "$G"
expect refuses_missing_db 1 "no such database" report compare 1 2 --db "$T/none.db"

expect too_many_intervals 1 "at most 100000" report compare 1 2 --db "$G" --interval 1us

# ---- usage errors: exit 2, one line ----
expect bad_interval_zero 2 "--interval takes a duration longer than 0" report compare 1 2 --db "$G" --interval 0
expect bad_interval_unit 2 "--interval takes a duration" report compare 1 2 --db "$G" --interval 5x
expect bad_interval_missing 2 "--interval needs a value" report compare 1 2 --db "$G" --interval
expect bad_threshold 2 "--threshold takes a duration" report compare 1 2 --db "$G" --threshold=1.5
expect bad_metric 2 "--metric takes tail, p99, p99.9 or max, not 'p50'" report compare 1 2 --db "$G" --metric p50
expect bad_task_star 2 "--task takes a task's name, or a prefix" report compare 1 2 --db "$G" --task 'a*b'
expect bad_flag 2 "unknown flag '--frob'" report compare 1 2 --db "$G" --frob
expect flag_takes_no_value 2 "--csv takes no value" report compare 1 2 --db "$G" --csv=1
expect one_run_only 2 "name two runs, A and B" report compare 1 --db "$G"
expect three_runs 2 "unexpected argument '3'; see runq report compare --help" report compare 1 2 3 --db "$G"
expect bad_run_spelling 2 "A: want a trace id (3), a scenario run (run:5) or an experiment's cell (2/1), not 'x7'" \
    report compare x7 2 --db "$G"
runq report compare --help
[ "$rc" = 0 ] && grep -q 'scn_rank' "$T/out" && grep -q -- '--metric M' "$T/out" && pass help_names_percentile_rule ||
    failed help_names_percentile_rule "exit $rc"
runq report --help
grep -q '^  compare ' "$T/out" && pass report_help_lists_compare || failed report_help_lists_compare "not listed"

# ---- docs/compare.md's examples, in a scratch directory, in order ----
run_doc_examples docs/compare.md

exit $fail
