#!/bin/sh
# tests/tui/top_tmux.sh [runq]: runq top in a detached tmux session, driven by
# keys, its screen read with capture-pane: on a recorded fixture trace
# (tests/trace/trace_gen.c), on a recording that grows while it is watched, and,
# when the recorder offers a control socket, on a live kernel (a renice
# from the view must change the task's nice in the kernel and its share).
# Prints PASS name / FAIL name: why / SKIP name: why; exits 1 on a FAIL.
RUNQ=$(cd "$(dirname "${1:-build/runq}")" && pwd)/$(basename "${1:-build/runq}")
command -v tmux >/dev/null || { echo "SKIP top_tmux: no tmux"; exit 0; }
T=$(mktemp -d /tmp/top_tmux.XXXXXX)
S=runq_top_test_$$
REC=
trap 'tmux_stop; [ -n "$REC" ] && kill $REC 2>/dev/null; rm -rf "$T"' EXIT
. tests/lib.sh
tmux_start
record_fixtures --ms 2000 --seed 3
# the task table's rows: the lines after the header row that starts "  TID" or "   TID"
rows() { screen | sed -n '/^ *TID NAME/,$p' | sed 1d | grep -E '^[ *] *[0-9]+ '; }
first_name() { rows | head -1 | awk '{print ($1=="*") ? $3 : $2}'; }
first_is() { case $(first_name) in $1*) return 0 ;; esac; return 1; }
start() { # size, then runq top's arguments
    tmux kill-session -t $S 2>/dev/null
    size=$1
    shift
    tmux new-session -d -s $S -x ${size%x*} -y ${size#*x} \
        "TERM=xterm-256color $RUNQ top $*; echo TOP-EXITED=\$?; sleep 30"
}

# ---- a finished trace, replayed slowly from 1.5 s ----
start 100x30 --db "$T/f.db" --trace 1 --at 1.5 --speed 0.01
if wait_for 'TID NAME'; then pass top_starts; else failed top_starts "$(screen | head -5)"; fi
h=$(screen | sed '/^CPU CURRENT/,$d')  # the header: every line above the CPU rows (the features wrap)
case $h in
*"trace 1  eevdf  250 Hz  4 CPUs"*"lost 0  resyncs 0"*"features PLACE_LAG"*"replay x0.01"*complete*)
    pass top_header ;;
*) failed top_header "$h" ;;
esac
if [ "$(screen | grep -c '^ *[0-3] [a-z]')" -ge 4 ]; then pass top_cpu_rows; else failed top_cpu_rows "$(screen | sed -n 5,10p)"; fi
# a fixture trace states no tracing costs: TRACE says '-' on every CPU row
# (TRACE, MVIN/s, MVOUT/s, SW/s are the last four fields)
no_cost=$(screen | sed -n '/^CPU CURRENT/,/TID NAME/p' | awk '$1 ~ /^[0-9]+$/ && $(NF - 3) != "-"' | head -1)
if [ -z "$no_cost" ] && screen | grep -q 'TRACE'; then pass top_trace_share_unknown_without_costs
else failed top_trace_share_unknown_without_costs "${no_cost:-no TRACE header}"; fi

# Before the trace names its policy (make run's first screen: the row is
# there, the kernel's first record not yet), the features line says it
# does not know; it said round robin beside an EEVDF kernel.
cp "$T/f.db" "$T/nopolicy.db"
sq "$T/nopolicy.db" "UPDATE trace SET policy = NULL WHERE trace_id = 1"
start 100x30 --db "$T/nopolicy.db" --trace 1 --at 1.5 --speed 0.01
if wait_for 'TID NAME' && screen | head -3 | grep -q '^features - (not known yet)' &&
    ! screen | head -3 | grep -q 'round robin'; then
    pass top_features_before_the_policy_is_known
else
    failed top_features_before_the_policy_is_known "$(screen | head -3 | tr '\n' '|')"
fi

