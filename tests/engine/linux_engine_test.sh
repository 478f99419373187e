#!/usr/bin/env bash
# The Linux engine end to end (issue 19, docs/experiments.md "The Linux
# engine"): runq experiment --engine linux and runq run --engine linux on
# the host's real Linux, recorded from tracefs into the same database.
#   - what this Linux cannot run is refused with the line (rr, a feature
#     switch, another tick rate, more CPUs than the host has, a knob);
#   - a pipe ping-pong pair recorded: the trace says engine linux and the
#     host's release; its slices never overlap on a CPU; every wakeup in
#     the window has its run; each thread's runtime from sched_slice is
#     within 5 % of what the runner measured on Linux's own clock; the
#     trace's voluntary switches agree with /proc's within 5 %;
#   - no tracing instance is left, also after a SIGINT mid-run (the run
#     stored as failed, interrupted, and what it recorded kept as an
#     incomplete trace);
#   - without root: a clear error that names the fix and --no-record,
#     which then runs unrecorded;
#   - runq report latency reads the Linux trace, runq top replays it;
#   - --engine kernel,linux,sim prints one table with a group each.
# Correctness only: Linux's numbers are real time on a shared machine, so
# nothing here bounds a latency (docs/testing.md).
# Usage: tests/engine/linux_engine_test.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. "$(dirname "$0")/../lib.sh"
chmod 755 "$T"
at_exit 'tmux_stop 2>/dev/null'

linux_recording_ready linux_engine || exit 0
ncpu=$(nproc)
last=$((ncpu - 1))
# Instances left behind by a dead recorder; a suite running beside this
# one records too, and its live instance is not this suite's to count.
instances() { stale_instances; }
before=$(instances)

# ---- refusals, with the line ----
while IFS='|' read -r name line want text; do
    [ -z "$name" ] && continue
    printf '%b\n' "$text" >"$T/$name.scn"
    runq experiment --engine linux --db "$T/r.db" "$T/$name.scn"
    if [ "$rc" = 2 ] && grep -qF -- "$name.scn:$line: " "$T/err" && grep -qF -- "$want" "$T/err" &&
        [ "$(wc -l <"$T/err")" = 1 ]; then
        pass "refuses_$name"
    else
        failed "refuses_$name" "exit $rc, want 2 with '$name.scn:$line: ...$want': $(head -c 300 "$T/err")"
    fi
done <<EOF
rr|1|round robin|policy rr\ncpus 1\ntask A
feature|2|/sys/kernel/debug/sched/features|cpus 1\nfeature RUN_TO_PARITY off\ntask A
hz|1|250|hz 100\ncpus 1\ntask A
cpus|1|the host has $ncpu|cpus 64\ntask A
knob|2|replace_on_release|cpus 1\nknob replace_on_release 1\ntask A
EOF
# Several engines: the refusal says which.
expect refusal_names_its_engine 2 "engine linux" experiment --engine sim,linux --db "$T/r.db" "$T/rr.scn"

# ---- a pipe ping-pong pair, recorded ----
cat >"$T/pp.scn" <<EOF
# A pair hands one byte back and forth on CPU $last.
cpus $ncpu
hz 250
run 1s
pipe ping
pipe pong
task main cpu=$last pattern=write:ping,read:pong
task echo*main cpu=$last pattern=read:ping,write:pong
measure main handoffs vcsw invol
measure echo vcsw
EOF
runq run --engine linux --db "$T/l.db" "$T/pp.scn"
if [ "$rc" = 0 ] && grep -q "main.handoffs" "$T/out"; then
    pass "pingpong_runs"
else
    failed "pingpong_runs" "exit $rc: $(head -c 400 "$T/err") $(head -c 300 "$T/out")"
fi
tr=$(sq "$T/l.db" "SELECT trace_id FROM scenario WHERE status = 'ok' ORDER BY scenario_id DESC LIMIT 1")
if [ -n "$tr" ] && [ "$(sq "$T/l.db" "SELECT engine || ' ' || engine_version || ' ' || status FROM trace WHERE trace_id = $tr")" = "linux $(uname -r) complete" ]; then
    pass "trace_says_linux"
else
    failed "trace_says_linux" "trace '$tr': $(sq "$T/l.db" "SELECT engine, engine_version, status FROM trace" | tr '\n' ' ')"
fi
tr=${tr:-0}
# The measured window: the runner's start and end marks.
w0=$(sq "$T/l.db" "SELECT ts FROM mark WHERE trace_id = $tr AND name = 'start'")
w1=$(sq "$T/l.db" "SELECT ts FROM mark WHERE trace_id = $tr AND name = 'end'")
if [ -n "$w0" ] && [ -n "$w1" ] && [ "$w1" -gt "$w0" ]; then
    pass "window_marked"
else
    failed "window_marked" "start '$w0' end '$w1'"
    w0=0 w1=0
fi
overlaps=$(sq "$T/l.db" "SELECT COUNT(*) FROM (SELECT ts, LAG(ts + dur) OVER (PARTITION BY cpu ORDER BY ts, id) AS prev_end
                          FROM sched_slice WHERE trace_id = $tr) WHERE ts < prev_end")
