#!/usr/bin/env bash
# benches_short (make test): every bench of make bench run once, in its
# short form (BENCH_SHORT=1: the fewest repeats and smallest sizes that
# still take its code path; each script's header says what it shrinks),
# one at a time, with RUNQ (default build/runq, the build make bench
# times). It asserts that each ran and printed its table, never a speed:
#   PASS NAME         it exited 0 and every line its row below names (an
#                     ERE each, a header or a row of numbers) is there;
#   SKIP NAME: why    it needs what is not here (root, BTF, the BPF
#                     recorder, QEMU, tmux, /usr/bin/time), or said SKIP;
#   FAIL NAME: why    otherwise, with the end of its output.
# A bench script tests/bench_*.sh without a row here FAILs: a new bench
# is run from its first day. The last lines say what each bench cost.
#
# Usage: tests/benches_short.sh [RUNQ]
cd "$(dirname "$0")/.." || exit 2
export RUNQ=${1:-build/runq}
export BENCH_SHORT=1
T=$(mktemp -d)
# bench_top's tmux: a server of this suite's own, never the default one.
export TMUX_TMPDIR=$T
trap 'tmux kill-server 2>/dev/null; rm -rf "$T"' EXIT

no_qemu=$(command -v qemu-system-x86_64 >/dev/null || echo "no qemu-system-x86_64 (runq's kernel runs under QEMU)")
# Why the Linux engine cannot run here, or "" when it can.
linux_missing() {
    if [ "$(id -u)" != 0 ]; then echo "not root (the Linux engine records through tracefs)"
    elif ! [ -d /sys/kernel/tracing ] && ! [ -d /sys/kernel/debug/tracing ]; then echo "no tracefs"
    fi
}
bpf_missing() {
    local why
    why=$(linux_missing)
    if [ -n "$why" ]; then echo "$why"
    elif ! [ -r /sys/kernel/btf/vmlinux ]; then echo "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
    elif ! [ -f build/bpf/lxbpf.skel.h ]; then echo "runq is built without the BPF recorder (clang, bpftool, libbpf-dev)"
    fi
}

