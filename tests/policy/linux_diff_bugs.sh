#!/usr/bin/env bash
# Prove the differential test (tests/policy/linux_diff.sh): each patch in
# tests/bugs/linux/ puts back one of runq's old departures from Linux 6.18
# (issue 14's D1..D7, S2, the bounded yield, 333238da9a19's requeue). For
# each, build runq and the reference in a copy of the tree with the patch
# applied, run the differential test on N workloads of each kind, and check
# that every half the patch names on its Caught-by: line (linux_diff_default,
# linux_diff_random) FAILS, and that the clean tree passes both. A miss: a
# patch that names nothing, does not apply, does not build, or is not
# caught. Prints "caught" or "MISSED" per patch, then PASS/FAIL lines.
#
#   tests/policy/linux_diff_bugs.sh [NAME...]     (LINUX_BUGS_N workloads a kind, default 300, as make test runs)
#
# The copy starts from this tree's build (timestamps kept), so only what a
# patch touches is compiled again.
set -u
cd "$(dirname "$0")/../.." || exit 2
N=${LINUX_BUGS_N:-300}
OUT=$PWD/build/linux_bugs
mkdir -p "$OUT"
make -s build/runq build/tests/linux_ref >/dev/null || { echo "FAIL linux_diff_bugs: the clean tree does not build"; exit 1; }

# diff_in DIR: the differential test's PASS/FAIL lines for the runq in DIR
diff_in() {
    (cd "$1" && bash tests/policy/linux_diff.sh "$N" build/runq build/tests/linux_ref 2>&1 | grep -E '^(PASS|FAIL) linux_diff_')
}

if [ $# -gt 0 ]; then patches=$(printf 'tests/bugs/linux/%s.patch\n' "$@"); else patches=$(ls tests/bugs/linux/*.patch); fi
clean=$(diff_in .)
if grep -q '^FAIL' <<<"$clean"; then echo "FAIL linux_diff_bugs: the clean tree differs: $clean"; exit 1; fi
missed=0 caught=0
for patch in $patches; do
    bug=$(basename "$patch" .patch)
    halves=$(sed -n 's/^Caught-by: *//p' "$patch" | head -1)
    [ -n "$halves" ] || { echo "MISSED  $bug  names no half on a Caught-by: line"; missed=$((missed + 1)); continue; }
    tree=$OUT/tree
    rm -rf "$tree" && mkdir -p "$tree/build/tests"
    git ls-files -z | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf - | tar -C "$tree" -xpf -
    cp -a build/host build/gen build/runq "$tree/build/" 2>/dev/null
    cp -a build/tests/linux_ref "$tree/build/tests/"
    cp -a build/tobj "$tree/build/" 2>/dev/null
    if ! (cd "$tree" && patch -p1 -F0 -s <"$OLDPWD/$patch"); then
        echo "MISSED  $bug  $patch does not apply"; missed=$((missed + 1)); continue
    fi
    if ! make -C "$tree" -s build/runq build/tests/linux_ref >"$OUT/$bug.build" 2>&1; then
        echo "MISSED  $bug  does not build (see $OUT/$bug.build)"; missed=$((missed + 1)); continue
    fi
    got=$(diff_in "$tree")
    ok=1
    for h in $halves; do
        line=$(grep "^[A-Z]* $h" <<<"$got")
        case $line in
        FAIL*) echo "caught  $bug  by $line" ;;
        *) echo "MISSED  $bug  $h: ${line:-did not run}"; ok=0 ;;
        esac
    done
    if [ $ok = 1 ]; then caught=$((caught + 1)); else missed=$((missed + 1)); fi
done
if [ $missed = 0 ]; then
    echo "PASS linux_diff_bugs: $caught departures put back, each caught by the differential test ($N workloads a kind)"
else
    echo "FAIL linux_diff_bugs: $missed of $((caught + missed)) patches missed"
fi
[ $missed = 0 ]
