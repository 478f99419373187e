#!/usr/bin/env bash
# tests/tui/hostile_view_test.sh [runq [plain-runq]]: the readers (runq step, top, report,
# sql) on databases made to attack them rather than to record a trace
# (issue 30): names that carry terminal escapes, damaged pages, a trace
# with no events, a million threads. Run against build/asan/runq, where a
# sanitizer report exits 86.
#   names   every name shown as \xHH, never raw: step (plain and curses),
#           top, report, sql's table; CSV keeps the bytes, JSON escapes
#   damage  a damaged page is an error naming its table, exit 1
#   empty   a trace without events steps (UBSan: qsort of NULL)
#   leak    top without a terminal frees what it built (LeakSanitizer)
#   many    top on 10^6 threads stays under 250 MB and says it shows a part,
#           measured as trace_hostile measures its bounds: on the build
#           without sanitizers (plain-runq, default build/runq), whose
#           memory is what a user gets (ASan's quarantine alone holds 256 MB)
#   fuzz    step on the CPUs, times and virtual times issue 30's fuzz
#           (db_fuzz.sh) found it trusting: no sanitizer report
# Prints PASS name / FAIL name: why / SKIP name: why; exits 1 on a FAIL.
RUNQ=$(cd "$(dirname "${1:-build/asan/runq}")" && pwd)/$(basename "${1:-build/asan/runq}")
PLAIN=$(cd "$(dirname "${2:-build/runq}")" && pwd)/$(basename "${2:-build/runq}")
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86} LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=86:print_stacktrace=1}
T=$(mktemp -d /tmp/hostile_view.XXXXXX)
S=runq_hostile_view_$$
have_tmux=false
command -v tmux >/dev/null && have_tmux=true
trap '$have_tmux && tmux_stop; rm -rf "$T"' EXIT
. tests/lib.sh
$have_tmux && tmux_start
record_fixtures --ms 2000 --seed 3

# no_raw FILE: FILE holds none of the bytes a terminal acts on that the
# names below carry (ESC, BEL, the C1 CSI 0x9b, a stray 0xff).
no_raw() { [ "$(LC_ALL=C tr -d -c '\033\007\233\377' <"$1" | wc -c)" = 0 ]; }
# visible NAME FILE: no raw byte, and the escape shown as text
visible() {
    if ! no_raw "$2"; then
        failed "$1" "a raw control byte reached the output: $(LC_ALL=C grep -a -m1 $'\033' "$2" | od -c | head -3 | tr '\n' ' ')"
    elif ! grep -qF '\x1b[2J' "$2"; then
        failed "$1" "no '\\x1b[2J' in the output: $(head -c 300 "$2")"
    else
        pass "$1"
    fi
}

# ---- names: every task of trace 1, its mark and trace 2's policy carry
# a screen clear, a window title (OSC ... BEL), a C1 CSI as UTF-8 and a
# byte that is no UTF-8 ----
H=$T/h.db
cp "$T/f.db" "$H"
EVIL="char(27) || '[2J' || char(27) || ']0;pwn' || char(7) || CAST(x'c29b' AS TEXT) || CAST(x'ff' AS TEXT)"
sq "$H" "UPDATE thread SET name = name || $EVIL WHERE NOT is_idle;
         UPDATE mark SET name = name || $EVIL WHERE trace_id = 1;
         UPDATE trace SET policy = policy || char(27) || '[2J' || char(7) WHERE trace_id = 2"

printf 'n 40\n/ spin\nq\n' | "$RUNQ" step --db "$H" --plain 1 >"$T/step.out" 2>"$T/step.err"
rc=$?
if [ $rc != 0 ]; then failed step_plain_names_visible "exit $rc: $(head -c 300 "$T/step.err")"
else visible step_plain_names_visible "$T/step.out"; fi
printf 'q\n' | "$RUNQ" step --db "$H" --plain 2 >"$T/step2.out" 2>&1
if ! no_raw "$T/step2.out" || ! grep -qF 'trace 2 (rr\x1b[2J\x07)' "$T/step2.out"; then
    failed step_plain_policy_visible "$(head -2 "$T/step2.out")"
else
    pass step_plain_policy_visible
fi

