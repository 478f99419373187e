#!/usr/bin/env bash
# Runs every ```sql example in docs/sql.md, and the canned reports, against
# generated eevdf (with a ring overflow) and rr traces: each must succeed,
# and return rows on the eevdf trace. Also checks runq sql's output formats
# and usage errors.
# Prints PASS/FAIL lines.
#
# usage: tests/db/trace_sql_test.sh [RUNQ] [TRACE_GEN]
set -u
RUNQ=${1:-build/runq}
TRACE_GEN=${2:-${TRACE_GEN:-build/tests/trace_gen}}
. tests/lib.sh

"$GEN" --ms 300 --ring-drop 30 --out "$T/e.bin" && "$GEN" --ms 300 --policy rr --out "$T/r.bin" || exit 1
"$RUNQ" record --db "$T/db" --file "$T/e.bin" >/dev/null 2>&1 &&
    "$RUNQ" record --db "$T/db" --file "$T/r.bin" >/dev/null 2>&1 || { failed record "runq record failed"; exit 1; }

# trace_gen decides through the kernel's sched_decide(), so delayed tasks
# whose lag a pick found paid leave with a LEAVE 'dequeued', each after that
# task's LEAVE 'delayed' (its previous LEAVE), as the kernel traces them.
# (On a trace without the ring overflow, which may drop the 'delayed'.)
"$GEN" --ms 300 --out "$T/c.bin" && "$RUNQ" record --db "$T/c.db" --file "$T/c.bin" >/dev/null 2>&1 ||
    failed trace_gen_traces_delayed_departures "could not record a clean trace"
deq=$("$RUNQ" sql --db "$T/c.db" --csv "
    SELECT count(*), count(*) FILTER (WHERE prev IS NOT 'delayed') FROM (
      SELECT reason, lag(reason) OVER (PARTITION BY utid ORDER BY id) AS prev FROM eevdf_leave)
    WHERE reason = 'dequeued'" | tail -n 1)
case "$deq" in
0,*|"") failed trace_gen_traces_delayed_departures "no LEAVE 'dequeued' in the eevdf trace ($deq)" ;;
*,0) pass "trace_gen_traces_delayed_departures (${deq%,*} dequeued, each after its delayed)" ;;
*) failed trace_gen_traces_delayed_departures "dequeued, not after delayed: $deq" ;;
esac

