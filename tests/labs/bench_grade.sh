#!/usr/bin/env bash
# bench_grade: what grading a class costs (run by make bench through
# tests/bench.sh). N students hand in lab 1's reference answers under
# their own IDs (so each has its own variant, as a class does); runq lab
# grade grades them twice with the run cache (labs/engine/lab_cache.h):
# cold (a fresh cache: each student's variant boots, the runs every
# student shares boot once) and warm (everything from the cache, as a
# second grading after a fixed key). Prints submissions a minute and the
# estimate for 2,000 students, whose variants are their own.
# BENCH_SHORT set: 2 students.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
N=${GRADE_BENCH_N:-$([ -n "${BENCH_SHORT:-}" ] && echo 2 || echo 12)}
T=$(mktemp -d /tmp/bench_grade.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/sub"
"$RUNQ" lab pack "$T/course" >/dev/null || { echo "runq lab pack failed"; exit 1; }
for i in $(seq 1 "$N"); do
    { echo "student = s$i"; grep -v '^seed\|^student' labs/01-who-runs-next/answers.ref; } >"$T/sub/s$i.txt"
done
grade() { # label: one grading, timed
    local t0 t1
    t0=$(date +%s.%N)
    RUNQ_LAB_CACHE=$T/cache "$RUNQ" lab grade 1 --key "$T/course/key" "$T/sub" --out "$T/out-$1" >"$T/$1.out" 2>"$T/$1.err"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
mkdir -m 0700 "$T/cache"
cold=$(grade cold)
warm=$(grade warm)
graded=$(grep -c '^s[0-9]* ' "$T/warm.out")
printf '%-34s %10s %14s\n' "grading lab 1, $N students" "seconds" "a minute"
printf '%-34s %10.1f %14.1f\n' "cold (each variant boots)" "$cold" "$(echo "60 * $N / $cold" | bc -l)"
printf '%-34s %10.1f %14.1f\n' "warm (every run from the cache)" "$warm" "$(echo "60 * $N / $warm" | bc -l)"
printf '2000 students, each its own variant: about %.0f min cold on this machine\n' "$(echo "2000 * $cold / $N / 60" | bc -l)"
[ "$graded" = "$N" ] || echo "(graded $graded of $N: $(head -c 200 "$T/warm.err"))"
