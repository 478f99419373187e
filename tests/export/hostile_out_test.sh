#!/usr/bin/env bash
# Hostile databases and hostile -o targets for the commands that write
# a file from a database: runq plot and runq export (issue 30; the
# promises are in host/base/outfile.h, host/export/plot.h's plot_quote, docs/plot.md
# and docs/perfetto.md).
#
#   plot: every text column plot reads (trace.policy, thread.name,
#     migration.reason, scenario.params and engine, experiment.file, engine, axes and
#     columns, scenario_metric.metric) set to a payload that would run
#     `system "touch $C"` if it reached gnuplot as a command: closing a
#     single quote, a double quote, a backslash before a quote, a newline,
#     a backtick. Each kind drawn: exit 0, no canary file, a well-formed
#     SVG holding each payload as text (so each column did reach the
#     figure), a PNG that is one.
#   export: the same columns plus mark.name, trace.engine and the --db
#     path, each with a newline, a CR and an escape byte before a forged
#     event line: as many event lines as the clean export, no control
#     byte written, the grammar of tests/export/export_check.py.
#   -o: a character device (made with mknod, as root) and a FIFO written
#     in place and left as they were; a symbolic link and a directory
#     refused in one line and left as they were; OUT.tmp planted as a
#     link to a victim file, which stays unchanged; the temp file gone
#     after an error and after SIGTERM; a new OUT readable as the umask
#     says.
#
# usage: tests/export/hostile_out_test.sh [RUNQ]
set -u
cd "$(dirname "$0")/../.."
RUNQ=$(realpath "${1:-build/runq}")
. tests/lib.sh
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp
# the payloads' shell command touches $C: the file must never appear
export C=$T/canary

record_fixtures --cpus 2 --tasks 4 --ms 300

# hostile DB KIND: a copy of f.db at DB with every text column set to
# the payload KIND, tagged by column (p policy of trace 1, r of trace 2,
# n engine, t task names, s scenario params, k marks, g a move's rule
# (the timeline's legend names it); for the experiment: f file, e engine, q a scenario's engine, a the axis,
# x/y its values, v the other parameter, m the metric). The payload has
# no space, comma, dot or '=' (the experiment's columns split at them).
# The payload less its tag in $T/tail.
hostile() {
    cp "$T/f.db" "$1"
    python3 - "$1" "$2" >"$T/tail" <<'EOF'
import sqlite3, sys
db, kind = sys.argv[1], sys.argv[2]
cmd = 'system"touch${IFS}$C"'
tail = {'quote': "';" + cmd + ";#", 'dquote': '";' + cmd + ';#', 'backslash': "\\';" + cmd + ';#',
        'newline': '\n' + cmd, 'backtick': '`touch${IFS}$C`'}[kind]
P = lambda tag: tag + tail
c = sqlite3.connect(db)
c.execute("UPDATE trace SET policy = ?, engine = ? WHERE trace_id = 1", (P('p'), P('n')))
c.execute("UPDATE trace SET policy = ? WHERE trace_id = 2", (P('r'),))
c.execute("UPDATE thread SET name = ? WHERE trace_id = 1 AND NOT is_idle", (P('t'),))
c.execute("UPDATE mark SET name = ?", (P('k'),))
c.execute("INSERT INTO migration (trace_id, ts, utid, src_cpu, dst_cpu, reason, queued) SELECT 1, start_ts + 5000000, "
          "(SELECT MIN(utid) FROM thread WHERE trace_id = 1 AND NOT is_idle), 0, 1, ?, 0 FROM trace WHERE trace_id = 1",
          (P('g'),))
c.execute("INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, params, status) "
          "VALUES (NULL, 0, 0, 1, 1, 'kernel', ?, 'ok')", (P('s'),))
c.execute("INSERT INTO experiment (experiment_id, created, file, engine, axes, cells, repeats, columns) "
          "VALUES (1, 'now', ?, ?, ?, 2, 1, ?)", ('/x/' + P('f') + '.scn', 'sim,' + P('e'), P('a'), 'probe.' + P('m')))
for cell, x in ((0, P('x')), (1, P('y'))):
    sid = c.execute("INSERT INTO scenario (experiment_id, cell, repeat, seed, engine, params, status) "
                    "VALUES (1, ?, 0, 1, ?, ?, 'ok')", (cell, P('q'), P('a') + '=' + x + ' v=' + P('v'))).lastrowid
    c.execute("INSERT INTO scenario_metric VALUES (?, 'probe', ?, ?)", (sid, P('m'), 10.0 + cell))
c.commit()
sys.stdout.write(tail)
EOF
}

