#!/usr/bin/env bash
# The whole test suite (make test): one `suite NAME CMD...` line a suite,
# run by tests/runner.sh, which says how the lanes work and how a suite
# passes or fails (and docs/testing.md, how to read a failure). It ends
# with the line "N passed, N failed" and exits non-zero if anything failed.
# A new suite goes above run_suites. It runs beside others, so it keeps
# its files in a directory of its own (mktemp -d): no fixed path in the
# tree or /tmp, no fixed port or tmux session name. One that cannot share
# the machine (it times the host) is listed `suite --alone NAME CMD...`.
set -u
cd "$(dirname "$0")/.."
# Which runq the shell suites drive. make test: RUNQ, the -O2 build a
# user runs (build/runq), but for the suites marked --san, which drive
# RUNQ_SAN (build/asan/runq: ASan, UBSan, LeakSanitizer): those feed runq
# crafted input, where a memory error hides, and some of their checks are
# a sanitizer's report (a leak, a one-byte overflow, a qsort of NULL).
# make check: every other suite of make test that drives runq again, as
# san_NAME, with RUNQ_SAN (unless a check line of that name replaces it).
# So every check still runs on the sanitized build in .ci/run, and the
# developer's loop does not pay for the sanitizers where they guard no
# check of their own: the same suites took 1.5 to 2.5 times the CPU on
# the sanitized build (scenario 32 CPU s against 12.5, merge 23.7 against
# 11.4), make test 1076 CPU s against 761.
RUNQ=${RUNQ:-build/runq}
RUNQ_SAN=${RUNQ_SAN:-build/asan/runq}
# A CI runner may start this in init's session: with autogroup on, that is
# the root task group, whose queues every other process of the machine
# shares, so a Linux suite's scenario is not alone in its queue and its
# picks cannot be replayed (linux_root_task_group in host/engine/linux/
# refuse.c). A user's terminal is a session of its own, and so are the
# suites: run again under setsid. RUNQ_PROC_AUTOGROUP stands in for
# /proc/self/autogroup (how the fidelity suite tests the warning); the new
# session's is real, so it is dropped there.
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] && [ -z "${RUNQ_TESTS_OWN_SESSION:-}" ] &&
    ! grep -q '^/autogroup-' "${RUNQ_PROC_AUTOGROUP:-/proc/self/autogroup}" 2>/dev/null; then
    echo "tests/run.sh: in the root task group (init's session): the suites run in a session of their own (setsid)" >&2
    RUNQ_TESTS_OWN_SESSION=1 exec env -u RUNQ_PROC_AUTOGROUP setsid -w bash "$PWD/tests/run.sh" "$@"
fi
# RUNQ_SAN and the unit tests run with ASan, UBSan and LeakSanitizer: a
# report exits 86, an exit no suite expects, so a sanitizer finding
# cannot pass for runq's own exit 1.
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=86:print_stacktrace=1}
# One run cache for every lab suite of this run (labs/engine/lab_cache.h),
# empty at the start: a lab's scenario boots once per make test whatever
# suite asks for it first, and nothing is read from or left in ~/.cache.
export RUNQ_LAB_CACHE=${RUNQ_LAB_CACHE:-$PWD/build/test-lab-cache}
[ "$RUNQ_LAB_CACHE" = off ] || { rm -rf "$RUNQ_LAB_CACHE" && mkdir -m 0700 -p "$RUNQ_LAB_CACHE"; }
. tests/runner.sh
# The runner's suite, kept as runner_suite: suite and check below pick by set.
eval "$(declare -f suite | sed '1s/^suite/runner_suite/')"
# suite [--alone] [--excl GROUP] [--san] NAME CMD...: make test's (the
# first two are the runner's: tests/runner.sh). --san: CMD drives
# "$RUNQ_SAN" in make test already (make check leaves it alone). In make
# check, one that drives runq (an argument is "$RUNQ") is kept for
# san_suites to add as san_NAME.
san_names=()
san_cmds=()
suite() {
    local flags=() san=0 a
    [ "$1" = --alone ] && { flags=(--alone); shift; }
    [ "$1" = --excl ] && { flags+=(--excl "$2"); shift 2; }
    [ "$1" = --san ] && { san=1; shift; }
    if [ "$SET" = test ]; then
        runner_suite "${flags[@]}" "$@"
    elif [ $san = 0 ]; then
        # A host-Linux suite's twin runs alone: beside make check's QEMU
        # lanes (docs_reproduce boots two at once) the sanitized recorder
        # matched no pick of linux_internals' top --linux --record (0
        # with V, where alone it gives about 200, and 42 beside three
        # busy loops).
        [ "${flags[*]}" = "--excl linux" ] && flags=(--alone)
        for a in "${@:2}"; do
            if [ "$a" = "$RUNQ" ]; then
                san_names+=("$1")
                san_cmds+=("$(printf '%q ' "${flags[@]}" "san_$1" "${@:2}")")
                break
            fi
        done
    fi
    return 0
}
check() { [ "$SET" = check ] && runner_suite "$@"; return 0; }
# san_suites: make check's san_NAME suites, those whose NAME has no check
# line of its own (that one runs longer, and sanitized already).
san_suites() {
    local i n
    [ "$SET" = check ] || return 0
    for i in "${!san_names[@]}"; do
        for n in "${suite_names[@]}"; do [ "$n" = "${san_names[$i]}" ] && continue 2; done
        eval "runner_suite ${san_cmds[$i]}"
    done
}

