#!/usr/bin/env bash
# make bench: seed 000's table 1 on the host's own Linux beside runq's
# kernel and paper (docs/experiments.md, "The Linux engine"), three
# repeats, and how long each engine's twelve runs took. Linux's numbers are
# real time on whatever else the machine runs: a table to read, not a test.
# Needs root (tracefs); says SKIP otherwise. BENCH_SHORT set
# (tests/bench.sh): one repeat of one cell (hog.count 2, the base slice),
# 300 ms.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
if [ "$(id -u)" != 0 ]; then
    echo "SKIP bench_linux: the Linux engine records through tracefs, which needs root"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SCN=scenarios/short-slice-host.scn REPEAT=3
if [ -n "${BENCH_SHORT:-}" ]; then
    sed -e 's/^run .*/run 300ms/' -e 's/^vary hog.count .*/vary hog.count 2/' -e 's/^vary probe.slice .*/vary probe.slice base/' \
        "$SCN" >"$T/short.scn"
    SCN=$T/short.scn REPEAT=1
fi
start=$(date +%s)
"$RUNQ" experiment --quiet --repeat "$REPEAT" --engine linux,kernel,sim --db "$T/l.db" "$SCN"
echo "wall time: $(($(date +%s) - start)) s"
# What each engine recorded: seconds of trace (guest seconds for the
# kernel, real ones for Linux), records, and the switches Linux never wrote.
"$RUNQ" sql --db "$T/l.db" "SELECT s.engine, COUNT(*) AS runs, ROUND(SUM(t.end_ts - t.start_ts) / 1e9, 1) AS traced_s,
    SUM(t.records) AS records, (SELECT SUM(value) FROM stats x WHERE x.name = 'linux_switches_unseen'
    AND x.trace_id IN (SELECT trace_id FROM scenario y WHERE y.engine = s.engine)) AS switches_unseen
    FROM scenario s LEFT JOIN trace t USING (trace_id) GROUP BY s.engine"
