#!/usr/bin/env bash
# runq plot (host/export/plot.c, host/export/plot_kinds.c, docs/plot.md): each kind drawn
# from fixture databases, in PNG and in SVG, and read back:
#   - a PNG's magic bytes, IHDR size as asked, IEND, a plausible size;
#   - an SVG parsed by python3's XML parser, its size as asked, its title,
#     and its legend: gnuplot writes one <g id="gnuplot_plot_N"> a series,
#     its legend text first, then its marks, so a series' name and its
#     box or point count are read there and compared with the same
#     numbers from SQL on the database;
#   - a data gap drawn as a "lost" series and label, not left empty;
#   - the errors: no gnuplot on PATH, a trace or metric the database lacks,
#     an unknown kind, a bad -o, a flag of another kind; a gnuplot that
#     fails halfway leaves OUT as it was and no temp file; no temp directory
#     is left behind.
# SKIP when gnuplot is not installed (make deps installs gnuplot-nox).
#
# usage: tests/export/plot_test.sh [RUNQ]
set -u
cd "$(dirname "$0")/../.."
RUNQ=$(realpath "${1:-build/runq}")
. tests/lib.sh

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIP plot: no gnuplot on PATH (make deps installs gnuplot-nox)"
    exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP plot: no python3 to read the figures back"; exit 0; }

# Every plot runs with its own TMPDIR, so that what it leaves there shows.
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp

# ---- fixtures ----
# f.db: trace 1 EEVDF, trace 2 round robin, of one workload; trace 1 is
# given a scenario row, so its label is its parameters. g.db: a round
# robin trace whose CPU 1 dropped records half-way (a data gap). d.db: the
# EEVDF trace twice (one label, told apart by id). x.db: seed 000's slice
# beat on paper, 2 repeats (probe.jitter x hog.slice).
record_fixtures --cpus 2 --tasks 4 --ms 300
sq "$T/f.db" "INSERT INTO scenario (experiment_id, cell, repeat, seed, trace_id, engine, params, status)
              VALUES (NULL, 0, 0, 1, 1, 'kernel', 'hog.slice=2ms', 'ok')" ||
    { failed fixture "could not add the scenario row"; exit 1; }
"$GEN" --policy rr --cpus 2 --tasks 4 --ms 300 --ring-drop 50 --out "$T/g.bin" &&
    "$RUNQ" record --file "$T/g.bin" --db "$T/g.db" >/dev/null 2>&1 &&
    "$RUNQ" record --file "$T/e.bin" --db "$T/d.db" >/dev/null 2>&1 &&
    "$RUNQ" record --file "$T/e.bin" --db "$T/d.db" >/dev/null 2>&1 &&
    "$RUNQ" experiment --engine sim --repeat 2 --db "$T/x.db" scenarios/slice-beat.scn >/dev/null 2>&1 ||
    { failed fixture "could not make the gap, duplicate or experiment databases"; exit 1; }
[ "$(sq "$T/g.db" "SELECT COUNT(*) FROM data_gap")" -ge 1 ] || { failed fixture "g.db has no data gap"; exit 1; }

# ---- readers ----
# png FILE W H: "ok" if FILE is a whole PNG of W x H, else why not.
png() {
    python3 - "$@" <<'EOF'
import struct, sys
f, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    b = open(f, 'rb').read()
except OSError as e:
    print('cannot read it:', e.strerror); sys.exit()
if b[:8] != b'\x89PNG\r\n\x1a\n': print('no PNG magic'); sys.exit()
if b[12:16] != b'IHDR': print('no IHDR first'); sys.exit()
gw, gh = struct.unpack('>II', b[16:24])
if (gw, gh) != (w, h): print('IHDR says %dx%d, asked %dx%d' % (gw, gh, w, h)); sys.exit()
if b[-8:-4] != b'IEND': print('no IEND: cut short'); sys.exit()
if not 3000 < len(b) < 5000000: print('implausible size %d bytes' % len(b)); sys.exit()
print('ok')
EOF
}

