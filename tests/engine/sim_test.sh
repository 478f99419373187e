#!/usr/bin/env bash
# Tests of `runq sim`: every example in docs/sim.md, run and compared with
# the output printed there; every docs/sim/*.sim; -s problems read back as
# files; and the error cases (file:line messages, exit 2).
# Usage: tests/engine/sim_test.sh [path/to/runq]   (default build/runq)
# Prints "PASS name" or "FAIL name: why" per check; exits 1 if any failed.
# Run from anywhere: it works in the repository root, as the examples do.

RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
DOC=docs/sim.md
. "$(dirname "$0")/../lib.sh"

# ---- the examples in docs/sim.md ----
# An example is a fenced block whose first line is "$ COMMAND" with
# build/runq in it; the rest of the block is the expected stdout, and the
# command must exit 0. Each becomes $T/ex.N.cmd and $T/ex.N.want.
doc_examples "$DOC"

nex=0
for cmdfile in "$T"/ex.*.cmd; do
    [ -e "$cmdfile" ] || break
    nex=$((nex + 1))
    n=${cmdfile%.cmd}; n=${n##*.}
    cmd=$(cat "$cmdfile")
    name="doc_example_$n ($cmd)"
    # The examples say build/runq; run the runq under test.
    run=${cmd//build\/runq/\"$RUNQ\"}
    run_example "$name" "$DOC" . "$run" "$T/ex.$n.want"
done
if [ "$nex" -ge 4 ]; then pass "doc_has_examples ($nex)"; else failed doc_has_examples "found $nex, want 4 or more"; fi

# ---- the example workloads ----
for f in docs/sim/*.sim; do
    if "$RUNQ" sim -v --numberline "$f" >"$T/out" 2>"$T/err" && [ -s "$T/out" ]; then
        pass "workload_runs $f"
    else
        failed "workload_runs $f" "$(head -c 300 "$T/err")"
    fi
done
# The schedules docs/eevdf.md and tests/policy/eevdf_test.c pin, from Zijlstra's commit.
expect_schedule() {
    local name=$1 want=$2
    shift 2
    local got
    got=$("$RUNQ" sim "$@" 2>&1 | head -n 1)
    if [ "$got" = "$want" ]; then pass "$name"; else failed "$name" "got '$got', want '$want'"; fi
}
expect_schedule zijlstra_fifo ABCDABCDABCDABCD docs/sim/zijlstra-fifo.sim
# NO_RUN_TO_PARITY protects 0.7 ms (Linux 6.18), less than the 0.8 ms
# quantum: a pick every tick, as with RUN_TO_PARITY (6.12's whole-slice
# protection gave BAACCDDB)
expect_schedule zijlstra_short_no_run_to_parity BACDBACDBACDBACDBACDBACD docs/sim/zijlstra-short.sim
expect_schedule zijlstra_short_run_to_parity BACDBACDBACDBACDBACDBACD -f RUN_TO_PARITY=on docs/sim/zijlstra-short.sim

# ---- -s: same seed, same problem; the printed problem is a workload ----
for seed in 0 1 7 42 18446744073709551615; do
    "$RUNQ" sim -s "$seed" >"$T/p1" 2>&1
    "$RUNQ" sim -s "$seed" >"$T/p2" 2>&1
    "$RUNQ" sim -s "$seed" -c >"$T/answer" 2>&1
    want=$(sed -n '/^answer:$/{n;p;}' "$T/answer")
    got=$("$RUNQ" sim "$T/p1" 2>&1)
    if ! cmp -s "$T/p1" "$T/p2"; then
        failed "seed_repeatable $seed" "two runs printed different problems"
    elif grep -q '^answer:' "$T/p1"; then
        failed "seed_no_answer_without_c $seed" "-s alone printed the answer"
    elif ! cmp -s "$T/p1" <(head -n "$(wc -l <"$T/p1")" "$T/answer"); then
        failed "seed_check_same_problem $seed" "-c printed a different problem"
    elif [ -z "$want" ] || [ "$got" != "$want" ]; then
        failed "seed_reads_back $seed" "file gives '$got', -c says '$want'"
    else
        pass "seed_problem $seed"
    fi
done
ntasks=$("$RUNQ" sim -s 3 | grep -c '^task ')
if [ "$ntasks" -ge 2 ] && [ "$ntasks" -le 5 ]; then pass seed_task_count; else failed seed_task_count "$ntasks tasks"; fi

# ---- errors ----


# bad_line NAME "FILE CONTENTS" LINE SUBSTRING: a workload with an error on
# LINE: exit 2 and one line "runq sim: FILE:LINE: ...SUBSTRING...".
bad_line() {
    printf "$2" >"$T/bad.sim"
    expect "$1" 2 "$4" sim "$T/bad.sim"
    case $(head -n 1 "$T/err") in
    "runq sim: $T/bad.sim:$3: "*) ;;
    *) failed "$1" "want 'runq sim: $T/bad.sim:$3: ...', got: $(head -c 300 "$T/err")" ;;
    esac
}

expect help 0 "" sim --help
grep -q -- "--numberline" "$T/out" && pass help_lists_flags || failed help_lists_flags "no --numberline in --help"
expect help_via_runq_help 0 "" help sim
expect missing_file 2 "runq sim: cannot open '$T/nope.sim'" sim "$T/nope.sim"
expect unknown_flag 2 "runq sim: unknown flag '--bogus'; see runq sim --help" sim --bogus docs/sim/zijlstra-fifo.sim
expect unknown_short_flag 2 "runq sim: unknown flag '-x'; see runq sim --help" sim -x docs/sim/zijlstra-fifo.sim
expect no_workload 2 "runq sim: need a workload FILE or -s SEED" sim
expect seed_v_needs_c 2 "-v shows the answer's decisions: give -c too" sim -s 5 -v
expect seed_numberline_needs_c 2 "--numberline shows the answer's decisions: give -c too" sim -s 5 --numberline
expect file_and_seed 2 "not both" sim -s 1 docs/sim/zijlstra-fifo.sim
# Not a workload: a NUL byte, a line over 1024 bytes, more than 10000 lines.
# (`runq sim /dev/zero` read forever: bounded by timeout here, issue 13.)
timeout 10 "$RUNQ" sim /dev/zero >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q '^runq sim: /dev/zero:1: a NUL byte: not a text file$' "$T/err" && pass dev_zero_is_refused ||
    failed dev_zero_is_refused "exit $rc: $(head -c 200 "$T/err")"
printf 'task %01100d\n' 0 >"$T/long.sim"
expect long_line_is_refused 2 "long.sim:1: longer than 1024 bytes" sim "$T/long.sim"
yes '# comment' | head -n 10001 >"$T/many.sim"
expect endless_file_is_refused 2 "many.sim:10001: more than 10000 lines" sim "$T/many.sim"
expect check_without_seed 2 "runq sim: -c" sim -c docs/sim/zijlstra-fifo.sim
expect bad_seed 2 "--seed takes a whole number 0..18446744073709551615, not 'x1'" sim -s x1
expect seed_needs_value 2 "--seed needs a value" sim -s
expect bad_policy 2 "--policy takes rr or eevdf, not 'cfs'" sim --policy cfs docs/sim/zijlstra-fifo.sim
expect bad_feature 2 "no feature 'NOPE'" sim --feature NOPE=on docs/sim/zijlstra-fifo.sim
expect bad_feature_value 2 "--feature takes NAME=on or NAME=off, not 'HRTICK=maybe'" sim -f HRTICK=maybe docs/sim/zijlstra-fifo.sim
expect bad_run 2 "bad --run 1ms: want a whole number of quanta (800us)" sim --run 1ms docs/sim/zijlstra-fifo.sim
expect switch_takes_no_value 2 "--decisions takes no value" sim --decisions=yes docs/sim/zijlstra-fifo.sim

bad_line bad_directive 'task A\npolcy rr\n' 2 "unknown directive 'polcy'"
bad_line bad_duration_unit 'quantum 3\ntask A\n' 1 "bad quantum '3'"
bad_line bad_nice '# comment\n\ntask A nice=20\n' 3 "bad nice '20'"
bad_line weight_not_in_table 'task A weight=2048\n' 1 "nearest is 1991 (nice -3)"
bad_line bad_task_option 'task A colour=red\n' 1 "unknown task option 'colour'"
bad_line pattern_starts_with_sleep 'task A pattern=sleep:1ms,run:1ms\n' 1 "a pattern starts with run:"
bad_line pattern_after_exit 'task A pattern=run:1ms,exit,run:1ms\n' 1 "nothing may follow exit"
bad_line slice_out_of_range 'task A slice=200ms\n' 1 "outside 100us..100ms"
bad_line duplicate_task 'task A\ntask B\ntask A\n' 3 "task A is already declared on line 1"
bad_line unknown_feature 'feature FOO on\ntask A\n' 1 "no feature 'FOO'"
bad_line feature_needs_on_off 'feature HRTICK yes\ntask A\n' 1 "want on or off"
bad_line yield_takes_no_duration 'task A pattern=run:1ms,yield:1ms\n' 1 "bad pattern step 'yield:1ms'"

# A yield step gives way where its run step ends: A, which would keep the
# CPU until the 4 ms tick, hands it to B after its first quantum (Linux
# 6.18's yield: its vruntime moves to its deadline).
yw='quantum 1ms\nrun 8ms\ntick 4ms\ntask A pattern=run:1ms,yield\ntask B\n'
with_y=$(printf "$yw" | "$RUNQ" sim - | head -n 1)
without_y=$(printf 'quantum 1ms\nrun 8ms\ntick 4ms\ntask A\ntask B\n' | "$RUNQ" sim - | head -n 1)
case "$with_y/$without_y" in
AB*/AAAA*) pass "yield_step_gives_way ($with_y, without it $without_y)" ;;
*) failed yield_step_gives_way "with yield $with_y, without $without_y: want AB... and AAAA..." ;;
esac
# Checked after the whole file: the line of the task at fault.
bad_line arrive_off_quantum 'task A\ntask B arrive=1500us\nquantum 1ms\n' 2 "arrive must be a whole number of quanta (1ms)"
bad_line tick_off_quantum 'quantum 2ms\ntick 3ms\ntask A\n' 2 "the tick must be a whole number of quanta"
bad_line no_tasks '# nothing\n' 1 "no tasks"

# Standard input is "<stdin>" in messages.
printf 'task A\nnonsense\n' >"$T/in.sim"
"$RUNQ" sim - <"$T/in.sim" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && grep -qF "runq sim: <stdin>:2: unknown directive 'nonsense'" "$T/err"; then
    pass stdin_errors_named
else
    failed stdin_errors_named "exit $rc: $(cat "$T/err")"
fi

exit $fail
