#!/usr/bin/env bash
# tests/labs/lab_test.sh [runq]: every lab's check passes on its answers.ref and
# fails on its answers.wrong (keeping a transcript), and never prints a
# measured value or a right answer without --reveal; the same lab run twice
# measures the same values; lab run stores predictions before the runs,
# shows predicted against measured, asks the after-stepping questions last
# and writes an answers file; answers are read with their units and refused
# out of range; a compare truth is runq report compare's count on the two
# recordings. Boots the kernel (deterministic), about 2 s a lab, 10 s for
# lab 5 (12 s of guest time: a scenario file's cells), 14 s for lab 7. Prints
# PASS name / FAIL name: why; exit 1 on any FAIL.
# Usage: tests/labs/lab_test.sh [runq [NN...]]: with lab numbers (05 07), only
# those labs' checks, and with LAB_TEST_REST=no none of the checks after
# them (make test splits the labs between two lanes this way).
RUNQ=${1:-build/runq}
shift $(($# > 0 ? 1 : 0))
ONLY="$*"
REST=${LAB_TEST_REST:-yes}
# LAB_TEST_AGAIN=no (make test): each lab's second boot, the determinism
# check, is left to make check, which runs LAB_TEST_AGAIN=only: the
# reference check and the second boot of every lab, nothing else.
AGAIN=${LAB_TEST_AGAIN:-yes}
T=$(mktemp -d /tmp/lab_test.XXXXXX)
trap 'rm -rf "$T"' EXIT
# The run cache (labs/engine/lab_cache.h): tests/run.sh gives every suite
# of one make test the same; alone, this one keeps its own, never ~/.cache.
export RUNQ_LAB_CACHE=${RUNQ_LAB_CACHE:-$T/cache}
fail=0
pass() { echo "PASS $1"; }
failed() { echo "FAIL $1: $2"; fail=1; }

n=$("$RUNQ" lab list | grep -c 'questions, about')
if [ "$n" -ge 4 ]; then pass list; else failed list "$n labs listed"; fi

for dir in labs/0[1-9]-*; do
    lab=$(basename "$dir")
    num=${lab%%-*}
    case " ${ONLY:-$num} " in *" $num "*) ;; *) continue ;; esac
    # --reveal: this run is also the first of the two that must measure the
    # same (below); it keeps no transcript when every answer passes.
    "$RUNQ" lab check "$num" --answers "$dir/answers.ref" --out "$T/$lab.ref" --reveal > "$T/$lab.ref.out" 2>&1; rc=$?
    # Answers read off the run are make docs' to write (a "# make docs:"
    # block in answers.ref): when that block is out of date the reference
    # cannot pass, and docs_current already says "run make docs", once.
    if [ $rc != 0 ] && grep -q '^# make docs: ' "$dir/answers.ref" &&
        ! perl scripts/docs.pl --check "$dir/answers.ref" >/dev/null 2>&1; then
        echo "SKIP ${lab}_ref_passes: its answers read off the run are out of date (docs_current: run make docs)"
    elif [ $rc = 0 ] && grep -q '^score \([0-9]*\)/\1$' "$T/$lab.ref.out" && [ ! -e "$T/$lab.ref/transcript.txt" ]; then
        pass "${lab}_ref_passes"
    else
        failed "${lab}_ref_passes" "rc=$rc $(grep FAIL "$T/$lab.ref.out" | head -2 | tr '\n' '|')"
    fi
    if [ "$AGAIN" != only ]; then
    "$RUNQ" lab check "$num" --answers "$dir/answers.wrong" --out "$T/$lab.wrong" > "$T/$lab.wrong.out" 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q '^score 0/' "$T/$lab.wrong.out" && grep -q '^transcript: ' "$T/$lab.wrong.out" &&
       grep -q '^==== scenario ' "$T/$lab.wrong/transcript.txt"; then
        pass "${lab}_wrong_fails"
    else
        failed "${lab}_wrong_fails" "rc=$rc: every answer must fail, but $(grep -c '^PASS' "$T/$lab.wrong.out") pass"
    fi
    # Without --reveal no truth is printed or stored: no "measured:" line,
    # no measured.txt, no truth in the transcript, and no FAIL line names a
    # right answer (the reference answer of a question it failed).
    leak=""
    grep -q 'measured:' "$T/$lab.wrong.out" && leak="$leak measured-line"
    [ -e "$T/$lab.wrong/measured.txt" ] && leak="$leak measured.txt"
    grep -q '   truth: ' "$T/$lab.wrong/transcript.txt" && leak="$leak transcript-truth"
    for id in $(sed -n 's/^FAIL \([a-z_0-9]*\):.*/\1/p' "$T/$lab.wrong.out"); do
        r=$(sed -n "s/^$id = //p" "$dir/answers.ref")
        case $r in [0-9]* | "") continue ;; esac # a number could be in the tolerance text by chance
        grep "^FAIL $id:" "$T/$lab.wrong.out" | sed 's/^[^;]*;//' | grep -qi -- "$r" && leak="$leak $id"
    done
    [ -z "$leak" ] && pass "${lab}_check_reveals_nothing" || failed "${lab}_check_reveals_nothing" "$leak"
    fi
    if [ "$AGAIN" = no ]; then
        echo "SKIP ${lab}_deterministic: the second boot is make check's (LAB_TEST_AGAIN=only)"
        continue
    fi
    # Booted again, not taken from the run cache: that is what it checks.
    RUNQ_LAB_CACHE=off "$RUNQ" lab check "$num" --answers "$dir/answers.ref" --out "$T/$lab.again" --reveal > /dev/null 2>&1
    if [ -s "$T/$lab.ref/measured.txt" ] && cmp -s "$T/$lab.ref/measured.txt" "$T/$lab.again/measured.txt"; then
        pass "${lab}_deterministic"
    else
        failed "${lab}_deterministic" "$(diff "$T/$lab.ref/measured.txt" "$T/$lab.again/measured.txt" | head -3 | tr '\n' '|')"
    fi
