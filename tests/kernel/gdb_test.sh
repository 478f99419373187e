#!/usr/bin/env bash
# scripts/gdb/runq.py against the shell, at the same moments of one
# deterministic boot (docs/gdb.md). The kernel makes CPU 1's fair queue
# hold still: four spinners of different nice take turns for 15 ms, then
# a fifth (the hog) is made RT and keeps the CPU, so the fair tasks keep
# the vruntimes and lags they had. gdb stops the kernel as the shell
# starts each command and again as the next one (an echo) starts; the
# helpers run at both stops, and what the shell printed in between must
# be what they print:
#   runq-queue 1 = `sched queue 1`, line for line (and the two stops agree:
#                  the queue held still, so the comparison is exact);
#   runq-ps      = `ps`, a runtime between the two stops' (it only grows),
#                  a state one of theirs (the tracer may wake in between);
#   runq-trace   = `trace`'s per-CPU lines: dropped and packets between the
#                  stops', ring_used within what head and tail allow,
#                  used = head - tail <= the ring's size;
#   runq-wake    = stopped right after `sched cpu` pushed the moved task on
#                  CPU 0's wake stack: it is there, waking and moving.
# And docs/gdb.md's transcripts have the real output's shape (digits aside).
# All bounds are in guest time (icount); the host's clock only bounds the
# wait for QEMU's stub to listen. SKIP (not PASS) without gdb's Python.
set -u
RUNQ=${1:-build/runq}
cd "$(dirname "$0")/../.."
BOOT=
. tests/lib.sh
# GDB_TEST_KEEP=DIR keeps the stops' output and the console there (the
# transcripts in docs/gdb.md are taken from them).
at_exit '[ -n "$BOOT" ] && kill "$BOOT" 2>/dev/null; [ -n "${GDB_TEST_KEEP:-}" ] && cp -r "$T/." "$GDB_TEST_KEEP"'

if ! command -v gdb >/dev/null || [ "$(gdb -nx -batch -ex 'python print("py")' 2>/dev/null)" != py ]; then
    echo "SKIP gdb: no gdb with Python here (the helpers are gdb Python)"
    exit 0
fi

# The port is checked before anything listens on it.
expect gdb_port_refuses_0 2 "--gdb-port takes a TCP port, 1..65535, not '0'" boot --gdb-port 0
expect gdb_port_refuses_65536 2 "--gdb-port takes a TCP port, 1..65535, not '65536'" boot --gdb-port 65536

# Task ids: idle/0, idle/1, tracer, shell, then the spinners in order.
HOG=5 A=6
CMDS=(--cmd "spin hog 300 1" --cmd "spin a 300 1" --cmd "spin b 300 1 5" --cmd "spin c 300 1 -3"
    --cmd "spin d 300 1 2" --cmd "sleep 15" --cmd "sched rt $HOG 50" --cmd "sleep 2"
    --cmd "sched queue 1" --cmd "echo window" --cmd "ps" --cmd "echo window" --cmd "trace" --cmd "echo window"
    --cmd "sched cpu $A 0")
PUSH_LINE=$(grep -n 'if (target == this_cpu())' kernel/sched/core.c | cut -d: -f1)
[ -n "$PUSH_LINE" ] || { failed setup "wake_push()'s line not found in kernel/sched/core.c"; exit 1; }

cat >"$T/run.gdb" <<EOF
set pagination off
set confirm off
source scripts/gdb/runq.py
python
import os
T = "$T"

def connect(port):
    # QEMU listens a moment after runq starts it: gdb retries a refused
    # connection until this timeout (20 s of the host's clock).
    gdb.execute("set tcp auto-retry on")
    gdb.execute("set tcp connect-timeout 20")
    gdb.execute("target remote 127.0.0.1:%d" % port, to_string=True)

def stop_at(where, label, cmds, cond=None):
    bp = MovedBreakpoint(where) if cond else gdb.Breakpoint(where, internal=True)
    gdb.execute("continue", to_string=True)
    bp.delete()
    with open(os.path.join(T, label), "w") as f:
        for c in cmds:
            f.write(gdb.execute(c, to_string=True))

class MovedBreakpoint(gdb.Breakpoint):
    """Stops only once a task moving to another CPU is on a wake stack
    (other wakeups, the tracer's, pass through the same line)."""
    def __init__(self, where):
        super().__init__(where, internal=True)
    def stop(self):
        for cpu in range(int(gdb.parse_and_eval("ncpus"))):
            t = gdb.parse_and_eval("cpus[%d].rq.wake_stack" % cpu)
            while int(t):
                if bool(t["moving"]):
                    return True
                t = t["wake_next"]
        return False

connect(int(os.environ["GDB_PORT"]))
stop_at("sched_queue", "queue-A", ["runq-queue 1"])
stop_at("cmd_echo", "queue-B", ["runq-queue 1"])
stop_at("cmd_ps", "ps-A", ["runq-ps"])
stop_at("cmd_echo", "ps-B", ["runq-ps"])
stop_at("trace_cmd", "trace-A", ["runq-trace 0", "runq-trace 1"])
stop_at("cmd_echo", "trace-B", ["runq-trace 0", "runq-trace 1"])
stop_at("kernel/sched/core.c:$PUSH_LINE", "wake", ["runq-wake 0", "runq-wake 1"], cond=True)
gdb.execute("detach", to_string=True)
end
EOF

