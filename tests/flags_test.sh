#!/usr/bin/env bash
# The one flag parser (cli/flags.c), through a command converted to it
# (runq step): the rules docs/cli.md states for every command.
#   - --name=VALUE is --name VALUE; a bool takes no value;
#   - a missing value, an unknown flag, a number out of bounds, a second
#     positional argument: one line "runq step: ..." and exit 2;
#   - -- ends the flags; --help and -h print the help from the table and
#     exit 0, every flag of the table in it, in order, and nothing else;
#   - a usage error comes before the database is opened.
# Usage: tests/flags_test.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
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
exit $fail
