#!/usr/bin/env bash
# The runner of make test (tests/runner.sh) on lists of fake suites: in two
# lanes, a suite that exits 1 without a FAIL line, one that prints nothing,
# one FAIL line, a skip, each counted as tests/run.sh promises; result lines
# in the listed order whatever order the suites end in; two suites that
# can only pass if they run at the same time; an --alone suite run with
# nothing beside it; the longest expected first; RUNQ_TEST_JOBS=1 runs the
# listed order; ^C stops every lane, and what the lanes started; the
# schedule says each suite's CPU seconds.
set -u
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh

# runner NAME JOBS: runs the list $T/NAME.list (suite lines, and the
# functions they call) with JOBS lanes; leaves $T/NAME.out and $rc.
runner() {
    { echo ". tests/runner.sh"; cat "$T/$1.list"; echo "run_suites"; } >"$T/$1.sh"
    LOGS=$T/$1.logs DURATIONS=$T/durations RUNQ_TEST_JOBS=$2 bash "$T/$1.sh" >"$T/$1.out" 2>&1
    rc=$?
}
# line NAME SUITE: SUITE's result line in $T/NAME.out, its figures only.
line() { sed -n "s/^$2  *\([0-9]* passed *[0-9]* failed *[0-9]* skipped\).*/\1/p" "$T/$1.out" | tr -s ' '; }
# counts NAME SUITE WANT: SUITE's line says WANT ("P passed F failed K skipped").
counts() {
    if [ "$(line "$1" "$2")" = "$3" ]; then pass "$1_$2"; else failed "$1_$2" "want '$3', got '$(line "$1" "$2")'"; fi
}

# ---- two lanes: every way a suite fails, skips and passes ----
# meet A B: suite A waits (up to 20 s) for suite B to be running: passes
# only if both run at once.
cat >"$T/mixed.list" <<EOF
meet() { touch "$T/at.\$1"; for _ in \$(seq 200); do [ -e "$T/at.\$2" ] && { echo "PASS met_\$2"; return; }; sleep 0.1; done; echo "FAIL met_\$2: never ran beside \$2"; }
suite slow_first bash -c 'sleep 2; echo PASS slow'
suite exit1 bash -c 'echo PASS before_the_exit; exit 1'
suite silent true
suite onefail bash -c 'echo PASS a; echo "FAIL b: wrong"; echo PASS c'
suite skips bash -c 'echo PASS a; echo "SKIP b: not here"'
suite meet_a meet a b
suite meet_b meet b a
suite --alone alone bash -c '[ -e "$T/busy.done" ] || { echo "FAIL alone: started beside busy"; exit 1; }; for s in slow_first exit1 silent onefail skips meet_a meet_b; do [ -s "$T/mixed.logs/\$s.log" ] || [ \$s = silent ] || { echo "FAIL alone: \$s had not run"; exit 1; }; done; echo PASS alone'
suite ok bash -c 'awk "BEGIN { for (i = 0; i < 4e7; i++) s += i }"; echo PASS one; echo PASS two'
suite busy bash -c 'sleep 2; touch "$T/busy.done"; echo PASS busy'
EOF
printf 'slow_first 50\nexit1 1\nsilent 1\nonefail 1\nskips 1\nmeet_a 9\nmeet_b 9\nalone 1\nok 1\nbusy 1\n' >"$T/durations"
runner mixed 2
counts mixed slow_first "1 passed 0 failed 0 skipped"
counts mixed exit1 "1 passed 1 failed 0 skipped"
grep -q '^FAIL exit1: exited with status 1$' "$T/mixed.logs/exit1.log" && pass exit1_noted_in_its_log ||
    failed exit1_noted_in_its_log "$(cat "$T/mixed.logs/exit1.log")"
counts mixed silent "0 passed 1 failed 0 skipped"
grep -q '^    FAIL silent: no check ran' "$T/mixed.out" && pass silent_says_why || failed silent_says_why "$(cat "$T/mixed.out")"
counts mixed onefail "2 passed 1 failed 0 skipped"
counts mixed skips "1 passed 0 failed 1 skipped"
counts mixed meet_a "1 passed 0 failed 0 skipped"
counts mixed meet_b "1 passed 0 failed 0 skipped"
counts mixed alone "1 passed 0 failed 0 skipped"
counts mixed ok "2 passed 0 failed 0 skipped"
counts mixed busy "1 passed 0 failed 0 skipped"
order=$(grep -oE '^[a-z_0-9]+ +[0-9]+ passed' "$T/mixed.out" | awk '{ print $1 }' | tr '\n' ' ')
[ "$order" = "slow_first exit1 silent onefail skips meet_a meet_b alone ok busy " ] && pass results_in_listed_order ||
    failed results_in_listed_order "$order"
