#!/usr/bin/env bash
# Tests of runq's argument handling and QEMU exit mapping that need no
# kernel: a fake QEMU (a shell script chosen by $QEMU) plays each ending.
# Usage: tests/cli/cli_test.sh [path/to/runq]   (default build/runq)
# Prints "PASS name" or "FAIL name: why" per check; exits 1 if any failed.

RUNQ=$(realpath "${1:-build/runq}") || exit 2
. "$(dirname "$0")/../lib.sh"




# The fake QEMU: records its argv (one per line) and stdin, then acts out
# $FAKE_MODE. It uses the isa-debug-exit statuses the real one would.
cat >"$T/qemu" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_DIR/argv"
readlink /proc/$$/fd/0 >"$FAKE_DIR/stdin"
echo $$ >"$FAKE_DIR/pid"
case "$FAKE_MODE" in
ok)      echo "runq kernel booting"; echo "fake-qemu: warning: noise" >&2
         printf 'hello\r\n'; printf 'no newline at end'; exit 33 ;;
fail)    echo "PASS sched_a"; printf 'FAIL sched_rr: want 3 got 4\r\n'
         echo "FAIL sched_b: second"; exit 35 ;;
panic)   echo "booting"; echo "PANIC: cpu1: BUG_ON(x) at rq.c:12"; exit 37 ;;
silent_panic) exit 37 ;;
error)   echo "fake-qemu: cannot load kernel" >&2; exit 1 ;;
reset)   exit 0 ;;
killed)  kill -KILL $$ ;;
hang)    echo "up"; sleep 1000; exit 33 ;;
stubborn) trap '' TERM; echo "up"; while :; do sleep 1; done ;;
esac
exit 99
EOF
chmod +x "$T/qemu"
touch "$T/kernel.elf"
export FAKE_DIR=$T QEMU=$T/qemu
unset ACCEL RUNQ_KERNEL
K=(--kernel "$T/kernel.elf")

# The kernel command line the fake was given.
cmdline() { awk 'p { print; exit } $0 == "-append" { p = 1 }' "$T/argv"; }
argv_line() { tr '\n' ' ' <"$T/argv"; }

# ---- dispatch and help ----
runq help
if [ $rc = 0 ] && grep -q '^  boot ' "$T/out" && grep -q '^  run ' "$T/out"; then
    pass help_lists_commands
else failed help_lists_commands "rc $rc: $(cat "$T/out")"; fi
expect dash_dash_help 0 "" --help
# A bare `runq` is the one usage error that prints more than a line: the
# command list, on stderr, and exit 2.
runq
if [ "$rc" = 2 ] && head -n 1 "$T/err" | grep -q '^usage: runq' && grep -q '^  sim ' "$T/err" && [ ! -s "$T/out" ]; then
    pass no_args_is_usage_error
else
    failed no_args_is_usage_error "exit $rc; stderr: $(head -c 200 "$T/err")"
fi
expect unknown_command 2 "runq: 'frobnicate' is not a runq command" frobnicate
[ "$(wc -l <"$T/err")" = 1 ] && pass unknown_command_one_line || failed unknown_command_one_line "$(cat "$T/err")"
expect unknown_top_option 2 "runq: unknown option" --frob
expect help_unknown_command 2 "not a runq command" help frobnicate
runq boot --help
missing=
for f in policy hz cpus deterministic cmd test timeout kernel append gdb; do
    grep -q -- "--$f" "$T/out" || missing="$missing --$f"
done
[ $rc = 0 ] && [ -z "$missing" ] && grep -q 'default 600' "$T/out" \
    && pass boot_help_lists_every_flag || failed boot_help_lists_every_flag "rc $rc, missing:$missing"
cp "$T/out" "$T/boot_help"
runq help boot
cmp -s "$T/out" "$T/boot_help" && pass help_boot_same_as_boot_help || failed help_boot_same_as_boot_help "differs"
runq run --help
[ $rc = 0 ] && grep -q -- --cpus "$T/out" && ! grep -q -- --timeout "$T/out" \
    && pass run_help || failed run_help "rc $rc"

