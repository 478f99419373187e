#!/usr/bin/env bash
# The Linux recorder (host/engine/linux/lxrec.c, host/engine/linux/ftrace.c, host/engine/linux/tracefs.c) on
# this host's real scheduler: tests/engine/linux_pingpong.c records two threads
# passing a byte back and forth on one CPU for 1 s, and the stored trace
# is held against what Linux itself counted (each thread's schedstat) and
# against the invariants of the derived tables. Also: the tracing instance
# is gone after a run and after SIGINT in the middle of one, and hostile
# raw pages are counted malformed, not crashed on. Needs root and tracefs;
# without them each check says SKIP, never PASS. Prints PASS/FAIL/SKIP.
#
# usage: tests/engine/linux_trace_test.sh [RUNQ]   (RUNQ unused: the program writes the database itself)
set -u
PP=${LINUX_PINGPONG:-build/tests/linux_pingpong}
. tests/lib.sh
skip_all() {
    for c in slices_do_not_overlap wakeups_in_window_run runtime_matches_schedstat engine_is_linux \
        instance_removed_after_run instance_removed_after_sigint; do
        echo "SKIP $c: $1"
    done
}
[ -x "$PP" ] || make -s "$PP" >/dev/null || { echo "FAIL fixture: cannot build $PP"; exit 1; }

# 6. hostile pages: needs nothing but the program
if "$PP" --hostile >"$T/h.out" 2>"$T/h.err" && grep -q 'malformed' "$T/h.out"; then
    pass "hostile_pages_counted_malformed ($(cat "$T/h.out"))"
else
    failed hostile_pages_counted_malformed "exit $?: $(head -c 300 "$T/h.err")"
fi

if [ "$(id -u)" != 0 ]; then
    skip_all "not root (reading Linux's scheduler needs root and tracefs)"
    exit $fail
fi
DB=$T/l.db
"$PP" "$DB" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 3 ] && grep -q tracefs "$T/err"; then
    skip_all "no tracefs here: $(head -c 200 "$T/err")"
    exit $fail
elif [ $rc != 0 ]; then
    failed fixture "linux_pingpong exited $rc: $(head -c 300 "$T/err")"
    exit 1
fi
id=$(awk '$1 == "trace" {print $2}' "$T/out")
q() { sqlite3 -batch "$DB" "$@"; }
win=$(q "SELECT (SELECT ts FROM mark WHERE trace_id = $id AND name = 'start'), (SELECT ts FROM mark WHERE trace_id = $id AND name = 'end')")
IFS='|' read -r w0 w1 <<<"$win"

# 1. No two slices of one CPU overlap (each slice against the end of the one before it).
r=$(q "SELECT COUNT(*), SUM(ts < prev_end) FROM (SELECT ts, LAG(ts + dur) OVER (PARTITION BY cpu ORDER BY ts, id) AS prev_end
       FROM sched_slice WHERE trace_id = $id)")
IFS='|' read -r n bad <<<"$r"
if [ "${n:-0}" -gt 1000 ] && [ "${bad:-1}" = 0 ]; then
    pass "slices_do_not_overlap ($n slices)"
else
    failed slices_do_not_overlap "$n slices, $bad starting before the one before them on their CPU ended"
fi

# 2. Every wakeup of ping or pong in the window (less its last ms: a thread
#    woken as the window closes is stopped before it runs, and the recording
#    ends; a clean-clone CI under load had one) ran after it, unless a gap
#    (counted loss) on its CPU came before it could be seen to; and those
#    are rare (at most 1 in 1000, or 10), so that a recorder that turns
#    what it mishandles into gaps cannot pass.
r=$(q "SELECT COUNT(*), SUM(w.ts_run IS NULL AND NOT EXISTS (SELECT 1 FROM data_gap g WHERE g.trace_id = $id
         AND g.cpu = w.cpu AND g.ts_end >= w.ts_wake)), SUM(w.ts_run IS NULL)
       FROM wakeup w JOIN thread t ON t.utid = w.utid
       WHERE w.trace_id = $id AND t.name IN ('ping', 'pong') AND w.ts_wake BETWEEN $w0 AND $w1 - 1000000")
IFS='|' read -r n bad gapped <<<"$r"
if [ "${n:-0}" -gt 1000 ] && [ "${bad:-1}" = 0 ] && [ "$gapped" -le $((n / 1000 > 10 ? n / 1000 : 10)) ]; then
    pass "wakeups_in_window_run ($n wakeups, $gapped cut by a gap)"
else
    failed wakeups_in_window_run "$n wakeups in the window, $bad never ran and no gap explains it, $gapped cut by a gap"
fi

# 3. Each thread's time on the CPU from sched_slice, clipped to its own
#    window (when it read its schedstat), within 5 % of schedstat's.
ok=0
while read -r _ tid name run t0 t1; do
    got=$(q "SELECT COALESCE(SUM(MAX(0, MIN(s.ts + s.dur, $t1) - MAX(s.ts, $t0))), 0) FROM sched_slice s
             JOIN thread t ON t.utid = s.utid WHERE s.trace_id = $id AND t.tid = $tid")
    if [ "$run" -gt 100000000 ] && awk -v a="$got" -v b="$run" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 * b) }'; then
        ok=$((ok + 1))
        echo "  $name: trace $got ns, schedstat $run ns"
    else
        failed "runtime_matches_schedstat_$name" "trace says $got ns on a CPU, schedstat $run ns"
    fi
done < <(grep '^tid ' "$T/out")
[ $ok = 2 ] && pass "runtime_matches_schedstat (ping and pong within 5 %)"

# 4. The trace says which engine made it.
e=$(q "SELECT engine FROM trace WHERE trace_id = $id")
if [ "$e" = linux ]; then pass engine_is_linux; else failed engine_is_linux "trace.engine is '$e'"; fi

# 5. No instance left, after a run and after SIGINT in the middle of one.
p1=$(awk '$1 == "recording" {print $3}' "$T/out")
if [ -n "$p1" ] && [ ! -e "/sys/kernel/tracing/instances/runq-$p1" ]; then
    pass instance_removed_after_run
else
    failed instance_removed_after_run "instance runq-$p1 is still there (or no pid printed)"
fi
"$PP" "$T/w.db" --wait >"$T/w.out" 2>"$T/w.err" &
pid=$!
for _ in $(seq 50); do
    grep -q recording "$T/w.out" && break
    sleep 0.1
done
had=$([ -d "/sys/kernel/tracing/instances/runq-$pid" ] && echo 1 || echo 0)
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$had" = 1 ] && [ ! -e "/sys/kernel/tracing/instances/runq-$pid" ] && [ $rc != 0 ] && grep -q interrupted "$T/w.err"; then
    pass "instance_removed_after_sigint (exit $rc: $(head -c 100 "$T/w.err"))"
else
    failed instance_removed_after_sigint "instance there while recording: $had; after SIGINT: $(ls -d /sys/kernel/tracing/instances/runq-$pid 2>/dev/null || echo gone); exit $rc; stderr: $(head -c 200 "$T/w.err")"
fi
exit $fail
