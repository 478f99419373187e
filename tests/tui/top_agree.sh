#!/usr/bin/env bash
# runq top and the kernel's `sched queue` agree at one instant (issue 20:
# top showed a lone hog's lag and deadline as they were at its pick, while
# the kernel had charged it and renewed its deadline at every tick since).
# One deterministic boot: a hog alone on CPU 1, three spinners of nice 0,
# 5 and -3 on CPU 2; at 97 ms the shell marks the moment and prints both
# queues. runq top's model (build/tests/top_at, the model the view draws)
# at the mark's time must give every task of both queues the kernel's lag,
# deadline - V (to the ns: the console prints us with 3 decimals) and
# eligibility.
# Usage: tests/tui/top_agree.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
TOP_AT=${TOP_AT:-build/tests/top_at}
. "$(dirname "$0")/../lib.sh"
[ -x "$TOP_AT" ] || make -s "$TOP_AT" >/dev/null || { echo "FAIL fixture: cannot build $TOP_AT"; exit 1; }

"$RUNQ" boot --deterministic --timeout 600 --record "$T/q.db" --cmd "spin hog 300 1" --cmd "spin a 300 2 0" \
    --cmd "spin b 300 2 5" --cmd "spin c 300 2 -3" --cmd "sleep 97" --cmd "mark queue" --cmd "sched queue 1" \
    --cmd "sched queue 2" >"$T/console" 2>"$T/boot.err" ||
    { echo "FAIL fixture: boot: $(tail -2 "$T/boot.err")"; exit 1; }
at=$(sq "$T/q.db" "SELECT ts FROM mark WHERE name = 'queue'")
"$TOP_AT" "$T/q.db" 1 "$at" >"$T/top" 2>"$T/top.err" || { echo "FAIL fixture: top_at: $(cat "$T/top.err")"; exit 1; }

# The kernel's rows: NAME VRUNTIME-V DEADLINE-V LAG ELIGIBLE, in ns.
awk '/^queue cpu=/ { q = 1; next } q && /^ *ID / { next }
     q && NF == 10 && $1 ~ /^[0-9]+$/ { printf "%s %.0f %.0f %s\n", $2, $9 * 1000, $8 * 1000, $10; next }
     { q = 0 }' "$T/console" >"$T/kernel"
check() {
    local name=$1 want
    want=$(grep "^$name " "$T/kernel")
    got=$(awk -v n="$name" '$1 == n { print $1, $3, $4, $5 }' "$T/top")
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
        pass "top_agrees_$name ($want)"
    else
        failed "top_agrees_$name" "kernel '$want', top '$got' (name lag_ns deadline-V_ns eligible)"
    fi
}
[ "$(wc -l <"$T/kernel")" = 4 ] || failed kernel_rows "want 4 queue rows on the console: $(cat "$T/kernel")"
for t in hog a b c; do check "$t"; done
exit $fail
