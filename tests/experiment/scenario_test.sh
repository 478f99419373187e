#!/usr/bin/env bash
# Tests of scenarios and runq experiment (docs/scenarios.md, issue 16):
#   - every refusal of the format names the file and the line (42 files);
#   - what an engine cannot run it refuses, with the line;
#   - the kernel's counters agree with its trace in SQL (lateness, the
#     stall count, shares within 1 per mille);
#   - one 1-CPU scenario on both engines gives the same shares;
#   - one cell run twice gives identical rows, two seeds different ones;
#   - runq report experiment prints the experiment's table again;
#   - the kernel refuses hostile scn lines;
#   - the RT class and knobs (issue 18): their refusals, the lines the
#     kernel gets, shares on paper, and one kernel run where the class
#     order and the RT budget decide the shares;
#   - every example in docs/scenarios.md, run and compared, figures aside
#     (shape; the figures are make docs's, tests/docs/docs_current.sh).
# Usage: tests/experiment/scenario_test.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. "$(dirname "$0")/../lib.sh"

# ---- refusals: each bad file must fail with exit 2 and "FILE:LINE: why" ----
# NAME|LINE|what stderr must hold|the file, lines separated by \n
refusals sim <<'EOF'
unknown_directive|2|unknown directive 'nonsense'|task A\nnonsense 1
bad_hz|1|bad hz '333'|hz 333\ntask A
hz_and_tick|2|give hz or tick, not both|tick 2ms\nhz 250\ntask A
bad_cpu|1|bad cpu '2-1'|task A cpu=2-1
cpu_not_on_machine|2|cpu 5 is not on a machine of 4 CPUs|cpus 4\ntask A cpu=5
count_zero|1|bad count '0'|task hog*0
count_too_big|1|bad count '65'|task hog*65
count_option|1|write the count as hog*N|task hog count=3
too_many_tasks|3|tasks in all; at most 64|task a*40\ntask b*20\ntask c*5
bad_jitter|1|bad jitter '130%'|task p pattern=run:1ms,every:2ms:130%
jitter_finer_than_quantum|2|finer than the quantum|quantum 100us\ntask p pattern=run:100us,every:1ms:1%
pattern_starts_with_every|1|a pattern starts with run:|task p pattern=every:1ms,run:50us
two_sleeps|1|two sleeps in a row|task p pattern=run:1ms,sleep:1ms,every:2ms
bad_step|1|bad pattern step 'walk:1ms'|task p pattern=run:1ms,walk:1ms
measure_no_task|2|measure: no task line 'probe' above|task A\nmeasure probe stall
measure_no_metric|2|measure: no metric 'p42'|task A\nmeasure A p42
vary_bad_value|3|bad hz '333'|task A\nrun 4ms\nvary hz 250,333
vary_no_task|2|no task line 'probe'|task A\nvary probe.slice base,100us
vary_twice|3|vary hz is already given on line 2|task A\nvary hz 250,1000\nvary hz 100
vary_bad_key|2|vary task: not a key|task A\nvary task 1,2
period_without_every|1|has no every: step for period=|task A pattern=run:1ms,sleep:1ms period=2ms
bad_seed|1|bad seed '-4'|seed -4\ntask A
bad_stall|1|bad stall '1'|stall 1\ntask A
slice_out_of_range|1|outside 100us..100ms|task A slice=50us
bad_policy|1|bad policy 'cfs'|policy cfs\ntask A
bad_cpus|1|bad cpus '0'|cpus 0\ntask A
duplicate_task|2|task A is already declared on line 1|task A\ntask A
unknown_option|1|unknown task option 'colour'|task A colour=red
option_without_value|1|bad task option 'nice'|task A nice
exit_not_last|1|nothing may follow exit|task A pattern=run:1ms,exit,run:1ms
empty_step|1|pattern step 'run:0' is empty|task A pattern=run:0
bad_weight|1|weight 2048 is not a nice value's weight|task A weight=2048
feature_bad_value|1|feature HRTICK: want on or off|feature HRTICK maybe\ntask A
no_feature|1|no feature 'TURBO'|feature TURBO on\ntask A
no_tasks|1|no tasks|hz 250
run_off_the_grid|2|run must be a positive whole number of quanta|quantum 1ms\nrun 1500us\ntask A
arrive_off_the_grid|2|arrive must be a whole number of quanta|quantum 1ms\ntask A arrive=1500us
tick_off_the_grid|1|the tick must be a whole number of quanta|hz 400\nquantum 1ms\ntask A
run_too_long|2|quanta; at most 20000000|quantum 1us\nrun 30s\ntask A
measure_bad_metric_list|3|measure needs a task and metrics|task A\ntask B\nmeasure A
vary_no_values|2|vary takes a key and values|task A\nvary hz
hz_period_without_hz|1|bad hz 'fast'|hz fast\ntask A
rt_prio_out_of_range|1|bad prio '100': want an RT priority 1..99|task A class=rt prio=100
rt_prio_zero|1|bad prio '0'|task A class=rt prio=0
rt_without_prio|1|task A: class=rt needs prio=1..99|task A class=rt
rt_with_nice|2|task A: class=rt takes no nice= or weight=|cpus 1\ntask A class=rt prio=5 nice=3
rt_with_weight|1|task A: class=rt takes no nice= or weight=|task A weight=3121 class=rt prio=5
rt_with_slice|1|task A: class=rt takes no slice=|task A class=rt prio=5 slice=1ms
prio_without_rt|1|task A: prio= is for an RT task: give class=rt too|task A prio=5
rt_policy_without_rt|1|task A: rt= is for an RT task|task A rt=rr
bad_class|1|bad class 'idle': want fair or rt|task A class=idle
bad_rt_policy|1|bad rt 'edf': want fifo or rr|task A class=rt prio=5 rt=edf
vary_prio_checked|2|bad prio '0'|task A class=rt prio=5\nvary A.prio 5,0
unknown_knob|1|no knob 'turbo'; want replace_on_release, rt_runtime_us, rt_period_us or balance_interval_ms|knob turbo 1\ntask A
knob_out_of_range|1|knob replace_on_release: 2 is out of its range 0..1|knob replace_on_release 2\ntask A
knob_not_a_number|1|knob rt_period_us: bad value '1s'|knob rt_period_us 1s\ntask A
knob_runtime_over_period|3|rt_runtime_us 950000 is longer than rt_period_us 100000: the kernel refuses it|task A\nrun 4ms\nknob rt_period_us 100000
vary_knob_out_of_range|2|knob rt_period_us: 10 is out of its range 1000..10000000|task A\nvary knob.rt_period_us 1000000,10
vary_knob_twice|3|vary replace_on_release is already given on line 2|task A\nvary knob.replace_on_release 0,1\nvary replace_on_release 1
EOF

