#!/usr/bin/env bash
# Linux's own EEVDF state, recorded by the BPF recorder (issue 31,
# docs/sql.md "Traces from Linux"), on this host's real kernel:
#   - seed 000's crowded CPU (8 hogs and the probe on CPU 1, 2 s): at least
#     95 % of the scenario threads' picks carry V, lag and deadline, and the
#     recorder's own check (the tree's weights add up to the kernel's sums)
#     never failed;
#   - what Linux did obeys EEVDF's rules, read from the recorded state: the
#     task picked was eligible, or the queue's only one; at every snapshot
#     Σ weight·lag is 0 within V's rounding (less than Σ weight);
#   - the trace names the host's rules (feature_names, with
#     LAG_CLAMP_MAX_SLICE when the kernel's BTF has sched_entity.max_slice);
#   - forced off (RUNQ_NO_BPF=1): the run completes from tracefs alone, says
#     why in one line, and stores no EEVDF number and no snapshot;
#   - nothing stays attached: the programs a run loaded are gone after
#     SIGINT and after kill -9.
# Correctness only; Linux's timing is real time (docs/testing.md).
# Usage: tests/engine/linux_internals_test.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

linux_bpf_ready linux_internals || exit 0
# The feature mask is in debugfs; mount it if it is not (as the docs say).
[ -r /sys/kernel/debug/sched/debug ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

sed -e 's/^run 10s/run 2s/' -e '/^vary/d' scenarios/short-slice-host.scn >"$T/crowd.scn"

# Its own session, so its own autogroup: a process in init's session is
# in the root group (one level), as CI's runner once was; the group
# check below needs the level above to exist.
setsid -w "$RUNQ" run --engine linux --db "$T/l.db" "$T/crowd.scn" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ]; then
    failed recorded "exit $rc: $(head -c 400 "$T/err")"
    echo "$fail" >/dev/null
    exit 1
