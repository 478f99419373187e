#!/usr/bin/env bash
# Runs every ```sql example in docs/sql.md, and the canned reports, against
# generated eevdf (with a ring overflow) and rr traces: each must succeed,
# and return rows on the eevdf trace. Also checks runq sql's output formats
# and usage errors.
# Prints PASS/FAIL lines.
#
# usage: tests/trace_sql_test.sh [RUNQ] [TRACE_GEN]
set -u
RUNQ=${1:-build/runq}
GEN=${2:-build/tests/trace_gen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

"$GEN" --ms 300 --ring-drop 30 --out "$T/e.bin" && "$GEN" --ms 300 --policy rr --out "$T/r.bin" || exit 1
"$RUNQ" record --db "$T/db" --file "$T/e.bin" >/dev/null 2>&1 &&
    "$RUNQ" record --db "$T/db" --file "$T/r.bin" >/dev/null 2>&1 || { fail record "runq record failed"; exit 1; }

# trace_gen decides through the kernel's sched_decide(), so delayed tasks
# whose lag a pick found paid leave with a LEAVE 'dequeued', each after that
# task's LEAVE 'delayed' (its previous LEAVE), as the kernel traces them.
# (On a trace without the ring overflow, which may drop the 'delayed'.)
"$GEN" --ms 300 --out "$T/c.bin" && "$RUNQ" record --db "$T/c.db" --file "$T/c.bin" >/dev/null 2>&1 ||
    fail trace_gen_traces_delayed_departures "could not record a clean trace"
deq=$("$RUNQ" sql --db "$T/c.db" --csv "
    SELECT count(*), count(*) FILTER (WHERE prev IS NOT 'delayed') FROM (
      SELECT reason, lag(reason) OVER (PARTITION BY utid ORDER BY id) AS prev FROM eevdf_leave)
    WHERE reason = 'dequeued'" | tail -n 1)
case "$deq" in
0,*|"") fail trace_gen_traces_delayed_departures "no LEAVE 'dequeued' in the eevdf trace ($deq)" ;;
*,0) pass "trace_gen_traces_delayed_departures (${deq%,*} dequeued, each after its delayed)" ;;
*) fail trace_gen_traces_delayed_departures "dequeued, not after delayed: $deq" ;;
esac

# Blobs print as hex: the buffer was one byte short (an ASan report under
# make test's sanitized runq, issue 13), and a huge one printed whole took
# minutes: at most 1024 bytes are shown, with the size.
out=$("$RUNQ" sql --db "$T/db" --csv "select x'00ff10' as b, length(hex(randomblob(10))) as r" 2>&1)
if [ "$out" = "$(printf "b,r\nx'00ff10',20")" ]; then pass sql_prints_blobs_as_hex; else
    fail sql_prints_blobs_as_hex "$out"; fi
out=$(timeout 20 "$RUNQ" sql --db "$T/db" --csv "select randomblob(10) as a, zeroblob(500000000) as z" 2>&1 | tail -n 1)
case "$out" in
"x'"????????????????????"',x'"*"' (first 1024 of 500000000 bytes)") pass sql_caps_a_huge_blob ;;
*) fail sql_caps_a_huge_blob "$(head -c 200 <<<"$out")" ;;
esac

# Split docs/sql.md into one file per ```sql block.
awk -v dir="$T" '/^```sql$/ { n++; f = dir "/ex" n ".sql"; next } /^```$/ { f = ""; next } f { print > f }' docs/sql.md
count=$(ls "$T"/ex*.sql 2>/dev/null | wc -l)
[ "$count" -ge 10 ] && pass docs_have_ten_examples || fail docs_have_ten_examples "only $count"
for f in $(ls "$T"/ex*.sql | sort -V); do
    n=$(basename "$f" .sql)
    sql=$(cat "$f")
    out=$("$RUNQ" sql --db "$T/db" --trace 1 --csv "$sql" 2>&1)
    rc=$?
    rows=$(printf '%s\n' "$out" | tail -n +2 | grep -c .)
    if [ $rc -ne 0 ]; then
        fail "sql_example_$n" "exit $rc: $out"
    elif [ "$rows" -lt 1 ]; then
        fail "sql_example_$n" "no rows on the eevdf trace"
    elif ! "$RUNQ" sql --db "$T/db" --trace 2 "$sql" >/dev/null 2>"$T/err"; then
        fail "sql_example_$n" "fails on the rr trace: $(cat "$T/err")"
    else
        pass "sql_example_$n"
    fi
done

for r in latency share decisions loss; do
    if "$RUNQ" report "$r" --db "$T/db" --trace 1 >"$T/out" 2>&1 && [ "$(wc -l <"$T/out")" -ge 4 ] &&
        "$RUNQ" report "$r" --db "$T/db" --json >/dev/null 2>&1; then
        pass "report_$r"
    else
        fail "report_$r" "$(head -3 "$T/out")"
    fi
done

j=$("$RUNQ" sql --db "$T/db" --json "SELECT 1 AS a, 'x\"y' AS b, NULL AS c")
[ "$j" = '[{"a":1,"b":"x\"y","c":null}]' ] && pass sql_json_output || fail sql_json_output "$j"
c=$("$RUNQ" sql --db "$T/db" --csv "SELECT 'a,b' AS x, 2 AS y")
[ "$c" = $'x,y\n"a,b",2' ] && pass sql_csv_output || fail sql_csv_output "$c"
n=$("$RUNQ" sql --db "$T/db" --trace 2 --csv "SELECT COUNT(DISTINCT trace_id) FROM eevdf_pick" | tail -1)
[ "$n" = 1 ] && pass sql_trace_scopes_every_table || fail sql_trace_scopes_every_table "$n traces seen"

"$RUNQ" sql --db "$T/db" "DELETE FROM thread" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^runq sql: ' "$T/err" &&
    pass sql_refuses_writes || fail sql_refuses_writes "rc $rc: $(cat "$T/err")"
"$RUNQ" sql --db "$T/db" --bogus "SELECT 1" >/dev/null 2>&1; rc1=$?
"$RUNQ" sql --db "$T/db" --trace x "SELECT 1" >/dev/null 2>&1; rc2=$?
"$RUNQ" report nosuch --db "$T/db" >/dev/null 2>&1; rc3=$?
"$RUNQ" record --file a --socket b >/dev/null 2>&1; rc4=$?
"$RUNQ" sql --db "$T/nonexistent" "SELECT 1" >/dev/null 2>&1; rc5=$?
[ "$rc1$rc2$rc3$rc4$rc5" = 22221 ] && pass usage_errors_exit_2 || fail usage_errors_exit_2 "got $rc1 $rc2 $rc3 $rc4 $rc5"
for c in record sql report; do
    "$RUNQ" "$c" --help | grep -q "^usage: runq $c" || fail "help_$c" "no usage line"
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
[ -z "$bad" ] && pass readers_explain_a_read_only_directory || fail readers_explain_a_read_only_directory "$bad"

exit $failed