"$RUNQ" report share --db "$H" --trace 1 >"$T/report.out" 2>"$T/report.err"
rc=$?
if [ $rc != 0 ]; then failed report_names_visible "exit $rc: $(head -c 300 "$T/report.err")"
else visible report_names_visible "$T/report.out"; fi
"$RUNQ" report latency --db "$H" --trace 1 >"$T/lat.out" 2>&1
visible report_latency_names_visible "$T/lat.out"
"$RUNQ" sql --db "$H" "SELECT name FROM thread WHERE NOT is_idle; SELECT name FROM mark" >"$T/sql.out" 2>&1
visible sql_table_names_visible "$T/sql.out"
# report compare: trace 2's policy is a setting that differs
"$RUNQ" report compare 1 2 --db "$H" --force >"$T/cmp.out" 2>&1
if grep -qF 'rr\x1b[2J\x07' "$T/cmp.out" && no_raw "$T/cmp.out"; then pass report_compare_names_visible
else failed report_compare_names_visible "$(grep -a policy "$T/cmp.out" | od -c | head -3 | tr '\n' ' ')"; fi
# report experiment: an experiment on paper, its file and cells renamed
if "$RUNQ" experiment --engine sim --db "$T/ex.db" scenarios/nice.scn >/dev/null 2>&1; then
    sq "$T/ex.db" "UPDATE experiment SET file = file || $EVIL; UPDATE scenario SET params = params || $EVIL"
    "$RUNQ" report experiment --db "$T/ex.db" >"$T/ex.out" 2>&1
    visible report_experiment_names_visible "$T/ex.out"
    # --csv and --json are for programs: a quote and a comma in the params
    # stay inside their field, and the text reads back whole
    sq "$T/ex.db" "UPDATE scenario SET params = params || '\",q'"
    "$RUNQ" report experiment --db "$T/ex.db" --csv >"$T/ex.csv" 2>&1
    "$RUNQ" report experiment --db "$T/ex.db" --json >"$T/ex.json" 2>&1
    if ! command -v python3 >/dev/null; then
        echo "SKIP report_experiment_csv_json_quoted: no python3 to parse them"
    elif python3 - "$T/ex.csv" "$T/ex.json" <<'PY' 2>"$T/py.err"; then
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8', errors='surrogateescape')))
cells = json.load(open(sys.argv[2], encoding='utf-8'))
assert len(rows) >= 2 and len(rows) == len(cells), (len(rows), len(cells))
for r, c in zip(rows, cells):
    assert r['params'].endswith('",q') and 'pwn' in r['params'], r['params']
    assert c['params'].endswith('",q') and '\x1b]0;pwn\x07' in c['params'], c['params']
    assert r['runs'].isdigit() and c['runs'] >= 1, (r['runs'], c['runs'])
PY
        pass report_experiment_csv_json_quoted
    else
        failed report_experiment_csv_json_quoted "$(tail -1 "$T/py.err")"
    fi
    # a column that is not TASK.METRIC (the table read its metric from NULL + 1)
    sq "$T/ex.db" "UPDATE experiment SET columns = 'ashare,' || columns"
    runq report experiment --db "$T/ex.db"
    if [ "$rc" = 0 ] && grep -q 'b.share' "$T/out" && ! grep -q 'ashare' "$T/out"; then pass report_experiment_bad_column
    else failed report_experiment_bad_column "exit $rc: $(grep -m2 -E 'ERROR|SEGV' "$T/err") $(head -2 "$T/out")"; fi
else
    failed report_experiment_names_visible "runq experiment --engine sim failed"
fi

# CSV is data for a program: the bytes as stored
"$RUNQ" sql --db "$H" --csv "SELECT hex(name) AS h, name FROM thread WHERE NOT is_idle LIMIT 1" >"$T/csv.out" 2>&1
if LC_ALL=C grep -q $'\033\\[2J\033]0;pwn\007\302\233\377' "$T/csv.out"; then pass sql_csv_keeps_bytes
else failed sql_csv_keeps_bytes "$(od -c "$T/csv.out" | head -5 | tr '\n' ' ')"; fi
# JSON escapes every control and is valid: the name reads back with
# U+FFFD for the byte that is no UTF-8
"$RUNQ" sql --db "$H" --json "SELECT name FROM thread WHERE NOT is_idle LIMIT 1" >"$T/json.out" 2>&1
if ! command -v python3 >/dev/null; then
    echo "SKIP sql_json_escaped: no python3 to parse the JSON"
elif ! no_raw "$T/json.out"; then
    failed sql_json_escaped "a raw control byte in the JSON: $(od -c "$T/json.out" | head -3 | tr '\n' ' ')"
