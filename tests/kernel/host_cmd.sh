#!/usr/bin/env bash
# The host's control lines (trace/control.h) against the kernel, in
# deterministic runs: `runq boot --control FILE` hands FILE's lines to the
# kernel on the trace port at boot, as the recorder relays runq top's in a
# live run, so every bound here is in guest time (the guest's own sleeps
# and spins), none in the host's.
set -u
RUNQ=${1:-build/runq}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
q() { "$RUNQ" sql --db "$1" --csv "$2" | tail -n +2; }

# hostrun NAME BOOT_ARGS...: boots with the lines in $T/NAME.lines,
# recording into $T/NAME.db; leaves $rc and the console and stderr in
# $T/NAME.out.
hostrun() {
    local name=$1
    shift
    "$RUNQ" boot --deterministic --record "$T/$name.db" --control "$T/$name.lines" "$@" >"$T/$name.out" 2>&1
    rc=$?
}
# status NAME: the recorded trace's "status end_reason"
status() { q "$T/$1.db" "SELECT status || ' ' || end_reason FROM trace"; }
# QEMU's main loop hands the lines to the guest when it gets to them, in
# host time, while an idle guest's clock jumps from timer to timer: a
# guest that only slept 300 ms powered off before they came, once, under
# a loaded make test. A spinner keeps the guest's clock to the
# instructions it runs while the lines arrive.
BUSY=(--cmd "spin busy 2000 1" --cmd "sleep 2000")

# The lines reach the kernel: a host mark comes back in the trace.
printf 'mark from-the-host\n' >"$T/lines.lines"
hostrun lines "${BUSY[@]}"
m=$(q "$T/lines.db" "SELECT source || ':' || name FROM mark")
[ "$rc" = 0 ] && [ "$m" = "host:from-the-host" ] && pass control_file_lines_reach_the_kernel ||
    fail control_file_lines_reach_the_kernel "exit $rc, marks '$m': $(tail -3 "$T/lines.out")"

# A NUL inside a line: the line is refused whole (the kernel read it as a
# C string and ran "mark a"), the next line still runs (issue 30, F17).
printf 'mark a\0b\nmark after-nul\n' >"$T/nul.lines"
hostrun nul "${BUSY[@]}"
m=$(q "$T/nul.db" "SELECT source || ':' || name FROM mark ORDER BY ts" | tr '\n' '|')
[ "$rc" = 0 ] && [ "$m" = "kernel:error: not printable: mark a?b|host:after-nul|" ] &&
    pass control_line_with_nul_refused_whole ||
    fail control_line_with_nul_refused_whole "exit $rc, marks '$m': $(tail -3 "$T/nul.out")"

"$RUNQ" boot --control "$T/lines.lines" --cmd "sleep 1" >/dev/null 2>"$T/usage.err"
rc=$?
[ "$rc" = 2 ] && grep -q -- '--control needs --deterministic and --record' "$T/usage.err" &&
    pass control_file_needs_a_deterministic_recording ||
    fail control_file_needs_a_deterministic_recording "exit $rc: $(head -c 200 "$T/usage.err")"

# A trace that ends without its END record makes runq boot fail, however
# QEMU exited: the kernel powers off cleanly (exit 33) but, booted with
# trace=off, sent nothing at all. (runq boot exited 0 before; so did a
# run whose starved tracer never sent END, and `run poweroff`.)
"$RUNQ" boot --deterministic --record "$T/noend.db" --append trace=off --cmd "echo hi" >"$T/noend.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q '^poweroff: ok' "$T/noend.out" &&
    grep -q 'has no END record: the kernel.s stream stopped before it ended' "$T/noend.out" &&
    [ "$(status noend)" = "incomplete eof" ] && ! grep -q 'trace stream is kept' "$T/noend.out"; then
    pass trace_without_end_fails_runq_boot
else
    fail trace_without_end_fails_runq_boot "exit $rc, trace '$(status noend)': $(tail -3 "$T/noend.out")"
fi

# `run sleep 10000` beside 8 churn tasks (about 25,000 records a second):
# the sleep runs in the host task, so the tracer drains on and nothing is
# dropped, and the host task's next line runs after it. (Run inside the
# tracer it dropped 389,352 of 452,457 records.)
printf 'run sleep 10000\nrun mark slept\n' >"$T/sleep.lines"
hostrun sleep --cmd "churn 8 2000 12000" --cmd "sleep 12000"
read -r lost recs slept <<<"$(q "$T/sleep.db" "SELECT
    (SELECT coalesce(sum(value), 0) FROM stats WHERE severity = 'data_loss' AND idx IS NULL),
    (SELECT records FROM trace),
    (SELECT ts - (SELECT start_ts FROM trace) FROM mark WHERE name = 'slept')" | tr ',' ' ')"
if [ "$rc" = 0 ] && [ "$(status sleep)" = "complete end" ] && [ "$lost" = 0 ] && [ "${recs:-0}" -gt 100000 ] &&
    [ "${slept:-0}" -ge 10000000000 ]; then
    pass "host_sleep_does_not_stop_the_tracer ($recs records, none lost; the next line ran at $((slept / 1000000)) ms)"
else
    fail host_sleep_does_not_stop_the_tracer "exit $rc, trace '$(status sleep)', $lost lost of $recs, slept mark at '$slept' ns"
fi

