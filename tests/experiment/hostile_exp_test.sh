#!/usr/bin/env bash
# Hostile files, outputs and runs for `runq experiment` and `runq merge`
# (issue 30; docs/security.md):
#   1. merge: the shards of a seed-0 experiment with repeats are one
#      experiment (F6); shards whose ids sit at the int64 limits are
#      refused naming the file, never wrapped (F16); two merges into one
#      OUT at once make one experiment with every run (F8);
#   2. durations and counts past 64 bits, in scenario files (file:line)
#      and on the command line (one usage line, exit 2), refused, and
#      the largest that fits taken (F7);
#   3. the Linux engine refuses RT spinners on every host CPU unless
#      --allow-rt-hog (F11);
#   4. kill -9 and SIGHUP of runq experiment leave no QEMU, runner or
#      tracing instance behind; SIGHUP stores the run as interrupted (F15).
# usage: tests/experiment/hostile_exp_test.sh [RUNQ]   (default build/runq)
set -u
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
at_exit 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null'
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=86:print_stacktrace=1}

# ---- 1. merge ----

# A matrix of three cells on paper, short.
cat >"$T/m.scn" <<'SCN'
cpus 1
quantum 100us
run 20ms
task a cpu=0 pattern=run:100us,every:1ms:30%
task b cpu=0
measure a share
vary a.nice 0,5,10
SCN

# shards DIR SEED: the 3 x 3 matrix in three shards, DIR/s1.db..s3.db.
shards() {
    local dir=$1 seed=$2 i
    mkdir -p "$dir"
    for i in 1 2 3; do
        "$RUNQ" experiment --quiet --engine sim --repeat 3 --seed "$seed" --shard "$i/3" --db "$dir/s$i.db" \
            "$T/m.scn" >/dev/null 2>"$T/err" || { failed "shards_seed_$seed" "shard $i: $(head -c 300 "$T/err")"; return 1; }
    done
}

# F6: seed 0 prints no seed line in repeat 0's scenario text, and "seed 1"
# in repeat 1's; the merge took them for two scenarios.
for seed in 0 1; do
    D=$T/seed$seed
    shards "$D" $seed || continue
    runq merge "$D/all.db" "$D/s1.db" "$D/s2.db" "$D/s3.db"
    if [ "$rc" != 0 ]; then
        failed "merge_seed_${seed}_shards_with_repeats" "exit $rc: $(head -c 300 "$T/err")"
    elif ! grep -q '3 cells x 3 repeats: 9 of 9 runs$' "$T/out"; then
        failed "merge_seed_${seed}_shards_with_repeats" "$(cat "$T/out")"
    else
        "$RUNQ" experiment --quiet --engine sim --repeat 3 --seed $seed --db "$D/one.db" "$T/m.scn" >/dev/null 2>&1
        if diff <("$RUNQ" report experiment --db "$D/all.db" --csv) <("$RUNQ" report experiment --db "$D/one.db" --csv) >"$T/diff"; then
            pass "merge_seed_${seed}_shards_with_repeats"
        else
            failed "merge_seed_${seed}_shards_with_repeats" "not the unsharded table: $(head -n 8 "$T/diff")"
        fi
    fi
done

# F16: ids at the int64 limits cannot be moved past OUT's; the merge must
# refuse the shard by name, with OUT as it was, and not overflow (the
# sanitizer build exits 86 on a signed overflow).
D=$T/limits
if shards "$D" 1; then
    "$RUNQ" merge "$D/out.db" "$D/s1.db" >/dev/null 2>&1
    sum=$(sha256sum <"$D/out.db")
    cp "$D/s2.db" "$D/low.db"
    sq "$D/low.db" "UPDATE scenario SET scenario_id = -9223372036854775807 - 1 WHERE scenario_id = (SELECT MIN(scenario_id) FROM scenario)"
    cp "$D/s3.db" "$D/high.db"
    sq "$D/high.db" "UPDATE scenario SET scenario_id = 9223372036854775807 WHERE scenario_id = (SELECT MAX(scenario_id) FROM scenario)"
    for f in low high; do
        runq merge "$D/out.db" "$D/$f.db"
        if [ "$rc" != 1 ]; then
            failed "merge_refuses_${f}_ids_at_int64_limit" "exit $rc, want 1: $(head -c 300 "$T/err")"
        elif ! grep -q "^runq merge: $D/$f.db: .*overflowing 64 bits" "$T/err"; then
            failed "merge_refuses_${f}_ids_at_int64_limit" "no refusal naming $f.db: $(head -c 300 "$T/err")"
        elif [ "$(sha256sum <"$D/out.db")" != "$sum" ]; then
            failed "merge_refuses_${f}_ids_at_int64_limit" "OUT changed"
        else
            pass "merge_refuses_${f}_ids_at_int64_limit"
        fi
    done
