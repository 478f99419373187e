#!/usr/bin/env bash
# The RT class and moving tasks, from a real kernel recording (issue 18):
# one deterministic boot where a spinner is moved onto a busy CPU (sched
# cpu), an RT task takes a CPU from a fair spinner that may run anywhere
# (replace_on_release 1: it goes to an idle CPU), and, with the knob 0, an
# RT task takes a CPU from one that then cannot leave. SQL checks what the
# trace says against itself:
#  - every LEAVE migrate is followed by that task's JOIN migrate on
#    another CPU, bringing exactly the lag it left with (lag_before), and
#    on a queue with others keeping it after placement (lag_after within
#    one virtual ns a weight unit: PLACE_LAG's scaling undoes V's shift);
#  - a release (a fair task losing its CPU to RT) is a bounce row, once;
#    with the knob 1 the released task moves, with 0 none does;
#  - the tasks made RT are class rt in `thread`, with their priority, and
#    their picks carry no EEVDF numbers;
#  - slices never overlap on a CPU, moves included.
# Proof: make BUG=migrate_forgets_lag (the lag is dropped on the way) fails
# migrate_brings_its_lag; the rt-hog part below says its own.
set -u
RUNQ=${1:-build/runq}
KERNEL=${RUNQ_KERNEL:-}
. tests/lib.sh
db=$T/rt.db
q() { "$RUNQ" sql --db "$db" --csv "$1" | tail -n +2; }

# ids follow creation order (the kernel's own tasks first): a=7 b=8 c=9
# d=10, the first churn task 11, e=12, the second churn task 13. The RT
# tasks are churn tasks (sleep 5 ms, run 200 us) made RT: each wakeup
# takes the CPU from the fair spinner there, whatever ran when `sched rt`
# came, so the releases do not hang on the kernel's timing.
args=(boot --deterministic --cpus 4 --record "$db")
[ -n "$KERNEL" ] && args+=(--kernel "$KERNEL")
out=$("$RUNQ" "${args[@]}" \
    --cmd "spin a 400 1" --cmd "spin b 400 1" --cmd "spin c 400 2" --cmd "sleep 50" \
    --cmd "sched cpu 7 2" \
    --cmd "spin d 300 3" --cmd "sched cpu 10 all" --cmd "churn 1 5000 150 3 200" --cmd "sched rt 11 50" --cmd "sleep 100" \
    --cmd "sched knob replace_on_release 0" --cmd "spin e 200 1" --cmd "sched cpu 12 all" \
    --cmd "churn 1 5000 100 1 200" --cmd "sched rt 13 40" --cmd "sleep 100" 2>&1) ||
    { failed record "runq boot failed"; echo "$out" | tail -5; exit 0; }
for want in "cpu id=7 allowed=2" "rt id=11 prio=50 fifo" "knob replace_on_release=0" "rt id=13 prio=40 fifo"; do
    grep -q "$want" <<<"$out" && pass "shell_says: $want" || failed "shell_says" "no '$want' in the shell's output"
done

moves=$(q "SELECT count(*) FROM eevdf_leave WHERE reason = 'migrate'")
bad=$(q "SELECT count(*) FROM eevdf_leave l WHERE l.reason = 'migrate' AND NOT EXISTS (
           SELECT 1 FROM eevdf_place p WHERE p.utid = l.utid AND p.reason = 'migrate' AND p.cpu != l.cpu
             AND p.lag_before = l.lag
             AND p.ts = (SELECT min(p2.ts) FROM eevdf_place p2 WHERE p2.utid = l.utid AND p2.ts >= l.ts))")
[ "$moves" -ge 2 ] && [ "$bad" = 0 ] && pass "migrate_brings_its_lag ($moves moves: each JOIN migrate on another CPU with lag_before = the LEAVE's lag)" ||
    failed migrate_brings_its_lag "$bad of $moves moves did not: $(q "SELECT l.utid, l.lag, (SELECT p.lag_before FROM eevdf_place p WHERE p.utid = l.utid AND p.ts >= l.ts ORDER BY p.ts LIMIT 1) FROM eevdf_leave l WHERE l.reason = 'migrate'" | tr '\n' ' ')"

