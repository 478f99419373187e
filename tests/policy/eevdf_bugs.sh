#!/usr/bin/env bash
# Prove the EEVDF unit tests: each patch in tests/bugs/eevdf/ puts one bug
# back into the policy (kernel/sched/eevdf*.c, weights.c). For each, build
# tests/policy/eevdf_test.c in a copy of the tree with the patch applied
# (scripts/bug_tree.sh) and check that every test the patch names on its
# Caught-by: line runs and FAILS, and that the clean build passes it. A test
# counts as failing when it prints its FAIL line, or when the bug makes it
# trip a BUG_ON (the program aborts with "BUG at"). A miss: a name that is
# not a test (eevdf_test exits 2), a test that passes, a patch that names no
# test, a patch that no longer applies, a patch whose row in docs/eevdf.md's
# table says otherwise, or an EEVDF_BUG_ switch in the sources (bugs are
# patches, and a switch would go unproven).
#
#   tests/policy/eevdf_bugs.sh            # every patch, from the repository root (make prove-bugs)
#   tests/policy/eevdf_bugs.sh NAME...    # only tests/bugs/eevdf/NAME.patch ...
#
# The clean build is the one the Makefile runs (POLICY_SRC beside the test).
set -u
CC=${CC:-gcc}
OUT=${OUT:-build/eevdf_bugs}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SRC="tests/policy/eevdf_test.c kernel/sched/decide.c kernel/sched/rr.c kernel/sched/rt.c kernel/sched/eevdf.c kernel/sched/eevdf_tree.c kernel/sched/weights.c"
# -Wno-unused-*: a bug may leave a parameter or helper unused.
FLAGS="-std=c11 -Wall -Wextra -Werror -Wno-unused-function -Wno-unused-parameter -O1 -g -fsanitize=address,undefined -iquote . -iquote kernel/sched -iquote kernel/lib"

# build BIN in DIR (a tree): skipped when BIN was built from the same sources and flags
build() {
    local dir=$1 bin=$2 key
    # shellcheck disable=SC2086
    key=$(cd "$dir" && { echo "$CC $FLAGS"; cat $SRC kernel/sched/*.h kernel/lib/*.h tests/*.h; } | sha1sum)
    [ -x "$bin" ] && [ "$(cat "$bin.key" 2>/dev/null)" = "$key" ] && return 0
    rm -f "$bin.key"
    # shellcheck disable=SC2086
    (cd "$dir" && $CC $FLAGS -o "$bin" $SRC) && echo "$key" >"$bin.key"
}

if [ $# -gt 0 ]; then
    patches=$(printf 'tests/bugs/eevdf/%s.patch\n' "$@")
else
    patches=$(ls tests/bugs/eevdf/*.patch)
fi
build . "$OUT/clean" || exit 1
if ! "$OUT/clean" >"$OUT/clean.log" 2>&1; then
    echo "clean build fails its tests:"; grep FAIL "$OUT/clean.log"; exit 1
fi
"$OUT/clean" --list >"$OUT/names" || exit 1
missed=0
if switches=$(grep -rn 'EEVDF_BUG_' kernel/); then
    echo "MISSED  a bug switch in the sources; make it a patch in tests/bugs/eevdf/:"; sed 's/^/    /' <<<"$switches"
    missed=1
fi
for patch in $patches; do
    bug=$(basename "$patch" .patch)
    if [ ! -f "$patch" ]; then
        echo "MISSED  $bug  no $patch"; missed=1; continue
    fi
    tests=$(sed -n 's/^Caught-by: *//p' "$patch" | head -1)
    if [ -z "$tests" ]; then
        echo "MISSED  $bug  $patch names no test on a Caught-by: line"; missed=1; continue
    fi
    # docs/eevdf.md's table says the same as the patch's header lines.
    row="| $bug | $(sed -n 's/^Puts back: *//p' "$patch" | sed 's/\.$//') | $(sed 's/ /, /g' <<<"$tests") |"
    grep -qxF -- "$row" docs/eevdf.md || { echo "MISSED  $bug  docs/eevdf.md's table lacks the row: $row"; missed=1; }
    if ! why=$(scripts/bug_tree.sh "$bug" "$OUT/tree" 2>&1); then
        echo "FAIL    $bug  $patch does not apply:"; sed 's/^/    /' <<<"$why"; missed=1; continue
    fi
    bin=$OUT/$bug
    build "$OUT/tree" "$bin" || { echo "BUILD   $bug  failed (in $OUT/tree)"; missed=1; continue; }
    for test in $tests; do
        if ! grep -qx -- "$test" "$OUT/names"; then
            echo "MISSED  $bug  '$test' is not a test of eevdf_test (see eevdf_test --list)"; missed=1; continue
        fi
        out=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$bin" "$test" 2>&1)
        rc=$?
        line=$(grep -E "^(PASS|FAIL) $test" <<<"$out" | head -1)
        case "$rc:$line" in
        1:FAIL*) echo "caught  $bug  by $line" ;;
        *:)      if [ "$rc" -ge 128 ] && grep -q "^BUG at" <<<"$out"; then
                     echo "caught  $bug  by $test (it trips $(grep -m1 "^BUG at" <<<"$out"))"
                 else
                     echo "MISSED  $bug  $test did not run or fail (exit $rc)"; missed=1
                 fi ;;
        *)       echo "MISSED  $bug  $test still passes ($line)"; missed=1 ;;
        esac
    done
done
exit $missed
