#!/usr/bin/env bash
# The differential test of issue 14: runq sim against Linux 6.18's rules.
#
#   tests/policy/linux_diff.sh [N] [path/to/runq] [path/to/linux_ref]
#
# For N seeds, twice (default features; every switch at random), it makes
# a single-CPU workload (build/tests/linux_ref --gen), runs `runq sim -v` and
# the reference (tests/policy/linux_ref.c) on it, reduces both to one line per
# decision (time, V, the pick, departures, and every task's state,
# vruntime, deadline, lag and eligibility; the reasons are left out, as
# the two sides word them differently) and compares them with the
# schedule. A difference is classified by putting runq's departures into
# the reference one at a time (linux_ref --runq Dk): the departures that
# move the first difference later, or remove it, are the ones it comes
# from. Differing workloads are kept in build/linux-diff/.
#
# Prints a line per workload, a tally, and a PASS or FAIL line for each
# half (tests/run.sh counts those); exits 1 if any differ, 2 if it could
# not run. `make test` runs 300 of each, `make fuzz` and `make linux-diff`
# more (LINUX_DIFF_N).
#
# LINUX_DIFF_KNOBS: the departures tried when classifying (default: every
# one linux_ref.h lists; runq has none of them now, so they run only on a
# difference, to say which old behaviour came back). LINUX_DIFF_GEN: more
# generator flags, e.g. --no-yield for a runq from before `yield` existed.
set -u

N=${1:-300}
RUNQ=${2:-build/runq}
REF=${3:-build/tests/linux_ref}
OUT=build/linux-diff
KNOBS=${LINUX_DIFF_KNOBS-D1 D2 D3 D4 D5 D6 S1 S2}
GEN=${LINUX_DIFF_GEN:-}

for x in "$RUNQ" "$REF"; do
    [ -x "$x" ] || { echo "linux_diff: $x not built (make $x)" >&2; exit 2; }
