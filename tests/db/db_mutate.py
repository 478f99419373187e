#!/usr/bin/env python3
"""Makes a runq database hostile, for tests/db/db_fuzz.sh.

usage: db_mutate.py SEED DIR DB

Rewrites DB in place, the same way for the same SEED and the same DB
(random.Random(SEED), tables by name, rows by rowid). It reads the schema
from the file itself (sqlite_master, PRAGMA table_info), so a column added
to db/schema.sql is mutated without a change here: TEXT columns get text
made of hostile pieces, INTEGER columns integers at the edges, REAL columns
doubles at theirs, a nullable column sometimes NULL, and now and then a
value of the other type (SQLite stores what it is given, whatever the
column says). Some rows are deleted (now and then all of a table's, or
all of one trace's but its row in trace), some duplicated, and an empty
table sometimes gets a few rows of its own.

Not everything is mutated, so that a reader gets past its first checks
(the trace exists, its CPUs are sane) to the code that prints a task's
name: each table is left alone half of the time; the others have their
text mutated (half of them), their numbers, or both, in a share of their
rows (at least one), keys (trace_id, utid) less often than the rest. A
small table (10 rows or fewer: trace, cpu, experiment) is left alone less
often, and then every row of it is mutated: it holds what every reader
reads first.

The payloads that would run a command touch DIR/C, or the file named by
the environment variable RUNQ_CANARY (the suite sets it to DIR/C: a
short payload fits a 31-byte field such as trace.policy); the one that
would make gnuplot write a file writes DIR/W; the SQL one attaches DIR/A.db.
So a payload that ran leaves a file in DIR, which the suite checks.

Prints one line: what it did, table by table.
"""
import random
import sqlite3
import sys

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def pieces(d):
    """The hostile pieces text is made of, as bytes (so that a NUL or
    invalid UTF-8 goes in as it is). d is the directory payloads write to."""
    c = (d + "/C").encode()
    return {
        # would run a command in a shell, in gnuplot, or in both
        "exec": [
            b"$(touch " + c + b")",
            b"`touch " + c + b"`",
            b"; touch " + c + b" #",
            b"|touch " + c,
            # gnuplot: out of a single- or double-quoted string, then a
            # command; short enough for a 31-byte field with the variable
            b"';system \"touch $RUNQ_CANARY\";#",
            b"\";system \"touch $RUNQ_CANARY\";#",
            b"'\n!touch $RUNQ_CANARY\n",
            b"'.system('touch $RUNQ_CANARY')#",
            b"\n!touch " + c + b"\n",
        ],
        # would write a file or read another database
        "write": [
            b"'\nset output '" + (d + "/W").encode() + b"'\nplot 1\n#",
            b"'; ATTACH '" + (d + "/A.db").encode() + b"' AS a; --",
            b"' OR 1=1 --",
        ],
        # terminal control: clear the screen, set the window's title
        "escape": [b"\x1b[2J", b"\x1b]0;runq-fuzz\x07", b"\x1b[31m", b"\x9b2J", b"\r\x1b[K"],
        # quoting and format characters
        "quote": [b"'", b'"', b"\\", b"\n", b"\r", b"`", b"%s%n%s%n", b"%999999999d", b"\t", b",", b"|"],
        # bytes that are not text
        "bytes": [b"a\x00b", b"\x00", b"\xff\xfe", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80"],
        # text that looks like a number, or like a value the reader knows
        "lookalike": [b"", b"1", b"-1", b"0", b"9223372036854775808", b"1e309", b"NaN", b"-0",
                      b"eevdf", b"rr", b"complete", b"recording", b"fair", b"rt", b"idle",
                      b"kernel", b"sim", b"linux", b"ok", b"failed", b"hog.slice", b"a=1 b=2"],
    }


class Mutator:
    def __init__(self, seed, d):
        self.r = random.Random(seed)
        self.p = pieces(d)
        self.classes = list(self.p)
        # exec payloads most often: they are what the suite is for, and
        # only a short one at the start of a string survives a field cut
        # at 31 bytes (trace.policy)
        self.weights = [8, 2, 2, 2, 1, 2]

    def text(self, old):
        r = self.r
        if r.random() < 0.1 and old is not None:
            return old  # a sensible value, moved to another row
        n = r.choice([1, 1, 1, 2, 3, 4])
        out = b""
        for _ in range(n):
            cls = r.choices(self.classes, self.weights)[0]
            out += r.choice(self.p[cls])
        if r.random() < 0.05:
            out = out + b"A" * 4096  # longer than any buffer sized by a guess
        return out

    def integer(self, old):
        r = self.r
        edges = [0, -1, 1, 2, 255, 256, 4194303, 4194304, INT64_MIN, INT64_MAX, INT64_MIN + 1,
                 INT64_MAX - 1, INT32_MIN, INT32_MAX, INT32_MIN - 1, INT32_MAX + 1, (1 << 32) - 1, 1 << 32]
        k = r.random()
        if k < 0.5:
            return r.choice(edges)
        if k < 0.7:
            return r.randint(-10, 1000)
        if k < 0.85 and isinstance(old, int):
            return max(INT64_MIN, min(INT64_MAX, old + r.randint(-1000, 1000)))
        return r.randint(INT64_MIN, INT64_MAX)

    def real(self):
        r = self.r
        return r.choice([0.0, -0.0, 1.0, -1.0, 1e308, -1e308, float("inf"), float("-inf"),
                         5e-324, 1e-300, 9.3e18, r.uniform(-1e6, 1e6)])

    def value(self, col, old):
        """A new value for a column: (SQL expression, parameter)."""
        r = self.r
        name, ctype, notnull, rowid_alias = col
        if not notnull and not rowid_alias and r.random() < 0.1:
            return "?", None
        if rowid_alias:
            return "?", self.integer(old)  # SQLite takes nothing else there
        kind = ctype
        if r.random() < 0.05:
            kind = r.choice(["TEXT", "INTEGER", "REAL", "BLOB"])
        if kind == "TEXT":
            return "CAST(? AS TEXT)", self.text(old if isinstance(old, bytes) else None)
        if kind == "BLOB":
            return "?", self.text(None)
        if kind == "REAL":
            return "?", self.real()
        return "?", self.integer(old)


def is_key(name):
    """A column naming a row of another table: a trace, a thread, a run."""
    return name.endswith("_id") or name.endswith("utid") or name in ("waker", "scenario")


def affinity(decl):
    """SQLite's affinity rules (datatype3.html, 3.1), as the mutator's kinds."""
    d = (decl or "").upper()
    if "INT" in d:
        return "INTEGER"
    if "CHAR" in d or "CLOB" in d or "TEXT" in d:
        return "TEXT"
    if "REAL" in d or "FLOA" in d or "DOUB" in d:
        return "REAL"
    return "INTEGER"


def main():
    seed, d, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    m = Mutator(seed, d)
    r = m.r
    db = sqlite3.connect(path, isolation_level=None)
    db.text_factory = bytes  # read text as it is stored, invalid UTF-8 or not
    db.execute("PRAGMA synchronous = OFF")  # a scratch copy: no need to wait for the disk
    db.execute("BEGIN")
    tables = [t.decode() for (t,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    done = []
    for t in tables:
        info = [(c[0], c[1].decode(), (c[2] or b"").decode(), c[3], c[4], c[5])
                for c in db.execute('PRAGMA table_info("%s")' % t)]
        pks = [c for c in info if c[5]]
        cols = [(c[1], affinity(c[2]), bool(c[3]),
                 len(pks) == 1 and c[5] == 1 and c[2].upper() == "INTEGER") for c in info]
        rowids = [x for (x,) in db.execute('SELECT rowid FROM "%s" ORDER BY rowid' % t)]
        # the small tables hold what every reader reads first
        small = 0 < len(rowids) <= 10
        if r.random() < (0.3 if small else 0.5):
            continue
        if not rowids:
            if r.random() < 0.5:
                n = r.randint(1, 5)
                for _ in range(n):
                    exprs, params = zip(*(m.value(c, None) for c in cols))
                    db.execute('INSERT OR IGNORE INTO "%s" (%s) VALUES (%s)' % (
                        t, ", ".join('"%s"' % c[0] for c in cols), ", ".join(exprs)), params)
                done.append("%s+%d" % (t, n))
            continue
        # Three ways to mutate a table. Text only: its numbers stay sane, so
        # its text reaches the code that prints it. Numbers only. Both, in
        # a share of its columns. A row whose trace_id or utid changed
        # belongs to no trace a reader asks for, and its text is never
        # read: keys are mutated less often than the rest.
        mode = r.choice(["text", "text", "numbers", "both"])
        texts = [c for c in cols if c[1] == "TEXT"]
        if mode == "text" and texts:
            p_row = 1.0 if small else r.choice([0.2, 0.5, 1.0])
            chosen = texts
        else:
            p_row = 1.0 if small else r.choice([0.002, 0.02, 0.2, 1.0])
            p_col = 0.5 if small else r.choice([0.2, 0.5, 1.0])
            chosen = [c for c in cols if (mode == "both" or c[1] != "TEXT") and
                      r.random() < (0.2 * p_col if is_key(c[0]) else p_col)]
            chosen = chosen or [r.choice(cols)]
        # now and then the table emptied: a trace with no events, a
        # thread table with no tasks
        p_del = r.choice([0, 0, 0, 0.01, 0.3] + [1.0] * (not small))
        p_dup = r.choice([0, 0, 0, 0.01, 0.2])
        # at least one row: a share of a small table's rows can be none
        hit = set(r.sample(rowids, max(1, int(p_row * len(rowids)))))
        changed = deleted = copied = 0
        for rowid in rowids:
            if r.random() < p_del:
                db.execute('DELETE FROM "%s" WHERE rowid = ?' % t, (rowid,))
                deleted += 1
                continue
            if r.random() < p_dup:
                # a rowid of our own: SQLite's next one is random once a
                # mutated id is INT64_MAX, and the seed would not say
                names = ", ".join('"%s"' % c[0] for c in cols if not c[3])
                db.execute('INSERT OR IGNORE INTO "%s" (rowid, %s) SELECT ?, %s FROM "%s" WHERE rowid = ?' % (
                    t, names, names, t), (r.randint(1, 1 << 62), rowid))
                copied += 1
            if rowid not in hit:
                continue
            cs = chosen if small else [c for c in chosen if r.random() < 0.7] or [r.choice(chosen)]
            old = db.execute('SELECT %s FROM "%s" WHERE rowid = ?' % (
                ", ".join('"%s"' % c[0] for c in cs), t), (rowid,)).fetchone()
            sets, params = [], []
            for c, o in zip(cs, old):
                e, v = m.value(c, o)
                sets.append('"%s" = %s' % (c[0], e))
                params.append(v)
            db.execute('UPDATE OR IGNORE "%s" SET %s WHERE rowid = ?' % (t, ", ".join(sets)),
                       params + [rowid])
            changed += 1
        done.append("%s ~%d -%d +%d" % (t, changed, deleted, copied))
    # Now and then a trace keeps its row and loses everything else: a trace
    # with no events, which a reader must not take for one with a few.
    # Last, so that no row mutated into that trace is left in it.
    if r.random() < 0.1:
        ids = [x for (x,) in db.execute("SELECT trace_id FROM trace ORDER BY trace_id")]
        if ids:
            x = r.choice(ids)
            for t in tables:
                cols = [c[1].decode() for c in db.execute('PRAGMA table_info("%s")' % t)]
                if t != "trace" and "trace_id" in cols:
                    db.execute('DELETE FROM "%s" WHERE trace_id = ?' % t, (x,))
            done.append("trace %d emptied" % x)
    db.execute("COMMIT")
    db.close()
    print("seed %d: %s" % (seed, ", ".join(done) or "nothing"))


if __name__ == "__main__":
    main()
