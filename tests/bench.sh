#!/usr/bin/env bash
# make bench: speed and size targets, printed as tables. Nothing here fails
# because the machine is slow; tests never time the host. The programs
# are the Makefile's (BENCHES, build/runq, trace_gen): no bench compiles
# its own. BENCH_SHORT=1 in the environment runs each bench in its short
# form (the fewest repeats and smallest sizes that still take its code
# path: tests/benches_short.sh, a suite of make test, checks that each
# runs and prints its table).
set -u
cd "$(dirname "$0")/.."
echo "== EEVDF pick cost on the host (the kernel's module), by runnable tasks"
build/bench/bench_pick
echo
echo "== host ingest: runq record against the sqlite3 shell importing CSV"
bash tests/trace/trace_bench.sh build/runq build/tests/trace_gen
for b in tests/*/bench_*.sh; do
    [ -e "$b" ] || continue
    echo
    echo "== $(basename "$b" .sh)"
    bash "$b"
done
