#!/usr/bin/env bash
# Runs the RT class fuzzer (tests/policy/rt_fuzz.c) for a bounded time (default
# 10 s) from the corpus it keeps in build/rt_corpus; a failing input is
# left in build/ (crash-*) and its model's complaint printed.
set -u
secs=${1:-10}
mkdir -p build/rt_corpus
log=$(build/tests/rt_fuzz -artifact_prefix=build/ -max_total_time="$secs" -print_final_stats=1 build/rt_corpus 2>&1)
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$log")
eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' <<<"$log")
if [ $rc -eq 0 ]; then echo "PASS rt_fuzz_${secs}s ($runs runs, $eps exec/s)"; else
    echo "FAIL rt_fuzz: the fuzzer found a failing input"; grep -m1 '^rt_fuzz:' <<<"$log"; tail -30 <<<"$log"; fi