fi
stat() { sq "$T/l.db" "SELECT COALESCE((SELECT value FROM stats WHERE name = '$1'), 0)"; }
# Picks of the scenario's threads (not idle, not "other").
scen="(SELECT utid FROM thread WHERE name LIKE 'hog%' OR name = 'probe')"
got=$(sq "$T/l.db" "SELECT COUNT(*) || ' ' || SUM(v IS NOT NULL AND lag IS NOT NULL AND deadline IS NOT NULL)
                    FROM eevdf_pick WHERE next_utid IN $scen")
n=${got% *} k=${got#* }
if grep -q "internals not recorded" "$T/err"; then
    failed internals_cover_picks "the run says: $(grep "internals not recorded" "$T/err")"
elif [ "$n" -gt 100 ] && [ $((k * 100)) -ge $((n * 95)) ]; then
    pass "internals_cover_picks ($k of $n picks with V, lag and deadline)"
else
    failed internals_cover_picks "$k of $n picks carry V, lag and deadline (want >= 95 %)"
fi
dis=$(stat bpf_sums_disagree)
samples=$(stat bpf_samples)
if [ "$dis" = 0 ] && [ "$samples" -gt 0 ]; then
    pass "recorded_queue_adds_up ($samples samples, none whose tree misses the kernel's sums)"
else
    failed recorded_queue_adds_up "bpf_sums_disagree $dis of $samples samples"
fi

# The pick was eligible (by the recorded sums) or alone on its queue.
bad=$(sq "$T/l.db" "SELECT COUNT(*) FROM eevdf_pick WHERE v IS NOT NULL AND lag < 0 AND nr_runnable > 1")
all=$(sq "$T/l.db" "SELECT COUNT(*) FROM eevdf_pick WHERE v IS NOT NULL")
if [ "$bad" = 0 ] && [ "$all" -gt 0 ]; then
    pass "picked_was_eligible ($all picks)"
else
    failed picked_was_eligible "$bad of $all picks took a task with negative lag from a queue of several"
fi
# Σ weight·lag over a queue is V's definition: 0 but for V's rounding down.
got=$(sq "$T/l.db" "SELECT COUNT(*) || ' ' || SUM(ABS(s) >= w) FROM
                    (SELECT SUM(weight * lag) s, SUM(weight) w FROM queue_snapshot
                     WHERE v IS NOT NULL GROUP BY ts, cpu
                     HAVING SUM(utid IN (SELECT utid FROM thread WHERE name = 'other')) = 0)")
n=${got% *} k=${got#* }
if [ "$n" -gt 100 ] && [ "$k" = 0 ]; then
    pass "snapshot_lag_sums_to_zero ($n snapshots)"
else
    failed snapshot_lag_sums_to_zero "$k of $n snapshots have |sum weight*lag| >= sum weight"
fi
# Current's state at each wakeup, as Linux left it after its check: a
# current that is protected has not reached its vprot; the answer itself
# is unknown, never "none". Current is the wakee's queue's: at a wakeup on
# a CPU where another scenario thread ran (its sched_slice spans the
# wakeup) it is that thread, with its vruntime, deadline and vprot; where
# another program or idle ran, the scenario's queue has none. Judged on
# the first kind only, so another lane's load (which runs 'other' there:
# 707 of 800 wakeups had a current beside three QEMU lanes, 1,085 of 1,108
# quiet, each exactly the slices' thread) moves no bound. The wakee's
# CPU's current is read from the waker's CPU without its lock while it
# runs on: now and then (1 of 1,040 wakeups in one clean-clone run) its
# vruntime moves between the BPF program's reads, or a switch falls
# between the sample and the tracefs event, so up to 1 % may disagree;
# with vprot not written at all, 365 of 1,124 did.
got=$(sq "$T/l.db" "SELECT COUNT(*) || ' ' || SUM(s.utid IS NOT NULL) || ' ' ||
                    SUM(s.utid IS NOT NULL AND p.curr_utid IS s.utid AND p.curr_vprot IS NOT NULL
                        AND p.curr_vruntime IS NOT NULL AND p.curr_deadline IS NOT NULL) || ' ' ||
                    COUNT(p.curr_vprot) || ' ' || SUM(p.curr_protected = (p.curr_vruntime < p.curr_vprot)) || ' ' ||
                    SUM(p.wake_check = 'unknown')
                    FROM eevdf_place p LEFT JOIN sched_slice s
                      ON s.trace_id = p.trace_id AND s.cpu = p.cpu AND s.ts < p.ts AND s.ts + s.dur > p.ts
                     AND s.utid != p.utid
                     AND s.utid IN (SELECT utid FROM thread WHERE is_idle = 0 AND name != 'other')
                    WHERE p.v IS NOT NULL AND p.reason = 'wake'")
set -- $got
if [ "${2:-0}" -gt 100 ] && [ $((($2 - $3) * 100)) -le "$2" ] && [ $((($4 - $5) * 100)) -le "$4" ] &&
    [ "$6" = "$1" ]; then
    pass "wakeup_state_recorded ($3 of $2 wakeups beside a running scenario thread with its vruntime, deadline and vprot, of $1; check unknown)"
else
    failed wakeup_state_recorded "wakeups/beside a scenario thread/its state recorded/with vprot/protected consistent/unknown: $got"
fi
# The lag a wakee brings (lag_before): read at sched_waking only for a task
# still queued (delayed); one that left its queue brings the vlag its
# dequeue kept, read at sched_wakeup. Either way it is known at nearly
# every wakeup, and for one whose last leave was a block it is the lag
# that leave recorded (a delayed one's V moved on: the few others).
got=$(sq "$T/l.db" "SELECT COUNT(*) || ' ' || SUM(lag_before IS NOT NULL) || ' ' ||
                    COALESCE(SUM(lag_before = (SELECT l.lag FROM eevdf_leave l WHERE l.utid = p.utid AND l.ts < p.ts
                                               ORDER BY l.ts DESC LIMIT 1)), 0)
                    FROM eevdf_place p WHERE reason = 'wake' AND utid IN $scen")
set -- $got
if [ "${1:-0}" -gt 100 ] && [ $(($2 * 100)) -ge $(($1 * 95)) ] && [ $(($3 * 100)) -ge $(($1 * 90)) ]; then
    pass "wake_brings_its_leave_lag ($2 of $1 wakeups with the lag brought, $3 equal to their last leave's)"
else
    failed wake_brings_its_leave_lag "wakeups/with lag_before/equal to the leave's: $got"
fi
# The queue the snapshot shows is the one the pick counted.
bad=$(sq "$T/l.db" "SELECT COUNT(*) FROM eevdf_pick p WHERE v IS NOT NULL AND nr_runnable <
                    (SELECT COUNT(*) FROM queue_snapshot q WHERE q.ts = p.ts AND q.cpu = p.cpu)")
if [ "$bad" = 0 ]; then pass snapshot_is_the_picks_queue; else failed snapshot_is_the_picks_queue "$bad picks"; fi

# The level above (autogroup): one row a pick with internals in the
# measured window (an exiting thread leaves its autogroup for the root
# group: its last picks have no level above), the group's entity current
# in the root queue at its own thread's pick, its slice the smallest of
# its queue's (the hogs' and the probe's: 1.4 ms here).
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
    got=$(sq "$T/l.db" "SELECT COUNT(*) || ' ' || SUM(is_current) || ' ' || SUM(weight BETWEEN 2 AND 1024) || ' ' ||
                        SUM(slice_ns = (SELECT MIN(slice_ns) FROM queue_snapshot q WHERE q.ts = g.ts AND q.cpu = g.cpu))
                        FROM linux_group g WHERE ts <= (SELECT ts FROM mark WHERE name = 'end')")
    set -- $got
    picks=$(sq "$T/l.db" "SELECT COUNT(*) FROM eevdf_pick WHERE v IS NOT NULL
                          AND ts <= (SELECT ts FROM mark WHERE name = 'end')")
    if [ "$1" = "$picks" ] && [ "$2" = "$1" ] && [ "$3" = "$1" ] && [ "$4" = "$1" ]; then
        pass "group_level_recorded ($1 picks: the session's group current at the root, its slice its queue's smallest)"
    else
        failed group_level_recorded "rows/current/weight ok/slice ok: $got, picks with internals $picks"
    fi
else
    echo "SKIP group_level_recorded: autogroup is off here (one level)"
fi

# runq step at a pick of the Linux trace: the queue with V, lag, deadline
# and eligibility, and the pick explained from them, as for runq's kernel.
printf 'c 1\nb +500ms\n/ -> hog\nq\n' | "$RUNQ" step --db "$T/l.db" --plain 1 >"$T/step" 2>&1
last=$(awk '/^--- \/ -> hog$/ { n = NR } END { print n + 0 }' "$T/step")
tail -n +"$last" "$T/step" >"$T/stepat"
if grep -q "^cpu1  V=[0-9]" "$T/stepat" && grep -Eq "^ *\* (hog|probe)[0-9]*/[0-9]+ +run +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[-+][0-9]+\.[0-9]+ +yes" "$T/stepat" &&
    grep -q "won: " "$T/stepat" && ! grep -q "not recorded" "$T/stepat"; then
    pass "step_shows_linux_queue (V, vruntime, deadline, lag, eligibility at a pick, and why it won)"
else
    failed step_shows_linux_queue "$(head -c 600 "$T/stepat")"
fi

names=$(sq "$T/l.db" "SELECT feature_names FROM trace")
if ! grep -q 'max_slice' <(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -A40 "STRUCT 'sched_entity'"); then
    want=PLACE_LAG
else
    want=LAG_CLAMP_MAX_SLICE
fi
case ",$names," in
*",$want,"*) pass "feature_names_name_the_host_rules ($want among $(echo "$names" | tr ',' '\n' | wc -l))" ;;
*) failed feature_names_name_the_host_rules "no $want in '$names'" ;;
esac
if grep -q "linux's rules: LAG_CLAMP_MAX_SLICE" "$T/err"; then
    pass rules_printed_once_per_experiment
else
    failed rules_printed_once_per_experiment "stderr: $(head -c 300 "$T/err")"
fi

# runq's kernel and sim take the host's rules beside Linux: a sched debug
# file like the host's with HRTICK on (RUNQ_SCHED_DEBUG, as the host's
# features cannot be changed here) makes the sim run's scenario say
# HRTICK on, the Linux run's not, and the experiment says what it set.
if [ -r /sys/kernel/debug/sched/debug ]; then
    bit=$(echo "$names" | tr ',' '\n' | grep -n '^HRTICK$' | cut -d: -f1)
    mask=$(awk '/\.sysctl_sched_features/ { print $3 }' /sys/kernel/debug/sched/debug)
    printf '  .sysctl_sched_features                   : %s\n' $((mask | (1 << (bit - 1)))) >"$T/debug"
    sed -e 's/^run 10s/run 300ms/' -e '/^vary/d' scenarios/short-slice-host.scn >"$T/tiny.scn"
    RUNQ_SCHED_DEBUG="$T/debug" "$RUNQ" experiment --engine linux,sim --db "$T/ad.db" "$T/tiny.scn" >/dev/null 2>"$T/aerr"
    got=$(sq "$T/ad.db" "SELECT group_concat(engine || ':' || (instr(text, 'feature HRTICK on') > 0), ' ')
                         FROM (SELECT engine, text FROM scenario ORDER BY engine)")
    if [ "$got" = "linux:0 sim:1" ] && grep -q "kernel and sim take the host's rules: HRTICK on" "$T/aerr"; then
        pass "kernel_and_sim_take_the_host_rules (HRTICK on in the sim run only, said once)"
    else
        failed kernel_and_sim_take_the_host_rules "runs: '$got'; $(grep "host's rules" "$T/aerr" | head -c 300)"
    fi
else
    echo "SKIP kernel_and_sim_take_the_host_rules: /sys/kernel/debug/sched/debug cannot be read"
fi

# Forced off: tracefs alone, one line why, nothing made up.
RUNQ_NO_BPF=1 "$RUNQ" run --engine linux --db "$T/n.db" "$T/crowd.scn" >"$T/nout" 2>"$T/nerr"
rc=$?
lines=$(grep -c "EEVDF internals not recorded (tracefs only): RUNQ_NO_BPF" "$T/nerr")
got=$(sq "$T/n.db" "SELECT (SELECT COUNT(*) FROM eevdf_pick) || ' ' || (SELECT COUNT(v) FROM eevdf_pick) || ' ' ||
                    (SELECT COUNT(*) FROM queue_snapshot) || ' ' || (SELECT COUNT(v) FROM eevdf_place) || ' ' ||
                    (SELECT COUNT(cost_ns) FROM eevdf_pick)" 2>&1)
if [ $rc = 0 ] && [ "$lines" = 1 ] && [ "${got#* }" = "0 0 0 0" ] && [ "${got%% *}" -gt 100 ]; then
    pass "fallback_is_tracefs_and_says_why (${got%% *} picks, no EEVDF number)"
else
    failed fallback_is_tracefs_and_says_why "exit $rc, $lines lines saying why, picks/v/snapshots/place v/cost: $got"
fi

# runq record --linux: any program, by its name; and runq top --linux.
cp "$(command -v yes)" "$T/rqspin"
taskset -c 1 "$T/rqspin" >/dev/null &
spin1=$!
taskset -c 1 "$T/rqspin" >/dev/null &
spin2=$!
for i in $(seq 50); do [ "$(pgrep -xc rqspin)" -ge 2 ] && break; sleep 0.1; done
# Up to three recordings of 1 s: another test lane's RT spinner on CPU 1
# (hostile_exp, linux_engine) leaves the two fair spinners RT throttling's
# 5 %, and a clean clone's make test once saw 2 picks in the second.
for attempt in 1 2 3; do
    rm -f "$T/rec.db"*
    "$RUNQ" record --linux --cpus 1 --comm rqspin --duration 1s --db "$T/rec.db" >"$T/rout" 2>"$T/rerr"
    rc=$?
    got=$(sq "$T/rec.db" "SELECT COUNT(DISTINCT t.tid) || ' ' || COUNT(*) || ' ' || COUNT(p.v) FROM eevdf_pick p
                          JOIN thread t ON t.utid = p.next_utid WHERE t.name = 'rqspin' AND p.cpu = 1" 2>&1)
    set -- $got
    [ "$rc" = 0 ] && [ "${2:-0}" -ge 4 ] && break
done
# A pick whose switch sample was not matched within 10 us has no V: 1 of
# 281 in a clean-clone run, 3 of 251 beside three test lanes, 7 of 255
# beside four compiling helpers (why
# load widens the gap between sample and event is not measured). Each is
# counted, never silent: the picks without V are exactly
# the recorder's linux_picks_bare; and at most one in ten, which a
# matcher that lost its samples (all of them bare) would break.
bare=$(sq "$T/rec.db" "SELECT value FROM stats WHERE name = 'linux_picks_bare'" 2>/dev/null)
if [ $rc = 0 ] && [ "$(cat "$T/rout")" = 1 ] && [ "${1:-0}" = 2 ] && [ "${2:-0}" -ge 4 ] &&
    [ "${bare:-x}" = $((${2:-0} - ${3:-0})) ] && [ $(((${2:-0} - ${3:-0}) * 10)) -le "${2:-0}" ]; then
    pass "record_linux_names_a_program (2 threads rqspin, $2 picks, $3 with V, lag and deadline, the $bare without counted)"
else
    failed record_linux_names_a_program "exit $rc, stdout $(cat "$T/rout"), tids/picks/with V: $got, counted bare: ${bare:-?}; $(head -c 300 "$T/rerr")"
fi
# Each frame shows the queue of whoever ran last on CPU 1; another
# program's (another session's group) may come between, so of ten frames
# one with both spinners is asked for, and a running row.
"$RUNQ" top --linux --cpus 1 --delay 2 --frames 10 >"$T/top" 2>"$T/terr"
rc=$?
rows=$(awk '/^runq top --linux/ { if (n > best) best = n; n = 0 } /rqspin/ { n++ } END { if (n > best) best = n; print best + 0 }' "$T/top")
if [ $rc = 0 ] && [ "$rows" = 2 ] && grep -q "^CPU 1  V [0-9]" "$T/top" && grep -Eq '^ +[0-9]+ [^ ]+ +\* ' "$T/top"; then
    pass "top_linux_shows_the_queue (both rqspin threads, one running, V of CPU 1)"
else
    failed top_linux_shows_the_queue "exit $rc, $rows rqspin rows: $(head -c 400 "$T/top") $(head -c 200 "$T/terr")"
fi
"$RUNQ" top --linux --cpus 1 --delay 5 --frames 2 --record "$T/top.db" >/dev/null 2>"$T/terr"
rc=$?
got=$(sq "$T/top.db" "SELECT COUNT(v) FROM eevdf_pick WHERE cpu = 1" 2>&1)
if [ $rc = 0 ] && [ "${got:-0}" -ge 4 ] 2>/dev/null; then
    pass "top_linux_records_when_asked ($got picks with V into --record's file)"
else
    failed top_linux_records_when_asked "exit $rc, picks with V: $got; $(head -c 300 "$T/terr")"
fi
kill "$spin1" "$spin2" 2>/dev/null
wait "$spin1" "$spin2" 2>/dev/null
# Without the permission: one clear line, nothing recorded.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
    chmod 755 "$T"
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$RUNQ" record --linux --duration 1s --db "$T/no.db" \
        >/dev/null 2>"$T/perr"
    rc=$?
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$RUNQ" top --linux --frames 1 >/dev/null 2>"$T/perr2"
    rc2=$?
    if [ $rc = 1 ] && [ $rc2 = 1 ] && [ "$(wc -l <"$T/perr")" = 1 ] && grep -q root "$T/perr" &&
        grep -q "root" "$T/perr2" && ! [ -s "$T/no.db" ]; then
        pass "not_root_is_refused_clearly ($(head -c 120 "$T/perr2"))"
    else
        failed not_root_is_refused_clearly "exits $rc/$rc2: $(head -c 300 "$T/perr") / $(head -c 300 "$T/perr2")"
    fi
else
    echo "SKIP not_root_is_refused_clearly: no user nobody or no setpriv"
fi
expect record_linux_bad_cpus 2 "--cpus takes a CPU list" record --linux --cpus 99 --db "$T/x.db"
expect record_linux_pid_and_comm 2 "not both" record --linux --pid 1 --comm x --db "$T/x.db"
expect record_linux_no_such_pid 1 "no process" record --linux --pid 4000000 --duration 1s --db "$T/x.db"

# Nothing stays attached: the program ids a run's processes hold (their
# fdinfo) are gone once the run is stopped.
sed -e 's/^run 10s/run 30s/' -e '/^vary/d' scenarios/short-slice-host.scn >"$T/long.scn"
held_ids() { # the BPF program ids open in the process group $1
    local p
    for p in $(pgrep -g "$1"); do
        grep -h '^prog_id:' /proc/"$p"/fdinfo/* 2>/dev/null | awk '{print $2}'
    done | sort -u
}
detach_check() { # NAME SIGNAL
    local name=$1 sig=$2 pg ids i left
    setsid "$RUNQ" run --engine linux --db "$T/$name.db" "$T/long.scn" >/dev/null 2>&1 &
    pg=$!
    disown "$pg"
    ids=""
    for i in $(seq 100); do
        ids=$(held_ids "$pg")
        [ "$(echo "$ids" | grep -c .)" -ge 4 ] && break
        sleep 0.1
    done
    if [ -z "$ids" ]; then
        failed "$name" "the run never held its programs"
        kill -KILL -- "-$pg" 2>/dev/null
        return
    fi
    sleep 0.5
    kill -"$sig" -- "-$pg" 2>/dev/null
    for i in $(seq 100); do pgrep -g "$pg" >/dev/null || break; sleep 0.1; done
    left=""
    for i in $ids; do bpftool prog show id "$i" >/dev/null 2>&1 && left="$left $i"; done
    if [ -z "$left" ] && ! pgrep -g "$pg" >/dev/null; then
        pass "$name ($(echo "$ids" | grep -c .) programs loaded, none left)"
    else
        failed "$name" "programs still loaded:$left; processes left: $(pgrep -g "$pg" | tr '\n' ' ')"
        kill -KILL -- "-$pg" 2>/dev/null
    fi
}
detach_check nothing_attached_after_sigint INT
detach_check nothing_attached_after_kill_9 KILL

# A move between CPUs (sched_migrate_task): the LEAVE `migrate` of a
# queued thread carries its vruntime and lag as it left the source queue,
# and that vruntime is the one it had when last seen queued there (a
# snapshot, or its placement): queued, it did not run. Three hogs and two
# nappers on both CPUs, so that an idle CPU pulls a queued hog.
cat >"$T/mig.scn" <<'SCN'
policy eevdf
cpus 2
hz 250
quantum 100us
run 2s
task hog*3 cpu=0-1
task napper*2 cpu=0-1 pattern=run:500us,every:2ms
measure hog share
SCN
setsid -w "$RUNQ" run --engine linux --db "$T/mig.db" "$T/mig.scn" >/dev/null 2>"$T/migerr"
# The vruntime last seen is a floor, not always the value: a queued
# thread may run between its last sample and the move when the pick that
# ran it was not sampled (another program's task took the CPU between),
# and vruntime only grows on one queue. On a quiet host all are equal
# (6 of 7, 13 of 13); beside three test lanes of QEMU 15 of 19.
got=$(sq "$T/mig.db" "WITH m AS (SELECT l.lag, l.vruntime, (SELECT vr FROM
                          (SELECT ts, vruntime vr FROM queue_snapshot q WHERE q.utid = l.utid AND q.cpu = l.cpu AND q.ts < l.ts
                           UNION ALL
                           SELECT ts, vruntime FROM eevdf_place p WHERE p.utid = l.utid AND p.cpu = l.cpu AND p.ts < l.ts)
                          ORDER BY ts DESC LIMIT 1) AS seen
                      FROM eevdf_leave l WHERE reason = 'migrate')
                      SELECT COUNT(*) || ' ' || COALESCE(SUM(lag IS NOT NULL AND vruntime IS NOT NULL), 0) || ' ' ||
                      COALESCE(SUM(vruntime = seen), 0) || ' ' || COALESCE(SUM(vruntime < seen), 0) FROM m")
set -- $got
if [ "${1:-0}" = 0 ]; then
    echo "SKIP migration_leaves_carry_numbers: Linux moved no queued thread in 2 s ($(head -c 200 "$T/migerr"))"
elif [ $(($2 * 10)) -ge $(($1 * 8)) ] && [ "$4" = 0 ] && [ $(($3 * 2)) -ge "$1" ]; then
    # Under load a move's BPF sample can miss the 10 us match (a helper's
    # five runs beside QEMU lanes: 4 of 6, 15 of 16): it keeps NULLs, shown
    # as missing; four in five must carry numbers.
    pass "migration_leaves_carry_numbers ($1 moves of a queued thread, $2 with vruntime and lag, $3 with the vruntime it was queued with, none below it)"
else
    failed migration_leaves_carry_numbers "moves/with numbers/vruntime as queued/below it: $got"
fi

# The recorder against itself in one run (make bench's A/B, RUNQ_BPF_ALTERNATE_MS):
# detached, it records nothing (picks bare), attached again it records
# again (picks with V), and each state's figures are printed.
sed -e 's/^run 10s/run 1s/' -e '/^vary/d' scenarios/short-slice-host.scn >"$T/ab.scn"
RUNQ_BPF_ALTERNATE_MS=100 setsid -w "$RUNQ" run --engine linux --db "$T/ab.db" "$T/ab.scn" >/dev/null 2>"$T/aberr"
got=$(sq "$T/ab.db" "SELECT SUM(v IS NOT NULL) || ' ' || SUM(v IS NULL) FROM eevdf_pick
                     WHERE next_utid IN (SELECT utid FROM thread WHERE name LIKE 'hog%' OR name = 'probe')")
set -- $got
line=$(grep -c "recorder A/B: probe wake p50 [0-9]* ns with, [0-9]* ns without" "$T/aberr")
if [ "${1:-0}" -gt 50 ] && [ "${2:-0}" -gt 50 ] && [ "$line" = 1 ] &&
    grep -q "recorder A/B: hog iterations" "$T/aberr"; then
    pass "alternation_detaches ($1 picks with internals, $2 without, in one run; both states' figures printed)"
else
    failed alternation_detaches "picks with/without internals: $got; A/B lines: $(grep -c "A/B" "$T/aberr"): $(head -c 300 "$T/aberr")"
fi
exit $fail
