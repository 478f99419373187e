#!/usr/bin/env bash
# tests/labs/lab_hostile_test.sh [runq]: runq lab pack and grade given hostile
# files (issue 30). A course's student copy holds no key value and no line
# of an explanation, however long the line (F19), nor an answers file or a
# truth --reveal could show (issue 36); grade reads regular files only,
# never through a link (F5), makes a folder of a student's ID only when it
# is one, and grades no two files of one ID (F3), and takes the variant
# from the ID, saying a seed line it does not obey (F10). One grade run of
# lab 1 (two students graded, the rest skipped) serves every grade check,
# and one more of one student the seed check. docs/instructor.md says the
# rules.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${1:-build/runq}
RUNQ=$(cd "$(dirname "$RUNQ")" && pwd)/$(basename "$RUNQ")
T=$(mktemp -d /tmp/lab_hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
REPO=$PWD

# ---- pack: nothing of the key in the student's copy ----

# pack_has_no_key NAME OUT LABS: OUT is the course packed from LABS. Every
# key value (a truth written in the key, an answer of answers.ref or
# answers.wrong) and every explanation line (explain lines, explanation.md)
# is looked for in every file of OUT/student, and every line of a student
# file in the key's explanations (a fragment of a line cut in two);
# refuses to pass with nothing to look for.
pack_has_no_key() {
    local name=$1 out=$2 labs=$3 d f n leak=""
    : >"$T/values"; : >"$T/answers"; : >"$T/expl"; : >"$T/expl_text"
    for d in "$out"/key/*/; do
        # As lab_load reads a line: KEY = VALUE, both trimmed.
        awk '{ line = $0; sub(/^[ \t\r\v\f]+/, "", line) }
             line ~ /^truth[ \t\r\v\f]*=/ {
                 v = line; sub(/^[^=]*=[ \t\r\v\f]*/, "", v)
                 if (v !~ /^(metric|sql|regex|compare|sim|sim-answer) /) print v
             }' "$d/lab.conf" >>"$T/values"
        cat "$d"/answers.* 2>/dev/null | grep -v '^[[:space:]]*#' | grep = >>"$T/answers"
        awk '{ line = $0; sub(/^[ \t\r\v\f]+/, "", line) }
             line ~ /^explain[ \t\r\v\f]*=/ { sub(/^[^=]*=[ \t\r\v\f]*/, "", line); print line }' \
            "$d/lab.conf" >>"$T/expl_text"
        cat "$d/explanation.md" >>"$T/expl_text"
    done
    # Short lines ("the tail.") may be any text's; 20 characters are an explanation's.
    awk 'length($0) >= 20' "$T/expl_text" | sort -u >"$T/expl"
    sort -u -o "$T/answers" "$T/answers"
    if [ ! -s "$T/values" ] || [ ! -s "$T/answers" ] || [ ! -s "$T/expl" ]; then
        failed "$name" "nothing to look for: $(wc -l <"$T/values") key values, $(wc -l <"$T/answers") answers, $(wc -l <"$T/expl") explanation lines in $out/key"
        return
    fi
    n=$(find "$out/student" -type f | wc -l)
    [ "$n" -gt 0 ] || { failed "$name" "no files in $out/student"; return; }
    while IFS= read -r -d '' f; do
        local rel=${f#"$out/student/"}
        grep -qF -f "$T/expl" "$f" && leak+="$rel: an explanation line: $(grep -F -f "$T/expl" "$f" | head -1 | cut -c1-80); "
        # Written in the key, whatever the form: "value 3.06", or 3.06 after a truth.
        sed 's/^/value /' "$T/values" | grep -qwF -f - "$f" && leak+="$rel: a truth written in the key; "
        grep -E '^[[:space:]]*truth[[:space:]]*=' "$f" | grep -qwF -f "$T/values" && leak+="$rel: a truth line holds a key value; "
        # calibration is ID = SPREAD: a spread of 0 reads as an answer 0; it is the key's own file, compared below.
        [ "$(basename "$f")" != calibration ] && grep -qxF -f "$T/answers" "$f" &&
            leak+="$rel: an answer of answers.ref/.wrong: $(grep -xF -f "$T/answers" "$f" | head -1); "
        awk 'length($0) >= 24' "$f" | sort -u >"$T/slines"
        [ -s "$T/slines" ] && grep -qF -f "$T/slines" "$T/expl_text" &&
            leak+="$rel: a piece of an explanation: $(grep -oF -f "$T/slines" "$T/expl_text" | head -1 | cut -c1-80); "
        case $(basename "$f") in answers.* | explanation.md) leak+="$rel: an answer key file; " ;; esac
    done < <(find "$out/student" -type f -print0)
    for d in "$out"/student/*/; do
        cmp -s "$d/calibration" "$out/key/$(basename "$d")/calibration" || leak+="$(basename "$d")/calibration is not the key's; "
    done
    # Every lab was packed, and the student's copy loads as it is.
    local want have
    want=$(find "$labs" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*-*' | wc -l)
    have=$(RUNQ_LABS=$out/student "$RUNQ" lab list 2>&1 | grep -c 'questions, about')
    [ "$want" -gt 0 ] && [ "$have" = "$want" ] || leak+="$have of $want labs load from $out/student; "
    if [ -z "$leak" ]; then
        pass "$name ($n files; $(wc -l <"$T/values") key values, $(wc -l <"$T/answers") answers, $(wc -l <"$T/expl") explanation lines)"
    else
        failed "$name" "$leak"
    fi
}

runq_labs() { RUNQ_LABS=$1 "$RUNQ" "${@:2}" >"$T/out" 2>"$T/err" </dev/null; rc=$?; }

runq_labs "$REPO/labs" lab pack "$T/course"
[ $rc = 0 ] || { failed pack "exit $rc: $(head -c 300 "$T/err")"; exit 1; }
pack_has_no_key pack_student_copy_has_no_key "$T/course" "$REPO/labs"

# Every lab again, one of them with an explanation line of 7,000
# characters and one indented by a vertical tab, both of which lab_load
# reads as explain lines: a 4096-byte line buffer copied the long one's
# tail to the student, a prefix test after spaces and tabs the other.
mkdir -p "$T/src"
cp -r "$REPO/labs" "$T/src/labs"
ln -s "$REPO/scenarios" "$T/src/scenarios"
ln -s "$REPO/docs" "$T/src/docs"
awk '{ print }
     /^explain/ && !done {
         printf "explain = LONG-EXPLANATION-START"
         for (i = 0; i < 800; i++) printf " because%d", i
         print " LONG-EXPLANATION-END"
         printf "\vexplain = VTAB-EXPLANATION: placed with its lag, the woken task waits behind the others\n"
         done = 1
     }' "$REPO/labs/03-lag/lab.conf" >"$T/src/labs/03-lag/lab.conf"
runq_labs "$T/src/labs" lab pack "$T/long"
if [ $rc != 0 ]; then
    failed pack_long_explanation_line "exit $rc: $(head -c 300 "$T/err")"
elif [ "$(awk 'length($0) > 7000' "$T/long/key/03-lag/lab.conf" | wc -l)" != 1 ]; then
    failed pack_long_explanation_line "the fixture's key has no 7,000-character line"
else
    pack_has_no_key pack_long_explanation_line "$T/long" "$T/src/labs"
fi

# issue 36: what --reveal would print of the key. A student's lab with a
# truth = key refuses --reveal before running anything.
n=0 bad=""
for d in "$T/course/student"/*/; do
    grep -q '^truth = key$' "$d/lab.conf" || continue
    n=$((n + 1))
    runq_labs "$T/course/student" lab check "$(basename "$d")" --answers "$T/course/key/$(basename "$d")/answers.ref" \
        --reveal --out "$T/reveal"
    [ $rc = 2 ] && grep -q 'needs the instructor' "$T/err" || bad+="$(basename "$d"): exit $rc; "
