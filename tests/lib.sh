# tests/lib.sh: what the shell tests share. Source it from the repository
# root after setting T (a scratch directory the caller removes).

fail=0
pass() { echo "PASS $1"; }
failed() { echo "FAIL $1: $2"; fail=1; }

# GEN: the fixture generator (tests/trace_gen.c), built by make if a test
# runs on its own before `make test` did.
GEN=${TRACE_GEN:-build/tests/trace_gen}
[ -x "$GEN" ] || make -s "$GEN" >/dev/null || { echo "FAIL fixture: cannot build $GEN"; exit 1; }

# record_fixtures TRACE_GEN_ARGS...: an EEVDF trace (trace 1) and a round
# robin one (trace 2) of the same workload in $T/f.db.
record_fixtures() {
    "$GEN" "$@" --out "$T/e.bin" &&
        "$GEN" --policy rr "$@" --out "$T/r.bin" &&
        "$RUNQ" record --file "$T/e.bin" --db "$T/f.db" >/dev/null 2>&1 &&
        "$RUNQ" record --file "$T/r.bin" --db "$T/f.db" >/dev/null 2>&1 ||
        { failed fixture "could not record"; exit 1; }
}

# tmux on a server of the test's own (its socket in $T). Sessions come and go in a test;
# on a shared default server, closing the last one shut the server down
# under the next new-session ("server exited unexpectedly": top_tmux, once
# in a full make test). A keeper session holds this server up until the
# test ends: tmux_start after checking that tmux exists, tmux_stop in the
# EXIT trap.
tmux() { command tmux -S "$T/tmux.sock" "$@"; }
tmux_start() { tmux new-session -d -s keeper "sleep 86400"; }
tmux_stop() { tmux kill-server 2>/dev/null; }

# tmux helpers for the session $S.
screen() { tmux capture-pane -p -t "$S"; }
# waits up to 5 s for text on the screen
wait_for() {
    i=0
    while [ $i -lt 50 ]; do
        screen | grep -q -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