# ---- bad flags: exit 2, one line starting "runq boot: " ----
expect cpus_zero 2 "runq boot: --cpus takes 1..64, not '0'" boot "${K[@]}" --cpus 0
expect cpus_65 2 "--cpus takes 1..64" boot "${K[@]}" --cpus 65
expect cpus_not_number 2 "--cpus takes 1..64, not '4x'" boot "${K[@]}" --cpus 4x
expect cpus_negative 2 "--cpus takes 1..64, not '-1'" boot "${K[@]}" --cpus=-1
expect cpus_empty 2 "--cpus takes 1..64, not ''" boot "${K[@]}" --cpus=
expect cpus_missing_value 2 "--cpus needs a value" boot "${K[@]}" --cpus
expect hz_300 2 "--hz takes 100, 250 or 1000, not '300'" boot "${K[@]}" --hz 300
expect policy_cfs 2 "--policy takes rr or eevdf, not 'cfs'" boot "${K[@]}" --policy cfs
expect timeout_zero 2 "--timeout takes a positive number of seconds, not '0'" boot "${K[@]}" --timeout 0
expect timeout_fraction 2 "--timeout takes a positive number of seconds" boot "${K[@]}" --timeout 1.5
expect cmd_semicolon 2 "may not contain ';'" boot "${K[@]}" --cmd "echo a; echo b"
expect cmd_newline 2 "may not contain ';' or a newline" boot "${K[@]}" --cmd $'echo a\necho b'
expect cmd_control_char 2 "printable" boot "${K[@]}" --cmd $'echo \t a'
expect test_bad_name 2 "--test takes a self-test's name or all" boot "${K[@]}" --test "a b"
expect append_dashdash 2 "--append" boot "${K[@]}" --append "x -- y"
expect switch_with_value 2 "--gdb takes no value" boot "${K[@]}" --gdb=1
expect unknown_flag 2 "runq boot: unknown flag '--bogus'" boot "${K[@]}" --bogus
expect stray_argument 2 "runq boot: unexpected argument 'extra'; see runq boot --help" boot "${K[@]}" extra
expect run_rejects_timeout 2 "runq run: unknown flag '--timeout'" run "${K[@]}" --timeout 5
[ ! -e "$T/argv" ] && pass bad_flags_never_start_qemu || failed bad_flags_never_start_qemu "fake ran"

# ---- kernel and QEMU lookup ----
expect kernel_missing 1 "runq boot: kernel /nonexistent/k.elf" boot --kernel /nonexistent/k.elf
RUNQ_KERNEL=/nonexistent/env.elf expect kernel_env_missing 1 "/nonexistent/env.elf" boot
QEMU=/nonexistent/qemu-system-x86_64 expect qemu_not_found 1 \
    "runq boot: /nonexistent/qemu-system-x86_64 not found; run make deps" boot "${K[@]}"
mkdir "$T/bin" && cp "$RUNQ" "$T/bin/runq" && touch "$T/bin/kernel.elf"
FAKE_MODE=ok "$T/bin/runq" boot >/dev/null 2>&1
grep -qx "$T/bin/kernel.elf" "$T/argv" && pass kernel_default_beside_binary \
    || failed kernel_default_beside_binary "argv: $(argv_line)"

# ---- exit mapping ----
FAKE_MODE=ok expect exit33_is_success 0 "" boot "${K[@]}"
stdout_has console_copied "runq kernel booting"
grep -qx hello "$T/out" && pass console_crlf_stripped || failed console_crlf_stripped "$(od -c "$T/out" | head -3)"
stdout_has console_last_unterminated_line "no newline at end"
grep -qF "fake-qemu: warning: noise" "$T/err" && pass qemu_stderr_passed_on || failed qemu_stderr_passed_on "missing"
[ "$(cat "$T/stdin")" = /dev/null ] && pass qemu_stdin_devnull || failed qemu_stdin_devnull "$(cat "$T/stdin")"
FAKE_MODE=fail expect exit35_self_test_failed 1 "runq boot: self-test failed: FAIL sched_rr: want 3 got 4" boot "${K[@]}"
tail -n1 "$T/err" | grep -qx 'runq boot: self-test failed: FAIL sched_rr: want 3 got 4' \
    && pass exit35_reason_is_first_fail_line || failed exit35_reason_is_first_fail_line "$(tail -n1 "$T/err" | od -c | head -2)"
