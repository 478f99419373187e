#!/bin/sh
# Prove the EEVDF unit tests: for each bug switch in kernel/sched/eevdf*.c
# and weights.c, build tests/eevdf_test.c with the bug put back and check
# that the test named beside it FAILS (and that the clean build passes).
#
#   tests/eevdf_bugs.sh            # from the repository root
#
# The clean build is the one the Makefile runs:
#   gcc -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
#       -iquote kernel/sched -iquote kernel/lib -o build/eevdf_test tests/eevdf_test.c \
#       kernel/sched/eevdf.c kernel/sched/eevdf_tree.c kernel/sched/weights.c
set -u
CC=${CC:-gcc}
OUT=${OUT:-build/eevdf_bugs}
mkdir -p "$OUT"
SRC="tests/eevdf_test.c kernel/sched/eevdf.c kernel/sched/eevdf_tree.c kernel/sched/weights.c"
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
echo "$cases" | while read -r bug test; do
    [ -z "$bug" ] && continue
    bin="$OUT/$bug"
    [ -x "$bin" ] || $CC $FLAGS -DEEVDF_BUG_$bug -o "$bin" $SRC || { echo "BUILD $bug failed"; exit 1; }
    line=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$bin" "$test" 2>&1 | grep -E "^(PASS|FAIL) $test" | head -1)
    case "$line" in
    FAIL*) echo "caught  EEVDF_BUG_$bug  by $line" ;;
    "")    echo "caught  EEVDF_BUG_$bug  by $test (crashed: BUG_ON/abort)" ;;
    *)     echo "MISSED  EEVDF_BUG_$bug  $test still passes"; echo x >>"$OUT/missed" ;;
    esac
done
if [ -f "$OUT/missed" ]; then rm -f "$OUT/missed"; exit 1; fi
