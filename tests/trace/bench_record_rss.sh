#!/usr/bin/env bash
# make bench: runq record's peak memory (resident set, /usr/bin/time) for
# generated streams of 1 M and 10 M records, beside the bound that
# docs/trace-format.md ("Bounds") promises for a recording of any length
# and tests/trace/hostile_rec_test.sh holds at 1 M. The build without
# sanitizers: its memory is what a user gets. Needs about 2 GB of disk for
# the 10 M stream and its database.
#
# usage: tests/trace/bench_record_rss.sh [RUNQ] [TRACE_GEN]
# BENCH_SHORT set (tests/bench.sh): one stream of 20,000 records.
set -eu
cd "$(dirname "$0")/../.."
RUNQ=${1:-build/runq}
GEN=${2:-build/tests/trace_gen}
BOUND_MB=$(sed -n 's/^RECORD_RSS_MB=//p' tests/trace/hostile_rec_test.sh)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -x /usr/bin/time ]; then
    echo "SKIP bench_record_rss: /usr/bin/time is missing (scripts/deps.sh installs it)"
    exit 0
fi
printf '%-10s %10s %9s %8s\n' records seconds "peak MB" "bound MB"
peak=0
SIZES="1000000 10000000"
[ -z "${BENCH_SHORT:-}" ] || SIZES=20000
for n in $SIZES; do
    "$GEN" --records "$n" --ms 1000000000 --cpus 4 --tasks 16 --seed 12 --out "$T/s.bin"
    /usr/bin/time -f "%e %M" -o "$T/time" "$RUNQ" record --file "$T/s.bin" --db "$T/r.db" >/dev/null 2>"$T/err" ||
        { echo "runq record failed: $(cat "$T/err")"; exit 1; }
    read -r secs kb <"$T/time"
    printf '%-10s %10s %9d %8d\n' "$(sqlite3 "$T/r.db" "SELECT records FROM trace")" "$secs" $((kb / 1024)) "$BOUND_MB"
    rm -f "$T"/r.db* "$T/s.bin"
    [ $((kb / 1024)) -gt "$peak" ] && peak=$((kb / 1024))
done
# the line scripts/bench_summary.pl gathers: the largest peak of the sizes
echo "target record_peak_mb $peak <= $BOUND_MB MB at any length"
