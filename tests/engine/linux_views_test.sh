#!/usr/bin/env bash
# Every view on a Linux trace recorded from tracefs (issue 31): such a
# trace has no V, vruntime, deadline or lag (NULL in eevdf_pick,
# eevdf_place, eevdf_leave; no queue_snapshot) and stores 0 for the
# counts Linux does not give (nr_runnable, touched, cost_ns). Each view
# must show what is missing as missing and explain nothing it does not
# know:
#   - runq step names the engine; its queues show "?" for vruntime,
#     deadline, lag and eligibility, never 0.000 or "yes"; it draws no
#     number line; a pick says what the trace has (who ran, why Linux
#     switched, as far as sched_switch says) and that the EEVDF state was
#     not recorded; docs/step.md's Linux sample is what it prints, up to
#     the numbers;
#   - runq top names the engine and shows LAG, DEADLINE, ELIG, V and RUN
#     as "-";
#   - runq report decisions averages no 0: measured 0, mean and max NULL;
#   - runq export --perfetto writes no V, lag, deadline or vruntime
#     counter.
# The recording is real (RUNQ_NO_BPF=1: tracefs only, as Linux's engine
# records without its BPF recorder); without root it SKIPs. The checks on
# a trace whose numbers are missing for one task only (a trace_gen trace
# with that task's columns set to NULL) run everywhere: step compares the
# tasks it knows and says which it does not.
# Usage: tests/engine/linux_views_test.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. "$(dirname "$0")/../lib.sh"
at_exit 'tmux_stop 2>/dev/null'

# A view's text with what differs from run to run made the same: every
# number N, every run of spaces one space.
norm() { sed -E 's/[0-9]+/N/g; s/ +/ /g; s/ $//'; }

# ---- one task's numbers missing (deterministic, no root needed) ----
"$GEN" --cpus 2 --tasks 4 --ms 300 --out "$T/m.bin" >/dev/null &&
    "$RUNQ" record --file "$T/m.bin" --db "$T/m.db" >/dev/null 2>&1 || { failed fixture "could not record"; exit 1; }
# io1 as a Linux trace has it: no number in any row about it
sq "$T/m.db" "UPDATE eevdf_place SET vruntime = NULL, deadline = NULL, lag_before = NULL, lag_after = NULL
                WHERE utid = (SELECT utid FROM thread WHERE name = 'io1');
              UPDATE eevdf_leave SET vruntime = NULL, lag = NULL, deadline = NULL
                WHERE utid = (SELECT utid FROM thread WHERE name = 'io1');
              UPDATE eevdf_pick SET vruntime = NULL, deadline = NULL, lag = NULL
                WHERE next_utid = (SELECT utid FROM thread WHERE name = 'io1');
              DELETE FROM queue_snapshot WHERE utid = (SELECT utid FROM thread WHERE name = 'io1')"
# The first pick on cpu1 of another task while io1 waits on that queue.
printf 'c 1\n%s\n' "$(printf 'N\n%.0s' $(seq 60))" | "$RUNQ" step --db "$T/m.db" --plain --width 100 1 >"$T/m.out" 2>&1
awk '/^--- N/ { if (keep) exit; buf = ""; next }
     { buf = buf $0 "\n" }
     /^    io1\/[0-9]+ +queued; its vruntime or deadline is not in the trace: not compared$/ { keep = 1 }
     END { if (keep) printf "%s", buf }' "$T/m.out" >"$T/m.view"
if grep -qE '^  V = [0-9.]+ \(virtual us\); [0-9]+ of the [0-9]+ on the queue eligible, 1 not known' "$T/m.view" &&
    grep -qE '^    io1/[0-9]+ +queued +\? +\? +\? +\? +1024$' "$T/m.view" &&
    grep -qE '^    io1/[0-9]+ +\? \(not in the trace\)$' "$T/m.view" &&
    grep -qE '^  \* spin3/[0-9]+ +\|' "$T/m.view"; then
    pass "step_compares_only_what_it_knows"