# The engines' own refusals, with the line.
printf 'cpus 2\ntask A pattern=run:1ms,sleep:1ms\ntask B cpu=0-1\nrun 20ms\n' >"$T/sim_set.scn"
"$RUNQ" experiment --quiet --engine sim --db "$T/set.db" "$T/sim_set.scn" >"$T/set.out" 2>&1 &&
    pass "sim_runs_a_cpu_set (several CPUs on paper: tests/engine/sim_balance.sh)" || failed sim_runs_a_cpu_set "$(head -3 "$T/set.out")"
printf 'cpus 2\npipe p\ntask A pattern=run:1ms,write:p\ntask B pattern=read:p\n' >"$T/sim_pipe.scn"
expect sim_refuses_pipes 2 "sim_pipe.scn:3: runq sim has no pipes" experiment --engine sim --db "$T/r.db" "$T/sim_pipe.scn"
printf 'quantum 100us\nhz 2000\ntask A\n' >"$T/k_hz.scn"
expect kernel_refuses_its_tick 2 "k_hz.scn:2: runq's kernel ticks at 100, 250 or 1000 Hz" experiment --db "$T/r.db" "$T/k_hz.scn"
printf 'task A\ntask B pattern=run:1ms,sleep:3ms\nrun 40ms\nmeasure B p99 stall\nvary hz 100,250\n' >"$T/v.scn"
expect vary_flag_checked 2 "--vary hz: bad hz '333'" experiment --engine sim --db "$T/r.db" --vary hz=250,333 "$T/v.scn"
expect experiment_bad_engine 2 "--engine takes kernel, linux or sim" experiment --engine qemu "$T/v.scn"
expect experiment_engine_twice 2 "--engine kernel,sim,kernel: names kernel twice" experiment --engine kernel,sim,kernel "$T/v.scn"
expect experiment_bad_shard 2 "--shard takes I/N" experiment --shard 3/2 "$T/v.scn"
expect experiment_no_file 2 "need a scenario FILE" experiment --engine sim
[ -e "$T/r.db" ] && failed refusals_write_nothing "a refused experiment made $T/r.db" || pass refusals_write_nothing

