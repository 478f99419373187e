#!/usr/bin/env bash
# bench_top: what `runq top` costs (run by make bench through tests/bench.sh).
#  1. build/bench/bench_top: refresh time of the model, filter and sort on
#     synthetic traces up to 1000 tasks on 16 CPUs (target: < 50 ms).
#  2. The real thing: runq record ingests a stream paced at RATE records a
#     second (default 100000) while runq top follows it in tmux at its
#     default 250 ms refresh; top's CPU time from /proc (target: < 5 %).
set -u
cd "$(dirname "$0")/.."
RUNQ=${RUNQ:-build/runq}
RATE=${TOP_BENCH_RATE:-100000}
SECS=${TOP_BENCH_SECS:-10}
GEN=${TRACE_GEN:-build/tests/trace_gen}
T=$(mktemp -d /tmp/bench_top.XXXXXX)
S=runq_top_bench_$$
REC=
trap 'tmux kill-session -t $S 2>/dev/null; [ -n "$REC" ] && kill $REC 2>/dev/null; rm -rf "$T"' EXIT
CFLAGS="-std=c11 -D_GNU_SOURCE -O2 -iquote . -iquote kernel/sched -iquote kernel/lib"
mkdir -p build/bench
[ -f build/gen/schema_sql.o ] || make -s build/gen/schema_sql.o
cc $CFLAGS -o build/bench/bench_top tests/bench_top.c tui/model.c tui/table.c kernel/sched/weights.c \
    build/gen/schema_sql.o -lsqlite3 -lm || exit 1
build/bench/bench_top

[ -x "$GEN" ] || { GEN=$T/trace_gen; cc $CFLAGS -o "$GEN" tests/trace_gen.c kernel/sched/rr.c kernel/sched/eevdf.c \
    kernel/sched/eevdf_tree.c kernel/sched/weights.c || exit 1; }
command -v tmux >/dev/null || { echo "(no tmux: live measurement skipped)"; exit 0; }
records=$((RATE * (SECS + 2)))
"$GEN" --cpus 8 --tasks 64 --ms 1000000 --records $records --out "$T/s.bin" 2>/dev/null
size=$(wc -c <"$T/s.bin")
chunk=$((size / (SECS + 2) / 10)) # a tenth of a second's worth
: >"$T/grow.bin"
"$RUNQ" record --file "$T/grow.bin" --follow --db "$T/live.db" >/dev/null 2>&1 &
REC=$!
i=0
feed() { dd if="$T/s.bin" bs=$chunk skip=$i count=1 status=none >>"$T/grow.bin"; i=$((i + 1)); sleep 0.1; }
for k in $(seq 10); do feed; done # a second in, so there is a trace to open
tmux new-session -d -s $S -x 120 -y 40 "TERM=xterm-256color $RUNQ top --db $T/live.db; sleep 30"
sleep 0.5
pid=$(pgrep -P "$(tmux list-panes -t $S -F '#{pane_pid}')" | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
r0=$(sqlite3 "$T/live.db" "SELECT records FROM trace" 2>/dev/null || echo 0)
c0=$(ticks "$pid")
w0=$(date +%s.%N)
for k in $(seq $((SECS * 10))); do feed; done
c1=$(ticks "$pid")
w1=$(date +%s.%N)
r1=$(sqlite3 "$T/live.db" "SELECT records FROM trace" 2>/dev/null || echo 0)
hz=$(getconf CLK_TCK)
screen=$(tmux capture-pane -p -t $S | head -1)
echo
echo "runq top following a live recording at its default 250 ms refresh"
awk -v c=$((c1 - c0)) -v hz="$hz" -v w0="$w0" -v w1="$w1" -v r=$((r1 - r0)) -v s="$screen" 'BEGIN {
    wall = w1 - w0
    printf "  %-34s %10.0f\n", "records ingested a second", r / wall
    printf "  %-34s %10.1f\n", "runq top CPU, % of a core", 100 * c / hz / wall
    printf "  %-34s %10s\n", "target", "< 5 %"
    printf "  header: %s\n", s
}'
