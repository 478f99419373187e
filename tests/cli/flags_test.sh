#!/usr/bin/env bash
# The one flag parser (host/cli/flags.c), through the commands converted to it
# (runq step, and for what step lacks, sim, top and record): the rules
# docs/architecture.md states for every command.
#   - --name=VALUE is --name VALUE; a bool takes no value;
#   - a missing value, an unknown flag, a number out of bounds, a second
#     positional argument: one line "runq step: ..." and exit 2;
#   - -- ends the flags; --help and -h print the help from the table and
#     exit 0, every flag of the table in it, in order, and nothing else;
#   - a usage error comes before the database is opened;
#   - a short name (-p) is its flag: -p V and -pV, no bundling (-vc);
#   - a FLAG_FUNC flag is taken at each occurrence (repeatable);
#   - a mode flag (--linux) picks the table wherever it stands before --.
# Usage: tests/cli/flags_test.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

# usage NAME WANT_REGEX ARGS...: exit 2, one line on stderr matching WANT.
usage() {
    local name=$1 want=$2
    shift 2
    "$RUNQ" step "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "^runq step: $want\$" "$T/err" && [ ! -s "$T/out" ]; then
        pass "$name"
    else
        failed "$name" "exit $rc; stderr '$(head -c 200 "$T/err")'; stdout $(wc -c <"$T/out") bytes"
    fi
}
usage missing_value "--db needs a value" --db
usage unknown_flag "unknown flag '--nope'; see runq step --help" --nope
usage unknown_short "unknown flag '-x'; see runq step --help" -x
usage bool_takes_no_value "--plain takes no value" --plain=yes
usage number_out_of_bounds "--width takes a width of 40..10000 columns, not '39'" --width 39
usage number_malformed "--at takes an event number \(0, 1, \.\.\.\), not '1x'" --at=1x
usage second_positional "one TRACE only \(a second goes after --compare\)" 1 2
usage dash_dash_then_extra "one TRACE only \(a second goes after --compare\)" -- 1 --plain

# --name=VALUE reaches the value: a database that is not there is named.
"$RUNQ" step --db="$T/none.db" 1 >/dev/null 2>"$T/err"
if [ $? = 1 ] && grep -q "^runq step: $T/none.db: no such database$" "$T/err"; then
    pass equals_form_sets_the_value
else
    failed equals_form_sets_the_value "$(head -c 200 "$T/err")"
fi

# The help: from the table, so every flag's row is there once, in the
# table's order, each at the same column, and --help's own row last.
for h in --help -h; do
    "$RUNQ" step "$h" >"$T/help" 2>"$T/err"
    rc=$?
    rows=$(sed -n '/^flags:$/,/^$/p' "$T/help" | grep -o '^  --[a-z]*' | tr -d ' ' | tr '\n' ' ')
    cols=$(sed -n '/^flags:$/,/^$/p' "$T/help" | grep '^  --' | awk '{ match($0, /^  --[^ ]+( [A-Z0-9]+)? +/); print RLENGTH }' | sort -u | tr '\n' ' ')
    if [ $rc = 0 ] && [ ! -s "$T/err" ] && head -1 "$T/help" | grep -q '^usage: runq step ' &&
        [ "$rows" = "--db --compare --align --plain --at --width --help " ] && [ "$cols" = "21 " ]; then
        pass "help_from_the_table ($h: $rows)"
    else
        failed help_from_the_table "$h: exit $rc; rows '$rows'; columns '$cols'"
    fi
done
# ---- what step's table lacks, through the commands that need it ----

# usage_of CMD NAME WANT_REGEX ARGS...: runq ARGS exits 2 with one line on
# stderr, "runq CMD: WANT".
usage_of() {
    local cmd=$1 name=$2 want=$3
    shift 3
    "$RUNQ" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "^runq $cmd: $want\$" "$T/err" && [ ! -s "$T/out" ]; then
        pass "$name"
    else
        failed "$name" "exit $rc; stderr '$(head -c 200 "$T/err")'; stdout $(wc -c <"$T/out") bytes"
    fi
}
W=docs/sim/zijlstra-fifo.sim
usage_of sim short_names_its_flag "--policy takes rr or eevdf, not 'cfs'" sim -p cfs $W
usage_of sim short_value_attached "--policy takes rr or eevdf, not 'cfs'" sim -pcfs $W
usage_of sim short_needs_a_value "--seed needs a value" sim -s
usage_of sim short_switches_not_bundled "unknown flag '-vc'; see runq sim --help" sim -vc $W
usage_of sim func_says_why "--feature NOPE=on: no feature 'NOPE'" sim --feature NOPE=on $W
# A repeatable flag's bounded list (flag_push): one past its bound is a
# usage error in the command's own words, the list's bound in it.
usage_of sim list_full_says_its_bound "--feature HRTICK=on: more than 32 --feature flags" \
    sim $(for i in $(seq 33); do echo -f HRTICK=on; done) $W
