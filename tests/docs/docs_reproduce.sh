#!/usr/bin/env bash
# make check: every generated block that a deterministic run makes (runq's
# kernel under icount, paper, the trace generator: not the host's Linux)
# made again from scratch and compared with the docs, block by block (a
# block marked paced=host, its tasks beside the tracer on CPU 0, says SKIP:
# its digits follow the host's pace; scripts/docs.pl): the
# keys say what a figure was made from (tests/docs/docs_current.sh), this
# says that making it again gives the same text. When the docs are not
# current it says "run make docs" once and runs nothing.
# Usage: tests/docs/docs_reproduce.sh [path/to/runq]   (DOCS_JOBS: runs at once)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

if ! perl scripts/docs.pl --check >"$T/out" 2>"$T/err"; then
    failed docs_reproduce "the docs are not current, run make docs: $(grep -m 2 -v '^make docs:' "$T/err" | tr '\n' '|')"
    exit 1
fi
files=$(grep -lE '^(<!-- make docs: |# make docs: )' README.md docs/*.md labs/*/*.md labs/*/answers.ref 2>/dev/null)
for f in $files; do mkdir -p "$T/copy/$(dirname "$f")" && cp "$f" "$T/copy/$f"; done
# The copies name their blocks as the originals do; their runs go to the
# shared cache again (--force), which is what a run from scratch means.
RUNQ_LAB_CACHE=off perl scripts/docs.pl --force --skip-linux -j "${DOCS_JOBS:-$(nproc)}" $(for f in $files; do echo "$T/copy/$f"; done) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] || failed docs_reproduce_runs "exit $rc: $(grep -m 4 -v '^make docs: \[' "$T/err" | tr '\n' '|')"
# block FILE ID: the block's text, marker line aside (its key is the same):
# to the fence that closes it, or to "# end make docs" in an answers file.
block() {
    awk -v id="$2" '
        $0 ~ "^<!-- make docs: id=" id "[ >]" { on = 1; md = 1; next }
        $0 ~ "^# make docs: id=" id "( |$)" { on = 1; next }
        on && md && /^```/ { n++; if (n == 2) exit }
        on && !md && /^# end make docs/ { exit }
        on { print }' "$1"
}
n=0
perl scripts/docs.pl --list >"$T/list" || failed docs_reproduce "scripts/docs.pl --list failed"
while IFS=$'\t' read -r where id kind _; do
    if [ "$kind" = host-paced ]; then
        echo "SKIP docs_reproduce_$id: host-paced (paced=host): its tasks share CPU 0 with runq's tracer, whose turns follow the host's pace"
        continue
    fi
    [ "$kind" = deterministic ] || continue
    f=${where%:*}
    n=$((n + 1))
    if [ "$(block "$f" "$id")" = "$(block "$T/copy/$f" "$id")" ]; then
        pass "docs_reproduce_$id"
    else
        failed "docs_reproduce_$id" "$f: made again, the block differs: $(diff <(block "$f" "$id") <(block "$T/copy/$f" "$id") | head -6 | tr '\n' '|')"
    fi
done <"$T/list"
[ "$n" -gt 0 ] || failed docs_reproduce "no deterministic block found"
exit $fail
