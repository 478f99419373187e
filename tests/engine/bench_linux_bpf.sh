#!/usr/bin/env bash
# make bench: what the BPF recorder of Linux's EEVDF state costs (issue 31,
# docs/sql.md "Traces from Linux"), measured on the host's own Linux:
#   cost      seed 000's crowded cell (8 hogs and the probe on CPU 1, 10 s),
#             REPEATS runs, each measuring the recorder against itself in
#             one run (RUNQ_BPF_ALTERNATE_MS=250: its programs detached and
#             attached again every 250 ms, host/engine/linux/alternate.c): the probe's
#             wake latency p50 and the hogs' iterations a second, with it
#             over without, per run and their median (goal: <= 1.05 for
#             the latency, >= 0.95 for the throughput); beside each, two
#             controls: "empty", programs attached that return at once
#             (RUNQ_BPF_EMPTY=1: being on these tracepoints at all), and
#             "A/A", the same windows with nothing toggled
#             (RUNQ_BPF_ALTERNATE_DRY=1: the measure's own bias and
#             spread). Whole runs with and
#             without, paired, moved by 20-30 % between runs here (the
#             shared host's own speed drifts); windows a quarter of a
#             second long see the same drift on both sides;
#   capacity  a two-thread pipe ping-pong on two CPUs for 2 s: samples a
#             second the recorder kept, samples lost (ring buffer full), and
#             the ping-pong's handoffs a second with and without it.
# Real time on a shared machine: a table to read, never a test. Needs root.
# BENCH_SHORT set (tests/bench.sh): one repeat, the cell 2 s (eight
# windows), the ping-pong 500 ms.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
if [ -n "${BENCH_SHORT:-}" ]; then
    REPEATS=${REPEATS:-1} CROWD_RUN=2s PP_RUN=500ms
else
    REPEATS=${REPEATS:-5} CROWD_RUN=10s PP_RUN=2s
fi
if [ "$(id -u)" != 0 ]; then
    echo "SKIP bench_linux_bpf: the Linux engine and BPF need root"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sed -e '/^vary/d' -e "s/^run .*/run $CROWD_RUN/" scenarios/short-slice-host.scn >"$T/crowd.scn"
cat >"$T/pp.scn" <<EOF
policy eevdf
cpus 2
hz 250
run $PP_RUN
pipe ping
pipe pong
task main cpu=0 pattern=write:ping,read:pong
task echo cpu=1 pattern=read:ping,write:pong
measure main handoffs
EOF

# ratio WHAT: the with/without ratio of one A/B note line of $T/err.
ratio() { sed -n "s/.*recorder A\/B: $1 .*(\([0-9.]*\)).*/\1/p" "$T/err" | head -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >"$T/p50"
: >"$T/iters"
: >"$T/p50e"
: >"$T/iterse"
: >"$T/p50a"
: >"$T/itersa"
echo "cost: seed 000's 8-hog cell, $REPEATS pairs of $CROWD_RUN runs, the programs off and on every 250 ms of each:"
echo "      the recorder; empty: the programs attached but returning at once; A/A: nothing toggled"
for i in $(seq "$REPEATS"); do
    for kind in recorder empty A/A; do
        env $([ $kind = empty ] && echo RUNQ_BPF_EMPTY=1) $([ $kind = A/A ] && echo RUNQ_BPF_ALTERNATE_DRY=1) \
            RUNQ_BPF_ALTERNATE_MS=250 \
            "$RUNQ" run --engine linux --db "$T/ab$i${kind%/*}.db" "$T/crowd.scn" >/dev/null 2>"$T/err" ||
            { echo "run failed: $(head -c 300 "$T/err")"; exit 0; }
        p=$(ratio "probe wake p50") h=$(ratio "hog iterations")
        if [ -z "$p" ] || [ -z "$h" ]; then
            echo "  $kind $i: no A/B figures: $(grep -m1 "A/B" "$T/err" | head -c 300)"
            continue
        fi
        sfx=$([ $kind = empty ] && echo e; [ $kind = A/A ] && echo a)
        echo "$p" >>"$T/p50$sfx"
        echo "$h" >>"$T/iters$sfx"
        printf "  %-8s %d: probe wake p50 %s, hogs' iterations %s\n" "$kind" "$i" "$p" "$h"
    done
done
[ -s "$T/p50" ] && [ -s "$T/p50e" ] && [ -s "$T/p50a" ] || exit 0
printf '  %-30s %9s %9s %9s %s\n' "median, with/without" recorder empty A/A goal
printf '  %-30s %9s %9s %9s %s\n' "probe wake p50" "$(median <"$T/p50")" "$(median <"$T/p50e")" "$(median <"$T/p50a")" "<= 1.05"
printf '  %-30s %9s %9s %9s %s\n' "hogs' iterations" "$(median <"$T/iters")" "$(median <"$T/iterse")" "$(median <"$T/itersa")" ">= 0.95"
# the lines scripts/bench_summary.pl gathers
echo "target bpf_probe_wake_p50 $(median <"$T/p50") <= 1.05 with / without the recorder"
echo "target bpf_hogs_iterations $(median <"$T/iters") >= 0.95 with / without the recorder"

"$RUNQ" run --engine linux --db "$T/pp.db" "$T/pp.scn" >/dev/null 2>"$T/err" || { echo "ping-pong failed: $(head -c 300 "$T/err")"; exit 0; }
RUNQ_NO_BPF=1 "$RUNQ" run --engine linux --db "$T/pn.db" "$T/pp.scn" >/dev/null 2>"$T/err" || { echo "ping-pong failed: $(head -c 300 "$T/err")"; exit 0; }
stat() { sqlite3 "$1" "SELECT COALESCE((SELECT value FROM stats WHERE name = '$2'), 0)"; }
hs() { sqlite3 "$1" "SELECT ROUND(SUM(reads) * 1e9 / MAX(window_ns)) FROM scenario_task WHERE task = 'main'"; }
secs=$(sqlite3 "$T/pp.db" "SELECT MAX(window_ns) / 1e9 FROM scenario_task")
echo "capacity: a two-thread pipe ping-pong, CPUs 0 and 1, $PP_RUN"
printf '  %-30s %s\n' "samples kept a second" "$(echo "$(stat "$T/pp.db" bpf_samples) / $secs" | bc)"
printf '  %-30s %s\n' "samples lost (ring full)" "$(stat "$T/pp.db" bpf_lost_full)"
echo "target bpf_samples_lost $(stat "$T/pp.db" bpf_lost_full) <= 0 at the ping-pong's full rate"
printf '  %-30s %s\n' "picks with internals / bare" "$(stat "$T/pp.db" linux_picks_internals) / $(stat "$T/pp.db" linux_picks_bare)"
printf '  %-30s %s / %s\n' "handoffs a second with / without" "$(hs "$T/pp.db")" "$(hs "$T/pn.db")"
