# tests/lib.sh: what the shell tests share. Source it from the repository
# root.

# T: the test's scratch directory. A test that made none before sourcing
# this gets one, removed when the test exits; a test with more to undo at
# exit says so with at_exit. (A test that wants T somewhere of its own, a
# short path for a tmux socket or a tmpfs, makes it and removes it itself.)
# A T in the environment the test was started from is not the test's.
export -p | grep -q '^\(declare -x\|export\) T=' && unset T
if [ -z "${T:-}" ]; then
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
fi
# at_exit CMD: the test's exit runs CMD, then removes T.
at_exit() { trap "$1; rm -rf \"\$T\"" EXIT; }

fail=0
pass() { echo "PASS $1"; }
failed() { echo "FAIL $1: $2"; fail=1; }

# sq DB SQL...: the sqlite3 shell, in batch mode.
sq() { sqlite3 -batch "$@"; }

# grep_all FILE RE...: FILE has a line matching each RE.
grep_all() {
    local f=$1 re
    shift
    for re; do grep -q -- "$re" "$f" || return 1; done
}

# run_example NAME DOC DIR CMD WANT: runs the shell command CMD in DIR;
# PASS NAME if it exits 0 and prints the file WANT (the example's output in
# DOC), figures aside (shape), else FAIL with the exit or the diff.
run_example() {
    local name=$1 doc=$2 dir=$3 cmd=$4 want=$5 rc
    (cd "$dir" && sh -c "$cmd") >"$T/got" 2>"$T/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        failed "$name" "exit $rc: $(head -c 300 "$T/err")"
    elif ! diff -u <(shape <"$want") <(shape <"$T/got") >"$T/diff"; then
        failed "$name" "output differs from $doc, figures aside: $(head -n 20 "$T/diff")"
    else
        pass "$name (its figures: make docs)"
    fi
}

# shape: a command's output with every figure a '#' and runs of blanks one
# blank: what a docs example must still print after a change that moves
# only numbers (those are make docs' to write, docs/testing.md).
shape() { sed -E 's/[0-9]+([.,][0-9]+)*/#/g; s/[[:space:]]+/ /g; s/ $//'; }

