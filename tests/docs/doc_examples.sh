#!/usr/bin/env bash
# Runs the kernel examples in the docs: every fenced line "$ build/runq boot
# --deterministic ..." in README.md and docs/*.md, whose probe/share lines
# below it must be exactly what the command prints now. (runq sim's
# examples are run by tests/engine/sim_test.sh, the SQL ones by trace_sql_test.sh.)
set -u
RUNQ=${1:-build/runq}
cd "$(dirname "$0")/../.."
for doc in README.md docs/*.md; do
    awk '/^```/ { inblock = !inblock; if (!inblock && cmd != "") { print cmd "\t" want; cmd = ""; want = "" } next }
         inblock && /^\$ build\/runq boot --deterministic/ { cmd = substr($0, 3); want = ""; next }
         inblock && cmd != "" && /^(probe|share) / { want = want (want == "" ? "" : "\\n") $0 }' "$doc" |
    while IFS=$'\t' read -r cmd want; do
        [ -n "$want" ] || continue
        name="$(basename "$doc" .md):$(grep -o 'cmd "[^"]*"' <<<"$cmd" | head -1 | tr -cd 'a-z0-9 ' | tr ' ' '_')"
        got=$(eval "\"$RUNQ\" ${cmd#build/runq }" 2>/dev/null | grep -E '^(probe|share) ')
        if [ "$got" = "$(printf '%b' "$want")" ]; then echo "PASS doc_example_$name"; else
            echo "FAIL doc_example_$name: $cmd"; echo "  doc:"; printf '%b\n' "$want"; echo "  now:"; echo "$got"; fi
    done
done
