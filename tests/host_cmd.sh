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

# The lines reach the kernel: a host mark comes back in the trace.
printf 'mark from-the-host\n' >"$T/lines.lines"
hostrun lines --cmd "sleep 100"
m=$(q "$T/lines.db" "SELECT source || ':' || name FROM mark")
[ "$rc" = 0 ] && [ "$m" = "host:from-the-host" ] && pass control_file_lines_reach_the_kernel ||
    fail control_file_lines_reach_the_kernel "exit $rc, marks '$m': $(tail -3 "$T/lines.out")"

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
