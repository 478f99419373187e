#!/usr/bin/env bash
# bench_trace_e2e (run by make bench through tests/bench.sh): how many trace
# records a second the kernel can push through the trace port into SQLite
# with zero loss, and where loss begins. Plain TCG, not icount: the trace is
# recorded live through the socket, so the guest's clock tracks the host's
# and the rate is a real one (a benchmark, not a test).
#
# Each rung boots 4 vCPUs with `churn TASKS PERIOD_US MS`: every cycle of a
# churn task is about five records (wake, place, pick, leave, the next pick),
# so TASKS and PERIOD_US set the offered rate, 5 * TASKS * 1e6 / PERIOD_US.
# TCG's wake latency stretches each cycle, so the rate reached is lower; the
# table shows both. Counted between the marks `load` and `done`:
#   stored     pick + place + leave + tick + wakeup rows in the window
#   achieved   stored / window
#   offered    (stored + dropped) / window: what the guest tried to send
#   dropped, lost_pkts, other   stats rows of severity data_loss (whole
#              trace; nothing runs outside the window): records the rings
#              dropped, packets missing by sequence number, and CRC errors +
#              bytes skipped + resyncs + bytes truncated
#   port_full  times the tracer found the virtio-serial port full (the host
#              had not taken the last buffers): the host is behind
#   rec_us     the recorder's CPU time per stored record (all of the trace)
#   rec_cpu    the recorder's CPU, % of one core over its life
#   drops_by_cpu  records dropped by each CPU's ring: the tracer drains
#              the rings in CPU order, so under back-pressure the last CPUs
#              lose first
# "highest rate with zero loss" is the best achieved rate below the first
# rung that lost anything, and "loss begins at" that rung's offered rate:
# loss comes from the host side falling behind for a moment, so a rung above
# it may happen to be clean (the table shows it) without making the rate
# sustainable. The tracer's own wakeups add about 2k records/s at its
# busiest (every 2 ms), 300 when quiet (every 16 ms). BENCH_SHORT set
# (tests/bench.sh): the first rung alone, 300 ms.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
MS=${E2E_MS:-$([ -n "${BENCH_SHORT:-}" ] && echo 300 || echo 2000)}
CPUS=4
[ -z "${BENCH_SHORT:-}" ] || E2E_LADDER=${E2E_LADDER:-"5000 4 4000"}
# target/s  tasks  period_us   (5 * tasks * 1e6 / period_us = target)
LADDER=${E2E_LADDER:-"5000 4 4000
10000 8 4000
20000 16 4000
50000 20 2000
100000 40 2000
200000 64 1600
400000 64 800
800000 64 400
1600000 64 200"}
T=$(mktemp -d /tmp/bench_trace_e2e.XXXXXX)
BOOT=
trap '[ -n "$BOOT" ] && kill $BOOT 2>/dev/null; rm -rf "$T"' EXIT

# CPU time in ns of a process, all its threads (schedstat is exact).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
# times_full from the n-th `vser status` line of a console log.
port_full() { sed -n 's/^vser bytes_sent=.* times_full=\([0-9]*\).*/\1/p' "$1" | sed -n "$2p"; }

echo "plain TCG, $CPUS vCPUs on $(nproc) host cores, churn for $MS ms a rung, records between marks load and done"
printf '%9s %5s %6s %8s %10s %10s %8s %9s %6s %9s %7s %7s  %-9s %s\n' target/s tasks period stored achieved/s \
    offered/s dropped lost_pkts other port_full rec_us rec_cpu verdict drops_by_cpu
best=0 first_loss=
while read -r target tasks period; do
    [ -n "$target" ] || continue
    db=$T/$target.db out=$T/$target.out
    "$RUNQ" boot --cpus $CPUS --timeout 60 --record "$db" --cmd "vser status" --cmd "mark load" \
        --cmd "churn $tasks $period $MS" --cmd "sleep $((MS + 100))" --cmd "mark done" --cmd "vser status" \
        >"$out" 2>"$T/$target.err" &
    BOOT=$!
    # The recorder is runq boot's child `runq record`: its CPU time is read
    # while it lives (the last read is at most 50 ms before it exits).
    rec= rns=0 r0= r1=
    while kill -0 $BOOT 2>/dev/null; do
        [ -n "$rec" ] || rec=$(pgrep -P $BOOT -x runq | head -1)
        if [ -n "$rec" ] && [ -d /proc/"$rec" ]; then
            n=$(cpu_ns "$rec")
            [ "$n" -gt 0 ] && { rns=$n; r1=$(date +%s%N); [ -n "$r0" ] || r0=$r1; }
        fi
        sleep 0.05
    done
    wait $BOOT
    rc=$?
    BOOT=
    if [ $rc -ne 0 ] || [ ! -s "$db" ]; then
        printf '%9s %5s %6s  boot failed (exit %s): %s\n' "$target" "$tasks" "$period" $rc \
            "$(tail -1 "$T/$target.err")"
        continue
    fi
    pf=$(($(port_full "$out" 2) - $(port_full "$out" 1)))
    row=$(sqlite3 -separator ' ' "$db" "
        WITH w AS (SELECT (SELECT max(ts) FROM mark WHERE name = 'load') AS a,
                          (SELECT max(ts) FROM mark WHERE name = 'done') AS b),
        n AS (SELECT (SELECT count(*) FROM eevdf_pick, w WHERE ts BETWEEN a AND b)
                   + (SELECT count(*) FROM eevdf_place, w WHERE ts BETWEEN a AND b)
                   + (SELECT count(*) FROM eevdf_leave, w WHERE ts BETWEEN a AND b)
                   + (SELECT count(*) FROM sched_tick, w WHERE ts BETWEEN a AND b)
                   + (SELECT count(*) FROM wakeup, w WHERE ts_wake BETWEEN a AND b) AS stored),
        s AS (SELECT coalesce(sum(value) FILTER (WHERE name = 'records_dropped'), 0) AS dropped,
                     coalesce(sum(value) FILTER (WHERE name = 'packets_lost'), 0) AS lost,
                     coalesce(sum(value) FILTER (WHERE name IN ('crc_errors', 'bytes_skipped', 'resyncs',
                                                               'bytes_truncated')), 0) AS other
              FROM stats WHERE severity = 'data_loss' AND idx IS NULL)
        SELECT stored, b - a, dropped, lost, other,
               (SELECT records FROM trace ORDER BY trace_id DESC LIMIT 1),
               (SELECT status FROM trace ORDER BY trace_id DESC LIMIT 1),
               (SELECT group_concat(d, '/') FROM (SELECT c.cpu, coalesce((SELECT value FROM stats
                    WHERE name = 'records_dropped' AND idx = c.cpu), 0) AS d FROM cpu c ORDER BY c.cpu))
        FROM n, w, s")
    read -r stored win dropped lost other records status bycpu <<<"$row"
    if [ -z "$win" ] || [ "$win" -le 0 ] 2>/dev/null; then
        printf '%9s %5s %6s  no load window in the trace (marks missing?)\n' "$target" "$tasks" "$period"
        continue
    fi
    line=$(awk -v t="$target" -v k="$tasks" -v p="$period" -v st="$stored" -v w="$win" -v d="$dropped" \
        -v l="$lost" -v o="$other" -v pf="$pf" -v rns="$rns" -v recs="$records" -v r0="${r0:-0}" \
        -v r1="${r1:-0}" -v status="$status" -v bc="$bycpu" 'BEGIN {
        ach = st / (w / 1e9); off = (st + d) / (w / 1e9)
        us = recs > 0 ? rns / 1e3 / recs : 0
        life = r1 - r0; cpu = life > 0 ? 100 * rns / life : 0
        v = (d + l + o == 0 && status == "complete") ? "zero" : "LOSS"
        printf "%9d %5d %6d %8d %10.0f %10.0f %8d %9d %6d %9d %7.2f %6.0f%%  %-9s %s|%s %.0f %.0f\n",
            t, k, p, st, ach, off, d, l, o, pf, us, cpu, v == "zero" ? "zero loss" : "LOSS", bc, v, ach, off
    }')
    printf '%s\n' "${line%|*}"
    read -r verdict ach off <<<"${line##*|}"
    if [ "$verdict" != zero ]; then
        [ -n "$first_loss" ] || first_loss=$off
    elif [ -z "$first_loss" ] && [ "$ach" -gt "$best" ]; then
        best=$ach
    fi
done <<<"$LADDER"
echo "highest rate with zero loss: $best events/s"
if [ -n "$first_loss" ]; then
    echo "loss begins at: $first_loss events/s"
else
    echo "no loss up to $best events/s"
fi
