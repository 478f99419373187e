# runq's gdb helpers: the scheduler's state read from a stopped kernel.
#
#   runq-ps           tasks, as the shell's `ps` prints them
#   runq-queue CPU    the policy's queue, as `sched queue CPU` prints it
#   runq-wake CPU     the CPU's wake stack: tasks woken, not yet joined
#   runq-trace CPU    the CPU's trace ring: head, tail, used, dropped
#
# Load with `source scripts/gdb/runq.py` (make gdb does); docs/gdb.md has
# examples and the recipe for a hang. In the spirit of Linux's
# scripts/gdb (lx-ps), written for runq's structures.
#
# Why they exist: the shell's commands need a live shell, and a hung kernel
# has none. These read memory only, through the kernel's symbols and types,
# so they work on any stop (a breakpoint, ^C on a hang, a panic's halt).
#
# One source of truth: each command prints what its shell command prints,
# from the same fields, with the same arithmetic (the kernel's function is
# named beside each step) and the same format strings, so the two can be
# compared line for line (tests/kernel/gdb_test.sh does, at one moment of one
# run). Constants that live only in #defines (no debug info for macros at
# -g) are read from the headers beside this script, never copied.
#
# A caveat the shell does not have: gdb stops every vCPU wherever it is,
# so a CPU may be stopped halfway through changing its queue. runq-queue
# says so (a "note:" line) when the queue's lock is held.

import os
import re

import gdb

MASK64 = (1 << 64) - 1
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# A kernel list longer than this is taken for a cycle (memory read mid-change
# or corrupt): the walk stops and says so rather than loop forever.
WALK_MAX = 100000


def header_define(rel, name):
    """The integer value of `#define name ...` in the kernel header rel."""
    with open(os.path.join(ROOT, rel)) as f:
        text = f.read()
    m = re.search(r"^#define\s+%s\s+(.+?)\s*(?:/\*.*)?$" % name, text, re.M)
    if not m:
        raise gdb.GdbError("runq: no #define %s in %s" % (name, rel))
    expr = re.sub(r"(\d+)[uUlL]+\b", r"\1", m.group(1))
    if not re.fullmatch(r"[0-9x()*+<< -]+", expr):
        raise gdb.GdbError("runq: cannot read %s = %s" % (name, m.group(1)))
    return int(eval(expr, {"__builtins__": {}}))


def s64(x):
    x &= MASK64
    return x - (1 << 64) if x >> 63 else x


def u64(v):
    return int(v) & MASK64


def sym(expr):
    return gdb.parse_and_eval(expr)


def int128_at(value):
    """A signed 128-bit field, read as bytes (gdb's own int128 arithmetic
    is not to be trusted across versions)."""
    raw = gdb.selected_inferior().read_memory(int(value.address), 16)
    return int.from_bytes(bytes(raw), "little", signed=True)


def cpu_arg(arg, cmd):
    words = gdb.string_to_argv(arg)
    ncpus = int(sym("ncpus"))
    if len(words) != 1 or not words[0].isdigit() or int(words[0]) >= ncpus:
        raise gdb.GdbError("usage: %s CPU  (CPU 0..%d)" % (cmd, ncpus - 1))
    return int(words[0])


def tasks():
    """Every task, in all_tasks order: the order tasks_for_each() (task.c)
    walks, so lines come out in the shell's order."""
    t = sym("all_tasks")
    n = 0
    while int(t):
        yield t
        n += 1
        if n > WALK_MAX:
            raise gdb.GdbError("runq: all_tasks longer than %d: a cycle?" % WALK_MAX)
        t = t["all_next"]


def name_of(t):
    return t["name"].string(length=t["name"].type.sizeof).split("\0")[0]


def run_state_name(state):
    """run_state_name() (core.c): its own table, read from the kernel."""
    names = sym("run_state_name::names")
    lo, hi = names.type.range()
    return names[state].string() if lo <= state <= hi else "?"


def running(q):
    """sched_running() (decide.h): RT's current first, else the fair one."""
    return q["rt"]["curr"] if int(q["rt"]["curr"]) else q["curr"]


# ---- runq-ps ----