# On an 80-column terminal the header keeps what matters: loss and every
# feature switch (it cut off "resyncs" and REQUEUE_UPDATE_CURR)
start 80x24 --db "$T/f.db" --trace 1 --at 1.5 --speed 0.01
if wait_for 'TID NAME' && screen | head -1 | grep -q 'lost 0 *resyncs 0$' &&
    screen | head -5 | grep -q -- '-REQUEUE_UPDATE_CURR'; then
    pass top_header_at_80_columns
else
    failed top_header_at_80_columns "$(screen | head -4 | tr '\n' '|')"
fi
start 100x30 --db "$T/f.db" --trace 1 --at 1.5 --speed 0.01
wait_for 'TID NAME' >/dev/null

# sort: P (by %CPU) puts a spinner first; I inverts; < and > walk the columns
tmux send-keys -t $S P
if eventually first_is spin; then pass top_sort_cpu; else failed top_sort_cpu "first row $(rows | head -1)"; fi
tmux send-keys -t $S I
wait_for 'sort %CPU (inverted)' >/dev/null
case $(first_name) in io*) pass top_sort_invert ;; *) failed top_sort_invert "first row $(rows | head -1)" ;; esac
tmux send-keys -t $S I
for k in 1 2 3 4 5 6 7; do tmux send-keys -t $S '<'; done
if wait_for 'sort TID ' && [ "$(rows | head -1 | awk '{print $1}')" = 4 ]; then pass top_sort_column_keys
else failed top_sort_column_keys "$(screen | sed -n 4p) / $(rows | head -1)"; fi

# filter: only io1, io10, io11 stay; Esc brings everyone back
tmux send-keys -t $S '\' i o 1
sleep 0.4
tmux send-keys -t $S Enter
names() { rows | awk '{print $2}' | sort | tr '\n' ' '; }
names_are() { [ "$(names)" = "$1" ]; }
if eventually names_are "io1 io10 io11 "; then pass top_filter; else failed top_filter "rows: $(names)"; fi
tmux send-keys -t $S '\' Escape
has_row() { rows | grep -q -- "$1"; }
if eventually has_row spin0; then pass top_filter_clear; else failed top_filter_clear "$(rows | head -3)"; fi
# ... and Esc in the main view clears a filter already set, as the help says
tmux send-keys -t $S '\' i o 1
sleep 0.4
tmux send-keys -t $S Enter
eventually names_are "io1 io10 io11 " || failed top_filter_again "rows: $(names)"
tmux send-keys -t $S Escape
if eventually has_row spin0; then pass top_esc_clears_filter; else failed top_esc_clears_filter "$(rows | head -3)"; fi

# search: the selection moves to the match; the histogram view names it
tmux send-keys -t $S / s p i n 6 Enter Tab
if wait_for 'wake latency of spin6'; then pass top_search_and_histogram_view
else failed top_search_and_histogram_view "$(screen | grep 'wake latency' || screen | tail -3)"; fi
# a spinner never sleeps: no wakeups, and no percentiles of nothing above it
if screen | grep -q 'no wakeups yet' && ! screen | grep -q 'wake latency of spin6.*0 wakeups'; then
    pass top_histogram_empty_says_so
else failed top_histogram_empty_says_so "$(screen | grep -A1 'wake latency of spin6')"; fi
tmux send-keys -t $S / i o 4 Enter
if wait_for 'wake latency of io4 (tid' && screen | grep -Eq '^ *[0-9]+(ns|us|ms)- *[0-9]+(ns|us|ms) +\|'; then
    pass top_histogram_buckets
else failed top_histogram_buckets "$(screen | tail -12)"; fi
tmux send-keys -t $S Tab
if wait_for 'timeline: a row a switch' && screen | grep -Eq '^ +[0-9]+\.[0-9]{6} +[ *][A-Z][0-9]'; then pass top_timeline_view
else failed top_timeline_view "$(screen | tail -6)"; fi
tmux send-keys -t $S Tab