done
if [ $n = 0 ]; then
    failed student_copy_cannot_reveal "no lab of the student's copy has a truth = key"
elif [ -n "$bad" ]; then
    failed student_copy_cannot_reveal "$bad"
else
    pass "student_copy_cannot_reveal ($n labs)"
fi

# ---- grade: the submissions folder is the students' ----

S=$T/sub
mkdir -p "$S" "$T/g"
K=$T/course/key/01-who-runs-next
# alice's reasoning and one answer carry terminal escapes: shown, never
# obeyed, on every line that quotes them (answers_shown_visible).
{ echo 'student = alice'; grep -v '^seed' "$K/answers.ref" |
    sed -e 's/^why_eevdf = lag$/why_eevdf = lag # \x1b]0;pwn\x07 because/' -e 's/^where_rr = .*/where_rr = \x1b[2Jticks/' |
    printf '%b' "$(cat)"; echo; } >"$S/alice.txt"
# Seed 1's answers are the key's answers.ref: a seed line must not pick them.
{ echo 'student = mallory'; cat "$K/answers.ref"; } >"$S/mallory.txt"
{ echo 'student = ../escape'; cat "$K/answers.ref"; } >"$S/evil.txt"
{ echo 'student = bob'; cat "$K/answers.ref"; } >"$S/bob.txt"
{ echo 'student = bob'; cat "$K/answers.wrong"; } >"$S/copy.txt"
# On a file system that ignores case, BOB's folder is bob's.
{ echo 'student = BOB'; cat "$K/answers.wrong"; } >"$S/shout.txt"
ln -s "$K/answers.ref" "$S/eve.txt"
ln -s "$K" "$S/evedir"
mkdir "$S/folder"
mkfifo "$S/pipe"
cp "$K/answers.ref" "$S/.hidden.txt"
SKIPPED=9
(cd "$T/g" && "$RUNQ" lab grade 1 --key "$T/course/key" ../sub --out grading >"$T/grade.out" 2>"$T/grade.err" </dev/null)
grc=$?
# skipped_line NAME: the one stderr line that skips sub/NAME
skipped_line() { grep -F -- "runq lab: grade: ../sub/$1: skipped: " "$T/grade.err"; }
graded() { grep -q "^$1 " "$T/grade.out"; }

