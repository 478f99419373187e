#!/usr/bin/env bash
# The generated figures (scripts/docs.pl, make docs; docs/testing.md,
# "Generated figures"), checked without running anything:
#   - docs_current: every generated block's key is what its commands and
#     inputs hash to now, and every value in the prose is what its block
#     says: one line, "run make docs", however many blocks moved;
#   - docs_claims: every claim a sentence makes (<!-- claim: ... -->)
#     holds on the figures the docs now hold;
#   - make docs itself on a scratch page: a block whose run fails keeps its
#     old text, is named with its error, and the exit status is 1, while the
#     block beside it is written; a half-written page is never left.
# Usage: tests/docs/docs_current.sh [path/to/runq]
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

perl scripts/docs.pl --check >"$T/out" 2>"$T/err"
rc=$?
stale=$(grep -v '^make docs:' "$T/err" | grep -c 'out of date\|its block says')
if [ "$stale" = 0 ] && ! grep -q 'no block id\|finds nothing\|unknown marker\|needs id\|is also at\|fenced block\|no closing\|command line\|does not exist' "$T/err"; then
    pass "docs_current ($(tail -n 1 "$T/err" | sed 's/^make docs: //'))"
else
    failed docs_current "run make docs: $stale blocks or values out of date: $(grep -m 3 -v '^make docs:' "$T/err" | tr '\n' '|')"
fi
nclaims=$(sed -n 's/.* \([0-9]*\) claims (\([0-9]*\) false).*/\1 \2/p' "$T/err")
read -r nc nf <<<"$nclaims"
if [ "${nc:-0}" -gt 0 ] && [ "${nf:-1}" = 0 ]; then
    pass "docs_claims ($nc claims hold)"
else
    failed docs_claims "${nf:-?} of ${nc:-0} claims false: $(grep -m 3 'claim' "$T/err" | tr '\n' '|')"
fi
[ "$rc" = 0 ] || [ "$stale" != 0 ] || [ "${nf:-1}" != 0 ] || failed docs_check_exit "exit $rc with nothing named: $(head -c 300 "$T/err")"

# ---- a run that fails keeps its block; the one beside it is written ----
mkdir -p "$T/page"
cat >"$T/page/p.md" <<'MD'
<!-- make docs: id=test-good -->
```
$ build/runq sim docs/sim/zijlstra-fifo.sim
stale
```
It prints <!-- v first=test-good /^(\w)/ -->?<!-- /v --> first.
<!-- make docs: id=test-bad -->
```
$ build/runq sim --no-such-flag
the old text
```
MD
cp "$T/page/p.md" "$T/page/before.md"
perl scripts/docs.pl "$T/page/p.md" >"$T/out" 2>"$T/err"
rc=$?
good=$(sed -n '/id=test-good/,/^```$/p' "$T/page/p.md" | sed -n 4p)
if [ "$rc" = 1 ] && grep -q 'test-bad: FAILED' "$T/err" && grep -q 'no-such-flag' "$T/err" &&
    grep -qx 'the old text' "$T/page/p.md" && grep -q 'id=test-good key=' "$T/page/p.md" &&
    ! grep -q 'id=test-bad key=' "$T/page/p.md" && [ "$good" != stale ] && grep -q -- '-->A<!-- /v -->' "$T/page/p.md" &&
    ! ls "$T/page" | grep -q tmp; then
    pass "docs_failed_run_keeps_block (exit 1, the failed run named, its block kept, the good block and its value written)"
else
    failed docs_failed_run_keeps_block "exit $rc: $(head -c 400 "$T/err" | tr '\n' '|') page: $(tr '\n' '|' <"$T/page/p.md")"
fi
# Then --check names the one block still out of date, and nothing else.
perl scripts/docs.pl --check "$T/page/p.md" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(grep -v '^make docs:' "$T/err" | grep -c 'out of date')" = 1 ] && grep -q 'test-bad is out of date: run make docs' "$T/err"; then
    pass docs_check_names_the_stale_block
else
    failed docs_check_names_the_stale_block "exit $rc: $(tr '\n' '|' <"$T/err")"
fi
# A marker the script cannot read is an error, not a block skipped.
printf '<!-- make docs: id=x colour=red -->\n```\n$ true\n```\n' >"$T/page/bad.md"
perl scripts/docs.pl --check "$T/page/bad.md" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "bad.md:1: unknown marker option 'colour=red'" "$T/err"; then
    pass docs_bad_marker_named
else
    failed docs_bad_marker_named "exit $rc: $(tr '\n' '|' <"$T/err")"
fi
exit $fail
