#!/bin/sh
# tests/tui/step_tmux.sh [runq]: the ncurses front end of runq step, driven by
# keys in a detached tmux session on a fixture trace (tests/trace/trace_gen.c).
# Prints PASS name / FAIL name: why; exit 1 on any FAIL (0 with SKIP when
# tmux is missing).
RUNQ=$(cd "$(dirname "${1:-build/runq}")" && pwd)/$(basename "${1:-build/runq}")
command -v tmux >/dev/null || { echo "SKIP step_tmux: no tmux"; exit 0; }
T=$(mktemp -d /tmp/step_tmux.XXXXXX)
S=runq_step_test_$$
trap 'tmux_stop; rm -rf "$T"' EXIT
. tests/lib.sh
tmux_start
record_fixtures --cpus 2 --tasks 4 --ms 300 --seed 1

tmux new-session -d -s $S -x 160 -y 50 "TERM=xterm-256color $RUNQ step --db $T/f.db 1; echo STEP-EXITED; sleep 5"
if wait_for 'event 0 of 1184'; then pass starts; else failed starts "$(screen | head -3)"; fi

tmux send-keys -t $S g
wait_for 'event number:' && tmux send-keys -t $S '10' Enter
if wait_for 'why io2/4 runs (pick #10 on cpu0' && screen | grep -q 'not eligible: lag -699.575'; then
    pass goto_pick_explained
else
    failed goto_pick_explained "$(screen | grep -E 'event|why' | head -3)"
fi

tmux send-keys -t $S n
if wait_for 'event 11 of 1184'; then pass next_event; else failed next_event "no event 11"; fi
tmux send-keys -t $S Left
if wait_for 'event 10 of 1184'; then pass left_arrow; else failed left_arrow "no event 10"; fi
tmux send-keys -t $S N
if wait_for 'event 12 of 1184' && screen | grep -q 'why spin0/2 runs (pick #12 on cpu0, asked for by: block)'; then
    pass next_pick
else
    failed next_pick "$(screen | grep -E '^event|why' | head -2)"
fi
tmux send-keys -t $S / && wait_for 'search forward:' && tmux send-keys -t $S 'spin3' Enter
if wait_for 'event 1[3-9] of 1184\|event [2-9][0-9] of 1184'; then pass search; else failed search "did not move"; fi
tmux send-keys -t $S q
if wait_for STEP-EXITED; then pass quits; else failed quits "still running"; fi
tmux kill-session -t $S 2>/dev/null

# --compare: two panes side by side.
tmux new-session -d -s $S -x 200 -y 50 "TERM=xterm-256color $RUNQ step --db $T/f.db 1 --compare 2; echo STEP-EXITED; sleep 5"
wait_for 'trace 2 (rr)' && tmux send-keys -t $S b && wait_for 'time (+us' && tmux send-keys -t $S 100ms Enter
if wait_for 'event 401 of 1184' && screen | grep -q 'event 290 of 900'; then
    pass compare_side_by_side
else
    failed compare_side_by_side "$(screen | head -2)"
fi
tmux send-keys -t $S q
exit $fail
