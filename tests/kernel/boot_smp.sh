#!/usr/bin/env bash
# SMP bring-up: the kernel starts every CPU QEMU gives it (1, 2, 16), each
# with its idle task, and tasks run on all of them.
set -u
RUNQ=${1:-build/runq}
for n in 1 2 16; do
    out=$("$RUNQ" boot --deterministic --cpus "$n" --cmd ps 2>&1)
    idles=$(grep -c ' idle/' <<<"$out")
    if grep -q "^runq: $n cpus" <<<"$out" && [ "$idles" -eq "$n" ]; then
        echo "PASS boot_smp_${n}_cpus"
    else
        echo "FAIL boot_smp_${n}_cpus: $(grep '^runq:' <<<"$out") with $idles idle tasks"
        echo "$out" | tail -5
    fi
done