if [ $grc = 86 ]; then
    failed grade_runs "a sanitizer report: $(grep -m1 ERROR "$T/grade.err")"
elif ! graded alice || ! graded mallory; then
    failed grade_runs "exit $grc; alice and mallory not both graded: $(head -c 300 "$T/grade.out") $(head -c 300 "$T/grade.err")"
else
    pass grade_runs
fi

if [ $grc = 1 ] && grep -qE "^2 graded, mean [0-9]+%; $SKIPPED skipped \(see stderr\)$" "$T/grade.out" &&
    [ "$(grep -c ': skipped: ' "$T/grade.err")" = $SKIPPED ]; then
    pass grade_counts_what_it_skipped
else
    failed grade_counts_what_it_skipped "exit $grc (want 1), last line '$(tail -n 1 "$T/grade.out")', $(grep -c ': skipped: ' "$T/grade.err") skip lines (want $SKIPPED)"
fi

# F3: an ID names a folder in --out (beside grades.csv), nothing else.
if skipped_line evil.txt | grep -qF "student '../escape' is not an ID: an ID is 1 to 64 letters, digits" &&
    [ ! -e "$T/g/escape" ] && [ "$(ls "$T/g")" = grading ] && [ "$(ls "$T/g/grading" | tr '\n' ' ')" = "alice grades.csv mallory " ]; then
    pass bad_student_id_skipped_nothing_outside_out
else
    failed bad_student_id_skipped_nothing_outside_out "line '$(skipped_line evil.txt)'; $T/g holds: $(cd "$T/g" && find . -maxdepth 2 | tr '\n' ' ')"
fi

# F3: three files of one ID (case aside): each names the others, none graded.
if skipped_line bob.txt | grep -qF "student bob is also in ../sub/copy.txt, ../sub/shout.txt: none of them is graded" &&
    skipped_line copy.txt | grep -qF "student bob is also in ../sub/bob.txt, ../sub/shout.txt: none of them is graded" &&
    skipped_line shout.txt | grep -qF "student BOB is also in ../sub/bob.txt, ../sub/copy.txt: none of them is graded" &&
    ! grep -qi '^bob ' "$T/grade.out" && [ -z "$(ls "$T/g/grading" | grep -i '^bob$')" ]; then
    pass duplicate_student_ids_named_none_graded
else
    failed duplicate_student_ids_named_none_graded "bob.txt: '$(skipped_line bob.txt)'; copy.txt: '$(skipped_line copy.txt)'; shout.txt: '$(skipped_line shout.txt)'; table: $(tr '\n' '|' <"$T/grade.out")"
fi