if [ "$(tail -n 2 "$T/mixed.out")" = "1 skipped (not run here, not counted as passed)
11 passed, 3 failed" ] && [ "$rc" = 1 ]; then pass totals_and_exit; else failed totals_and_exit "rc $rc: $(tail -n 2 "$T/mixed.out")"; fi
[ "$(wc -l <"$T/mixed.logs/durations")" = 10 ] && grep -q '^slow_first [0-9]' "$T/mixed.logs/durations" &&
    pass durations_written || failed durations_written "$(cat "$T/mixed.logs/durations")"
# the schedule: ten suites, the --alone one last, started when all else had ended
if awk '$3 == "alone" { a = $1; last = NR } $3 != "alone" && $2 > e { e = $2 } END { exit !(NR == 10 && last == 10 && a >= e) }' \
    "$T/mixed.logs/schedule"; then pass schedule_written; else failed schedule_written "$(cat "$T/mixed.logs/schedule")"; fi
# and each suite's CPU seconds after its name: ok's awk loop (most of a
# second) counted, slow_first's sleep not
if awk '$5 != "cpu" { bad = 1 } $3 == "ok" { ok = $4 } $3 == "slow_first" { slow = $4 }
        END { exit !(!bad && ok >= 0.4 && slow < 0.2) }' "$T/mixed.logs/schedule"; then
    pass schedule_says_cpu_seconds
else
    failed schedule_says_cpu_seconds "$(cat "$T/mixed.logs/schedule")"
fi

# ---- the longest expected starts first; one lane keeps the listed order ----
cat >"$T/order.list" <<EOF
started() { echo \$1 >>"$T/\$2"; echo "PASS \$1"; }
suite short started short started
suite unknown started unknown started
suite long started long started
EOF
printf 'short 1\nlong 100\n' >"$T/durations"
runner order 2
[ "$(head -n 2 "$T/started" | sort | tr '\n' ' ')" = "long unknown " ] && pass longest_and_unknown_start_first ||
    failed longest_and_unknown_start_first "started: $(tr '\n' ' ' <"$T/started")"
rm -f "$T/started"
runner order 1
[ "$(tr '\n' ' ' <"$T/started")" = "short unknown long " ] && [ "$rc" = 0 ] && [ "$(tail -n 1 "$T/order.out")" = "3 passed, 0 failed" ] &&
    pass one_lane_runs_the_listed_order || failed one_lane_runs_the_listed_order "rc $rc, started: $(tr '\n' ' ' <"$T/started")"
runner order 0
[ "$rc" = 2 ] && grep -q "RUNQ_TEST_JOBS='0' is not a number of lanes" "$T/order.out" && pass bad_jobs_refused ||
    failed bad_jobs_refused "rc $rc: $(cat "$T/order.out")"

# ---- ^C: every lane stopped, with what it started ----
cat >"$T/stop.list" <<EOF
suite a bash -c 'sleep 300 & echo \$! >"$T/child.a"; wait'
suite b bash -c 'sleep 300 & echo \$! >"$T/child.b"; wait'
EOF
{ echo ". tests/runner.sh"; cat "$T/stop.list"; echo "run_suites"; } >"$T/stop.sh"
# (started as a job of its own with SIGINT at its default, as a terminal's
# foreground job is: a script's background command starts with SIGINT
# ignored, so may this test, and a shell cannot trap what it started
# ignoring)
set -m
LOGS=$T/stop.logs DURATIONS=$T/durations RUNQ_TEST_JOBS=2 env --default-signal=INT bash "$T/stop.sh" >"$T/stop.out" 2>&1 &
r=$!
set +m
for _ in $(seq 100); do [ -s "$T/child.a" ] && [ -s "$T/child.b" ] && break; sleep 0.1; done
kill -INT $r
for _ in $(seq 100); do kill -0 $r 2>/dev/null || break; sleep 0.1; done
# (a killed child can stay a zombie a moment, until whoever adopted it reaps it)
running() { case $(ps -o stat= -p "$1" 2>/dev/null) in '' | Z*) return 1 ;; esac; }
alive=
for _ in $(seq 20); do
    alive=
    for c in a b; do running "$(cat "$T/child.$c" 2>/dev/null || echo 0)" && alive="$alive $c"; done
    [ -z "$alive" ] && break
    sleep 0.1
done
if ! kill -0 $r 2>/dev/null && [ -z "$alive" ] && grep -q 'stopped by SIGINT' "$T/stop.out"; then
    pass interrupt_stops_every_lane
