#!/usr/bin/env bash
# Hostile files, outputs and runs against the recorder (issue 30), without
# QEMU: streams from trace_gen.
#
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
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# docs/trace-format.md, "Bounds": a recording of any length.
RECORD_RSS_MB=64

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
