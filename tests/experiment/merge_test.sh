#!/usr/bin/env bash
# Tests of `runq merge` (docs/experiments.md, "Beyond one machine: shards
# and merge"):
#   1. the section's examples: the GNU parallel one run as it is, its
#      output compared with the page's; the ssh and Slurm ones on this
#      machine, through a `parallel` without the options that reach other
#      hosts and an `sbatch` that runs the array's tasks here. Each merged
#      table must be the table of the same experiment run unsharded, as
#      text and as CSV;
#   2. shards merged one at a time into OUT;
#   3. ids: two databases that each hold traces, threads, scenario runs
#      and experiments numbered from 1, merged into a new OUT and appended
#      to an OUT that has its own: every row of every table must be in OUT,
#      every id it names naming the same thing (a trace by its source, a
#      thread by its tid in that trace, ...) as in its own database;
#   4. every refusal: one line naming the file, exit 1, OUT byte for byte
#      as it was (sha256) and a missing OUT still missing; and a failure
#      half-way through the copy, rolled back.
# usage: tests/experiment/merge_test.sh [RUNQ]   (default build/runq)
set -u
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
. tests/lib.sh
at_exit 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null'

REAL_PARALLEL=$(command -v parallel)
if [ -z "$REAL_PARALLEL" ] || ! parallel --version 2>/dev/null | grep -q '^GNU parallel'; then
    failed gnu_parallel "GNU parallel is not installed (sh scripts/deps.sh installs it)"
    exit 1
fi

# same_table NAME A.db B.db: the newest experiment's table of A and of B
# are the same, as text and as CSV, and have rows.
same_table() {
    local name=$1 a=$2 b=$3 f rows
    for f in --table --csv; do
        [ $f = --table ] && f=
        if ! diff <("$RUNQ" report experiment --db "$a" $f 2>&1) <("$RUNQ" report experiment --db "$b" $f 2>&1) \
            >"$T/diff"; then
            failed "$name" "the tables differ${f:+ ($f)}: $(head -n 12 "$T/diff")"
            return
        fi
    done
    rows=$("$RUNQ" report experiment --db "$a" --csv | tail -n +2 | wc -l)
    if [ "$rows" -ge 2 ]; then pass "$name ($rows cells, text and csv)"; else failed "$name" "$rows rows"; fi
}

# unsharded NAME DIR: runs DIR/all.db's experiment again unsharded, on
# paper, into DIR/one.db, and compares the tables.
unsharded() {
    local name=$1 dir=$2 file repeats
    file=$(sq "$dir/all.db" "SELECT file FROM experiment") && repeats=$(sq "$dir/all.db" "SELECT repeats FROM experiment")
    (cd "$dir" && "$RUNQ" experiment --engine sim --quiet --repeat "$repeats" --db one.db "$file" >/dev/null 2>&1) ||
        { failed "$name" "no merged experiment in $dir/all.db, or the unsharded run failed"; return; }
    same_table "$name" "$dir/all.db" "$dir/one.db"
}

# workdir DIR: a directory to run the page's examples in, as from the top
# of the tree: scenarios/ and build/runq (the runq under test).
workdir() {
    mkdir -p "$1/build" && ln -s "$ROOT/scenarios" "$1/scenarios" && ln -s "$RUNQ" "$1/build/runq"
}