# pause: the time shown stops, and goes on after z again
tmux send-keys -t $S z
wait_for PAUSED >/dev/null
a=$(screen | head -1 | grep -o 'up [0-9.]*s')
sleep 1.2
b=$(screen | head -1 | grep -o 'up [0-9.]*s')
tmux send-keys -t $S z
uptime_moved_from() { c=$(screen | head -1 | grep -o 'up [0-9.]*s'); [ "$c" != "$1" ]; }
eventually uptime_moved_from "$b"
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" != "$c" ]; then pass top_pause; else failed top_pause "$a / $b / $c"; fi

# help lists every key; any key returns
tmux send-keys -t $S h
if wait_for 'runq top: keys' && screen | grep -q 'nice down / up' && screen | grep -q 'drop a named marker'; then
    pass top_help
else failed top_help "$(screen | head -5)"; fi
tmux send-keys -t $S x
if wait_for 'TID NAME'; then pass top_help_returns; else failed top_help_returns "$(screen | head -3)"; fi

# an action on a finished trace says why it cannot be done
tmux send-keys -t $S n
if wait_for 'actions need a live recording'; then pass top_action_needs_live; else failed top_action_needs_live "$(screen | tail -1)"; fi

# resize, then quit: the terminal is restored and the exit status is 0
tmux resize-window -t $S -x 140 -y 45 2>/dev/null
if wait_for 'WAKEMAX'; then pass top_resize_wider; else failed top_resize_wider "$(screen | grep 'TID NAME')"; fi
tmux send-keys -t $S q
if wait_for 'TOP-EXITED=0' && ! screen | grep -q 'TID NAME'; then pass top_quit_restores
else failed top_quit_restores "$(screen | tail -3)"; fi

# ---- --wait: the view started before its database exists (runq run's
# pane starts before the recorder makes it) waits and then shows it;
# without --wait it ends at once, saying so ----
start 100x30 --db "$T/later.db" --trace 1 --at 1.5 --speed 0.01 --wait 30
wait_for 'waiting up to 30 s for' >/dev/null
sleep 1
cp "$T/f.db" "$T/later.db"
if wait_for 'TID NAME' && ! screen | grep -q 'TOP-EXITED'; then pass top_waits_for_its_database
else failed top_waits_for_its_database "$(screen | head -4 | tr '\n' '|')"; fi
tmux kill-session -t $S 2>/dev/null
"$RUNQ" top --db "$T/never.db" >/dev/null 2>"$T/never.err"; rc=$?
if [ $rc = 1 ] && grep -q "runq top: $T/never.db: no such database" "$T/never.err"; then pass top_without_wait_ends_at_once
else failed top_without_wait_ends_at_once "rc $rc: $(head -c 200 "$T/never.err")"; fi

# ---- round robin: the EEVDF columns are dashes ----
start 100x30 --db "$T/f.db" --trace 2 --at 0.8 --speed 0.01
wait_for 'TID NAME' >/dev/null
bad=$(rows | awk '$9 != "-" || $10 != "-" || $11 != "-" || $6 != "-"' | head -2)  # LAG DEADLINE ELIG, SLICE
if [ -n "$(rows)" ] && [ -z "$bad" ] && screen | grep -q 'round robin'; then pass top_rr_dashes
else failed top_rr_dashes "${bad:-no rows}"; fi

# ---- 80x24, ASCII bars, no colour; SIGTERM restores the terminal ----
tmux kill-session -t $S 2>/dev/null
tmux new-session -d -s $S -x 80 -y 24 \
    "RUNQ_ASCII=1 NO_COLOR=1 TERM=xterm $RUNQ top --db $T/f.db --trace 1 --at 1; echo TOP-EXITED=\$?; sleep 30"