# Trace format 3's JOIN: every join by waking stores its wakeup check, and
# the facts (one 0/1 column a jflags bit, db/events.h's order) hang
# together as the record means them: a column stored in another's place
# breaks one of these. Not vacuous: the trace has requeues, clips, both
# answers.
q() { "$RUNQ" sql --db "$1" --csv "$2" | tail -n 1; }
facts=$(q "$T/db" "SELECT
    SUM(wake_check IS NULL OR wake_check NOT IN ('preempt', 'kept', 'none')),
    SUM(clipped AND NOT requeue) + SUM(charged_first AND NOT requeue) + SUM(cut_short AND wake_check <> 'preempt')
      + SUM(pending AND wake_check <> 'none') + SUM((curr_utid IS NULL) <> (wake_check = 'none' AND NOT pending))
      + SUM(curr_protected <> (curr_vprot - curr_vruntime > 0)) + SUM((curr_eligible IS NULL) <> (curr_utid IS NULL)),
    SUM(requeue), SUM(clipped), SUM(wake_check = 'preempt'), SUM(wake_check = 'kept'), SUM(curr_protected)
  FROM eevdf_place WHERE trace_id = 1 AND reason = 'wake'")
rr=$(q "$T/db" "SELECT SUM(wake_check IS NULL) + SUM(pending IS NULL) + SUM(curr_vprot IS NOT NULL)
                  + SUM(wakee_eligible IS NOT NULL) + SUM(requeue IS NOT NULL), COUNT(*)
                FROM eevdf_place WHERE trace_id = 2 AND reason = 'wake'")
IFS=, read -r unknown broken nreq nclip npre nkept nprot <<<"$facts"
if [ "$unknown" = 0 ] && [ "$broken" = 0 ] && [ "$nreq" -gt 0 ] && [ "$nclip" -gt 0 ] && [ "$npre" -gt 0 ] &&
    [ "$nkept" -gt 0 ] && [ "$nprot" -gt 0 ] && [ "${rr%,*}" = 0 ] && [ "${rr#*,}" -gt 0 ]; then
    pass "wakeup_check_stored ($npre preempt, $nkept kept, $nreq requeued, $nclip clipped)"
else
    failed wakeup_check_stored "unknown $unknown, inconsistent $broken, requeue $nreq, clipped $nclip, preempt $npre, kept $nkept, protected $nprot; rr: $rr"
fi

# A version-2 JOIN (68 bytes, as runqs before trace format 3 wrote it) is
# read, its placement stored and its check unknown: NULL, not 0.
"$GEN" --ms 100 --join-v2 --out "$T/v2.bin" && "$RUNQ" record --db "$T/v2.db" --file "$T/v2.bin" >/dev/null 2>&1 ||
    failed version_2_join_is_read "could not record"
v2=$(q "$T/v2.db" "SELECT COUNT(*), SUM(vruntime IS NOT NULL AND lag_before IS NOT NULL),
                      SUM(COALESCE(curr_utid, wake_check, curr_vruntime, curr_deadline, curr_vprot, requeue, charged_first,
                                   clipped, wakee_eligible, curr_eligible, curr_protected, cut_short, pending) IS NULL),
                      (SELECT format_version FROM trace), (SELECT SUM(value) FROM stats WHERE name = 'bad_records')
                    FROM eevdf_place")
IFS=, read -r n placed unknown ver bad <<<"$v2"
if [ "$n" -gt 10 ] && [ "$placed" = "$n" ] && [ "$unknown" = "$n" ] && [ "$ver" = 2 ] && [ "$bad" = 0 ]; then
    pass "version_2_join_is_read ($n joins, their checks NULL)"
else
    failed version_2_join_is_read "joins $n, placed $placed, check NULL $unknown, format $ver, bad records $bad"
fi

# The view thread_switches against counts made here from the raw records,
# not from sched_slice: a switch is a PICK whose next is not its prev,
# involuntary when prev's last LEAVE (on the CPU: not a departure) says it
# was preempted (still runnable), voluntary when it blocked, slept, exited
# or yielded. The idle task leaves no LEAVE and counts neither way. With
# --repick some tasks block and are picked again at once (next == prev,
# after their LEAVE): no switch, as the kernel counts it.
"$GEN" --cpus 3 --tasks 5 --ms 300 --repick 3 --out "$T/sw.bin" && "$RUNQ" record --db "$T/sw.db" --file "$T/sw.bin" >/dev/null 2>&1 ||
    failed thread_switches_view "could not record"
"$RUNQ" sql --db "$T/sw.db" --csv "
    SELECT ts, 0 AS k, id, utid, reason FROM eevdf_leave WHERE reason <> 'dequeued'
    UNION ALL SELECT ts, 1, id, prev_utid, next_utid FROM eevdf_pick ORDER BY ts, k, id" | tail -n +2 |
    awk -F, '$2 == 0 { why[$4] = $5; when[$4] = $1; next }
             !($4 in why) { next }
             $4 != $5 { if (why[$4] == "preempt") inv[$4]++; else vol[$4]++; next }
             when[$4] == $1 { repicked++ }
             END { for (u in vol) seen[u] = 1; for (u in inv) seen[u] = 1
                   for (u in seen) printf "%d,%d,%d\n", u, vol[u], inv[u]; print "repicked," repicked + 0 > "/dev/stderr" }' \
    2>"$T/sw.repicked" | sort -n >"$T/sw.want"
"$RUNQ" sql --db "$T/sw.db" --csv "SELECT utid, voluntary, involuntary FROM thread_switches
                                    WHERE voluntary + involuntary > 0 ORDER BY utid" | tail -n +2 >"$T/sw.got"
share=$(q "$T/sw.db" "SELECT SUM(ABS(involuntary_share - CAST(involuntary AS REAL) / (voluntary + involuntary)) < 1e-12),
                      COUNT(*) FROM thread_switches WHERE voluntary + involuntary > 0")
repicked=$(cut -d, -f2 "$T/sw.repicked")
if [ -s "$T/sw.want" ] && cmp -s "$T/sw.want" "$T/sw.got" && [ "$repicked" -gt 0 ] && [ "${share%,*}" = "${share#*,}" ] &&
    [ "$(wc -l <"$T/sw.want")" -ge 4 ]; then
    pass "thread_switches_view ($(wc -l <"$T/sw.want") tasks, $repicked picked again after their LEAVE)"
else
    failed thread_switches_view "repicked $repicked, shares $share; want (utid,vol,invol) / got: $(paste -d' ' "$T/sw.want" "$T/sw.got" | tr '\n' '|')"
fi
# A task picked again after its LEAVE runs: its time is Running in
# thread_state, as in sched_slice.
run=$(q "$T/sw.db" "SELECT COUNT(*), SUM((SELECT SUM(dur) FROM thread_state s WHERE s.utid = t.utid AND state = 'Running')
                                      = (SELECT SUM(dur) FROM sched_slice s WHERE s.utid = t.utid))
                    FROM thread t WHERE NOT is_idle")
if [ "${run%,*}" = "${run#*,}" ] && [ "${run%,*}" -ge 4 ]; then
    pass "repicked_task_is_running (${run%,*} tasks: Running time = slice time)"
else
    failed repicked_task_is_running "tasks, equal: $run"
fi
# docs/sql.md prints the view's query in full: it is db/schema.sql's, to
# the letter (whitespace aside).
doc=$(awk '/^### thread_switches/ { s = 1 } s && /^```$/ { if (b) exit; b = 1; next } b' docs/sql.md | tr -d ' \n')
def=$(awk '/^CREATE VIEW IF NOT EXISTS thread_switches AS$/ { b = 1; next } b { print } b && /;$/ { exit }' db/schema.sql | tr -d ' \n')
if [ -n "$doc" ] && [ "$doc" = "$def" ]; then pass sql_doc_shows_the_view_as_defined; else
    failed sql_doc_shows_the_view_as_defined "docs/sql.md: ${doc:0:80}...; db/schema.sql: ${def:0:80}..."; fi
# runq sql --trace N scopes the view to the trace, as it does the tables.
n=$("$RUNQ" sql --db "$T/db" --trace 2 --csv "SELECT COUNT(DISTINCT trace_id), MIN(trace_id) FROM thread_switches" | tail -1)
[ "$n" = 1,2 ] && pass sql_trace_scopes_the_views || failed sql_trace_scopes_the_views "traces seen: $n"

# A table's numeric column lines its decimals up (SQLite prints 50.0 beside
# 27.147): zeros added, whole numbers and text left alone; CSV as stored.
out=$("$RUNQ" sql --db "$T/db" "SELECT 27.147 AS x, 3 AS n, 'a' AS t UNION ALL SELECT 50.0, 12, 'bb' UNION ALL SELECT NULL, 7, NULL" 2>&1)
want=$(printf '%s\n' "x       n   t" "------  --  ----" "27.147   3  a" "50.000  12  bb" "  NULL   7  NULL")
csv=$("$RUNQ" sql --db "$T/db" --csv "SELECT 50.0 AS x" 2>&1 | tail -1)
if [ "$out" = "$want" ] && [ "$csv" = 50.0 ]; then pass sql_table_lines_up_decimals; else
    failed sql_table_lines_up_decimals "got: $(echo "$out" | tr '\n' '|'), csv $csv"; fi

# Blobs print as hex: the buffer was one byte short (an ASan report under
# make test's sanitized runq, issue 13), and a huge one printed whole took
# minutes: at most 1024 bytes are shown, with the size.
out=$("$RUNQ" sql --db "$T/db" --csv "select x'00ff10' as b, length(hex(randomblob(10))) as r" 2>&1)
if [ "$out" = "$(printf "b,r\nx'00ff10',20")" ]; then pass sql_prints_blobs_as_hex; else
    failed sql_prints_blobs_as_hex "$out"; fi
out=$(timeout 20 "$RUNQ" sql --db "$T/db" --csv "select randomblob(10) as a, zeroblob(500000000) as z" 2>&1 | tail -n 1)
case "$out" in
"x'"????????????????????"',x'"*"' (first 1024 of 500000000 bytes)") pass sql_caps_a_huge_blob ;;
*) failed sql_caps_a_huge_blob "$(head -c 200 <<<"$out")" ;;
esac

# Split docs/sql.md into one file per ```sql block.
awk -v dir="$T" '/^```sql$/ { n++; f = dir "/ex" n ".sql"; next } /^```$/ { f = ""; next } f { print > f }' docs/sql.md
count=$(ls "$T"/ex*.sql 2>/dev/null | wc -l)
[ "$count" -ge 10 ] && pass docs_have_ten_examples || failed docs_have_ten_examples "only $count"
for f in $(ls "$T"/ex*.sql | sort -V); do
    n=$(basename "$f" .sql)
    sql=$(cat "$f")
    out=$("$RUNQ" sql --db "$T/db" --trace 1 --csv "$sql" 2>&1)
    rc=$?
    rows=$(printf '%s\n' "$out" | tail -n +2 | grep -c .)
    if [ $rc -ne 0 ]; then
        failed "sql_example_$n" "exit $rc: $out"
    elif [ "$rows" -lt 1 ]; then
        failed "sql_example_$n" "no rows on the eevdf trace"
    elif ! "$RUNQ" sql --db "$T/db" --trace 2 "$sql" >/dev/null 2>"$T/err"; then
        failed "sql_example_$n" "fails on the rr trace: $(cat "$T/err")"
    else
        pass "sql_example_$n"
    fi
done

for r in latency share decisions loss; do
    if "$RUNQ" report "$r" --db "$T/db" --trace 1 >"$T/out" 2>&1 && [ "$(wc -l <"$T/out")" -ge 4 ] &&
        "$RUNQ" report "$r" --db "$T/db" --json >/dev/null 2>&1; then
        pass "report_$r"
    else
        failed "report_$r" "$(head -3 "$T/out")"
    fi
done

j=$("$RUNQ" sql --db "$T/db" --json "SELECT 1 AS a, 'x\"y' AS b, NULL AS c")
[ "$j" = '[{"a":1,"b":"x\"y","c":null}]' ] && pass sql_json_output || failed sql_json_output "$j"
c=$("$RUNQ" sql --db "$T/db" --csv "SELECT 'a,b' AS x, 2 AS y")
[ "$c" = $'x,y\n"a,b",2' ] && pass sql_csv_output || failed sql_csv_output "$c"
n=$("$RUNQ" sql --db "$T/db" --trace 2 --csv "SELECT COUNT(DISTINCT trace_id) FROM eevdf_pick" | tail -1)
[ "$n" = 1 ] && pass sql_trace_scopes_every_table || failed sql_trace_scopes_every_table "$n traces seen"

"$RUNQ" sql --db "$T/db" "DELETE FROM thread" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^runq sql: ' "$T/err" &&
    pass sql_refuses_writes || failed sql_refuses_writes "rc $rc: $(cat "$T/err")"
"$RUNQ" sql --db "$T/db" --bogus "SELECT 1" >/dev/null 2>&1; rc1=$?
"$RUNQ" sql --db "$T/db" --trace x "SELECT 1" >/dev/null 2>&1; rc2=$?
"$RUNQ" report nosuch --db "$T/db" >/dev/null 2>&1; rc3=$?
"$RUNQ" record --file a --socket b >/dev/null 2>&1; rc4=$?
"$RUNQ" sql --db "$T/nonexistent" "SELECT 1" >/dev/null 2>&1; rc5=$?
[ "$rc1$rc2$rc3$rc4$rc5" = 22221 ] && pass usage_errors_exit_2 || failed usage_errors_exit_2 "got $rc1 $rc2 $rc3 $rc4 $rc5"
for c in record sql report; do
    "$RUNQ" "$c" --help | grep -q "^usage: runq $c" || failed "help_$c" "no usage line"
done
pass help_texts

# A WAL database in a directory its reader cannot write: SQLite cannot make
# the -shm file it needs even to read. Every reader says so in one line and
# exits 1 (they said "not a runq trace database" or "holds no trace yet").
# Root writes anywhere, so as root the readers run as nobody.
as_reader() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; else "$@"; fi; }
ro=$(mktemp -d)
chmod 755 "$ro"
mkdir "$ro/d" && cp "$T/db" "$ro/d/t.db" && chmod 444 "$ro/d/t.db" && chmod 555 "$ro/d"
# a copy of runq the other user can reach (the checkout may sit in a
# directory only its owner enters)
cp "$RUNQ" "$ro/runq" && chmod 755 "$ro/runq"
bad=""
for args in "sql --db $ro/d/t.db VALUES(1)" "report loss --db $ro/d/t.db" "top --db $ro/d/t.db" "step --db $ro/d/t.db 1"; do
    # shellcheck disable=SC2086
    as_reader "$ro/runq" $args </dev/null >/dev/null 2>"$T/err"; rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "directory is not writable" "$T/err" || bad="$bad [$args: rc $rc $(head -1 "$T/err")]"
done
chmod 755 "$ro/d"; rm -rf "$ro"
[ -z "$bad" ] && pass readers_explain_a_read_only_directory || failed readers_explain_a_read_only_directory "$bad"

exit $fail
