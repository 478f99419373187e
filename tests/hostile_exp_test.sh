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
# usage: tests/hostile_exp_test.sh [RUNQ]   (default build/runq)
set -u
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
. tests/lib.sh
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