elif python3 -c '
import json, sys
n = json.load(open(sys.argv[1], encoding="utf-8"))[0]["name"]
sys.exit(0 if n.endswith("\x1b[2J\x1b]0;pwn\x07\x9b\ufffd") else 1)' "$T/json.out"; then
    pass sql_json_escaped
else
    failed sql_json_escaped "$(head -c 300 "$T/json.out")"
fi

if $have_tmux; then
    # top: the task table, the timeline's legend and the header's mark; a
    # title sequence that ran would have renamed the pane
    tmux new-session -d -s $S -x 160 -y 40 \
        "TERM=xterm-256color $RUNQ top --db $H --trace 1 --at 0.01 --speed 0.01; echo TOP-EXITED=\$?; sleep 30"
    if wait_for 'TID NAME' && eventually on_screen 'x1b\[2J'; then
        tmux send-keys -t $S Tab Tab
        eventually on_screen 'timeline' >/dev/null
        screen >"$T/top.screen"
        title=$(tmux display -p -t $S '#{pane_title}')
        if ! grep -qF 'mark start\x1b[2J\x1b]0;pwn\x07\x9b\xff' "$T/top.screen"; then
            failed top_names_visible "the mark is not shown visible: $(head -4 "$T/top.screen" | tr '\n' '|')"
        elif [ "$title" = pwn ]; then
            failed top_names_visible "the trace set the terminal's title"
        else
            visible top_names_visible "$T/top.screen"
        fi
        tmux send-keys -t $S q
        if eventually on_screen 'TOP-EXITED=0'; then pass top_names_quits; else failed top_names_quits "$(screen | tail -3)"; fi
    else
        failed top_names_visible "$(screen | head -12 | tr '\n' '|')"
    fi
    tmux kill-session -t $S 2>/dev/null
    # step on a terminal: the curses front shows the same lines
    tmux new-session -d -s $S -x 120 -y 40 "TERM=xterm-256color $RUNQ step --db $H 1; echo STEP-EXITED=\$?; sleep 30"
    if wait_for 'trace 1' && tmux send-keys -t $S g && wait_for 'event number' && tmux send-keys -t $S 40 Enter &&
        eventually on_screen 'x1b\[2J'; then
        screen >"$T/step.screen"
        visible step_curses_names_visible "$T/step.screen"
    else
        failed step_curses_names_visible "$(screen | head -8 | tr '\n' '|')"
    fi
    tmux send-keys -t $S q
    tmux kill-session -t $S 2>/dev/null
else
    echo "SKIP top_names_visible: no tmux"
    echo "SKIP step_curses_names_visible: no tmux"
fi

# ---- damage: three pages of the pick table's middle overwritten ----
"$GEN" --ms 20000 --seed 3 --out "$T/big.bin" && "$RUNQ" record --file "$T/big.bin" --db "$T/big.db" >/dev/null 2>&1 ||
    { failed damage_fixture "could not record"; exit 1; }
page=$(sq "$T/big.db" "SELECT pageno FROM dbstat WHERE name = 'eevdf_pick' AND pagetype = 'leaf' ORDER BY pageno
                        LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM dbstat WHERE name = 'eevdf_pick' AND pagetype = 'leaf')" 2>/dev/null)
psize=$(sq "$T/big.db" "PRAGMA page_size")
if [ -z "$page" ]; then
    echo "SKIP step_damaged_page_fails: this sqlite3 has no dbstat to find a page of eevdf_pick"
    echo "SKIP top_damaged_page_fails: this sqlite3 has no dbstat"
else
    cp "$T/big.db" "$T/bad.db"
    head -c $((3 * psize)) /dev/zero | tr '\0' '\377' |
        dd of="$T/bad.db" bs="$psize" seek=$((page - 1)) count=3 conv=notrunc 2>/dev/null
    printf 'q\n' | "$RUNQ" step --db "$T/bad.db" --plain 1 >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc = 1 ] && grep -q 'reading [a-z_]*: database disk image is malformed' "$T/err"; then
        pass step_damaged_page_fails
    else
        failed step_damaged_page_fails "exit $rc, stderr '$(head -c 200 "$T/err")', $(head -1 "$T/out")"
    fi
    if $have_tmux; then
        tmux new-session -d -s $S -x 120 -y 30 \
            "TERM=xterm-256color $RUNQ top --db $T/bad.db --speed 200 2>$T/top.err; echo TOP-EXITED=\$?; sleep 30"
        if eventually on_screen 'TOP-EXITED=' && on_screen 'TOP-EXITED=1' &&
            grep -q 'runq top: .*bad.db: reading [a-z_]*: database disk image is malformed' "$T/top.err"; then
            pass top_damaged_page_fails
        else
            failed top_damaged_page_fails "$(screen | grep -v '^$' | tail -3 | tr '\n' '|') $(head -c 200 "$T/top.err")"
        fi
        tmux kill-session -t $S 2>/dev/null
    else
        echo "SKIP top_damaged_page_fails: no tmux"
    fi