done
case $N in '' | *[!0-9]*) echo "linux_diff: N must be a whole number" >&2; exit 2 ;; esac
[ "$N" -gt 0 ] || { echo "linux_diff: N must be at least 1: a run of no workloads proves nothing" >&2; exit 2; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per decision, then one for the schedule. The table's columns are
# the same on both sides: name state vruntime deadline lag elig.
normalise() {
    awk '
        NR == 1 { sched = "schedule " $0; next }
        /^t=/ {
            if (d != "") print d
            t = $1; sub(/:$/, "", t)
            v = $0; sub(/.*: V=/, "", v); sub(/,.*/, "", v)
            p = $0; sub(/.*picked /, "", p)
            d = t " V=" v " picked=" p
            inblock = 1; next
        }
        inblock && /leaves the queue/ { d = d " left:" $1; next }
        inblock && /^  task / { next }
        inblock && /^[* ] / {
            line = substr($0, 3); n = split(line, f, " ")
            d = d " " f[1] ":" f[2] ":" f[3] ":" f[4] ":" f[5] ":" f[6]
            next
        }
        /^$/ { inblock = 0; next }
        END { if (d != "") print d; print sched }
    '
}

# The first line (1-based) where two normalised outputs differ; 0 if none.
first_diff() {
    cmp "$1" "$2" > /dev/null 2>&1 && { echo 0; return; }
    awk 'NR == FNR { a[FNR] = $0; na = FNR; next }
         { if (!(FNR in a) || a[FNR] != $0) { print FNR; found = 1; exit } }
         END { if (!found) print (FNR < na ? FNR + 1 : na + 1) }' "$1" "$2"
}

# The decision (time) on line n of a normalised file, for messages.
line_of() { sed -n "${2}p" "$1" | cut -c1-220; }

differ_default=0 differ_random=0 sched_default=0 sched_random=0
declare -A class_count example

run_one() { # kind seed genflags
    local kind=$1 seed=$2 flags=$3 wl="$tmp/w.sim" p0 p cls="" k all rest
    "$REF" --gen "$seed" $flags > "$wl" || { echo "linux_diff: generator failed on seed $seed" >&2; exit 2; }
    if ! "$RUNQ" sim -v "$wl" > "$tmp/runq.out" 2> "$tmp/runq.err"; then
        echo "linux_diff: runq sim refused seed $seed: $(head -1 "$tmp/runq.err")" >&2
        exit 2
    fi
    "$REF" "$wl" > "$tmp/ref.out" || { echo "linux_diff: linux_ref failed on seed $seed" >&2; exit 2; }
    normalise < "$tmp/runq.out" > "$tmp/runq.n"
    normalise < "$tmp/ref.out" > "$tmp/ref.n"
    p0=$(first_diff "$tmp/runq.n" "$tmp/ref.n")
    if [ "$p0" = 0 ]; then
        echo "$kind seed $seed: identical"
        return
    fi
    if [ "$kind" = default ]; then differ_default=$((differ_default + 1)); else differ_random=$((differ_random + 1)); fi
    if [ "$(tail -1 "$tmp/runq.n")" != "$(tail -1 "$tmp/ref.n")" ]; then
        if [ "$kind" = default ]; then sched_default=$((sched_default + 1)); else sched_random=$((sched_random + 1)); fi
    fi
    for k in $KNOBS; do
        "$REF" --runq "$k" "$wl" | normalise > "$tmp/k.n"
        p=$(first_diff "$tmp/runq.n" "$tmp/k.n")
        if [ "$p" = 0 ] || [ "$p" -gt "$p0" ]; then cls="$cls $k"; fi
    done
    "$REF" --runq "${KNOBS// /,}" "$wl" | normalise > "$tmp/k.n"
    all=$(first_diff "$tmp/runq.n" "$tmp/k.n")
    if [ -z "$cls" ] && { [ "$all" = 0 ] || [ "$all" -gt "$p0" ]; }; then
        # No one departure explains it, all of them together do: the
        # ones that cannot be left out of that set.
        for k in $KNOBS; do
            rest=$(echo " $KNOBS " | sed "s/ $k / /; s/^ //; s/ $//; s/ /,/g")
            "$REF" --runq "$rest" "$wl" | normalise > "$tmp/k.n"
            p=$(first_diff "$tmp/runq.n" "$tmp/k.n")
            if [ "$p" != 0 ] && [ "$p" -le "$p0" ]; then cls="$cls $k"; fi
        done
    fi
    [ -n "$cls" ] || cls=" unclassified"
    cls=${cls# }
    cp "$wl" "$OUT/$kind-$seed.sim"
    echo "$kind seed $seed: differs at line $p0 [$cls]$([ "$all" = 0 ] && echo ' (all of runq'"'"'s departures: identical)')"
    echo "    runq:  $(line_of "$tmp/runq.n" "$p0")"
    echo "    linux: $(line_of "$tmp/ref.n" "$p0")"
    for k in $cls; do
        class_count[$kind.$k]=$(( ${class_count[$kind.$k]:-0} + 1 ))
        [ -n "${example[$k]:-}" ] || example[$k]="$OUT/$kind-$seed.sim, line $p0"
    done
}

for seed in $(seq 1 "$N"); do run_one default "$seed" "$GEN"; done
for seed in $(seq 1 "$N"); do run_one random "$seed" "--switches $GEN"; done

echo
echo "$N workloads with default features: $differ_default differ ($sched_default in the schedule itself)"
echo "$N with random switches: $differ_random differ ($sched_random in the schedule itself)"
echo "first differences by the runq departure that explains them (one may have several):"
for k in $KNOBS unclassified; do
    d=${class_count[default.$k]:-0} r=${class_count[random.$k]:-0}
    [ "$d" = 0 ] && [ "$r" = 0 ] && continue
    echo "  $k: $d default, $r random; e.g. ${example[$k]}"
done
for kind in default random; do
    v=differ_$kind
    if [ "${!v}" = 0 ]; then
        echo "PASS linux_diff_$kind: $N workloads, every decision identical to Linux 6.18's rules"
    else
        echo "FAIL linux_diff_$kind: ${!v} of $N workloads differ from Linux 6.18's rules (kept in $OUT/)"
    fi
done
[ $((differ_default + differ_random)) = 0 ]
