#!/usr/bin/env bash
# A full disk (docs/sql.md, "When the disk fills up"): runq record keeps
# exactly what it committed, marks the trace incomplete, counts what it could
# not store and says so; runq boot keeps the stream it could not record.
# The disk is a small tmpfs, mounted in a mount namespace of the test's own
# (unshare: as root, or in an unprivileged user namespace otherwise).
#
# usage: tests/trace/trace_disk_full.sh [RUNQ]
set -u
cd "$(dirname "$0")/../.."
RUNQ=${1:-build/runq}
if [ -z "${RUNQ_DISK_NS:-}" ]; then
    userns=
    [ "$(id -u)" = 0 ] || userns=-r
    if ! unshare $userns -m true 2>/dev/null; then
        echo "FAIL namespace: cannot make a mount namespace (unshare $userns -m) to mount a small disk in"
        exit 1
    fi
    RUNQ_DISK_NS=1 exec unshare $userns -m --propagation private bash "$0" "$@"
fi

T=$(mktemp -d)
D=$T/disk
cleanup() { umount "$D" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
. tests/lib.sh
mkdir -p "$D"

# disk SIZE: a fresh, empty tmpfs of SIZE at $D.
disk() { umount "$D" 2>/dev/null; mount -t tmpfs -o "size=$1" runq-test "$D"; }
q() { sqlite3 "$@"; }

"$GEN" --records 1000000 --ms 100000000 --cpus 2 --tasks 8 --out "$T/s.bin" 2>/dev/null ||
    { failed fixture "trace_gen"; exit 1; }

# ---- a finished recording leaves no reserve file ----
# The whole stream recorded on a disk with room: the reference the full
# disks' rows are compared with, so the 1 M records are recorded whole
# once (under the sanitizers a recording is some seconds of CPU).
disk 200m
"$RUNQ" record --file "$T/s.bin" --db "$D/ref.db" >/dev/null 2>"$T/ref.err" ||
    { failed fixture "$(cat "$T/ref.err")"; exit 1; }
row=$(q "$D/ref.db" "SELECT status FROM trace")
if [ "$row" = complete ] && ! ls "$D" | grep -q -- -reserve-; then pass recording_leaves_no_reserve_file
else failed recording_leaves_no_reserve_file "status $row; $(ls "$D")"; fi
cp "$D/ref.db" "$T/ref.db"
R=$(q "$T/ref.db" "SELECT records FROM trace")

# record_full SIZE: records s.bin into a SIZE disk; sets rc, kept, lost.
record_full() {
    disk "$1" || { failed "mount_$1" "cannot mount a tmpfs"; return 1; }
    "$RUNQ" record --file "$T/s.bin" --db "$D/a.db" >/dev/null 2>"$T/err"
    rc=$?
    kept=$(sed -n 's/.*It keeps \([0-9]*\) records.*/\1/p' "$T/err")
    lost=$(sed -n 's/.* \([0-9]*\) records read after that were not stored.*/\1/p' "$T/err")
}

# ---- the disk fills after some commits ----
record_full 20m
row=$(q "$D/a.db" "SELECT status || ' ' || end_reason || ' ' || records FROM trace")
nst=$(q "$D/a.db" "SELECT value FROM stats WHERE name = 'records_not_stored'")
if [ "$rc" = 1 ] && grep -q 'stopped storing: the disk is full' "$T/err" && [ -n "$kept" ] && [ -n "$lost" ] &&
    [ "$kept" -gt 0 ] && [ $((kept + lost)) = "$R" ] && [ "$row" = "incomplete disk_full $kept" ] &&
    [ "$nst" = "$lost" ]; then
    pass disk_full_keeps_its_commits_and_counts_the_rest
else
    failed disk_full_keeps_its_commits_and_counts_the_rest \
        "rc=$rc kept=$kept lost=$lost of $R; trace: $row; records_not_stored=$nst; $(head -3 "$T/err")"
fi
# What it kept is exactly the start of the full recording, row for row.
cols="ts, cpu, prev_utid, next_utid, why, v, vruntime, deadline, lag, nr_eligible, nr_runnable, cost_ns"
n=$(q "$D/a.db" "SELECT count(*) FROM eevdf_pick")
a=$(q "$D/a.db" "SELECT $cols FROM eevdf_pick ORDER BY id" | md5sum)
b=$(q "$T/ref.db" "SELECT $cols FROM eevdf_pick ORDER BY id LIMIT $n" | md5sum)
ok=$(q "$D/a.db" "PRAGMA integrity_check")
if [ "$n" -gt 0 ] && [ "$a" = "$b" ] && [ "$ok" = ok ]; then pass disk_full_kept_rows_are_the_recordings_first
else failed disk_full_kept_rows_are_the_recordings_first "$n picks, same: $([ "$a" = "$b" ] && echo yes || echo no), $ok"; fi
if grep -q "$T/s.bin is untouched" "$T/err" && "$RUNQ" report loss --db "$D/a.db" | grep -q "records_not_stored .*$lost"; then
    pass disk_full_says_so
else
    failed disk_full_says_so "$(cat "$T/err"; "$RUNQ" report loss --db "$D/a.db" 2>&1 | head -12)"
fi
left=$(ls "$D" | grep -c -- -reserve-)
[ "$left" = 0 ] && pass disk_full_reserve_file_gone || failed disk_full_reserve_file_gone "$(ls "$D")"

# ---- no room for even the first commit ----
record_full 2m
row=$(q "$D/a.db" "SELECT status || ' ' || end_reason || ' ' || records FROM trace")
if [ "$rc" = 1 ] && [ "$kept" = 0 ] && [ "$lost" = "$R" ] && [ "$row" = "incomplete disk_full 0" ]; then
    pass disk_full_at_once
else
    failed disk_full_at_once "rc=$rc kept=$kept lost=$lost of $R; trace: $row; $(head -3 "$T/err")"
fi

# ---- room for the rows, none for the indexes ----
# The recorder follows a file that stops just short of the END; once it has
# committed all it read, the disk is filled but for a little; then the END
# comes and the finishing index build finds no room. (The test gen's short
# stream is recorded again after, into the same database, to show the next
# recording builds the indexes.)
disk 300m
bytes=$(wc -c <"$T/s.bin")
head -c $((bytes - 4096)) "$T/s.bin" >"$T/grow.bin"
"$RUNQ" record --file "$T/grow.bin" --follow --db "$D/c.db" >/dev/null 2>"$T/c.err" &
pid=$!
last=-1
# Until two looks a second apart see the same count, and a count that
# holds all but the missing tail (at most 4096 records: none is under a
# byte). Two equal looks alone were not enough: in a loaded make check the
# sanitized recorder had committed nothing yet, twice, and the filler
# left it no room for a record ('incomplete disk_full 0').
for _ in $(seq 1 100); do
    sleep 1
    now=$(q "$D/c.db" "SELECT records FROM trace" 2>/dev/null)
    [ -n "$now" ] && [ "$now" = "$last" ] && [ "$now" -ge $((R - 4096)) ] && break
    last=$now
done
avail=$(df --output=avail -B1 "$D" | tail -1)
fallocate -l $((avail - 256 * 1024)) "$D/filler"
tail -c 4096 "$T/s.bin" >>"$T/grow.bin"
wait $pid
rc=$?
row=$(q "$D/c.db" "SELECT status || ' ' || end_reason || ' ' || records FROM trace")
nidx=$(q "$D/c.db" "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
if [ "$rc" = 1 ] && grep -q "is stored, but the indexes are not: the disk is full" "$T/c.err" &&
    [ "$row" = "complete end $R" ] && [ "$nidx" = 0 ]; then
    pass disk_full_for_the_indexes_only_keeps_the_trace_complete
else
    failed disk_full_for_the_indexes_only_keeps_the_trace_complete "rc=$rc trace '$row' (of $R) indexes $nidx; $(tail -3 "$T/c.err")"
fi
rm -f "$D/filler"
"$GEN" --ms 200 --out "$T/short.bin" 2>/dev/null
"$RUNQ" record --file "$T/short.bin" --db "$D/c.db" >/dev/null 2>&1
nidx=$(q "$D/c.db" "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
want=$(grep -c '^CREATE INDEX' db/indexes.sql)
[ "$nidx" = "$want" ] && pass the_next_recording_builds_the_indexes || failed the_next_recording_builds_the_indexes "$nidx of $want"

# ---- runq boot keeps the stream it could not record ----
disk 2m
# 1.6 MiB left: a new database's first pages (its schema, about 0.5 MiB in
# 16 KiB pages: db/migrate.c), the reserve's 1 MiB, and little more
fallocate -l 400k "$D/filler"
"$RUNQ" boot --deterministic --timeout 300 --record "$D/x.db" --cmd "sched probe 2 200" >"$T/boot.out" 2>"$T/boot.err"
rc=$?
kept_file=$(sed -n 's/^runq boot: the trace stream is kept in \([^;]*\);.*/\1/p' "$T/boot.err")
if [ "$rc" = 1 ] && [ -n "$kept_file" ] && [ -s "$kept_file" ] &&
    "$RUNQ" record --file "$kept_file" --db "$T/again.db" >/dev/null 2>&1 &&
    [ "$(q "$T/again.db" "SELECT status FROM trace")" = complete ]; then
    pass boot_keeps_the_stream_it_could_not_record
else
    failed boot_keeps_the_stream_it_could_not_record "rc=$rc kept '$kept_file'; $(tail -4 "$T/boot.err")"
fi
[ -n "$kept_file" ] && rm -rf "$(dirname "$kept_file")"
exit $fail