checked=()
costs=()
# bench NAME MISSING CMD -- ERE...: runs CMD (unless MISSING, the reason
# it cannot run here, is not empty) and looks for each ERE in its output.
bench() {
    local name=$1 missing=$2 cmd=() re t0 secs rc
    shift 2
    while [ "$1" != -- ]; do cmd+=("$1"); shift; done
    shift
    checked+=("$name")
    if [ -n "$missing" ]; then
        echo "SKIP $name: $missing"
        return
    fi
    t0=$(date +%s.%N)
    "${cmd[@]}" >"$T/$name.out" 2>&1 </dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    costs+=("$(printf '%-22s %6s s' "$name" "$secs")")
    if [ $rc -eq 0 ] && grep -q "^SKIP " "$T/$name.out"; then
        grep "^SKIP " "$T/$name.out" | head -1
        return
    fi
    local missing_re=()
    for re in "$@"; do
        grep -Eq -- "$re" "$T/$name.out" || missing_re+=("$re")
    done
    if [ $rc -ne 0 ] || [ ${#missing_re[@]} -gt 0 ]; then
        echo "FAIL $name: exit $rc${missing_re:+; no line matching '${missing_re[0]}'}"
        tail -n 8 "$T/$name.out" | sed 's/^/    /'
        return
    fi
    echo "PASS $name"
}

# a whole clone built and booted: make bench's alone, said SKIP here
bench bench_make_run "a fresh clone's build and make run: make bench only" bash tests/kernel/bench_make_run.sh -- \
    '^to the prompt \(build included\) +[0-9.]+$' '^live view after the prompt +[0-9.]+$' '^exit status after poweroff +0$'
bench bench_pick "" build/bench/bench_pick -- \
    '^ *runnable +fast_ns +fast_touched +ref_ns' '^ +1024 +[0-9.]+ +[0-9]+ +[0-9.]+ +2048' '^fast pick 16 -> 1024'
bench bench_balance "" build/bench/bench_balance -- \
    '^ *cpus +tasks +pass_ns +moved +walked +newidle_ns +pulled' '^ +16 +256 +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[01]$' \
    '^target balance_pass_walked_at_256_tasks [0-9]+ <= 32 '
bench trace_bench "" bash tests/trace/trace_bench.sh "$RUNQ" build/tests/trace_gen -- \
    '^runq record \(decode.*events/s' '^sqlite3 \.import from CSV.*events/s' '^runq record reaches [0-9]+ % of the ceiling'
bench bench_experiment "$no_qemu" bash tests/experiment/bench_experiment.sh -- \
    '^kernel \(icount, [0-9]+ jobs\) +[0-9.]+' '^sim \(10 us quantum\) +[0-9.]+' '^hog.count=8 probe.slice=100us +[0-9.]+%'
bench bench_grade "$no_qemu" bash tests/labs/bench_grade.sh -- \
    '^grading lab 1, [0-9]+ students' '^cold \(each variant boots\) +[0-9.]+ +[0-9.]+' \
    '^warm \(every run from the cache\) +[0-9.]+ +[0-9.]+' '^2000 students, each its own variant: about [0-9]+ min' \
    '^cold, [0-9]+ students \(2 variants ran\) +[0-9.]+' '^2000 students on 2 variants: about [0-9.]+ min'
bench bench_handoff "$no_qemu" bash tests/kernel/bench_handoff.sh -- \
    '^one pair on one CPU.* [0-9]+/s +[0-9]+/s' '^crowded: 15 pairs.* [0-9]+/s +[0-9]+/s' '^untraced \(runq boot.* [0-9.]+ +[0-9]+$' \
    '^probe timer wake.* [0-9]+ +[0-9]+$'
bench bench_linux "$(printf '%s\n' "$(linux_missing)" "$no_qemu" | grep -m1 .)" bash tests/engine/bench_linux.sh -- \
    '^wall time: [0-9]+ s' '^engine +runs +traced_s' '^linux +1 +[0-9.]+ +[0-9]+' '^kernel +1 +[0-9.]+ +[0-9]+'
bench bench_linux_bpf "$(bpf_missing)" bash tests/engine/bench_linux_bpf.sh -- \
    '^  probe wake p50 +[0-9.]+ +[0-9.]+ +[0-9.]+ ' "^  hogs' iterations +[0-9.]+ +[0-9.]+ +[0-9.]+ " \
    '^  samples kept a second +[0-9]+' '^  handoffs a second with / without [0-9.]+ / [0-9.]+'
bench bench_record_rss "" bash tests/trace/bench_record_rss.sh "$RUNQ" build/tests/trace_gen -- \
    '^records +seconds +peak MB +bound MB' '^[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+$'
bench bench_seed004 "$no_qemu" bash tests/docs/bench_seed004.sh -- \
    '^replace_on_release=0 +[0-9.]+%' '^ +2 +desktop replace_on_release=0 +[0-9.]+ +[0-9]+' 'sign test p = ' '^trace_id +moves'
bench bench_top "" bash tests/tui/bench_top.sh -- \
    '^ CPUs +tasks +events/s' '^ +4 +12 +100000 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%' \
    "$(command -v tmux >/dev/null && echo '^  runq top CPU, % of a core +[0-9.]+' || echo '^\(no tmux')"
bench bench_trace_e2e "$no_qemu" bash tests/trace/bench_trace_e2e.sh -- \
    '^ +5000 +4 +4000 +[0-9]+ +[0-9]+ +[0-9]+ ' '^highest rate with zero loss: [0-9]+ events/s'
bench bench_trace_emit "$no_qemu" bash tests/kernel/bench_trace_emit.sh -- \
    '^record +count +avg ns' '^PICK +[0-9]+ +[0-9]+ +[0-9]+$' '^tracer: [0-9]+ rounds that sent packets'
bench bench_trace_overhead "$no_qemu" bash tests/kernel/bench_trace_overhead.sh -- \
    '^decision cost avg \(ns\) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+' '^probe 2 wake p50 \(us\) +[0-9]+' '^mark +[0-9]+ +[0-9]+$'

# Every bench make bench runs has its row above.
nbench=0
for b in tests/*/bench_*.sh; do
    [ -e "$b" ] || continue
    nbench=$((nbench + 1))
    n=$(basename "$b" .sh)
    printf '%s\n' "${checked[@]}" | grep -qx "$n" || echo "FAIL $n: $b has no row in tests/benches_short.sh"
done
[ "$nbench" -gt 0 ] || echo "FAIL benches_listed: no tests/*/bench_*.sh found"
# make bench's last table (scripts/bench_summary.pl) from what the benches
# above printed: a row for each name of their "target" lines, with its
# value; then again, reading the results file the first run wrote, each
# measured value its own previous one. PASS bench_summary, or FAIL with the
# table.
cat "$T"/*.out >"$T/all.targets" 2>/dev/null
summary() { perl scripts/bench_summary.pl --results "$T/results.json" "$T/all.targets" >"$T/summary$1" 2>&1; }
if ! summary 1 || ! summary 2; then
    echo "FAIL bench_summary: exit $?"; sed 's/^/    /' "$T/summary1"
else
    why=$(awk 'FNR == 1 { f++ } f == 1 && /^target / { want[$2] = $3; n++ }
        f == 2 && $1 in want { seen1[$1] = $2 }
        f == 3 && $1 in want { prev[$1] = $NF }
        END {
            if (!n) { print "no bench printed a target line"; exit }
            for (t in want) {
                if (!(t in seen1)) { print "no row for " t; exit }
                if (want[t] != "-" && prev[t] + 0 != want[t] + 0) { print t "'"'"'s previous is " prev[t] ", not " want[t]; exit }
            }
        }' "$T/all.targets" "$T/summary1" "$T/summary2")
    if [ -z "$why" ] && grep -q '^target  *value  *goal  *met  *previous$' "$T/summary1" &&
        grep -q '^no previous results' "$T/summary1" && ! grep -q '^no previous results' "$T/summary2"; then
        echo "PASS bench_summary"
    else
        echo "FAIL bench_summary: ${why:-the header or the previous-results line is wrong}"
        sed 's/^/    /' "$T/summary2"
    fi
fi
echo "what each bench cost here:"
printf '  %s\n' "${costs[@]}"