boot() { "$RUNQ" boot --deterministic --timeout 600 "$@"; }

# Two sets. make test (RUNQ_TEST_SET=test, the default): every suite
# listed with `suite`, in about 8.5 minutes on two cores. make check
# (RUNQ_TEST_SET=check): the suites listed with `check`, the long forms
# make test runs short (fuzzers for longer, more random workloads and
# hostile databases) and the docs' kernel examples run again, and the
# san_NAME twins (above); .ci/run runs both. docs/testing.md says which suite is where and what it costs.
SET=${RUNQ_TEST_SET:-test}
case $SET in test | check) ;; *) echo "tests/run.sh: RUNQ_TEST_SET is test or check, not '$SET'" >&2; exit 2 ;; esac

# The list itself: `duplicates` finds its lines alike in shape (a suite a
# line, each one call of suite or check); a list, so left as one.
# host
suite runner bash tests/runner_test.sh
suite layers bash tests/layers.sh
suite cli bash tests/cli/cli_test.sh "$RUNQ"
suite flags bash tests/cli/flags_test.sh "$RUNQ"
suite sim bash tests/engine/sim_test.sh "$RUNQ"
suite sim_balance bash tests/engine/sim_balance.sh "$RUNQ"
suite merge bash tests/experiment/merge_test.sh "$RUNQ"
suite scenario bash tests/experiment/scenario_test.sh "$RUNQ"
suite missed bash tests/experiment/missed_test.sh "$RUNQ"
suite experiments_doc_form env EXPERIMENTS_DOC_QUICK=1 bash tests/docs/experiments_doc_test.sh "$RUNQ"
check --excl linux experiments_doc bash tests/docs/experiments_doc_test.sh "$RUNQ"
suite docs_current bash tests/docs/docs_current.sh "$RUNQ"
check docs_reproduce bash tests/docs/docs_reproduce.sh "$RUNQ"
suite rr_policy build/tests/rr_test
suite rt_policy build/tests/rt_test
suite rt_fuzz bash tests/policy/rt_fuzz.sh 4
check rt_fuzz bash tests/policy/rt_fuzz.sh 30
suite eevdf_policy build/tests/eevdf_test
suite eevdf_fuzz bash tests/policy/eevdf_fuzz.sh 5
check eevdf_fuzz bash tests/policy/eevdf_fuzz.sh 60
suite linux_diff bash tests/policy/linux_diff.sh 100 "$RUNQ" build/tests/linux_ref
check linux_diff bash tests/policy/linux_diff.sh 1000 "$RUNQ" build/tests/linux_ref
suite bug_patches bash tests/policy/bug_patches.sh
suite trace_decode build/tests/trace_decode_test
suite sha256 build/tests/sha256_test
suite trace_ring build/tests/ring_test
suite trace_fuzz bash tests/trace/trace_fuzz.sh 5
check trace_fuzz bash tests/trace/trace_fuzz.sh 60
suite trace_corrupt bash tests/trace/trace_corrupt.sh "$RUNQ" build/tests/trace_gen
suite bounce bash tests/db/bounce_test.sh "$RUNQ" build/tests/trace_gen
suite compare bash tests/analysis/compare_test.sh "$RUNQ" build/tests/trace_gen
suite export bash tests/export/export_test.sh "$RUNQ"
suite trace_migrate bash tests/trace/trace_migrate.sh "$RUNQ" build/tests/trace_gen
suite trace_disk_full bash tests/trace/trace_disk_full.sh "$RUNQ"
suite trace_concurrent bash tests/trace/trace_concurrent.sh "$RUNQ" build/tests/trace_gen
suite top_model build/tests/top_model_test
suite top_tmux bash tests/tui/top_tmux.sh "$RUNQ"
suite step bash tests/tui/step_test.sh "$RUNQ"
suite step_tmux bash tests/tui/step_tmux.sh "$RUNQ"
suite lab env LAB_TEST_AGAIN=no bash tests/labs/lab_test.sh "$RUNQ" 01 02 03 04
# answers a student derives score full marks: one student on labs 1-4 (make
# check: two students on labs 1-5, lab 5 a 24 s crowded cell each)
suite lab_students bash tests/labs/lab_students_test.sh "$RUNQ" one
check lab_students bash tests/labs/lab_students_test.sh "$RUNQ" two
suite lab_5_7 env LAB_TEST_REST=no LAB_TEST_AGAIN=no bash tests/labs/lab_test.sh "$RUNQ" 05 06 07 08
# every lab booted twice: the same values measured (make test boots each once)
check lab_deterministic env LAB_TEST_AGAIN=only bash tests/labs/lab_test.sh "$RUNQ"
suite instructor bash tests/labs/instructor_test.sh "$RUNQ"
suite --excl linux linux_trace bash tests/engine/linux_trace_test.sh "$RUNQ"
# it times threads on the host's own scheduler: nothing beside it
suite --alone linux_run build/tests/linux_run_test
suite --excl linux linux_engine bash tests/engine/linux_engine_test.sh "$RUNQ"
suite --excl linux linux_internals bash tests/engine/linux_internals_test.sh "$RUNQ"
# moves on the host's Linux with their rules (issue 35 part 3): 2 s of hogs, a sleeper and a pipe pair as root
suite --excl linux linux_migrate bash tests/engine/linux_migrate_test.sh "$RUNQ"
suite --excl linux linux_views bash tests/engine/linux_views_test.sh "$RUNQ"
# Linux's picks replayed through runq's (issue 31, item 5): records 2 s of hogs as root
suite --excl linux fidelity bash tests/analysis/fidelity_test.sh "$RUNQ"
# a busy loop on one CPU for a few seconds: it checks only what load cannot move
suite --excl linux linux_trust bash tests/engine/linux_trust_test.sh "$RUNQ"
suite plot bash tests/export/plot_test.sh "$RUNQ"