# The kernel's shell runs a scenario from CPU 0 as a fair task: an RT hog
# that may sit there is refused, with the line.
printf 'cpus 2\ntask A\ntask H cpu=0-1 class=rt prio=5\n' >"$T/k_rthog.scn"
expect kernel_refuses_an_rt_hog_on_cpu_0 2 "k_rthog.scn:3: task H: an RT task that never sleeps may not sit on CPU 0" \
    experiment --dry-run "$T/k_rthog.scn"

# ---- RT and knobs: the kernel's lines (issue 18) ----
# An RT line's priority and policy ride on its scn task line (a fair line
# is as before); each knob is a `sched knob` line before the scenario's,
# in an order the kernel takes one at a time (a runtime over the default
# period needs its period first); a knob axis is a cell parameter under the
# knob's own name, as the trace's SET records name it.
cat >"$T/rtk.scn" <<'EOF'
cpus 2
knob rt_period_us 100000
knob rt_runtime_us 80000
task r cpu=1 class=rt prio=50 rt=rr pattern=run:2ms,every:10ms
task f cpu=0-1
vary knob.replace_on_release 0,1
EOF
runq experiment --dry-run "$T/rtk.scn"
cat >"$T/rtk.want" <<'EOF'
  cell 0: replace_on_release=0
  cell 1: replace_on_release=1
  sched knob rt_runtime_us 80000
  sched knob rt_period_us 100000
  sched knob replace_on_release 0
  scn task r 1 2 0 0 0 50 rr
  scn task f 1 3 0 0 0
EOF
if [ "$rc" = 0 ] && diff <(grep -E "^  (cell|sched|scn task)" "$T/out") "$T/rtk.want" >"$T/diff"; then
    pass kprog_sends_rt_prio_policy_and_knobs
else
    failed kprog_sends_rt_prio_policy_and_knobs "exit $rc: $(head -c 400 "$T/diff") $(head -c 200 "$T/err")"
fi
printf 'knob rt_runtime_us 2000000\nknob rt_period_us 3000000\ntask A\n' >"$T/rtk2.scn"
runq experiment --dry-run "$T/rtk2.scn"
[ "$(grep -E '^  sched knob' "$T/out" | tr '\n' ';')" = "  sched knob rt_period_us 3000000;  sched knob rt_runtime_us 2000000;" ] &&
    pass kprog_orders_knobs_for_the_kernel || failed kprog_orders_knobs_for_the_kernel "$(grep knob "$T/out")"
# The scenario as stored (scn_print) keeps the class and the knobs, and
# reads back.
printf 'knob replace_on_release 0\ntask a class=rt prio=7 rt=rr cpu=0 pattern=run:1ms,sleep:3ms\ntask b cpu=0\nrun 20ms\n' >"$T/rtp.scn"
"$RUNQ" experiment --quiet --engine sim --db "$T/rtp.db" "$T/rtp.scn" >/dev/null 2>"$T/rtp.err"
sq "$T/rtp.db" "SELECT text FROM scenario" >"$T/rtp.printed"
if grep -q "^knob replace_on_release 0$" "$T/rtp.printed" && grep -q "^task a cpu=0 class=rt prio=7 rt=rr " "$T/rtp.printed" &&
    "$RUNQ" experiment --dry-run "$T/rtp.printed" >/dev/null 2>&1; then
    pass stored_scenario_keeps_class_and_knobs
else
    failed stored_scenario_keeps_class_and_knobs "$(cat "$T/rtp.printed" "$T/rtp.err" | head -8)"
fi

