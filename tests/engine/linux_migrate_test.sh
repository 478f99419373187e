#!/usr/bin/env bash
# Moves on the host's Linux, with their rules (issue 35 part 3; docs/sql.md
# "migration", docs/linux.md): three hogs and two sleepers that may run on
# CPUs 0 and 1, recorded by the Linux engine with its BPF recorder, beside
# a tracefs instance of this test's own that sees the same tracepoints:
#   - moves are recorded: rows between CPUs 0 and 1 only, each from one
#     CPU to the other, the trace's ncpus 2;
#   - every reason is one the Linux engine can name (wake, newidle,
#     periodic, unknown): never one of the kernel's sub-rules it cannot
#     see (wake_idle_prev, wake_idle_sibling, wake_affine);
#   - the count agrees with this test's own sched_migrate_task count for
#     the scenario's threads within the trace's window, within the loss
#     either side counts;
#   - the rules agree with the call path this test reads from its own
#     tracefs events: a move between the thread's sched_waking and its
#     sched_wakeup, on the waking CPU, is `wake`; one inside SCHED_SOFTIRQ
#     (softirq_entry/exit vec=7) on its CPU is `periodic`; so `unknown`
#     and `newidle` are left only where neither matched;
#   - a newidle row's destination is the CPU that made the move (the
#     puller, sched_balance_newidle()), and it left a queue; a wake row
#     left none; no row says a load (the BPF side cannot read other CPUs'
#     run queues here).
# Correctness only: how many moves Linux makes is the host's business
# (a busy machine moves more), so no rate is checked.
# Usage: tests/engine/linux_migrate_test.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

linux_bpf_ready linux_migrate || exit 0
if [ "$(grep -c '^processor' /proc/cpuinfo)" -lt 2 ]; then
    echo "SKIP linux_migrate: fewer than 2 CPUs here: nothing can move"
    exit 0
fi
TR=/sys/kernel/tracing
[ -d "$TR/instances" ] || mount -t tracefs nodev "$TR" 2>/dev/null

cat >"$T/mig.scn" <<'EOF'
policy eevdf
cpus 2
run 2s
seed 1
quantum 10us
pipe ping
pipe pong
task hog*3 cpu=0-1 pattern=run:30ms,sleep:10ms
task sleeper pattern=run:200us,sleep:2ms
task main cpu=0-1 pattern=run:300us,write:ping,read:pong
task echo*main cpu=0-1 pattern=read:ping,run:200us,write:pong
measure sleeper share
EOF

# This test's own instance: the same tracepoints, read as text.
I="$TR/instances/runq_migtest_$$"
mkdir "$I" || { failed own_instance "cannot make $I"; exit 1; }
cleanup_instance() { echo 0 >"$I/tracing_on" 2>/dev/null; rmdir "$I" 2>/dev/null; }
at_exit cleanup_instance
echo mono >"$I/trace_clock"
echo 8192 >"$I/buffer_size_kb"
for ev in sched/sched_migrate_task sched/sched_waking sched/sched_wakeup irq/softirq_entry irq/softirq_exit; do
    echo 1 >"$I/events/$ev/enable"
done
echo 1 >"$I/tracing_on"
setsid -w "$RUNQ" run --engine linux --db "$T/m.db" "$T/mig.scn" >"$T/out" 2>"$T/err"
rc=$?
echo 0 >"$I/tracing_on"
cat "$I/trace" >"$T/trace.txt"
own_lost=$(cat "$I"/per_cpu/cpu*/stats | awk '/^overrun:|^dropped events:/ { n += $NF } END { print n + 0 }')
if [ $rc -ne 0 ]; then
    failed recorded "exit $rc: $(head -c 400 "$T/err")"
    exit 1
fi
if grep -q "internals not recorded" "$T/err"; then
    failed recorded_with_bpf "the run says: $(grep "internals not recorded" "$T/err")"
    exit 1
fi