fi

# F8: two merges into one OUT at once. Each read OUT, found no experiment
# of the group, and wrote its own: one experiment split in two. Several
# tries, so that the two overlap in at least some.
D=$T/race
if shards "$D" 1; then
    split=0 errs=0
    for try in 1 2 3 4 5 6; do
        rm -f "$D/out.db"
        "$RUNQ" merge "$D/out.db" "$D/s1.db" >"$D/a.out" 2>"$D/a.err" &
        "$RUNQ" merge "$D/out.db" "$D/s2.db" >"$D/b.out" 2>"$D/b.err" &
        wait %1; ra=$?
        wait %2; rb=$?
        if [ $ra != 0 ] || [ $rb != 0 ]; then
            errs=$((errs + 1)); why="exit $ra/$rb: $(cat "$D/a.err" "$D/b.err" | head -c 300)"
            continue
        fi
        got=$(sq "$D/out.db" "SELECT COUNT(*) || ' ' || (SELECT COUNT(*) FROM scenario) || ' ' || COALESCE(MAX(shard), 'NULL') FROM experiment")
        [ "$got" = "1 6 1,2/3" ] || { split=$((split + 1)); why="try $try: experiments, runs, shard: $got"; }
    done
    if [ $split = 0 ] && [ $errs = 0 ]; then pass "concurrent_merges_make_one_experiment (6 tries)"
    else failed concurrent_merges_make_one_experiment "$split split, $errs failed of 6; $why"; fi
fi

# ---- 2. durations and counts past 64 bits (F7) ----
# 18446744074 s is 2^64 ns and a little more: its product with 1e9 wrapped
# to 0.29 s, which the one-hour bound then took.

# scn NAME LINE...: a scenario whose line 3 onwards are LINE..., run
# through --dry-run on paper.
scn() {
    local f=$T/$1.scn
    shift
    { echo "cpus 1"; echo "quantum 10us"; printf '%s\n' "$@"; } >"$f"
    runq experiment --engine sim --dry-run "$f"
}

# refused NAME LINENO VALUE LINE...: refused with NAME.scn:LINENO: in one
# line naming VALUE (so refused for VALUE, not for what it wrapped to), exit 2.
refused() {
    local name=$1 at=$2 value=$3
    shift 3
    scn "$name" "$@"
    if [ "$rc" = 2 ] && grep -q "^runq experiment: $T/$name.scn:$at: .*$value" "$T/err" &&
        [ "$(wc -l <"$T/err")" = 1 ]; then
        pass "$name"
    else
        failed "$name" "exit $rc, want 2 with $name.scn:$at: and $value: $(head -c 300 "$T/err")"
    fi
}

# taken NAME LINE...: the largest that fits is taken.
taken() {
    local name=$1
    shift
    scn "$name" "$@"
    if [ "$rc" = 0 ]; then pass "$name"; else failed "$name" "exit $rc: $(head -c 300 "$T/err")"; fi
}

for d in 18446744074s 18446744073709551616 99999999999999999999ns 3600000000001ns -1ms 3601s; do
    refused "scn_run_$d" 3 "$d" "run $d" "task a"
    refused "scn_stall_$d" 4 "$d" "run 1ms" "stall $d" "task a"
    refused "scn_slice_$d" 4 "$d" "run 1ms" "task a slice=$d"
    refused "scn_arrive_$d" 4 "$d" "run 1ms" "task a arrive=$d"
    refused "scn_pattern_run_$d" 4 "$d" "run 1ms" "task a pattern=run:$d,sleep:1ms"
    refused "scn_pattern_sleep_$d" 4 "$d" "run 1ms" "task a pattern=run:1ms,sleep:$d"
    refused "scn_every_$d" 4 "$d" "run 1ms" "task a pattern=run:10us,every:$d"
    refused "scn_vary_stall_$d" 5 "$d" "run 1ms" "task a" "vary stall 1ms,$d"