# ---- RT on paper: the class order and the budget, exact ----
# One CPU: an RT task that runs 6 ms every 10 ms takes 60 % ahead of two
# fair hogs (20 % each); an RT hog with 80 ms of every 100 ms leaves a fair
# hog 20 %, and with the runtime equal to the period (no budget) nothing.
cat >"$T/rtsim.scn" <<'EOF'
cpus 1
hz 1000
quantum 100us
run 1s
task burst cpu=0 class=rt prio=50 pattern=run:6ms,every:10ms
task hog*2 cpu=0
EOF
cat >"$T/rtsim2.scn" <<'EOF'
cpus 1
hz 1000
run 1s
knob rt_runtime_us 80000
knob rt_period_us 100000
task rthog cpu=0 class=rt prio=10
task fair cpu=0
vary rt_runtime_us 80000,100000
EOF
"$RUNQ" experiment --quiet --engine sim --db "$T/rs.db" "$T/rtsim.scn" >/dev/null 2>&1
"$RUNQ" experiment --quiet --engine sim --db "$T/rs.db" "$T/rtsim2.scn" >/dev/null 2>&1
got=$(sq "$T/rs.db" "SELECT group_concat(p || ':' || task || '=' || v, ' ') FROM (SELECT s.params AS p, m.task,
    ROUND(m.value, 4) AS v FROM scenario_metric m JOIN scenario s USING (scenario_id) WHERE m.metric = 'share'
    ORDER BY s.scenario_id, m.task)")
want=":burst=0.6 :hog=0.2 rt_runtime_us=80000:fair=0.2 rt_runtime_us=80000:rthog=0.8 rt_runtime_us=100000:fair=0.0 rt_runtime_us=100000:rthog=1.0"
[ "$got" = "$want" ] && pass sim_rt_class_order_and_budget || failed sim_rt_class_order_and_budget "got '$got', want '$want'"

# ---- RT in the kernel: the class order and the budget decide the shares ----
# CPU 0: an RT task that runs 6 ms every 10 ms beside two fair hogs: 60 %
# and 20 % each (sent as fair, it would get a third), within 200 us of its
# wakeups. CPU 1: an RT hog beside a fair hog, with a budget of 80 ms
# every 100 ms (the knob lines): 80 % and 20 % (without them, the default
# 950 of every 1000 ms leaves the fair hog nothing in 300 ms).
cat >"$T/rtk3.scn" <<'EOF'
cpus 2
hz 1000
run 300ms
knob rt_runtime_us 80000
knob rt_period_us 100000
task burst cpu=0 class=rt prio=50 pattern=run:6ms,every:10ms
task hog*2 cpu=0
task rthog cpu=1 class=rt prio=10
task fair cpu=1
EOF
if "$RUNQ" experiment --quiet --db "$T/rk.db" "$T/rtk3.scn" >"$T/rk.out" 2>"$T/rk.err"; then
    got=$(sq -separator ' ' "$T/rk.db" "SELECT name, runtime_ns * 1000 / window_ns, p99_ns FROM scenario_task ORDER BY instance" |
        tr '\n' ';')
    bad=$(sq "$T/rk.db" "SELECT group_concat(name, ' ') FROM scenario_task WHERE NOT (
        (task = 'burst' AND runtime_ns * 1000 / window_ns BETWEEN 570 AND 630 AND p99_ns < 200000 AND wakeups >= 25) OR
        (task = 'hog' AND runtime_ns * 1000 / window_ns BETWEEN 170 AND 230) OR
        (task = 'rthog' AND runtime_ns * 1000 / window_ns BETWEEN 760 AND 840) OR
        (task = 'fair' AND runtime_ns * 1000 / window_ns BETWEEN 160 AND 240))")
    n=$(sq "$T/rk.db" "SELECT COUNT(*) FROM scenario_task")
    [ -z "$bad" ] && [ "$n" = 5 ] && pass "kernel_rt_shares_follow_the_class_order_and_budget (name permille p99_ns: $got)" ||
        failed kernel_rt_shares_follow_the_class_order_and_budget "out of bounds: ${bad:-none} of $n; got $got"
else
    failed kernel_rt_shares_follow_the_class_order_and_budget "exit $?: $(tail -3 "$T/rk.err")"
fi

# ---- the kernel: counters against the trace ----
kernel_scn "$T/small.scn" 2 500ms <<'EOF'
task napper cpu=1 slice=100us pattern=run:200us,sleep:3ms
EOF
if "$RUNQ" experiment --quiet --db "$T/k.db" "$T/small.scn" >"$T/k.out" 2>"$T/k.err"; then
    pass kernel_runs_a_scenario
else
    failed kernel_runs_a_scenario "exit $?: $(tail -3 "$T/k.err")"
