#!/usr/bin/env bash
# The round robin's probe, as the README and docs/kernel.md show it: behind
# two and four spinners at 100 Hz a wakeup waits milliseconds, growing by
# about a tick per spinner, and a second deterministic run prints the very
# same numbers.
set -u
RUNQ=${1:-build/runq}
cmd=("$RUNQ" boot --deterministic --policy rr --hz 100 --cmd "sched probe 2" --cmd "sched probe 4")
a=$("${cmd[@]}" | grep '^probe ') || { echo "FAIL probe_rr_boots: runq boot failed"; exit 1; }
b=$("${cmd[@]}" | grep '^probe ') || { echo "FAIL probe_rr_boots: second runq boot failed"; exit 1; }
echo "$a"
field() { sed -n "s/.*spinners=$1 .*$2=\([0-9,]*\).*/\1/p" <<<"$a"; }
p2=$(field 2 wake_p50_us)
p4=$(field 4 wake_p50_us)
shares4=$(field 4 share_permille)

if [ "$a" = "$b" ]; then echo "PASS probe_rr_deterministic"; else
    echo "FAIL probe_rr_deterministic: two runs differ"; echo "$b"; fi
if [ "${p2:-0}" -ge 3000 ]; then echo "PASS probe_rr_two_spinners_costs_milliseconds"; else
    echo "FAIL probe_rr_two_spinners_costs_milliseconds: p50 ${p2:-?} us"; fi
if [ "${p4:-0}" -ge $((p2 + 15000)) ]; then echo "PASS probe_rr_grows_a_tick_per_spinner"; else
    echo "FAIL probe_rr_grows_a_tick_per_spinner: p50 ${p2:-?} us behind 2, ${p4:-?} us behind 4"; fi
# uneven turns: the largest and smallest share of four spinners differ by over 10 %
IFS=, read -r -a s <<<"$shares4"
max=0; min=1000
for v in "${s[@]}"; do [ "$v" -gt "$max" ] && max=$v; [ "$v" -lt "$min" ] && min=$v; done
if [ "${#s[@]}" -eq 4 ] && [ $((max - min)) -ge 100 ]; then echo "PASS probe_rr_shares_uneven"; else
    echo "FAIL probe_rr_shares_uneven: shares $shares4"; fi
