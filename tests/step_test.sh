#!/bin/sh
# tests/step_test.sh [runq]: runq step in plain-text mode on fixture traces
# from tests/trace_gen.c (seed 1, 2 CPUs, 4 tasks, 300 ms; eevdf and rr),
# recorded with runq record. Prints PASS name / FAIL name: why; exit 1 on any FAIL.
RUNQ=${1:-build/runq}
T=$(mktemp -d /tmp/step_test.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
record_fixtures --cpus 2 --tasks 4 --ms 300 --seed 1

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
if grep -q '^    spin0/2          queued       1400.000     2800.000    -699.575   no   1024$' "$T/out" &&
   grep -q '^  \* io2/4            run             0.850      700.850    +699.575  yes   1024$' "$T/out"; then
    pass eevdf_queue_rebuilt
else
    failed eevdf_queue_rebuilt "queue rows not as expected"
fi
if grep -q '^                     \.*V\.*$' "$T/out"; then pass number_line; else failed number_line "no V axis"; fi

# Decision by decision: N on cpu0 of the rr trace reaches a pick that names the list.
printf 'c 0\nN\nN\nN\n' | step 2 > "$T/rr" 2>&1
if grep -q 'first runnable task in the list: the round robin takes the head' "$T/rr" &&
   grep -q 'displaced: back to the tail of the list' "$T/rr"; then
    pass rr_pick_explained
else
    failed rr_pick_explained "no list explanation"
fi

# Navigation: b, g, /, marks, p, r.
printf 'b 100ms\nm a\nr\n'"'"' a\n/PICK\np\ng 999999\nx\n' | step 1 > "$T/nav" 2>&1
grep -q 'event 411 of 1221, t=100000.000us' "$T/nav" && r1=1 || r1=0
grep -q '^mark a at event 411' "$T/nav" && r2=1 || r2=0
grep -q '^! g N: an event number 0..1220' "$T/nav" && r3=1 || r3=0
grep -q "^! unknown command 'x'" "$T/nav" && r4=1 || r4=0
if [ $r1$r2$r3$r4 = 1111 ]; then pass navigation; else failed navigation "b/m/g/unknown: $r1$r2$r3$r4"; fi

# --compare keeps the second trace at the same guest time.
printf 'b 100ms\n' | step 1 --compare 2 > "$T/cmp" 2>&1
if grep -q '^trace 1 (eevdf), 2 cpus, 250 Hz: event 411 of 1221, t=100000.000us' "$T/cmp" &&
   grep -q '^trace 2 (rr), 2 cpus, 250 Hz: event 290 of 900, t=100000.000us' "$T/cmp" &&
   grep -q '^=== B: trace 2 (rr)' "$T/cmp"; then
    pass compare_in_step
else
    failed compare_in_step "$(grep -E '^(trace|===)' "$T/cmp" | tail -4 | tr '\n' '|')"
fi

# From a real kernel: beside two spinners, a waiter with a 100 us slice
# wakes at lag 0 (PLACE_LAG off, so its wakeups do not drag V below the
# spinner's vruntime). With PREEMPT_SHORT off it is kept waiting by
# RUN_TO_PARITY when it wakes into a spinner's protected stretch: no
# decision follows such a wakeup (Linux takes none), so the explanation is
# the JOIN's. With PREEMPT_SHORT on (second probe) it cuts that stretch;
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
    if grep -q '^why waiter/[0-9]* waits (woken, #[0-9]* on cpu1; no decision followed):$' "$T/rtp" &&
       grep -q '^  kept by RUN_TO_PARITY: spinner/[0-9]* is still inside its protected stretch' "$T/rtp" &&
       grep -q '^    waiter/[0-9]* *eligible with an earlier deadline [0-9.]*, but the current task is protected (RUN_TO_PARITY)$' "$T/rtp"; then
        pass run_to_parity_explained
    else
        failed run_to_parity_explained "no wakeup kept waiting by RUN_TO_PARITY explained on cpu1"
    fi
    printf '/ (preempt_short)\n' | "$RUNQ" step --db "$T/k.db" --plain 1 > "$T/ps" 2>&1
    if grep -q '^why waiter/[0-9]* runs (pick #[0-9]* on cpu1, asked for by: preempt_short):$' "$T/ps" &&
       grep -q '^  cut in by PREEMPT_SHORT: it woke with a shorter slice (100.000 us) than spinner/[0-9]*.s' "$T/ps" &&
       grep -q '^    spinner/[0-9]* *eligible, but its protected stretch was cut short (PREEMPT_SHORT)$' "$T/ps"; then
        pass preempt_short_explained
    else
        failed preempt_short_explained "$(grep -A4 '^why' "$T/ps" | head -5 | tr '\n' '|')"
    fi
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
