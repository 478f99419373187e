#!/usr/bin/env bash
# runq report fidelity (issue 31, item 5; docs/eevdf.md, "Fidelity"): a
# Linux trace's picks replayed through runq's own EEVDF pick.
#   - what it refuses, in one line: a runq-kernel trace (exit 2), a trace
#     recorded without BPF (RUNQ_NO_BPF=1: exit 2), a bad or missing
#     --trace, a flag it does not take;
#   - short-slice-host's 8-hog cell recorded on this host's Linux for 2 s:
#     the closing line "agree: K of M picks (P%)" with at least 200 picks
#     replayed, P >= 99;
#   - the comparison is real: in a copy of that database one queued,
#     eligible entity's deadline is moved just before next's at one pick,
#     so runq must pick it there: the class "runq picks an entity with an
#     earlier deadline" goes up by exactly 1, at that pick's time, and
#     agree down by 1;
#   - damaged rows (a weight of 0, a NULL vruntime, a row twice, a CPU out
#     of range) are counted as not replayable, each in its class.
# The Linux checks need root and the BPF recorder (the trace's stats
# linux_picks_internals): without them each says SKIP, never PASS.
# Usage: tests/analysis/fidelity_test.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
. "$(dirname "$0")/../lib.sh"
chmod 755 "$T"

# ---- without Linux: refusals ----
record_fixtures --seed 5 --ms 100
expect refuses_runq_kernel_trace 2 "trace 1 is a runq-kernel trace" report fidelity --db "$T/f.db" --trace 1
expect refuses_bad_trace_id 2 "--trace takes a trace id (a positive number), not 'one'" report fidelity --db "$T/f.db" --trace one
expect says_no_such_trace 1 "no trace 99" report fidelity --db "$T/f.db" --trace 99
expect refuses_csv 2 "unknown flag '--csv'; see runq report fidelity --help" report fidelity --db "$T/f.db" --csv
runq report --help
stdout_has help_names_fidelity "fidelity"

linux_checks="leave_lags_show_the_host_clamp agrees_on_8_hogs refuses_trace_without_internals altered_deadline_disagrees_once damaged_rows_counted warns_in_root_task_group"
skip_linux() {
    for c in $linux_checks; do echo "SKIP $c: $1"; done
    exit $fail
}
[ "$(id -u)" = 0 ] || skip_linux "not root (the Linux engine and its BPF recorder need root)"

# ---- short-slice-host's 8-hog cell at the default slice, 2 s ----
sed -e 's/^run .*/run 2s/' -e '/^vary /d' scenarios/short-slice-host.scn >"$T/hogs.scn"
grep -q '^task hog\*8 ' "$T/hogs.scn" || { failed fixture "scenarios/short-slice-host.scn has no 'task hog*8' line"; exit 1; }
# In a session of its own, as from a shell: a run started from init's
# session (a CI runner) sits in the root task group, where every other
# program shares the hogs' queue and few picks can be replayed (CI saw
# 86 of 1,138; linux_root_task_group).
# A run starved by the other lanes (its recorder shares CPU 0 with them)
# keeps few picks with internals, each lost sample counted: a clean clone
# beside three lanes kept 110 of some 2,000 once. Such a run is made
# again, up to three times; the checks below judge the last.
for attempt in 1 2 3; do
    rm -f "$T/l.db" "$T/l.db-wal" "$T/l.db-shm"
    setsid -w "$RUNQ" run --engine linux --db "$T/l.db" "$T/hogs.scn" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    [ "$rc" = 0 ] || break
    internals=$(sq "$T/l.db" "SELECT COALESCE(MAX(value), 0) FROM stats WHERE name = 'linux_picks_internals'")
    [ "${internals:-0}" -ge 1000 ] && break
    echo "note: attempt $attempt kept ${internals:-0} picks with internals ($(sq "$T/l.db" "SELECT group_concat(name || ' ' || value, ', ') FROM stats WHERE name LIKE 'bpf_lost%' AND value > 0")): again"
done
[ "$rc" = 0 ] || skip_linux "runq run --engine linux exited $rc: $(head -c 200 "$T/err")"
internals=$(sq "$T/l.db" "SELECT COALESCE(MAX(value), 0) FROM stats WHERE name = 'linux_picks_internals'")
[ "${internals:-0}" -gt 0 ] || skip_linux "no BPF internals in the trace (linux_picks_internals 0): $(grep -i bpf "$T/err" | head -c 200)"

