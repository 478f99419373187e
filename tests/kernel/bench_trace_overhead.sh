#!/usr/bin/env bash
# Tracing overhead in the kernel: the same deterministic probe with the
# trace port streaming every record, and with tracing off. Decision cost
# is the average on the probe's CPU (cpu1) since boot; the ratio is on/off
# (issue 34's aim: 1.05, and 1.10 for the wake p50 and p99). Guest time under icount, so the numbers repeat exactly.
#
# Read with care: under icount QEMU runs the vCPUs in turn on one clock, so
# a decision on cpu1 is charged whatever other vCPUs execute while it waits
# for its turn. Tracing makes CPU 0 busier (the tracer drains the rings
# there), which alone raises cpu1's numbers. The third column is the control:
# tracing off, CPU 0 kept busy by a spinner instead; on/busy is closer to
# what emitting records costs cpu1 itself. BENCH_SHORT set
# (tests/bench.sh): the probe's 20 wakeups, not 200, and of the second
# table's single types MARK alone.
set -u
cd "$(dirname "$0")/../.."
KERNEL=build/kernel.elf
if [ -n "${BENCH_SHORT:-}" ]; then
    PROBE=20 TYPES=(none mark all)
else
    PROBE=200 TYPES=(none mark wake join pick leave tick all)
fi
f=$(mktemp)
trap 'rm -f "$f"' EXIT
run() { # trace on|off
    timeout 300 qemu-system-x86_64 -machine pc -m 256M -smp 4 -kernel "$KERNEL" -display none -no-reboot \
        -serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=4 \
        -icount shift=3,sleep=off,align=off -accel tcg -cpu qemu64,+sse4.2 \
        -device virtio-serial-pci,ioeventfd=off,vectors=0 -chardev file,id=trace,path="$f" \
        -device virtserialport,chardev=trace,name=org.runq.trace.0 \
        -append "-- $1 sched probe 2 $PROBE; sched total; poweroff" 2>/dev/null
}
on=$(run "trace on;"); off=$(run "trace off;"); busy=$(run "trace off; spin busy 60000 0;")
p50() { sed -n 's/^probe .*wake_p50_us=\([0-9]*\).*/\1/p' <<<"$1"; }
p99() { sed -n 's/^probe .*wake_p99_us=\([0-9]*\).*/\1/p' <<<"$1"; }
cost() { sed -n 's/^cpu1 decisions=[0-9]* cost_avg_ns=\([0-9]*\).*/\1/p' <<<"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
printf '%-24s %9s %9s %9s %8s %8s\n' metric trace_on off off_busy on/off on/busy
row() { # label, extractor
    local a b c
    a=$($2 "$on"); b=$($2 "$off"); c=$($2 "$busy")
    printf '%-24s %9s %9s %9s %8s %8s\n' "$1" "$a" "$b" "$c" "$(ratio "$a" "$b")" "$(ratio "$a" "$c")"
}
row "decision cost avg (ns)" cost
row "probe 2 wake p50 (us)" p50
row "probe 2 wake p99 (us)" p99
# the lines scripts/bench_summary.pl gathers: each on/off ratio against
# issue 34's aims, 1.05 for the decision cost and 1.10 for the wake p50/p99
target() { # name, extractor, aim
    local a b
    a=$($2 "$on"); b=$($2 "$off")
    echo "target $1 $([ -n "$a" ] && ratio "$a" "$b" || echo -) <= $3 tracing on / off"
}
target trace_overhead_decision_cost cost 1.05
target trace_overhead_wake_p50 p50 1.10
target trace_overhead_wake_p99 p99 1.10

# Where the p50's extra comes from: tracing on with one record type let
# through at a time (MARK alone: the tracer runs, the scheduler writes
# nothing). The probe's path holds one WAKE and JOIN but two PICKs and two
# LEAVEs, the waker's and the wakee's (docs/testing.md, "icount's one clock").
echo
printf '%-24s %9s %9s\n' "traced types" p50_us cost_ns
for t in "${TYPES[@]}"; do
    case $t in
    none) out=$off; label=none ;;
    all) out=$on; label=all ;;
    *) out=$(run "trace on; trace mask $t;"); label=$t ;;
    esac
    printf '%-24s %9s %9s\n' "$label" "$(p50 "$out")" "$(cost "$out")"
done