FAKE_MODE=panic expect exit37_panic 1 "runq boot: kernel panic: PANIC: cpu1: BUG_ON(x) at rq.c:12" boot "${K[@]}"
FAKE_MODE=silent_panic expect exit37_panic_without_line 1 "runq boot: kernel panic: (no PANIC line" boot "${K[@]}"
FAKE_MODE=error expect other_status_with_qemu_stderr 1 \
    "runq boot: qemu exited with status 1: fake-qemu: cannot load kernel" boot "${K[@]}"
FAKE_MODE=reset expect exit0_is_not_success 1 "runq boot: qemu exited with status 0" boot "${K[@]}"
FAKE_MODE=killed expect qemu_killed_by_signal 1 "runq boot: qemu killed by signal 9" boot "${K[@]}"

# ---- timeout and signals ----
start=$SECONDS
FAKE_MODE=hang expect timeout 1 "runq boot: timeout after 1 s" boot "${K[@]}" --timeout 1
[ $((SECONDS - start)) -le 4 ] && pass timeout_is_prompt || failed timeout_is_prompt "took $((SECONDS - start)) s"
start=$SECONDS
FAKE_MODE=stubborn expect timeout_sigkill_when_term_ignored 1 "timeout after 1 s" boot "${K[@]}" --timeout=1
pid=$(cat "$T/pid")
[ $((SECONDS - start)) -le 6 ] && ! kill -0 "$pid" 2>/dev/null && pass sigkill_after_grace \
    || failed sigkill_after_grace "took $((SECONDS - start)) s, fake alive: $(kill -0 "$pid" 2>&1 && echo yes)"

# A console line must reach stdout while QEMU is still running.
FAKE_MODE=hang "$RUNQ" boot "${K[@]}" --timeout 10 >"$T/out" 2>"$T/err" </dev/null &
bg=$!
sleep 1
grep -qx up "$T/out" && pass console_streamed_per_line || failed console_streamed_per_line "nothing after 1 s"
kill -INT $bg
wait $bg
rc=$?
[ $rc = 130 ] && grep -q "runq boot: interrupted by SIGINT" "$T/err" && pass sigint_exits_130 \
    || failed sigint_exits_130 "exit $rc: $(cat "$T/err")"
! kill -0 "$(cat "$T/pid")" 2>/dev/null && pass sigint_stops_qemu || failed sigint_stops_qemu "fake alive"
FAKE_MODE=hang "$RUNQ" boot "${K[@]}" >"$T/out" 2>"$T/err" </dev/null &
bg=$!
sleep 1
kill -TERM $bg
wait $bg
rc=$?
[ $rc = 143 ] && grep -q "runq boot: interrupted by SIGTERM" "$T/err" && pass sigterm_exits_143 \
    || failed sigterm_exits_143 "exit $rc: $(cat "$T/err")"

# ---- the QEMU argv and kernel command line ----
FAKE_MODE=ok runq boot "${K[@]}" --policy eevdf --hz 250 --test all --append "extra=1 x" \
    --cmd "echo hi" --cmd "ls /" --cpus 4
want='sched=eevdf hz=250 test=all extra=1 x -- echo hi; ls /; poweroff'
[ "$(cmdline)" = "$want" ] && pass cmdline_full || failed cmdline_full "got '$(cmdline)'"
want="-machine pc -m 256M -smp 4 -kernel $T/kernel.elf -append $want -display none -no-reboot -serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=4 -accel tcg -cpu qemu64,+sse4.2 "
[ "$(argv_line)" = "$want" ] && pass qemu_argv_exact || failed qemu_argv_exact "got '$(argv_line)'"
FAKE_MODE=ok runq boot "${K[@]}" --policy=rr --hz=100 --cmd=echo\ x --cpus=2
[ "$(cmdline)" = "sched=rr hz=100 -- echo x; poweroff" ] && grep -qx 2 "$T/argv" \
    && pass equals_form || failed equals_form "got '$(cmdline)'"