# shown PAYLOAD: the payload as a figure shows it, a control byte '?'
shown() { printf '%s' "$1" | tr '\000-\037\177' '?'; }

# svg_texts FILE: every text of the SVG, one a line (a newline in one:
# '?'); "bad ..." when it is not well-formed XML
svg_texts() {
    python3 -c 'import sys, xml.etree.ElementTree as E
try: r = E.parse(sys.argv[1]).getroot()
except Exception as e: sys.exit(print("bad", e))
print("\n".join("".join(t.itertext()).replace("\n", "?") for t in r.iter("{http://www.w3.org/2000/svg}text")))' "$1"
}

# ---- plot: no database text runs as a gnuplot command ----
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIP plot_hostile_text: no gnuplot on PATH (make deps installs gnuplot-nox)"
else
    for kind in quote dquote backslash newline backtick; do
        hostile "$T/h.db" "$kind"
        tail=$(cat "$T/tail")
        t1=$(sq "$T/h.db" "SELECT name FROM thread WHERE trace_id = 1 AND NOT is_idle LIMIT 1")
        # name KIND ARGS TAGS: plot ARGS to an SVG; each tag's payload among its texts
        for run in "timeline|timeline --trace 1|p t g" "latency|latency|s r" \
                   "latency_task|latency --trace 1 --task|t s" "experiment|experiment|f e a x y v m q"; do
            IFS='|' read -r name args tags <<<"$run"
            rm -f "$C"
            # shellcheck disable=SC2086
            if [ "$name" = latency_task ]; then
                runq plot $args "$t1" --db "$T/h.db" -o "$T/h.svg"
            else
                runq plot $args --db "$T/h.db" -o "$T/h.svg"
            fi
            svg_texts "$T/h.svg" >"$T/texts"
            missing=
            for tag in $tags; do
                grep -qF -- "$(shown "$tag$tail")" "$T/texts" || missing="$missing $tag"
            done
            if [ -e "$C" ]; then
                failed "plot_${name}_$kind" "the canary file appeared: database text ran as a gnuplot command"
            elif [ "$rc" != 0 ]; then
                failed "plot_${name}_$kind" "exit $rc: $(head -c 300 "$T/err")"
            elif grep -q '^bad' "$T/texts"; then
                failed "plot_${name}_$kind" "not a well-formed SVG: $(head -c 200 "$T/texts")"
            elif [ -n "$missing" ]; then
                failed "plot_${name}_$kind" "the payload of$missing is not in the figure: $(tr '\n' '|' <"$T/texts" | head -c 400)"
            else
                pass "plot_${name}_$kind"
            fi
        done
    done
    # bytes that are no printable UTF-8 (a C1 control, a stray byte, a
    # sequence cut short) and XML's < and &: '?' each, the SVG well-formed
    cp "$T/f.db" "$T/b.db"
    sq "$T/b.db" "UPDATE thread SET name = 'b<&' || CAST(X'C29BFFC328E282' AS TEXT) || 'z'
                  WHERE trace_id = 1 AND NOT is_idle"
    runq plot timeline --trace 1 --db "$T/b.db" -o "$T/b.svg"
    svg_texts "$T/b.svg" >"$T/texts"
    if [ "$rc" = 0 ] && grep -q '^b<&???(??z (tid [0-9]*)$' "$T/texts"; then pass plot_svg_well_formed_from_any_bytes
    else failed plot_svg_well_formed_from_any_bytes "exit $rc: $(grep -a -e '^bad' -e '^b<' "$T/texts" | head -c 300)"; fi
    # the same database drawn as PNGs: each a PNG, no canary
    for args in "timeline --trace 1" latency experiment; do
        rm -f "$C"
        # shellcheck disable=SC2086
        runq plot $args --db "$T/h.db" -o "$T/h.png"
        if [ "$rc" = 0 ] && [ ! -e "$C" ] && [ "$(head -c 8 "$T/h.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]; then
            pass "plot_png_${args%% *}_backtick"
        else
            failed "plot_png_${args%% *}_backtick" "exit $rc, canary $([ -e "$C" ] && echo yes || echo no): $(head -c 300 "$T/err")"
        fi
    done