if wait_for 'TID NAME' && screen | grep -q '\[|||' && screen | grep -q 'F10Quit'; then pass top_80x24_ascii
else failed top_80x24_ascii "$(screen | sed -n 5,8p)"; fi
# the pane's shell runs runq top as its only child
top_pid=$(pgrep -P "$(tmux list-panes -t $S -F '#{pane_pid}')" | head -1)
[ -n "$top_pid" ] && kill -TERM "$top_pid"
if wait_for 'TOP-EXITED=143' && ! screen | grep -q 'TID NAME'; then pass top_sigterm_restores
else failed top_sigterm_restores "$(screen | tail -3)"; fi

# ---- errors: one line, before any terminal change ----
out=$("$RUNQ" top --db "$T/none.db" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]; then pass top_missing_db; else failed top_missing_db "$rc: $out"; fi
echo "not a database at all, just some text to fill more than a header's worth of bytes........" >"$T/junk.db"
out=$("$RUNQ" top --db "$T/junk.db" 2>&1); rc=$?
case $rc:$out in "1:runq top: "*"not a runq trace database"*) pass top_not_a_trace ;; *) failed top_not_a_trace "$rc: $out" ;; esac
out=$("$RUNQ" top --delay 0 2>&1); rc=$?
if [ $rc -eq 2 ]; then pass top_usage_error; else failed top_usage_error "$rc: $out"; fi

# ---- a recording that grows while it is watched ----
"$GEN" --ms 3000 --seed 5 --out "$T/g.bin"
half=$(($(wc -c <"$T/g.bin") / 3))
head -c $half "$T/g.bin" >"$T/grow.bin"
"$RUNQ" record --file "$T/grow.bin" --follow --db "$T/g.db" >/dev/null 2>&1 &
REC=$!
sleep 1
start 100x30 --db "$T/g.db"
if wait_for 'live  recording'; then pass top_live_follows; else failed top_live_follows "$(screen | sed -n 4p)"; fi
a=$(screen | head -1 | grep -o 'up [0-9.]*s')
tail -c +$((half + 1)) "$T/g.bin" >>"$T/grow.bin"
wait $REC
REC=
at_the_end() { b=$(screen | head -1 | grep -o 'up [0-9.]*s'); [ "$b" = "up 3.000s" ] && on_screen 'live  complete'; }
eventually at_the_end
if [ -n "$a" ] && [ "$a" != "$b" ] && [ "$b" = "up 3.000s" ] && screen | grep -q 'live  complete'; then
    pass top_live_grows_to_the_end
else failed top_live_grows_to_the_end "$a then $b; $(screen | sed -n 4p)"; fi
tmux send-keys -t $S q

# ---- a live kernel: idle CPUs, the TRACE column, renice from the view ----
# One boot serves the three (a live QEMU spins a host CPU for as long as
# the checks take): four CPUs, two spinners a and b pinned to CPU 1, the
# tracer's CPU 0, and CPUs 2 and 3 with nothing to run.
# wait_thread DB NAME: up to 20 s for the recording to know task NAME
wait_thread() {
    local i=0
    while [ $i -lt 100 ] && ! sqlite3 "$1" "SELECT 1 FROM thread WHERE name='$2'" 2>/dev/null | grep -q 1; do
        sleep 0.2; i=$((i + 1))
    done
}
tmux kill-session -t $S 2>/dev/null
# (Guest time runs with the host's clock here: the spinners last as long
# as the boot may, so a slow view on a loaded machine cannot outlast them
# (30 s did at a load average of 12); 300 s, since the three checks' waits
# add up (each boot had 120 s when they had two); killed when done.)
"$RUNQ" boot --record "$T/live.db" --timeout 300 \
    --cmd "spin a 300000 1" --cmd "spin b 300000 1" --cmd "sleep 300000" >/dev/null 2>&1 &
BOOT=$!
wait_thread "$T/live.db" b
start 100x30 --db "$T/live.db"
wait_for 'live  recording' >/dev/null