class RunqPs(gdb.Command):
    """Tasks as the shell's `ps` prints them: ID NAME CPU STATE NICE RUNTIME_MS.
STATE: running (the task its CPU runs), idle (an idle task not running),
else the task's RunState (task.h); RUNTIME_MS its last charge."""

    def __init__(self):
        super().__init__("runq-ps", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("usage: runq-ps")
        dead = int(sym("RUN_DEAD"))
        out = ["  ID NAME            CPU STATE    NICE  RUNTIME_MS"]
        for t in tasks():  # ps_line() (shell.c)
            state = int(t["state"])
            if state == dead:
                continue
            rt = u64(t["runtime_ns"])
            # ps_line(): the task a CPU runs is "running", an idle task
            # not running "idle", any other its RunState.
            rq = sym("cpus")[int(t["cpu"])]["rq"]
            word = ("running" if int(rq["curr"]) == int(t) else
                    "idle" if int(rq["idle"]) == int(t) else run_state_name(state))
            out.append("%4d %-15s %3u %-8s %4d %8d.%03d" % (int(t["id"]), name_of(t), int(t["cpu"]),
                                                           word, int(t["se"]["nice"]),
                                                           rt // 1000000, rt // 1000 % 1000))
        gdb.write("\n".join(out) + "\n")


# ---- runq-queue ----

def eevdf_V(ee):
    """avg_vruntime() (eevdf.c): v0 + floor(sum / load), v0 if empty."""
    load, v0 = u64(ee["load"]), u64(ee["v0"])
    if load == 0:
        return v0
    return (v0 + int128_at(ee["sum"]) // load) & MASK64  # Python's // is floor, as div_floor()


def eevdf_eligible(ee, v):
    """vt_eligible() (eevdf.c): (v - v0) * load <= sum, exactly."""
    load = u64(ee["load"])
    if load == 0:
        return True
    return s64(v - u64(ee["v0"])) * load <= int128_at(ee["sum"])


def fmt_vus(vns):
    """fmt_vus() (sched_cmd.c): virtual ns as virtual us, 3 decimals."""
    a = abs(vns)
    return "%s%d.%03d" % ("-" if vns < 0 else "", a // 1000, a % 1000)


class RunqQueue(gdb.Command):
    """The policy's queue on CPU, as `sched queue CPU` prints it.
EEVDF: V, and each entity's weight, slice, vruntime and deadline (both
less V), lag (V - vruntime) and eligibility, in virtual microseconds."""

    def __init__(self):
        super().__init__("runq-queue", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        cpu = cpu_arg(arg, "runq-queue")
        rq = sym("cpus")[cpu]["rq"]
        q = rq["q"]
        policy = sym("sched_policy_current")
        # describe_queue(): only EEVDF has virtual time (rr's view is empty).
        vtime = int(policy) == int(sym("&eevdf_policy"))
        ee = q["ee"]
        V = eevdf_V(ee) if vtime else 0
        cur = running(q)
        rt = q["rt"]
        # sched_queue() (sched_cmd.c), the header
        runnable = int(q["nr_queued"]) + int(rt["nr_queued"]) + (1 if int(cur) else 0)
        line = "queue cpu=%d policy=%s runnable=%d%s" % (cpu, policy["name"].string(), runnable,
                                                         " (idle)" if bool(rq["idle_idling"]) and not int(cur) else "")
        if int(rt["curr"]) or int(rt["nr_queued"]):
            # sched_rt_throttled() (decide.c) with rt_budget_used() (rt.c)
            no_budget = MASK64  # RT_NO_BUDGET (rt.h): UINT64_MAX
            used = u64(rt["runtime_ns"]) != no_budget and u64(rt["used_ns"]) >= u64(rt["runtime_ns"])
            fair_waiting = int(q["nr_queued"]) > 0 or int(q["curr"]) != 0
            line += " rt=%d%s" % (int(rt["nr_queued"]) + (1 if int(rt["curr"]) else 0),
                                  " (rt throttled)" if used and fair_waiting else "")
        if vtime:
            line += " V=%d.%03d base_slice_us=%d" % (V // 1000, V % 1000, u64(ee["base_slice"]) // 1000)
        out = [line]
        if vtime:
            out.append("    ID NAME            NICE WEIGHT SLICE_US STATE     VRUNTIME-V   DEADLINE-V          LAG ELIGIBLE")
        else:
            out.append("    ID NAME            NICE STATE")
        rt_rr = header_define("kernel/sched/rt.h", "RT_RR")
        for t in tasks():  # queue_line() (sched_cmd.c)
            se = t["se"]
            if int(t["cpu"]) != cpu or not bool(se["on_queue"]):
                continue
            state = "running" if int(cur) == int(se.address) else "queued"
            if int(se["rt"]["prio"]):  # sched_is_rt()
                out.append("  %4d %-15s %4d %-8s rt prio=%d %s" % (int(t["id"]), name_of(t), int(se["nice"]), state,
                                                                  int(se["rt"]["prio"]),
                                                                  "rr" if int(se["rt"]["policy"]) == rt_rr else "fifo"))
                continue
            if not vtime:
                out.append("  %4d %-15s %4d %-8s" % (int(t["id"]), name_of(t), int(se["nice"]), state))
                continue
            e = se["ee"]  # eevdf_describe() (eevdf.c)
            vr, dl = u64(e["vruntime"]), u64(e["deadline"])
            lag = s64(V - vr)  # eevdf_lag(): on the queue, V - vruntime
            if bool(e["delayed"]):
                state = "delayed"
            out.append("  %4d %-15s %4d %6d %8d %-8s %12s %12s %12s %s" % (
                int(t["id"]), name_of(t), int(se["nice"]), int(e["weight"]), u64(e["slice"]) // 1000, state,
                fmt_vus(s64(vr - V)), fmt_vus(s64(dl - V)), fmt_vus(lag),
                "yes" if eevdf_eligible(ee, vr) else "no"))
        lock = rq["lock"]
        if int(lock["locked"]):
            out.append("note: cpu %d's queue lock is held by cpu %d: it may be stopped mid-change" %
                       (cpu, int(lock["owner_cpu"])))
        gdb.write("\n".join(out) + "\n")


# ---- runq-wake ----

class RunqWake(gdb.Command):
    """CPU's wake stack: tasks woken (or moving here) that its next decision
joins (core.c, drain_wakes). Newest first; they join oldest first. Each
should be in state waking: another state is a broken wake protocol."""

    def __init__(self):
        super().__init__("runq-wake", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        cpu = cpu_arg(arg, "runq-wake")
        rq = sym("cpus")[cpu]["rq"]
        rows = []
        t = rq["wake_stack"]
        while int(t):
            rows.append("  %4d %-15s %3u %-8s %s" % (int(t["id"]), name_of(t), int(t["cpu"]),
                                                     run_state_name(int(t["state"])),
                                                     "yes" if bool(t["moving"]) else "no"))
            if len(rows) > WALK_MAX:
                raise gdb.GdbError("runq: cpu %d's wake stack longer than %d: a cycle?" % (cpu, WALK_MAX))
            t = t["wake_next"]
        out = ["wake cpu=%d tasks=%d (newest first)" % (cpu, len(rows)),
               "    ID NAME            CPU STATE    MOVING"] + rows
        gdb.write("\n".join(out) + "\n")


# ---- runq-trace ----

class RunqTrace(gdb.Command):
    """CPU's trace ring (kernel/trace/ring.h): head and tail (bytes since
boot), used = head - tail of size, records dropped, packets framed.
ring_used and dropped are what the shell's `trace` prints."""

    def __init__(self):
        super().__init__("runq-trace", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        cpu = cpu_arg(arg, "runq-trace")
        r = sym("trace_rings")[cpu]
        size = header_define("kernel/trace/ring.h", "TRACE_RING_SIZE")
        head, tail = u64(r["head"]), u64(r["tail"])
        used = (head - tail) & MASK64
        out = ["ring cpu=%d head=%d tail=%d ring_used=%d size=%d dropped=%d packets=%d buf=%s" % (
            cpu, head, tail, used, size, int(r["dropped"]), int(r["seq"]),
            "none" if not int(r["buf"]) else "0x%x" % int(r["buf"]))]
        if used > size:
            out.append("note: more bytes used than the ring holds: head or tail is corrupt")
        gdb.write("\n".join(out) + "\n")


RunqPs()
RunqQueue()
RunqWake()
RunqTrace()
