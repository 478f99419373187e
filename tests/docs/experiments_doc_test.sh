#!/usr/bin/env bash
# The runq experiment examples of docs/experiments.md, run. A fenced block
# whose first line is "$ build/runq experiment ..." is an example; the rest
# of the block is what it printed.
#   - An example on paper (--engine sim) is run whole and must print the
#     block, figures aside (shape, tests/lib.sh): the figures are make
#     docs' to write.
#   - A kernel example is a generated block: the line "<!-- make docs:
#     id=NAME ... -->" stands right above it, make docs wrote its figures
#     from the whole command's run, tests/docs/docs_current.sh says they
#     are current and make check's docs_reproduce makes them again. A
#     kernel example without that line is refused: a figure in the docs
#     that nothing makes is how docs drift.
#   - An example on the host's Linux (--engine with linux in it) is real
#     time: no run prints the same digits twice. It is a generated block
#     as well (make docs wrote its output, printed with its spread; a
#     Linux example without the make docs line is refused as a kernel one
#     is), and the comment "<!-- doc test: shape ARGS -->" above the
#     marker names a short cell to run instead
#     (ARGS are added to the command, e.g. --vary hog.count=8); it must run
#     with no run failing and print the block's header lines (the engines'
#     group line, the column names) exactly. Without root or tracefs it
#     says SKIP.
#   - EXPERIMENTS_DOC_QUICK=1 (make test): every example's form is checked
#     and the paper examples run; each Linux example says SKIP, naming make
#     check, which runs them.
# Usage: tests/docs/experiments_doc_test.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
DOC=${EXPERIMENTS_DOC:-docs/experiments.md}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"

# Each example as $T/ex.N.cmd, .want, and .cell (the comment's ARGS, if any).
awk -v dir="$T" '
    /^<!-- make docs: / { gen = 1; next }
    /^<!-- doc test: cell / { cell = $0; sub(/^<!-- doc test: cell /, "", cell); sub(/ -->$/, "", cell); shape = 0; next }
    /^<!-- doc test: shape / { cell = $0; sub(/^<!-- doc test: shape /, "", cell); sub(/ -->$/, "", cell); shape = 1; next }
    /^```/ {
        if (inblock) { inblock = 0; if (n) close(dir "/ex." n ".want"); cell = ""; next }
        inblock = 1; first = 1; example = 0; next
    }
    inblock && first {
        first = 0
        if ($0 ~ /^\$ build\/runq experiment/) {
            example = 1; n++
            print substr($0, 3) > (dir "/ex." n ".cmd"); close(dir "/ex." n ".cmd")
            printf "%s", cell > (dir "/ex." n ".cell"); close(dir "/ex." n ".cell")
            printf "%d", shape > (dir "/ex." n ".shape"); close(dir "/ex." n ".shape")
            printf "%d", gen > (dir "/ex." n ".gen"); close(dir "/ex." n ".gen")
            printf "" > (dir "/ex." n ".want")
        }
        cell = ""; shape = 0; gen = 0
        next
    }
    inblock && example { print > (dir "/ex." n ".want") }
    !inblock && !/^<!--/ && NF { cell = ""; shape = 0; gen = 0 }
' "$DOC"

nex=0
for cmdfile in "$T"/ex.*.cmd; do
    [ -e "$cmdfile" ] || break
    nex=$((nex + 1))
    base=${cmdfile%.cmd}
    cmd=$(cat "$cmdfile") cell=$(cat "$base.cell")
    cp "$base.want" "$T/want"
    name="doc_example_$nex ($(head -c 70 "$cmdfile"))"
    case "$cmd" in *"--engine sim"*) sim=1 ;; *) sim=0 ;; esac
    shape=$(cat "$base.shape")
    case "$cmd" in *"--engine "*linux*) linux=1 ;; *) linux=0 ;; esac
    if [ "$linux" = 1 ] && [ "$shape" != 1 ]; then
        failed "$name" "an example on Linux needs a '<!-- doc test: shape ARGS -->' line before its block"
        continue
    fi
    if [ "$linux" = 1 ] && [ "$(cat "$base.gen")" != 1 ]; then
        failed "$name" "an example on Linux needs a '<!-- make docs: id=NAME -->' line right above its block (its figures are make docs')"
        continue
    fi
    if [ "$linux" = 1 ] && { [ "$(id -u)" != 0 ] || ! [ -d /sys/kernel/tracing/instances ] && ! mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; }; then
        echo "SKIP $name: the Linux engine records through tracefs, which needs root"
        continue
    fi
    # A kernel example is a generated block: make docs wrote its figures
    # from the whole command's run (docs_current says they are current,
    # make check's docs_reproduce makes them again).
    if [ "$sim" = 0 ] && [ "$linux" = 0 ]; then
        if [ "$(cat "$base.gen")" = 1 ]; then
            pass "$name: generated (make docs)"
        else
            failed "$name" "a kernel example needs a '<!-- make docs: id=NAME -->' line right above its block"
        fi
        continue
    fi
    if [ "$linux" = 1 ] && [ "${EXPERIMENTS_DOC_QUICK:-0}" = 1 ]; then
        pass "$name: names its shape cell"
        echo "SKIP $name: its run, by make check"
        continue
    fi
    # build/runq is the runq under test, runq.db a scratch database; a
    # cell's ARGS go before the scenario file (the last word).
    run=${cmd//build\/runq/\"\$RUNQ\"}
    run=${run//--db runq.db/--db \"\$T\"/doc.db}
    if [ -n "$cell" ]; then
        run=$(sed -E "s# (scenarios/[^ ]+\\.scn)# $cell \\1#" <<<"$run")
    fi
    rm -f "$T/doc.db"
    (RUNQ="$RUNQ" T="$T" eval "$run") >"$T/got" 2>"$T/got.err"
    if [ "$sim" = 1 ]; then
        # Figures aside (shape, tests/lib.sh): they are make docs'.
        if diff <(shape <"$T/want") <(shape <"$T/got") >/dev/null; then pass "$name (figures: make docs)"; else
            failed "$name" "figures aside: $(diff <(shape <"$T/want") <(shape <"$T/got") | head -6)"; fi
        continue
    fi
    if [ "$shape" = 1 ]; then
        # The header lines: every line before the first that starts with
        # a cell's parameters, the "experiment N:" line aside.
        heads() { awk 'NR > 1 && /^params/ { print; exit } NR > 1 { print }' "$1" | tr -s ' ' | sed 's/ $//'; }
        if [ -s "$T/got" ] && ! grep -q "failed" "$T/got" && [ "$(heads "$T/got")" = "$(heads "$T/want")" ]; then
            pass "$name, cell $cell: the table's shape as printed"
        else
            failed "$name" "cell $cell: $(diff <(heads "$T/want") <(heads "$T/got") | head -4) $(tail -2 "$T/got.err")"
        fi
        continue
    fi
done
[ "$nex" -ge 4 ] && pass "doc_examples_found ($nex)" || failed doc_examples_found "only $nex examples in $DOC"
exit $fail
