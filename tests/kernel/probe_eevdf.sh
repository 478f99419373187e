#!/usr/bin/env bash
# EEVDF in the kernel, against the round robin's numbers (tests/kernel/probe_rr.sh):
# a wakeup beside 1, 2 and 4 spinners takes microseconds at the median, four
# equal spinners get 250 +- 2 per mille each, nice 0 against nice 5 gets
# 2.9-3.2 times the CPU (weights: 3.06), and a second run is identical.
set -u
RUNQ=${1:-build/runq}
cmd=("$RUNQ" boot --deterministic --cmd "sched probe 1" --cmd "sched probe 2" --cmd "sched probe 4"
     --cmd "sched share 0 0 0 0" --cmd "sched share 0 5")
a=$("${cmd[@]}" | grep -E '^(probe|share) ') || { echo "FAIL probe_eevdf_boots: runq boot failed"; exit 1; }
b=$("${cmd[@]}" | grep -E '^(probe|share) ') || { echo "FAIL probe_eevdf_boots: second run failed"; exit 1; }
echo "$a"
if [ "$a" = "$b" ]; then echo "PASS probe_eevdf_deterministic"; else
    echo "FAIL probe_eevdf_deterministic: two runs differ"; echo "$b"; fi
for n in 1 2 4; do
    p50=$(sed -n "s/^probe policy=eevdf spinners=$n .*wake_p50_us=\([0-9]*\).*/\1/p" <<<"$a")
    if [ -n "$p50" ] && [ "$p50" -lt 200 ]; then echo "PASS probe_eevdf_wake_microseconds_beside_$n"; else
        echo "FAIL probe_eevdf_wake_microseconds_beside_$n: p50 ${p50:-?} us"; fi
done
eq=$(sed -n 's/^share policy=eevdf nices=0,0,0,0 .*permille=\([0-9,]*\)$/\1/p' <<<"$a")
ok=1
IFS=, read -r -a s <<<"$eq"
[ ${#s[@]} -eq 4 ] || ok=0
for v in "${s[@]}"; do [ "$v" -ge 248 ] && [ "$v" -le 252 ] || ok=0; done
if [ $ok = 1 ]; then echo "PASS probe_eevdf_equal_shares"; else echo "FAIL probe_eevdf_equal_shares: $eq"; fi
nn=$(sed -n 's/^share policy=eevdf nices=0,5 .*permille=\([0-9,]*\)$/\1/p' <<<"$a")
IFS=, read -r hi lo <<<"$nn"
if [ -n "${lo:-}" ] && [ "$lo" -gt 0 ] && [ $((hi * 100 / lo)) -ge 290 ] && [ $((hi * 100 / lo)) -le 320 ]; then
    echo "PASS probe_eevdf_nice_ratio ($((hi * 100 / lo))/100)"; else echo "FAIL probe_eevdf_nice_ratio: $nn"; fi