runq report fidelity --db "$T/l.db"
cp "$T/out" "$T/base.out"
# The lags the probe kept when it slept, recomputed from the queue it left
# with both clamps: on a kernel whose BTF has sched_entity.max_slice
# (6e3c0a4e1ad1) only that clamp may explain a clamped lag, never
# vanilla 6.18's alone, and (but for at most 1 %) every lag is explained
# by one or both.
lr() { sed -n "s/^  $1: \([0-9]*\)\$/\1/p" "$T/base.out"; }
both=$(lr "the clamp did not bind: both rules give Linux's lag")
maxs=$(lr "only LAG_CLAMP_MAX_SLICE's clamp (6e3c0a4e1ad1) gives Linux's lag")
van=$(lr "only vanilla 6.18's clamp (max(2\*slice, tick)) gives Linux's lag")
none=$(lr "neither clamp gives Linux's lag")
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -A40 "STRUCT 'sched_entity'" | grep -q max_slice; then
    want_van=0 want_clamped=maxs
else
    want_van=any want_clamped=van
fi
clamped=${maxs:-0}
[ "$want_clamped" = van ] && clamped=${van:-0}
# "neither" is a class not yet explained (docs/eevdf.md, "Fidelity"): at
# most 1 % of the leaves.
if [ -n "$both" ] && [ -n "$none" ] && [ $((none * 100)) -le $((both + clamped + none)) ] &&
    [ $((both + clamped)) -ge 100 ] &&
    { [ "$want_van" = any ] || [ "${van:-x}" = 0 ]; }; then
    pass "leave_lags_show_the_host_clamp ($both leaves unclamped, $clamped clamped as the host's rule clamps, vanilla alone ${van:-?}, neither $none)"
else
    failed leave_lags_show_the_host_clamp "both/max-slice only/vanilla only/neither: ${both:-?}/${maxs:-?}/${van:-?}/${none:-?}"
fi
read -r K M P < <(sed -n 's/^agree: \([0-9]*\) of \([0-9]*\) picks (\([0-9.]*\)%)$/\1 \2 \3/p' "$T/base.out")
if [ "$rc" = 0 ] && [ "$(tail -n 1 "$T/base.out" | cut -c1-6)" = "agree:" ] && [ "${M:-0}" -ge 200 ] &&
    [ $((K * 100)) -ge $((M * 99)) ]; then
    pass "agrees_on_8_hogs ($K of $M picks, $P%)"
else
    failed agrees_on_8_hogs "exit $rc, want a last line 'agree: K of M picks (P%)' with M >= 200 and P >= 99: $(tail -n 12 "$T/base.out" | tr '\n' '|')"
fi

# ---- run from the root task group: said once, with the way out ----
# (RUNQ_PROC_AUTOGROUP stands in for /proc/self/autogroup: an empty one
# is the root group's.)
RUNQ_PROC_AUTOGROUP=/dev/null "$RUNQ" run --engine linux --dry-run --db "$T/dry.db" "$T/hogs.scn" >/dev/null 2>"$T/rg.err" </dev/null
"$RUNQ" run --engine linux --dry-run --db "$T/dry.db" "$T/hogs.scn" >/dev/null 2>"$T/own.err" </dev/null
if [ "$(grep -c 'root task group.*setsid' "$T/rg.err")" = 1 ] && ! grep -q 'root task group' "$T/own.err"; then
    pass warns_in_root_task_group
else
    failed warns_in_root_task_group "root: $(head -c 300 "$T/rg.err" | tr '\n' '|'); own session: $(head -c 200 "$T/own.err")"
fi

# ---- the same scenario recorded without BPF: nothing to replay ----
sed -e 's/^run .*/run 300ms/' "$T/hogs.scn" >"$T/bare.scn"
RUNQ_NO_BPF=1 "$RUNQ" run --engine linux --db "$T/bare.db" "$T/bare.scn" >"$T/bare.out" 2>"$T/bare.err" </dev/null
bare=$(sq "$T/bare.db" "SELECT COUNT(*) FROM eevdf_pick WHERE v IS NOT NULL")
if [ "$bare" != 0 ]; then
    failed refuses_trace_without_internals "RUNQ_NO_BPF=1 still recorded $bare picks with V"
else
    expect refuses_trace_without_internals 2 "holds no Linux internals" report fidelity --db "$T/bare.db"
fi