# A port of its own (other suites run beside this one); if another process
# takes it before QEMU does, QEMU fails to listen and the boot is tried
# again on another.
free_port() { gdb -nx -batch -ex 'python
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
for try in 1 2 3; do
    export GDB_PORT=$(free_port)
    rm -f "$T/t.db"
    "$RUNQ" boot --deterministic --cpus 2 --timeout 120 --record "$T/t.db" --gdb-port "$GDB_PORT" "${CMDS[@]}" \
        >"$T/console" 2>"$T/boot.err" </dev/null &
    BOOT=$!
    timeout 120 gdb -nx -q -batch -x "$T/run.gdb" build/kernel.elf >"$T/gdb.out" 2>&1
    grc=$?
    [ $grc -eq 0 ] || kill "$BOOT" 2>/dev/null # else it waits, paused, for its --timeout
    wait "$BOOT"
    brc=$?
    BOOT=
    grep -q 'Address already in use\|Failed to bind' "$T/boot.err" || break
done
if [ $grc -ne 0 ] || [ $brc -ne 0 ]; then
    failed gdb_session "gdb exit $grc, runq boot exit $brc: $(tail -n 5 "$T/gdb.out" "$T/boot.err")"
    exit 1
fi
pass gdb_session

# shell_block CMD: what the shell printed for the command CMD.
shell_block() {
    awk -v c="runq> $1" '$0 == c { on = 1; next } /^runq> / { on = 0 } on' "$T/console"
}

# ---- the console says the setup is what this test assumes ----
if grep -qx "spin id=$HOG name=hog ms=300 cpu=1" "$T/console" && grep -qx "rt id=$HOG prio=50 fifo" "$T/console" &&
    grep -qx "spin id=$A name=a ms=300 cpu=1" "$T/console"; then
    pass setup_ids
else
    failed setup_ids "the hog is not task $HOG or a not $A (boot tasks changed? set HOG, A): $(grep '^spin id=' "$T/console" | head -2)"
fi

# ---- runq-queue 1 against sched queue 1 ----
shell_block "sched queue 1" >"$T/queue-shell"
if ! cmp -s "$T/queue-A" "$T/queue-B"; then
    failed queue_held_still "CPU 1's queue changed between the stops: $(diff "$T/queue-A" "$T/queue-B" | head -6)"
else
    pass queue_held_still
fi
if diff -u "$T/queue-shell" "$T/queue-A" >"$T/diff"; then pass queue_equals_sched_queue; else
    failed queue_equals_sched_queue "$(head -n 20 "$T/diff")"
fi
# Not vacuous: several fair tasks, owed and owing, eligible and not.
rows=$(grep -cE '^ +[0-9]+ +[a-z]+ +-?[0-9]+ +[0-9]+ +[0-9]+ queued ' "$T/queue-A")
pos=$(awk 'NF == 10 && $9 + 0 > 1' "$T/queue-A" | wc -l)
neg=$(awk 'NF == 10 && $9 + 0 < -1' "$T/queue-A" | wc -l)
if [ "$rows" -ge 4 ] && [ "$pos" -ge 1 ] && [ "$neg" -ge 1 ] && grep -q ' yes$' "$T/queue-A" &&
    grep -q ' no$' "$T/queue-A" && grep -q 'rt prio=50 fifo' "$T/queue-A"; then
    pass queue_not_trivial
else
    failed queue_not_trivial "want 4 queued fair rows, lags of both signs, yes and no, the RT hog: $(cat "$T/queue-A")"
fi

# ---- runq-ps against ps ----
shell_block ps >"$T/ps-shell"
if awk 'function ms(s) { split(s, p, "."); return p[1] * 1000 + p[2] }
        FNR == 1 { f++; if ($0 != hdr && hdr != "") { print "header: " $0; bad = 1 } hdr = $0; next }
        f == 1 { a[$1] = $0; next }
        f == 2 { b[$1] = $0; next }
        { n++
          if (!($1 in a) || !($1 in b)) { print "task " $1 " not at both stops"; bad = 1; next }
          split(a[$1], x); split(b[$1], y)
          if ($2 != x[2] || $3 != x[3] || $5 != x[5] || $2 != y[2] || $3 != y[3] || $5 != y[5])
              { print "columns differ: " $0 " / " a[$1]; bad = 1 }
          if ($4 != x[4] && $4 != y[4]) { print "state " $4 " not " x[4] " or " y[4] ": " $0; bad = 1 }
          if (ms($6) < ms(x[6]) || ms($6) > ms(y[6])) { print "runtime " $6 " not in " x[6] ".." y[6]; bad = 1 }
          seen[$1] = 1 }
        END { for (id in a) if (!(id in seen)) { print "task " id " only in runq-ps"; bad = 1 }
              if (n < 8) { print "only " n " tasks"; bad = 1 }
              exit bad }' "$T/ps-A" "$T/ps-B" "$T/ps-shell" >"$T/why"; then
    pass ps_equals_shell_ps
else
    failed ps_equals_shell_ps "$(head -n 8 "$T/why")"
fi

# ---- runq-trace against trace ----
shell_block trace >"$T/trace-shell"
if awk 'function v(s, k,   m) { m = s; sub(".*" k "=", "", m); sub(" .*", "", m); return m + 0 }
        FILENAME ~ /trace-A$/ && /^ring / { c = v($0, "cpu"); ha[c] = v($0, "head"); ta[c] = v($0, "tail")
            da[c] = v($0, "dropped"); pa[c] = v($0, "packets")
            if (v($0, "ring_used") != ha[c] - ta[c] || v($0, "ring_used") > v($0, "size") || / buf=none/)
                { print "bad ring: " $0; bad = 1 }
            next }
        FILENAME ~ /trace-B$/ && /^ring / { c = v($0, "cpu"); hb[c] = v($0, "head"); tb[c] = v($0, "tail")
            db[c] = v($0, "dropped"); pb[c] = v($0, "packets"); next }
        FILENAME ~ /trace-shell$/ && /^  cpu[0-9]+ ring_used=/ { c = $1; sub("cpu", "", c); n++
            u = v($0, "ring_used"); d = v($0, "dropped"); p = v($0, "packets")
            if (u < ha[c] - tb[c] || u > hb[c] - ta[c]) { print "cpu" c " ring_used " u " not in " ha[c] - tb[c] ".." hb[c] - ta[c]; bad = 1 }
            if (d < da[c] || d > db[c]) { print "cpu" c " dropped " d " not in " da[c] ".." db[c]; bad = 1 }
            if (p < pa[c] || p > pb[c]) { print "cpu" c " packets " p " not in " pa[c] ".." pb[c]; bad = 1 }
            if (ha[c] == 0) { print "cpu" c " ring never written"; bad = 1 } }
        END { if (n != 2) { print n " cpu lines from trace"; bad = 1 } exit bad }' \
    "$T/trace-A" "$T/trace-B" "$T/trace-shell" >"$T/why"; then
    pass trace_agrees_with_shell_trace
else
    failed trace_agrees_with_shell_trace "$(head -n 8 "$T/why")"
fi

# ---- runq-wake at the push ----
if grep -qx "wake cpu=0 tasks=1 (newest first)" "$T/wake" &&
    grep -qE "^ +$A a +0 waking +yes$" "$T/wake" && grep -qx "wake cpu=1 tasks=0 (newest first)" "$T/wake" &&
    grep -qx "cpu id=$A allowed=0 home=0" "$T/console"; then
    pass wake_holds_the_moved_task
else
    failed wake_holds_the_moved_task "$(cat "$T/wake")"
fi

# ---- docs/gdb.md: each transcript has the real output's shape ----
# A transcript is a fenced "(gdb) runq-X ..." line and the lines below it;
# with every number made N, each line must be a line the real command
# printed here, and its column header the real one exactly.
real_for() {
    case $1 in
    runq-queue) cat "$T/queue-A" ;; runq-ps) cat "$T/ps-A" ;;
    runq-trace) cat "$T/trace-A" ;; runq-wake) cat "$T/wake" ;;
    esac
}
# An address's hex digits become one H first: "0x28b000" and "0x290000"
# are one shape (the numbers-first rule made them NxNbN and NxN).
shape() { sed -E 's/0x[0-9a-f]+/0xH/g; s/[0-9]+/N/g; s/ +/ /g; s/^ //'; }
n=0
while IFS= read -r cmd; do
    n=$((n + 1))
    awk -v c="(gdb) $cmd" '/^```/ { if (on) exit; next } $0 == c { on = 1; next } on && /^\(gdb\) / { exit } on' \
        docs/gdb.md >"$T/doc"
    name=${cmd%% *}
    real_for "$name" | shape | sort -u >"$T/real-shapes"
    miss=$(shape <"$T/doc" | sort -u | comm -23 - "$T/real-shapes")
    hdr_doc=$(grep -m1 ' ID NAME ' "$T/doc")
    hdr_real=$(real_for "$name" | grep -m1 ' ID NAME ')
    if [ ! -s "$T/doc" ]; then
        failed "doc_$name" "no output under '(gdb) $cmd' in docs/gdb.md"
    elif [ -n "$miss" ]; then
        failed "doc_$name" "docs/gdb.md shows lines $name does not print: $(head -n 3 <<<"$miss")"
    elif [ "$hdr_doc" != "$hdr_real" ]; then
        failed "doc_$name" "header in docs/gdb.md: '$hdr_doc', real: '$hdr_real'"
    else
        pass "doc_$name"
    fi
done < <(grep -E '^\(gdb\) runq-(ps|queue|wake|trace)' docs/gdb.md | sed 's/^(gdb) //' | sort -u -k1,1)
[ "$n" -ge 4 ] || failed doc_transcripts "docs/gdb.md has $n of the 4 commands' transcripts"
exit $fail
