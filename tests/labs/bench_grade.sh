#!/usr/bin/env bash
# bench_grade: what grading a class costs (run by make bench through
# tests/bench.sh). Two courses of lab 1, the students handing in its
# reference answers under their own IDs:
#   - one variant a student (runq lab pack, the default): N students graded
#     twice with the run cache (labs/engine/lab_cache.h), cold (a fresh
#     cache: each student's variant boots) and warm (every run from the
#     cache); submissions a minute and the estimate for 2,000 students;
#   - 20 variants (runq lab pack --variants 20): C students (enough to cover
#     the 20) graded cold, then 2,000 estimated as the cold grading plus
#     the students beyond C at the marginal cost of a student of a variant
#     already measured (a warm grading of C against one of C / 10).
# BENCH_SHORT set: 2 students, and the 20-variant course with 2 variants.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${RUNQ:-build/runq}
N=${GRADE_BENCH_N:-$([ -n "${BENCH_SHORT:-}" ] && echo 2 || echo 12)}
V=$([ -n "${BENCH_SHORT:-}" ] && echo 2 || echo 20)
C=$([ -n "${BENCH_SHORT:-}" ] && echo 20 || echo 200)
T=$(mktemp -d /tmp/bench_grade.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/sub"
"$RUNQ" lab pack "$T/course" >/dev/null || { echo "runq lab pack failed"; exit 1; }
"$RUNQ" lab pack "$T/course$V" --variants "$V" >/dev/null || { echo "runq lab pack --variants failed"; exit 1; }
for i in $(seq 1 "$N"); do
    { echo "student = s$i"; grep -v '^seed\|^student' labs/01-who-runs-next/answers.ref; } >"$T/sub/s$i.txt"
done
grade() { # label [course submissions]: one grading, timed
    local t0 t1
    t0=$(date +%s.%N)
    RUNQ_LAB_CACHE=$T/cache "$RUNQ" lab grade 1 --key "$T/${2:-course}/key" "$T/${3:-sub}" --out "$T/out-$1" \
        >"$T/$1.out" 2>"$T/$1.err"
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

# The course of V variants: C students, then one in ten of them.
mkdir -p "$T/subv" "$T/subv10"
for i in $(seq 1 "$C"); do
    { echo "student = v$i"; grep -v '^seed\|^student' labs/01-who-runs-next/answers.ref; } >"$T/subv/v$i.txt"
    [ $((i % 10)) != 1 ] || cp "$T/subv/v$i.txt" "$T/subv10/"
done
vcold=$(grade vcold "course$V" subv)
vwarm=$(grade vwarm "course$V" subv)
vwarm10=$(grade vwarm10 "course$V" subv10)
ran=$(sed -n "s/^\([0-9]*\) of the course's $V variants.*/\1/p" "$T/vcold.out")
each=$(echo "($vwarm - $vwarm10) / ($C - $C / 10)" | bc -l)
printf '%-34s %10s %14s\n' "grading lab 1 on $V variants" "seconds" "a minute"
printf '%-34s %10.1f %14.1f\n' "cold, $C students ($ran variants ran)" "$vcold" "$(echo "60 * $C / $vcold" | bc -l)"
printf '%-34s %10.1f %14.1f\n' "warm, $C students" "$vwarm" "$(echo "60 * $C / $vwarm" | bc -l)"
printf '%-34s %10.2f ms\n' "a student more (marginal)" "$(echo "1000 * $each" | bc -l)"
printf '2000 students on %d variants: about %.1f min cold on this machine (target: under 10)\n' "$V" \
    "$(echo "($vcold + (2000 - $C) * $each) / 60" | bc -l)"
