#!/usr/bin/env bash
# bench_top: what `runq top` costs (run by make bench through tests/bench.sh).
#  1. build/bench/bench_top: refresh time of the model, filter and sort on
#     synthetic traces up to 1000 tasks on 16 CPUs (target: < 50 ms).
#  2. The real thing: runq record ingests a stream paced at RATE records a
#     second (default 100000) while runq top follows it in tmux at its
#     default 250 ms refresh; top's CPU time from /proc (target: < 5 %).
# BENCH_SHORT set (tests/bench.sh): bench_top's smallest setting, and 2 s
# at 20,000 records a second after a finished trace of 20,000.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
SHORT=${BENCH_SHORT:-}
RATE=${TOP_BENCH_RATE:-$([ -n "$SHORT" ] && echo 20000 || echo 100000)}
SECS=${TOP_BENCH_SECS:-$([ -n "$SHORT" ] && echo 2 || echo 10)}
OLD_RECORDS=$([ -n "$SHORT" ] && echo 20000 || echo 200000)
GEN=${TRACE_GEN:-build/tests/trace_gen}
T=$(mktemp -d /tmp/bench_top.XXXXXX)
S=runq_top_bench_$$
REC=
trap 'tmux kill-session -t $S 2>/dev/null; [ -n "$REC" ] && kill $REC 2>/dev/null; rm -rf "$T"' EXIT
BENCH=build/bench/bench_top
[ -x "$BENCH" ] || make -s "$BENCH" || exit 1
"$BENCH"

[ -x "$GEN" ] || make -s "$GEN" || exit 1
command -v tmux >/dev/null || { echo "(no tmux: live measurement skipped)"; exit 0; }
records=$((RATE * (SECS + 2)))
"$GEN" --cpus 8 --tasks 64 --ms 1000000 --records $records --out "$T/s.bin" 2>/dev/null
size=$(wc -c <"$T/s.bin")
rate_bytes=$((size / (SECS + 2))) # bytes of stream a second of wall time
# As in runq.db after a few runs: a finished trace (so the indexes exist)
# before the live one.
"$GEN" --cpus 8 --tasks 64 --ms 1000000 --records "$OLD_RECORDS" --out "$T/old.bin" 2>/dev/null
"$RUNQ" record --file "$T/old.bin" --db "$T/live.db" >/dev/null 2>&1
: >"$T/grow.bin"
"$RUNQ" record --file "$T/grow.bin" --follow --db "$T/live.db" >/dev/null 2>&1 &
REC=$!
# Paced by the wall clock, not by sleeps, so the rate is RATE however
# long each append takes: every 50 ms the stream is topped up to where it
# should be by now.
fed=0
t_start=$(date +%s%N)
feed_until() { # feed_until SECONDS_SINCE_START
    local end_ns=$((t_start + $1 * 1000000000)) now want
    while now=$(date +%s%N); [ "$now" -lt "$end_ns" ]; do
        want=$(((now - t_start) / 1000 * rate_bytes / 1000000))
        [ "$want" -gt "$size" ] && want=$size
        if [ "$want" -gt "$fed" ]; then
            tail -c +$((fed + 1)) "$T/s.bin" | head -c $((want - fed)) >>"$T/grow.bin"
            fed=$want
        fi
        sleep 0.05
    done
}
feed_until 1 # a second in, so there is a trace to open
tmux new-session -d -s $S -x 120 -y 40 "TERM=xterm-256color $RUNQ top --db $T/live.db; sleep 30"
feed_until 2
pid=$(pgrep -P "$(tmux list-panes -t $S -F '#{pane_pid}')" | head -1)
# Time on CPU in ns from schedstat: exact, where /proc/PID/stat's
# utime+stime are sampled at the tick and wander by a tenth over 10 s.
cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }
r0=$(sqlite3 "$T/live.db" "SELECT records FROM trace WHERE trace_id = 2" 2>/dev/null || echo 0)
c0=$(cpu_ns "$pid")
w0=$(date +%s.%N)
feed_until $((SECS + 2))
c1=$(cpu_ns "$pid")
w1=$(date +%s.%N)
r1=$(sqlite3 "$T/live.db" "SELECT records FROM trace WHERE trace_id = 2" 2>/dev/null || echo 0)
screen=$(tmux capture-pane -p -t $S | head -1)
echo
echo "runq top following a live recording at its default 250 ms refresh"
awk -v c=$((c1 - c0)) -v w0="$w0" -v w1="$w1" -v r=$((r1 - r0)) -v s="$screen" 'BEGIN {
    wall = w1 - w0
    printf "  %-34s %10.0f\n", "records ingested a second", r / wall
    printf "  %-34s %10.1f\n", "runq top CPU, % of a core", 100 * c / 1e9 / wall
    printf "  %-34s %10s\n", "target", "< 5 %"
    printf "target top_cpu_percent %.1f < 5 %% of a core\n", 100 * c / 1e9 / wall
    printf "  header: %s\n", s
}'
