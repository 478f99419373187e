#!/usr/bin/env python3
"""Reads a `runq export --perfetto` file back, for tests/export/export_test.sh.

usage: export_check.py FILE OUTDIR

Checks the grammar, strictly: the ftrace header first; then every line
one of the four kinds below, with the time in seconds and exactly 9
decimals, never decreasing; each line also read by Perfetto's own line
pattern (systrace_line_tokenizer.cc), which must find the same task, pid,
CPU, time and event; and on each CPU every sched_switch's prev the task
the CPU's last switch put there (else Perfetto leaves the slice open).
Prints one line per error (at most 10) and exits 1 on any.

Then writes what Perfetto would make of it, times in exact ns, for the
test to compare with SQL over the same trace:
  slices    cpu|ts|dur|tid   every closed slice of a real task (idle:
                             tid 0; the no-data tasks left out)
  nodata    cpu|ts|dur       the no-data tasks' slices
  wakeups   ts|wakee|waker   (waker 0: the idle task, a timer or interrupt)
  counters  tgid|name|ts|value
  gaps      cpu|ts_begin|ts_end|name   each B/E pair on a no-data thread
  marks     ts|name
"""
import os
import re
import sys

GAP_PID = 4194304
RUNQ_PID = GAP_PID + 256

HEADER_FIRST = "# tracer: nop"
COMM = r"[^\s=|]+"
HEAD = re.compile(
    r"^ *(?P<task>" + COMM + r")-(?P<pid>\d+) +\( *(?P<tgid>\d+|-------)\) "
    r"\[(?P<cpu>\d{3})\] \.\.\.\.\. +(?P<s>\d+)\.(?P<ns>\d{9}): "
    r"(?P<event>sched_switch|sched_waking|tracing_mark_write): (?P<args>.*)$")
SWITCH = re.compile(
    r"^prev_comm=(?P<pc>" + COMM + r") prev_pid=(?P<pp>\d+) prev_prio=(?P<ppr>-?\d+) "
    r"prev_state=(?P<st>R|R\+|S|X) ==> next_comm=(?P<nc>" + COMM + r") "
    r"next_pid=(?P<np>\d+) next_prio=(?P<npr>-?\d+)$")
WAKING = re.compile(r"^comm=(?P<c>" + COMM + r") pid=(?P<p>\d+) prio=(?P<pr>-?\d+) target_cpu=(?P<t>\d{3})$")
MARK = re.compile(r"^(?:C\|(?P<ctg>\d+)\|(?P<cn>[^|]+)\|(?P<cv>-?\d+)"
                  r"|B\|(?P<btg>\d+)\|(?P<bn>[^|]+)"
                  r"|E\|(?P<etg>\d+)"
                  r"|I\|(?P<itg>\d+)\|(?P<inm>[^|]+))$")
# Perfetto's line pattern, as its tokenizer has it.
PERFETTO = re.compile(
    r"-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):")


def main():
    path, outdir = sys.argv[1], sys.argv[2]
    errors = []

    def err(n, what, line):
        errors.append("line %d: %s: %s" % (n, what, line.rstrip("\n")[:160]))

    slices, nodata, wakeups, counters, gaps, marks = [], [], [], [], [], []
    running = {}  # cpu -> (pid, since)
    open_gap = {}  # cpu -> (ts, name)
    last_ts = -1
    in_header = True
    with open(path) as f:
        lines = f.readlines()
    if not lines or lines[0].rstrip("\n") != HEADER_FIRST:
        errors.append("line 1: the file does not begin with '%s'" % HEADER_FIRST)
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            if not in_header:
                err(n, "a header line after the events", line)
            continue
        in_header = False
        m = HEAD.match(line.rstrip("\n"))
        if not m:
            err(n, "not TASK-PID (TGID) [CPU] ..... S.NNNNNNNNN: EVENT: ARGS", line)
            continue
        task, pid, cpu, ev, args = m["task"], int(m["pid"]), int(m["cpu"]), m["event"], m["args"]
        ts = int(m["s"]) * 1000000000 + int(m["ns"])
        if ts < last_ts:
            err(n, "time goes back", line)
        last_ts = ts
        pm = PERFETTO.search(line)
        if (not pm or line[:pm.start()].strip() != task or int(pm.group(1)) != pid
                or int(pm.group(3)) != cpu or pm.group(5) != m["s"] + "." + m["ns"] or pm.group(6) != ev):
            err(n, "Perfetto's line pattern reads it otherwise", line)
        if ev == "sched_switch":
            a = SWITCH.match(args)
            if not a:
                err(n, "bad sched_switch arguments", line)
                continue
            pp, np = int(a["pp"]), int(a["np"])
            if (a["pc"], pp) != (task, pid):
                err(n, "a switch not written by its prev", line)
            if cpu in running:
                was, since = running[cpu]
                if was != pp:
                    err(n, "prev_pid %d, but CPU %d runs %d" % (pp, cpu, was), line)
                elif was >= GAP_PID:
                    nodata.append((cpu, since, ts - since))
                else:
                    slices.append((cpu, since, ts - since, was))
            running[cpu] = (np, ts)
        elif ev == "sched_waking":
            a = WAKING.match(args)
            if not a:
                err(n, "bad sched_waking arguments", line)
                continue
            wakeups.append((ts, int(a["p"]), pid))
        else:
            a = MARK.match(args)
            if not a:
                err(n, "bad tracing_mark_write", line)
            elif a["ctg"]:
                counters.append((int(a["ctg"]), a["cn"], ts, int(a["cv"])))
            elif a["btg"] or a["etg"]:
                if not GAP_PID <= pid < RUNQ_PID or pid - GAP_PID != cpu:
                    err(n, "a B/E slice off CPU %d's no-data thread" % cpu, line)
                elif a["btg"]:
                    if cpu in open_gap:
                        err(n, "a gap begins inside another", line)
                    open_gap[cpu] = (ts, a["bn"])
                elif cpu not in open_gap:
                    err(n, "a gap ends that did not begin", line)
                else:
                    t0, name = open_gap.pop(cpu)
                    gaps.append((cpu, t0, ts, name))
            else:
                marks.append((ts, a["inm"]))
    for cpu in open_gap:
        errors.append("CPU %d: a gap never ends" % cpu)

    os.makedirs(outdir, exist_ok=True)
    for name, rows in (("slices", slices), ("nodata", nodata), ("wakeups", wakeups),
                       ("counters", counters), ("gaps", gaps), ("marks", marks)):
        with open(os.path.join(outdir, name), "w") as f:
            for r in sorted(rows):
                f.write("|".join(str(x) for x in r) + "\n")
    for e in errors[:10]:
        print(e)
    if len(errors) > 10:
        print("... %d errors in all" % len(errors))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