else
    failed interrupt_stops_every_lane "runner $(kill -0 $r 2>/dev/null && echo alive || echo gone), lanes' children alive:${alive:- none}; $(cat "$T/stop.out")"
    kill -9 $r 2>/dev/null
    for c in a b; do kill -9 "$(cat "$T/child.$c" 2>/dev/null || echo 0)" 2>/dev/null; done
fi
# --excl GROUP: two suites of one group never run at once, and a lane
# passes over the waiting one for a suite of no group (free, listed
# last, starts while ga runs, in two lanes). Each group suite looks for the other running,
# before and after its second.
cat >"$T/excl.list" <<'EOF'
excl() { for w in 0 1; do for o in $2; do [ -e "$X.in.$o" ] && [ ! -e "$X.out.$o" ] && { echo "FAIL $1: ran beside $o"; touch "$X.out.$1"; return; }; done; touch "$X.in.$1"; [ $w = 0 ] && sleep 1; done; touch "$X.out.$1"; echo "PASS $1"; }
suite --excl g ga excl ga gb
suite --excl g gb excl gb ga
suite free bash -c 'for _ in $(seq 100); do [ -e "$X.in.ga" ] && [ ! -e "$X.out.ga" ] && { echo PASS free; exit; }; sleep 0.05; done; echo "FAIL free: not started beside ga"'
EOF
printf 'ga 9\ngb 8\nfree 1\n' >"$T/durations"
X=$T/x runner excl 2
if [ "$(line excl ga)" = "1 passed 0 failed 0 skipped" ] && [ "$(line excl gb)" = "1 passed 0 failed 0 skipped" ] &&
    [ "$(line excl free)" = "1 passed 0 failed 0 skipped" ]; then
    pass excl_group_one_at_a_time
else
    failed excl_group_one_at_a_time "$(grep -E '^ *(ga|gb|free|FAIL)' "$T/excl.out" | tr '\n' '|')"
fi

# tests/run.sh's two sets (RUNQ_TEST_LIST=1 lists a set, runs nothing):
# make test drives the -O2 runq but in the --san suites, which drive the
# sanitized one; make check runs every other suite that drives runq again
# on the sanitized build as san_NAME, not one whose check line replaces
# it, not a --san one, not one that drives no runq.
list() { RUNQ_TESTS_OWN_SESSION=1 RUNQ_LAB_CACHE=off RUNQ_TEST_LIST=1 RUNQ=$1 RUNQ_SAN=SAN RUNQ_TEST_SET=$2 bash tests/run.sh; }
list PLAIN test >"$T/set.test"
list SAN check >"$T/set.check"
bad=""
grep -q '^scenario bash tests/experiment/scenario_test.sh PLAIN $' "$T/set.test" || bad="$bad scenario-not-plain"
grep -q '^hostile_view bash tests/tui/hostile_view_test.sh SAN $' "$T/set.test" || bad="$bad hostile_view-not-sanitized"
grep -q '^san_scenario bash tests/experiment/scenario_test.sh SAN $' "$T/set.check" || bad="$bad no-san_scenario"
grep -q '^san_top_tmux ' "$T/set.check" || bad="$bad no-san_top_tmux"
# a host-Linux suite's twin runs alone in make check (the list shows its
# command, --alone is in the runner's suite_alone: asked of run.sh's list)
RUNQ_TESTS_OWN_SESSION=1 RUNQ_LAB_CACHE=off RUNQ_TEST_LIST=alone RUNQ=SAN RUNQ_SAN=SAN RUNQ_TEST_SET=check bash tests/run.sh >"$T/set.alone"
grep -qx 'san_linux_internals' "$T/set.alone" || bad="$bad san_linux_internals-not-alone"
grep -qx 'san_scenario' "$T/set.alone" && bad="$bad san_scenario-alone"
grep -qE '^san_(hostile_view|db_fuzz|lab_students|benches_short|rr_policy) ' "$T/set.check" && bad="$bad $(grep -oE '^san_(hostile_view|db_fuzz|lab_students|benches_short|rr_policy)' "$T/set.check" | tr '\n' ' ')"
grep -q '^db_fuzz bash tests/db/db_fuzz.sh 40 SAN $' "$T/set.check" || bad="$bad no-long-db_fuzz"
n=$(grep -c '^san_' "$T/set.check")
[ -z "$bad" ] && [ "$n" -ge 30 ] && pass "sets_sanitize_every_runq_suite_once ($n san_ suites in make check)" ||
    failed sets_sanitize_every_runq_suite_once "$n san_ suites;$bad"
exit $fail
