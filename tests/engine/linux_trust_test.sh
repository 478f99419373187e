#!/usr/bin/env bash
# Measurement you can trust on Linux (issue 31, item 6; docs/experiments.md
# "Measurement you can trust" and "Bistable cells"):
#   - the engine's own threads keep off the scenario's CPUs: while a hog
#     runs on the last CPU, every other thread of the run's process may
#     not run there;
#   - a busy loop on the scenario's CPU, started before the run and
#     killed after: its foreign_cpu_ns (stats, idx = CPU) is more than
#     30 % of the window, the run is stored disturbed with the same sum,
#     --rerun-disturbed 1 ran it again (both kept), and the table shows
#     the column foreign and says the runs are disturbed;
#   - a run without a deliberate load (the machine may be busy, so no
#     bound on it): foreign_cpu_ns and unknown_cpu_ns stored for every CPU
#     of the scenario, their sum the run's foreign_ns, disturbed as the 2 %
#     rule says, and docs/sql.md's query gives the rows' numbers;
#   - --no-record: foreign time not measured, NULL, and the table says so;
#   - the table from made-up values (a database built by SQL): a
#     disturbed run left out of its cell when the cell has a clean one;
#     the bistable rule, on sets that are and are not bistable, in the
#     text table, --csv and --json.
# Usage: tests/engine/linux_trust_test.sh [path/to/runq]   (default build/runq)
RUNQ=$(realpath "${1:-build/runq}") || exit 2
cd "$(dirname "$0")/../.." || exit 2
loop=
. "$(dirname "$0")/../lib.sh"
chmod 755 "$T"
at_exit '[ -n "$loop" ] && kill "$loop" 2>/dev/null'

# ---- the table from made-up values: needs no root ----

# made NAME V1 V2 ...: experiment 1 of $T/NAME.db, one cell of a hog run
# on paper len(V) times, with the hog's share made V1, V2, ... (in %).
made() {
    local name=$1 db=$T/$1.db
    shift
    printf 'cpus 1\nrun 10ms\ntask hog\nmeasure hog share\n' >"$T/made.scn"
    "$RUNQ" experiment --quiet --engine sim --repeat $# --db "$db" "$T/made.scn" >/dev/null 2>&1 ||
        { failed "$name" "cannot make the database"; return 1; }
    local i=1 v
    for v in "$@"; do
        sq "$db" "UPDATE scenario_metric SET value = $v / 100.0 WHERE scenario_id = $i AND metric = 'share'"
        i=$((i + 1))
    done
}
# bistable NAME WANT V...: the text table's hog.share cell is WANT.
bistable() {
    local name=$1 want=$2
    shift 2
    made "$name" "$@" || return
    local got
    got=$("$RUNQ" report experiment --db "$T/$name.db" | awk 'NR == 3' | sed -E 's/^- +//; s/ +[0-9]+$//')
    if [ "$got" = "$want" ]; then
        pass "bistable_$name ($* -> $got)"
    else
        failed "bistable_$name" "values $*: got '$got', want '$want'"
    fi
}
# Two groups far apart, each of two runs: the groups, not one mean.
bistable two_groups "bistable: 8.50% (2) / 30.50% (2)" 9 31 8 30
# The gap (8) more than three times the wider range (2), and more than a
# fifth of the largest (22 / 5).
bistable just_past_the_gap "bistable: 11.00% (2) / 21.00% (2)" 10 12 20 22
# The gap (8) not past three times the wider range (4): one mean.
bistable gap_not_wide_enough "18.00% [10.00%..26.00%]" 10 14 22 26
# One run far from three others is an outlier, not a group.
bistable one_outlier "14.50% [8.00%..31.00%]" 8 9 10 31
# Three runs are never bistable (two groups of one are any two values).
bistable three_runs "16.00% [8.00%..31.00%]" 8 9 31
# The gap less than a fifth of the largest: 100.0/100.1 vs 100.5/100.6.
bistable gap_too_small "100.30% [100.00%..100.60%]" 100 100.1 100.5 100.6
# --csv names the column, --json gives its two groups.
if made machine 9 31 8 30; then
    csv=$("$RUNQ" report experiment --db "$T/machine.db" --csv)
    col=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "bistable") c = i } NR == 2 { print $c }' <<<"$csv")
    json=$("$RUNQ" report experiment --db "$T/machine.db" --json)
    if [ "$col" = "hog.share" ] && grep -qF '"bistable":[{"mean":0.085,"n":2},{"mean":0.305,"n":2}]' <<<"$json"; then
        pass "bistable_csv_json"
    else
        failed "bistable_csv_json" "csv bistable '$col'; json: $(head -c 300 <<<"$json")"
    fi