# CPUs 2 and 3 only idle: they show "idle" (they halted before tracing
# began; without the keyframe each CPU writes when tracing starts, the view
# could only show '?' for them)
cpus() { screen | sed -n '/^CPU CURRENT/,/TID NAME/p' | awk '$1 ~ /^[0-9]+$/ { print $1 "=" $2 }' | tr '\n' ' '; }
idle_shown() { case "$(cpus)" in *" 1="[ab]" 2=idle 3=idle ") return 0 ;; esac; return 1; }
eventually idle_shown
case "$(cpus)" in *" 1="[ab]" 2=idle 3=idle ") pass top_live_idle_cpus_show_their_idle_task ;;
*) failed top_live_idle_cpus_show_their_idle_task "CPU column: $(cpus)" ;; esac
# The TRACE column: the tracer's own share of each CPU, from the kernel's
# cost counters (a kernel trace), a number on every CPU once two readings
# are in (100 ms apart): the tracer's CPU 0 above zero, CPU 1 (the
# spinners' ticks and switches: a few hundred records a second at some
# 105 instructions each since issue 34's cheaper records, hundredths of a
# per cent) a number, which may round to 0.0 %, and none near the whole
# CPU (2 and 3 halted before tracing began and may have written one
# reading only: a number or '-'). The fixture trace has no costs: '-'
# (checked with the fixture above). Proven: with the counters left out of
# the kernel's COUNTERS, every row said '-'.
trace_col() { screen | sed -n '/^CPU CURRENT/,/TID NAME/p' | awk '$1 ~ /^[0-9]+$/ { print $1 "=" $(NF - 3) }' | tr '\n' ' '; }
traced() { case "$(trace_col)" in "0="*%" 1="*%" "*) return 0 ;; esac; return 1; }
eventually traced
tc=$(trace_col)
if traced && echo "$tc" | awk '{ for (i = 1; i <= NF; i++) { split($i, f, "="); v = f[2] + 0; if (v >= 20) exit 1; if (i == 1 && v <= 0) exit 1 } }'; then
    pass top_live_trace_share_of_each_cpu
else
    failed top_live_trace_share_of_each_cpu "TRACE column: $tc"
fi

# Renice b from the view, then compare the two spinners' shares of CPU 1.
if ! sqlite3 "$T/f.db" "SELECT control FROM trace LIMIT 1" >/dev/null 2>&1; then
    echo "SKIP top_live_renice: the recorder offers no control socket yet (trace.control)"
else
    tmux send-keys -t $S / b Enter F
    # one step at a time: each N renices from the nice on screen, so the
    # next press waits until the kernel's answer has come back through the trace
    for k in 1 2 3 4 5; do
        tmux send-keys -t $S N
        j=0
        while [ $j -lt 40 ] && [ "$(rows | awk '$2 == "b" { print $5 }')" != "$k" ]; do sleep 0.25; j=$((j + 1)); done
    done
    sleep 3
    nice=$(sqlite3 "$T/live.db" "SELECT new_value FROM sched_set s JOIN thread t USING(utid) WHERE t.name='b' AND what='nice' ORDER BY ts DESC LIMIT 1")
    row=$(rows | awk '$2 == "b"')
    if [ "$nice" = 5 ] && [ "$(echo "$row" | awk '{print $5}')" = 5 ]; then pass top_live_renice
    else failed top_live_renice "kernel nice '$nice', row '$row'"; fi
    ratio=$(sqlite3 "$T/live.db" "SELECT ROUND(1.0*SUM(CASE WHEN t.name='a' THEN dur END)/SUM(CASE WHEN t.name='b' THEN dur END),2) FROM sched_slice s JOIN thread t USING(utid) WHERE s.ts > (SELECT MAX(ts) FROM sched_set WHERE what='nice')")
    case $ratio in 2.[5-9]*|3.[0-5]*) pass top_live_renice_share ;; *) failed top_live_renice_share "a/b share $ratio, want ~3.06" ;; esac
fi
tmux send-keys -t $S q
kill $BOOT 2>/dev/null
wait $BOOT 2>/dev/null

