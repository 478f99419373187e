#!/usr/bin/env bash
# Balancing in `runq sim` (issue 35): the kernel's rules
# (kernel/sched/balance_rules.c, the same source) on paper, over
# scenarios/balance-sim.scn (balance.scn with the pipe pair made two
# sleepers allowed CPUs 0 and 1) on 2 and 4 CPUs:
#  - each switch alone moves tasks, with its reasons only (BALANCE_WAKE:
#    wake_idle_sibling; BALANCE_NEWIDLE: newidle; BALANCE_PERIODIC:
#    periodic); every switch off, the same machine moves nothing;
#  - the pair never runs on CPU 2 or 3, and every move of it stays on
#    CPUs 0 and 1 (runq sim also refuses, with a BUG, any join outside a
#    task's set);
#  - with several switches at once, every move is one of theirs;
#  - the periodic balance's interval is the knob balance_interval_ms.
# The kernel's run of balance.scn is compared with these in kind in
# tests/kernel/balance.sh (it has the kernel's trace at hand).
# Usage: tests/engine/sim_balance.sh [path/to/runq]
set -u
RUNQ=${1:-build/runq}
. tests/lib.sh

# moves CPUS FEATURE...: runq sim's "moves:" line for the scenario on CPUS
# with each FEATURE on; its schedule and log kept in $T/out.
moves() {
    local cpus=$1 args=()
    shift
    for f; do args+=(--feature "$f=on"); done
    sed "s/^cpus 4$/cpus $cpus/" scenarios/balance-sim.scn >"$T/b$cpus.scn"
    "$RUNQ" sim -v "${args[@]}" "$T/b$cpus.scn" >"$T/out" 2>"$T/err" || { echo "exit $?: $(head -c 300 "$T/err")"; return; }
    grep '^moves:' "$T/out"
}

for cpus in 2 4; do
    m=$(moves $cpus)
    [ "$m" = "moves: 0" ] && pass "nothing_moves_with_every_switch_off ($cpus CPUs)" ||
        failed nothing_moves_with_every_switch_off "$cpus CPUs: $m"
    for c in "BALANCE_WAKE wake_idle_sibling" "BALANCE_NEWIDLE newidle" "BALANCE_PERIODIC periodic"; do
        set -- $c
        m=$(moves $cpus "$1")
        n=$(sed -n "s/.*, $2 \([0-9]*\).*/\1/p" <<<"$m")
        others=$(sed "s/^moves: [0-9]*//; s/, $2 [0-9]*//" <<<"$m")
        if [ "${n:-0}" -ge 2 ] && [ -z "$others" ]; then
            pass "$2_alone_with_$1 ($cpus CPUs: $m)"
        else
            failed "$2_alone_with_$1" "$cpus CPUs: $m"
        fi
        # the pair stays on CPUs 0 and 1: in the schedule and in each move
        ran=$(grep -E '^cpu[2-9]' "$T/out" | grep -c 'pair')
        moved=$(grep -cE 'pair[0-9] moves from CPU [0-9]+ to CPU [0-9]+' "$T/out")
        out=$(grep -cE 'pair[0-9] moves from CPU [0-9]+ to CPU ([2-9]|[0-9]{2})' "$T/out")
        grep -q '^moves:' "$T/out" && [ "$ran" = 0 ] && [ "$out" = 0 ] && pass "pair_stays_in_its_cpus_with_$1 ($cpus CPUs, $moved moves of the pair)" ||
            failed "pair_stays_in_its_cpus_with_$1" "$cpus CPUs: $m; ran on CPU 2+ on $ran lines, $out of $moved moves left CPUs 0-1"
    done
done
# The pair must have moved somewhere in these runs, or its check said nothing.
m=$(moves 4 BALANCE_WAKE BALANCE_NEWIDLE BALANCE_PERIODIC)
moved=$(grep -cE 'pair[0-9] moves from' "$T/out")
others=$(sed -E "s/^moves: [0-9]*//; s/, (wake_idle_sibling|newidle|periodic) [0-9]*//g" <<<"$m")
[ -z "$others" ] && [ "$moved" -ge 1 ] && pass "all_switches_move_by_their_reasons_only ($m; the pair $moved times)" ||
    failed all_switches_move_by_their_reasons_only "$m; the pair moved $moved times"

# The balance interval is the knob's (balance_interval_ms, within Linux's
# bounds for 4 CPUs, 4..8 ms): half the interval, more periodic moves.
for k in 4 8; do
    grep -v '^vary' scenarios/balance-sim.scn | sed "s/^run 1s$/run 1s\nknob balance_interval_ms $k/" >"$T/k$k.scn"
    "$RUNQ" sim --feature BALANCE_PERIODIC=on "$T/k$k.scn" 2>&1 | sed -n 's/^moves: .*periodic \([0-9]*\).*/\1/p' >"$T/k$k.n"
done
n4=$(cat "$T/k4.n") n8=$(cat "$T/k8.n")
[ -n "$n4" ] && [ -n "$n8" ] && [ "$n4" -gt "$n8" ] && pass "balance_interval_knob_is_read (4 ms: $n4 periodic moves, 8 ms: $n8)" ||
    failed balance_interval_knob_is_read "4 ms: '$n4' periodic moves, 8 ms: '$n8'"

# A task that may run on several CPUs, with nothing on: runq sim models the
# machine (it used to refuse), and one pinned apart runs on its own line.
cat >"$T/apart.scn" <<'EOF2'
cpus 2
quantum 1ms
run 4ms
task a cpu=0
task b cpu=1
EOF2
out=$("$RUNQ" sim "$T/apart.scn" 2>&1)
[ "$out" = "$(printf 'cpu0 aaaa\ncpu1 bbbb\nmoves: 0')" ] && pass "pinned_apart_run_side_by_side" ||
    failed pinned_apart_run_side_by_side "$out"
exit $fail