busy=$(q "SELECT count(*) FROM eevdf_place WHERE reason = 'migrate' AND nr_runnable > 1")
off=$(q "SELECT count(*) FROM eevdf_place WHERE reason = 'migrate' AND nr_runnable > 1 AND abs(lag_after - lag_before) > 1")
[ "$busy" -ge 1 ] && [ "$off" = 0 ] && pass "migrate_onto_a_busy_queue_keeps_the_lag ($busy joins)" ||
    failed migrate_onto_a_busy_queue_keeps_the_lag "$off of $busy joins onto a busy queue changed the lag"

rel=$(q "SELECT count(*) FROM eevdf_leave WHERE reason = 'release' AND by_class = 'rt'")
bounces=$(q "SELECT count(*) FROM bounce b JOIN eevdf_leave l ON l.utid = b.utid AND l.ts = b.ts_bounce AND l.reason = 'release'")
allb=$(q "SELECT count(*) FROM bounce")
[ "$rel" -ge 10 ] && [ "$bounces" = "$rel" ] && [ "$allb" = "$rel" ] && pass "each_release_is_one_bounce ($rel)" ||
    failed each_release_is_one_bounce "$rel releases, $bounces bounce rows match them, $allb bounce rows"

# ... and in thread_state: every R+ interval that begins at a release is
# one bounce with the same start and end (where the task ran next, on
# whatever CPU: with the knob on, the one it moved to).
r=$(q "WITH rp AS (SELECT s.utid, s.ts, s.ts + s.dur AS te FROM thread_state s JOIN eevdf_leave l
                     ON l.trace_id = s.trace_id AND l.utid = s.utid AND l.ts = s.ts AND l.reason = 'release'
                   WHERE s.state = 'R+')
       SELECT COUNT(*) || ' ' || SUM((SELECT COUNT(*) FROM bounce b WHERE b.utid = rp.utid AND b.ts_bounce = rp.ts
                                 AND (b.ts_run = rp.te OR b.ts_run IS NULL)) <> 1) AS r FROM rp")
read -r nrp badrp <<<"$r"
[ "$nrp" -ge 10 ] && [ "$nrp" = "$rel" ] && [ "$badrp" = 0 ] && pass "every_r_plus_after_a_release_is_one_bounce ($nrp)" ||
    failed every_r_plus_after_a_release_is_one_bounce "$nrp R+ intervals begin at a release ($rel releases), $badrp without exactly one bounce of the same start and end"

knob_at=$(q "SELECT ts FROM sched_set WHERE what = 'knob' AND name = 'replace_on_release' AND new_value = 0")
moved_on=$(q "SELECT count(*) FROM eevdf_leave r WHERE r.reason = 'release' AND r.ts < $knob_at AND EXISTS (
                SELECT 1 FROM eevdf_leave m WHERE m.utid = r.utid AND m.reason = 'migrate' AND m.ts >= r.ts AND m.ts < $knob_at)")
rel_off=$(q "SELECT count(*) FROM eevdf_leave WHERE reason = 'release' AND ts > $knob_at")
moved_off=$(q "SELECT count(*) FROM eevdf_leave WHERE reason = 'migrate' AND ts > $knob_at")
[ "$moved_on" -ge 1 ] && [ "$rel_off" -ge 5 ] && [ "$moved_off" = 0 ] && pass "replace_on_release_moves_the_released_task_only_when_on ($rel_off releases with it off)" ||
    failed replace_on_release_moves_the_released_task_only_when_on "knob 1: $moved_on released moved; knob 0: $moved_off moves after $rel_off releases"

cls=$(q "SELECT group_concat(tid || ':' || class || ':' || rt_prio, ' ') FROM (SELECT tid, class, rt_prio FROM thread WHERE class = 'rt' ORDER BY tid)")
[ "$cls" = "11:rt:50 13:rt:40" ] && pass "rt_tasks_are_class_rt_with_their_priority" || failed rt_tasks_are_class_rt_with_their_priority "got '$cls'"

