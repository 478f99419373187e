#!/usr/bin/env bash
# docs/seed004.md, run: every fenced block whose first line is
# "$ build/runq ..." is a command (run with bash, in order, in one scratch
# directory, so later commands read the database earlier ones wrote), and
# the rest of the block is what it printed, exactly. Kernel runs are
# deterministic (icount), and the experiments run one cell at a time
# (--jobs 1) so trace and run ids are too.
# Usage: tests/docs/seed004_doc_test.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
DOC=docs/seed004.md
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/build" && ln -s "$RUNQ" "$T/build/runq" && ln -s "$ROOT/scenarios" "$T/scenarios"
awk -v dir="$T" '
    /^```/ { if (inblock) { inblock = 0; next } inblock = 1; first = 1; ex = 0; next }
    inblock && first { first = 0; if ($0 ~ /^\$ build\/runq /) { ex = 1; n++; print substr($0, 3) > (dir "/ex." n ".cmd"); printf "" > (dir "/ex." n ".want") } next }
    inblock && ex { print > (dir "/ex." n ".want") }
' "$DOC"
n=0
for c in $(ls "$T"/ex.*.cmd | sort -t. -k2,2n); do
    n=$((n + 1))
    base=${c%.cmd}
    cmd=$(cat "$c")
    (cd "$T" && bash -c "$cmd") >"$base.got" 2>&1
    if diff -q "$base.want" "$base.got" >/dev/null; then
        echo "PASS seed004_doc_$n ($(head -c 60 "$c"))"
    else
        echo "FAIL seed004_doc_$n: $(head -c 100 "$c")"
        diff "$base.want" "$base.got" | head -8
    fi
done
[ "$n" -ge 7 ] || echo "FAIL seed004_doc: $n examples found, want 7"