done
taken scn_stall_3600s_is_the_longest "run 1ms" "stall 3600s" "task a"
taken scn_arrive_3600000000000ns_is_the_longest "run 1ms" "task a arrive=3600000000000ns"
taken scn_sleep_3600s_is_the_longest "run 1ms" "task a pattern=run:10us,sleep:3600s"
for n in 18446744073709551616 99999999999999999999 -1; do
    refused "scn_star_count_$n" 4 "$n" "run 1ms" "task a*$n"
    refused "scn_cpus_$n" 3 "$n" "cpus $n" "run 1ms" "task a"
    refused "scn_prio_$n" 4 "$n" "run 1ms" "task a class=rt prio=$n"
    refused "scn_pipe_size_$n" 4 "$n" "run 1ms" "pipe p size=$n" "task a pattern=write:p:1" "task b pattern=read:p:1"
    refused "scn_pipe_bytes_$n" 5 "$n" "run 1ms" "pipe p" "task a pattern=write:p:$n" "task b pattern=read:p:1"
    refused "scn_knob_$n" 3 "$n" "knob rt_runtime_us $n" "run 1ms" "task a"
done
refused scn_seed_past_2_64 3 18446744073709551616 "seed 18446744073709551616" "run 1ms" "task a"
refused scn_seed_negative 3 -1 "seed -1" "run 1ms" "task a"
taken scn_seed_2_64_less_1_is_the_largest "seed 18446744073709551615" "run 1ms" "task a"

# On the command line: one usage line, exit 2.
echo "task a" >"$T/one.scn"
for v in 18446744074s 18446744073709551616 99999999999999999999ns 3600000000001ns -1s; do
    expect "sim_run_$v" 2 "--run" sim --run "$v" "$T/one.scn"
    expect "compare_interval_$v" 2 "--interval" report compare --db "$T/none.db" --interval "$v" 1 2
    expect "compare_threshold_$v" 2 "--threshold" report compare --db "$T/none.db" --threshold "$v" 1 2
done
for v in 18446744073709551616 99999999999999999999 -1; do
    for f in repeat jobs timeout seed; do
        expect "experiment_${f}_$v" 2 "--$f" experiment --engine sim --dry-run --$f "$v" "$T/one.scn"
    done
    expect "experiment_shard_$v" 2 "--shard" experiment --engine sim --dry-run --shard "1/$v" "$T/one.scn"
    expect "sim_seed_$v" 2 "--seed" sim --seed "$v"
    [ "$v" = -1 ] || expect "report_experiment_$v" 2 "experiment takes" report experiment "$v" --db "$T/none.db"
    expect "lab_seeds_$v" 2 "--seeds" lab --seeds "$v" check 1
    expect "lab_seed_$v" 2 "--seed" lab --seed "$v" show 1
done
for v in 99999999999999999999 18446744073709551616 9223372036854775808; do
    for arg in "run:$v" "1/0/$v" "1/$v" "$v/0"; do
        expect "compare_run_$arg" 2 "want a trace id" report compare --db "$T/seed1/one.db" "$arg" 1/0/0
    done
done
expect experiment_seed_past_repeat 2 "runs past the largest seed" \
    experiment --engine sim --dry-run --seed 18446744073709551615 --repeat 2 "$T/one.scn"
runq experiment --engine sim --dry-run --seed 18446744073709551615 "$T/one.scn"
if [ "$rc" = 0 ] && grep -q "seeds 18446744073709551615..18446744073709551615" "$T/out"; then
    pass experiment_seed_2_64_less_1_is_the_largest
else
    failed experiment_seed_2_64_less_1_is_the_largest "exit $rc: $(head -c 300 "$T/err")"
fi
runq sim --seed 18446744073709551615
if [ "$rc" = 0 ]; then pass sim_seed_2_64_less_1_is_the_largest; else failed sim_seed_2_64_less_1_is_the_largest "exit $rc: $(head -c 300 "$T/err")"; fi
runq sim --run 3600s "$T/one.scn"
if grep -q -- "want a duration" "$T/err"; then failed sim_run_3600s_is_the_longest "refused as a bad --run: $(head -c 300 "$T/err")"; else pass sim_run_3600s_is_the_longest; fi

# ---- 3. RT tasks that never sleep on every host CPU (F11) ----
TRACING=/sys/kernel/tracing
ncpu=$(nproc)
[ "$(id -u)" = 0 ] && ! [ -d "$TRACING/instances" ] && mount -t tracefs nodev "$TRACING" 2>/dev/null
if [ "$(id -u)" != 0 ]; then
    echo "SKIP rt_hog: not root (SCHED_FIFO, and the Linux engine's recording, need root)"