# picks of a task after it became RT (it was fair before its SET class)
rtpicks="FROM eevdf_pick p JOIN sched_set c ON c.utid = p.next_utid AND c.what = 'class' AND c.new_value > 0 AND p.ts > c.ts"
n=$(q "SELECT count(*) $rtpicks WHERE p.lag IS NOT NULL")
all=$(q "SELECT count(*) $rtpicks")
[ "$all" -gt 0 ] && [ "$n" = 0 ] && pass "rt_picks_carry_no_lag ($all picks)" || failed rt_picks_carry_no_lag "$n of $all RT picks have a lag"

n=$(q "SELECT count(*) FROM sched_slice a JOIN sched_slice b ON a.trace_id = b.trace_id AND a.cpu = b.cpu
       AND a.id < b.id AND a.ts < b.ts + b.dur AND b.ts < a.ts + a.dur")
[ "$n" = 0 ] && pass "no_overlapping_slices_with_moves" || failed no_overlapping_slices_with_moves "$n overlaps"

# ---- scenarios/rt-hog.scn: an RT task that never sleeps takes CPU 1 ----
# With replace_on_release 0 the two fair tasks queued there cannot leave,
# and the RT budget (950 ms a second) is all that lets them run: each gets
# some, and nothing moves. With 1, the first release re-places the one
# that may run elsewhere at once, even when the one first in the queue may
# not move (proven: stopping at the first task with no idle CPU it may use
# moved it only at a release 1.9 s later).
hog=$T/hog.db
"$RUNQ" experiment --quiet --db "$hog" scenarios/rt-hog.scn >"$T/hog.out" 2>&1 || { failed rt_hog_runs "$(tail -2 "$T/hog.out")"; exit 0; }
hq() { "$RUNQ" sql --db "$hog" --csv "$1" | tail -n +2; }
knob_trace() { hq "SELECT trace_id FROM sched_set WHERE what = 'knob' AND name = 'replace_on_release' GROUP BY trace_id HAVING max(ts) AND new_value = $1"; }
t0=$(knob_trace 0) t1=$(knob_trace 1)
if [ -z "$t0" ] || [ -z "$t1" ]; then
    failed rt_hog_cells "no trace with replace_on_release 0 and 1 ('$t0', '$t1')"
else
    moves0=$(hq "SELECT count(*) FROM eevdf_leave WHERE trace_id = $t0 AND reason = 'migrate'")
    run0=$(hq "SELECT group_concat(name || '=' || ms, ' ') FROM (SELECT t.name, round(sum(s.dur) / 1e6) AS ms FROM sched_slice s JOIN thread t USING (utid)
                WHERE s.trace_id = $t0 AND t.name IN ('stuck', 'mover') AND s.ts > (SELECT min(ts) FROM eevdf_leave WHERE trace_id = $t0 AND reason = 'release')
                GROUP BY t.name ORDER BY t.name)")
    ok=$(hq "SELECT count(*) = 2 AND min(ms) > 20 FROM (SELECT round(sum(s.dur) / 1e6) AS ms FROM sched_slice s JOIN thread t USING (utid)
               WHERE s.trace_id = $t0 AND t.name IN ('stuck', 'mover') AND s.ts > (SELECT min(ts) FROM eevdf_leave WHERE trace_id = $t0 AND reason = 'release')
               GROUP BY t.name)")
    [ "$moves0" = 0 ] && [ "$ok" = 1 ] && pass "rt_hog_knob_0_nothing_leaves_and_the_budget_lets_both_run ($run0 ms after the hog came)" ||
        failed rt_hog_knob_0_nothing_leaves_and_the_budget_lets_both_run "$moves0 moves; run after the hog came: $run0"
    gap=$(hq "SELECT (SELECT min(m.ts) FROM eevdf_leave m JOIN thread t USING (utid) WHERE m.trace_id = $t1 AND m.reason = 'migrate' AND t.name = 'mover') - (SELECT min(ts) FROM eevdf_leave WHERE trace_id = $t1 AND reason = 'release') AS gap")
    [ -n "$gap" ] && [ "$gap" -ge 0 ] && [ "$gap" -lt 1000000 ] && pass "rt_hog_knob_1_the_first_release_moves_the_mover (${gap} ns after it)" ||
        failed rt_hog_knob_1_the_first_release_moves_the_mover "the mover's first move came ${gap:-never} ns after the first release"
fi
