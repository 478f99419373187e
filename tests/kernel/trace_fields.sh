#!/usr/bin/env bash
# Every field of the records the kernel builds in place is written: two
# variant kernels fill the reserved bytes with 0x00 and with 0xff before
# the emit point writes the record (RUNQ_TRACE_POISON), record the same
# deterministic workload under each policy, and must store identical rows.
# (The fill takes the same instructions either way, so under icount both
# runs schedule alike.) A field an emit point forgot keeps the fill: the
# rows differ. The variants also check, record by record, every EEVDF
# number an emit point reads straight from the policy's state (V, a lag,
# an eligibility, the eligible count) against the policy's views
# (kernel/trace/emit.c, check_direct): a drift stops the kernel (BUG) and
# its line is shown. Prints PASS name / FAIL name: why.
set -u
cd "$(dirname "$0")/../.."
RUNQ=${1:-build/runq}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for fill in 0x00 0xff; do
    make -s "build/poison-$fill/kernel.elf" >/dev/null ||
        { echo "FAIL trace_fields: cannot build the $fill variant"; exit 1; }
done
dump() { # db: the in-place records' tables, as stored
    sqlite3 "$1" "SELECT * FROM eevdf_pick; SELECT * FROM eevdf_place; SELECT * FROM eevdf_leave;
                  SELECT * FROM sched_tick; SELECT * FROM wakeup;"
}
for policy in eevdf rr; do
    for fill in 0x00 0xff; do
        "$RUNQ" boot --deterministic --policy $policy --cpus 2 --kernel "build/poison-$fill/kernel.elf" \
            --record "$T/$policy-$fill.db" --cmd "sched probe 2 20" --cmd "churn 6 2000 60 1" >"$T/out" 2>&1 ||
            { echo "FAIL ${policy}_fields_all_written: runq boot failed ($fill)"; grep -a -m2 "BUG\|panic" "$T/out"
              fail=1; continue 2; }
        dump "$T/$policy-$fill.db" >"$T/$policy-$fill.txt"
    done
    rows=$(wc -l <"$T/$policy-0x00.txt")
    if [ "$rows" -gt 100 ] && cmp -s "$T/$policy-0x00.txt" "$T/$policy-0xff.txt"; then
        echo "PASS ${policy}_fields_all_written ($rows rows alike)"
    else
        echo "FAIL ${policy}_fields_all_written: $rows rows; first difference:"
        diff "$T/$policy-0x00.txt" "$T/$policy-0xff.txt" | head -4
        fail=1
    fi
done
exit $fail