else
    # hog NAME LINES...: a scenario on every host CPU (line 1: cpus), 50 ms.
    hog() { local f=$T/$1.scn; shift; { echo "cpus $ncpu"; echo "run 50ms"; printf '%s\n' "$@"; } >"$f"; }
    hog spin "task fair" "task spin*$ncpu class=rt prio=10"
    hog yielder "task y*$ncpu class=rt prio=10 pattern=run:1ms,yield"
    hog pinned "task fair" "task spin*$ncpu class=rt prio=10 cpu=0"
    hog sleeper "task s*$ncpu class=rt prio=10 pattern=run:1ms,sleep:1ms"
    hog top "task spin*$ncpu class=rt prio=99"
    for at in spin:4 yielder:3; do
        name=${at%:*}
        expect "refuses_rt_${name}_on_every_cpu" 2 "$name.scn:${at#*:}: " experiment --engine linux --dry-run --db "$T/rt.db" "$T/$name.scn"
        grep -q -- "--allow-rt-hog" "$T/err" || failed "refuses_rt_${name}_on_every_cpu" "no --allow-rt-hog in: $(cat "$T/err")"
    done
    expect refuses_rt_hog_from_runq_run 2 "spin.scn:4: " run --engine linux --dry-run --db "$T/rt.db" "$T/spin.scn"
    expect refuses_rt_prio_99_on_every_cpu_even_allowed 2 "top.scn:3: " \
        experiment --engine linux --allow-rt-hog --dry-run --db "$T/rt.db" "$T/top.scn"
    for name in pinned sleeper; do
        runq experiment --engine linux --dry-run --db "$T/rt.db" "$T/$name.scn"
        if [ "$ncpu" -lt 2 ] && [ $name = pinned ]; then
            echo "SKIP takes_rt_$name: one CPU, so a spinner on CPU 0 holds them all"
        elif [ "$rc" = 0 ]; then pass "takes_rt_$name"
        else failed "takes_rt_$name" "exit $rc: $(head -c 300 "$T/err")"; fi
    done
    expect allow_rt_hog_is_the_linux_engines 2 "--allow-rt-hog" experiment --engine sim --allow-rt-hog --dry-run "$T/spin.scn"
    # With --allow-rt-hog it runs: 50 ms of RT spinners on every CPU, only
    # where RT throttling leaves the host its share.
    rt=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null)
    if [ -z "$rt" ] || [ "$rt" = -1 ]; then
        echo "SKIP runs_rt_hog_when_allowed: RT throttling is off (kernel.sched_rt_runtime_us=${rt:-unreadable}): spinners on every CPU would hold it"
    elif ! [ -d "$TRACING/instances" ]; then
        echo "SKIP runs_rt_hog_when_allowed: no tracefs at $TRACING"
    else
        runq experiment --quiet --engine linux --allow-rt-hog --db "$T/rt.db" "$T/spin.scn"
        got=$(sq "$T/rt.db" "SELECT status || ' ' || (SELECT COUNT(*) FROM scenario_task WHERE scenario_id = s.scenario_id) || ' ' || (trace_id IS NOT NULL) FROM scenario s" 2>&1)
        if [ "$rc" = 0 ] && [ "$got" = "ok $((ncpu + 1)) 1" ]; then pass runs_rt_hog_when_allowed
        else failed runs_rt_hog_when_allowed "exit $rc, run '$got': $(head -c 300 "$T/err")"; fi
    fi
fi

# ---- 4. runs end with their runq experiment (F15) ----
# A run outlived a runq experiment killed with SIGKILL (QEMU and runq
# boot, or a Linux run's threads and its tracing instance) for as long as
# it had to go, and a SIGHUP killed runq experiment, storing nothing.