slices=$(sq "$T/l.db" "SELECT COUNT(*) FROM sched_slice s JOIN thread t USING (utid) WHERE s.trace_id = $tr AND t.name IN ('main', 'echo')")
if [ "$overlaps" = 0 ] && [ "${slices:-0}" -gt 1000 ]; then
    pass "slices_never_overlap ($slices slices of the pair)"
else
    failed "slices_never_overlap" "$overlaps overlaps in $slices slices of the pair"
fi
# A wakeup may lose its run to a gap: Linux now and then writes no
# sched_switch (its ring buffer's silent recursion guard; the recorder
# counts it in stats as linux_switches_unseen and marks a gap, never a
# stint made up). Such a wakeup must have a gap on its CPU after it, and
# they must be rare.
unrun=$(sq "$T/l.db" "SELECT COUNT(*) FROM wakeup w JOIN thread t USING (utid) WHERE w.trace_id = $tr
                       AND t.name IN ('main', 'echo') AND w.ts_wake BETWEEN $w0 AND $w1 - 1000000 AND w.ts_run IS NULL
                       AND NOT EXISTS (SELECT 1 FROM data_gap g WHERE g.trace_id = w.trace_id AND g.cpu = w.cpu
                                       AND g.ts_end >= w.ts_wake AND g.ts_start <= w.ts_wake + 50000000)")
cut=$(sq "$T/l.db" "SELECT COUNT(*) FROM wakeup w JOIN thread t USING (utid) WHERE w.trace_id = $tr
                     AND t.name IN ('main', 'echo') AND w.ts_wake BETWEEN $w0 AND $w1 - 1000000 AND w.ts_run IS NULL")
woken=$(sq "$T/l.db" "SELECT COUNT(*) FROM wakeup w JOIN thread t USING (utid) WHERE w.trace_id = $tr
                       AND t.name IN ('main', 'echo') AND w.ts_wake BETWEEN $w0 AND $w1")
if [ "$unrun" = 0 ] && [ "${woken:-0}" -gt 1000 ] && [ "$cut" -le $((woken / 1000 + 10)) ]; then
    pass "every_wakeup_runs ($woken wakeups, $cut cut by a gap)"
else
    failed "every_wakeup_runs" "$unrun of $woken wakeups in the window have no run and no gap after them; $cut without a run"
fi
# Runtime in the window from the trace against the runner's own reading
# (the thread's CPU clock), each thread within 5 %.
bad=$(sq "$T/l.db" "SELECT st.name || ' ' || COALESCE(SUM(MIN(s.ts + s.dur, $w1) - MAX(s.ts, $w0)), 0) || ' ' || st.runtime_ns
      FROM scenario sc JOIN scenario_task st USING (scenario_id)
      LEFT JOIN sched_slice s ON s.utid = st.utid AND s.ts < $w1 AND s.ts + s.dur > $w0
      WHERE sc.trace_id = $tr GROUP BY st.instance
      HAVING st.runtime_ns IS NULL OR ABS(COALESCE(SUM(MIN(s.ts + s.dur, $w1) - MAX(s.ts, $w0)), 0) - st.runtime_ns) > st.runtime_ns / 20")
if [ -z "$bad" ] && [ "$(sq "$T/l.db" "SELECT COUNT(utid) FROM scenario_task st JOIN scenario sc USING (scenario_id) WHERE sc.trace_id = $tr")" = 2 ]; then
    pass "runtime_matches_linux_clock"
else
    failed "runtime_matches_linux_clock" "name trace_ns linux_ns: $(echo "$bad" | tr '\n' ';')"
fi
# Voluntary switches: the trace's (slices that ended blocked, in the
# window) against /proc's voluntary_ctxt_switches over the same window.
bad=$(sq "$T/l.db" "SELECT st.name || ' ' || COUNT(s.id) || ' ' || st.vcsw
      FROM scenario sc JOIN scenario_task st USING (scenario_id)
      LEFT JOIN sched_slice s ON s.utid = st.utid AND s.ts + s.dur BETWEEN $w0 AND $w1 AND s.end_reason = 'block'
      WHERE sc.trace_id = $tr GROUP BY st.instance
      HAVING st.vcsw IS NULL OR st.vcsw < 100 OR ABS(COUNT(s.id) - st.vcsw) > st.vcsw / 20")
if [ -z "$bad" ]; then
    pass "voluntary_switches_match_proc"
else
    failed "voluntary_switches_match_proc" "name trace proc: $(echo "$bad" | tr '\n' ';')"
fi
if [ "$(instances)" = "$before" ]; then
    pass "instance_removed"
else
    failed "instance_removed" "$(ls "$TRACING/instances")"
fi

# The latency report reads a Linux trace as it reads runq's.
runq report latency --db "$T/l.db" --trace "$tr"
if [ "$rc" = 0 ] && grep -q "wake->run" "$T/out"; then
    pass "report_latency_on_linux"
else
    failed "report_latency_on_linux" "exit $rc: $(head -c 300 "$T/err")"
fi

# runq top replays the Linux recording: the pair's rows, and each CPU's
# idle and other tasks, on its screen.
if command -v tmux >/dev/null; then
    tmux_start
    S=top
    tmux new-session -d -s $S -x 160 -y 40 "$RUNQ top --db $T/l.db --trace $tr --speed 0.2; sleep 60"
    if wait_for " main " && on_screen " echo " && on_screen " other"; then
        pass "top_on_linux"
    else
        failed "top_on_linux" "$(screen | head -20 | tr -s ' ' | tr '\n' '|')"
    fi
    tmux_stop
else
    echo "SKIP top_on_linux: no tmux"
fi

# ---- SIGINT in the middle: the run fails as interrupted, nothing left ----
sed 's/^run 1s/run 30s/' "$T/pp.scn" >"$T/long.scn"
"$RUNQ" experiment --quiet --engine linux --db "$T/i.db" "$T/long.scn" >"$T/i.out" 2>"$T/i.err" &
pid=$!
eventually instance_of_child "$pid" >/dev/null
# two seconds of the pair's ping-pong recorded before the ^C (half a
# second kept fewer than the 1000 records checked below on a loaded host)
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
why=$(sq "$T/i.db" "SELECT status || ': ' || error FROM scenario")
kept=$(sq "$T/i.db" "SELECT t.status || ' ' || t.end_reason || ' ' || (t.records > 1000) FROM scenario s JOIN trace t USING (trace_id)")
if [ "$rc" = 130 ] && [ "$(instances)" = "$before" ] && [[ "$why" == "failed: interrupted"* ]] &&
    [ "$kept" = "incomplete interrupted 1" ]; then
    pass "sigint_removes_the_instance"
else
    failed "sigint_removes_the_instance" "exit $rc, instances $(instances) (before $before), run '$why', its trace '$kept': $(head -c 300 "$T/i.err")"
fi

# ---- not root: say what is missing, and --no-record ----
if command -v setpriv >/dev/null; then
    nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    mkdir "$T/nobody" && chmod 777 "$T/nobody" && cp "$T/pp.scn" "$T/nobody/nr.scn" && chmod 644 "$T/nobody/nr.scn"
    nobody "$RUNQ" run --engine linux --db "$T/nobody/nr.db" "$T/nobody/nr.scn" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q "root" "$T/err" && grep -q -- "--no-record" "$T/err"; then
        pass "not_root_is_told_the_fix"
    else
        failed "not_root_is_told_the_fix" "exit $rc: $(head -c 300 "$T/err")"
    fi
    nobody "$RUNQ" run --engine linux --no-record --db "$T/nobody/nr2.db" "$T/nobody/nr.scn" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = 0 ] && [ "$(sq "$T/nobody/nr2.db" "SELECT status || ' ' || COALESCE(trace_id, 'none') FROM scenario")" = "ok none" ]; then
        pass "no_record_runs_unrecorded"
    else
        failed "no_record_runs_unrecorded" "exit $rc: $(head -c 300 "$T/err")"
    fi
else
    echo "SKIP not_root: no setpriv to drop root"
fi

# ---- one table, a column group per engine ----
cat >"$T/three.scn" <<EOF
cpus $ncpu
hz 250
quantum 10us
run 300ms
task hog cpu=$last
task probe cpu=$last pattern=run:100us,every:2ms
measure probe share wakeups
measure hog share
EOF
runq experiment --engine kernel,linux,sim --db "$T/three.db" "$T/three.scn"
engines=$(sq "$T/three.db" "SELECT GROUP_CONCAT(engine || ':' || status, ' ') FROM (SELECT engine, status FROM scenario ORDER BY scenario_id)")
if [ "$rc" = 0 ] && [ "$engines" = "kernel:ok linux:ok sim:ok" ] && sed -n 2p "$T/out" | grep -qE '^ +kernel +.* linux +.* sim *$'; then
    pass "three_engines_one_table"
else
    failed "three_engines_one_table" "exit $rc, runs '$engines': $(head -c 500 "$T/out") $(head -c 300 "$T/err")"
fi
# The two tasks' shares fill one CPU on paper and in runq's kernel (nothing
# else runs there); on Linux they get what the host leaves them, never
# more than the CPU, and both got some (a load-independent check: this
# suite runs beside others).
shares=$(sq "$T/three.db" "SELECT sc.engine || ' ' || ROUND(SUM(m.value), 3) || ' ' || MIN(m.value > 0) FROM scenario sc
          JOIN scenario_metric m USING (scenario_id) WHERE m.metric = 'share' GROUP BY sc.engine ORDER BY sc.engine")
if [ "$(echo "$shares" | awk '($1 == "linux" && $2 <= 1.01 && $3 == 1) || ($1 != "linux" && $2 >= 0.9 && $2 <= 1.01 && $3 == 1)' | wc -l)" = 3 ]; then
    pass "three_engines_share_the_cpu ($(echo "$shares" | tr '\n' ' '))"
else
    failed "three_engines_share_the_cpu" "$(echo "$shares" | tr '\n' ' ')"
fi

exit $fail