# on the sanitized runq in make test too: the suites some of whose checks
# are a sanitizer's report, the hostile-input ones (issue 30) and
# trace_sql (a blob printed one byte past its buffer, issue 13)
suite --excl linux --san hostile_exp bash tests/experiment/hostile_exp_test.sh "$RUNQ_SAN"
suite --san trace_sql bash tests/db/trace_sql_test.sh "$RUNQ_SAN" build/tests/trace_gen
suite --san trace_hostile bash tests/trace/trace_hostile.sh "$RUNQ_SAN" build/runq build/tests/trace_hostile build/tests/trace_gen
suite --san hostile_rec bash tests/trace/hostile_rec_test.sh "$RUNQ_SAN" build/tests/trace_gen
suite --san hostile_view bash tests/tui/hostile_view_test.sh "$RUNQ_SAN"
suite --san lab_hostile bash tests/labs/lab_hostile_test.sh "$RUNQ_SAN"
suite --san hostile_out bash tests/export/hostile_out_test.sh "$RUNQ_SAN"
# the readers on hostile databases: 3 fixed seeds, make check 40 (make fuzz: 500 from the clock)
suite --san db_fuzz bash tests/db/db_fuzz.sh 3 "$RUNQ_SAN"
check db_fuzz bash tests/db/db_fuzz.sh 40 "$RUNQ"

# kernel: boot self-tests, on the default 4 CPUs and on 8
suite boot_selftests_eevdf boot --test all
check boot_selftests_rr_100hz boot --policy rr --hz 100 --test all
suite boot_selftests_rr_250hz boot --policy rr --test all
suite boot_wakestorm_8cpu boot --policy rr --cpus 8 --test TestWakeStorm
suite boot_pipering_8cpu boot --cpus 8 --test TestPipeRing
suite boot_smp bash tests/kernel/boot_smp.sh "$RUNQ"
suite shell bash tests/kernel/shell_test.sh "$RUNQ"
suite vser bash tests/kernel/vser_test.sh build/kernel.elf
suite trace_kernel bash tests/kernel/trace_kernel.sh "$RUNQ"
suite top_agree bash tests/tui/top_agree.sh "$RUNQ"
suite rt_kernel bash tests/kernel/rt_kernel.sh "$RUNQ"
suite balance bash tests/kernel/balance.sh "$RUNQ"
suite host_cmd bash tests/kernel/host_cmd.sh "$RUNQ"
suite trace_fields bash tests/kernel/trace_fields.sh "$RUNQ"
suite probe_rr bash tests/kernel/probe_rr.sh "$RUNQ"
suite probe_eevdf bash tests/kernel/probe_eevdf.sh "$RUNQ"
suite handoff bash tests/kernel/handoff_test.sh "$RUNQ"
suite gdb bash tests/kernel/gdb_test.sh "$RUNQ"
# every bench of make bench once in its short form (BENCH_SHORT=1), with
# the build make bench times: each runs and prints its table, no speed
suite --excl linux benches_short bash tests/benches_short.sh build/runq

san_suites
# RUNQ_TEST_LIST=1: the suites of this set, "NAME CMD" a line, none run
# (the runner suite checks the sets with it); =alone: the --alone ones.
if [ "${RUNQ_TEST_LIST:-}" = alone ]; then
    for i in "${!suite_names[@]}"; do [ "${suite_alone[$i]}" = 1 ] && echo "${suite_names[$i]}"; done
    exit 0
elif [ -n "${RUNQ_TEST_LIST:-}" ]; then
    for i in "${!suite_names[@]}"; do echo "${suite_names[$i]} ${suite_cmds[$i]}"; done
    exit 0
fi
run_suites