# none_alive PIDS...: none of PIDS runs (a zombie counts as ended).
none_alive() {
    local p
    for p in "$@"; do
        [ -e /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && return 1
    done
    return 0
}
# within SECONDS CMD...: CMD succeeds within SECONDS.
within() {
    local n=$(($1 * 10))
    shift
    while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
    return 1
}
has_qemu() { ps -o comm= -p "$(tree $1 | tr ' ' ',')" 2>/dev/null | grep -q qemu; }

# Busy: under icount an idle guest skips ahead, and a run that sleeps ends early.
printf 'cpus 1\nrun 60s\ntask a\n' >"$T/k.scn"
printf 'cpus 1\nquantum 10us\nrun 8s\ntask a pattern=run:1ms,sleep:1ms\ntask r class=rt prio=10 pattern=run:100us,sleep:1ms\n' >"$T/l.scn"

# killed ENGINE SIGNAL: runq experiment of one ENGINE cell, sent SIGNAL
# mid-run; its runs must be gone within 4 s, and after a SIGHUP the run
# stored as failed, interrupted.
killed() {
    local engine=$1 sig=$2 name=${1}_run_ends_with_runq_experiment_on_${2#-} pid pids inst="" got
    rm -f "$T/kill.db"
    "$RUNQ" experiment --quiet --engine "$engine" --db "$T/kill.db" "$T/${engine:0:1}.scn" >"$T/kill.out" 2>"$T/kill.err" &
    pid=$!
    disown $pid # no "Killed" line from bash; none_alive waits for it instead
    if [ "$engine" = kernel ]; then
        within 60 has_qemu $pid || { failed "$name" "no QEMU under runq experiment: $(head -c 300 "$T/kill.err")"; kill -9 $(tree $pid) 2>/dev/null; return; }
    else
        within 20 instance_of_child $pid >/dev/null || { failed "$name" "no tracing instance: $(head -c 300 "$T/kill.err")"; kill -9 $(tree $pid) 2>/dev/null; return; }
        inst=$(instance_of_child $pid)
    fi
    pids=$(tree $pid)
    kill "$sig" $pid
    if ! within 4 none_alive $pids; then
        failed "$name" "still running 4 s after kill $sig: $(ps -o pid=,comm= -p "$(echo $pids | tr ' ' ',')" | tr '\n' ' ')"
        kill -9 $pids 2>/dev/null
        wait $pid 2>/dev/null
        return
    fi
    { wait $pid; } 2>/dev/null
    if [ -n "$inst" ] && ! within 4 eval "! [ -d $TRACING/instances/$inst ]"; then
        failed "$name" "tracing instance $inst left"
        return
    fi
    if [ "$sig" = -HUP ]; then
        got=$(sq "$T/kill.db" "SELECT status || ': ' || error FROM scenario" 2>&1)
        case $got in
        "failed: interrupted (signal 1)") ;;
        *) failed "$name" "the run stored as '$got', want failed: interrupted (signal 1)"; return ;;
        esac
    fi
    pass "$name"
}
for sig in -KILL -HUP; do
    killed kernel $sig
    if [ "$(id -u)" != 0 ] || ! [ -d "$TRACING/instances" ]; then
        echo "SKIP linux_run_ends_with_runq_experiment_on_${sig#-}: the Linux engine's recording needs root and tracefs"
    else
        killed linux $sig
    fi
done

# What outlived its runq experiment anyway is ended at the next start: a
# process marked by a runq experiment that no longer runs (pid 4194305 is
# past pid_max), not one whose runq experiment runs (this shell stands in).
RUNQ_EXPERIMENT=4194305:1 sleep 60 &
stale=$!
mine_start=$(awk '{ sub(/.*\) /, ""); print $20 }' /proc/$$/stat)
RUNQ_EXPERIMENT=$$:$mine_start sleep 60 &
live=$!
# Each mark is in its process's environment only once it has exec'd sleep:
# before that the forked shell shows this one's (a clean clone's make test
# once started runq experiment first, and the stale process went unseen).
marked() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | grep -q "^RUNQ_EXPERIMENT=$2\$"; }
within 5 marked $stale 4194305:1
within 5 marked $live "$$:$mine_start"
runq experiment --quiet --engine sim --db "$T/reap.db" "$T/one.scn"
if [ "$rc" != 0 ]; then
    failed reaps_runs_of_a_dead_runq_experiment "exit $rc: $(head -c 300 "$T/err")"
elif ! within 5 none_alive $stale || ! grep -q "ended process $stale, a run left by runq experiment 4194305" "$T/err"; then
    failed reaps_runs_of_a_dead_runq_experiment "process $stale not ended, or not said: $(head -c 300 "$T/err")"
elif none_alive $live; then
    failed reaps_runs_of_a_dead_runq_experiment "ended $live, whose runq experiment (this shell) runs"
else
    pass reaps_runs_of_a_dead_runq_experiment
fi
kill $stale $live 2>/dev/null