# ---- the rows ----
got=$(sq "$T/m.db" "SELECT COUNT(*) || ' ' || SUM(src_cpu NOT IN (0, 1) OR dst_cpu NOT IN (0, 1) OR src_cpu = dst_cpu)
                    || ' ' || (SELECT ncpus FROM trace) FROM migration")
set -- $got
if [ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" = 2 ]; then
    pass "moves_between_cpus_0_and_1 ($1 moves, each from one of CPUs 0 and 1 to the other)"
else
    failed moves_between_cpus_0_and_1 "moves / off CPUs 0-1 or to itself / ncpus: $got"
fi
bad=$(sq "$T/m.db" "SELECT COUNT(*) || ' ' || COALESCE(GROUP_CONCAT(DISTINCT reason), '') FROM migration
                    WHERE reason NOT IN ('wake', 'newidle', 'periodic', 'unknown')")
if [ "${bad%% *}" = 0 ]; then
    pass "reasons_from_the_list ($(sq "$T/m.db" "SELECT GROUP_CONCAT(reason || ' ' || n, ', ') FROM
                                   (SELECT reason, COUNT(*) n FROM migration GROUP BY reason ORDER BY reason)"))"
else
    failed reasons_from_the_list "rows with a reason the Linux engine cannot tell: $bad"
fi
got=$(sq "$T/m.db" "SELECT COUNT(*) || ' ' || COUNT(*) FILTER (WHERE reason <> 'wake' OR queued = 0) || ' ' ||
                    COUNT(*) FILTER (WHERE reason = 'newidle' AND queued = 0) || ' ' ||
                    COUNT(*) FILTER (WHERE COALESCE(src_nr, src_load, dst_nr, dst_load) IS NOT NULL) || ' ' ||
                    (SELECT COUNT(*) FROM migration_load) FROM migration")
set -- $got
# wake: off every queue (try_to_wake_up() places a task that sleeps);
# newidle and periodic: taken from a queue (detach_task()).
if [ "$1" = "$2" ] && [ "$3" = 0 ] && [ "$4" = 0 ] && [ "$5" = 0 ]; then
    pass "queued_as_the_rule_says ($1 rows: wake ones off a queue, newidle ones from one; no load made up)"
else
    failed queued_as_the_rule_says "rows / wake unqueued or other / newidle unqueued / with loads / load rows: $got"
fi

# ---- against this test's own tracefs events ----
# The scenario's thread ids, and the trace's window in microseconds.
sq "$T/m.db" "SELECT tid FROM thread WHERE name LIKE 'hog%' OR name LIKE 'sleeper%' OR name LIKE 'main%' OR name LIKE 'echo%'" >"$T/tids"
win=$(sq "$T/m.db" "SELECT (start_ts / 1000) || ' ' || (end_ts / 1000) FROM trace")
# Each move of a scenario thread in the window, classed by its call path:
# W between its sched_waking (from this CPU) and its sched_wakeup, P in
# the CPU's SCHED_SOFTIRQ, O otherwise; S: those of O made by their
# destination CPU (a newidle pull can only be one of them).
awk -v win="$win" '
    NR == FNR { tid[$1] = 1; next }
    BEGIN { split("", waking) }
    {
        if (!match($0, /\[[0-9]+\]/)) next
        cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
        if (!match($0, /[0-9]+\.[0-9]+: /)) next
        ts = substr($0, RSTART, RLENGTH - 2); split(ts, p, "."); us = p[1] * 1000000 + p[2]
        pid = ""; if (match($0, / pid=[0-9]+/)) pid = substr($0, RSTART + 5, RLENGTH - 5)
        if ($0 ~ /softirq_entry: vec=7 /) { soft[cpu] = 1; next }
        if ($0 ~ /softirq_exit: vec=7 /) { soft[cpu] = 0; next }
        if ($0 ~ /sched_waking: /) { waking[pid] = cpu; next }
        if ($0 ~ /sched_wakeup: /) { delete waking[pid]; next }
        if ($0 !~ /sched_migrate_task: / || !(pid in tid)) next
        split(win, w, " ")
        c = (pid in waking) && waking[pid] == cpu ? "W" : soft[cpu] ? "P" : "O"
        delete waking[pid]
        dest = ""; if (match($0, / dest_cpu=[0-9]+/)) dest = substr($0, RSTART + 10, RLENGTH - 10) + 0
        if (us >= w[1] && us <= w[2]) { n[c]++; if (c == "O" && dest == cpu) n["S"]++ }
    }
    END { print n["W"] + 0, n["P"] + 0, n["O"] + 0, n["S"] + 0 }
' "$T/tids" "$T/trace.txt" >"$T/own"
read -r ownW ownP ownO ownS <"$T/own"
own=$((ownW + ownP + ownO))
rec=$(sq "$T/m.db" "SELECT COUNT(*) FROM migration")
loss=$(sq "$T/m.db" "SELECT COALESCE(SUM(value), 0) FROM stats WHERE severity = 'data_loss'
                     AND name IN ('linux_missed_events', 'linux_pages_lost_memory', 'linux_pages_malformed')")
allow=$((loss + own_lost))
diff=$((rec > own ? rec - own : own - rec))
if [ "$own" -gt 0 ] && [ "$diff" -le "$allow" ]; then
    pass "count_agrees_with_tracefs ($rec rows, this test's instance saw $own in the window; loss counted $loss + $own_lost)"
else
    failed count_agrees_with_tracefs "rows $rec, own sched_migrate_task $own, loss $loss + $own_lost"
fi
got=$(sq "$T/m.db" "SELECT COUNT(*) FILTER (WHERE reason = 'wake') || ' ' || COUNT(*) FILTER (WHERE reason = 'periodic')
                    || ' ' || COUNT(*) FILTER (WHERE reason IN ('newidle', 'unknown')) || ' ' ||
                    COUNT(*) FILTER (WHERE reason = 'unknown') || ' ' || COUNT(*) FILTER (WHERE reason = 'newidle')
                    FROM migration")
set -- $got
bare=$(sq "$T/m.db" "SELECT COALESCE((SELECT value FROM stats WHERE name = 'bpf_moves_bare'), 0)")
# A move whose BPF sample was not found is told from tracefs alone, where
# periodic cannot be seen: each such one may stand in O instead of P.
if [ "$allow" = 0 ] && [ "$1" = "$ownW" ] && [ "$2" -le "$ownP" ] && [ $((ownP - $2)) -le "$bare" ] &&
    [ "$3" = $((ownO + ownP - $2)) ] && [ "$5" -le "$ownS" ]; then
    pass "rules_agree_with_tracefs (wake $1 = $ownW between waking and wakeup, periodic $2 of $ownP in SCHED_SOFTIRQ, newidle $5 of $ownS made by their destination, unknown $4; $bare without a sample)"
elif [ "$allow" != 0 ]; then
    echo "SKIP rules_agree_with_tracefs: events were lost ($loss in the recorder, $own_lost in this test's instance)"
else
    failed rules_agree_with_tracefs "db wake/periodic/newidle+unknown/unknown $got; tracefs W/P/O/S $ownW $ownP $ownO $ownS; bare $bare"
fi

# runq report experiment's moves a second by reason (docs/experiments.md,
# "Moves by reason"): the run's rows of each reason in its window (marks
# start and end) over its 2 s, as the section prints them. A reason
# whose moves all fell outside the window has a column (another run, or
# this one's edges, moved so) and reads 0.0 there: left out of what is
# compared, as it has no row in the window to want.
"$RUNQ" report experiment --db "$T/m.db" 1 >"$T/xp" 2>&1
want=$(sq "$T/m.db" "SELECT GROUP_CONCAT(reason || '=' || printf('%.1f', n * 1e9 / (SELECT run_ns FROM scenario)), ' ')
                     FROM (SELECT reason, COUNT(*) n FROM migration, (SELECT MIN(ts) t0 FROM mark WHERE name = 'start'),
                           (SELECT MAX(ts) t1 FROM mark WHERE name = 'end')
                           WHERE ts >= t0 AND ts < t1 GROUP BY reason ORDER BY reason)")
got=$(awk '/^moves a second by reason/ { on = 1; next }
           on && /^params/ { for (i = 3; i <= NF; i++) r[i] = $i; next }
           on && $2 == "linux" { s = ""; for (i = 3; i <= NF; i++) { v = $i; sub(/\/s$/, "", v); if (v == "0.0") continue; s = s (s ? " " : "") r[i] "=" v }
                                 print s; exit }' "$T/xp")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
    pass "experiment_moves_by_reason ($got a second)"
else
    failed experiment_moves_by_reason "printed '$got', the rows say '$want': $(head -c 600 "$T/xp")"
fi
exit $fail
