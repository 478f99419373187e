#!/usr/bin/env bash
# runq's Linux probe beside cyclictest (Debian's rt-tests), on one setup
# and both definitions of late (issue 33; docs/experiments.md, "Missed
# targets"):
#   - 8 hogs, busy loops that never sleep, and one SCHED_OTHER measuring
#     thread, all on CPU 1 of this host; a 1 ms period, no jitter; late
#     means more than 1 ms after the target;
#   - runq: an `every:1ms` probe working 10 us, --engine linux (no
#     recording): its wakeups, late wakeups and missed targets (already
#     past when it went to sleep: never slept for);
#   - cyclictest: -t1 -a 1 -i 1000 --policy=other -v beside 8 shell busy
#     loops pinned to CPU 1: a sample a wakeup, late when over 1000 us.
#     cyclictest skips a target already past as runq does (its timer
#     thread moves the next target past now before it sleeps again), so
#     its missed targets are the grid's, duration / interval, less its
#     samples (to a target or so: its first and last);
#   - for each run and tool: stall = late / wakeups (runq's stall share,
#     and cyclictest's own figure), missed% = missed / targets, grid =
#     (late + missed) / targets (runq's --missed-late, stall_grid).
# The runs alternate, runq then cyclictest, --repeat times, so the host's
# other load falls on both alike; each line is one run, then each
# measure's mean [min..max]. The loads before and after say how busy the
# host was (its CPUs are shared).
# Usage: scripts/cyclictest_check.sh [--repeat N] [--seconds S] [--runq PATH]
#   (defaults 3, 6 and build/runq; root is not needed, cyclictest and a
#   second CPU are: sh scripts/deps.sh installs rt-tests)
set -u
cd "$(dirname "$0")/.." || exit 2
repeat=3 secs=6 runq=build/runq cpu=1 hogs=8
while [ $# -gt 0 ]; do
    case $1 in
    --repeat) repeat=${2:-}; shift 2 ;;
    --seconds) secs=${2:-}; shift 2 ;;
    --runq) runq=${2:-}; shift 2 ;;
    -h | --help) sed -n '2,/^# Usage/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cyclictest_check: unknown argument '$1'; see --help" >&2; exit 2 ;;
    esac
done
case "$repeat$secs" in *[!0-9]* | '') echo "cyclictest_check: --repeat and --seconds take whole numbers" >&2; exit 2 ;; esac
[ "$repeat" -ge 1 ] && [ "$secs" -ge 2 ] || { echo "cyclictest_check: want --repeat >= 1, --seconds >= 2" >&2; exit 2; }
command -v cyclictest >/dev/null || { echo "cyclictest_check: no cyclictest on PATH (sh scripts/deps.sh installs rt-tests)" >&2; exit 1; }
[ -x "$runq" ] || { echo "cyclictest_check: no runq at $runq (make)" >&2; exit 1; }
[ "$(nproc)" -gt "$cpu" ] || { echo "cyclictest_check: needs CPU $cpu; this process may use $(nproc)" >&2; exit 1; }

T=$(mktemp -d)
hogpids=()
stop_hogs() { [ ${#hogpids[@]} -gt 0 ] && kill "${hogpids[@]}" 2>/dev/null; wait "${hogpids[@]}" 2>/dev/null; hogpids=(); }
trap 'stop_hogs; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

cat >"$T/probe.scn" <<EOF
# issue 33's cell: 8 hogs and a 10 us probe on a regular 1 ms period
policy eevdf
cpus 2
hz 250
quantum 10us
run ${secs}s
stall 1ms
task hog*$hogs cpu=$cpu
task probe cpu=$cpu pattern=run:10us,every:1ms
measure probe stall wakeups missed
EOF

echo "setup: $hogs hogs and one SCHED_OTHER probe on CPU $cpu, a 1 ms period, ${secs} s a run, late = more than 1 ms"
echo "host: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) before"
printf '%-4s %-10s %8s %8s %8s %7s %7s %9s %7s\n' run tool targets wakeups missed late stall missed% grid
for r in $(seq 1 "$repeat"); do
    # runq: one repeat an experiment, seed r
    if ! "$runq" experiment --quiet --engine linux --no-record --seed "$r" --db "$T/x.db" "$T/probe.scn" \
        >"$T/runq.out" 2>"$T/runq.err"; then
        echo "cyclictest_check: runq run $r failed: $(tail -3 "$T/runq.err")" >&2
        exit 1
    fi
    "$runq" sql --db "$T/x.db" --csv "SELECT t.wakeups - t.dropped, t.missed, t.stalls FROM scenario_task t
        JOIN scenario s USING (scenario_id) WHERE s.experiment_id = $r AND t.task = 'probe'" |
        awk -F, -v r="$r" 'NR == 2 { print r, "runq", $1 + $2, $1, $2, $3 }' >>"$T/counts"

    # cyclictest beside the same hogs: shell busy loops pinned to the CPU
    for _ in $(seq 1 "$hogs"); do
        taskset -c "$cpu" sh -c 'while :; do :; done' &
        hogpids+=($!)
    done
    sleep 0.2
    cyclictest -t1 -a "$cpu" --mainaffinity=0 -i 1000 -D "$secs" --policy=other -q -v >"$T/cyc.out" 2>"$T/cyc.err"
    stop_hogs
    # -v: one "thread:cycle:latency_us" line a sample
    awk -F: -v r="$r" -v targets=$((secs * 1000)) 'NF == 3 && $1 + 0 == 0 { n++; if ($3 + 0 > 1000) late++ }
        END { if (!n) exit 1; print r, "cyclictest", targets, n, targets - n, late + 0 }' "$T/cyc.out" >>"$T/counts" ||
        { echo "cyclictest_check: cyclictest run $r gave no samples: $(head -3 "$T/cyc.err")" >&2; exit 1; }
    tail -2 "$T/counts" | awk '{ printf "%-4s %-10s %8d %8d %8d %7d %6.1f%% %8.1f%% %6.1f%%\n", $1, $2, $3, $4, $5, $6,
                                        100 * $6 / $4, 100 * $5 / $3, 100 * ($6 + $5) / $3 }' | tee -a "$T/rows"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) after"

# Each measure over the runs: mean [min..max].
spread() { # TOOL FIELD LABEL
    awk -v tool="$1" -v f="$2" -v label="$3" '$2 == tool { v = $f + 0; s += v; n++
            if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
        END { if (n) printf "  %-44s %5.1f%% [%.1f%%..%.1f%%]\n", label, s / n, lo, hi }' "$T/rows"
}
echo "over the runs, mean [min..max]:"
for tool in runq cyclictest; do
    spread $tool 7 "$tool stall (late / wakeups)"
    spread $tool 8 "$tool missed% (missed / targets)"
    spread $tool 9 "$tool grid ((late + missed) / targets)"
done
