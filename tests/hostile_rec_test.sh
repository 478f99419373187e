#!/usr/bin/env bash
# Hostile files, outputs and runs against the recorder (issue 30), without
# QEMU: streams from trace_gen.
#
#   follow_stops_at_end          --follow on a file that gets a whole
#                                stream whose END is 50 ms after the CPUs'
#                                last records, as the kernel's is: the
#                                recorder returns, trace complete (it
#                                waited for ever, F6b).
#   record_memory_is_bounded     1 M records under RECORD_RSS_MB (110 MB,
#                                466 MB at 10 M, before: F9).
#
# usage: tests/hostile_rec_test.sh [RUNQ] [TRACE_GEN] [PLAIN_RUNQ]
#   PLAIN_RUNQ (build/runq), built without sanitizers, is the one whose
#   memory is measured: ASan's shadow and quarantine are not what a user
#   gets (the sanitizer build takes 320 MB for 200,000 records).
set -u
cd "$(dirname "$0")/.."
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
PLAIN=${3:-build/runq}
export TRACE_GEN
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
. tests/lib.sh

# docs/trace-format.md, "Bounds": a recording of any length.
RECORD_RSS_MB=64

# ---- F6b: --follow returns after END ----

"$GEN" --seed 3 --ms 2000 --end-late 50 --out "$T/late.bin" || { failed fixture "trace_gen --end-late"; exit 1; }
: >"$T/follow.bin"
"$RUNQ" record --follow --file "$T/follow.bin" --db "$T/follow.db" >/dev/null 2>"$T/follow.err" &
rec=$!
eventually [ -s "$T/follow.db" ] || failed follow_stops_at_end "the recorder did not start: $(cat "$T/follow.err")"
cat "$T/late.bin" >>"$T/follow.bin"
for _ in $(seq 100); do kill -0 $rec 2>/dev/null || break; sleep 0.1; done
if kill -0 $rec 2>/dev/null; then
    kill -INT $rec
    wait $rec
    failed follow_stops_at_end "still running 10 s after the END record was appended"
else
    wait $rec
    rc=$?
    row=$(sq "$T/follow.db" "SELECT status || ' ' || end_reason FROM trace")
    [ "$rc" = 0 ] && [ "$row" = "complete end" ] && pass follow_stops_at_end ||
        failed follow_stops_at_end "exit $rc, trace '$row': $(head -c 300 "$T/follow.err")"
fi

# ---- F9: memory does not grow with the trace ----

if [ ! -x /usr/bin/time ]; then
    echo "SKIP record_memory_is_bounded: /usr/bin/time is missing (scripts/deps.sh installs it)"
else
    "$GEN" --records 1000000 --ms 100000000 --cpus 4 --tasks 16 --seed 12 --out "$T/big.bin" ||
        { failed fixture "trace_gen 1M"; exit 1; }
    /usr/bin/time -f "%M" -o "$T/big.time" "$PLAIN" record --file "$T/big.bin" --db "$T/big.db" >/dev/null 2>"$T/big.err"
    rc=$?
    kb=$(tail -n 1 "$T/big.time")
    n=$(sq "$T/big.db" "SELECT records FROM trace")
    if [ "$rc" = 0 ] && [ "$n" -ge 1000000 ] && [ "$kb" -lt $((RECORD_RSS_MB * 1024)) ]; then
        pass "record_memory_is_bounded ($n records in $((kb / 1024)) MB, bound $RECORD_RSS_MB MB)"
    else
        failed record_memory_is_bounded "exit $rc, $n records, $((kb / 1024)) MB (bound $RECORD_RSS_MB MB): $(head -c 300 "$T/big.err")"
    fi
fi
exit $fail