# ---- 1. the examples of docs/experiments.md's section ----
awk -v dir="$T" '
    /^## / { in_section = ($0 == "## Beyond one machine: shards and merge") }
    in_section && /^```/ { if (f) { close(f); f = "" } else { n++; f = dir "/block." n } next }
    f { print > f }
' docs/experiments.md

console=0
for b in "$T"/block.*; do
    [ -e "$b" ] || break
    head -n 1 "$b" | grep -q '^\$ ' || continue
    console=$((console + 1))
    D=$T/doc$console
    workdir "$D"
    # Each "$ " line is a command, run in D; the lines up to the next are
    # what it must print.
    awk -v dir="$T" '/^\$ / { n++; print substr($0, 3) > (dir "/cmd." n); printf "" > (dir "/want." n); next }
                     { print > (dir "/want." n) }' "$b"
    k=1
    while [ -e "$T/cmd.$k" ]; do
        cmd=$(cat "$T/cmd.$k")
        name="doc_example_$console.$k (${cmd:0:60}...)"
        run_example "$name" docs/experiments.md "$D" "$cmd" "$T/want.$k"
        rm -f "$T/cmd.$k" "$T/want.$k"
        k=$((k + 1))
    done
    # The page's merge of three shards made with GNU parallel: the
    # unsharded run's table, as CSV too (the page diffs the text).
    if grep -q '^\$ parallel ' "$b" && [ -e "$D/all.db" ] && [ -e "$D/one.db" ]; then
        same_table gnu_parallel_shards_merged_equal_unsharded "$D/all.db" "$D/one.db"
    fi
done
if grep -q '^\$ parallel ' "$T"/block.* 2>/dev/null; then pass "doc_has_a_gnu_parallel_example ($console run)"; else
    failed doc_has_a_gnu_parallel_example "no block in the section starts with '\$ ' and runs parallel"; fi

# The cluster examples, on this machine and on paper: build/runq runs
# experiments with --engine sim (the kernel engine would take minutes).
fake=$T/fake
mkdir -p "$fake"
cat >"$fake/runq" <<EOF
#!/bin/sh
[ "\$1" = experiment ] && { shift; exec "$RUNQ" experiment --engine sim "\$@"; }
exec "$RUNQ" "\$@"
EOF
# GNU parallel without -S, --workdir, --return and --cleanup: what is
# left is the jobs and their command, run here.
cat >"$fake/parallel" <<EOF
#!/usr/bin/env bash
args=()
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do
    case \$1 in
    -S | --sshlogin | --workdir | --wd | --return) shift 2 ;;
    --cleanup) shift ;;
    *) args+=("\$1"); shift ;;
    esac
done
exec "$REAL_PARALLEL" "\${args[@]}" "\$@"
EOF
# Slurm's sbatch, here: a script's array tasks run one after another,
# each with the variables Slurm sets, before it returns (so every
# --dependency holds); --wrap runs its command.
cat >"$fake/sbatch" <<'EOF'
#!/usr/bin/env bash
parsable= wrap= script= out=slurm-%a.out
while [ $# -gt 0 ]; do
    case $1 in
    --parsable) parsable=1 ;;
    --wrap) wrap=$2; shift ;;
    --wrap=*) wrap=${1#--wrap=} ;;
    --output=*) out=${1#--output=} ;;
    --dependency=*) ;;
    -*) echo "sbatch (test): unknown option $1" >&2; exit 1 ;;
    *) script=$1 ;;
    esac
    shift
done
if [ -n "$wrap" ]; then
    sh -c "$wrap" >"${out//%a/0}" 2>&1 || { echo "sbatch (test): --wrap failed: $(cat "${out//%a/0}")" >&2; exit 1; }
else
    range=$(sed -n 's/^#SBATCH --array=//p' "$script")
    cpus=$(sed -n 's/^#SBATCH --cpus-per-task=//p' "$script")
    o=$(sed -n 's/^#SBATCH --output=//p' "$script")
    [ -n "$o" ] && out=$o
    for i in $(seq "${range%-*}" "${range#*-}"); do
        SLURM_ARRAY_TASK_ID=$i SLURM_CPUS_PER_TASK=${cpus:-1} SLURM_SUBMIT_DIR=$PWD bash "$script" >"${out//%a/$i}" 2>&1 ||
            { echo "sbatch (test): task $i failed: $(cat "${out//%a/$i}")" >&2; exit 1; }
    done
fi
if [ -n "$parsable" ]; then echo 4242; else echo "Submitted batch job 4242"; fi
EOF
chmod +x "$fake"/*

# cluster NAME DIR BLOCK: runs BLOCK with bash in DIR, with the fakes.
cluster() {
    local name=$1 dir=$2 block=$3
    mkdir -p "$dir/build" "$dir/tmp" && ln -s "$ROOT/scenarios" "$dir/scenarios" && ln -s "$fake/runq" "$dir/build/runq"
    if ! (cd "$dir" && PATH=$fake:$PATH TMPDIR=$dir/tmp bash -e "$block") >"$T/err" 2>&1; then
        failed "$name" "$(head -c 400 "$T/err")"
        return
    fi
    unsharded "$name" "$dir"
}
ssh_block=$(grep -l -- 'parallel -S' "$T"/block.* | head -n 1)
script_block=$(grep -l '^#SBATCH --array' "$T"/block.* | head -n 1)
submit_block=$(grep -l '^job=$(sbatch' "$T"/block.* | head -n 1)
if [ -n "$ssh_block" ]; then cluster ssh_example_merged_equals_unsharded "$T/ssh" "$ssh_block"; else
    failed ssh_example_merged_equals_unsharded "no 'parallel -S' block in the section"; fi
if [ -n "$script_block" ] && [ -n "$submit_block" ]; then
    mkdir -p "$T/slurm" && cp "$script_block" "$T/slurm/shards.sh"
    cluster slurm_example_merged_equals_unsharded "$T/slurm" "$submit_block"
else
    failed slurm_example_merged_equals_unsharded "no '#SBATCH --array' script, or no 'job=\$(sbatch' block"
fi

# ---- 2. shards one at a time ----
# The page's shards: 4 cells x 2 repeats in 3 shards. 1 and 3, then 2.
S=$T/doc1
if [ -e "$S/shard1.db" ] && [ -e "$S/one.db" ]; then
    "$RUNQ" merge "$T/p.db" "$S/shard1.db" "$S/shard3.db" >"$T/out" 2>&1
    shard=$(sq "$T/p.db" "SELECT shard FROM experiment" 2>&1)
    if [ "$shard" = "1,3/3" ] && grep -q ', shard 1,3/3: 5 of 8 runs; cells 0,2,3 lack runs$' "$T/out"; then
        pass "partial_merge_says_its_shards_and_the_cells_lacking_runs"
    else
        failed partial_merge_says_its_shards_and_the_cells_lacking_runs "shard '$shard'; $(cat "$T/out")"
    fi
    "$RUNQ" merge "$T/p.db" "$S/shard2.db" >"$T/out" 2>&1
    shard=$(sq "$T/p.db" "SELECT COUNT(*) || ' ' || IFNULL(shard, 'NULL') FROM experiment" 2>&1)
    if [ "$shard" = "1 NULL" ]; then
        same_table "the_missing_shard_appended_completes_it" "$T/p.db" "$S/one.db"
    else
        failed the_missing_shard_appended_completes_it "experiments and shard: '$shard'; $(cat "$T/out")"
    fi
else
    failed shards_one_at_a_time "the page's example left no shard1.db and one.db"
fi

# ---- 3. ids ----
# a.db: an EEVDF trace, then a kernel experiment (its run's trace, tasks
# with utids); b.db: a round robin trace, an experiment on paper, another
# EEVDF trace. Each stream has a file of its own: a trace's source names it.
kernel_scn "$T/k.scn" 1 200ms <<'EOF'
measure probe stall p99
EOF
"$GEN" --ms 200 --seed 1 --out "$T/a1.bin" && "$GEN" --ms 200 --policy rr --tasks 5 --seed 2 --out "$T/b1.bin" &&
    "$GEN" --ms 100 --tasks 7 --seed 3 --out "$T/b2.bin" &&
    "$RUNQ" record --file "$T/a1.bin" --db "$T/a.db" >/dev/null 2>&1 &&
    "$RUNQ" record --file "$T/b1.bin" --db "$T/b.db" >/dev/null 2>&1 &&
    "$RUNQ" experiment --engine sim --quiet --db "$T/b.db" "$T/k.scn" >/dev/null 2>&1 &&
    "$RUNQ" record --file "$T/b2.bin" --db "$T/b.db" >/dev/null 2>&1 ||
    { failed fixture "recording the traces"; exit 1; }
kernel=0
if [ -e "$(dirname "$RUNQ")/kernel.elf" ] && command -v qemu-system-x86_64 >/dev/null; then
    if "$RUNQ" experiment --quiet --db "$T/a.db" "$T/k.scn" >/dev/null 2>"$T/err"; then kernel=1; else
        failed kernel_experiment_fixture "$(tail -n 3 "$T/err")"; fi
else
    echo "SKIP kernel_experiment_fixture: no kernel or QEMU here; the ids are checked without a traced run"
    "$RUNQ" experiment --engine sim --quiet --db "$T/a.db" "$T/k.scn" >/dev/null 2>&1
fi

# Names for what an id points at, that do not depend on its number.
trace_key() { echo "(SELECT source || '|' || created || '|' || records FROM trace WHERE trace_id = $1)"; }
utid_key() { echo "(SELECT th.tid || '@' || $(trace_key th.trace_id) FROM thread th WHERE th.utid = $1)"; }
exp_key() { echo "(SELECT file || '|' || engine || '|' || created || '|' || command FROM experiment WHERE experiment_id = $1)"; }
scen_key() { echo "(SELECT sc.cell || ',' || sc.repeat || ',' || sc.seed || '|' || $(exp_key sc.experiment_id) FROM scenario sc WHERE sc.scenario_id = $1)"; }
# dump DB TABLE: TABLE's rows in the order stored, each id a row names
# given as what it names; a row's own id left out (it is any number).
dump() {
    local db=$1 tbl=$2 c cols=
    for c in $(sq "$db" "SELECT name FROM pragma_table_info('$tbl')"); do
        case "$tbl.$c" in
        *.id | trace.trace_id | thread.utid | scenario.scenario_id | experiment.experiment_id) continue ;;
        *.trace_id) c=$(trace_key "x.$c") ;;
        *.utid | *.parent_utid | *.waker_utid | *.waker | *.prev_utid | *.next_utid | *.curr_utid) c=$(utid_key "x.$c") ;;
        *.scenario_id) c=$(scen_key "x.$c") ;;
        *.experiment_id) c=$(exp_key "x.$c") ;;
        esac
        cols="$cols${cols:+, }$c"
    done
    sq -csv "$db" "SELECT $cols FROM $tbl x ORDER BY x.rowid"
}
tables=$(sq "$T/a.db" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")

# same_rows NAME OUT FIRST SECOND: every table of OUT holds FIRST's rows,
# then SECOND's, naming the same things.
same_rows() {
    local name=$1 out=$2 first=$3 second=$4 tbl bad= n=0
    for tbl in $tables; do
        dump "$out" "$tbl" >"$T/got"
        { dump "$first" "$tbl"; dump "$second" "$tbl"; } >"$T/want"
        if ! cmp -s "$T/got" "$T/want"; then
            bad="$bad $tbl($(wc -l <"$T/got") rows, want $(wc -l <"$T/want"))"
        fi
        n=$((n + $(wc -l <"$T/got")))
    done
    if [ -n "$bad" ]; then failed "$name" "rows differ in:$bad"; elif [ "$n" -lt 5000 ]; then
        failed "$name" "only $n rows: too few to show anything"
    else pass "$name ($n rows in $(wc -w <<<"$tables") tables)"; fi
}
if "$RUNQ" merge "$T/m.db" "$T/b.db" "$T/a.db" >"$T/out" 2>&1; then
    same_rows ids_renumbered_into_a_new_out "$T/m.db" "$T/b.db" "$T/a.db"
else
    failed ids_renumbered_into_a_new_out "$(cat "$T/out")"
fi
cp "$T/a.db" "$T/appended.db"
if "$RUNQ" merge "$T/appended.db" "$T/b.db" >"$T/out" 2>&1; then
    same_rows ids_renumbered_appending_to_an_out_with_its_own "$T/appended.db" "$T/a.db" "$T/b.db"
else
    failed ids_renumbered_appending_to_an_out_with_its_own "$(cat "$T/out")"
fi
# The kernel run's scenario rows name its trace and its threads: by
# number, the ones that are that trace's and that tid's in OUT.
if [ $kernel = 1 ]; then
    got=$(sq "$T/m.db" "SELECT COUNT(*), COUNT(th.utid) FROM scenario_task t JOIN scenario s USING (scenario_id)
                        LEFT JOIN thread th ON th.utid = t.utid AND th.tid = t.tid AND th.trace_id = s.trace_id
                        WHERE t.utid IS NOT NULL")
    if [ "${got%|*}" -ge 3 ] && [ "${got%|*}" = "${got#*|}" ]; then pass "scenario_tasks_name_their_threads ($got)"; else
        failed scenario_tasks_name_their_threads "tasks with a utid | of them a thread of their trace and tid: $got"; fi
fi

# ---- 4. refusals ----
# refused NAME OUTSRC FILE WHY IN...: runq merge into a copy of OUTSRC
# exits 1 with one line, "runq merge: FILE: ..." holding WHY; the copy is
# byte for byte as it was; into a missing OUT, likewise, and it stays
# missing (unless NEW_OUT=no: a refusal because of what OUT holds).
refused() {
    local name=$1 src=$2 file=$3 why=$4 out=$T/out.$1.db before
    shift 4
    cp "$src" "$out" && before=$(sha256sum <"$out")
    runq merge "$out" "$@"
    if [ "$rc" != 1 ] || [ "$(wc -l <"$T/err")" != 1 ] || ! grep -qF -- "runq merge: $file: " "$T/err" ||
        ! grep -qF -- "$why" "$T/err"; then
        failed "$name" "exit $rc, want 1 and one line naming $file, saying '$why': $(head -c 300 "$T/err")"
    elif [ "$(sha256sum <"$out")" != "$before" ]; then
        failed "$name" "refused, but OUT changed"
    elif [ "${NEW_OUT:-}" = no ]; then
        pass "$name"
    else
        runq merge "$T/new.$name.db" "$@"
        if [ "$rc" != 1 ] || [ -e "$T/new.$name.db" ]; then
            failed "$name" "into a missing OUT: exit $rc, and OUT $([ -e "$T/new.$name.db" ] && echo made || echo missing)"
        else
            pass "$name"
        fi
    fi
}
V=$(sq "$S/shard1.db" "PRAGMA user_version")
cp "$S/shard1.db" "$T/older.db" && sq "$T/older.db" "PRAGMA user_version = $((V - 1))"
cp "$S/shard1.db" "$T/newer.db" && sq "$T/newer.db" "PRAGMA user_version = $((V + 1))"
echo "not a database" >"$T/text.db"
sq "$T/foreign.db" "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT)"
sq "$T/empty.db" "VACUUM"
cp "$S/shard1.db" "$T/again.db"
cp "$S/shard1.db" "$T/mislabelled.db" && sq "$T/mislabelled.db" "UPDATE experiment SET shard = '2/3'"
(cd "$S" && "$RUNQ" experiment --engine sim --quiet --repeat 2 --seed 5 --shard 2/3 --db "$T/seed5.db" \
    scenarios/short-slice.scn >/dev/null 2>&1 &&
    "$RUNQ" experiment --engine sim --quiet --repeat 2 --vary hog.count=3,8 --shard 2/3 --db "$T/other.db" \
        scenarios/short-slice.scn >/dev/null 2>&1) || failed fixture "the sharded experiments that differ"

refused older_schema_version "$T/m.db" "$T/older.db" "schema version $((V - 1)), and this runq's is $V" "$T/older.db"
refused newer_schema_version "$T/m.db" "$T/newer.db" "schema version $((V + 1)), and this runq's is $V" "$T/newer.db"
refused not_a_database "$T/m.db" "$T/text.db" "not a runq database" "$T/a.db" "$T/text.db"
refused another_programs_database "$T/m.db" "$T/foreign.db" "not a runq database" "$T/foreign.db"
refused an_empty_database "$T/m.db" "$T/empty.db" "not a runq database" "$T/empty.db"
refused a_missing_input "$T/m.db" "$T/nothere.db" "no such database" "$T/a.db" "$T/nothere.db"
refused the_same_database_twice "$T/m.db" "$T/a.db" "given twice" "$T/a.db" "$T/a.db"
refused the_same_shard_twice "$T/m.db" "$T/again.db" "the same shard twice" "$S/shard1.db" "$T/again.db"
NEW_OUT=no refused a_shard_out_holds_complete "$S/all.db" "$S/shard2.db" "the same shard twice" "$S/shard2.db"
refused a_run_outside_its_shard "$T/m.db" "$T/mislabelled.db" "does not hold shard 1/3" "$T/mislabelled.db"
refused shards_of_other_seeds "$T/m.db" "$T/seed5.db" "its seeds start at 5, theirs at 1" "$S/shard1.db" "$T/seed5.db"
refused shards_of_another_scenario "$T/m.db" "$T/other.db" "is another scenario" "$S/shard1.db" "$T/other.db"
# OUT given as an input too.
cp "$T/m.db" "$T/self.db" && before=$(sha256sum <"$T/self.db")
runq merge "$T/self.db" "$T/self.db"
if [ "$rc" = 1 ] && grep -qF "runq merge: $T/self.db: is OUT itself" "$T/err" &&
    [ "$(sha256sum <"$T/self.db")" = "$before" ]; then pass out_as_an_input; else
    failed out_as_an_input "exit $rc: $(head -c 300 "$T/err")"; fi

# A trace still recording: its recorder follows a file that has not ended.
: >"$T/live.in"
"$RUNQ" record --follow --file "$T/live.in" --db "$T/live.db" >/dev/null 2>&1 &
live=$!
for _ in $(seq 200); do # up to 20 s: make test runs suites side by side
    [ "$(sq "$T/live.db" "SELECT status FROM trace" 2>/dev/null)" = recording ] && break
    sleep 0.1
done
refused a_trace_still_recording "$T/m.db" "$T/live.db" "trace 1 is still recording" "$T/a.db" "$T/live.db"
# Its recorder killed: the trace says 'recording' for good, and is merged.
{ kill -KILL $live && wait $live; } 2>/dev/null # bash's "Killed" line too
runq merge "$T/gone.db" "$T/live.db"
if [ "$rc" = 0 ] && [ "$(sq "$T/gone.db" "SELECT COUNT(*) FROM trace")" = 1 ]; then
    pass a_trace_whose_recorder_is_gone_is_merged
else
    failed a_trace_whose_recorder_is_gone_is_merged "exit $rc: $(head -c 300 "$T/err")"
fi

# A failure half-way: damaged.db passes every check (its version is
# right) but its mark table lacks a column, so copying it fails after
# a.db's rows are in. OUT must be as it was, a new OUT not be there.
cp "$T/b.db" "$T/damaged.db" && sq "$T/damaged.db" "ALTER TABLE mark DROP COLUMN source"
cp "$T/m.db" "$T/half.db" && before=$(sha256sum <"$T/half.db") && rows=$(sq "$T/half.db" "SELECT COUNT(*) FROM thread")
runq merge "$T/half.db" "$T/a.db" "$T/damaged.db"
if [ "$rc" = 1 ] && grep -q "damaged.db: reading mark: no such column: source" "$T/err" &&
    [ "$(sha256sum <"$T/half.db")" = "$before" ] && [ "$(sq "$T/half.db" "SELECT COUNT(*) FROM thread")" = "$rows" ]; then
    runq merge "$T/half-new.db" "$T/a.db" "$T/damaged.db"
    if [ "$rc" = 1 ] && [ ! -e "$T/half-new.db" ]; then pass a_failure_half_way_is_rolled_back; else
        failed a_failure_half_way_is_rolled_back "into a missing OUT: exit $rc, OUT left behind"; fi
else
    failed a_failure_half_way_is_rolled_back "exit $rc: $(head -c 300 "$T/err")"
fi

# ---- the command line ----
expect help 0 "" merge --help
stdout_has help_says_usage "usage: runq merge OUT.db IN.db..."
expect no_input 2 "at least one IN.db" merge "$T/x.db"
expect unknown_flag 2 "unknown flag '--force'" merge --force "$T/x.db" "$T/a.db"

exit $fail
