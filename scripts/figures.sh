#!/bin/sh
# Makes docs/plot.md's figures (docs/img/plot-*.png) from recordings:
#   - a 2-second deterministic boot of runq's kernel running `sched probe 2`
#     (QEMU, icount: the same figure each time) for the timeline;
#   - an EEVDF and a round robin trace of one workload from the trace
#     generator (tests/trace/trace_gen.c) for the latency figure;
#   - seed 000's slice beat on paper (scenarios/slice-beat.scn, 3 repeats)
#     for the experiment figure.
# usage: scripts/figures.sh [RUNQ]   (from the repository root; needs gnuplot)
set -eu
RUNQ=${1:-build/runq}
GEN=build/tests/trace_gen
make -s "$RUNQ" "$GEN" build/kernel.elf
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
out=docs/img

"$RUNQ" boot --deterministic --record "$T/k.db" --cmd 'sched probe 2' >/dev/null
"$RUNQ" plot timeline --db "$T/k.db" -o "$out/plot-timeline.png"

"$GEN" --cpus 2 --tasks 6 --ms 1000 --out "$T/e.bin"
"$GEN" --policy rr --cpus 2 --tasks 6 --ms 1000 --out "$T/r.bin"
"$RUNQ" record --file "$T/e.bin" --db "$T/g.db" >/dev/null 2>&1
"$RUNQ" record --file "$T/r.bin" --db "$T/g.db" >/dev/null 2>&1
"$RUNQ" plot latency --db "$T/g.db" -o "$out/plot-latency.png"

"$RUNQ" experiment --engine sim --repeat 3 --db "$T/x.db" scenarios/slice-beat.scn >/dev/null 2>&1
"$RUNQ" plot experiment --db "$T/x.db" --metric probe.stall --x hog.slice -o "$out/plot-experiment.png"
echo "figures.sh: wrote $out/plot-timeline.png, $out/plot-latency.png, $out/plot-experiment.png"
