#!/usr/bin/env bash
# tests/db/db_fuzz.sh ROUNDS [RUNQ]: the database readers on hostile files
# (issue 30). Each round copies a real database (two recorded traces and
# an experiment), makes it hostile with tests/db/db_mutate.py (random text of
# hostile pieces in TEXT columns, edge integers in INTEGER ones, rows
# deleted and duplicated; the seed says which), and runs every reader on
# it under the sanitizer build: plot timeline, latency and experiment;
# export --perfetto; step --plain, alone and with --compare; top, in a
# pseudo-terminal for one screen and a few keys; report latency,
# releases, share, decisions, loss, experiment and compare; merge of it as
# a shard into a new database. Each command runs in an empty working
# directory of its own, with HOME and TMPDIR empty directories of its own
# and a copy of the database of its own.
#
# A command may refuse the file (exit 1 or 2, saying why on stderr); it
# must not:
#   crash       die of a signal
#   sanitizer   make ASan or UBSan report (exit 86, as tests/run.sh sets it)
#   hang        run past DB_FUZZ_TIMEOUT seconds (default 10)
#   canary      run a command the database wrote: the payloads touch $T/C
#   write       leave a file anywhere but its named output (-o OUT, merge's
#               OUT.db) and SQLite's -wal and -shm beside the database it
#               read: its directory, HOME, TMPDIR, $T and the repository
#               (git status) are listed before and after
#   escape      print an ESC byte on a terminal (stdout of step and report,
#               stderr of all; for top, the title sequence a payload holds)
#   exit        exit with another status, or fail without a word on stderr
# Each class is one PASS or FAIL line at the end. A finding keeps the
# mutated database in DB_FUZZ_FINDINGS (default build/db-fuzz-findings)
# with the command that failed, its seed, and its stderr; the line says how
# to run it again.
#
# Seeds: round i runs seed SEED+i (SEED default 1, so make test's short
# run is the same every time; make fuzz seeds from the clock and prints
# it). SEED=S tests/db/db_fuzz.sh 1 repeats round S alone.
#
# Nothing passes vacuously: the unmutated database goes first, and every
# command must exit 0 on it (a command line the reader refuses would find
# nothing); and at least a tenth of the commands on mutated databases must
# exit 0, so the mutations leave the readers something to read.
set -u
cd "$(dirname "$0")/../.."
ROUNDS=${1:-20}
RUNQ=$(realpath "${2:-build/asan/runq}")
SEED=${SEED:-1}
TMO=${DB_FUZZ_TIMEOUT:-10}
FINDINGS=$(realpath -m "${DB_FUZZ_FINDINGS:-build/db-fuzz-findings}")
# In memory where there is a tmpfs: runq's readers and merge wait for the
# disk otherwise (merge's commit), and the suite runs them 14 times a
# round. The path is short, so that a payload with it fits a 31-byte
# field (trace.policy): /dev/shm/dbf.XXXXXX/C is 21 bytes.
tmp=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
T=$(mktemp -d $tmp/dbf.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=86:print_stacktrace=1}
command -v python3 >/dev/null || { echo "SKIP db_fuzz: no python3 for the mutator"; exit 0; }
gnuplot=yes
command -v gnuplot >/dev/null || { gnuplot=; echo "SKIP db_fuzz_plot: no gnuplot on PATH (make deps installs gnuplot-nox)"; }
tty=yes
command -v script >/dev/null || { tty=; echo "SKIP db_fuzz_top: no script(1) for a pseudo-terminal"; }