# The kernel takes a command line of at most 2047 bytes ("-- echo X; poweroff"
# is X + 18): runq boot passes that one and refuses one byte more before QEMU
# starts (2,048 bytes and up panicked the kernel, 4.2K+ garbled PVH's start
# info, 50K+ gave no output until the timeout; issue 13).
x=$(printf 'x%.0s' $(seq 2029))
rm -f "$T/argv"
FAKE_MODE=ok runq boot "${K[@]}" --cmd "echo $x"
if [ "$rc" = 0 ] && [ "$(cmdline | wc -c)" = 2048 ]; then pass cmdline_of_2047_bytes_passes; else
    failed cmdline_of_2047_bytes_passes "exit $rc, -append of $(cmdline | wc -c) bytes with its newline"; fi
rm -f "$T/argv"
expect cmdline_over_the_kernels_limit_refused 2 "runq boot: the kernel command line would be 2048 bytes; it holds at most 2047" \
    boot "${K[@]}" --cmd "echo ${x}x"
[ ! -e "$T/argv" ] && pass cmdline_over_the_limit_never_starts_qemu || failed cmdline_over_the_limit_never_starts_qemu "fake ran"
FAKE_MODE=ok runq boot "${K[@]}"
[ "$(cmdline)" = "-- poweroff" ] && pass cmdline_defaults_poweroff_only || failed cmdline_defaults_poweroff_only "got '$(cmdline)'"
FAKE_MODE=ok ACCEL=kvm runq boot "${K[@]}" --deterministic
argv_line | grep -qF -- "-icount shift=3,sleep=off,align=off -accel tcg -cpu qemu64,+sse4.2 " && ! grep -qx kvm "$T/argv" \
    && pass deterministic_forces_tcg_icount || failed deterministic_forces_tcg_icount "$(argv_line)"
FAKE_MODE=ok ACCEL=kvm runq boot "${K[@]}"
argv_line | grep -qF -- "-accel kvm -cpu host " && pass accel_kvm_cpu_host || failed accel_kvm_cpu_host "$(argv_line)"
FAKE_MODE=ok runq boot "${K[@]}" --gdb
argv_line | grep -qF -- " -s -S " && grep -q "attach with: gdb" "$T/err" && pass gdb_flags || failed gdb_flags "$(argv_line)"
FAKE_MODE=reset runq run "${K[@]}" --cmd "echo hi" --policy rr
[ $rc = 0 ] && [ "$(cmdline)" = "sched=rr -- echo hi" ] && argv_line | grep -qF -- "-serial mon:stdio " \
    && argv_line | grep -qF -- "name=org.runq.trace.0" \
    && pass run_interactive_argv || failed run_interactive_argv "exit $rc, argv $(argv_line)"
FAKE_MODE=panic runq run "${K[@]}"
[ $rc = 1 ] && grep -q "runq run: kernel panic" "$T/err" && pass run_maps_panic || failed run_maps_panic "exit $rc"

# ---- the real QEMU accepts the argv (it refuses a non-PVH "kernel") ----
if command -v qemu-system-x86_64 >/dev/null; then
    QEMU= expect real_qemu_surfaces_its_error 1 "runq boot: qemu exited with status 1: qemu-system-x86_64: Error loading uncompressed kernel without PVH ELF Note" \
        boot --kernel /bin/true --timeout 5
else
    echo "SKIP real_qemu_surfaces_its_error: no qemu-system-x86_64"
fi

# docs/top.md's key table is the one `runq top --help` prints from the
# view's action table (tui/top.c), row for row.
doc_keys=$(awk '/^## Keys/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' docs/top.md |
    sed -E 's/^\| `(.*)` \| (.*) \|$/\1|\2/')
help_keys=$("$RUNQ" top --help | awk '/^keys/ { on = 1; next } on && /^$/ { exit } on' |
    sed -E 's/^  (.{28}) (.*)$/\1|\2/; s/ +\|/|/')
if [ -n "$doc_keys" ] && [ "$doc_keys" = "$help_keys" ]; then
    pass "top_keys_doc_matches_the_action_table ($(wc -l <<<"$doc_keys") keys)"
else
    failed top_keys_doc_matches_the_action_table "$(diff <(echo "$doc_keys") <(echo "$help_keys") | head -5 | tr '\n' ' ')"
fi

exit $fail
