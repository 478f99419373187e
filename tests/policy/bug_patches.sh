#!/usr/bin/env bash
# Every bug patch (tests/bugs/eevdf/*.patch, tests/bugs/linux/*.patch) still applies to the policy
# sources, with no fuzz, as scripts/bug_tree.sh applies it. make prove-bugs
# proves what each patch's tests catch, but it is not in make test: a
# change to the lines around a bug made a patch stop applying, and only the
# next prove-bugs said so (no_preempt_short, after issue 14's D4). This
# check is a dry run, a second for them all. Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
fail=0
n=0
for p in tests/bugs/eevdf/*.patch tests/bugs/linux/*.patch; do
    name=$(basename "$p" .patch)
    n=$((n + 1))
    if out=$(patch --dry-run -p1 -F0 -s <"$p" 2>&1); then
        echo "PASS ${name}_applies"
    else
        echo "FAIL ${name}_applies: $(echo "$out" | head -2 | tr '\n' ' ')(rebase it: scripts/bug_tree.sh --merge $name DIR, fix, then --write)"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL bug_patches: no patch in tests/bugs/eevdf"; exit 1; }
exit $fail
