#!/usr/bin/env bash
# tests/tui/step_test.sh [runq]: runq step in plain-text mode on fixture traces
# from tests/trace/trace_gen.c (seed 1, 2 CPUs, 4 tasks, 300 ms): eevdf (trace 1),
# rr (2), eevdf with REQUEUE_UPDATE_CURR (3), and eevdf with version-2
# JOINs (4, no wakeup check), recorded with runq record; the examples of
# docs/step.md; a real kernel's recording. Prints PASS name / FAIL name:
# why; exit 1 on any FAIL.
RUNQ=${1:-build/runq}
T=$(mktemp -d /tmp/step_test.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
record_fixtures --cpus 2 --tasks 4 --ms 300 --seed 1
for extra in "--feature REQUEUE_UPDATE_CURR" --join-v2; do
    # shellcheck disable=SC2086
    "$GEN" --cpus 2 --tasks 4 --ms 300 --seed 1 $extra --out "$T/x.bin" &&
        "$RUNQ" record --file "$T/x.bin" --db "$T/f.db" >/dev/null 2>&1 || { failed fixture "could not record ($extra)"; exit 1; }
done

step() { "$RUNQ" step --db "$T/f.db" --plain "$@"; }

# A known EEVDF pick: #10, io2 takes cpu0 from spin0 when spin0's HRTICK
# timer ends its 1.4 ms slice (Linux's rule: the slice in real time since
# it was picked; runq's older timer ended the 0.7 ms protected stretch, at
# lag 349.575).
printf 'g 10\n' | step 1 > "$T/out" 2>&1
sed -n '/^why io2\/4 runs/,$p' "$T/out" > "$T/why"
cat > "$T/want" <<'W'
why io2/4 runs (pick #10 on cpu0, asked for by: slice):
  V = 700.425 (virtual us); 1 of the 2 on the queue eligible
  won: eligible (lag +699.575 >= 0) with the earliest deadline (700.850) of the 1 eligible
  passed over:
    spin0/2          not eligible: lag -699.575 < 0, it has had more than its share
W
if cmp -s "$T/why" "$T/want"; then pass eevdf_pick_explained; else failed eevdf_pick_explained "$(diff "$T/want" "$T/why" | head -5)"; fi

# The queue at that point, by deadline, with lag and eligibility. spin0's
# vruntime reached its deadline during the stint, so the deadline was
# renewed: the LEAVE says to what (2800), no estimate (~) needed.
grep_all "$T/out" '^    spin0/2          queued       1400.000     2800.000    -699.575   no   1024$' \
    '^  \* io2/4            run             0.850      700.850    +699.575  yes   1024$' &&
    pass eevdf_queue_rebuilt || failed eevdf_queue_rebuilt "queue rows not as expected"
if grep -q '^                     \.*V\.*$' "$T/out"; then pass number_line; else failed number_line "no V axis"; fi

# Decision by decision: N on cpu0 of the rr trace reaches a pick that names the list.
printf 'c 0\nN\nN\nN\n' | step 2 > "$T/rr" 2>&1
grep_all "$T/rr" 'first runnable task in the list: the round robin takes the head' \
    'displaced: back to the tail of the list' && pass rr_pick_explained || failed rr_pick_explained "no list explanation"

# Navigation: b, g, /, marks, p, r.
printf 'b 100ms\nm a\nr\n'"'"' a\n/PICK\np\ng 999999\nx\n' | step 1 > "$T/nav" 2>&1
grep -q 'event 401 of 1184, t=+100000.000us @100000000' "$T/nav" && r1=1 || r1=0
grep -q '^mark a at event 401' "$T/nav" && r2=1 || r2=0
grep -q '^! g N: an event number 0..1183' "$T/nav" && r3=1 || r3=0
grep -q "^! unknown command 'x'" "$T/nav" && r4=1 || r4=0
if [ $r1$r2$r3$r4 = 1111 ]; then pass navigation; else failed navigation "b/m/g/unknown: $r1$r2$r3$r4"; fi

# Two time bases, never guessed: +T from the trace's start, @T absolute
# (SQL's ts); a time outside the trace is an error naming both. The
# fixture's clock starts at 0, so a copy of it whose clock starts 1 s
# later tells them apart.
cp "$T/f.db" "$T/late.db"
S=1000000000
sq "$T/late.db" "UPDATE trace SET start_ts = start_ts + $S, end_ts = end_ts + $S;
    UPDATE thread SET start_ts = start_ts + $S, end_ts = end_ts + $S;
    UPDATE wakeup SET ts_wake = ts_wake + $S, ts_run = ts_run + $S;
    UPDATE bounce SET ts_bounce = ts_bounce + $S, ts_run = ts_run + $S;
    UPDATE data_gap SET ts_start = ts_start + $S, ts_end = ts_end + $S;
    UPDATE cpu SET first_ts = first_ts + $S, last_ts = last_ts + $S;
    $(for t in eevdf_pick eevdf_place eevdf_leave sched_tick queue_snapshot sched_set mark counter sched_slice thread_state; do
        echo "UPDATE $t SET ts = ts + $S;"; done)"
printf 'b +100ms\nb @1100000000\nb 100000us\nb 1100000000ns\nb @100ms\n' |
    "$RUNQ" step --db "$T/late.db" --plain 1 > "$T/base" 2>&1
n_at=$(grep -c '^trace 1 (eevdf), 2 cpus, 250 Hz: event 401 of 1184, t=+100000.000us @1100000000' "$T/base")
if [ "$n_at" = 3 ] && grep -q '^! b 1100000000ns: @2100000000 is +1100000.000us from the start, outside the trace .*; an absolute ts takes @' "$T/base" &&
   grep -q '^! b @100ms: @100000000 is +-900000.000us from the start, outside the trace' "$T/base"; then
    pass step_time_bases
else
    failed step_time_bases "$n_at of 3 landings at +100 ms @1100000000; $(grep -E '^!' "$T/base" | tr '\n' '|')"
fi

# --compare keeps the second trace at the same guest time.
printf 'b 100ms\n' | step 1 --compare 2 > "$T/cmp" 2>&1
grep_all "$T/cmp" '^trace 1 (eevdf), 2 cpus, 250 Hz: event 401 of 1184, t=+100000.000us @100000000' \
    '^trace 2 (rr), 2 cpus, 250 Hz: event 290 of 900, t=+100000.000us @100000000' '^=== B: trace 2 (rr)' &&
    pass compare_in_step || failed compare_in_step "$(grep -E '^(trace|===)' "$T/cmp" | tail -4 | tr '\n' '|')"

# ... or by event number, a mark, or the Nth wakeup of a task, as asked,
# and the header says which.
printf 'b 100ms\na event\na wake io1\na mark start\na mark nosuch\n' | step 1 --compare 2 > "$T/align" 2>&1
al_event=$(awk '/^--- a event/ { f = 1 } f && /^trace 2/ { print; exit }' "$T/align")
al_wake=$(awk '/^--- a wake io1/ { f = 1 } f && /^> / { n++ } f && n == 2 { print; exit }' "$T/align")
if [[ "$al_event" == *"event 401 of 900"* ]] && [[ "$al_wake" == *"WAKE  io1/"* ]] &&
   grep -q '^  (follows the first view by event number)' "$T/align" &&
   grep -q '^  (follows the first view by wakeup of io1)' "$T/align" &&
   grep -q '^  (follows the first view by mark start)' "$T/align" &&
   grep -q "^! align: trace 1 (eevdf) has no mark 'nosuch'" "$T/align"; then
    pass compare_aligns_as_asked
else
    failed compare_aligns_as_asked "event: '$al_event'; wake: '$al_wake'; $(grep -E '^(!|  \(follows)' "$T/align" | tr '\n' '|')"
fi

# ---- a wakeup, explained (trace format 3's wakeup check) ----

# The examples of docs/step.md, run in a scratch directory in order (the
# first ones make the traces the others read), each output line for line.
doc_examples docs/step.md
mkdir "$T/doc"
ln -s "$(realpath scenarios)" "$T/doc/scenarios" # the balance example runs scenarios/balance.scn
RUNQ_ABS=$(realpath "$RUNQ") GEN_ABS=$(realpath "$GEN")
nex=0
for cmdfile in "$T"/ex.*.cmd; do
    [ -e "$cmdfile" ] || break
    nex=$((nex + 1))
done
for n in $(seq 1 "$nex"); do
    cmd=$(cat "$T/ex.$n.cmd")
    run=${cmd//build\/runq/"$RUNQ_ABS"}
    run=${run//build\/tests\/trace_gen/"$GEN_ABS"}
    run_example "doc_example_$n" "docs/step.md ($cmd)" "$T/doc" "$run" "$T/ex.$n.want"
done
[ "$nex" -ge 5 ] && pass "step_doc_has_examples ($nex)" || failed step_doc_has_examples "found $nex, want 5"

# The words are the record's: the doc's kept wakeup (#66 of handoff.db,
# the first kept one DELAY_ZERO clipped) with one field of its row changed
# in a copy of the database says so. Each line: the change, then a line
# the explanation must then hold.
H="$T/doc/handoff.db"
row="id = (SELECT MIN(id) FROM eevdf_place WHERE clipped AND wake_check = 'kept')"
while IFS='|' read -r name change want; do
    cp "$H" "$T/m.db"
    sqlite3 "$T/m.db" "UPDATE eevdf_place SET $change WHERE $row" &&
        "$RUNQ" step --db "$T/m.db" --plain --at 66 1 </dev/null >"$T/m.out" 2>&1
    if grep -qxF -- "$want" "$T/m.out"; then
        pass "wakeup_words_from_the_record_$name"
    else
        failed "wakeup_words_from_the_record_$name" "after SET $change, no line '$want': $(sed -n '/^why/,$p' "$T/m.out" | head -8 | tr '
' '|')"
    fi
done <<'M'
vprot|curr_vprot = curr_vprot + 1000000|  spin3/5 (current): vruntime 10891.160, deadline 11134.451; eligible; protected until its vruntime reaches 12134.451 (it is 1243.291 short)
protection_over|curr_protected = 0|  so spin3/5 keeps the CPU: it is eligible with the earlier deadline (11134.451 < 12291.160)
curr_deadline|curr_deadline = deadline + 1000|  so spin3/5 keeps the CPU: its protection held
wakee_ineligible|wakee_eligible = 0|  so spin3/5 keeps the CPU: io1/3 is not eligible, it has had more than its share
not_clipped|clipped = 0, charged_first = 0, lag_before = -5000|  io1/3 woke (a delayed task requeued; its lag was taken before current was charged): it brought lag -5.000; placed at lag +0.000, deadline 12291.160; eligible at the check, after current's charge moved V
pending|wake_check = 'none', pending = 1|  a decision was already due: not asked (Linux asks only when no reschedule is pending); the decision picks
cut_short|wake_check = 'preempt', cut_short = 1|  so io1/3 preempts: spin3/5's protection was cut short by PREEMPT_SHORT (io1/3 asks for a shorter slice), and io1/3 is eligible with the earlier deadline (12291.160 < 11134.451)
M

# Every wakeup's verdict agrees with what the trace shows next on its CPU:
# a wakee that preempts is the next pick, taking the CPU from the task the
# check saw there; current, when it keeps the CPU, runs on or is switched
# by a decision that the wakeup did not ask for (the tick, the slice
# timer). Over every wakeup of traces 1 and 3 (those not checked, the
# CPU idle, counted so that none is missed).
for tr in 1 3; do
    n=$("$RUNQ" sql --db "$T/f.db" --trace $tr --csv "SELECT COUNT(*) FROM eevdf_place WHERE reason <> 'new' AND wake_check IS NOT NULL" | tail -1)
    yes "/ check: " | head -n "$n" | "$RUNQ" step --db "$T/f.db" --plain $tr >"$T/all.$tr" 2>&1
    verdict=$(awk '
        /^why .* preempts .* \(wakeup check, #/ { k = "p"; w = $2; c = $4; next }
        /^why .* keeps the CPU as .* wakes \(wakeup check, #/ { k = "k"; c = $2; w = $7; next }
        /^why .*.s wakeup was not checked \(#/ { none++; next }
        k == "p" && /^  (the decision that followed|no decision followed)/ {
            if ($0 ~ ("\\): " c " -> " w "$")) ok_p++; else { bad++; print "preempt: " $0 > "/dev/stderr" } k = ""; next }
        k == "k" && /^  (a decision followed all the same|no decision followed)/ {
            if ($0 == "  no decision followed: " c " runs on" || ($0 ~ /asked for by: (tick|slice)\)/)) ok_k++;
            else { bad++; print "kept: " $0 > "/dev/stderr" } k = ""; next }
        END { printf "%d %d %d %d\n", ok_p, ok_k, bad, none }' "$T/all.$tr" 2>"$T/bad.$tr")
    set -- $verdict
    if [ "$3" = 0 ] && [ "$1" -ge 10 ] && [ "$2" -ge 5 ] && [ $(($1 + $2 + $4)) = "$n" ]; then
        pass "wakeup_verdicts_agree_with_the_next_decision_trace_$tr ($1 preempted, $2 kept)"
    else
        failed "wakeup_verdicts_agree_with_the_next_decision_trace_$tr" "$1 preempted, $2 kept of $n, $3 disagree: $(head -3 "$T/bad.$tr" | tr '\n' '|')"
    fi
done

# A version-2 JOIN (no check): no words made up for it; a wakeup no
# decision followed is explained from the rebuilt queue, as before.
yes n | head -n 400 | "$RUNQ" step --db "$T/f.db" --plain 4 >"$T/v2" 2>&1
if ! grep -q 'check: \|wakeup check\|not checked' "$T/v2" && grep -q '^why [a-z0-9/]* waits (woken, #[0-9]* on cpu[01]; no decision followed):$' "$T/v2"; then
    pass version_2_join_explained_from_the_queue
else
    failed version_2_join_explained_from_the_queue "$(grep -m2 'check: \|wakeup check\|^why .* waits' "$T/v2" | tr '\n' '|')"
fi

# From a real kernel: beside two spinners, a waiter with a 100 us slice
# wakes at lag 0 (PLACE_LAG off, so its wakeups do not drag V below the
# spinner's vruntime). With PREEMPT_SHORT off it is kept waiting by
# RUN_TO_PARITY when it wakes into a spinner's protected stretch with an
# earlier deadline than the spinner's: no decision follows such a wakeup
# (Linux takes none), and the JOIN's check says why. With PREEMPT_SHORT on (second probe) it cuts that stretch;
# DELAY_DEQUEUE off there, or the waiter, which blocks owing service, would
# stay queued and wake ineligible, and no slice lets that preempt.
# Both are named, and the second the waiter's slice, which reaches the
# rebuilt queue through the SET of its slice.
if "$RUNQ" boot --deterministic --cpus 2 --record "$T/k.db" --cmd "sched feature PLACE_LAG off" \
    --cmd "sched feature PREEMPT_SHORT off" --cmd "sched probe 2 50 100" \
    --cmd "sched feature PREEMPT_SHORT on" --cmd "sched feature DELAY_DEQUEUE off" \
    --cmd "sched probe 2 20 100" >/dev/null 2>&1; then
    { echo "c 1"; i=0; while [ $i -lt 3000 ]; do echo n; i=$((i + 1)); done; } |
        "$RUNQ" step --db "$T/k.db" --plain 1 > "$T/rtp" 2>&1
    # a block: the header, the waiter's deadline, the spinner's, the
    # verdict, what followed
    rtp=$(awk '
        /^why spinner\/[0-9]* keeps the CPU as waiter\/[0-9]* wakes \(wakeup check, #[0-9]* on cpu1\):$/ { k = 1; c = $2; next }
        k && /^  waiter\/[0-9]* woke: / { match($0, /deadline [0-9.]*;/); wd = substr($0, RSTART + 9, RLENGTH - 10) + 0; next }
        k && /^  spinner\/[0-9]* \(current\): / { match($0, /deadline [0-9.]*;/); cd = substr($0, RSTART + 9, RLENGTH - 10) + 0;
                                                  elig = $0 ~ /; eligible; protected until/; next }
        k && /^  so / { v = ($0 == "  so " c " keeps the CPU: its protection held"); next }
        k && /^  no decision followed: / { if (v && elig && wd < cd && $0 == "  no decision followed: " c " runs on") n++; k = 0 }
        END { print n + 0 }' "$T/rtp")
    if [ "$rtp" -ge 1 ]; then
        pass "run_to_parity_explained ($rtp wakeups with the earlier deadline kept waiting by a protected spinner)"
    else
        failed run_to_parity_explained "no wakeup kept waiting by RUN_TO_PARITY explained on cpu1"
    fi
    printf '/ (preempt_short)\n' | "$RUNQ" step --db "$T/k.db" --plain 1 > "$T/ps" 2>&1
    grep_all "$T/ps" '^why waiter/[0-9]* runs (pick #[0-9]* on cpu1, asked for by: preempt_short):$' \
        '^  cut in by PREEMPT_SHORT: it woke with a shorter slice (100.000 us) than spinner/[0-9]*.s' \
        '^    spinner/[0-9]* *eligible, but its protected stretch was cut short (PREEMPT_SHORT)$' &&
        pass preempt_short_explained || failed preempt_short_explained "$(grep -A4 '^why' "$T/ps" | head -5 | tr '\n' '|')"
else
    failed preempt_short_explained "runq boot failed"
fi

# Errors.
"$RUNQ" step --db "$T/f.db" --plain 9 </dev/null >/dev/null 2>"$T/err"; rc=$?
if [ $rc = 1 ] && grep -q 'no trace 9' "$T/err"; then pass no_such_trace; else failed no_such_trace "rc=$rc"; fi
"$RUNQ" step --bogus >/dev/null 2>&1; rc=$?
if [ $rc = 2 ]; then pass bad_flag; else failed bad_flag "rc=$rc"; fi
# Any width: the number line wrote a row of the width into 512 bytes on the
# stack (--width 100000 crashed, issue 13; so would a 4000-column
# terminal). Now its picture stops at 400 columns; --width is 40..10000.
printf 'b 100ms\nq\n' | "$RUNQ" step --db "$T/f.db" --plain --width 10000 1 >"$T/wide" 2>&1; rc=$?
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/wide")
if [ $rc = 0 ] && grep -q '^    *\.*V\.*$' "$T/wide" && [ "$widest" -le 430 ]; then
    pass "wide_view_draws_a_bounded_number_line (widest line $widest)"
else
    failed wide_view_draws_a_bounded_number_line "rc=$rc, widest $widest: $(tail -n 3 "$T/wide" | head -c 300)"
fi
"$RUNQ" step --db "$T/f.db" --plain --width 100000 1 </dev/null >/dev/null 2>"$T/err"; rc=$?
if [ $rc = 2 ] && grep -q 'width of 40..10000' "$T/err"; then pass width_out_of_range_is_a_usage_error; else
    failed width_out_of_range_is_a_usage_error "rc=$rc: $(cat "$T/err")"; fi
# Not a terminal: the curses view spun at 100 % CPU on stdin /dev/null
# (every read failing at once, issue 13); it now says it needs one.
timeout 10 "$RUNQ" step --db "$T/f.db" 1 </dev/null >/dev/null 2>"$T/err"; rc=$?
if [ $rc = 1 ] && grep -q 'needs a terminal' "$T/err"; then pass curses_view_needs_a_terminal; else
    failed curses_view_needs_a_terminal "rc=$rc: $(head -c 200 "$T/err")"; fi
exit $fail