else
    failed "step_compares_only_what_it_knows" "no pick with io1 queued and unknown: $(head -c 1500 "$T/m.view" | tr '\n' '|')"
fi

# ---- a thread outside the recorded queue (deterministic, no root needed) ----
# A trace the BPF recorder made holds the scenario's queue; the pseudo task
# "other" (host/engine/linux/lxrec.h: every thread outside it, tid 4194048 + CPU) comes
# with no number and no weight (queue_snapshot's row NULL). Here a
# trace_gen trace made into one: engine linux, one pick on cpu1 handed to
# cpu1's other. At that pick step invents nothing for other (V is the
# queue's, not other's: no vruntime solved from it, no lag, no
# eligibility, no weight), and says why it ran in the terms of such a
# trace, not of one recorded from tracefs.
"$GEN" --cpus 2 --tasks 4 --ms 300 --out "$T/o.bin" >/dev/null &&
    "$RUNQ" record --file "$T/o.bin" --db "$T/o.db" >/dev/null 2>&1 || { failed fixture_other "could not record"; exit 1; }
sq "$T/o.db" "UPDATE trace SET engine = 'linux', engine_version = '6.18.44-test';
              INSERT INTO thread (trace_id, tid, name, cpu, is_idle) VALUES (1, 4194049, 'other', 1, 0);
              UPDATE eevdf_pick SET next_utid = (SELECT utid FROM thread WHERE name = 'other'),
                                    v = NULL, vruntime = NULL, deadline = NULL, lag = NULL
               WHERE id = (SELECT id FROM eevdf_pick WHERE cpu = 1 AND next_utid != prev_utid
                           AND ts > (SELECT MIN(ts) FROM queue_snapshot WHERE cpu = 1) ORDER BY ts LIMIT 1 OFFSET 20)"
printf 'c 1\n/-> other\n' | "$RUNQ" step --db "$T/o.db" --plain --width 100 1 >"$T/o.out" 2>&1
sed -n '/^--- \/-> other/,$p' "$T/o.out" >"$T/o.view"
if grep -qE '^  \* other/4194049 +run +\? +\? +\? +\? +\?$' "$T/o.view" &&
    grep -qE '^  why other/4194049 and not a task of this queue is not known: Linux decided it outside this queue' "$T/o.view" &&
    grep -qF "(other stands for every thread outside the scenario's queue, which Linux runs from the CPU's root queue" "$T/o.view" &&
    ! grep -q 'recorded from tracefs' "$T/o.view"; then
    pass "step_other_is_not_made_up"
else
    failed "step_other_is_not_made_up" "$(grep -E 'other/|tracefs|^  why|^  \(' "$T/o.view" | head -8 | tr '\n' '|')"
fi