fi
# A disturbed run is left out of its cell when the cell has a clean run,
# and kept when it has none; the runs column says which. The runs made
# Linux's (the foreign column is Linux's), 1 % and 40 % foreign.
if made leftout 10 20 60; then
    sq "$T/leftout.db" "UPDATE experiment SET engine = 'linux'; UPDATE scenario SET engine = 'linux', run_ns = 1000;
                        UPDATE scenario SET foreign_ns = 10, disturbed = 0 WHERE scenario_id IN (1, 2);
                        UPDATE scenario SET foreign_ns = 400, disturbed = 1 WHERE scenario_id = 3"
    row=$("$RUNQ" report experiment --db "$T/leftout.db" | awk 'NR == 3' | tr -s ' ')
    sq "$T/leftout.db" "UPDATE scenario SET foreign_ns = 400, disturbed = 1"
    all=$("$RUNQ" report experiment --db "$T/leftout.db" | awk 'NR == 3' | tr -s ' ')
    csv=$("$RUNQ" report experiment --db "$T/leftout.db" --csv | awk -F, 'NR == 2 { print $4, $(NF-7), $(NF-4), $(NF-3) }')
    if [ "$row" = "- 15.00% [10.00%..20.00%] 14.00% [1.00%..40.00%] 2 (1 disturbed left out)" ] &&
        [ "$all" = "- 30.00% [10.00%..60.00%] 40.00% [40.00%..40.00%] 3 (3 disturbed, no clean run)" ] &&
        [ "$csv" = "0.3 3 0 0.4" ]; then
        pass "disturbed_left_out"
    else
        failed "disturbed_left_out" "one disturbed: '$row'; all: '$all'; csv mean runs left_out foreign: '$csv'"
    fi
fi

# ---- on the host's Linux ----

linux_recording_ready linux_trust || exit $fail
ncpu=$(nproc)
last=$((ncpu - 1))

