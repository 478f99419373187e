#!/usr/bin/env bash
# tests/labs/instructor_test.sh [runq]: the walk-through of docs/instructor.md,
# run as written. Every "$ " line of its fenced blocks is run in order, in
# one empty folder, with `runq` the build under test (and the labs beside
# it); the lines after a command, up to the next command or the block's
# end, are what it must print, exactly. Prints PASS/FAIL per command.
set -u
RUNQ=${1:-build/runq}
RUNQ=$(cd "$(dirname "$RUNQ")" && pwd)/$(basename "$RUNQ")
DOC=$(cd "$(dirname "$0")/../.." && pwd)/docs/instructor.md
T=$(mktemp -d /tmp/instructor_test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/work"
ln -s "$RUNQ" "$T/bin/runq"
export RUNQ_LABS="${RUNQ_LABS:-$(dirname "$DOC")/../labs}"
export PATH="$T/bin:$PATH"
fail=0
# Split the doc into commands and their expected output: cmd.N, want.N.
awk -v dir="$T" '
    /^```/ { inblock = !inblock; next }
    inblock && /^\$ / { n++; printf "%s\n", substr($0, 3) > (dir "/cmd." n); printf "" > (dir "/want." n); next }
    inblock && n { print > (dir "/want." n) }
' "$DOC"
n=0
for k in $(seq 1 "$(ls "$T" | grep -c '^cmd\.')"); do
    n=$((n + 1))
    cmd=$(cat "$T/cmd.$k")
    # A command whose own RUNQ_LABS the doc sets keeps it.
    (cd "$T/work" && bash -c "$cmd") >"$T/got.$k" 2>"$T/err.$k"
    rc=$?
    if [ $rc -ne 0 ] && [ -s "$T/want.$k" ] && ! grep -q . "$T/got.$k"; then
        echo "FAIL instructor_$k ($cmd): exit $rc: $(head -c 200 "$T/err.$k")"; fail=1
    elif [ -s "$T/want.$k" ] && ! diff -u "$T/want.$k" "$T/got.$k" >"$T/diff.$k"; then
        echo "FAIL instructor_$k ($cmd): output differs from docs/instructor.md:"; head -20 "$T/diff.$k"; fail=1
    elif [ ! -s "$T/want.$k" ] && [ $rc -ne 0 ]; then
        echo "FAIL instructor_$k ($cmd): exit $rc: $(head -c 200 "$T/err.$k")"; fail=1
    else
        echo "PASS instructor_$k ($cmd)"
    fi
done
[ "$n" -ge 8 ] || { echo "FAIL instructor_walkthrough: only $n commands found in $DOC"; fail=1; }
# On a terminal, grade says how far it is and about how long is left
# (script(1) gives it one); the walk-through's grade ran without.
if command -v script >/dev/null && [ -d "$T/work/submissions" ]; then
    (cd "$T/work" && script -qec "runq lab grade 1 --key course/key submissions --out grading2 >/dev/null" /dev/null) \
        >"$T/tty.out" 2>&1
    if grep -q 'runq lab: grade: 1 of 2, [0-9.]* s each, about [0-9]* s left' "$T/tty.out"; then
        echo "PASS grade_says_progress"
    else
        echo "FAIL grade_says_progress: $(tr -d '\r' <"$T/tty.out" | head -c 300)"; fail=1
    fi
else
    echo "SKIP grade_says_progress: no script(1)"
fi
# The student's copy holds no answer key: no answers file, no explanation,
# no fixed answer in any lab.conf.
if [ -d "$T/work/course/student" ]; then
    leak=$(cd "$T/work/course/student" && { ls -R | grep -E 'answers\.(ref|wrong)|explanation\.md'; grep -rn 'truth *= *value\|^explain' .; })
    [ -z "$leak" ] && echo "PASS student_copy_has_no_key" || { echo "FAIL student_copy_has_no_key: $leak"; fail=1; }
fi
exit $fail