# ---- a kernel run that balances: moves a second on the CPU rows ----
# scenarios/balance.scn as one cell, BALANCE_WAKE and BALANCE_NEWIDLE on
# (its vary lines dropped): the kernel moves tasks and records each
# (runq experiment, under icount); the view, replayed to the trace's end,
# shows on each CPU row the moves in and out over the second before
# (MVIN/s, MVOUT/s: the fields before SW/s). Each move is one CPU's in
# and another's out, so the columns sum alike, and to the trace's moves
# in that second (within 2: the header's time is rounded to the ms); the
# MOVED column names a rule. Proven: with on_move (tui/model.c) counting nothing,
# the columns said 0.
sed -e '/^vary/d' -e 's/^run 1s$/run 1s\nfeature BALANCE_WAKE on\nfeature BALANCE_NEWIDLE on/' scenarios/balance.scn >"$T/bal.scn"
if ! "$RUNQ" experiment --quiet --db "$T/bal.db" "$T/bal.scn" >"$T/bal.out" 2>&1; then
    failed top_kernel_moves_a_second "runq experiment: $(tail -3 "$T/bal.out" | tr '\n' '|')"
else
    start 100x30 --db "$T/bal.db" --at 1.06 --speed 0.01
    wait_for 'TID NAME' >/dev/null
    sleep 3 # to the trace's end (1.075 s), where the view stays
    up=$(screen | head -1 | grep -o 'up [0-9.]*s' | tr -dc '0-9.')
    want=$(sqlite3 "$T/bal.db" "SELECT count(*) FROM migration WHERE ts > (${up:-0} - 1) * 1e9 AND ts <= ${up:-0} * 1e9")
    moves=$(screen | sed -n '/^CPU CURRENT/,/TID NAME/p' | awk '$1 ~ /^[0-9]+$/ { i += $(NF - 2); o += $(NF - 1) } END { print i + 0, o + 0 }')
    set -- $moves
    named=$(rows | awk '{ print $4 }' | grep -cxE 'wake_sib|wake_aff|wake_prev|newidle|periodic|affinity|rt_release')
    if [ "$1" = "$2" ] && [ "$1" -gt 0 ] && [ $(($1 - want)) -le 2 ] && [ $((want - $1)) -le 2 ] && [ "$named" -gt 0 ]; then
        pass "top_kernel_moves_a_second (in $1, out $2, trace $want; $named tasks name their move)"
    else
        failed top_kernel_moves_a_second "in/out '$moves', trace's moves in the second $want, MOVED named on $named rows: $(screen | sed -n '/^CPU CURRENT/,/TID NAME/p' | tr '\n' '|')"
    fi
    tmux send-keys -t $S q
fi

# ---- runq run's tmux session closed under it (SIGHUP everywhere) ----
# The recorder commits and marks the trace, runq run waits for it and
# removes its socket directory: nothing is left 'recording', nothing in /tmp.
# (With SIGHUP left to its default, the trace stayed 'recording' and the
# directory with trace.sock and trace.sock.ctl stayed behind.)
mkdir -p "$T/run"
# Another window is made the active one before runq run opens its view:
# the view's pane goes beside runq run's own pane ($TMUX_PANE), not into
# whichever pane is active (it did).
tmux new-session -d -s runs -x 200 -y 50 "sleep 1; cd $T/run && $RUNQ run; sleep 60"
tmux new-window -t runs "sleep 120"
wait_recording() {
    local i=0
    while [ $i -lt 100 ]; do
        [ "$(sqlite3 "$T/run/runq.db" "SELECT records > 1000 FROM trace" 2>/dev/null)" = 1 ] && return 0
        sleep 0.2; i=$((i + 1))
    done
    return 1
}
wait_recording
sock=$(sqlite3 "$T/run/runq.db" "SELECT source FROM trace" 2>/dev/null)
view_beside_run() { [ "$(tmux list-panes -t runs:0 | wc -l)" = 2 ] && tmux capture-pane -p -t runs:0.1 | grep -q 'TID NAME'; }
if eventually view_beside_run && [ "$(tmux list-panes -t runs:1 | wc -l)" = 1 ]; then
    pass run_view_beside_its_pane
