#!/usr/bin/env bash
# make bench: speed and size targets, printed as tables. Nothing here fails
# because the machine is slow; tests never time the host. The programs
# are the Makefile's (BENCHES, build/runq, trace_gen): no bench compiles
# its own. BENCH_SHORT=1 in the environment runs each bench in its short
# form (the fewest repeats and smallest sizes that still take its code
# path: tests/benches_short.sh, a suite of make test, checks that each
# runs and prints its table).
#
# Last, one table of every target the benches printed (a line "target
# NAME VALUE OP GOAL UNIT" each): its value, met or not, and the previous
# run's value from bench-results.json (scripts/bench_summary.pl), which
# this run then writes. A short run (BENCH_SHORT) prints the table alone:
# its sizes are not the full run's, so it neither reads nor writes the file.
set -u
cd "$(dirname "$0")/.."
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
{
    echo "== EEVDF pick cost on the host (the kernel's module), by runnable tasks"
    build/bench/bench_pick
    echo
    echo "== a balance pass and a newidle pull on the host (the kernel's rules and walk), by CPUs and tasks"
    build/bench/bench_balance
    echo
    echo "== host ingest: runq record against the sqlite3 shell importing CSV"
    bash tests/trace/trace_bench.sh build/runq build/tests/trace_gen
    for b in tests/*/bench_*.sh; do
        [ -e "$b" ] || continue
        echo
        echo "== $(basename "$b" .sh)"
        bash "$b"
    done
} 2>&1 | tee "$OUT"
echo
echo "== summary: each bench's targets"
perl scripts/bench_summary.pl $([ -z "${BENCH_SHORT:-}" ] && echo --results bench-results.json) "$OUT"