fi
rows=$(sq "$T/k.db" "SELECT COUNT(*) FROM scenario_task st JOIN scenario s USING (scenario_id)
                     JOIN thread t ON t.utid = st.utid AND t.trace_id = s.trace_id AND t.name = st.task")
[ "$rows" = 4 ] && pass scenario_task_names_trace_threads ||
    failed scenario_task_names_trace_threads "$rows of 4 tasks related to their trace's threads"

# Lateness from the trace, for the tasks that sleep: the wakeups inside the
# run's marks, each the wakeup row's latency. The trace stamps a wake when
# the timer interrupt runs and the run at the pick's record, the counters
# from the target to the pick's own clock: the two differ by the
# interrupt's and the switch's few instructions, at most 5 us a wakeup.
# Percentiles by the rank rule of trace/scenario.h.
trace_late() { # UTID PERMILLE [SHIFT] -> the value at rank (n - 1) * PERMILLE / 1000 + SHIFT
    sq "$T/k.db" "WITH b AS (SELECT (SELECT ts FROM mark WHERE name = 'scn start') AS s,
                                    (SELECT ts FROM mark WHERE name = 'scn end') AS e),
                  w AS (SELECT latency FROM wakeup, b WHERE utid = $1 AND ts_wake >= b.s AND ts_wake < b.e
                        AND latency IS NOT NULL ORDER BY latency)
                  SELECT latency FROM w LIMIT 1 OFFSET MAX(0, MIN((SELECT COUNT(*) FROM w) - 1,
                                                              ((SELECT COUNT(*) FROM w) - 1) * $2 / 1000 + ${3:-0}))"
}
trace_count() { # UTID [THRESHOLD_NS]
    sq "$T/k.db" "SELECT COUNT(*) FROM wakeup WHERE utid = $1 AND latency > ${2:--1}
                  AND ts_wake >= (SELECT ts FROM mark WHERE name = 'scn start')
                  AND ts_wake < (SELECT ts FROM mark WHERE name = 'scn end')"
}
for task in probe napper; do
    read -r utid wakeups stalls p50 p90 p99 max <<<"$(sq -separator ' ' "$T/k.db" \
        "SELECT utid, wakeups, stalls, p50_ns, p90_ns, p99_ns, max_ns FROM scenario_task WHERE task = '$task'")"
    n=$(trace_count "$utid")
    # A sleep that began before the end mark may end after it: counted by
    # the counters, not in the window.
    if [ "$wakeups" -ge 100 ] && [ "$n" -ge $((wakeups - 1)) ] && [ "$n" -le "$wakeups" ]; then
        pass "${task}_wakeups_match_the_trace ($wakeups counted, $n traced)"
    else
        failed "${task}_wakeups_match_the_trace" "counters $wakeups, trace $n"
    fi
    # The counters count a wakeup's lateness from its due time, the trace
    # from its wake: the two differ by more than 5 us for a wakeup whose
    # timer fired late (measured: one napper wakeup of 138 woke 35 us
    # after its due time; since the RT class's layer, the napper's p90
    # is 47.0 us in the counters and 34.7 us in the trace one rank up: its
    # timer fired 12 us late), which moves each up the counters' order by
    # a rank or two and its value by the timer's lateness. So a
    # percentile must match the trace's at its rank, or at a rank one or
    # two from it, within 20 us. (The WAKE record has no room for the due
    # time; a format that carried it would make this exact.)
    bad=""
    for pm in 500:$p50 900:$p90 990:$p99 1000:$max; do
        k=${pm%%:*} v=${pm#*:}
        ok=0 tvs=""
        for shift in 0 1 -1 2 -2; do
            tv=$(trace_late "$utid" "$k" "$shift")
            tvs="$tvs $tv"
            d=$((v - tv))
            [ "${d#-}" -le 20000 ] && ok=1 && break
        done
        [ "$ok" = 1 ] || bad="$bad p$k counters $v trace (rank, +1, -1, +2, -2)$tvs;"
    done
    [ -z "$bad" ] && pass "${task}_lateness_matches_the_trace (p50 $p50, p99 $p99, max $max ns)" ||
        failed "${task}_lateness_matches_the_trace" "$bad"
    # A stall is a wakeup later than 1 ms: the trace's count, give or take
    # the wakeups within 5 us of the threshold.
    lo=$(trace_count "$utid" 1005000) hi=$(trace_count "$utid" 995000)
    [ "$stalls" -ge "$lo" ] && [ "$stalls" -le "$hi" ] && [ "$stalls" -gt 0 ] &&
        pass "${task}_stalls_match_the_trace ($stalls; the trace $lo..$hi)" ||
        failed "${task}_stalls_match_the_trace" "counters $stalls, trace $lo..$hi (want within, and some)"
done
# Shares: each task's run time inside the marks, from sched_slice, against
# runtime / window from the counters.
share_bad=$(sq "$T/k.db" "WITH b AS (SELECT (SELECT ts FROM mark WHERE name = 'scn start') AS s,
                                            (SELECT ts FROM mark WHERE name = 'scn end') AS e),
    tr AS (SELECT st.name, st.runtime_ns * 1.0 / st.window_ns AS counted,
                  (SELECT SUM(MIN(sl.ts + sl.dur, b.e) - MAX(sl.ts, t.start_ts, b.s)) FROM sched_slice sl
                   WHERE sl.utid = st.utid AND sl.ts < b.e AND sl.ts + sl.dur > MAX(t.start_ts, b.s)) * 1.0
                  / (b.e - MAX(t.start_ts, b.s)) AS traced
           FROM scenario_task st JOIN thread t ON t.utid = st.utid, b)
    SELECT group_concat(name || ' ' || ROUND(counted, 5) || ' vs ' || ROUND(traced, 5), '; ') FROM tr
    WHERE traced IS NULL OR ABS(counted - traced) > 0.001")
nshares=$(sq "$T/k.db" "SELECT COUNT(*) FROM scenario_task WHERE runtime_ns > 0")
[ -z "$share_bad" ] && [ "$nshares" = 4 ] && pass shares_match_the_trace_within_1_permille ||
    failed shares_match_the_trace_within_1_permille "${share_bad:-only $nshares tasks ran}"

# ---- both engines, one 1-CPU scenario ----
cat >"$T/both.scn" <<'EOF'
cpus 1
hz 250
quantum 10us
run 2s
task a cpu=0
task b cpu=0 nice=5
task p cpu=0 pattern=run:100us,every:2ms:20%
measure a share
measure b share
measure p share stall
EOF
"$RUNQ" experiment --quiet --db "$T/b.db" --csv "$T/both.scn" >"$T/bk.csv" 2>"$T/bk.err" &&
    "$RUNQ" experiment --quiet --engine sim --db "$T/b.db" --csv "$T/both.scn" >"$T/bs.csv" 2>"$T/bs.err"
# What the engines must agree on is how the policy divides the CPU: the
# light task's share, and the hogs' split of what they got between them,
# by weight. Not a hog's share of the whole CPU: in the kernel every
# decision's own time is on the leaving task's books (the light task got
# 5.7 % of 5 % asked, 500 wakeups a second) and the tracer and the shell
# run on CPU 0 (0.45 %), which paper has neither of; that took a's share
# 0.98 points below paper's, and the RT class layer's few more
# instructions a decision (c4cebfa..023ca52) 1.01 (kernel 70.72 %, paper
# 71.73 %), while a : b stayed 3.06 in both.
diffs=$(sq "$T/b.db" "WITH sh AS (SELECT sc.engine, m.task, m.value,
                                         CASE WHEN m.task = 'p' THEN m.value
                                              ELSE m.value / SUM(CASE WHEN m.task != 'p' THEN m.value END)
                                                   OVER (PARTITION BY m.scenario_id) END AS part
                                  FROM scenario_metric m JOIN scenario sc USING (scenario_id) WHERE m.metric = 'share')
    SELECT group_concat(k.task || (CASE WHEN k.task = 'p' THEN ' share' ELSE ' of the hogs'' time' END)
                        || ' kernel ' || ROUND(k.part, 4) || ' sim ' || ROUND(s.part, 4), '; ')
    FROM sh k JOIN sh s ON s.task = k.task AND k.engine = 'kernel' AND s.engine = 'sim'
    WHERE ABS(k.part - s.part) > 0.01")
ratio=$(sq "$T/b.db" "SELECT ROUND(a.value / b.value, 2) FROM scenario_metric a JOIN scenario_metric b
    ON a.scenario_id = b.scenario_id AND a.task = 'a' AND b.task = 'b' AND a.metric = 'share' AND b.metric = 'share'
    JOIN scenario s ON s.scenario_id = a.scenario_id AND s.engine = 'kernel'")
nboth=$(sq "$T/b.db" "SELECT COUNT(DISTINCT engine) FROM scenario WHERE status = 'ok'")
if [ "$nboth" = 2 ] && [ -z "$diffs" ]; then
    pass "engines_agree_on_shares_within_1_percent (kernel a/b $ratio; weights 3.06)"
else
    failed engines_agree_on_shares_within_1_percent "${diffs:-$nboth engines ran}"
fi

# ---- determinism: the same cell twice, and two seeds ----
printf 'cpus 1\nhz 250\nquantum 10us\nrun 300ms\ntask h*2 cpu=0\ntask p cpu=0 pattern=run:50us,every:1ms:30%%\n' >"$T/det.scn"
"$RUNQ" experiment --quiet --db "$T/d.db" --repeat 2 --seed 5 "$T/det.scn" >/dev/null 2>"$T/d.err" &&
    "$RUNQ" experiment --quiet --db "$T/d.db" --seed 5 "$T/det.scn" >/dev/null 2>>"$T/d.err" ||
    failed determinism_runs "$(tail -2 "$T/d.err")"
rowsof() { # EXPERIMENT REPEAT: that run's task rows, ids aside (runs end in any order)
    sq "$T/d.db" "SELECT instance, task, name, tid, cpu, window_ns, runtime_ns, wakeups, missed, stalls, p50_ns,
                  p90_ns, p99_ns, max_ns, iters, vcsw, ivcsw FROM scenario_task JOIN scenario USING (scenario_id)
                  WHERE experiment_id = $1 AND repeat = $2 ORDER BY instance"
}
# experiment 1 repeat 0: seed 5, repeat 1: seed 6; experiment 2: seed 5 again
if [ -n "$(rowsof 1 0)" ] && [ "$(rowsof 1 0)" = "$(rowsof 2 0)" ]; then
    pass same_seed_same_rows
else
    failed same_seed_same_rows "$(diff <(rowsof 1 0) <(rowsof 2 0) | head -5)"
fi
if [ -n "$(rowsof 1 1)" ] && [ "$(rowsof 1 0)" != "$(rowsof 1 1)" ]; then
    pass other_seed_other_rows
else
    failed other_seed_other_rows "seeds 5 and 6 gave the same rows (or none)"
fi

# ---- the table again, from the database ----
"$RUNQ" experiment --quiet --engine sim --db "$T/t.db" --repeat 2 "$T/v.scn" >"$T/t1" 2>/dev/null
"$RUNQ" report experiment --db "$T/t.db" >"$T/t2" 2>&1
"$RUNQ" report experiment 1 --db "$T/t.db" >"$T/t3" 2>&1
if [ -s "$T/t1" ] && cmp -s "$T/t1" "$T/t2" && cmp -s "$T/t1" "$T/t3" && grep -q "hz=100" "$T/t1"; then
    pass report_experiment_prints_the_same_table
else
    failed report_experiment_prints_the_same_table "$(diff "$T/t1" "$T/t2" | head -5)"
fi
expect report_no_experiment 1 "no experiment 9" report experiment 9 --db "$T/t.db"
# docs/sql.md's query that rebuilds a table: B's stall share in both
# cells, the mean over the two repeats as the table's CSV has it.
awk '/rebuilt in SQL/ { on = 1 } on && /^```$/ { n++; if (n == 2) exit; next } on && n == 1' docs/sql.md >"$T/rebuild.sql"
"$RUNQ" sql --db "$T/t.db" --csv "$(cat "$T/rebuild.sql")" >"$T/rebuild.out" 2>&1
"$RUNQ" report experiment --db "$T/t.db" --csv >"$T/t.csv" 2>&1
want=$(awk -F, 'NR > 1 { printf "%d,%.6f\n", $2, $7 }' "$T/t.csv")
got=$(awk -F, '$3 == "B.stall" { printf "%d,%.6f\n", $1, $4 }' "$T/rebuild.out")
[ -n "$want" ] && [ "$(sort <<<"$want")" = "$(sort <<<"$got")" ] && pass sql_md_query_rebuilds_the_table ||
    failed sql_md_query_rebuilds_the_table "table: $want; query: $(head -c 300 "$T/rebuild.out")"

# ---- the kernel does not trust its lines ----
runq boot --deterministic --cpus 1 --cmd "scn reset" --cmd "scn task a 65 0 0 0 0" --cmd "scn reset" \
    --cmd "scn task b 1 ff 0 0 0" --cmd "scn reset" --cmd "scn task c 1 0 0 0 0" --cmd "scn step e:100" \
    --cmd "scn reset" --cmd "scn task e 1 0 0 0 0 100 fifo" --cmd "scn reset" --cmd "scn task g 1 0 3 0 0 5 fifo" \
    --cmd "scn reset" --cmd "scn task h 1 0 0 0 0 5 edf" \
    --cmd "scn reset" --cmd "scn task d 1 0 40 0 0" --cmd "scn start 1000 0 0" --cmd "echo survived"
if grep -q "scn: too many tasks" "$T/out" && grep -q "names a CPU this machine does not have" "$T/out" &&
    grep -q "scn: a step's time is 1 ns or more; e takes :NS:JITTER" "$T/out" && grep -q "nice is -20..19" "$T/out" &&
    grep -q "nothing to start" "$T/out" && grep -q "scn: an RT priority is 1..99" "$T/out" &&
    grep -q "scn: an RT task line has nice 0 and slice 0" "$T/out" && grep -q "scn: an RT policy is fifo or rr" "$T/out" &&
    grep -q "^survived" "$T/out"; then
    pass kernel_refuses_hostile_scn_lines
else
    failed kernel_refuses_hostile_scn_lines "$(grep -E "scn|survived" "$T/out" | head -8)"
fi

# ---- every scenario in scenarios/: the kernel takes it, and it runs on
# paper, or paper refuses it for the reason it names (pipes),
# before anything runs ----
for f in scenarios/*.scn; do
    n=$(basename "$f" .scn)
    cells=$("$RUNQ" experiment --dry-run "$f" 2>"$T/dry.err" | grep -c '^  cell ')
    "$RUNQ" experiment --quiet --engine sim --db "$T/all.db" "$f" >"$T/all.out" 2>"$T/all.err"
    rc=$?
    # the kernel takes it too: its refusals come before any run
    if ! "$RUNQ" experiment --dry-run "$f" >/dev/null 2>>"$T/dry.err"; then
        failed "scenarios_${n}_runs" "the kernel refuses it: $(tail -1 "$T/dry.err")"
    elif [ "$rc" = 0 ] && [ "$cells" -ge 1 ] && [ "$(($(wc -l <"$T/all.out") - 2))" = "$cells" ] &&
        ! grep -q "failed" "$T/all.out"; then
        pass "scenarios_${n}_runs ($cells cells on paper)"
    elif [ "$rc" = 2 ] && [ "$cells" -ge 1 ] && [ ! -s "$T/all.out" ] &&
        grep -qE "runq sim has no pipes" "$T/all.err"; then
        pass "scenarios_${n}_runs ($cells cells for the kernel; paper refuses: $(sed 's/.*: runq sim/runq sim/' "$T/all.err" | head -c 60))"
    else
        failed "scenarios_${n}_runs" "exit $rc: $(cat "$T/dry.err" "$T/all.err" | head -3)"
    fi
done

# ---- the examples in docs/scenarios.md ----
DOC=docs/scenarios.md
doc_examples "$DOC"
nex=0
for cmdfile in "$T"/ex.*.cmd; do
    [ -e "$cmdfile" ] || break
    nex=$((nex + 1))
    want=${cmdfile%.cmd}.want
    cmd=$(cat "$cmdfile")
    # build/runq in the doc is the runq under test; runq.db a scratch one.
    run=${cmd//build\/runq/\"\$RUNQ\"}
    run=${run//--db runq.db/--db \"\$T\"/doc.db}
    (cd "$T" && rm -f doc.db && RUNQ="$RUNQ" T="$T" eval "cd $OLDPWD && $run") >"$T/got" 2>"$T/got.err"
    # The table, figures aside: the figures are make docs' (docs_current).
    if diff <(shape <"$want") <(shape <"$T/got") >/dev/null; then
        pass "doc_example_$nex ($(head -c 60 "$cmdfile"))"
    else
        failed "doc_example_$nex" "$cmd: figures aside: $(diff <(shape <"$want") <(shape <"$T/got") | head -6)"
    fi
done
[ "$nex" -ge 2 ] && pass "doc_examples_found ($nex)" || failed doc_examples_found "only $nex examples in $DOC"

exit $fail