usage_of experiment list_full_says_its_bound_too "--vary k9=1: at most 8 --vary axes" \
    experiment --engine sim --db "$T/v.db" $(for i in $(seq 9); do echo --vary k$i=1; done) scenarios/short-slice.scn
usage_of top func_says_what_it_takes "--delay takes tenths of a second, 0\.5\.\.100, not '0\.1'" top --delay 0.1
usage_of "record --linux" mode_anywhere_picks_the_table "--cpus takes a CPU list .*, not '99'" \
    record --db "$T/x.db" --linux --cpus 99
usage_of top mode_not_after_dash_dash "unexpected argument '--linux'; see runq top --help" top -- --linux

# -s 5 -c, -s5 -c and --seed=5 --check: one problem, one answer.
"$RUNQ" sim -s 5 -c >"$T/a" 2>&1 && "$RUNQ" sim -s5 -c >"$T/b" 2>&1 && "$RUNQ" sim --seed=5 --check >"$T/c" 2>&1
if [ $? = 0 ] && [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && cmp -s "$T/a" "$T/c"; then
    pass short_and_long_agree
else
    failed short_and_long_agree "$(diff "$T/a" "$T/b" | head -3) $(diff "$T/a" "$T/c" | head -3)"
fi

# A repeatable flag: both -f are in the run (its header names the
# switches that differ from the defaults).
"$RUNQ" sim -v -f HRTICK=on -f RUN_TO_PARITY=off $W >"$T/out" 2>"$T/err"
hdr=$(grep -m1 '^eevdf, quantum' "$T/out")
if [ $? = 0 ] && grep -q ', HRTICK' <<<"$hdr" && grep -q ', NO_RUN_TO_PARITY' <<<"$hdr"; then
    pass repeatable_flag_takes_each
else
    failed repeatable_flag_takes_each "header '$hdr'; stderr '$(head -c 200 "$T/err")'"
fi

# The help of a table with short names: "-x, --name" or four spaces, so
# the long names line up; -h, --help last; every text beside its flag at
# one column (a row too long for it has its text on the next line).
"$RUNQ" sim --help >"$T/help"
rows=$(sed -n '/^flags:$/,/^$/p' "$T/help" | grep -E '^  (-[a-z], |    )--' | sed -E 's/^  (-[a-z], |    )(--[a-z]+).*/\1\2/; s/ +/ /g' | tr '\n' '|')
cols=$(sed -n '/^flags:$/,/^$/p' "$T/help" | grep -E '^  (-[a-z], |    )--' | awk '{ r = substr($0, 7) } match(r, /  +[^ ]/) { print 6 + RSTART + RLENGTH - 2 }' | sort -u | tr '\n' ' ')
want='-v, --decisions| --numberline|-s, --seed|-c, --check|-p, --policy|-f, --feature|-r, --run|-h, --help|'
if [ "$rows" = "$want" ] && [ "$cols" = "21 " ]; then
    pass "help_with_short_names ($rows)"
else
    failed help_with_short_names "rows '$rows'; columns '$cols'"
fi

# The rows the database readers share (host/cli/db_flags.h's DB_FLAG_ROWS and
# DB_FORMAT_ROWS): one rule, one message, in sql, each report and export;
# a report's word picks its table, so a flag of another report is unknown.
for cmd in sql "report latency" "report experiment" "report fidelity" export; do
    n=${cmd// /_}
    usage_of "$cmd" "shared_trace_row_$n" "--trace takes a trace id \(a positive number\), not '0'" $cmd --trace 0
    usage_of "$cmd" "shared_db_row_$n" "--db takes a file name, not ''" $cmd --db=
done
usage_of sql shared_format_rows_exclusive "--csv or --json, not both" sql --csv --json "SELECT 1"
usage_of "report share" report_word_picks_the_table "unknown flag '--class'; see runq report share --help" \
    report share --class fair
usage_of report report_word_first "name a report first .*; see runq report --help" report --db x latency
# The words of a command of several kinds come from its one table
# (flags_word): the messages name every word, and its help lists each.
usage_of report word_missing_names_every_report \
    "name a report first \(latency, releases, share, decisions, loss, experiment, compare, fidelity\); see runq report --help" report
usage_of report word_unknown_names_every_report \
    "no report 'pie': want latency, releases, share, decisions, loss, experiment, compare or fidelity" report pie
usage_of plot word_unknown_names_every_kind "no kind 'pie': want timeline, latency or experiment" plot pie
for cmd in report:reports plot:kinds; do
    "$RUNQ" "${cmd%%:*}" --help >"$T/help" 2>&1
    rows=$(sed -n "/^${cmd#*:}:\$/,/^\$/p" "$T/help" | sed -n 's/^  \([a-z]*\)  *[^ ].*/\1/p' | tr '\n' ' ')
    want=$("$RUNQ" "${cmd%%:*}" 2>&1 | sed 's/.*first (\(.*\)); see.*/\1/; s/,//g')
    if [ -n "$rows" ] && [ "$rows" = "$want " ]; then
        pass "word_help_lists_every_word_${cmd%%:*} ($rows)"
    else
        failed "word_help_lists_every_word_${cmd%%:*}" "help rows '$rows', the words '$want'"
    fi
done
# runq report fidelity's --help says what runq report's help says of it
# (one text, capitalised and wrapped as each SQL report's).
row=$("$RUNQ" report --help | sed -n 's/^  fidelity   *//p')
about=$("$RUNQ" report fidelity --help | sed -n '3,/^$/p' | tr '\n' ' ' | sed 's/ *$//')
if [ -n "$row" ] && [ "$about" = "A${row#a}." ]; then
    pass word_help_line_is_the_reports_about
else
    failed word_help_line_is_the_reports_about "help line '$row'; --help '$about'"
fi
usage_of "plot timeline" plot_kind_picks_the_table "unknown flag '--cdf'; see runq plot timeline --help" \
    plot timeline --cdf
for cmd in "report latency" "report compare" sql export merge "plot latency"; do
    "$RUNQ" $cmd --help >"$T/help" 2>"$T/err"
    if [ $? = 0 ] && [ ! -s "$T/err" ] && head -1 "$T/help" | grep -q "^usage: runq $cmd" &&
        grep -q '^flags:$' "$T/help" && grep -Eq '^  (-h, |    )?--help +show this help$' "$T/help"; then
        pass "help_from_the_table_${cmd// /_}"
    else
        failed "help_from_the_table_${cmd// /_}" "$(head -c 200 "$T/help") $(head -c 200 "$T/err")"
    fi
done

# runq boot and runq run: one table, two forms. run lists --db and not
# --timeout, boot the other way round; each refuses the other's flag with
# the standard words, before any QEMU starts.
"$RUNQ" boot --help >"$T/bh"; "$RUNQ" run --help >"$T/rh"
if grep -q -- '^  --timeout S ' "$T/bh" && ! grep -q -- '--db ' "$T/bh" && grep -q -- '^  --db FILE.db ' "$T/rh" \
    && ! grep -q -- '--timeout' "$T/rh" && grep -q '^environment:' "$T/rh"; then
    pass boot_and_run_help_from_one_table
else
    failed boot_and_run_help_from_one_table "$(head -c 300 "$T/rh")"
fi
"$RUNQ" boot --kernel /nonexistent --db x.db >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && [ "$(cat "$T/err")" = "runq boot: unknown flag '--db'; see runq boot --help" ]; then
    pass boot_refuses_run_flag
else
    failed boot_refuses_run_flag "rc $rc: $(head -c 200 "$T/err")"
fi
"$RUNQ" boot --kernel /nonexistent --cpus=x >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && [ "$(cat "$T/err")" = "runq boot: --cpus takes 1..64, not 'x'" ]; then
    pass boot_bad_value_standard_words
else
    failed boot_bad_value_standard_words "rc $rc: $(head -c 200 "$T/err")"
fi

# runq run --engine: experiment's flags under run's own name and help
# (run_on_engine), not runq experiment's words.
"$RUNQ" run --engine sim >"$T/out" 2>"$T/err"
rc=$?
"$RUNQ" run --engine sim --help >"$T/help" 2>&1
hrc=$?
if [ $rc = 2 ] && [ "$(cat "$T/err")" = "runq run: need a scenario FILE; see runq run --help" ] &&
    [ $hrc = 0 ] && head -1 "$T/help" | grep -q '^usage: runq run --engine' && grep -q -- '--vary KEY=V1,V2' "$T/help"; then
    pass run_engine_is_runs_own
else
    failed run_engine_is_runs_own "exit $rc '$(head -c 200 "$T/err")'; help exit $hrc: $(head -1 "$T/help")"
fi

exit $fail