# ---- the fixture: trace 1 EEVDF with a real-time task (bounces), trace 2
# round robin with a data gap on CPU 1, trace 1 a scenario run, and seed
# 000's slice beat on paper (2 x 3 cells, 2 repeats: plot experiment's
# axes and series) ----
"$GEN" --ms 200 --seed 3 --rt 1 --out "$T/e.bin" &&
    "$GEN" --policy rr --ms 200 --seed 3 --ring-drop 50 --out "$T/r.bin" &&
    "$RUNQ" record --file "$T/e.bin" --db "$T/f.db" >/dev/null 2>&1 &&
    "$RUNQ" record --file "$T/r.bin" --db "$T/f.db" >/dev/null 2>&1 &&
    sq "$T/f.db" "INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, params, status)
                  VALUES (NULL, 0, 0, 1, 1, 'kernel', 'hog.slice=2ms', 'ok')" &&
    "$RUNQ" experiment --engine sim --repeat 2 --quiet --vary hog.slice=1ms,2ms,3ms --vary run=200ms \
        --db "$T/x.db" scenarios/slice-beat.scn >/dev/null 2>&1 &&
    "$RUNQ" merge "$T/fixture.db" "$T/f.db" "$T/x.db" >/dev/null 2>&1 &&
    rm -f "$T"/*.bin "$T/f.db" "$T/x.db" "$T"/*.db-* ||
    { failed fixture "could not record the fixture database"; exit 1; }

# step's commands: every kind of move, a search, a mark, a jump in time
printf '%s\n' n 'n 10' N P p 'b 1500' 'b @1ms' 'b +12.5ms' /PICK '?WAKE' 'g 5' 'c 0' N 'c -' 'm a' \
    'n 50' "' a" r 'n 1000' 'a event' q >"$T/step.keys"
: >"$T/empty"

ESC=$'\x1b'
classes="crash sanitizer hang canary write escape exit"
declare -A count first
for c in $classes; do count[$c]=0; first[$c]=; done
declare -A by_rc sites site_first
commands=0 ok=0 mcommands=0 mok=0 nothing=0
git_before=$(git status --porcelain --ignored -- . ':!build' 2>/dev/null)
T_before=$(ls -A "$T"; echo m.db; echo mutate.txt)

# finding CLASS NAME WHAT: one finding of the command just run; keeps the
# database and the command's stderr in $FINDINGS, says how to repeat it.
finding() {
    local class=$1 name=$2 what=$3 keep
    count[$class]=$((count[$class] + 1))
    keep=$FINDINGS/seed-$seed.db
    if [ ! -e "$FINDINGS/findings.txt" ] || ! grep -qF "$T" "$FINDINGS/findings.txt"; then
        mkdir -p "$FINDINGS"
        echo "# $(date -u '+%F %T') UTC, $RUNQ: the payloads in these databases touch $T/C (mkdir -p $T to see one land)" >>"$FINDINGS/findings.txt"
    fi
    [ -e "$keep" ] || cp "$T/m.db" "$keep"
    cp "$T/err" "$FINDINGS/seed-$seed-$name.stderr"
    [ -e "$FINDINGS/step.keys" ] || cp "$T/step.keys" "$FINDINGS/step.keys"
    # the command again, on the kept database, writing in the directory it runs in
    local cmd=${shown//"$T/in/db"/"$keep"}
    cmd=${cmd//"$T/w/"/}
    cmd=${cmd//"$T/step.keys"/"$FINDINGS/step.keys"}
    local line="$class: $name, seed $seed: $what
    again: $cmd
       or: SEED=$seed bash tests/db/db_fuzz.sh 1 $RUNQ"
    [ -z "${first[$class]}" ] && first[$class]=$line
    # findings of one bug, told apart by where the sanitizer stopped, or
    # else by the command: the end lists each with its count
    local site=$name
    [ "$class" = sanitizer ] && site=$(grep -o -E '[a-z_/]+\.[ch]:[0-9]+' <<<"$what" | head -1)
    site="$class ${site:-$name}"
    sites[$site]=$((${sites[$site]:-0} + 1))
    [ -n "${site_first[$site]:-}" ] || site_first[$site]="$name, seed $seed: $(cut -c1-160 <<<"$what")"
    # every class's first few in the log; all of them in the findings folder
    [ "${count[$class]}" -le 3 ] && echo "$line"
    echo "$line" >>"$FINDINGS/findings.txt"
}

# sanitizer_says FILE: the report's first line and first frames of runq's own
sanitizer_says() {
    { grep -a -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$1"
      grep -a -E '^ *#[0-9]+ ' "$1" | grep -v -E 'libsanitizer|libasan|libubsan|libc\.so|compiler-rt' | head -3 |
          sed -E 's/^ *(#[0-9]+) 0x[0-9a-f]+ in /\1 /'; } | sed 's/\x1b\[[0-9;]*m//g' | tr '\n' ' ' | cut -c1-400
}

# run NAME OUT INPUT ARGS...: runs $RUNQ ARGS with stdin INPUT in the
# command's own directories; OUT is the one file it may write there (or
# -). The database is $T/in/db. Leaves $rc, $T/out, $T/err; counts.
run() {
    local name=$1 out=$2 input=$3
    shift 3
    rm -rf "$T/w" "$T/h" "$T/tmp" "$T/in"
    mkdir "$T/w" "$T/h" "$T/tmp" "$T/in"
    cp "$T/m.db" "$T/in/db"
    shown="RUNQ_CANARY=$T/C $RUNQ$(printf ' %q' "$@")"
    [ "$input" != "$T/empty" ] && shown="$shown <$input"
    # the subshell's own stderr is bash's "Aborted" line for a runq killed
    # by a signal: the suite says that itself
    (cd "$T/w" && HOME=$T/h TMPDIR=$T/tmp RUNQ_CANARY=$T/C \
        timeout -k 2 "$TMO" "$RUNQ" "$@" <"$input" >"$T/out" 2>"$T/err"; exit $?) 2>/dev/null
    rc=$?
    # --csv is data for a program, the bytes as stored (docs/sql.md): its
    # stdout is no terminal's; its stderr still is
    local term=$T/out
    [[ " $* " == *" --csv "* ]] && term=/dev/null
    judge "$name" "$out" "$term"
}

# run_tty NAME KEYS ARGS...: runq ARGS in a pseudo-terminal (script(1)),
# KEYS typed one at a time, 50 ms apart, from 150 ms after it starts (top
# takes every key already typed before it draws again: keys typed at once
# would draw one screen); its screen is $T/out.
run_tty() {
    local name=$1 keys=$2 i
    shift 2
    rm -rf "$T/w" "$T/h" "$T/tmp" "$T/in"
    mkdir "$T/w" "$T/h" "$T/tmp" "$T/in"
    cp "$T/m.db" "$T/in/db"
    shown="RUNQ_CANARY=$T/C $RUNQ$(printf ' %q' "$@")   (in a terminal, typing $(printf %q "$keys"))"
    # script ends when runq does, and ignores the end of its input: a
    # runq that does not quit on q is a hang, caught by timeout
    (cd "$T/w" && { sleep 0.15; for ((i = 0; i < ${#keys}; i++)); do printf %s "${keys:i:1}"; sleep 0.05; done; } |
        HOME=$T/h TMPDIR=$T/tmp RUNQ_CANARY=$T/C TERM=xterm-256color \
            timeout -k 2 "$TMO" script -qefc "$(printf '%q ' "$RUNQ" "$@")" /dev/null >"$T/out" 2>"$T/err"
        exit $?) 2>/dev/null
    rc=$?
    cat "$T/out" >>"$T/err"  # the terminal is its stderr too
    judge "$name" - /dev/null
}

# judge NAME OUT TERMINAL_OUTPUT: the checks, on the command just run.
judge() {
    local name=$1 out=$2 term=$3 extra
    commands=$((commands + 1))
    by_rc[$rc]=$((${by_rc[$rc]:-0} + 1))
    [ $rc = 0 ] && ok=$((ok + 1))
    # as recorded, each command writes its output: else "nothing but the
    # output" would hold of a command that writes nothing at all
    [ "$seed" = 0 ] && [ $rc = 0 ] && [ "$out" != - ] && [ ! -s "$T/w/$out" ] && nothing=$((nothing + 1))
    [ "$seed" != 0 ] && { mcommands=$((mcommands + 1)); [ $rc = 0 ] && mok=$((mok + 1)); }
    case $rc in
    0 | 1 | 2) ;;
    86) finding sanitizer "$name" "$(sanitizer_says "$T/err")" ;;
    124 | 137) finding hang "$name" "still running after ${TMO} s" ;;
    *) if [ $rc -gt 128 ]; then
           finding crash "$name" "signal $((rc - 128)): $(grep -a -m2 . "$T/err" | tr '\n' ' ' | cut -c1-300)"
       else
           finding exit "$name" "exit $rc: $(head -c 300 "$T/err")"
       fi ;;
    esac
    if [ $rc = 1 ] || [ $rc = 2 ]; then
        [ -s "$T/err" ] || finding exit "$name" "exit $rc with nothing on stderr"
    fi
    if [ -e "$T/C" ] || [ -e "$T/W" ] || [ -e "$T/A.db" ]; then
        finding canary "$name" "a payload ran: $(cd "$T" && ls -d C W A.db 2>/dev/null | tr '\n' ' ')"
        rm -f "$T/C" "$T/W" "$T/A.db"
    fi
    # Everything in $T must be the suite's own, the command's named output,
    # or SQLite's -wal and -shm beside the database it read (a reader
    # opens it read-only, and SQLite then leaves them). A command that died
    # leaves SQLite's journals beside its output and its temporary files in
    # TMPDIR too: the death is the finding. One that exited must have
    # closed its output and removed its temporary files.
    local own allowed
    own=$(basename -- "$out")
    allowed="$T_before
w
h
tmp
in
in/db
in/db-wal
in/db-shm
out
err
w/$own"
    case $rc in 0 | 1 | 2) ;; *) allowed="$allowed
w/$own-wal
w/$own-shm
w/$own-journal" ;; esac
    extra=$(cd "$T" && find . -mindepth 1 | sed 's|^\./||' | grep -vxF -- "$allowed")
    case $rc in 0 | 1 | 2) ;; *) extra=$(grep -v '^tmp/' <<<"$extra") ;; esac
    if [ -n "$extra" ]; then
        finding write "$name" "$(sed -E 's|^w/|./|;t;s|^h/|HOME/|;t;s|^tmp/|TMPDIR/|;t;s|^in/|beside the database: |;t;s|^|'"$T"'/|' <<<"$extra" |
                                  head -5 | tr '\n' ' ' | cut -c1-300)"
    fi
    if [ "$name" = top ]; then
        # ncurses draws with escapes of its own; the one of the payload
        # setting the window's title is not one of them
        grep -aqF "$ESC]0;runq-fuzz" "$T/out" && finding escape "$name" "the database's title sequence reached the terminal"
    elif grep -aq "$ESC" "$term" "$T/err"; then
        finding escape "$name" "ESC on $(grep -alF "$ESC" "$term" "$T/err" | sed "s|$T/out|stdout|;s|$T/err|stderr|" | paste -sd+): $(grep -ahm1 "$ESC" "$term" "$T/err" | cat -v | cut -c1-200)"
    fi
}

# round SEED: the fixture mutated by SEED (0: as it is), every reader on it
round() {
    seed=$1
    cp "$T/fixture.db" "$T/m.db"
    if [ "$seed" != 0 ]; then
        python3 tests/db/db_mutate.py "$seed" "$T" "$T/m.db" >"$T/mutate.txt" ||
            { failed db_fuzz_mutate "seed $seed: $(cat "$T/mutate.txt")"; return; }
    fi
    local tr=$((seed % 2 + 1)) other=$(((seed + 1) % 2 + 1)) ext=png fmt=
    [ $((seed % 3)) = 1 ] && ext=svg
    case $((seed % 3)) in 1) fmt=--csv ;; 2) fmt=--json ;; esac
    if [ -n "$gnuplot" ]; then
        # both traces: the timeline prints the most of a trace's text
        run plot_timeline "t.$ext" "$T/empty" plot timeline --db "$T/in/db" --trace $tr -o "$T/w/t.$ext"
        run plot_timeline_other "t.$ext" "$T/empty" plot timeline --db "$T/in/db" --trace $other -o "$T/w/t.$ext"
        run plot_latency "l.$ext" "$T/empty" plot latency --db "$T/in/db" -o "$T/w/l.$ext"
        run plot_experiment "x.$ext" "$T/empty" plot experiment --db "$T/in/db" -o "$T/w/x.$ext"
    fi
    run export p.systrace "$T/empty" export --perfetto --db "$T/in/db" --trace $tr -o "$T/w/p.systrace"
    run step - "$T/step.keys" step --db "$T/in/db" --plain $tr
    run step_compare - "$T/step.keys" step --db "$T/in/db" --plain --width 60 $tr --compare $other
    # from the middle of the trace: each view of it once, then the CPUs' rows hidden
    [ -n "$tty" ] && run_tty top $'\t\t\t1q' top --db "$T/in/db" --trace $tr --at 0.1 --speed 10 --delay 1
    local r
    for r in latency share decisions loss; do
        run report_$r - "$T/empty" report $r --db "$T/in/db" --trace $tr $fmt
    done
    run report_releases - "$T/empty" report releases --db "$T/in/db" $fmt
    run report_experiment - "$T/empty" report experiment --db "$T/in/db" $fmt
    run report_compare - "$T/empty" report compare $tr $other --db "$T/in/db" --force --interval 50ms
    run merge out.db "$T/empty" merge "$T/w/out.db" "$T/in/db"
    local git_now
    git_now=$(git status --porcelain --ignored -- . ':!build' 2>/dev/null)
    if [ "$git_now" != "$git_before" ]; then
        rc=0
        echo "the repository changed: $(diff <(echo "$git_before") <(echo "$git_now") | head -5 | tr '\n' ' ')" >"$T/err"
        finding write round "$(cat "$T/err")"
        git_before=$git_now
    fi
}

start=$(date +%s)
# The unmutated fixture: each command line must work, or it tests nothing.
round 0
if [ $ok != $commands ]; then
    failed db_fuzz_baseline "$((commands - ok)) of $commands commands fail on the database as recorded (command lines wrong?)"
elif [ $nothing != 0 ]; then
    failed db_fuzz_baseline "$nothing commands wrote no output on the database as recorded"
else
    pass "db_fuzz_baseline ($commands commands exit 0 on the database as recorded, each output written)"
fi
echo "db_fuzz: $ROUNDS rounds, seeds $SEED..$((SEED + ROUNDS - 1)) (SEED=N bash tests/db/db_fuzz.sh ROUNDS repeats them)"
for ((i = 0; i < ROUNDS; i++)); do
    round $((SEED + i))
done
secs=$(($(date +%s) - start))

rcs=$(for k in "${!by_rc[@]}"; do echo "$k"; done | sort -n | while read -r k; do printf ' %s:%s' "$k" "${by_rc[$k]}"; done)
echo "db_fuzz: $ROUNDS rounds, $commands commands in $secs s; by exit status$rcs"
echo "db_fuzz: crashes ${count[crash]}, sanitizer reports ${count[sanitizer]}, hangs ${count[hang]}," \
    "canaries ${count[canary]}, writes outside the output ${count[write]}, terminal escapes ${count[escape]}," \
    "other exits ${count[exit]}"
[ -n "$gnuplot" ] || echo "db_fuzz: plot not run (no gnuplot)"
for k in "${!sites[@]}"; do echo "$k"; done | sort | while read -r k; do
    printf 'db_fuzz:   %-38s %4d  first: %s\n' "$k" "${sites[$k]}" "${site_first[$k]}"
done
for c in $classes; do
    if [ "${count[$c]}" = 0 ]; then
        pass "db_fuzz_no_$c ($mcommands commands on mutated databases)"
    else
        failed "db_fuzz_no_$c" "${count[$c]} findings (kept in $FINDINGS); the first: ${first[$c]}"
    fi
done
# The mutations must leave something to read: if every command refused
# every database, the suite would find nothing and pass.
if [ $((mok * 10)) -ge "$mcommands" ]; then
    pass "db_fuzz_reaches_past_the_checks ($mok of $mcommands commands exit 0 on mutated databases)"
else
    failed db_fuzz_reaches_past_the_checks "only $mok of $mcommands commands exit 0 on mutated databases"
fi
exit $fail