done
[ "$AGAIN" = only ] && exit $fail

# A compare truth is what runq report compare says of the two recordings
# merged into one database: lab 7's replace_wins is the command's count,
# its knob verdict names no side exactly when the command's p is 0.05 or
# more. A compare of a scenario not recorded, or of a field that is not
# one, cannot be measured, and says why.
d=$T/07-blind-spot.ref
if [ -d "$d" ]; then
"$RUNQ" merge "$T/pair.db" "$d/replace.db" "$d/keep.db" > /dev/null 2>&1
line=$("$RUNQ" report compare 1 2 --db "$T/pair.db" --interval 200ms --task ui 2>/dev/null | tail -n 1)
wins=$(sed -n 's/^replace_wins = //p' "$d/measured.txt")
verdict=$(sed -n 's/^knob = //p' "$d/measured.txt")
p=$(sed -n 's/.*sign test p = \([0-9.e-]*\)$/\1/p' <<<"$line")
mkdir -p "$T/labs/95-compare"
cat > "$T/labs/95-compare/lab.conf" <<'L'
title = Compare
minutes = 1

[question gone]
type = choice
choices = a, b, none
prompt = ?
truth = compare a b --interval 200ms: verdict

[question field]
type = number
tolerance = 0
phase = after
prompt = ?
truth = compare a b: median
L
printf 'gone = none\nfield = 1\n' > "$T/c.ans"
bad=$(RUNQ_LABS="$T/labs" "$RUNQ" lab check 95 --answers "$T/c.ans" --out "$T/c" 2>&1)
if [ -n "$wins" ] && grep -q "^replace_on_release=1 better in $wins intervals, replace_on_release=0 in " <<<"$line" && [ -n "$p" ] &&
   { { [ "$verdict" = none ] && awk -v p="$p" 'BEGIN { exit !(p >= 0.05) }'; } ||
     { [ "$verdict" != none ] && awk -v p="$p" 'BEGIN { exit !(p < 0.05) }'; }; } &&
   grep -q "^FAIL gone: answered none; could not measure: compare: no recorded scenario 'a'" <<<"$bad" &&
   grep -q "^FAIL field: answered 1; could not measure: compare: no field 'median' (verdict, p, wins_a, wins_b, ties, line)" <<<"$bad"; then
    pass compare_truth_is_report_compare
else
    failed compare_truth_is_report_compare "wins ${wins:-?} verdict ${verdict:-?} | $line | $(grep -E '^FAIL (gone|field)' <<<"$bad" | tr '\n' '|')"
fi
fi
[ "$REST" = no ] && exit $fail