# svg FILE: the figure as lines, or "bad ..." if it is not well-formed:
#   size W H
#   text T                      every text, in order
#   series PANEL NAME MARKS     one a gnuplot_plot group: its legend text
#                               and its marks (boxes, points, less the
#                               legend's sample)
svg() {
    python3 - "$1" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
try:
    r = ET.parse(sys.argv[1]).getroot()
except Exception as e:
    print('bad', e); sys.exit()
ns = '{http://www.w3.org/2000/svg}'
print('size', r.get('width'), r.get('height'))
for t in r.iter(ns + 'text'):
    print('text', (t.text or '').strip())
# a multiplot's panels are suffixed: gnuplot_plot_1a, 2a, ..., 1b, ...
for g in r.iter(ns + 'g'):
    m = re.fullmatch(r'gnuplot_plot_(\d+)([a-z]?)', g.get('id', ''))
    if not m:
        continue
    panel = ord(m.group(2)) - ord('a') + 1 if m.group(2) else 1
    texts = [(t.text or '').strip() for t in g.iter(ns + 'text')]
    marks = len(list(g.iter(ns + 'polygon'))) + len(list(g.iter(ns + 'use'))) - 1
    print('series', panel, texts[0] if texts else '', marks, sep='\t')
    fills = [p.get('fill') for p in g.iter(ns + 'polygon') if p.get('fill')]
    if fills and texts:
        print('fill', texts[0], re.sub(r'\s', '', fills[0]), sep='\t')
EOF
}

# has NAME FILE LINE: FILE holds LINE exactly.
has() {
    if grep -qxF -- "$3" "$2"; then pass "$1"; else failed "$1" "no line '$3' in: $(head -c 600 "$2" | tr '\n' '|')"; fi
}

# same NAME FILE_GOT FILE_WANT
same() {
    if diff "$3" "$2" >"$T/diff"; then pass "$1"; else failed "$1" "$(tr '\n' '|' <"$T/diff" | head -c 600)"; fi
}

# ---- timeline ----
for ext in png svg; do
    expect "timeline_$ext" 0 "" plot timeline --db "$T/f.db" --trace 1 --size 1000x400 -o "$T/tl.$ext"
done
has timeline_png_valid <(png "$T/tl.png" 1000 400) ok
svg "$T/tl.svg" >"$T/tl.txt"
has timeline_svg_size "$T/tl.txt" "size 1000 400"
# no probe in this trace: the default window is its first 20 ms
has timeline_title "$T/tl.txt" "text Trace 1 (eevdf, 2 CPUs): who ran, 0 to 20 ms"
# one series a task that ran in the window, its boxes its slices there;
# the slices narrower than 4 pixels again, drawn that wide on top (the
# legend says the width); the wakeups, then the decisions in the window;
# no gap in this trace, so no "lost"
W="s.trace_id = 1 AND s.dur > 0 AND s.ts < 20000000 AND s.ts + s.dur > 0"
NARROW=$(sed -n 's/^series\t1\tslices under \([0-9.e-]*\) ms, drawn that wide\t.*/\1/p' "$T/tl.txt")
{
    sq -separator $'\t' "$T/f.db" "SELECT 'series', 1, t.name, COUNT(*) FROM sched_slice s JOIN thread t USING (utid)
                                   WHERE $W AND NOT t.is_idle GROUP BY t.utid ORDER BY t.utid"
    sq -separator $'\t' "$T/f.db" "SELECT 'series', 1, 'slices under ${NARROW:-?} ms, drawn that wide', COUNT(*)
                                   FROM sched_slice s JOIN thread t USING (utid) WHERE $W AND NOT t.is_idle
                                   AND MIN(s.ts + s.dur, 20000000) - MAX(s.ts, 0) < ${NARROW:-0} * 1e6 HAVING COUNT(*) > 0"
    sq -separator $'\t' "$T/f.db" "SELECT 'series', 1, 'wakeup (on the wakee''s CPU)', COUNT(*) FROM wakeup
                                   WHERE trace_id = 1 AND ts_wake < 20000000 AND cpu IS NOT NULL"
    sq -separator $'\t' "$T/f.db" "SELECT 'series', 1, 'decision (a pick)', COUNT(*) FROM eevdf_pick
                                   WHERE trace_id = 1 AND ts < 20000000"
} >"$T/want"
grep '^series' "$T/tl.txt" >"$T/got"
if [ -n "$NARROW" ]; then same timeline_one_series_a_task "$T/got" "$T/want"
else failed timeline_one_series_a_task "no narrow slices' series in: $(grep '^series' "$T/tl.txt" | tr '\n\t' '| ')"; fi
# a task's colour comes from its name: the first task drawn (nothing taken
# yet) has the colour its name picks, in trace 1's figure and in trace
# 2's (the round robin's, the same workload)
expect timeline_rr_svg 0 "" plot timeline --db "$T/f.db" --trace 2 --size 1000x400 -o "$T/tl2.svg"
svg "$T/tl2.svg" >"$T/tl2.txt"
name_colour() { # NAME: the palette's colour for it (plot_kinds.c's tl_palette, by its hash)
    python3 -c '
import sys
pal = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
       "#bcbd22", "#17becf", "#393b79", "#7b4173", "#6b6ecf", "#ad494a"]
