# tests/runner.sh: the runner behind tests/run.sh. Source it, list the
# suites with `suite NAME CMD...` (`suite --alone NAME CMD...` for one that
# must have the machine to itself), then call run_suites.
#
# Suites run in RUNQ_TEST_JOBS lanes at once (default: one more than the
# number of CPUs, since a suite spends part of its time waiting on a tmux
# screen, a socket or a boot: on 2 cores three lanes took 273 s, keeping
# 1.9 cores busy (user + sys over wall), where two took 336 s; 1 runs
# them one at a time in the listed order, as make test always did).
# The longest expected start first, so the lanes finish together: the
# expected seconds are the last run's (LOGS/durations, written at the end
# of every run), else tests/durations (kept in git, for a clean clone); a
# suite in neither is taken for the longest. --alone suites run last, one
# at a time, nothing beside them; --excl GROUP ones never beside another
# of GROUP (a lane takes the next suite instead). LOGS/schedule says when each suite
# started and ended (seconds from the first start), to see what ran beside
# a failing one, and after its name the CPU seconds (user + sys) of what
# it ran and waited for (not a tmux server's panes: the server is no
# child of the suite's): on a shared machine a suite's wall time says how
# busy the others were, its CPU what it costs.
#
# Each suite's result line is printed in the listed order, whatever order
# they finish in (a line waits for the suites listed above it), so two runs
# print the same lines in the same place. Each suite prints "PASS name",
# "FAIL name: why" or "SKIP name: why" lines (a check that could not run
# here). A suite that exits non-zero without a FAIL line counts as one
# failure, and so does a suite that checked nothing (no PASS, FAIL or SKIP
# line): a suite cannot pass by printing nothing. Skips are counted apart,
# never as passes. A suite's output goes to LOGS/NAME.log (stdin is
# /dev/null). Ends with the line "N passed, N failed" (skips on the line
# before); run_suites returns non-zero if anything failed.
#
# A lane is a process group of its own, so nothing a suite starts sees a
# terminal's ^C directly, and none of it starts with SIGINT ignored (as
# bash's background commands otherwise do); the runner passes ^C (SIGINT),
# SIGTERM or SIGHUP on to every running lane's group, and SIGKILLs what is
# left 5 s later.

LOGS=${LOGS:-build/test-logs}
DURATIONS=${DURATIONS:-tests/durations}
suite_names=()
suite_cmds=()
suite_alone=()
suite_excl=()

# suite [--alone] [--excl GROUP] NAME CMD...: --excl, never beside
# another suite of GROUP (the Linux suites each load the host's CPUs with
# their scenario, and one beside another is measured disturbed).
suite() {
    local alone=0 excl=""
    [ "$1" = --alone ] && { alone=1; shift; }
    [ "$1" = --excl ] && { excl=$2; shift 2; }
    suite_names+=("$1")
    shift
    suite_cmds+=("$(printf '%q ' "$@")")
    suite_alone+=("$alone")
    suite_excl+=("$excl")
}

# runner_jobs: how many lanes, from RUNQ_TEST_JOBS (a positive whole
# number) or one more than the number of CPUs.
runner_jobs() {
    local j=${RUNQ_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
    case $j in '' | *[!0-9]* | 0*) echo "tests/run.sh: RUNQ_TEST_JOBS='$j' is not a number of lanes (1, 2, ...)" >&2; return 1 ;; esac
    echo "$j"
}