# F5: a link to the key, a link to a folder, a folder, a FIFO, a hidden file.
why=""
skipped_line eve.txt | grep -qF 'a symbolic link: only regular files are graded' || why+="eve.txt: '$(skipped_line eve.txt)'; "
skipped_line evedir | grep -qF 'a symbolic link: only regular files are graded' || why+="evedir: '$(skipped_line evedir)'; "
skipped_line folder | grep -qF 'not a regular file: a directory' || why+="folder: '$(skipped_line folder)'; "
skipped_line pipe | grep -qF 'not a regular file' || why+="pipe: '$(skipped_line pipe)'; "
skipped_line .hidden.txt | grep -qF 'a hidden file' || why+=".hidden.txt: '$(skipped_line .hidden.txt)'; "
graded eve && why+="eve graded: $(grep '^eve ' "$T/grade.out"); "
[ -e "$T/g/grading/eve" ] && why+="grading/eve written; "
[ -z "$why" ] && pass only_regular_files_graded || failed only_regular_files_graded "$why"

# F10: the variant is the ID's. mallory's seed = 1 is said on her line
# (as docs/instructor.md shows it) and not obeyed: her answers with
# seed = 2 boot the same kernels.
doc_line=$(sed -n 's/^    \(mallory  .*seed = 1 in the answers ignored.*\)$/\1/p' docs/instructor.md)
if [ -z "$doc_line" ]; then
    failed seed_line_said "no mallory line in docs/instructor.md"
elif grep -qxF -- "$doc_line" "$T/grade.out"; then
    pass seed_line_said
else
    failed seed_line_said "want '$doc_line', got '$(grep '^mallory' "$T/grade.out")'"
fi
mkdir -p "$T/sub2" "$T/g2"
sed 's/^seed = 1$/seed = 2/' "$S/mallory.txt" >"$T/sub2/mallory.txt"
(cd "$T/g2" && "$RUNQ" lab grade 1 --key "$T/course/key" ../sub2 --out grading >"$T/grade2.out" 2>"$T/grade2.err" </dev/null)
probes() { cat "$1"/grading/mallory/*.console | grep '^probe '; }
if ! grep -q 'seed = 2' "$T/sub2/mallory.txt" || [ "$(probes "$T/g" | wc -l)" -lt 2 ]; then
    failed seed_line_not_obeyed "no seed = 2 fixture, or no probe lines in $T/g/grading/mallory"
elif [ "$(probes "$T/g")" = "$(probes "$T/g2")" ]; then
    pass "seed_line_not_obeyed ($(probes "$T/g" | wc -l) probe lines the same under seed = 1 and seed = 2)"
else
    failed seed_line_not_obeyed "seed = 1 and seed = 2 booted different kernels: $(diff <(probes "$T/g") <(probes "$T/g2") | head -4 | tr '\n' '|')"
fi

# A student's text reaches the instructor's terminal and the transcripts
# made visible: no raw ESC in what grade printed or wrote for alice, and
# her answer and reasoning there as \x1b (lab check's PASS/FAIL lines).
esc=$(printf '\033')
tr_file=$T/g/grading/alice/transcript.txt
if ! grep -q "$esc" "$S/alice.txt"; then
    failed answers_shown_visible "no ESC in alice's answers: the fixture is wrong"
elif [ ! -f "$tr_file" ]; then
    failed answers_shown_visible "no $tr_file"
elif grep -lq "$esc" "$T/g/grading/alice"/*.txt "$T/grade.out" "$T/grade.err"; then
    failed answers_shown_visible "a raw ESC in $(grep -l "$esc" "$T/g/grading/alice"/*.txt "$T/grade.out" "$T/grade.err" | tr '\n' ' ')"
elif ! grep -qF 'answered \x1b[2Jticks' "$tr_file"; then
    failed answers_shown_visible "alice's answer not shown as \\x1b[2Jticks: $(grep where_rr "$tr_file")"
else
    pass answers_shown_visible
fi

# The ID rule is run's too: a student cannot run as one grade refuses.
"$RUNQ" lab run 1 --student .. --out "$T/run" >"$T/out" 2>"$T/err" </dev/null
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF "an ID is 1 to 64 letters" "$T/err" && [ ! -e "$T/run" ]; then
    pass student_flag_takes_an_id
else
    failed student_flag_takes_an_id "exit $rc (want 2), stderr: $(head -c 200 "$T/err")"
fi
exit $fail