# runq ARGS...: runs $RUNQ with no input; leaves $rc, $T/out and $T/err.
runq() { "$RUNQ" "$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?; }

# expect NAME RC STDERR_SUBSTRING ARGS...: runq ARGS must exit RC with
# STDERR_SUBSTRING (if not empty) on stderr; a usage error (RC 2) must say
# so in exactly one line, as host/cli/cli.h promises.
expect() {
    local name=$1 want=$2 sub=$3
    shift 3
    runq "$@"
    if [ "$rc" != "$want" ]; then
        failed "$name" "exit $rc, want $want; stderr: $(head -c 300 "$T/err")"
    elif [ -n "$sub" ] && ! grep -qF -- "$sub" "$T/err"; then
        failed "$name" "stderr lacks '$sub': $(head -c 300 "$T/err")"
    elif [ "$want" = 2 ] && [ "$(wc -l <"$T/err")" != 1 ]; then
        failed "$name" "want one line on stderr, got: $(head -c 300 "$T/err")"
    else
        pass "$name"
    fi
}

# refusals ARGS...: each line of stdin, NAME|LINE|WANT|TEXT, is a scenario
# file (TEXT, its lines separated by \n) that runq ARGS... FILE must refuse
# as a usage error naming the line: exit 2 and one line on stderr,
# "FILE:LINE: ..." holding WANT (PASS or FAIL refuses_NAME).
refusals() {
    local name line want text
    while IFS='|' read -r name line want text; do
        [ -z "$name" ] && continue
        printf '%b\n' "$text" >"$T/$name.scn"
        runq "$@" "$T/$name.scn"
        if [ "$rc" = 2 ] && grep -qF -- "$T/$name.scn:$line: " "$T/err" && grep -qF -- "$want" "$T/err" &&
            [ "$(wc -l <"$T/err")" = 1 ]; then
            pass "refuses_$name"
        else
            failed "refuses_$name" "exit $rc, want 2 with '$name.scn:$line: ...$want': $(head -c 300 "$T/err")"
        fi
    done
}

# stdout_has NAME SUBSTRING: the last runq's stdout holds SUBSTRING.
stdout_has() {
    if grep -qF -- "$2" "$T/out"; then pass "$1"; else failed "$1" "stdout lacks '$2'"; fi
}

# GEN: the fixture generator (tests/trace/trace_gen.c), built by make if a test
# runs on its own before `make test` did.
GEN=${TRACE_GEN:-build/tests/trace_gen}
[ -x "$GEN" ] || make -s "$GEN" >/dev/null || { echo "FAIL fixture: cannot build $GEN"; exit 1; }

# record_fixtures TRACE_GEN_ARGS...: an EEVDF trace (trace 1) and a round
# robin one (trace 2) of the same workload in $T/f.db.
record_fixtures() {
    "$GEN" "$@" --out "$T/e.bin" &&
        "$GEN" --policy rr "$@" --out "$T/r.bin" &&
        "$RUNQ" record --file "$T/e.bin" --db "$T/f.db" >/dev/null 2>&1 &&
        "$RUNQ" record --file "$T/r.bin" --db "$T/f.db" >/dev/null 2>&1 ||
        { failed fixture "could not record"; exit 1; }
}

# tmux on a server of the test's own (its socket in $T). Sessions come and go in a test;
# on a shared default server, closing the last one shut the server down
# under the next new-session ("server exited unexpectedly": top_tmux, once
# in a full make test). A keeper session holds this server up until the
# test ends: tmux_start after checking that tmux exists, tmux_stop in the
# EXIT trap.
tmux() { command tmux -S "$T/tmux.sock" "$@"; }
tmux_start() { tmux new-session -d -s keeper "sleep 86400"; }
tmux_stop() { tmux kill-server 2>/dev/null; }

# eventually CMD...: runs CMD every 0.1 s until it succeeds, for up to
# 20 s; fails if it never does. For what a screen or a recording shows
# once the program under test gets to it: make test runs suites side by
# side, so a check made after a fixed sleep fails on a loaded machine.
eventually() {
    local i=0
    while [ $i -lt 200 ]; do
        "$@" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# tmux helpers for the session $S.
screen() { tmux capture-pane -p -t "$S"; }
on_screen() { screen | grep -q -- "$1"; }
# wait_for TEXT: up to 20 s for TEXT on the screen
wait_for() { eventually on_screen "$1"; }

# doc_examples DOC: every example in DOC, a fenced block whose first line
# is "$ COMMAND" with build/runq in it and whose other lines are the
# expected stdout, as $T/ex.N.cmd and $T/ex.N.want (N from 1).
doc_examples() {
    awk -v dir="$T" '
        /^```/ {
            if (inblock) { inblock = 0; if (n) close(dir "/ex." n ".want"); next }
            inblock = 1; first = 1; example = 0; next
        }
        inblock && first {
            first = 0
            if ($0 ~ /^\$ / && index($0, "build/runq")) {
                example = 1; n++
                print substr($0, 3) > (dir "/ex." n ".cmd"); close(dir "/ex." n ".cmd")
                printf "" > (dir "/ex." n ".want")
            }
            next
        }
        inblock && example { print > (dir "/ex." n ".want") }
    ' "$1"
}

# run_doc_examples DOC: DOC's examples (doc_examples) run in order in one
# scratch directory, $T/doc, each by run_example, with the runq under test
# and the fixture generator in place of build/runq and
# build/tests/trace_gen; then doc_examples_found, which wants two or more.
run_doc_examples() {
    local doc=$1 n=0
    doc_examples "$doc"
    mkdir "$T/doc"
    sed -i "s|build/runq|$(realpath "$RUNQ")|g; s|build/tests/trace_gen|$(realpath "$GEN")|g" "$T"/ex.*.cmd 2>/dev/null
    while [ -e "$T/ex.$((n + 1)).cmd" ]; do
        n=$((n + 1))
        run_example "doc_example_$n" "$doc" "$T/doc" "$(cat "$T/ex.$n.cmd")" "$T/ex.$n.want"
    done
    [ "$n" -ge 2 ] && pass "doc_examples_found ($n)" || failed doc_examples_found "only $n examples in $doc"
}

# linux_recording_ready NAME: true when the Linux engine can record here
# (root, and tracefs at $TRACING, mounted if need be); else prints one
# SKIP line for NAME saying what is missing and is false.
TRACING=/sys/kernel/tracing
linux_recording_ready() {
    if [ "$(id -u)" != 0 ]; then
        echo "SKIP $1: not root (the Linux engine records through tracefs, which needs root)"
        return 1
    fi
    if ! [ -d "$TRACING/instances" ] && ! mount -t tracefs nodev "$TRACING" 2>/dev/null; then
        echo "SKIP $1: no tracefs at $TRACING and it cannot be mounted"
        return 1
    fi
}

# linux_bpf_ready NAME: true when the Linux engine can record here with
# its BPF recorder (root, and the kernel's BTF for CO-RE); else prints
# one SKIP line for NAME saying what is missing and is false.
linux_bpf_ready() {
    if [ "$(id -u)" != 0 ]; then
        echo "SKIP $1: not root (the Linux engine and BPF need root)"
        return 1
    fi
    if ! [ -r /sys/kernel/btf/vmlinux ]; then
        echo "SKIP $1: this kernel has no BTF (/sys/kernel/btf/vmlinux)"
        return 1
    fi
}

# tree PID: PID and every process below it.
tree() {
    local all next
    all=$1
    next=$1
    while [ -n "$next" ]; do
        next=$(ps -e -o pid=,ppid= | awk -v p=" $next " 'index(p, " " $2 " ") { printf "%s ", $1 }')
        all="$all $next"
    done
    echo $all
}

# instance_of_child PID: the tracefs instance (runq-N) of PID or a process
# below it, if one exists.
instance_of_child() {
    local c
    for c in $(tree $1); do [ -d "$TRACING/instances/runq-$c" ] && { echo "runq-$c"; return 0; }; done
    return 1
}

# stale_instances: how many runq-N tracing instances there are whose
# process N is gone. Another suite's recorder, alive, is not counted: a
# suite that runs beside this one would otherwise make the count move.
stale_instances() {
    local d n=0
    for d in "$TRACING"/instances/runq-*; do
        [ -d "$d" ] || continue
        kill -0 "${d##*/runq-}" 2>/dev/null || n=$((n + 1))
    done
    echo $n
}

# kernel_scn FILE CPUS RUN: the small kernel scenario two suites run
# (merge_test's kernel experiment, scenario_test's counters against the
# trace) into FILE: two hogs and a periodic probe on the last of CPUS
# CPUs for RUN, at 250 Hz, seed 3; then the lines on stdin (another task,
# a measure line).
kernel_scn() {
    local cpu=$(($2 - 1))
    {
        printf 'policy eevdf\ncpus %s\nhz 250\nquantum 10us\nrun %s\nseed 3\n' "$2" "$3"
        printf 'task hog*2 cpu=%s\ntask probe cpu=%s pattern=run:50us,every:1ms:30%%\n' "$cpu" "$cpu"
        cat
    } >"$1"
}
