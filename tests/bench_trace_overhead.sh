#!/usr/bin/env bash
# Tracing overhead in the kernel: the same deterministic probe with the
# trace port streaming every record, and with tracing off. Decision cost
# is the average on the probe's CPU (cpu1) since boot; the ratio is on/off
# (aim: <= 1.10). Guest time under icount, so the numbers repeat exactly.
set -u
cd "$(dirname "$0")/.."
KERNEL=build/kernel.elf
f=$(mktemp)
trap 'rm -f "$f"' EXIT
run() { # trace on|off
    timeout 300 qemu-system-x86_64 -machine pc -m 256M -smp 4 -kernel "$KERNEL" -display none -no-reboot \
        -serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=4 \
        -icount shift=3,sleep=off,align=off -accel tcg \
        -device virtio-serial-pci,ioeventfd=off,vectors=0 -chardev file,id=trace,path="$f" \
        -device virtserialport,chardev=trace,name=org.runq.trace.0 \
        -append "-- trace $1; sched probe 2 200; sched total; poweroff" 2>/dev/null
}
on=$(run on); off=$(run off)
p50() { sed -n 's/^probe .*wake_p50_us=\([0-9]*\).*/\1/p' <<<"$1"; }
p99() { sed -n 's/^probe .*wake_p99_us=\([0-9]*\).*/\1/p' <<<"$1"; }
cost() { sed -n 's/^cpu1 decisions=[0-9]* cost_avg_ns=\([0-9]*\).*/\1/p' <<<"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
printf '%-28s %10s %10s %8s\n' metric trace_on trace_off ratio
printf '%-28s %10s %10s %8s\n' "decision cost avg (ns)" "$(cost "$on")" "$(cost "$off")" "$(ratio "$(cost "$on")" "$(cost "$off")")"
printf '%-28s %10s %10s %8s\n' "probe 2 wake p50 (us)" "$(p50 "$on")" "$(p50 "$off")" "$(ratio "$(p50 "$on")" "$(p50 "$off")")"
printf '%-28s %10s %10s %8s\n' "probe 2 wake p99 (us)" "$(p99 "$on")" "$(p99 "$off")" "$(ratio "$(p99 "$on")" "$(p99 "$off")")"