fi

# ---- empty: a trace row and threads, no event rows ----
cp "$T/f.db" "$T/empty.db"
sq "$T/empty.db" "DELETE FROM eevdf_pick; DELETE FROM eevdf_place; DELETE FROM eevdf_leave; DELETE FROM sched_tick;
                  DELETE FROM wakeup; DELETE FROM queue_snapshot; DELETE FROM sched_set; DELETE FROM mark"
printf 'n\nq\n' | "$RUNQ" step --db "$T/empty.db" --plain 1 >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 0 ] && grep -q 'event -1 of 0' "$T/out"; then pass step_trace_without_events
else failed step_trace_without_events "exit $rc: $(grep -m2 -E 'runtime error|ERROR' "$T/err") $(head -1 "$T/out")"; fi

# ---- leak: top with no terminal ends after building its rows ----
runq top --db "$T/f.db" --trace 1
if [ "$rc" = 1 ] && grep -q 'needs a terminal' "$T/err"; then pass top_no_terminal_frees
else failed top_no_terminal_frees "exit $rc: $(grep -m3 -E 'leak|ERROR|#1' "$T/err" | tr '\n' ' ')"; fi

# ---- many: a million threads in trace 1, each woken once ----
M=$T/many.db
cp "$T/f.db" "$M"
sq "$M" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
         INSERT INTO thread (utid, trace_id, tid, name, nice, slice_ns, cpu, is_idle, start_ts, class)
         SELECT 100000 + i, 1, 100000 + i, 'many' || i, 0, 0, i % 4, 0, 0, 'fair' FROM n;
         INSERT INTO wakeup (trace_id, utid, ts_wake, ts_run, latency, cpu)
         SELECT 1, utid, 1000, 2000 + utid, 1000 + utid, cpu FROM thread WHERE utid > 100000"
# the sanitizer build reads it too (no terminal: the model opens and
# updates once)
runq top --db "$M" --trace 1
if [ "$rc" = 1 ] && grep -q 'needs a terminal' "$T/err"; then pass top_many_tasks_sanitized
else failed top_many_tasks_sanitized "exit $rc: $(head -c 300 "$T/err")"; fi
if $have_tmux && [ -x /usr/bin/time ] && [ -x "$PLAIN" ]; then
    # --delay 0.5: a sample every 50 ms, so the 128 rate samples fill
    tmux new-session -d -s $S -x 120 -y 30 "TERM=xterm-256color /usr/bin/time -v -o $T/time.txt $PLAIN top --db $M \
        --trace 1 --delay 0.5 --speed 0.1 2>$T/many.err; echo TOP-EXITED=\$?; sleep 30"
    if wait_for "ONLY THE FIRST 32768 TASKS"; then
        sleep 8
        tmux send-keys -t $S q
        eventually on_screen 'TOP-EXITED=' >/dev/null
        kb=$(awk -F': ' '/Maximum resident/ {print $2}' "$T/time.txt")
        if ! on_screen 'TOP-EXITED=0'; then
            failed top_many_tasks_bounded "$(screen | grep -v '^$' | tail -3 | tr '\n' '|')"
        elif [ -z "$kb" ] || [ "$kb" -ge 256000 ]; then
            failed top_many_tasks_bounded "peak RSS ${kb:-?} kB, want under 250 MB"
        elif ! grep -q 'more than 32768 tasks: only the first 32768' "$T/many.err"; then
            failed top_many_tasks_bounded "stderr does not say so: $(head -c 200 "$T/many.err")"
        else
            pass top_many_tasks_bounded
            echo "  (peak RSS $((kb / 1024)) MB with 10^6 threads)"
        fi
    else
        failed top_many_tasks_bounded "no cap said on screen: $(screen | head -5 | tr '\n' '|')"
    fi
    tmux kill-session -t $S 2>/dev/null
