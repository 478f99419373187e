#!/usr/bin/env bash
# Prove the EEVDF unit tests: for each bug switch in kernel/sched/eevdf*.c
# and weights.c, build tests/eevdf_test.c with the bug put back and check
# that the test named beside it runs and FAILS (and that the clean build
# passes it). A test counts as failing when it prints its FAIL line, or when
# the bug makes it trip a BUG_ON (the program aborts with "BUG at"); a name
# that is not a test (eevdf_test exits 2) or a test that passes is a miss.
#
#   tests/eevdf_bugs.sh            # from the repository root (make prove-bugs)
#
# The clean build is the one the Makefile runs (POLICY_SRC beside the test).
set -u
CC=${CC:-gcc}
OUT=${OUT:-build/eevdf_bugs}
mkdir -p "$OUT"
SRC="tests/eevdf_test.c kernel/sched/decide.c kernel/sched/rr.c kernel/sched/eevdf.c kernel/sched/eevdf_tree.c kernel/sched/weights.c"
FLAGS="-std=c11 -Wall -Wextra -Werror -Wno-unused-function -Wno-unused-parameter -O1 -g -fsanitize=address,undefined -iquote kernel/sched -iquote kernel/lib"

# switch                          test that must fail
cases="
WMULT_TYPO                        weights_inverse_is_2_32_over_w
CHARGE_UNWEIGHTED                 charge_scales_by_weight
CHARGE_UNWEIGHTED                 share_follows_weights
CHARGE_UNWEIGHTED                 heavy_task_gets_half
SLICE_NO_CAP                      base_slice_scales_with_cpus
SLICE_UNCLAMPED                   slice_request_clamped
PICK_IGNORES_ELIGIBILITY          pick_is_eligible_earliest_deadline
ELIGIBLE_STRICT                   entity_at_V_is_eligible
TREE_STALE_MIN                    pick_fast_matches_reference
TREE_UNBALANCED                   pick_is_log_n
TIES_LIFO                         equal_deadlines_run_fifo
NO_PROTECTION                     short_request_runs_twice_as_often
CHARGE_FORGETS_V                  four_equal_share_quarter_each
LAG_UNSCALED                      lag_survives_sleep_scaled
LAG_UNCLAMPED                     lag_clamped
LEAVE_ORDER                       sleeper_beside_one_spinner_keeps_lag
INITIAL_FULL_SLICE                new_task_half_slice
MIGRATE_DROPS_LAG                 migrate_keeps_lag
RENICE_RAW                        renice_keeps_owed_service
CHARGE_FORGETS_V                  weighted_lag_sums_to_zero
YIELD_UNBOUNDED                   yield_bounded
NO_PROTECTION                     protected_current_not_preempted_by_wakeup
NO_PREEMPT_SHORT                  preempt_short_cuts_protection
TIMER_ALWAYS                      hrtick_timer_only_when_contended
TIMER_ROUND_DOWN                  hrtick_timer_ends_stretch_exactly
PICK_RETURNS_DELAYED              delay_dequeue_keeps_ineligible_sleeper
DELAY_ZERO_IGNORED                delay_zero_clips_positive_lag
NO_TAKE_CHECK                     misuse_panics
"

bad=0
$CC $FLAGS -o "$OUT/clean" $SRC || exit 1
if ! "$OUT/clean" >"$OUT/clean.log" 2>&1; then
    echo "clean build fails its tests:"; grep FAIL "$OUT/clean.log"; exit 1
fi
"$OUT/clean" --list >"$OUT/names" || exit 1
rm -f "$OUT/missed"
echo "$cases" | while read -r bug test; do
    [ -z "$bug" ] && continue
    if ! grep -qx -- "$test" "$OUT/names"; then
        echo "MISSED  EEVDF_BUG_$bug  '$test' is not a test of eevdf_test (see eevdf_test --list)"
        echo x >>"$OUT/missed"; continue
    fi
    if ! grep -q "EEVDF_BUG_$bug\b" kernel/sched/*.[ch]; then
        echo "MISSED  EEVDF_BUG_$bug  no such switch in kernel/sched/"; echo x >>"$OUT/missed"; continue
    fi
    bin="$OUT/$bug"
    [ -x "$bin" ] && [ "$bin" -nt kernel/sched/eevdf.c ] && [ "$bin" -nt tests/eevdf_test.c ] ||
        $CC $FLAGS -DEEVDF_BUG_$bug -o "$bin" $SRC || { echo "BUILD $bug failed"; echo x >>"$OUT/missed"; continue; }
    out=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$bin" "$test" 2>&1)
    rc=$?
    line=$(grep -E "^(PASS|FAIL) $test" <<<"$out" | head -1)
    case "$rc:$line" in
    1:FAIL*) echo "caught  EEVDF_BUG_$bug  by $line" ;;
    *:)      if [ "$rc" -ge 128 ] && grep -q "^BUG at" <<<"$out"; then
                 echo "caught  EEVDF_BUG_$bug  by $test (it trips $(grep -m1 "^BUG at" <<<"$out"))"
             else
                 echo "MISSED  EEVDF_BUG_$bug  $test did not run or fail (exit $rc)"; echo x >>"$OUT/missed"
             fi ;;
    *)       echo "MISSED  EEVDF_BUG_$bug  $test still passes ($line)"; echo x >>"$OUT/missed" ;;
    esac
done
if [ -f "$OUT/missed" ]; then rm -f "$OUT/missed"; exit 1; fi
