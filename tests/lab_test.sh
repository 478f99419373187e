#!/bin/sh
# tests/lab_test.sh [runq]: every lab's check passes on its answers.ref and
# fails on its answers.wrong (keeping a transcript); the same lab run twice
# measures the same values; lab run stores predictions before the runs and
# shows predicted against measured. Boots the kernel (deterministic), about
# 2 s a lab. Prints PASS name / FAIL name: why; exit 1 on any FAIL.
RUNQ=${1:-build/runq}
T=$(mktemp -d /tmp/lab_test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
pass() { echo "PASS $1"; }
failed() { echo "FAIL $1: $2"; fail=1; }

n=$("$RUNQ" lab list | grep -c 'questions, about')
if [ "$n" -ge 4 ]; then pass list; else failed list "$n labs listed"; fi

for dir in labs/0[1-4]-*; do
    lab=$(basename "$dir")
    num=${lab%%-*}
    "$RUNQ" lab check "$num" --answers "$dir/answers.ref" --out "$T/$lab.ref" > "$T/$lab.ref.out" 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q '^score \([0-9]*\)/\1$' "$T/$lab.ref.out" && [ ! -e "$T/$lab.ref/transcript.txt" ]; then
        pass "${lab}_ref_passes"
    else
        failed "${lab}_ref_passes" "rc=$rc $(grep FAIL "$T/$lab.ref.out" | head -2 | tr '\n' '|')"
    fi
    "$RUNQ" lab check "$num" --answers "$dir/answers.wrong" --out "$T/$lab.wrong" > "$T/$lab.wrong.out" 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q '^FAIL ' "$T/$lab.wrong.out" && grep -q '^transcript: ' "$T/$lab.wrong.out" &&
       grep -q '^==== scenario ' "$T/$lab.wrong/transcript.txt"; then
        pass "${lab}_wrong_fails"
    else
        failed "${lab}_wrong_fails" "rc=$rc"
    fi
    "$RUNQ" lab check "$num" --answers "$dir/answers.ref" --out "$T/$lab.again" > /dev/null 2>&1
    if cmp -s "$T/$lab.ref/measured.txt" "$T/$lab.again/measured.txt"; then
        pass "${lab}_deterministic"
    else
        failed "${lab}_deterministic" "$(diff "$T/$lab.ref/measured.txt" "$T/$lab.again/measured.txt" | head -3 | tr '\n' '|')"
    fi
done

# A student's run: predictions from stdin, stored with the time before the runs.
grep -v '^#' labs/01-who-runs-next/answers.ref | sed 's/^[^=]*= //' > "$T/preds"
ref() { sed -n "s/^$1 = //p" labs/01-who-runs-next/answers.ref; }
"$RUNQ" lab run 1 --out "$T/run1" < "$T/preds" > "$T/run1.out" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^# runq lab 01-who-runs-next: predictions made at 20..-..-..T..:..:..Z, before the scenarios ran' "$T/run1/predictions.txt" &&
   grep -q "^rr_2 = $(ref rr_2)\$" "$T/run1/predictions.txt" && [ ! "$T/run1/predictions.txt" -nt "$T/run1/rr.console" ]; then
    pass run_stores_predictions_first
else
    failed run_stores_predictions_first "rc=$rc"
fi
if grep -q "^  rr_4 *$(ref rr_4) *[0-9]* us *close enough" "$T/run1.out" && grep -q '7 of 7 predictions within the tolerance' "$T/run1.out" &&
   grep -q 'runq step --db .*/rr.db 1 --at [0-9]' "$T/run1.out"; then
    pass run_shows_table_and_moments
else
    failed run_shows_table_and_moments "$(grep -E 'rr_4|predictions within' "$T/run1.out" | tr '\n' '|')"
fi
# The predictions file is an answers file.
if "$RUNQ" lab check 1 --answers "$T/run1/predictions.txt" --out "$T/run1c" >/dev/null 2>&1; then
    pass predictions_are_answers
else
    failed predictions_are_answers "check on the predictions failed"
fi

# Usage errors.
"$RUNQ" lab check 1 >/dev/null 2>&1; rc1=$?
"$RUNQ" lab show 99 >/dev/null 2>&1; rc2=$?
"$RUNQ" lab frob >/dev/null 2>&1; rc3=$?
if [ $rc1$rc2$rc3 = 222 ]; then pass usage_errors; else failed usage_errors "$rc1 $rc2 $rc3"; fi
# An answers file is a small regular file: /dev/zero was read forever and a
# directory "answered nothing" (issue 13); each is refused before the lab runs.
bad=""
for f in /dev/zero "$T"; do
    timeout 10 "$RUNQ" lab check 1 --answers "$f" >/dev/null 2>"$T/ans.err"; rc=$?
    [ $rc = 1 ] && grep -q "runq lab: $f: not a regular file" "$T/ans.err" || bad="$bad [$f: rc $rc $(head -c 100 "$T/ans.err")]"
done
head -c 70000 /dev/zero | tr '\0' a >"$T/big.ans"
timeout 10 "$RUNQ" lab check 1 --answers "$T/big.ans" >/dev/null 2>"$T/ans.err"; rc=$?
[ $rc = 1 ] && grep -q 'longer than 65536 bytes' "$T/ans.err" || bad="$bad [big: rc $rc $(head -c 100 "$T/ans.err")]"
[ -z "$bad" ] && pass answers_file_must_be_a_small_file || failed answers_file_must_be_a_small_file "$bad"
if "$RUNQ" lab show 4 --seed 1 | grep -q 'runq sim -s 1: what is the schedule'; then
    pass show_sim_variant
else
    failed show_sim_variant "no sim problem in lab 4"
fi
exit $fail
