#!/usr/bin/env bash
# make bench: seed 001's pipe handoff in runq's kernel, beside the thread's
# figures (will-it-scale context_switch1 on Linux, eight P-cores: 1.156 M
# handoffs/s at -t 2, 9.172 M/s at -t 15, DELAY_ZERO on; off: +0.17 %,
# +13.70 %), and the cost of one handoff in guest instructions (write,
# wake, switch, read), traced and untraced, against the probe's timer
# wake. A table, not a test: guest time is deterministic, but the numbers
# move with any change of the kernel's code.
#
# A handoff here is one read that got its byte: a round trip of a pair is
# two. will-it-scale counts a round trip as one iteration, so the thread's
# M/s are round trips; runq's main.handoffs are main's reads, round trips
# too. Guest time under icount (shift=3) is 8 ns an instruction of any
# vCPU, so with one CPU busy, instructions = guest ns / 8. BENCH_SHORT
# set (tests/bench.sh): each scenario 50 ms, the probe 20 wakeups.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SCN=scenarios PROBE=200
if [ -n "${BENCH_SHORT:-}" ]; then
    SCN=$T PROBE=20
    for f in pipe-handoff pipe-handoff-apart pipe-handoff-crowded; do
        sed 's/^run .*/run 50ms/' "scenarios/$f.scn" >"$T/$f.scn"
    done
fi

# rate FILE PARAMS: main.handoffs of the cell whose params are PARAMS.
rate() {
    awk -F, -v p="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); if (h == "main.handoffs") c = i } }
        NR > 1 { q = $3; gsub(/"/, "", q); if (q == p) print $c }' "$1"
}
for f in pipe-handoff pipe-handoff-apart pipe-handoff-crowded; do
    "$RUNQ" experiment --quiet --csv --db "$T/$f.db" --vary feature.REQUEUE_UPDATE_CURR=on \
        "$SCN/$f.scn" >"$T/$f.csv" 2>"$T/$f.err" || echo "$f failed: $(tail -1 "$T/$f.err")"
done
on="switch=default feature.REQUEUE_UPDATE_CURR=on" off="switch=NO_DELAY_ZERO feature.REQUEUE_UPDATE_CURR=on"
printf '%-44s %14s %14s %8s   %s\n' "case (REQUEUE_UPDATE_CURR on)" "DELAY_ZERO on" "off" "off/on" "the thread (M/s, on -> off)"
row() { # NAME FILE PAIRS SEED
    local a b
    a=$(rate "$T/$2.csv" "$on") b=$(rate "$T/$2.csv" "$off")
    awk -v n="$1" -v a="$a" -v b="$b" -v p="$3" -v s="$4" 'BEGIN {
        printf "%-44s %12.0f/s %12.0f/s %+7.1f%%   %s\n", n " (" p " pair" (p > 1 ? "s" : "") ")", a, b, 100 * (b / a - 1), s }'
}
row "one pair on one CPU (-t 15's unit)" pipe-handoff 1 "9.172 -> 10.425 (+13.7 %)"
row "apart: each thread its own CPU (-t 2)" pipe-handoff-apart 2 "1.156 -> 1.159 (+0.17 %)"
row "crowded: 15 pairs on 4 CPUs" pipe-handoff-crowded 15 "-"

# One handoff's cost, untraced: the same pair through the shell's scn
# lines on a kernel with no trace port (tracing off), 300 ms.
lines=$("$RUNQ" experiment --dry-run --vary switch=default --vary feature.REQUEUE_UPDATE_CURR=on \
    "$SCN/pipe-handoff.scn" 2>/dev/null | sed -n 's/^  \(scn .*\)/\1/p')
args=()
while IFS= read -r l; do args+=(--cmd "$l"); done <<<"$lines"
"$RUNQ" boot --deterministic --cpus 4 --hz 250 --cmd "sched feature REQUEUE_UPDATE_CURR on" "${args[@]}" \
    >"$T/boot.out" 2>&1
reads=$(sed -n 's/^scn task .*name=main .*window_ns=\([0-9]*\).* reads=\([0-9]*\).*/\1 \2/p' "$T/boot.out")
traced=$(rate "$T/pipe-handoff.csv" "$on")
probe=$("$RUNQ" boot --deterministic --cmd "sched probe 0 $PROBE" 2>&1 | sed -n 's/.*wake_p50_us=\([0-9]*\).*/\1/p')
echo
awk -v r="$reads" -v tr="$traced" -v probe="$probe" 'BEGIN {
    split(r, x, " "); untraced = x[2] * 1e9 / x[1]
    printf "%-44s %14s %14s\n", "one handoff (DELAY_ZERO on, one pair)", "guest us", "instructions"
    printf "%-44s %14.1f %14.0f\n", "traced (runq experiment)", 1e6 / (2 * tr), 1e9 / (2 * tr) / 8
    printf "%-44s %14.1f %14.0f\n", "untraced (runq boot, no trace port)", 1e6 / (2 * untraced), 1e9 / (2 * untraced) / 8
    printf "%-44s %14s %14.0f\n", "probe timer wake, p50 wake -> run (untraced)", probe, probe * 1000 / 8
}'
