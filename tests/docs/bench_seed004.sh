#!/usr/bin/env bash
# make bench: seed 004's paired run at ten seconds (docs/seed004.md shows
# three): desktop.scn with replace_on_release 1 and 0, the UI loops' tail
# past 1 ms compared in 1 s intervals, and the kernel's counts of releases
# and of the moves that followed them. A table, not a test. BENCH_SHORT
# set (tests/bench.sh): 500 ms runs, compared in 100 ms intervals.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SCN=scenarios/desktop.scn INTERVAL=1s
if [ -n "${BENCH_SHORT:-}" ]; then
    sed 's/^run .*/run 500ms/' "$SCN" >"$T/desktop.scn"
    SCN=$T/desktop.scn INTERVAL=100ms
fi
"$RUNQ" experiment --quiet --jobs 1 --db "$T/s.db" "$SCN"
"$RUNQ" report releases --db "$T/s.db"
"$RUNQ" report compare --db "$T/s.db" run:1 run:2 --task 'ui*' --interval "$INTERVAL" | tail -1
"$RUNQ" sql --db "$T/s.db" "SELECT trace_id, count(*) AS moves FROM eevdf_leave WHERE reason = 'migrate' GROUP BY trace_id"