else
    echo "SKIP top_many_tasks_bounded: needs tmux, /usr/bin/time and $PLAIN"
fi

# ---- issue 30's fuzz findings in step (db_fuzz.sh): the database's CPUs,
# times and virtual times are untrusted. Each check drives step over a
# crafted copy of the fixture; a sanitizer report (exit 86) fails it ----
# step_keys NAME DB KEYS [ARGS...]: PASS unless step exits 86 or 128+ (or
# prints a sanitizer report)
step_keys() {
    local name=$1 db=$2 keys=$3 rc
    shift 3
    printf '%b' "$keys" | "$RUNQ" step --db "$db" --plain --width 120 "$@" >"$T/$name.out" 2>"$T/$name.err"
    rc=$?
    if [ $rc = 86 ] || [ $rc -ge 128 ] || grep -qE 'runtime error|ERROR: AddressSanitizer' "$T/$name.err"; then
        failed "$name" "exit $rc: $(grep -m1 -E 'runtime error|ERROR: AddressSanitizer' "$T/$name.err")"
    else
        pass "$name"
    fi
}
STEPS=$(printf 'n\\n%.0s' $(seq 60))
# picks and joins on CPU -1, which events_load keeps (no CPU; a larger one
# raises ncpus): step_explain_pick and _join took queue -1, before the
# array (db/replay.c:431, tui/step.c:465, heap-buffer-overflow; fuzz seeds
# 4, 1796573943)
cp "$T/f.db" "$T/cpu.db"
sq "$T/cpu.db" "UPDATE eevdf_pick SET cpu = -1 WHERE trace_id = 1 AND id % 2;
                UPDATE eevdf_place SET cpu = -1 WHERE trace_id = 1 AND id % 2"
step_keys step_pick_cpu_beyond_trace "$T/cpu.db" "${STEPS}q\n" 1
step_keys step_compare_pick_cpu_beyond_trace "$T/cpu.db" "${STEPS}q\n" 2 --compare 1
# times at the int64 limits: since-start, ago and the alignment of
# --compare overflowed (tui/step.c aligned, step_explain_pick, step_render,
# db/replay.c replay_describe; seeds 13, 15); they show "?" now
cp "$T/f.db" "$T/ts.db"
sq "$T/ts.db" "UPDATE trace SET start_ts = 1000 WHERE trace_id = 1;
               UPDATE trace SET start_ts = 9223372036854775000 WHERE trace_id = 2;
               UPDATE eevdf_pick SET ts = -9223372036854775808 WHERE id IN
                   (SELECT id FROM eevdf_pick WHERE trace_id = 1 ORDER BY ts LIMIT 3);
               UPDATE eevdf_place SET ts = -9223372036854775807 WHERE id IN
                   (SELECT id FROM eevdf_place WHERE trace_id = 1 ORDER BY ts LIMIT 3);
               UPDATE eevdf_pick SET ts = 9223372036854775807 WHERE id IN
                   (SELECT id FROM eevdf_pick WHERE trace_id = 1 ORDER BY ts DESC LIMIT 3)"
step_keys step_ts_at_int64_limits "$T/ts.db" "${STEPS}g 100000\np\np\nq\n" 1
step_keys step_compare_ts_at_int64_limits "$T/ts.db" "${STEPS}g 100000\np\np\nq\n" 1 --compare 2
step_keys step_compare_ts_at_int64_limits_rev "$T/ts.db" "${STEPS}q\n" 2 --compare 1
# b TIME from a start at the edge of int64: start + T and the distances in
# its error overflowed (tui/step.c:353)
step_keys step_b_time_near_int64_max "$T/ts.db" "b 5\nb +1s\nb @-5\nq\n" 2
# vruntimes far beyond their deadlines (a weight so large that no slice
# renews them): the number line's columns left the row (tui/step.c:837,
# index out of bounds)
cp "$T/f.db" "$T/vr.db"
sq "$T/vr.db" "UPDATE eevdf_place SET vruntime = deadline + (id * 1234567890123457) % 4000000000000000000,
                   weight = 4611686018427387904 WHERE trace_id = 1;
               UPDATE eevdf_pick SET vruntime = deadline + (id * 7654321098765431) % 4000000000000000000
                   WHERE trace_id = 1"
step_keys step_numberline_vruntime_past_deadline "$T/vr.db" "${STEPS}q\n" 1

exit $fail
