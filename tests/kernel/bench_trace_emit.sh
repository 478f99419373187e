#!/usr/bin/env bash
# What tracing costs the kernel, record by record (make bench). Boots a
# variant kernel (build/selfcost, -DRUNQ_TRACE_SELFCOST) that times each
# record it writes, from before its clock read to its publication, and each
# tracer round that framed packets. The workload is the overhead bench's:
# sched probe 2 200 with tracing on. Guest time under icount (shift=3: one
# instruction every 8 ns), so the numbers repeat exactly and divide into
# instructions; the variant's own two clock reads add about 20 to each.
# The variant is the Makefile's SELFCOST_KERNEL (make bench builds it).
# BENCH_SHORT set (tests/bench.sh): the probe's 20 wakeups, not 200.
set -u
cd "$(dirname "$0")/../.."
KERNEL=build/selfcost/kernel.elf
[ -x "$KERNEL" ] || make -s "$KERNEL" >/dev/null || exit 1
PROBE=$([ -n "${BENCH_SHORT:-}" ] && echo 20 || echo 200)
f=$(mktemp)
trap 'rm -f "$f"' EXIT
out=$(timeout 300 qemu-system-x86_64 -machine pc -m 256M -smp 4 -kernel "$KERNEL" -display none \
    -no-reboot -serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=4 \
    -icount shift=3,sleep=off,align=off -accel tcg -cpu qemu64,+sse4.2 \
    -device virtio-serial-pci,ioeventfd=off,vectors=0 -chardev file,id=trace,path="$f" \
    -device virtserialport,chardev=trace,name=org.runq.trace.0 \
    -append "-- trace on; sched probe 2 $PROBE; trace status; poweroff" 2>/dev/null)
grep -q "selfcost" <<<"$out" || { echo "bench_trace_emit: no selfcost lines (is the variant built?)"; exit 1; }
awk '
/^  selfcost / {
    t = $3; split($4, w, "="); n = w[2]; split($5, w, "="); ns = w[2]; split($6, w, "="); by = w[2]
    N[t] += n; NS[t] += ns; B[t] += by; if (!(t in seen)) { seen[t] = 1; order[++k] = t }
}
END {
    printf "%-14s %9s %12s %14s\n", "record", "count", "avg ns", "~instructions"
    for (i = 1; i <= k; i++) { t = order[i]; if (t == "tracer_round") continue
        printf "%-14s %9d %12.0f %14.0f\n", t, N[t], NS[t] / N[t], NS[t] / N[t] / 8 }
    t = "tracer_round"
    if (N[t]) printf "tracer: %d rounds that sent packets, %.0f ns and %.0f bytes a round, %.2f instructions a byte\n",
        N[t], NS[t] / N[t], B[t] / N[t], NS[t] / B[t] / 8
}' <<<"$out"