# Which commands the host may run is a list (trace/control.h): crash only
# when the kernel was booted host_crash=on, never vser or test, nor a
# command the shell does not have; each refusal is a MARK and a console
# line, and the lines after it still run. (Before the list, `run crash
# fault` panicked the kernel from the host.)
printf 'run crash fault\nrun vser send 10\nrun test all\nrun nosuch\nmark after\n' >"$T/refuse.lines"
hostrun refuse "${BUSY[@]}"
marks=$(q "$T/refuse.db" "SELECT source || ':' || name FROM mark ORDER BY ts" | tr '\n' '|')
want='kernel:error: refused: run crash fault|kernel:error: refused: run vser send 10|kernel:error: refused: run test all|kernel:error: refused: run nosuch|host:after|'
if [ "$rc" = 0 ] && [ "$marks" = "$want" ] &&
    grep -q '^trace: host line refused, a command for tests only (the kernel was not booted with host_crash=on): run crash fault$' "$T/refuse.out" &&
    grep -q '^trace: host line refused, not a command the host may run (trace/control.h lists them): run vser send 10$' "$T/refuse.out"; then
    pass host_commands_not_on_the_list_are_refused
else
    fail host_commands_not_on_the_list_are_refused "exit $rc, marks '$marks': $(grep -a 'trace: host\|PANIC' "$T/refuse.out" | head -3)"
fi
cp "$T/refuse.lines" "$T/crash.lines"
hostrun crash --append host_crash=on "${BUSY[@]}"
[ "$rc" = 1 ] && grep -q 'runq boot: kernel panic: PANIC: cpu[0-9]*: exception 14 (page fault)' "$T/crash.out" &&
    pass host_crash_runs_only_with_host_crash_on ||
    fail host_crash_runs_only_with_host_crash_on "exit $rc: $(tail -2 "$T/crash.out")"

# `run poweroff` powers off cleanly: it runs in the host task, so the
# tracer sends what is left and its END first, long before the shell's own
# poweroff would come. (Run inside the tracer it waited 10 s for the
# tracer, itself, to stop, and powered off without END.)
printf 'run poweroff\n' >"$T/poweroff.lines"
hostrun poweroff --cmd "sleep 5000"
end=$(q "$T/poweroff.db" "SELECT end_ts FROM trace")
[ "$rc" = 0 ] && [ "$(status poweroff)" = "complete end" ] && [ "${end:-0}" -lt 1000000000 ] &&
    grep -q '^poweroff: ok$' "$T/poweroff.out" &&
    pass "host_poweroff_ends_the_trace_with_end (at $((${end:-0} / 1000000)) ms)" ||
    fail host_poweroff_ends_the_trace_with_end "exit $rc, trace '$(status poweroff)' ending at '$end' ns: $(tail -2 "$T/poweroff.out")"

# The host task's queue is bounded: behind a 500 ms sleep, of 40 more run
# lines the 15 that fit run and the rest are refused, each as a MARK
# "error: queue full: ..." and a console line; none is lost silently.
{ echo "run sleep 500"; for i in $(seq 40); do echo "run mark m$i"; done; } >"$T/queue.lines"
hostrun queue --cmd "sleep 1000"
read -r ran refused <<<"$(q "$T/queue.db" "SELECT sum(source = 'shell'), sum(name LIKE 'error: queue full: run mark m%') FROM mark" | tr ',' ' ')"
said=$(grep -c "^trace: host line refused, the host task's queue is full: run mark m" "$T/queue.out")
if [ "$rc" = 0 ] && [ "${refused:-0}" -gt 0 ] && [ "$said" = "$refused" ] && [ $((ran + refused)) = 40 ]; then
    pass "host_queue_full_refuses_visibly ($ran ran, $refused refused)"
else
    fail host_queue_full_refuses_visibly "exit $rc, $ran ran, $refused refused in the trace, $said on the console, of 40"
fi

# The tracer cannot be starved by fair tasks: it runs at nice -20, the
# highest weight, so it keeps its share beside anything fair. 500 run
# lines, each a nice -20 spinner pinned to CPU 0 (the tracer's) for 20 s:
# the trace runs to its END with nothing dropped, and every line either
# ran or was refused where it shows. (At nice 0 the tracer got a 43,000th
# of CPU 0: the trace stopped early, with no END.)
for i in $(seq 500); do echo "run spin s$i 20000 0 -20"; done >"$T/flood.lines"
hostrun flood --cmd "sleep 20000"
read -r lost span <<<"$(q "$T/flood.db" "SELECT
    (SELECT coalesce(sum(value), 0) FROM stats WHERE severity = 'data_loss' AND idx IS NULL),
    (SELECT end_ts - start_ts FROM trace)" | tr ',' ' ')"
ran=$(grep -c '^spin id=[0-9]* name=s[0-9]* ms=20000 cpu=0$' "$T/flood.out")
refused=$(q "$T/flood.db" "SELECT count(*) FROM mark WHERE name LIKE 'error: queue full: run spin %'")
if [ "$rc" = 0 ] && [ "$(status flood)" = "complete end" ] && [ "$lost" = 0 ] && [ "${span:-0}" -ge 20000000000 ] &&
    [ $((ran + refused)) = 500 ]; then
    pass "tracer_outlasts_a_flood_of_spinners ($ran started, $refused refused, none lost, $((span / 1000000)) ms)"
else
    fail tracer_outlasts_a_flood_of_spinners "exit $rc, trace '$(status flood)', $lost lost, span '$span' ns, $ran started + $refused refused of 500"
fi