fi

# ---- export: no database text starts a line ----
CHECK="python3 tests/export/export_check.py"
# event_lines FILE: lines Perfetto's own pattern reads as events, a line
# ending at a newline or a CR
event_lines() {
    python3 - "$1" <<'EOF'
import re, sys
pat = re.compile(r"-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):")
data = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
print(sum(1 for l in re.split(r'[\r\n]', data) if not l.startswith('#') and pat.search(l)))
EOF
}
"$RUNQ" export --perfetto --db "$T/f.db" --trace 1 -o "$T/clean.systrace" 2>"$T/err" ||
    { failed fixture "clean export: $(head -c 300 "$T/err")"; exit 1; }
want=$(event_lines "$T/clean.systrace")
FORGED='forged-1 (1) [000] ..... 0.100000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=R ==> next_comm=b next_pid=2 next_prio=120'
for byte in nl cr esc; do
    case $byte in nl) b=$'\n' ;; cr) b=$'\r' ;; esc) b=$'\033' ;; esac
    db="$T/x${b}forged.db"
    cp "$T/f.db" "$db"
    python3 - "$db" "$b$FORGED" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
f = sys.argv[2]
c.execute("UPDATE trace SET policy = ?, engine = ?", ('eevdf' + f, 'runq' + f))
c.execute("UPDATE thread SET name = ? || name WHERE NOT is_idle", (f,))
c.execute("UPDATE mark SET name = name || ?", (f,))
c.commit()
EOF
    runq export --perfetto --db "$db" --trace 1 -o "$T/h.systrace"
    got=$(event_lines "$T/h.systrace")
    marks=$(grep -c '|start' "$T/h.systrace")
    if [ "$rc" != 0 ]; then
        failed "export_forged_line_$byte" "exit $rc: $(head -c 300 "$T/err")"
    elif [ "$got" != "$want" ]; then
        failed "export_forged_line_$byte" "$got event lines, the clean export has $want: $(grep -a -n 'forged' "$T/h.systrace" | head -c 300)"
    elif LC_ALL=C grep -q $'[\001-\011\013-\037\177]' "$T/h.systrace"; then
        failed "export_forged_line_$byte" "a control byte written: $(LC_ALL=C grep -n $'[\001-\011\013-\037\177]' "$T/h.systrace" | head -c 200 | od -c | head -3)"
    elif ! $CHECK "$T/h.systrace" "$T/hr" >"$T/check" 2>&1; then
        failed "export_forged_line_$byte" "$(head -n 3 "$T/check")"
    elif [ "$marks" -lt 1 ] || [ "$(grep -c "^# runq export --perfetto: trace 1 of " "$T/h.systrace")" != 1 ]; then
        failed "export_forged_line_$byte" "the mark ($marks) or the header's line is not there"
    else
        pass "export_forged_line_$byte ($got event lines, as clean)"
    fi
    rm -f "$db"
done

# ---- -o: what is not a regular file is written in place or refused ----
runq export --perfetto --db "$T/f.db" --trace 1
cp "$T/out" "$T/want.systrace"
# node_is NAME PATH TEST: PATH still passes test TEST (-c, -p, -L, -d)
if mknod "$T/null" c 1 3 2>/dev/null && mknod "$T/devnull.png" c 1 3 2>/dev/null; then
    runq export --perfetto --db "$T/f.db" --trace 1 -o "$T/null"
    if [ "$rc" = 0 ] && [ -c "$T/null" ] && [ "$(stat -c %t:%T "$T/null")" = 1:3 ]; then pass export_to_char_device_in_place
    else failed export_to_char_device_in_place "exit $rc, now $(stat -c %F "$T/null"): $(head -c 300 "$T/err")"; fi
    if command -v gnuplot >/dev/null 2>&1; then
        runq plot timeline --db "$T/f.db" -o "$T/devnull.png"
        if [ "$rc" = 0 ] && [ -c "$T/devnull.png" ]; then pass plot_to_char_device_in_place
        else failed plot_to_char_device_in_place "exit $rc, now $(stat -c %F "$T/devnull.png"): $(head -c 300 "$T/err")"; fi
    else
        echo "SKIP plot_to_char_device_in_place: no gnuplot on PATH"
    fi
else
    echo "SKIP export_to_char_device_in_place: mknod needs root"
    echo "SKIP plot_to_char_device_in_place: mknod needs root"
fi
mkfifo "$T/fifo" "$T/fifo.svg"
# a reader for each FIFO, bounded: a FIFO replaced by a file gets no writer
timeout 20 cat "$T/fifo" >"$T/fifo.got" &
reader=$!
runq export --perfetto --db "$T/f.db" --trace 1 -o "$T/fifo"
wait "$reader"
if [ "$rc" = 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.got" "$T/want.systrace"; then pass export_to_fifo_in_place
else failed export_to_fifo_in_place "exit $rc, fifo $([ -p "$T/fifo" ] && echo kept || echo replaced), read $(wc -c <"$T/fifo.got") bytes: $(head -c 300 "$T/err")"; fi
if command -v gnuplot >/dev/null 2>&1; then
    timeout 20 cat "$T/fifo.svg" >"$T/fifo.svg.got" &
    reader=$!
    runq plot timeline --db "$T/f.db" --trace 1 -o "$T/fifo.svg"
    wait "$reader"
    if [ "$rc" = 0 ] && [ -p "$T/fifo.svg" ] && grep -qx 'Trace 1 (eevdf, 2 CPUs): who ran, 0 to 20 ms' <(svg_texts "$T/fifo.svg.got"); then
        pass plot_to_fifo_in_place
    else
        failed plot_to_fifo_in_place "exit $rc, fifo $([ -p "$T/fifo.svg" ] && echo kept || echo replaced): $(head -c 300 "$T/err")"
    fi
else
    echo "SKIP plot_to_fifo_in_place: no gnuplot on PATH"
fi
echo "the victim" >"$T/victim"
ln -s "$T/victim" "$T/link.systrace"
ln -s "$T/victim" "$T/link.png"
# refused NAME PATH TEST ARGS...: runq ARGS exits 1 with one line naming
# PATH, and PATH still passes TEST, the victim unchanged
refused() {
    local name=$1 path=$2 test=$3
    shift 3
    runq "$@"
    if [ "$rc" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF "$path" "$T/err" && [ "$test" "$path" ] &&
        [ "$(cat "$T/victim")" = "the victim" ] && [ -z "$(ls "$path".tmp* 2>/dev/null)" ]; then
        pass "$name ($(cut -d: -f2- "$T/err" | head -c 80))"
    else
        failed "$name" "exit $rc, $(stat -c %F "$path"), victim '$(head -c 40 "$T/victim")': $(head -c 300 "$T/err")"
    fi
}
refused export_refuses_symlink "$T/link.systrace" -L export --perfetto --db "$T/f.db" -o "$T/link.systrace"
refused plot_refuses_symlink "$T/link.png" -L plot timeline --db "$T/f.db" -o "$T/link.png"
mkdir "$T/dir.systrace" "$T/dir.png"
refused export_refuses_directory "$T/dir.systrace" -d export --perfetto --db "$T/f.db" -o "$T/dir.systrace"
refused plot_refuses_directory "$T/dir.png" -d plot timeline --db "$T/f.db" -o "$T/dir.png"

# ---- the temp file: never a name someone planted, gone after a failure ----
ln -s "$T/victim" "$T/o.systrace.tmp"
runq export --perfetto --db "$T/f.db" --trace 1 -o "$T/o.systrace"
if [ "$rc" = 0 ] && [ "$(cat "$T/victim")" = "the victim" ] && [ -L "$T/o.systrace.tmp" ] && [ -f "$T/o.systrace" ] &&
    [ ! -L "$T/o.systrace" ] && cmp -s "$T/o.systrace" "$T/want.systrace"; then
    pass export_planted_tmp_link_not_followed
else
    failed export_planted_tmp_link_not_followed "exit $rc, victim now '$(head -c 40 "$T/victim")', OUT $(stat -c %F "$T/o.systrace" 2>&1)"
fi
ln -s "$T/victim" "$T/o.png.tmp"
if command -v gnuplot >/dev/null 2>&1; then
    runq plot timeline --db "$T/f.db" -o "$T/o.png"
    if [ "$rc" = 0 ] && [ "$(cat "$T/victim")" = "the victim" ] && [ -L "$T/o.png.tmp" ] && [ -f "$T/o.png" ] &&
        [ ! -L "$T/o.png" ]; then
        pass plot_planted_tmp_link_not_followed
    else
        failed plot_planted_tmp_link_not_followed "exit $rc, victim now '$(head -c 40 "$T/victim")', OUT $(stat -c %F "$T/o.png" 2>&1)"
    fi
else
    echo "SKIP plot_planted_tmp_link_not_followed: no gnuplot on PATH"
fi
mkdir "$T/exp"
ln -s "$T/victim" "$T/exp/trace-1.systrace.tmp"
sq "$T/f.db" "INSERT INTO experiment (experiment_id, created, engine, cells, repeats) VALUES (7, 'now', 'kernel', 1, 1);
              INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, status) VALUES (7, 0, 0, 1, 1, 'kernel', 'ok')"
runq export --perfetto --db "$T/f.db" --experiment 7 -o "$T/exp"
if [ "$rc" = 0 ] && [ "$(cat "$T/victim")" = "the victim" ] && cmp -s "$T/exp/trace-1.systrace" "$T/want.systrace"; then
    pass export_experiment_planted_tmp_link_not_followed
else
    failed export_experiment_planted_tmp_link_not_followed "exit $rc, victim now '$(head -c 40 "$T/victim")': $(head -c 300 "$T/err")"
fi
echo "a file" >"$T/notdir"
expect export_experiment_needs_a_directory 1 "is not a directory" export --perfetto --db "$T/f.db" --experiment 7 -o "$T/notdir"
(umask 027 && "$RUNQ" export --perfetto --db "$T/f.db" --trace 1 -o "$T/mode.systrace" 2>"$T/err")
if [ "$(stat -c %a "$T/mode.systrace" 2>&1)" = 640 ]; then pass new_out_mode_by_umask
else failed new_out_mode_by_umask "mode $(stat -c %a "$T/mode.systrace" 2>&1) under umask 027, want 640"; fi

# a failed export: neither OUT nor a temp file left
mkdir "$T/fail"
cp "$T/f.db" "$T/bad.db"
sq "$T/bad.db" "UPDATE sched_slice SET dur = dur + 1000000 WHERE id = (SELECT MIN(id) FROM sched_slice WHERE trace_id = 1 AND end_reason = 'preempt')"
runq export --perfetto --db "$T/bad.db" --trace 1 -o "$T/fail/o.systrace"
if [ "$rc" = 1 ] && [ -z "$(ls -A "$T/fail")" ]; then pass export_failure_leaves_no_file
else failed export_failure_leaves_no_file "exit $rc, left: $(ls -A "$T/fail")"; fi

# SIGTERM while gnuplot writes: the temp file goes with runq. A fake
# gnuplot writes half a figure and waits to be killed.
mkdir -p "$T/fakebin" "$T/sig"
cat >"$T/fakebin/gnuplot" <<EOF
#!/bin/sh
echo \$\$ >"$T/gp.pid"
printf 'half a fig'
exec sleep 30
EOF
chmod +x "$T/fakebin/gnuplot"
PATH=$T/fakebin:$PATH "$RUNQ" plot timeline --db "$T/f.db" -o "$T/sig/o.png" >/dev/null 2>"$T/err" &
plotter=$!
tmp_written() { [ -s "$T/gp.pid" ] && [ -n "$(ls "$T/sig")" ] && [ "$(cat "$T/sig"/* 2>/dev/null)" = "half a fig" ]; }
if eventually tmp_written; then
    kill -TERM "$plotter"
    wait "$plotter"
    rc=$?
    kill "$(cat "$T/gp.pid")" 2>/dev/null
    if [ "$rc" = 143 ] && [ -z "$(ls -A "$T/sig")" ]; then pass sigterm_removes_temp_file
    else failed sigterm_removes_temp_file "exit $rc, left: $(ls -A "$T/sig")"; fi
else
    kill "$plotter" 2>/dev/null
    [ -s "$T/gp.pid" ] && kill "$(cat "$T/gp.pid")" 2>/dev/null
    failed sigterm_removes_temp_file "the fake gnuplot's half figure never showed in $T/sig: $(ls -A "$T/sig")"
fi


# ---- hostile numbers, and text in plot's messages (db_fuzz's findings) ----

# hostile_num NAME ARGS...: runq ARGS under the sanitizers (a report exits
# 86) within 30 s: exit 0-2, no sanitizer report, no ESC on stdout or stderr.
hostile_num() {
    local name=$1 rc
    shift
    ASAN_OPTIONS=exitcode=86 UBSAN_OPTIONS=exitcode=86:print_stacktrace=1 timeout -k 2 30 "$RUNQ" "$@" \
        >"$T/hn.out" 2>"$T/hn.err"
    rc=$?
    if [ $rc -gt 2 ] || grep -aq 'runtime error\|AddressSanitizer' "$T/hn.err"; then
        failed "$name" "exit $rc: $(grep -am2 'runtime error\|ERROR' "$T/hn.err" | cut -c1-200)"
    elif grep -aq $'\x1b' "$T/hn.out" "$T/hn.err"; then
        failed "$name" "ESC on the terminal: $(grep -ahm1 $'\x1b' "$T/hn.out" "$T/hn.err" | cat -v | cut -c1-200)"
    else
        pass "$name"
    fi
}

# export: a data gap on CPU 2^63-1 (its pid was PF_GAP_PID + cpu, an overflow)
cp "$T/f.db" "$T/gap.db"
sqlite3 "$T/gap.db" "INSERT INTO data_gap SELECT 1, 9223372036854775807, start_ts + 1000, start_ts + 2000, 1, 1, 0
                     FROM trace WHERE trace_id = 1"
hostile_num export_of_a_gap_on_cpu_int64_max export --perfetto --db "$T/gap.db" --trace 1 -o "$T/gap.systrace"

if command -v gnuplot >/dev/null &&
    "$RUNQ" experiment --engine sim --repeat 2 --quiet --vary hog.slice=1ms,2ms --vary run=100ms \
        --db "$T/xp.db" scenarios/slice-beat.scn >/dev/null 2>&1; then
    # cells at both ends of int: plot's order of points subtracted them
    cp "$T/xp.db" "$T/xc.db"
    # each cell's two repeats become two cells of the same x, at both ends
    sqlite3 "$T/xc.db" "UPDATE scenario SET cell = CASE WHEN repeat = 0 THEN 2147483647 - cell ELSE -2147483648 + cell END"
    hostile_num plot_experiment_of_cells_at_int_limits plot experiment --db "$T/xc.db" -o "$T/xc.png"
    # an experiment's axes and columns are its database's text, quoted in
    # plot's messages: shown, not sent to the terminal
    cp "$T/xp.db" "$T/xa.db"
    sqlite3 "$T/xa.db" "UPDATE experiment SET axes = char(27) || '[2J,' || axes,
                                              columns = columns || ',' || char(27) || '[2J.x'"
    hostile_num plot_shows_an_experiments_axes_visibly plot experiment --db "$T/xa.db" --x nosuch -o "$T/xa.png"
    grep -q 'does not vary' "$T/hn.err" || failed plot_says_the_axis_is_not_varied "$(head -c 300 "$T/hn.err")"
    hostile_num plot_shows_an_experiments_columns_visibly plot experiment --db "$T/xa.db" --metric nosuch.x \
        -o "$T/xa.png"
    grep -q 'has no metric' "$T/hn.err" || failed plot_says_there_is_no_such_metric "$(head -c 300 "$T/hn.err")"
else
    echo "SKIP plot experiment on hostile numbers: no gnuplot, or no experiment recorded"
fi

exit $fail
