#!/usr/bin/env bash
# Runs the EEVDF fuzzer for a bounded time (default 20 s; make fuzz runs it
# longer) from the corpus it keeps in build/eevdf_corpus, and prints its
# executions per second and total runs.
set -u
secs=${1:-20}
mkdir -p build/eevdf_corpus
log=$(build/tests/eevdf_fuzz -max_total_time="$secs" -print_final_stats=1 build/eevdf_corpus 2>&1)
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$log")
eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' <<<"$log")
echo "eevdf_fuzz: $runs runs in $secs s, $eps exec/s"
if [ $rc -eq 0 ]; then echo "PASS eevdf_fuzz_${secs}s ($runs runs, $eps exec/s)"; else
    echo "FAIL eevdf_fuzz: the fuzzer found a failing input"; tail -30 <<<"$log"; fi
