#!/usr/bin/env bash
# make bench: what the BPF recorder of Linux's EEVDF state costs (issue 31,
# docs/sql.md "Traces from Linux"), measured on the host's own Linux:
#   cost      seed 000's crowded cell (8 hogs and the probe on CPU 1, 4 s),
#             runs paired and alternated, with the recorder and without it
#             (RUNQ_NO_BPF=1; tracefs records both): the probe's wake
#             latency p50 and the hogs' loop iterations, as with/without
#             ratios of the medians (goal: <= 1.05 for the latency, >= 0.95
#             for the throughput);
#   capacity  a two-thread pipe ping-pong on two CPUs for 2 s: samples a
#             second the recorder kept, samples lost (ring buffer full), and
#             the ping-pong's handoffs a second with and without it.
# Real time on a shared machine: a table to read, never a test. Needs root.
set -u
cd "$(dirname "$0")/.."
RUNQ=${RUNQ:-build/runq}
PAIRS=${PAIRS:-3}
if [ "$(id -u)" != 0 ]; then
    echo "SKIP bench_linux_bpf: the Linux engine and BPF need root"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sed -e 's/^run 10s/run 4s/' -e '/^vary/d' scenarios/short-slice-host.scn >"$T/crowd.scn"
cat >"$T/pp.scn" <<'EOF'
policy eevdf
cpus 2
hz 250
run 2s
pipe ping
pipe pong
task main cpu=0 pattern=write:ping,read:pong
task echo cpu=1 pattern=read:ping,write:pong
measure main handoffs
EOF

# one RUN DB [env...]: one run of $T/crowd.scn; prints "p50_ns hog_iters".
one() {
    local db=$1
    shift
    env "$@" "$RUNQ" run --engine linux --db "$db" "$T/crowd.scn" >/dev/null 2>"$T/err" ||
        { echo "run failed: $(head -c 300 "$T/err")" >&2; return 1; }
    sqlite3 "$db" "SELECT (SELECT p50_ns FROM scenario_task WHERE task = 'probe'),
                          (SELECT SUM(iters) FROM scenario_task WHERE task = 'hog')" | tr '|' ' '
}
: >"$T/with"
: >"$T/without"
for i in $(seq "$PAIRS"); do
    one "$T/w$i.db" >>"$T/with" || exit 0
    one "$T/n$i.db" RUNQ_NO_BPF=1 >>"$T/without" || exit 0
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wp=$(cut -d' ' -f1 "$T/with" | median) np=$(cut -d' ' -f1 "$T/without" | median)
wi=$(cut -d' ' -f2 "$T/with" | median) ni=$(cut -d' ' -f2 "$T/without" | median)
echo "cost: seed 000's 8-hog cell, $PAIRS pairs (with the BPF recorder / tracefs alone)"
printf '  %-22s %12s %12s %7s %s\n' metric with without ratio goal
printf '  %-22s %12s %12s %7.3f %s\n' "probe wake p50 (ns)" "$wp" "$np" "$(echo "$wp / $np" | bc -l)" "<= 1.05"
printf '  %-22s %12s %12s %7.3f %s\n' "hogs' iterations" "$wi" "$ni" "$(echo "$wi / $ni" | bc -l)" ">= 0.95"

"$RUNQ" run --engine linux --db "$T/pp.db" "$T/pp.scn" >/dev/null 2>"$T/err" || { echo "ping-pong failed: $(head -c 300 "$T/err")"; exit 0; }
RUNQ_NO_BPF=1 "$RUNQ" run --engine linux --db "$T/pn.db" "$T/pp.scn" >/dev/null 2>"$T/err" || { echo "ping-pong failed: $(head -c 300 "$T/err")"; exit 0; }
stat() { sqlite3 "$1" "SELECT COALESCE((SELECT value FROM stats WHERE name = '$2'), 0)"; }
hs() { sqlite3 "$1" "SELECT ROUND(SUM(reads) * 1e9 / MAX(window_ns)) FROM scenario_task WHERE task = 'main'"; }
secs=$(sqlite3 "$T/pp.db" "SELECT MAX(window_ns) / 1e9 FROM scenario_task")
echo "capacity: a two-thread pipe ping-pong, CPUs 0 and 1, 2 s"
printf '  %-30s %s\n' "samples kept a second" "$(echo "$(stat "$T/pp.db" bpf_samples) / $secs" | bc)"
printf '  %-30s %s\n' "samples lost (ring full)" "$(stat "$T/pp.db" bpf_lost_full)"
printf '  %-30s %s\n' "picks with internals / bare" "$(stat "$T/pp.db" linux_picks_internals) / $(stat "$T/pp.db" linux_picks_bare)"
printf '  %-30s %s / %s\n' "handoffs a second with / without" "$(hs "$T/pp.db")" "$(hs "$T/pn.db")"