# ---- one deadline moved: runq must disagree there, and only there ----
# A pick whose queue is whole and the scenario's alone, next eligible, no
# runnable prev protected beside it; u an eligible, runnable entity queued
# there (not prev). Moving u's deadline to just before next's makes u the
# earliest eligible deadline: runq's pick.
sq "$T/l.db" ".backup '$T/alt.db'"
at=$(sq "$T/alt.db" "
    SELECT q.rowid, q.ts, c.deadline - 1 FROM queue_snapshot q
    JOIN eevdf_pick p ON p.trace_id = q.trace_id AND p.ts = q.ts AND p.cpu = q.cpu AND p.v IS NOT NULL
    JOIN queue_snapshot c ON c.trace_id = q.trace_id AND c.ts = q.ts AND c.cpu = q.cpu AND c.is_current = 1
                         AND c.eligible = 1 AND c.utid = p.next_utid
    WHERE q.is_current = 0 AND q.eligible = 1 AND q.delayed = 0 AND q.utid <> p.prev_utid
      AND (SELECT COUNT(*) FROM queue_snapshot o WHERE o.trace_id = q.trace_id AND o.ts = q.ts AND o.cpu = q.cpu) = p.nr_runnable
      AND NOT EXISTS (SELECT 1 FROM queue_snapshot o JOIN thread t ON t.utid = o.utid
                      WHERE o.trace_id = q.trace_id AND o.ts = q.ts AND o.cpu = q.cpu
                        AND (t.name IN ('other', 'idle') OR (o.is_current = 0 AND o.protected = 1)))
    ORDER BY q.ts, q.rowid LIMIT 1")
IFS='|' read -r rid ts dl <<<"$at"
class="runq picks an entity with an earlier deadline"
# the class's count in a report (0 when it has no line)
class_n() { sed -n "s/^  $class: \([0-9]*\)$/\1/p" "$1" | grep . || echo 0; }
if [ -z "$rid" ]; then
    failed altered_deadline_disagrees_once "no pick of the trace fits (a queue of two eligible entities or more)"
else
    sq "$T/alt.db" "UPDATE queue_snapshot SET deadline = $dl WHERE rowid = $rid"
    runq report fidelity --db "$T/alt.db"
    read -r K2 M2 _ < <(sed -n 's/^agree: \([0-9]*\) of \([0-9]*\) picks.*/\1 \2/p' "$T/out")
    before=$(class_n "$T/base.out") after=$(class_n "$T/out")
    if [ "$rc" = 0 ] && [ "$after" = $((before + 1)) ] && [ "$K2" = $((K - 1)) ] && [ "$M2" = "$M" ] &&
        grep -A1 "^  $class: " "$T/out" | grep -qF "@$ts"; then
        pass "altered_deadline_disagrees_once (at @$ts: '$class' $before -> $after, agree $K -> $K2 of $M)"
    else
        failed altered_deadline_disagrees_once "exit $rc; at @$ts want '$class' $before -> $((before + 1)) and agree $K -> $((K - 1)) of $M, got $after and $K2 of $M2: $(tr '\n' '|' <"$T/out" | head -c 600)"
    fi
fi

# ---- damaged rows: counted as unusable, never trusted ----
# At three replayable picks, a weight of 0, a NULL vruntime, a row stored
# twice; a fourth pick moved to a CPU out of range (so its snapshot is
# missing). Each is counted in its class; nothing is replayed from them.
sq "$T/l.db" ".backup '$T/bad.db'"
mapfile -t picks < <(sq "$T/bad.db" "
    SELECT p.id, p.ts, p.cpu FROM eevdf_pick p
    WHERE p.v IS NOT NULL AND p.nr_runnable > 1
      AND (SELECT COUNT(*) FROM queue_snapshot o WHERE o.trace_id = p.trace_id AND o.ts = p.ts AND o.cpu = p.cpu) = p.nr_runnable
      AND NOT EXISTS (SELECT 1 FROM queue_snapshot o JOIN thread t ON t.utid = o.utid
                      WHERE o.trace_id = p.trace_id AND o.ts = p.ts AND o.cpu = p.cpu AND t.name IN ('other', 'idle'))
    ORDER BY p.ts LIMIT 4")
if [ "${#picks[@]}" != 4 ]; then
    failed damaged_rows_counted "want 4 replayable picks, found ${#picks[@]}"
else
    row() { IFS='|' read -r id ts cpu <<<"${picks[$1]}"; echo "trace_id = 1 AND ts = $ts AND cpu = $cpu"; }
    sq "$T/bad.db" "UPDATE queue_snapshot SET weight = 0 WHERE rowid = (SELECT MIN(rowid) FROM queue_snapshot WHERE $(row 0));
                    UPDATE queue_snapshot SET vruntime = NULL WHERE rowid = (SELECT MAX(rowid) FROM queue_snapshot WHERE $(row 1));
                    INSERT INTO queue_snapshot SELECT * FROM queue_snapshot WHERE rowid = (SELECT MIN(rowid) FROM queue_snapshot WHERE $(row 2));
                    UPDATE eevdf_pick SET cpu = 99999 WHERE id = ${picks[3]%%|*}"
    runq report fidelity --db "$T/bad.db"
    unusable="snapshot unusable"
    n_of() { sed -n "s/^  $2.*: \([0-9]*\)$/\1/p" "$1" | grep . || echo 0; }
    b1=$(n_of "$T/base.out" "$unusable") a1=$(n_of "$T/out" "$unusable")
    b2=$(n_of "$T/base.out" "snapshot missing") a2=$(n_of "$T/out" "snapshot missing")
    read -r K3 M3 _ < <(sed -n 's/^agree: \([0-9]*\) of \([0-9]*\) picks.*/\1 \2/p' "$T/out")
    if [ "$rc" = 0 ] && [ "$a1" = $((b1 + 3)) ] && [ "$a2" = $((b2 + 1)) ] && [ "$M3" = $((M - 4)) ]; then
        pass "damaged_rows_counted ('$unusable' $b1 -> $a1, 'snapshot missing' $b2 -> $a2, $M3 of $M replayed)"
    else
        failed damaged_rows_counted "exit $rc; want '$unusable' $b1 + 3, 'snapshot missing' $b2 + 1, $((M - 4)) replayed; got $a1, $a2, $M3: $(head -c 300 "$T/err")"
    fi
fi

# A crowded pipe cell on both CPUs (15 pairs, 1 s): threads block while
# not eligible and stay queued (DELAY_DEQUEUE), and a pick dequeues the
# delayed ones it meets after prev left: the queue prev left holds them,
# though the snapshot after the pick does not (docs/eevdf.md,
# "Fidelity"). Counted back in, neither clamp's class stays under 1 %
# (6.8 % without them). At least 200 leaves: a quiet host gives 4,000 to
# 6,000, one with three test lanes of QEMU beside it 313.
# A run starved by the other lanes is made again, as the 8-hog run above
# (a clean clone once found no leave to recompute: its output was not
# kept), up to three times; the check judges the last.
sed -e 's/^run .*/run 1s/' -e '/^vary/d' -e 's/^task main\*[0-9]*/task main*15/' scenarios/pipe-handoff-host.scn >"$T/pipe.scn"
lp() { sed -n "s/^  $1: \([0-9]*\)\$/\1/p" "$T/pipe.out"; }
for attempt in 1 2 3; do
    rm -f "$T/pipe.db" "$T/pipe.db-wal" "$T/pipe.db-shm"
    setsid -w "$RUNQ" run --engine linux --db "$T/pipe.db" "$T/pipe.scn" >/dev/null 2>"$T/pipe.err" </dev/null
    prc=$?
    "$RUNQ" report fidelity --db "$T/pipe.db" >"$T/pipe.out" 2>&1
    pb=$(lp "the clamp did not bind: both rules give Linux's lag")
    pn=$(lp "neither clamp gives Linux's lag")
    [ "$prc" = 0 ] && [ "${pb:-0}" -ge 200 ] && break
    echo "note: pipe attempt $attempt: exit $prc, ${pb:-no} leaves recomputed ($(sq "$T/pipe.db" "SELECT group_concat(name || ' ' || value, ', ') FROM stats WHERE (name LIKE 'bpf_lost%' OR name = 'linux_picks_internals') AND value > 0" 2>&1 | head -c 200)): again"
done
if [ -n "$pb" ] && [ -n "$pn" ] && [ "$pb" -ge 200 ] && [ $((pn * 100)) -le $((pb + pn)) ]; then
    pass "pipe_leaves_count_the_delayed ($pb leaves recomputed as Linux kept them, neither $pn)"
else
    failed pipe_leaves_count_the_delayed "exit $prc, unclamped/neither: ${pb:-?}/${pn:-?}: $(grep -m3 'leaves\|neither\|agree' "$T/pipe.out" | tr '\n' '|') $(head -c 300 "$T/pipe.err")"
fi
exit $fail
