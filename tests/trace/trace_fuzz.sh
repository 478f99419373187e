#!/usr/bin/env bash
# Runs the trace decoder fuzzer for a bounded time (default 20 s) from a
# corpus seeded with a generated stream. The target checks that the decoder
# never crashes and accounts for every input byte exactly once.
set -u
secs=${1:-20}
corpus=build/trace_corpus
mkdir -p "$corpus"
[ -s "$corpus/gen" ] || (printf '\x05'; build/tests/trace_gen --ms 20 --packet-bytes 512) > "$corpus/gen"
log=$(build/tests/trace_fuzz -artifact_prefix=build/ -max_total_time="$secs" -max_len=200000 -print_final_stats=1 "$corpus" 2>&1)
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$log")
eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' <<<"$log")
if [ $rc -eq 0 ]; then echo "PASS trace_fuzz_${secs}s ($runs runs, $eps exec/s)"; else
    echo "FAIL trace_fuzz: the fuzzer found a failing input"; tail -30 <<<"$log"; fi