h = 5381
for b in sys.argv[1].encode():
    h = (h * 33 + b) % (1 << 64)
c = pal[h % len(pal)]
print("rgb(%d,%d,%d)" % (int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)))' "$1"
}
first=$(sed -n 's/^fill\t\([^\t]*\)\t.*/\1/p' "$T/tl.txt" | head -n 1)
want="$(printf 'fill\t%s\t%s' "$first" "$(name_colour "${first% (tid *}")")"
if [ -n "$first" ] && grep -qxF "$want" "$T/tl.txt" && grep -qxF "$want" "$T/tl2.txt"; then
    pass "timeline_colour_by_name ($first)"
else
    failed timeline_colour_by_name "want '$want' in both: $(grep '^fill' "$T/tl.txt" "$T/tl2.txt" | tr '\n\t' '| ')"
fi
# a CPU with nothing in the window gets no lane; the y label names it
"$GEN" --cpus 4 --tasks 2 --ms 100 --out "$T/l.bin" && "$RUNQ" record --file "$T/l.bin" --db "$T/l.db" >/dev/null 2>&1 ||
    failed timeline_lanes "could not make the 4-CPU fixture"
expect timeline_lanes_svg 0 "" plot timeline --db "$T/l.db" -o "$T/l.svg"
svg "$T/l.svg" >"$T/l.txt"
busy=$(sq "$T/l.db" "SELECT group_concat(cpu, ' ') FROM (SELECT DISTINCT s.cpu FROM sched_slice s JOIN thread t USING (utid)
                      WHERE NOT t.is_idle AND s.dur > 0 AND s.ts < 20000000 ORDER BY s.cpu)")
got=$(sed -n 's/^text CPU \([0-9]*\)$/\1/p' "$T/l.txt" | tr '\n' ' ')
if [ "$got" = "$busy " ] && [ "$busy" != "0 1 2 3" ] && grep -q '^text CPU (nothing on ' "$T/l.txt"; then
    pass "timeline_lanes_only_busy_cpus (lanes: $busy)"
else
    failed timeline_lanes_only_busy_cpus "lanes '$got', want '$busy ' and a y label naming the others"
fi
# the default window opens 5 ms before the probe's first stall: the first
# wakeup of a task called probe (here one of f.db's, renamed) that waited
# 1 ms or more
cp "$T/f.db" "$T/p.db"
sq "$T/p.db" "UPDATE thread SET name = 'probe' WHERE utid = (SELECT w.utid FROM wakeup w WHERE w.trace_id = 1
              AND w.latency >= 1000000 AND w.ts_wake > 30000000 ORDER BY w.ts_wake LIMIT 1)"