# ---- 5. hostile numbers and text in the database (db_fuzz's findings) ----

# hostile NAME SECS ARGS...: runq ARGS on a crafted database, under the
# sanitizers (exit 86), must end within SECS, exit 0-2 and put no ESC on
# stdout or stderr: a number is bounded or refused, text shown visibly.
hostile() {
    local name=$1 secs=$2 t0 rc
    shift 2
    t0=$(date +%s%N)
    timeout -k 2 "$secs" "$RUNQ" "$@" >"$T/h.out" 2>"$T/h.err"
    rc=$?
    if [ $rc -gt 2 ]; then
        failed "$name" "exit $rc ($(( ($(date +%s%N) - t0) / 1000000 )) ms): $(grep -am3 'runtime error\|ERROR\|SUMMARY' "$T/h.err" | cut -c1-200)"
    elif grep -aq $'\x1b' "$T/h.out" "$T/h.err"; then
        failed "$name" "ESC on the terminal: $(grep -ahm1 $'\x1b' "$T/h.out" "$T/h.err" | cat -v | cut -c1-200)"
    else
        pass "$name"
    fi
}

"$RUNQ" experiment --quiet --engine sim --db "$T/hx.db" "$T/m.scn" >/dev/null 2>&1 ||
    failed hostile_fixture "runq experiment could not record $T/hx.db"
# merge quotes a shard it refuses: the terminal's controls shown as \xHH
cp "$T/hx.db" "$T/hs.db"
sqlite3 "$T/hs.db" "UPDATE experiment SET shard = char(13) || char(27) || '[2J'"
rm -f "$T/ho.db"
hostile merge_shows_a_refused_shard_visibly 20 merge "$T/ho.db" "$T/hs.db"
# merge's line for an experiment: its file as text, and a count of cells
# far past its runs bounded (2^31 cells took 12 s under ASan)
cp "$T/hx.db" "$T/hc.db"
sqlite3 "$T/hc.db" "UPDATE experiment SET file = char(13) || char(27) || '[K'' OR 1=1 --', cells = 2147483647"
rm -f "$T/ho.db"
hostile merge_bounds_an_experiment_of_2e31_cells 5 merge "$T/ho.db" "$T/hc.db"
grep -q 'past what an experiment holds' "$T/h.out" ||
    failed merge_says_the_count_is_damaged "$(head -c 300 "$T/h.out")"

# report compare: a trace whose start and end are far apart in int64_t
record_fixtures --ms 100 --seed 3
cp "$T/f.db" "$T/ht.db"
sqlite3 "$T/ht.db" "UPDATE trace SET start_ts = -9223372036854775807, end_ts = 9223372036854775807"
hostile compare_of_a_trace_spanning_int64 20 report compare 1 2 --db "$T/ht.db" --force --interval 50ms

# ---- top on hostile numbers ----
# top_tty NAME DB: top in a pseudo-terminal from the trace's middle, q typed
top_tty() {
    local name=$1 db=$2
    { sleep 1; printf q; } | TERM=xterm-256color timeout -k 2 20 \
        script -qefc "$(printf '%q ' "$RUNQ" top --db "$db" --trace 1 --at 0.05 --speed 10 --delay 1)" /dev/null \
        >"$T/h.out" 2>&1
    local rc=$?
    if [ $rc -gt 2 ] || grep -aq 'runtime error\|AddressSanitizer' "$T/h.out"; then
        failed "$name" "exit $rc: $(grep -am2 'runtime error\|ERROR' "$T/h.out" | cut -c1-200)"
    else
        pass "$name"
    fi
}
if command -v script >/dev/null; then
    # a rowid at INT64_MAX: top's seek past it overflowed (hi + 1)
    cp "$T/f.db" "$T/hr.db"
    sqlite3 "$T/hr.db" "UPDATE eevdf_place SET rowid = 9223372036854775807 WHERE rowid = (SELECT MAX(rowid) FROM eevdf_place)"
    top_tty top_seeks_past_a_rowid_of_int64_max "$T/hr.db"
    # a weight of 2^32: truncated to 32 bits it was a division by zero
    cp "$T/f.db" "$T/hw.db"
    sqlite3 "$T/hw.db" "UPDATE eevdf_place SET weight = 4294967296"
    top_tty top_takes_a_weight_past_32_bits "$T/hw.db"
else
    echo "SKIP top on hostile numbers: no script(1)"
fi

exit $fail