# ---- a wakeup on a Linux trace with the recorder's numbers (deterministic) ----
# The same trace made a Linux one: Linux's check is not recorded
# (wake_check unknown) but current's state after it is. Three wakeups on
# cpu1:
#   - one followed by a switch 5 us later with a keyframe between (the
#     BPF recorder writes one at every switch): that switch is the
#     decision that followed;
#   - one whose current has vprot = vruntime: what Linux's check leaves
#     when PREEMPT_SHORT cuts the protection, and says so;
#   - one no switch followed: Linux writes sched_switch only when the task
#     changes, so the view says no switch followed, not no decision.
"$RUNQ" record --file "$T/o.bin" --db "$T/w.db" >/dev/null 2>&1 || { failed fixture_wake "could not record"; exit 1; }
join1=$(sq "$T/w.db" "SELECT id FROM eevdf_place p WHERE cpu = 1 AND reason = 'wake' AND wake_check = 'preempt'
                      AND EXISTS (SELECT 1 FROM eevdf_pick k WHERE k.cpu = 1 AND k.ts = p.ts)
                      AND ts > (SELECT MIN(ts) FROM queue_snapshot WHERE cpu = 1) ORDER BY ts LIMIT 1 OFFSET 2")
kept="SELECT id FROM eevdf_place p WHERE cpu = 1 AND reason = 'wake' AND wake_check = 'kept'
      AND NOT EXISTS (SELECT 1 FROM eevdf_pick k WHERE k.cpu = 1 AND k.ts BETWEEN p.ts AND p.ts + 20000) ORDER BY ts"
join2=$(sq "$T/w.db" "$kept LIMIT 1")
join3=$(sq "$T/w.db" "$kept LIMIT 1 OFFSET 1")
# (CI once failed all three with no view at all, never here: say what
# the fixture held if it happens again.)
if [ -z "$join1" ] || [ -z "$join2" ] || [ -z "$join3" ]; then
    failed fixture_wake "wakeups not found: '$join1' '$join2' '$join3'; places by check: $(sq "$T/w.db" \
        "SELECT group_concat(wake_check || ':' || n) FROM (SELECT wake_check, COUNT(*) n FROM eevdf_place GROUP BY 1)")"
fi
sq "$T/w.db" "UPDATE trace SET engine = 'linux', engine_version = '6.18.44-test';
              UPDATE eevdf_place SET wake_check = 'unknown' WHERE id IN ($join1, $join2, $join3);
              CREATE TEMP TABLE j AS SELECT ts FROM eevdf_place WHERE id = $join1;
              UPDATE eevdf_leave SET ts = ts + 5000 WHERE cpu = 1 AND ts = (SELECT ts FROM j);
              UPDATE eevdf_pick SET ts = ts + 5000 WHERE cpu = 1 AND ts = (SELECT ts FROM j);
              INSERT INTO queue_snapshot (trace_id, ts, cpu, v, utid, is_current, eligible, delayed, nice, weight,
                                          vruntime, deadline, lag, slice_ns)
                SELECT trace_id, (SELECT ts FROM j) + 5000, cpu, v, utid, is_current, eligible, delayed, nice, weight,
                       vruntime, deadline, lag, slice_ns FROM queue_snapshot
                WHERE cpu = 1 AND ts = (SELECT MAX(ts) FROM queue_snapshot WHERE cpu = 1 AND ts < (SELECT ts FROM j));
              UPDATE eevdf_place SET curr_vprot = curr_vruntime, curr_protected = 0 WHERE id = $join2"
at() { sq "$T/w.db" "SELECT ts FROM eevdf_place WHERE id = $1"; }
printf 'c 1\nb @%s\nb @%s\nb @%s\n' "$(at "$join1")" "$(at "$join2")" "$(at "$join3")" |
    "$RUNQ" step --db "$T/w.db" --plain --width 100 1 >"$T/w.out" 2>&1
rc=$?
[ $rc = 0 ] || failed step_wake_views "runq step exit $rc: $(head -c 400 "$T/w.out" | tr '\n' '|')"
view() { awk -v n="$1" '/^--- b @/ { k++ } k == n' "$T/w.out"; }
if view 1 | grep -qE '^  the decision that followed \(#[0-9]+, asked for by: [a-z_]+\): [^ ]+ -> [^ ]+$'; then
    pass "step_keyframe_between_is_no_decision"
else
    failed "step_keyframe_between_is_no_decision" "$(view 1 | grep -E 'followed|^> ' | tr '\n' '|')"
fi
if view 2 | grep -qE '\(current\): .*; its protected stretch ends where it stands \(vprot = vruntime [0-9.]+: what the check leaves when PREEMPT_SHORT cuts it\)$'; then
    pass "step_names_a_cut_protection"
else
    failed "step_names_a_cut_protection" "$(view 2 | grep -E '\(current\)|^> ' | tr '\n' '|')"
fi
if view 3 | grep -qE '^  no switch followed: [^ ]+ runs on \(a decision that keeps it writes no sched_switch\)$'; then
    pass "step_linux_no_switch_is_not_no_decision"
else
    failed "step_linux_no_switch_is_not_no_decision" "$(view 3 | grep -E 'followed|^> ' | tr '\n' '|')"
fi

# ---- a real Linux recording, tracefs only ----
linux_recording_ready linux_views || exit $fail
last=$(($(nproc) - 1))
cat >"$T/v.scn" <<EOF
# A spinner and a probe that runs 100 us every 2 ms share CPU $last.
cpus $(nproc)
hz 250
quantum 10us
run 1s
task hog cpu=$last
task probe cpu=$last pattern=run:100us,every:2ms
measure probe wakeups
EOF
# The premise: a Linux trace with picks and not one EEVDF number. The
# machine is shared (a scenario of another suite, or a program holding
# CPU $last, leaves the pair few switches): up to three recordings for
# 50 picks.
for attempt in 1 2 3; do
    rm -f "$T/l.db"*
    RUNQ_NO_BPF=1 "$RUNQ" experiment --quiet --engine linux --db "$T/l.db" "$T/v.scn" >"$T/x.out" 2>"$T/x.err"
    tr=$(sq "$T/l.db" "SELECT trace_id FROM scenario WHERE status = 'ok'" 2>/dev/null)
    facts=$(sq "$T/l.db" "SELECT (SELECT engine FROM trace WHERE trace_id = ${tr:-0}),
              (SELECT COUNT(*) FROM eevdf_pick WHERE trace_id = ${tr:-0}),
              (SELECT COUNT(v) + COUNT(vruntime) + COUNT(deadline) + COUNT(lag) + COUNT(nr_eligible) FROM eevdf_pick),
              (SELECT COUNT(v) + COUNT(vruntime) + COUNT(deadline) + COUNT(lag_before) + COUNT(lag_after) FROM eevdf_place),
              (SELECT COUNT(v) + COUNT(vruntime) + COUNT(deadline) + COUNT(lag) FROM eevdf_leave),
              (SELECT COUNT(*) FROM queue_snapshot) + (SELECT COUNT(*) FROM sched_tick)" 2>/dev/null)
    IFS='|' read -r engine picks n1 n2 n3 n4 <<<"$facts"
    [ "${picks:-0}" -ge 50 ] && break
done
if [ "$engine" = linux ] && [ "${picks:-0}" -ge 50 ] && [ "$n1$n2$n3$n4" = 0000 ]; then
    pass "tracefs_only_trace ($picks picks, no EEVDF number)"
else
    failed "tracefs_only_trace" "trace '$tr': '$facts' (engine|picks|numbers in pick|place|leave|snapshot rows): $(head -c 300 "$T/x.err")"
    exit 1
fi

# ---- runq step ----
printf 'c %d\n%s\n' "$last" "$(printf 'N\n%.0s' $(seq 80))" |
    "$RUNQ" step --db "$T/l.db" --plain --width 100 "$tr" >"$T/s.out" 2>"$T/s.err"
if head -1 "$T/s.out" | grep -qF "trace $tr (linux $(uname -r), eevdf), "; then
    pass "step_names_the_engine"
else
    failed "step_names_the_engine" "$(head -1 "$T/s.out")"
fi
# Every row of a queue: "?" for vruntime, deadline, lag and eligibility.
rows=$(grep -cE '^  [* ] [^ ]+ +(run|queued|delayed) +[^ ]' "$T/s.out")
bad=$(grep -E '^  [* ] [^ ]+ +(run|queued|delayed) +[^ ]' "$T/s.out" |
    grep -vE ' (run|queued|delayed) +\? +\? +\? +[?-] +[0-9]+$' | head -3)
if [ "$rows" -ge 20 ] && [ -z "$bad" ]; then
    pass "step_queue_shows_unknown ($rows rows)"
else
    failed "step_queue_shows_unknown" "$rows rows; numbers where the trace has none: $bad"
fi
# No number line drawn: no axis, no legend, and the line that says why.
if grep -q "^    (no number line: V, the vruntimes and the deadlines are not in the trace here)$" "$T/s.out" &&
    ! grep -qE '^ +[.V]+$|\| vruntime, < deadline' "$T/s.out"; then
    pass "step_draws_no_number_line"
else
    failed "step_draws_no_number_line" "$(grep -E '^ +[.V]+$|no number line|< deadline' "$T/s.out" | head -3)"
fi
# Each pick of a task: what the trace has, and that the rest is not known;
# no verdict made of numbers it does not have.
nwhy=$(grep -cE '^why .* runs \(pick #' "$T/s.out")
nidle=$(grep -c '^  nothing else can run on cpu' "$T/s.out")
nunrec=$(grep -cE '^  why [^ ]+ and not another is not known: the EEVDF state at this pick \(V, each task.s vruntime, deadline and lag\) was not recorded$' "$T/s.out")
nbpf=$(grep -cF "the Linux engine's BPF recorder records them)" "$T/s.out")
made_up=$(grep -E 'eligible|RUN_TO_PARITY|earliest|same deadline|lag [+-]|V = [0-9]' "$T/s.out" | head -3)
if [ $((nwhy - nidle)) -ge 10 ] && [ "$nunrec" = $((nwhy - nidle)) ] && [ "$nbpf" -ge "$nunrec" ] && [ -z "$made_up" ]; then
    pass "step_pick_says_not_recorded ($nunrec picks)"
else
    failed "step_pick_says_not_recorded" "$nwhy picks ($nidle idle), $nunrec say not recorded, $nbpf name the BPF recorder; made up: $made_up"
fi
if grep -qE "^  Linux switched from hog/[0-9]+ while it was still runnable: it was preempted, or it yielded \(sched_switch does not tell the two apart\)$" "$T/s.out" &&
    grep -qE "^  Linux switched from probe/[0-9]+ because it blocked or went to sleep$" "$T/s.out"; then
    pass "step_says_why_linux_switched"
else
    failed "step_says_why_linux_switched" "$(grep -E '^  (Linux|the CPU|the decision)' "$T/s.out" | sort | uniq -c | head -5 | tr '\n' '|')"
fi
# docs/step.md's sample: the view at a pick of hog -> probe, preempted.
# Every line of it is in the real view but for the numbers, the other
# events around the cursor and who woke the probe (the host's business).
printf 'c %d\n%s\n' "$last" "$(printf '/-> probe\n%.0s' $(seq 200))" |
    "$RUNQ" step --db "$T/l.db" --plain --width 100 "$tr" >"$T/d.out" 2>&1
awk '/^--- / { if (keep) exit; buf = ""; next }
     { buf = buf $0 "\n" }
     /^> #.* PICK  hog\/[0-9]+ -> probe\/[0-9]+ \(preempt\)$/ { keep = 1 }
     END { if (keep) printf "%s", buf }' "$T/d.out" | norm >"$T/d.view"
awk '/^```/ { if (inb) exit; if (want) inb = 1; next } inb { print } /^<!-- linux sample -->$/ { want = 1 }' docs/step.md |
    grep -v '^\$ ' | grep -vE '^  #|^trace ' | grep -v ' was woken ' | norm >"$T/d.doc"
missing=$(grep -vxFf "$T/d.view" "$T/d.doc" | head -3)
if [ "$(wc -l <"$T/d.doc")" -ge 10 ] && [ -s "$T/d.view" ] && [ -z "$missing" ]; then
    pass "step_linux_sample_in_docs ($(wc -l <"$T/d.doc") lines)"
else
    failed "step_linux_sample_in_docs" "$(wc -l <"$T/d.doc") doc lines; not in the view: $missing; view: $(head -c 600 "$T/d.view" | tr '\n' '|')"
fi

# ---- runq top ----
if command -v tmux >/dev/null; then
    tmux_start
    S=top
    tmux new-session -d -s $S -x 140 -y 30 "$RUNQ top --db $T/l.db --trace $tr --speed 0.05; sleep 60"
    # wait until both tasks have run, then read the screen
    # the task table's rows (below its header: a CPU row may name hog too)
    task_rows() { awk '/^ +TID NAME/ { t = 1; next } t && ($2 == "hog" || $2 == "probe")' "$@"; }
    # (fields: TID NAME CPU MOVED NICE SLICE STATE %CPU LAG DEADLINE ELIG ...)
    top_shows_both() { screen | task_rows | awk '$8 + 0 > 0 { n[$2] = 1 } END { exit !(n["hog"] && n["probe"]) }'; }
    if eventually top_shows_both; then
        screen >"$T/top.screen"
        if head -1 "$T/top.screen" | grep -qF "trace $tr  linux $(uname -r)  eevdf  "; then
            pass "top_names_the_engine"
        else
            failed "top_names_the_engine" "$(head -1 "$T/top.screen")"
        fi
        # hog and probe: LAG, DEADLINE, ELIG (fields 9-11) "-"
        bad=$(task_rows "$T/top.screen" | awk '$9 != "-" || $10 != "-" || $11 != "-"')
        if [ "$(task_rows "$T/top.screen" | wc -l)" = 2 ] && [ -z "$bad" ]; then
            pass "top_eevdf_columns_missing"
        else
            failed "top_eevdf_columns_missing" "$(echo "$bad" | tr -s ' ' | tr '\n' '|')"
        fi
        # the CPU rows, the scenario's CPU among them: RUN and V "-"
        cpus=$(awk -v last=$last '/^CPU CURRENT/ { c = 1; next } c && /^ +[0-9]+ / { if ($1 == last) seen = 1; if ($3 != "-" || $4 != "-") bad++ }
                    c && !/^ +[0-9]+ / { c = 0 } END { print seen + 0, bad + 0 }' "$T/top.screen")
        if [ "$cpus" = "1 0" ]; then
            pass "top_run_and_v_missing"
        else
            failed "top_run_and_v_missing" "rows, bad: $cpus: $(grep -A3 '^CPU CURRENT' "$T/top.screen" | tr -s ' ' | tr '\n' '|')"
        fi
    else
        failed "top_on_linux" "$(screen | head -12 | tr -s ' ' | tr '\n' '|')"
    fi
    tmux_stop
else
    echo "SKIP top_on_linux: no tmux"
fi

# ---- runq report decisions ----
runq report decisions --db "$T/l.db" --trace "$tr" --csv
if [ "$rc" = 0 ] && [ "$(head -1 "$T/out")" = "from_ns,below_ns,decisions,pct,histogram" ] &&
    [ "$(sed -n 2p "$T/out")" = "decisions,measured,mean_ns,max_ns,mean_touched" ] &&
    [ "$(sed -n 3p "$T/out")" = "$picks,0,,," ]; then
    pass "report_decisions_measures_none"
else
    failed "report_decisions_measures_none" "exit $rc: $(head -c 300 "$T/out" | tr '\n' '|') $(head -c 200 "$T/err")"
fi

# ---- runq export --perfetto ----
runq export --perfetto --db "$T/l.db" --trace "$tr" -o "$T/l.systrace"
switches=$(grep -c ' sched_switch: ' "$T/l.systrace" 2>/dev/null)
counters=$(grep -cE 'C\|[0-9]+\|(V cpu|lag|deadline|vruntime)' "$T/l.systrace" 2>/dev/null)
if [ "$rc" = 0 ] && [ "${switches:-0}" -ge 100 ] && [ "$counters" = 0 ]; then
    pass "export_no_eevdf_counters ($switches switches)"
else
    failed "export_no_eevdf_counters" "exit $rc, $switches switches, $counters EEVDF counters: $(head -c 200 "$T/err")"
fi

exit $fail