x0=$(sq "$T/p.db" "SELECT (MIN(w.ts_wake) - 5000000 - tr.start_ts) / 1e6 FROM wakeup w JOIN thread t USING (utid)
                   JOIN trace tr ON tr.trace_id = w.trace_id WHERE w.trace_id = 1 AND t.name = 'probe' AND w.latency >= 1000000")
expect timeline_probe_svg 0 "" plot timeline --db "$T/p.db" --trace 1 -o "$T/p.svg"
svg "$T/p.svg" >"$T/p.txt"
want=$(awk -v a="$x0" 'BEGIN { printf "text Trace 1 (eevdf, 2 CPUs): who ran, %g to %g ms", a, a + 20 }')
has timeline_window_at_first_stall "$T/p.txt" "$want"

# a data gap is drawn hatched and labelled, never as idle: a "lost"
# series with one box a gap in the window, and a "lost" label on each
G0=$(sq "$T/g.db" "SELECT MIN(ts_start) / 1000000 - 10 FROM data_gap")
G1=$(sq "$T/g.db" "SELECT MAX(ts_end) / 1000000 + 10 FROM data_gap")
expect timeline_gap_svg 0 "" plot timeline --db "$T/g.db" --from "$G0" --to "$G1" -o "$T/gap.svg"
svg "$T/gap.svg" >"$T/gap.txt"
NGAPS=$(sq "$T/g.db" "SELECT COUNT(*) FROM data_gap WHERE ts_start < ${G1}000000 AND ts_end > ${G0}000000")
has timeline_gap_drawn "$T/gap.txt" "$(printf 'series\t1\tlost (data gap: not idle, unknown)\t%d' "$NGAPS")"
if [ "$(grep -cxF 'text lost' "$T/gap.txt")" = "$NGAPS" ]; then pass timeline_gap_labelled
else failed timeline_gap_labelled "want $NGAPS 'lost' labels, got $(grep -cxF 'text lost' "$T/gap.txt")"; fi
# and no task's box reaches into a gap: each box count is its slices,
# none of which overlap a gap (the recorder ends them at its start)
{
    sq -separator $'\t' "$T/g.db" "SELECT 'series', 1, t.name, COUNT(*) FROM sched_slice s JOIN thread t USING (utid)
        WHERE s.dur > 0 AND s.ts < ${G1}000000 AND s.ts + s.dur > ${G0}000000 AND NOT t.is_idle
        AND NOT EXISTS (SELECT 1 FROM data_gap g WHERE g.cpu = s.cpu AND s.ts < g.ts_end AND s.ts + s.dur > g.ts_start)
        GROUP BY t.utid ORDER BY t.utid"
} >"$T/want"
grep '^series' "$T/gap.txt" | grep -v -e 'wakeup (' -e 'lost (' -e 'decision (' -e 'slices under' >"$T/got"
same timeline_gap_not_slices "$T/got" "$T/want"

# ---- moves: an arrow a move, from its source CPU's lane to its destination's ----
# m.db: trace_gen's RT releases, one in two moving the released task to
# the other CPU (MIGRATE rt_release); the first three moves renamed
# newidle, so that there are two rules. A gnuplot on PATH that keeps its
# script and data files (then runs the real one) shows what the script
# says: one `with vectors` series a rule, in the order the rules first
# come, each from lane(src) to lane(dst), its data the rule's moves in the
# window as SQL has them (time in ms from the trace's start, src, dst);
# the SVG's legend names each rule with its count, and draws that many
# arrow heads. f.db's trace has no move: no vectors, no "move:" series.
"$GEN" --cpus 2 --tasks 4 --ms 300 --rt 2 --migrate 2 --out "$T/m.bin" &&
    "$RUNQ" record --file "$T/m.bin" --db "$T/m.db" >/dev/null 2>&1 &&
    sq "$T/m.db" "UPDATE migration SET reason = 'newidle' WHERE id IN (SELECT id FROM migration ORDER BY ts, id LIMIT 3)" ||
    failed timeline_moves "could not make the fixture with moves"
REAL_GNUPLOT=$(command -v gnuplot)
mkdir -p "$T/keepbin" "$T/keep"
printf '#!/bin/sh\nrm -f "$KEEP"/*\ncp "$1" "$KEEP/plot.gp" && cp ./*.dat "$KEEP/" && exec %s "$@"\n' "$REAL_GNUPLOT" >"$T/keepbin/gnuplot"
chmod +x "$T/keepbin/gnuplot"
keep_plot() { KEEP=$T/keep PATH=$T/keepbin:$PATH "$RUNQ" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
keep_plot plot timeline --db "$T/m.db" --trace 1 -o "$T/m.svg"
[ "$rc" = 0 ] || failed timeline_moves "exit $rc: $(head -c 300 "$T/err")"
M="trace_id = 1 AND ts < (SELECT start_ts FROM trace WHERE trace_id = 1) + 20000000"
sq -separator $'\t' "$T/m.db" "SELECT 'move: ' || reason || ' (' || COUNT(*) || ')' FROM migration WHERE $M
                               GROUP BY reason ORDER BY MIN(ts)" >"$T/want"
nmoves=$(sq "$T/m.db" "SELECT COUNT(*) FROM migration WHERE $M")
# the script's vectors series: title, then the rule's data file
grep 'with vectors' "$T/keep/plot.gp" | sed -n "s/^.*'\(d[0-9]*\.dat\)' using 1:(lane(\$2)):(0):(lane(\$3)-lane(\$2)) with vectors .* title '\([^']*\)'.*$/\2\t\1/p" >"$T/vec"
cut -f 1 "$T/vec" >"$T/got"
if [ "$nmoves" -ge 4 ] && [ "$(wc -l <"$T/want")" = 2 ] && diff "$T/want" "$T/got" >"$T/diff" &&
    [ "$(grep -c 'with vectors' "$T/keep/plot.gp")" = 2 ]; then
    pass "timeline_moves_one_vectors_series_a_rule ($nmoves moves)"
else
    failed timeline_moves_one_vectors_series_a_rule "want $(tr '\n' '|' <"$T/want"), script has $(grep 'with vectors' "$T/keep/plot.gp" | tr '\n' '|' | head -c 400)"
fi
# each rule's data: the moves' times and endpoints, as SQL has them
bad=
while IFS=$'\t' read -r title file; do
    rule=${title#move: }
    rule=${rule% (*}
    sq "$T/m.db" "SELECT printf('%.6f %d %d', (ts - (SELECT start_ts FROM trace WHERE trace_id = 1)) / 1e6, src_cpu, dst_cpu)
                  FROM migration WHERE $M AND reason = '$rule' ORDER BY ts, id" >"$T/want"
    diff "$T/want" "$T/keep/$file" >"$T/diff" || bad="$bad $rule: $(tr '\n' '|' <"$T/diff" | head -c 300)"
done <"$T/vec"
if [ -s "$T/vec" ] && [ -z "$bad" ]; then pass timeline_moves_times_and_endpoints; else failed timeline_moves_times_and_endpoints "${bad:-no vectors}"; fi
svg "$T/m.svg" | grep -P '^series\t1\tmove: ' | cut -f 3,4 >"$T/got"
sq -separator $'\t' "$T/m.db" "SELECT 'move: ' || reason || ' (' || COUNT(*) || ')', COUNT(*) FROM migration WHERE $M
                               GROUP BY reason ORDER BY MIN(ts)" >"$T/want"
same timeline_moves_arrows_in_the_svg "$T/got" "$T/want"
keep_plot plot timeline --db "$T/f.db" --trace 1 -o "$T/nm.svg"
if [ "$rc" = 0 ] && [ "$(sq "$T/f.db" "SELECT COUNT(*) FROM migration")" = 0 ] && [ -s "$T/keep/plot.gp" ] &&
    ! grep -q 'with vectors' "$T/keep/plot.gp" && ! svg "$T/nm.svg" | grep -q 'move:'; then
    pass timeline_no_moves_no_arrows
else
    failed timeline_no_moves_no_arrows "exit $rc; vectors: $(grep -c 'with vectors' "$T/keep/plot.gp")"
fi

# ---- latency ----
for ext in png svg; do
    expect "latency_$ext" 0 "" plot latency --db "$T/f.db" --size 800x900 -o "$T/lat.$ext"
done
has latency_png_valid <(png "$T/lat.png" 800 900) ok
svg "$T/lat.svg" >"$T/lat.txt"
has latency_svg_size "$T/lat.txt" "size 800 900"
has latency_title "$T/lat.txt" "text Wake latency (wake to run): hog.slice=2ms vs rr"
# both traces on one set of axes in each panel (histogram, CDF), each
# named by its label: trace 1 by its scenario's parameters, trace 2 by
# its policy; with its wakeups that ran
N1=$(sq "$T/f.db" "SELECT COUNT(*) FROM wakeup WHERE trace_id = 1 AND latency IS NOT NULL")
N2=$(sq "$T/f.db" "SELECT COUNT(*) FROM wakeup WHERE trace_id = 2 AND latency IS NOT NULL")
grep '^series' "$T/lat.txt" | cut -f 1-3 >"$T/got"
printf 'series\t%d\t%s\n' 1 "hog.slice=2ms ($N1 wakeups)" 1 "rr ($N2 wakeups)" 2 "hog.slice=2ms ($N1 wakeups)" \
    2 "rr ($N2 wakeups)" >"$T/want"
same latency_one_series_a_trace "$T/got" "$T/want"
expect latency_cdf_svg 0 "" plot latency --db "$T/f.db" --trace 2 --cdf --task io1 -o "$T/cdf.svg"
svg "$T/cdf.svg" >"$T/cdf.txt"
NIO=$(sq "$T/f.db" "SELECT COUNT(*) FROM wakeup w JOIN thread t USING (utid)
                    WHERE w.trace_id = 2 AND t.name = 'io1' AND w.latency IS NOT NULL")
grep '^series' "$T/cdf.txt" | cut -f 1-3 >"$T/got"
printf 'series\t1\trr (%d wakeups)\n' "$NIO" >"$T/want"
same latency_cdf_one_task "$T/got" "$T/want"
has latency_cdf_title "$T/cdf.txt" "text Wake latency (wake to run) of io1: rr"
expect latency_dup_labels 0 "" plot latency --db "$T/d.db" -o "$T/dup.svg"
svg "$T/dup.svg" | grep "^series$(printf '\t')1" | cut -f 3 | sed 's/ ([0-9]* wakeups)$//' >"$T/got"
printf 'eevdf (trace 1)\neevdf (trace 2)\n' >"$T/want"
same latency_dup_labels_by_id "$T/got" "$T/want"

# ---- experiment ----
for ext in png svg; do
    expect "experiment_$ext" 0 "" plot experiment --db "$T/x.db" --metric probe.stall --x hog.slice \
        --size 900x500 -o "$T/xp.$ext"
done
has experiment_png_valid <(png "$T/xp.png" 900 500) ok
svg "$T/xp.svg" >"$T/xp.txt"
has experiment_svg_size "$T/xp.txt" "size 900 500"
has experiment_title "$T/xp.txt" "text Experiment 1 (slice-beat.scn, engine sim): probe.stall against hog.slice"
has experiment_xlabel "$T/xp.txt" "text hog.slice (ms)"
# one series a value of the other axis, a point a cell
sq -separator $'\t' "$T/x.db" "SELECT 'series', 1, substr(params, 1, instr(params, ' ') - 1), COUNT(DISTINCT cell)
    FROM scenario WHERE experiment_id = 1 AND status = 'ok' GROUP BY 3 ORDER BY MIN(cell)" >"$T/want"
grep '^series' "$T/xp.txt" >"$T/got"
same experiment_one_series_an_axis_value "$T/got" "$T/want"

# A disturbed run is left out of its cell where the cell has a clean run,
# in the figure as in the table (dbq_experiment_used_runs): cell 0's second
# run marked disturbed with a stall share of 90 % moves neither. (Before,
# the plot averaged every run that succeeded: its y axis reached 50 %.)
cp "$T/x.db" "$T/xd.db"
sq "$T/xd.db" "UPDATE scenario SET disturbed = 1 WHERE experiment_id = 1 AND cell = 0 AND repeat = 1;
    UPDATE scenario_metric SET value = 0.9 WHERE metric = 'stall' AND task = 'probe' AND scenario_id =
    (SELECT scenario_id FROM scenario WHERE experiment_id = 1 AND cell = 0 AND repeat = 1)" >/dev/null
expect experiment_disturbed_svg 0 "" plot experiment --db "$T/xd.db" --metric probe.stall --x hog.slice -o "$T/xd.svg"
ymax=$(svg "$T/xd.svg" | awk '$1 == "text" && $2 ~ /^[0-9.]+$/ { if ($2 + 0 > m) m = $2 + 0 } END { print m + 0 }')
table=$("$RUNQ" report experiment --db "$T/xd.db" 2>&1 | grep -c 'disturbed left out')
if awk -v m="$ymax" 'BEGIN { exit !(m > 0 && m < 20) }' && [ "$table" = 1 ]; then
    pass "experiment_plot_leaves_out_disturbed_runs_as_the_table (y axis to $ymax %)"
else
    failed experiment_plot_leaves_out_disturbed_runs_as_the_table "y axis to $ymax %; table rows saying left out: $table"
fi

# ---- errors ----
mkdir -p "$T/nognuplot"
runq_nopath() { PATH=$T/nognuplot "$RUNQ" "$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?; }
runq_nopath plot timeline --db "$T/f.db" -o "$T/none.png"
if [ "$rc" = 1 ] && grep -qF "make deps" "$T/err" && grep -qF "apt-get install -y gnuplot-nox" "$T/err" &&
    [ "$(wc -l <"$T/err")" = 1 ] && [ ! -e "$T/none.png" ]; then
    pass no_gnuplot
else
    failed no_gnuplot "exit $rc: $(head -c 300 "$T/err")"
fi
expect unknown_trace 1 "no trace 99 in" plot timeline --db "$T/f.db" --trace 99 -o "$T/e.png"
expect unknown_trace_latency 1 "no trace 99 in" plot latency --db "$T/f.db" --trace 1 --trace 99 -o "$T/e.png"
expect unknown_kind 2 "no kind 'pie'" plot pie --db "$T/f.db"
expect no_kind 2 "name a kind" plot
expect unknown_metric 1 "experiment 1 has no metric probe.nope" plot experiment --db "$T/x.db" --metric probe.nope
expect unknown_axis 1 "does not vary probe.nice" plot experiment --db "$T/x.db" --x probe.nice
expect too_many_series 1 "plot against another axis with --x" plot experiment --db "$T/x.db"
expect no_experiment 1 "holds no experiment" plot experiment --db "$T/f.db"
expect unknown_task 1 "no wakeup that ran of a task called 'nobody'" plot latency --db "$T/f.db" --task nobody
expect bad_extension 2 "ending .png or .svg" plot timeline --db "$T/f.db" -o "$T/fig.jpg"
expect flag_of_another_kind 2 "unknown flag '--metric'; see runq plot timeline --help" plot timeline --db "$T/f.db" --metric probe.stall
expect empty_window 2 "the window is empty" plot timeline --db "$T/f.db" --from 50 --to 20
expect bad_size 2 "--size takes WIDTHxHEIGHT in pixels" plot timeline --db "$T/f.db" --size 10x10
expect help 0 "" plot --help
stdout_has help_lists_kinds "timeline   who ran on each CPU"
[ -e "$T/e.png" ] && failed error_writes_nothing "a failed plot left $T/e.png" || pass error_writes_nothing

# A gnuplot that writes half a figure (to its stdout, which is the temp
# file beside OUT) and fails: OUT stays as it was, the temp file goes.
mkdir -p "$T/fakebin"
cat >"$T/fakebin/gnuplot" <<'EOF'
#!/bin/sh
printf 'half a fig'
echo '"plot.gp" line 9: out of ink' >&2
exit 1
EOF
chmod +x "$T/fakebin/gnuplot"
echo "the old figure" >"$T/kept.png"
PATH=$T/fakebin:$PATH "$RUNQ" plot timeline --db "$T/f.db" -o "$T/kept.png" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(cat "$T/kept.png")" = "the old figure" ] && [ -z "$(ls "$T"/kept.png.tmp* 2>/dev/null)" ] &&
    grep -qF "gnuplot failed (exit 1): \"plot.gp\" line 9: out of ink" "$T/err"; then
    pass failed_gnuplot_keeps_out
else
    failed failed_gnuplot_keeps_out "exit $rc, OUT now '$(head -c 40 "$T/kept.png")', tmp $(ls "$T"/kept.png* | tr '\n' ' '): $(head -c 300 "$T/err")"
fi

if [ -z "$(ls -A "$T/tmp")" ]; then pass no_temp_left; else failed no_temp_left "left in TMPDIR: $(ls "$T/tmp")"; fi
exit $fail
