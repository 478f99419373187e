#!/usr/bin/env bash
# Proves the boot self-tests: for each test-proving bug, the test named
# beside it must FAIL on a kernel with the bug put back, and the clean
# kernel must pass it. A kernel-core bug is a RUNQ_BUG_ switch (make
# BUG=name); a policy bug is a patch, tests/bugs/eevdf/name.patch, and its
# kernel is built in a patched copy of the tree (scripts/bug_tree.sh). Then
# tests/policy/eevdf_bugs.sh proves the policy's tests with every patch and the
# host unit tests. Run: make prove-bugs. Not part of make test (it builds
# nine kernels); docs/testing.md shows its output.
set -u
cd "$(dirname "$0")/.."
RUNQ=build/runq
make -s all >/dev/null || exit 1
status=0
# bug                test                 boot flags
cases="
idle_last_resort     TestIdleTakesTurns   --policy rr
sleep_at_tick        TestSleepAccuracy    --policy rr
lost_wakeup          TestWakeStorm        --policy rr
pipe_lost_wakeup     TestPipeRing         --policy eevdf
rr_wake_first        TestRrProbe          --policy rr --hz 100
eevdf_leave_order    TestEevdf            --policy eevdf
timer_not_armed_at_pick TestHrtick        --policy eevdf
rt_no_preempt        TestRtPreempt        --policy eevdf
rt_no_throttle       TestRtThrottle       --policy eevdf
crc_seed             TestCrc32c           --policy eevdf
"
while read -r bug test flags; do
    [ -n "$bug" ] || continue
    dir=build/bug-$bug
    if [ -f "tests/bugs/eevdf/$bug.patch" ]; then
        kernel=$dir/tree/build/kernel.elf
        scripts/bug_tree.sh "$bug" "$dir/tree" && make -s -C "$dir/tree" build/kernel.elf >/dev/null
    else
        kernel=$dir/kernel.elf
        make -s BUILD="$dir" BUG="$bug" "$kernel" >/dev/null
    fi || { echo "FAIL $bug: build"; status=1; continue; }
    # shellcheck disable=SC2086
    clean=$("$RUNQ" boot --deterministic $flags --test "$test" 2>&1)
    clean_rc=$?
    # shellcheck disable=SC2086
    buggy=$("$RUNQ" boot --deterministic $flags --kernel "$kernel" --test "$test" 2>&1)
    buggy_rc=$?
    why=$(grep -m1 "^FAIL $test" <<<"$buggy")
    if [ $clean_rc -eq 0 ] && [ $buggy_rc -ne 0 ] && [ -n "$why" ]; then
        echo "PASS $bug: clean kernel passes $test; with the bug: $why"
    else
        echo "FAIL $bug: clean status $clean_rc, buggy status $buggy_rc ($why)"
        status=1
    fi
done <<<"$cases"
# The policy's bugs, proven by the host unit tests: each patch must make
# the tests on its Caught-by: line fail.
if out=$(bash tests/policy/eevdf_bugs.sh 2>&1); then
    echo "PASS eevdf_bugs: $(ls tests/bugs/eevdf/*.patch | wc -l) policy bug patches caught, by $(grep -c '^caught' <<<"$out") tests"
else
    echo "FAIL eevdf_bugs: $(grep -E '^(MISSED|BUILD|FAIL)|fails its tests' <<<"$out" | tr '\n' ';')"
    status=1
fi
grep '^caught' <<<"$out" | sed 's/^/    /'
# runq's old departures from Linux 6.18, proven by the differential test:
# each patch in tests/bugs/linux/ must make the halves it names fail.
if out=$(bash tests/policy/linux_diff_bugs.sh 2>&1); then
    grep '^PASS' <<<"$out"
else
    echo "FAIL linux_diff_bugs: $(grep -E '^(MISSED|FAIL)' <<<"$out" | tr '\n' ';')"
    status=1
fi
grep '^caught' <<<"$out" | sed 's/^/    /'
exit $status