else
    failed run_view_beside_its_pane "panes: window 0 $(tmux list-panes -t runs:0 | wc -l), window 1 $(tmux list-panes -t runs:1 | wc -l); $(tmux capture-pane -p -t runs:0.1 2>&1 | head -3 | tr '\n' '|')"
fi
tmux select-window -t runs:0
# The shell's screen holds the kernel's lines, not the recorder's trace id
# on a line of its own (it once did, beside the boot messages), ...
S=runs
if wait_for 'runq>' && ! screen | grep -qE '^[0-9]+$'; then
    pass run_screen_has_no_stray_trace_id
else
    failed run_screen_has_no_stray_trace_id "$(screen | grep -nE '^[0-9]+$|runq>' | head -3 | tr '\n' '|')"
fi
# ... nor QEMU's "waiting for connection" (its socket is runq's own port)
if ! screen | grep -q 'QEMU waiting for connection'; then
    pass run_screen_has_no_qemu_waiting_line
else
    failed run_screen_has_no_qemu_waiting_line "$(screen | grep -n 'QEMU waiting' | head -2)"
fi
# A command from the host (what runq top's actions send): its answer on a
# line of its own, then a prompt (it printed "runq> nice id=..." and left
# no prompt).
ctl=$(sqlite3 "$T/run/runq.db" "SELECT control FROM trace" 2>/dev/null)
if [ -n "$ctl" ] && python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"nice 5 2\n"); s.close()' "$ctl" &&
    eventually sh -c "tmux -S '$T/tmux.sock' capture-pane -p -t runs | grep -v '^\$' | tail -3 | tr '\n' '|' | grep -q '^runq> *|nice id=5 nice=2|runq> *|\$'"; then
    pass host_command_gives_the_prompt_back
else
    failed host_command_gives_the_prompt_back "control '$ctl': $(tmux capture-pane -p -t runs | grep -v '^$' | tail -3 | tr '\n' '|')"
fi
tmux kill-session -t runs
row=""
for _ in $(seq 1 100); do
    row=$(sqlite3 "$T/run/runq.db" "SELECT status || ' ' || end_reason FROM trace" 2>/dev/null)
    [ "$row" = "incomplete interrupted" ] && [ ! -e "$(dirname "${sock:-/nonexistent/x}")" ] && break
    sleep 0.2
done
if [ -n "$sock" ] && [ "$row" = "incomplete interrupted" ] && [ ! -e "$(dirname "$sock")" ] &&
    ! ls "$T/run" | grep -q -- -reserve-; then
    pass run_closed_by_its_terminal_cleans_up
else
    failed run_closed_by_its_terminal_cleans_up "trace '$row', socket dir of '$sock' $([ -e "$(dirname "$sock")" ] && echo left || echo gone), $(ls "$T/run" | tr '\n' ' ')"
fi
# The view ends with its terminal, even when whoever started it left
# SIGHUP ignored (an ignored disposition survives exec): killing its tmux
# session hangs the terminal up, and a view reading ERR from a dead
# terminal ran on (two found alive 29 and 49 minutes later, issue 36).
tmux new-session -d -s hup -x 100 -y 30 "trap '' HUP; exec $RUNQ top --db $T/f.db --trace 1 --speed 0.01"
S=hup
if wait_for 'TID'; then
    pid=$(tmux list-panes -t hup -F '#{pane_pid}')
    tmux kill-session -t hup
    gone=0
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || { gone=1; break; }; sleep 0.1; done
    if [ "$gone" = 1 ]; then
        pass top_ends_with_its_terminal
    else
        failed top_ends_with_its_terminal "runq top (pid $pid) still alive 5 s after its terminal hung up"
        kill -9 "$pid" 2>/dev/null
    fi
else
    failed top_ends_with_its_terminal "the view never drew: $(screen | head -3 | tr '\n' '|')"
fi
exit $fail