# runner_order JOBS: the suites' indexes in the order they start. One lane:
# the listed order. More: the longest expected first (ties in the listed
# order), --alone ones last in the listed order.
runner_order() {
    local i
    if [ "$1" -eq 1 ]; then
        seq 0 $((${#suite_names[@]} - 1))
        return
    fi
    for i in "${!suite_names[@]}"; do
        echo "${suite_alone[$i]} $i ${suite_names[$i]}"
    done | awk -v committed="$DURATIONS" -v last="$LOGS/durations" '
        BEGIN {
            while ((getline l < committed) > 0) if (l !~ /^#/ && split(l, f, " ") == 2) secs[f[1]] = f[2]
            while ((getline l < last) > 0) if (split(l, f, " ") == 2) secs[f[1]] = f[2]
        }
        { print $1, ($3 in secs ? secs[$3] : 999999), $2 }' |
        sort -s -k1,1n -k2,2nr | awk '{ print $3 }'
}

# runner_cpu FILE: FILE holds bash's `times` (the shell's user and sys,
# then its children's, each as 1m2.500s); rewritten as the children's
# user + sys in seconds, "12.3 cpu".
runner_cpu() {
    awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
         END { printf "%.1f cpu\n", s }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# runner_report I RC SECS: counts suite I's PASS, FAIL and SKIP lines, notes
# in its log why it failed if it printed no FAIL line, adds them to the
# totals, and leaves its result line (with its FAIL and SKIP lines, and the
# log's tail on a failure) in report[I].
runner_report() {
    local i=$1 rc=$2 secs=$3 name=${suite_names[$1]} log=$LOGS/${suite_names[$1]}.log p f k
    p=$(grep -c '^PASS ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    k=$(grep -c '^SKIP ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with status $rc" >>"$log"
        f=1
    elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$k" -eq 0 ]; then
        echo "FAIL $name: no check ran (no PASS, FAIL or SKIP line)" >>"$log"
        f=1
    fi
    report[$i]=$(
        printf '%-28s %3d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$k" "$secs"
        grep -E '^(FAIL|SKIP) ' "$log" | sed 's/^/    /'
        if [ "$f" -ne 0 ]; then
            echo "    --- last lines of $log ---"
            tail -n 15 "$log" | sed 's/^/    /'
        fi
    )
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + k))
    took[$i]=$secs
}

# runner_stop SIGNAL: passes SIGNAL on to every running lane's process
# group, waits up to 5 s for them, SIGKILLs what is left, and exits.
runner_stop() {
    local pid n
    for pid in "${!lane_of[@]}"; do kill -s "$1" -- "-$pid" 2>/dev/null; done
    for n in $(seq 50); do
        for pid in "${!lane_of[@]}"; do kill -0 -- "-$pid" 2>/dev/null || unset "lane_of[$pid]"; done
        [ ${#lane_of[@]} -eq 0 ] && break
        sleep 0.1
    done
    for pid in "${!lane_of[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
    echo "tests/run.sh: stopped by SIG$1; logs of the suites that ran are in $LOGS/" >&2
    trap - "$1"
    kill -s "$1" $$
}

run_suites() {
    local jobs n i k p g pid rc t0 shown=0 running=0 alone_running=0
    local -a order launched report took started
    local -A lane_of excl_busy
    jobs=$(runner_jobs) || return 2
    passed=0 failed=0 skipped=0
    n=${#suite_names[@]}
    mkdir -p "$LOGS"
    mapfile -t order < <(runner_order "$jobs")
    t0=$SECONDS
    [ "$jobs" -gt 1 ] && echo "tests/run.sh: $n suites in $jobs lanes, longest first; results in the listed order (RUNQ_TEST_JOBS=1: one at a time)"
    trap 'runner_stop INT' INT
    trap 'runner_stop TERM' TERM
    trap 'runner_stop HUP' HUP
    while [ "$shown" -lt "$n" ]; do
        # Start suites while a lane is free; an --alone suite waits for
        # every lane to empty and keeps the others waiting while it runs;
        # one whose --excl group is running is passed over for the next.
        while [ ${#order[@]} -gt 0 ] && [ "$running" -lt "$jobs" ] && [ "$alone_running" -eq 0 ]; do
            p=-1
            for k in "${!order[@]}"; do
                g=${suite_excl[${order[$k]}]}
                if [ -z "$g" ] || [ -z "${excl_busy[$g]:-}" ]; then p=$k; break; fi
            done
            [ "$p" -lt 0 ] && break
            i=${order[$p]}
            [ "${suite_alone[$i]}" = 1 ] && [ "$running" -gt 0 ] && break
            order=("${order[@]:0:p}" "${order[@]:p+1}")
            [ -n "${suite_excl[$i]}" ] && excl_busy[${suite_excl[$i]}]=1
            started[$i]=$SECONDS
            launched+=("$i")
            rm -f "$LOGS/${suite_names[$i]}.cpu" # a lane killed leaves none: '?', not the last run's
            set -m
            (
                eval "${suite_cmds[$i]}"
                rc=$?
                times >"$LOGS/${suite_names[$i]}.cpu" # a builtin in this shell: a pipe would fork it
                runner_cpu "$LOGS/${suite_names[$i]}.cpu"
                exit $rc
            ) >"$LOGS/${suite_names[$i]}.log" 2>&1 </dev/null &
            set +m
            lane_of[$!]=$i
            running=$((running + 1))
            [ "${suite_alone[$i]}" = 1 ] && alone_running=1
        done
        wait -n -p pid
        rc=$?
        if [ -z "${pid:-}" ]; then
            echo "FAIL tests/run.sh: no suite left running, $((n - shown)) results missing" >&2
            failed=$((failed + n - shown))
            break
        fi
        [ -n "${lane_of[$pid]+set}" ] || continue
        i=${lane_of[$pid]}
        unset "lane_of[$pid]"
        running=$((running - 1))
        [ "${suite_alone[$i]}" = 1 ] && alone_running=0
        [ -n "${suite_excl[$i]}" ] && unset "excl_busy[${suite_excl[$i]}]"
        runner_report "$i" "$rc" $((SECONDS - started[i]))
        while [ "$shown" -lt "$n" ] && [ -n "${report[$shown]+set}" ]; do
            printf '%s\n' "${report[$shown]}"
            shown=$((shown + 1))
        done
    done
    trap - INT TERM HUP
    for i in "${!suite_names[@]}"; do echo "${suite_names[$i]} ${took[$i]}"; done >"$LOGS/durations"
    for i in "${launched[@]}"; do
        printf '%5d %5d  %s %s\n' $((started[i] - t0)) $((started[i] - t0 + took[i])) "${suite_names[$i]}" \
            "$(cat "$LOGS/${suite_names[$i]}.cpu" 2>/dev/null || echo '?')"
    done >"$LOGS/schedule"
    echo "$skipped skipped (not run here, not counted as passed)"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
