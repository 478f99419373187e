#!/bin/sh
# make seeds: every run behind docs/seeds.md made again (the page's own
# blocks and the ones on other pages its verdicts copy from), then the
# verdict table as the page now states it, one row a claim of a seed.
# The exit status is make docs' (1 when a run failed or a claim no longer
# holds: then the page's verdicts are not what the runs say).
# usage: scripts/seeds.sh [-j N]   (from the repository root)
set -u
jobs=${1:-}
[ "$jobs" = -j ] && jobs="-j ${2:-2}" || jobs="-j $(nproc)"
# The blocks the page's values name, wherever they stand.
ids=$(grep -o '<!-- va\{0,1\}l\{0,1\} [a-z0-9_]*=[a-z0-9.-]*' docs/seeds.md | sed 's/.*=//' | sort -u | tr '\n' ',')
start=$(date +%s)
# shellcheck disable=SC2086
perl scripts/docs.pl $jobs --force --only "${ids%,}"
rc=$?
echo "make seeds: the runs took $(( $(date +%s) - start )) s; the verdicts (docs/seeds.md):"
awk '/^## Seed/ { seed = $3; sub(/:$/, "", seed) }
     /^\| / && !/^\| *row *\|/ && !/^\|---/ && seed != "" {
        gsub(/<!-- [^>]*-->/, ""); n = split($0, c, /\|/)
        runq = c[4]; for (i = 5; i < n - 1; i++) runq = runq " ;" c[i]
        printf "  seed %s | %s | seed: %s | runq: %s | verdict: %s\n", seed, c[2], c[3], runq, c[n - 1]
     }' docs/seeds.md | sed 's/  */ /g'
exit $rc