# A student's run: predictions from stdin, stored with the time before the
# runs, then the after-stepping questions (elig_4), then an answers file.
conf=labs/01-who-runs-next/lab.conf
ids_before=$(awk '/^\[question /{id=$2; sub(/\]/,"",id); q[++n]=id} /^phase = after/{after[id]=1}
                  END{for(i=1;i<=n;i++) if(!after[q[i]]) print q[i]}' "$conf")
ids_after=$(awk '/^\[question /{id=$2; sub(/\]/,"",id)} /^phase = after/{print id}' "$conf")
ref() { sed -n "s/^$1 = //p" labs/01-who-runs-next/answers.ref; }
for id in $ids_before $ids_after; do ref "$id"; done > "$T/preds"
# Measured before-questions (numbers and orders): choices are judged by check only.
nb=$(awk '/^\[question /{id=$2; sub(/\]/,"",id); q[++n]=id} /^phase = after/{after[id]=1} /^type = choice/{ch[id]=1}
          END{for(i=1;i<=n;i++) if(!after[q[i]] && !ch[q[i]]) c++; print c}' "$conf")
"$RUNQ" lab run 1 --out "$T/run1" < "$T/preds" > "$T/run1.out" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^# runq lab 01-who-runs-next: predictions, made before the scenarios ran, written at 20..-..-..T..:..:..Z' "$T/run1/predictions.txt" &&
   grep -q "^rr_2 = $(ref rr_2)\$" "$T/run1/predictions.txt" && [ ! "$T/run1/predictions.txt" -nt "$T/run1/rr.console" ] &&
   ! grep -q "^elig_4 = " "$T/run1/predictions.txt"; then
    pass run_stores_predictions_first
else
    failed run_stores_predictions_first "rc=$rc"
fi
if grep -q "^  rr_4 *$(ref rr_4) *[0-9]* us *close enough" "$T/run1.out" && grep -q "$nb of $nb measured predictions within the tolerance (the others are judged by lab check)" "$T/run1.out" &&
   grep -q 'runq step --db .*/rr.db 1 --at [0-9]' "$T/run1.out"; then
    pass run_shows_table_and_moments
else
    failed run_shows_table_and_moments "$(grep -E 'rr_4|predictions within' "$T/run1.out" | tr '\n' '|')"
fi
# The after-stepping question comes after the moments, and the answers file
# holds it; the run says where the files are and what to run next.
m=$(grep -n '^---- step through it' "$T/run1.out" | cut -d: -f1)
a=$(grep -n '^---- 3. your answers, after stepping' "$T/run1.out" | cut -d: -f1)
if [ -n "$m" ] && [ -n "$a" ] && [ "$a" -gt "$m" ] && grep -q "^elig_4 = $(ref elig_4)\$" "$T/run1/answers.txt" &&
   grep -q "^Next: runq lab check 1 --answers $T/run1/answers.txt" "$T/run1.out"; then
    pass run_asks_after_stepping_last
else
    failed run_asks_after_stepping_last "moments at line ${m:-none}, answers at ${a:-none}"
fi
# The run cache: a second run of the same lab takes every scenario's run
# from it, says so, and measures and stores exactly what the boot did (the
# trace database byte for byte); another kernel is another key and boots;
# a cache folder others may write is not used, and the lab still runs.
C=$T/own-cache
RUNQ_LAB_CACHE=$C "$RUNQ" lab run 1 --out "$T/cache1" < "$T/preds" > "$T/cache1.out" 2>&1; rc1=$?
RUNQ_LAB_CACHE=$C "$RUNQ" lab run 1 --out "$T/cache2" < "$T/preds" > "$T/cache2.out" 2>&1; rc2=$?
nsc=$(grep -c '^  running scenario ' "$T/cache1.out")
hits1=$(grep -c '^  running scenario .*from the run cache$' "$T/cache1.out")
hits2=$(grep -c '^  running scenario .*from the run cache$' "$T/cache2.out")
same=1
for f in "$T"/cache1/*.db; do cmp -s "$f" "$T/cache2/$(basename "$f")" || same=0; done
# the answers without their first line, which says when they were written
cmp -s <(tail -n +2 "$T/cache1/answers.txt") <(tail -n +2 "$T/cache2/answers.txt") || same=0
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$nsc" -ge 2 ] && [ "$hits1" = 0 ] && [ "$hits2" = "$nsc" ] && [ $same = 1 ] &&
   grep -q 'some from the run cache: RUNQ_LAB_CACHE=off boots every one' "$T/cache2.out"; then
    pass lab_cache_same_run_again
else
    failed lab_cache_same_run_again "rc $rc1 $rc2, $nsc scenarios, hits $hits1 then $hits2, same files $same"
fi
kernel=$(dirname "$(realpath "$RUNQ")")/kernel.elf
cp "$kernel" "$T/other.elf" && printf '\0' >> "$T/other.elf"
RUNQ_KERNEL=$T/other.elf RUNQ_LAB_CACHE=$C "$RUNQ" lab run 1 --out "$T/cache3" < "$T/preds" > "$T/cache3.out" 2>&1; rc3=$?
if [ $rc3 = 0 ] && ! grep -q 'from the run cache' "$T/cache3.out"; then
    pass lab_cache_other_kernel_boots
else
    failed lab_cache_other_kernel_boots "rc $rc3, $(grep -c 'from the run cache' "$T/cache3.out") scenarios from the cache"
fi
mkdir -p "$T/open-cache" && chmod 0777 "$T/open-cache"
RUNQ_LAB_CACHE=$T/open-cache "$RUNQ" lab run 1 --out "$T/cache4" < "$T/preds" > "$T/cache4.out" 2> "$T/cache4.err"; rc4=$?
if [ $rc4 = 0 ] && grep -q "run cache $T/open-cache is not a folder of yours that only you can write" "$T/cache4.err" &&
   [ -z "$(ls -A "$T/open-cache")" ]; then
    pass lab_cache_refuses_a_shared_folder
else
    failed lab_cache_refuses_a_shared_folder "rc $rc4: $(head -c 200 "$T/cache4.err"); in it: $(ls -A "$T/open-cache" | head -3)"
fi

# The answers file is what lab check judges.
if "$RUNQ" lab check 1 --answers "$T/run1/answers.txt" --out "$T/run1c" >/dev/null 2>&1; then
    pass answers_file_checks
else
    failed answers_file_checks "check on the run's answers failed"
fi

# Answers as typed: units converted, out-of-range and unknown choices
# refused with a reason (a lab of fixed truths, no scenario).
# A truth's SQL is text from a lab.conf: it runs read-only, as runq sql's
# does (db/query.c's dbq_first); one that would write is refused and the
# question cannot be measured (it ran on a read-only connection, but
# nothing said why).
mkdir -p "$T/labs/96-sqlwrite"
cat > "$T/labs/96-sqlwrite/lab.conf" <<'L'
title = SQL that writes
minutes = 1

[scenario one]
policy = eevdf
cpus = 1
record = yes
cmd = mark m

[question reads]
type = number
tolerance = 0
phase = after
prompt = ?
truth = sql one: SELECT count(*) FROM mark WHERE name = 'm'

[question writes]
type = number
tolerance = 0
phase = after
prompt = ?
truth = sql one: DELETE FROM mark
L
printf 'reads = 1\nwrites = 0\n' > "$T/w.ans"
out=$(RUNQ_LABS="$T/labs" "$RUNQ" lab check 96 --answers "$T/w.ans" --out "$T/w" 2>&1)
if grep -q '^PASS reads: answered 1' <<<"$out" &&
   grep -q "^FAIL writes: answered 0; could not measure: sql: the statement would write; only reading is allowed" <<<"$out"; then
    pass truth_sql_only_reads
else
    failed truth_sql_only_reads "$(grep -E '^(PASS|FAIL) (reads|writes)' <<<"$out" | tr '\n' '|')"
fi

mkdir -p "$T/labs/90-units"
cat > "$T/labs/90-units/lab.conf" <<'L'
title = Units
minutes = 1

[question lat]
type = number
unit = us
tolerance = 1%
prompt = A latency?
truth = value 1400

[question big]
type = number
unit = us
tolerance = 1%
prompt = Another?
truth = value 25356

[question share]
type = number
unit = per mille
tolerance = 5
prompt = A share?
truth = value 250

[question pick]
type = choice
choices = on, off
prompt = On or off?
truth = value off
L
units() { printf "$1" > "$T/u.ans"; RUNQ_LABS="$T/labs" "$RUNQ" lab check 90 --answers "$T/u.ans" --out "$T/u" 2>&1; }
good=$(units 'lat = 1.4ms\nbig = 25356 µs\nshare = 25%%\npick = off\n')
bad=$(units 'lat = -80\nbig = 5 ms\nshare = 120%%\npick = tick\n')
if grep -q '^score 4/4' <<<"$good" &&
   grep -q '^FAIL lat: answered -80; -80 us is below 0: a time is never negative' <<<"$bad" &&
   grep -q '^FAIL big: answered 5 ms; 5000 us is not within' <<<"$bad" &&
   grep -q '^FAIL share: answered 120%; 1200 per mille is above 1000' <<<"$bad" &&
   grep -q "^FAIL pick: answered tick; 'tick' is not one of the choices (on, off)" <<<"$bad"; then
    pass answers_read_with_units_and_ranges
else
    failed answers_read_with_units_and_ranges "$(tr '\n' '|' <<<"$good$bad")"
fi
# Reasoning after '#' is kept with the answer, at the prompt and in the
# answers file, and lab check shows it under the verdict.
printf '1.4ms # about a slice\n25356 us\n25%%\noff # the default\n' |
    RUNQ_LABS="$T/labs" "$RUNQ" lab run 90 --out "$T/why" > /dev/null 2>&1
RUNQ_LABS="$T/labs" "$RUNQ" lab check 90 --answers "$T/why/answers.txt" --out "$T/whyc" > "$T/why.out" 2>&1
if grep -q '^lat = 1.4ms # about a slice$' "$T/why/answers.txt" && grep -q '^PASS lat: answered 1.4ms;' "$T/why.out" &&
   grep -A1 '^PASS lat' "$T/why.out" | grep -q '^   reasoning: about a slice$' && grep -q '^score 4/4' "$T/why.out"; then
    pass reasoning_kept_and_shown
else
    failed reasoning_kept_and_shown "$(tr '\n' '|' < "$T/why.out")"
fi
# At the prompt, a refused answer is said why and asked again.
printf '1.4 parsecs\n-3\n1.4ms\n25356us\n25%%\nmaybe\noff\n' |
    RUNQ_LABS="$T/labs" "$RUNQ" lab run 90 --out "$T/urun" > "$T/urun.out" 2>&1
if grep -q "refused: '1.4 parsecs': unknown unit 'parsecs'" "$T/urun.out" && grep -q 'refused: -3 us is below 0' "$T/urun.out" &&
   grep -q "refused: 'maybe' is not one of the choices" "$T/urun.out" && grep -q '^lat = 1.4ms$' "$T/urun/predictions.txt" &&
   grep -q '^pick = off$' "$T/urun/predictions.txt"; then
    pass prompt_refuses_and_asks_again
else
    failed prompt_refuses_and_asks_again "$(grep refused "$T/urun.out" | tr '\n' '|')"
fi

# Calibration: lab 1's scenarios are variants (each student's seed); over
# three seeds every calibrated question's spread is within its margin, and
# --write stores the spreads in the lab's calibration file, which check then
# judges with. Without that file a lab with margins refuses to run. Over
# five seeds, with the two-spinner probe at 40 samples, as the lab had it
# before, its median moved too much between seeds and rr_2 is unstable.
mkdir -p "$T/cal-labs" && cp -r labs/01-who-runs-next "$T/cal-labs/" && rm -f "$T/cal-labs/01-who-runs-next/calibration"
RUNQ_LABS="$T/cal-labs" "$RUNQ" lab check 1 --answers labs/01-who-runs-next/answers.ref --out "$T/nocal" > /dev/null 2> "$T/nocal.err"; rcn=$?
RUNQ_LABS="$T/cal-labs" "$RUNQ" lab calibrate 1 --seeds 3 --write --out "$T/cal" > "$T/cal.out" 2>/dev/null; rc=$?
cal="$T/cal-labs/01-who-runs-next/calibration"
want=$(sed -n 's/^rr_2 .*fair: spread ±\([0-9]*%\) around.*/\1/p' "$T/cal.out")
RUNQ_LABS="$T/cal-labs" "$RUNQ" lab check 1 --answers labs/01-who-runs-next/answers.ref --out "$T/withcal" > "$T/withcal.out" 2>&1; rcw=$?
mkdir -p "$T/cal40-labs" && cp -r labs/01-who-runs-next "$T/cal40-labs/"
sed -i '/^\[scenario rr\]/,/^\[scenario eevdf\]/s/^cmd = sched probe 2 200$/cmd = sched probe 2 40/' "$T/cal40-labs/01-who-runs-next/lab.conf"
RUNQ_LABS="$T/cal40-labs" "$RUNQ" lab calibrate 1 --seeds 5 --out "$T/cal40" > "$T/cal40.out" 2>/dev/null; rc40=$?
if [ $rcn = 1 ] && grep -q 'question rr_1 has a margin but no calibrated spread.*run runq lab calibrate 1 --write' "$T/nocal.err" &&
   [ $rc = 0 ] && grep -q '^0 of 7 questions unstable over 3 seeds' "$T/cal.out" && grep -q '^elig_4 .*observed on the student' "$T/cal.out" &&
   [ -n "$want" ] && grep -q '^seeds = 3$' "$cal" && grep -q "^rr_2 = $want\$" "$cal" && ! grep -q '^elig_4' "$cal" &&
   [ $rcw = 0 ] && grep -q "^PASS rr_2: .* within ±$((${want%\%} + 25))% (spread over 3 seeds ±$want plus margin 25%) of the measured value" "$T/withcal.out" &&
   [ $rc40 = 1 ] && grep -q '^rr_2 .*UNSTABLE: spread ±[0-9]*% around the median [0-9]*, more than its margin 25%' "$T/cal40.out"; then
    pass calibrate_writes_spreads_and_finds_unfair_questions
else
    failed calibrate_writes_spreads_and_finds_unfair_questions "rc $rcn/$rc/$rcw/$rc40: $(tail -1 "$T/cal.out") | rr_2 ${want:-?} | $(grep rr_2 "$T/cal40.out")"
fi

# A calibrated answer is judged within the spread plus the margin, and the
# verdict says both: a spread of 10% and a margin of 5% pass an answer 12%
# off and fail one 20% off. A checker that judged with the margin alone
# fails the first (put back once: tests/labs/lab_test.sh, issue 15).
mkdir -p "$T/labs/91-spread"
cat > "$T/labs/91-spread/lab.conf" <<'L'
title = Spread
minutes = 1

[question lat]
type = number
unit = us
margin = 5%
prompt = A latency?
truth = value 1000

[question count]
type = number
margin = 1
prompt = A count?
truth = value 20
L
printf 'seeds = 5\nlat = 10%%\ncount = 3\n' > "$T/labs/91-spread/calibration"
spread() { printf "$1" > "$T/s.ans"; RUNQ_LABS="$T/labs" "$RUNQ" lab check 91 --answers "$T/s.ans" --out "$T/s" 2>&1; }
near=$(spread 'lat = 1120\ncount = 24\n')
far=$(spread 'lat = 1200\ncount = 25\n')
if grep -q '^PASS lat: answered 1120; 1120 us is within ±15% (spread over 5 seeds ±10% plus margin 5%) of the measured value' <<<"$near" &&
   grep -q '^PASS count: answered 24; 24 is within ±4 (spread over 5 seeds ±3 plus margin 1) of the measured value' <<<"$near" &&
   grep -q '^FAIL lat: answered 1200; 1200 us is not within ±15% (spread' <<<"$far" && grep -q '^FAIL count: answered 25;' <<<"$far"; then
    pass calibrated_spread_is_judged
else
    failed calibrated_spread_is_judged "$(tr '\n' '|' <<<"$near$far")"
fi
# A measured number must be calibrated: tolerance = is refused for it; a
# calibration file names only the lab's questions.
cp -r labs/01-who-runs-next "$T/labs/92-handtol"
sed -i '0,/^margin = 25%$/s//tolerance = 40%/' "$T/labs/92-handtol/lab.conf"
RUNQ_LABS="$T/labs" "$RUNQ" lab show 92 > /dev/null 2> "$T/handtol.err"; rch=$?
printf 'seeds = 5\nwhere_rr = 3\n' > "$T/labs/91-spread/calibration"
RUNQ_LABS="$T/labs" "$RUNQ" lab show 91 > /dev/null 2> "$T/badcal.err"; rcb=$?
if [ $rch = 1 ] && grep -q 'question rr_2 is measured on the run and predicted: write margin' "$T/handtol.err" &&
   [ $rcb = 1 ] && grep -q "no question 'where_rr' in lab.conf" "$T/badcal.err"; then
    pass measured_numbers_must_be_calibrated
else
    failed measured_numbers_must_be_calibrated "rc $rch/$rcb: $(cat "$T/handtol.err" "$T/badcal.err" | tr '\n' '|')"
fi

# A scenario given as a scenario file: the machine is the file's, each set
# picks the cell (checked as a vary value is, naming lab.conf's line), and
# the file is read beside lab.conf first (a packed course's copy), else
# below the tree the labs folder is in. A set before the file, a bad set,
# and cmd or hz beside it are refused.
mkdir -p "$T/labs/93-scnfile" "$T/labs/94-scnbad"
cp scenarios/short-slice.scn "$T/labs/93-scnfile/" && cp scenarios/short-slice.scn "$T/labs/94-scnbad/"
cat > "$T/labs/93-scnfile/lab.conf" <<'L'
title = Scenario file
minutes = 1

[scenario crowded]
scenario_file = scenarios/short-slice.scn
set = hog.count=2
set = switch=HRTICK
set = run=1s
variant = yes

[question n]
type = number
tolerance = 0
prompt = A number?
truth = value 1
L
RUNQ_LABS="$T/labs" "$RUNQ" lab show 93 --seed 7 > "$T/scnfile.out" 2>&1; rcs=$?
bad=""
[ $rcs = 0 ] && grep -q '^  crowded  policy eevdf, 250 Hz, 4 CPUs, your seed: scenarios/short-slice.scn with hog.count=2 switch=HRTICK run=1s$' "$T/scnfile.out" ||
    bad="[rc $rcs: $(grep crowded "$T/scnfile.out")]"
# Each refusal: the lines after [scenario x] (line 4), and what is said.
while IFS='|' read -r lines want; do
    printf 'title = Bad\nminutes = 1\n\n[scenario x]\n%b\n[question n]\ntype = number\ntolerance = 0\nprompt = ?\ntruth = value 1\n' "$lines" > "$T/labs/94-scnbad/lab.conf"
    got=$(RUNQ_LABS="$T/labs" "$RUNQ" lab show 94 2>&1 >/dev/null)
    grep -q -- "$want" <<<"$got" || bad="$bad [$lines: $got]"
done <<'C'
set = run=1s\nscenario_file = scenarios/short-slice.scn|94-scnbad/lab.conf:5: set needs a scenario_file = PATH before it
scenario_file = scenarios/short-slice.scn\nset = hog.bogus=1|94-scnbad/lab.conf:6: set hog.bogus=1: .*bogus
scenario_file = scenarios/short-slice.scn\nset = switch=NO_SUCH|94-scnbad/lab.conf:6: set switch=NO_SUCH: .*no feature 'SUCH'
scenario_file = scenarios/short-slice.scn\ncmd = sched probe 2|scenario x: the scenario file says the machine and the commands
scenario_file = scenarios/short-slice.scn\nhz = 1000|scenario x: the scenario file says the machine and the commands
scenario_file = scenarios/no-such.scn|94-scnbad/lab.conf:5: scenario_file: .*no-such.scn
C
[ -z "$bad" ] && pass scenario_file_is_read_and_checked || failed scenario_file_is_read_and_checked "$bad"

# README.md and docs/kernel.md, which students read, hand out no lab's
# answers. (a) No example there prints a lab question's probe or share
# figure on the machine the lab asks about: the same line (spinners=,
# nices=), policy and tick rate. (b) No measured question's seed-0 truth
# (the docs' runs boot seed 0) or reference answer (answers.ref) of 100 or
# more appears there with its unit ("5 ms" is lab 1's rr_2), nor a seed-0
# truth that is not a multiple of 10 as a bare number (4894); smaller and
# rounder numbers are everywhere in prose. Lab 5 is left out: it reads no
# console line for (a), and its predictions are shares below 100 %.
leak=""
for dir in labs/0[1-4]-*; do
    num=${dir#labs/}; num=${num%%-*}
    # (a) "word policy hz field k=v..." for each metric of a question, on each
    # scenario it may be measured in (the kernel's default: eevdf, 250 Hz).
    awk '/^\[scenario /{sc=$2; sub(/\]/,"",sc); pol[sc]="eevdf"; hz[sc]=250; n[++ns]=sc}
         /^\[question /{q=$2; sub(/\]/,"",q)}
         /^policy = /{pol[sc]=$3} /^hz = /{hz[sc]=$3}
         /^truth = metric /{ t=$0; sub(/^truth = metric /,"",t); m=split(t, refs, / \/ /)
             for (r=1; r<=m; r++) { ref=refs[r]; sub(/#.*/,"",ref)
                 word=ref; sub(/\..*/,"",word); field=ref; sub(/^[^.]*\./,"",field); sub(/\[.*/,"",field)
                 f=ref; sub(/^[^[]*\[?/,"",f); sub(/\]$/,"",f); gsub(/,([a-z_]+=)/,"|&",f); gsub(/\|,/,"|",f)
                 out[q]=out[q] word " " field " " f "\n" } }
         END{for (qq in out) { k=split(out[qq], L, "\n"); for (i=1;i<k;i++) { split(L[i], w, " "); nf=split(w[3], fl, "|")
                 for (j=1;j<=ns;j++) { s=n[j]; ok=1; filt=""
                     for (x=1;x<=nf;x++) { if (fl[x]=="") continue
                         if (fl[x] ~ /^scenario=/) { if (fl[x] != "scenario=" s) ok=0 }
                         else if (fl[x] ~ /^policy=/) { if (fl[x] != "policy=" pol[s]) ok=0 }
                         else filt=filt " " fl[x] }
                     if (ok) print qq, w[1], pol[s], hz[s], w[2] filt } } } }' "$dir/lab.conf" > "$T/metrics.$num"
    for doc in README.md docs/kernel.md; do
        awk '/^```/ { inblock = !inblock; next }
             inblock && /^\$ build\/runq boot/ { p="eevdf"; h=250; n=split($0, a, " ")
                 for (i=1;i<n;i++) { if (a[i]=="--policy") p=a[i+1]; if (a[i]=="--hz") h=a[i+1] } next }
             inblock && /^(probe|share) / { print p, h, $0 }' "$doc" > "$T/examples"
        while read -r q word pol hz field filt; do
            awk -v w="$word" -v p="$pol" -v h="$hz" -v f="$field" -v filt="$filt" '
                $1 == p && $2 == h && $3 == w { ok = index(" " $0 " ", " " f "=") > 0; n = split(filt, fl, " ")
                    for (i=1;i<=n;i++) ok = ok && index(" " $0 " ", " " fl[i] " ") > 0; if (ok) found = 1 }
                END { exit !found }' "$T/examples" && leak="$leak [$doc shows lab $num's $q: $word $field $filt at $pol $hz Hz]"
        done < "$T/metrics.$num"
    done
    # (b) the seed-0 truths, and the reference answers with their units.
    "$RUNQ" lab check "$num" --answers "$dir/answers.ref" --seed 0 --reveal --out "$T/seed0.$num" > /dev/null 2>&1
    while read -r q eq v; do
        unit=$(awk -v q="[question $q]" '$0 == q {in_q=1; next} /^\[/ {in_q=0} in_q && /^unit = / {sub(/^unit = /,""); print}' "$dir/lab.conf")
        # Measured numbers only: a paper calculation's answer is a round
        # number ("2 ms") that the docs may use for other things.
        [ "$(awk -v q="[question $q]" '$0 == q {in_q=1; next} /^\[/ {in_q=0} in_q && /^(type = number|truth = (metric|sql|regex) )/ {n++} END {print n}' "$dir/lab.conf")" = 2 ] || continue
        for src in seed0 ref; do
            [ $src = ref ] && v=$(sed -n "s/^$q = \([-0-9.]*\).*/\1/p" "$dir/answers.ref")
            [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v >= 100 || v <= -100) }' || continue
            for doc in README.md docs/kernel.md; do
                # Every number in the doc with what follows it; a bare number
                # counts for a measured truth, a number with its unit for both.
                grep -oE '[0-9][0-9,.]*( ?(µs|us|ms|s|ns|per mille|‰|%))?' "$doc" | awk -v v="$v" -v u="$unit" -v src=$src '
                    { n = $1; gsub(/,/, "", n); rest = $0; sub(/^[0-9,.]*/, "", rest); sub(/^ /, "", rest)
                      x = n + 0; scale = 1
                      if (u == "us") { if (rest == "ms") x *= 1000; else if (rest == "s") x *= 1e6; else if (rest == "ns") x /= 1000; else if (rest != "us" && rest != "µs") x = "none" }
                      else if (u == "ns") { if (rest == "ms") x *= 1e6; else if (rest == "us" || rest == "µs") x *= 1000; else if (rest != "ns") x = "none" }
                      else if (u ~ /mille/) { if (rest == "%") x *= 10; else if (rest != "per mille" && rest != "‰") x = "none" }
                      else if (u == "%") { if (rest != "%") x = "none" }
                      if (rest == "" && src == "seed0" && (v + 0) % 10 != 0) x = n + 0
                      if (x != "none" && x == v + 0) { print; exit 0 } }' | grep -q . &&
                    leak="$leak [$doc has lab $num's $q ($src $v $unit)]"
            done
        done
    done < <(grep -E '^[a-z_0-9]+ = -?[0-9]' "$T/seed0.$num/measured.txt")
    [ -s "$T/metrics.$num" ] || leak="$leak [lab $num: no metric read from lab.conf]"
done
[ -z "$leak" ] && pass docs_hold_no_lab_answers || failed docs_hold_no_lab_answers "$leak"

# Usage errors.
"$RUNQ" lab check 1 >/dev/null 2>&1; rc1=$?
"$RUNQ" lab show 99 >/dev/null 2>&1; rc2=$?
"$RUNQ" lab frob >/dev/null 2>&1; rc3=$?
if [ $rc1$rc2$rc3 = 222 ]; then pass usage_errors; else failed usage_errors "$rc1 $rc2 $rc3"; fi
# An answers file is a small regular file: /dev/zero was read forever and a
# directory "answered nothing" (issue 13); each is refused before the lab runs.
bad=""
for f in /dev/zero "$T"; do
    timeout 10 "$RUNQ" lab check 1 --answers "$f" >/dev/null 2>"$T/ans.err"; rc=$?
    [ $rc = 1 ] && grep -q "runq lab: $f: not a regular file" "$T/ans.err" || bad="$bad [$f: rc $rc $(head -c 100 "$T/ans.err")]"
done
head -c 70000 /dev/zero | tr '\0' a >"$T/big.ans"
timeout 10 "$RUNQ" lab check 1 --answers "$T/big.ans" >/dev/null 2>"$T/ans.err"; rc=$?
[ $rc = 1 ] && grep -q 'longer than 65536 bytes' "$T/ans.err" || bad="$bad [big: rc $rc $(head -c 100 "$T/ans.err")]"
[ -z "$bad" ] && pass answers_file_must_be_a_small_file || failed answers_file_must_be_a_small_file "$bad"
# lab show says what each scenario boots (it printed " Hz" with no number,
# and the tick rate after the machine in parentheses).
if "$RUNQ" lab show 1 | grep -q '^  rr       policy rr, 100 Hz, 2 CPUs, your seed: mark probe1;'; then
    pass show_states_the_machines
else
    failed show_states_the_machines "$("$RUNQ" lab show 1 | grep -A1 'the scenarios' | tail -1)"
fi
if "$RUNQ" lab show 4 --seed 1 | grep -q 'runq sim -s 1: what is the schedule'; then
    pass show_sim_variant
else
    failed show_sim_variant "no sim problem in lab 4"
fi
exit $fail