# The engine's threads, seen from outside while a hog runs on the last
# CPU: every thread of the run's process but the hog may not use it.
if [ "$ncpu" -ge 2 ]; then
    printf 'cpus %d\nhz 250\nrun 3s\ntask hog cpu=%d\n' "$ncpu" "$last" >"$T/pin.scn"
    "$RUNQ" experiment --quiet --engine linux --db "$T/pin.db" "$T/pin.scn" >"$T/pin.out" 2>"$T/pin.err" &
    pid=$!
    # The run's process once it has the hog and the recorder's reader
    # beside the conductor (three threads), as long as the run lasts.
    seen=""
    for _ in $(seq 200); do
        for child in $(pgrep -P "$pid"); do
            if grep -qx hog /proc/"$child"/task/*/comm 2>/dev/null && [ "$(ls /proc/"$child"/task | wc -l)" -ge 3 ]; then
                seen=$(for t in /proc/"$child"/task/*; do
                    echo "$(cat "$t/comm") $(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")"
                done)
                break 2
            fi
        done
        sleep 0.02
    done
    wait "$pid"
    # the CPUs each engine thread may use, expanded: "0-2,4" -> " 0 1 2 4 "
    bad=$(echo "$seen" | awk -v last="$last" '$1 != "hog" {
            n = split($2, r, ","); s = " "
            for (i = 1; i <= n; i++) { split(r[i], ab, "-"); b = ab[2] == "" ? ab[1] : ab[2]; for (c = ab[1]; c <= b; c++) s = s c " " }
            if (index(s, " " last " ")) print }')
    engine_threads=$(echo "$seen" | grep -vc '^hog ')
    if [ -n "$seen" ] && [ -z "$bad" ] && [ "$engine_threads" -ge 2 ]; then
        pass "engine_threads_off_the_scenario_cpu ($engine_threads threads: $(echo "$seen" | tr '\n' ';'))"
    else
        failed "engine_threads_off_the_scenario_cpu" "on CPU $last: '$(echo "$bad" | tr '\n' ';')'; seen: '$(echo "$seen" | tr '\n' ';')'"
    fi
else
    echo "SKIP engine_threads_off_the_scenario_cpu: one CPU, no other to go to"
fi

# ---- a busy loop on the scenario's CPU ----
printf 'cpus %d\nhz 250\nrun 1s\ntask hog cpu=%d\nmeasure hog share\n' "$ncpu" "$last" >"$T/busy.scn"
taskset -c "$last" sh -c 'while :; do :; done' &
loop=$!
sleep 0.2
runq experiment --engine linux --rerun-disturbed 1 --db "$T/busy.db" "$T/busy.scn"
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null
loop=
first=$(sq "$T/busy.db" "SELECT trace_id FROM scenario ORDER BY scenario_id LIMIT 1")
first=${first:-0}
window=$(sq "$T/busy.db" "SELECT e.ts - b.ts FROM mark b, mark e WHERE b.trace_id = $first AND e.trace_id = $first
                          AND b.name = 'start' AND e.name = 'end'")
foreign=$(sq "$T/busy.db" "SELECT value FROM stats WHERE trace_id = $first AND name = 'foreign_cpu_ns' AND idx = $last")
if [ -n "$window" ] && [ -n "$foreign" ] && [ "$((foreign * 100))" -gt "$((window * 30))" ]; then
    pass "busy_loop_is_foreign ($((foreign * 100 / window)) % of the window on CPU $last)"
else
    failed "busy_loop_is_foreign" "exit $rc, foreign_cpu_ns '$foreign' of a window of '$window' ns on CPU $last: $(head -c 300 "$T/err")"
fi
marked=$(sq "$T/busy.db" "SELECT disturbed || ' ' || (foreign_ns * 100 > run_ns * 30) || ' ' ||
                          (foreign_ns = (SELECT SUM(value) FROM stats t WHERE t.trace_id = s.trace_id
                                         AND t.name IN ('foreign_cpu_ns', 'unknown_cpu_ns')))
                          FROM scenario s ORDER BY scenario_id LIMIT 1")
if [ "$marked" = "1 1 1" ]; then
    pass "busy_run_marked_disturbed"
else
    failed "busy_run_marked_disturbed" "disturbed, foreign_ns > 30 %, foreign_ns = its stats rows: '$marked'"
fi
runs=$(sq "$T/busy.db" "SELECT COUNT(*) || ' ' || COUNT(DISTINCT trace_id) || ' ' || MAX(cell) || ' ' || MAX(repeat) || ' '
                        || COUNT(DISTINCT seed) || ' ' || SUM(status = 'ok') FROM scenario")
if [ "$runs" = "2 2 0 0 1 2" ] && [ "$(grep -c 'disturbed: other processes took' "$T/err")" = 2 ] &&
    grep -q "running it again" "$T/err"; then
    pass "rerun_disturbed_ran_it_again (2 runs of cell 0, repeat 0, both kept)"
else
    failed "rerun_disturbed_ran_it_again" "runs, traces, cell, repeat, seeds, ok: '$runs': $(head -c 400 "$T/err")"
fi
if sed -n 2p "$T/out" | grep -qE ' foreign +runs$' && sed -n 3p "$T/out" | grep -qE '%\] +2 \(2 disturbed, no clean run\)$' &&
    grep -q '^disturbed: ' "$T/out"; then
    pass "table_shows_foreign_and_disturbed"
else
    failed "table_shows_foreign_and_disturbed" "$(head -c 600 "$T/out")"
fi

# ---- no deliberate load: measured and stored on every CPU ----
printf 'cpus %d\nhz 250\nquantum 10us\nrun 1s\ntask hog cpu=0\ntask probe cpu=%d pattern=run:50us,every:1ms\n' \
    "$ncpu" "$last" >"$T/quiet.scn"
runq experiment --quiet --engine linux --db "$T/quiet.db" "$T/quiet.scn"
tr=$(sq "$T/quiet.db" "SELECT trace_id FROM scenario")
tr=${tr:-0}
rows=$(sq "$T/quiet.db" "SELECT GROUP_CONCAT(name || ':' || idx, ' ') FROM (SELECT name, idx FROM stats
                         WHERE trace_id = $tr AND name IN ('foreign_cpu_ns', 'unknown_cpu_ns') ORDER BY name, idx)")
want=$( (printf 'foreign_cpu_ns:0\n'; [ "$last" != 0 ] && printf 'foreign_cpu_ns:%d\n' "$last"
        printf 'unknown_cpu_ns:0\n'; [ "$last" != 0 ] && printf 'unknown_cpu_ns:%d\n' "$last") | tr '\n' ' ' | sed 's/ $//')
sums=$(sq "$T/quiet.db" "SELECT (foreign_ns = (SELECT SUM(value) FROM stats t WHERE t.trace_id = s.trace_id
                                                AND t.name IN ('foreign_cpu_ns', 'unknown_cpu_ns')))
                                || ' ' || (disturbed = (foreign_ns * 100 > run_ns * 2)) FROM scenario s")
if [ "$rc" = 0 ] && [ "$rows" = "$want" ] && [ "$sums" = "1 1" ]; then
    pass "foreign_measured_on_every_cpu ($(sq "$T/quiet.db" "SELECT ROUND(100.0 * foreign_ns / run_ns, 2) FROM scenario") % of the window)"
else
    failed "foreign_measured_on_every_cpu" "exit $rc, rows '$rows' (want '$want'), foreign_ns = the rows, disturbed by the rule: '$sums'"
fi
# docs/sql.md's query over the trace gives each row's number.
awk '/the stats row `foreign_cpu_ns`/ { on = 1 } on && /^```$/ { n++; if (n == 2) exit; next } on && n == 1' docs/sql.md |
    sed "s/trace_id = 1/trace_id = $tr/g" >"$T/foreign.sql"
got=$(sq "$T/quiet.db" <"$T/foreign.sql" | tr '\n' ' ')
rows=$(sq "$T/quiet.db" "SELECT idx || '|' || value FROM stats WHERE trace_id = $tr AND name = 'foreign_cpu_ns' AND value > 0
                         ORDER BY idx" | tr '\n' ' ')
if [ -s "$T/foreign.sql" ] && [ "$got" = "$rows" ]; then
    pass "sql_md_query_gives_foreign_cpu_ns (${got:-none above 0})"
else
    failed "sql_md_query_gives_foreign_cpu_ns" "query: '$got', stats rows: '$rows'"
fi

# ---- --no-record: not measured, and said so ----
runq experiment --quiet --engine linux --no-record --db "$T/nr.db" "$T/quiet.scn"
stored=$(sq "$T/nr.db" "SELECT status || ' ' || COALESCE(foreign_ns, 'null') || ' ' || COALESCE(disturbed, 'null') FROM scenario")
if [ "$rc" = 0 ] && [ "$stored" = "ok null null" ] && sed -n 3p "$T/out" | grep -qE ' - +1$' &&
    grep -q '^foreign -: not measured' "$T/out"; then
    pass "no_record_not_measured"
else
    failed "no_record_not_measured" "exit $rc, stored '$stored': $(head -c 400 "$T/out")"
fi

exit $fail
