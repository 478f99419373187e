#!/usr/bin/env bash
# The guest virtio-serial driver against QEMU's virtio-serial-pci: bytes
# reach a file chardev exactly (under icount, deterministically), the kernel
# boots without the device, and host->guest lines arrive over a socket.
# Usage: tests/kernel/vser_test.sh [KERNEL_ELF]   (default build/kernel.elf)
set -u
cd "$(dirname "$0")/../.."
KERNEL=${1:-build/kernel.elf}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

QEMU_BASE=(qemu-system-x86_64 -machine pc -m 256M -smp 4 -kernel "$KERNEL" -display none -no-reboot
    -serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=4 -cpu qemu64,+sse4.2)
ICOUNT=(-icount shift=3,sleep=off,align=off)
VSER_DEV=(-device virtio-serial-pci,ioeventfd=off,vectors=0)
PORT=(-device virtserialport,chardev=trace,name=org.runq.trace.0)

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; [ -n "${3:-}" ] && tail -n 8 "$3" | sed 's/^/    /'; }

# boot NAME SCRIPT QEMU-ARGS...: console to $TMP/NAME.out; sets rc.
boot() {
    local name=$1 script=$2
    shift 2
    # trace=off: the port carries only what vser sends (no tracer on it)
    timeout 120 "${QEMU_BASE[@]}" "$@" -append "trace=off -- $script" >"$TMP/$name.out" 2>&1
    rc=$?
}

# The pattern of `vser send N` (kernel/shell/vser_cmd.c): 16-byte records,
# each its own offset in 15 decimal digits and a newline, cut at N bytes.
pattern() {
    python3 -c 'import sys; n=int(sys.argv[1]); sys.stdout.write("".join("%015d\n" % i for i in range(0, n + 16, 16))[:n])' "$1"
}

# ---- guest -> host, file chardev, icount ----
file_run() { # name script
    boot "$1" "$2" "${ICOUNT[@]}" "${VSER_DEV[@]}" -chardev "file,id=trace,path=$TMP/$1.bin" "${PORT[@]}"
}

file_run echo "vser echo hello; vser status; poweroff"
if [ $rc -ne 33 ]; then fail echo_file "QEMU exited $rc" "$TMP/echo.out"
elif [ "$(cat "$TMP/echo.bin")" != hello ] || [ "$(wc -c <"$TMP/echo.bin")" -ne 6 ]; then
    fail echo_file "file holds '$(head -c 40 "$TMP/echo.bin" | od -c | head -2)'"
else pass echo_file; fi

if grep -q 'name=org.runq.trace.0 found=yes open=yes' "$TMP/echo.out" &&
    grep -q 'bytes_sent=6 buffers_sent=1 times_full=0' "$TMP/echo.out"; then pass status_counts
else fail status_counts "vser status lines not as expected" "$TMP/echo.out"; fi

file_run send "vser send 1000000; vser status; poweroff"
pattern 1000000 >"$TMP/want.bin"
if [ $rc -ne 33 ]; then fail send_1mb_exact "QEMU exited $rc" "$TMP/send.out"
elif ! cmp -s "$TMP/want.bin" "$TMP/send.bin"; then
    fail send_1mb_exact "file differs: $(cmp "$TMP/want.bin" "$TMP/send.bin" 2>&1 | head -1)"
else pass send_1mb_exact; fi

# icount with a file chardev is deterministic: a second run sees the same
# virtual time for the same send.
file_run send2 "vser send 1000000; vser status; poweroff"
a=$(grep '^vser sent=' "$TMP/send.out")
b=$(grep '^vser sent=' "$TMP/send2.out")
if [ -n "$a" ] && [ "$a" = "$b" ] && cmp -s "$TMP/send.bin" "$TMP/send2.bin"; then pass send_deterministic
else fail send_deterministic "'$a' vs '$b'"; fi

# ---- no device, and a device without our port ----
boot nodev "vser status; vser echo x; poweroff" "${ICOUNT[@]}"
if grep -q 'vser: no virtio-serial device' "$TMP/nodev.out" && grep -q '^vser device=not-found' "$TMP/nodev.out" &&
    grep -q '^poweroff:' "$TMP/nodev.out"; then pass boots_without_device
else fail boots_without_device "status $rc" "$TMP/nodev.out"; fi
# A failed command makes poweroff report failure: echo with no port must fail.
if [ $rc -eq 35 ] && grep -q 'port not open' "$TMP/nodev.out"; then pass echo_without_device_fails
else fail echo_without_device_fails "status $rc" "$TMP/nodev.out"; fi

boot noport "vser status; poweroff" "${ICOUNT[@]}" "${VSER_DEV[@]}" -chardev "file,id=other,path=$TMP/other.bin" \
    -device virtserialport,chardev=other,name=org.example.other
if [ $rc -eq 33 ] && grep -q 'vser: no port named org.runq.trace.0' "$TMP/noport.out" &&
    grep -q 'name=org.example.other found=no open=no' "$TMP/noport.out"; then pass device_without_port
else fail device_without_port "status $rc" "$TMP/noport.out"; fi

# ---- sockets: host -> guest lines, and a slow reader (no icount: the
# reader is outside input, and virtual time would race past it) ----
# sock_run NAME DELAY SCRIPT: a reader connects (QEMU waits for it: wait=on),
# writes "hello\n", sleeps DELAY seconds, then reads until QEMU exits.
sock_run() {
    local name=$1 delay=$2 script=$3 sock=$TMP/$1.sock
    python3 - "$sock" "$delay" "$TMP/$name.bin" <<'PY' &
import socket, sys, time
path, delay, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
for _ in range(400):
    try:
        s.connect(path)
        break
    except OSError:
        time.sleep(0.05)
s.sendall(b"hello\n")
time.sleep(delay)
data = bytearray()
while True:
    d = s.recv(1 << 16)
    if not d:
        break
    data += d
open(out, "wb").write(data)
PY
    local reader=$!
    boot "$name" "$script" "${VSER_DEV[@]}" -chardev "socket,id=trace,path=$sock,server=on,wait=on" "${PORT[@]}"
    wait $reader
}

sock_run recv 0 "vser recv 10000; vser echo got-it; poweroff"
if [ $rc -eq 33 ] && grep -q '^vser line: hello' "$TMP/recv.out" && grep -q '^vser lines=1' "$TMP/recv.out"; then
    pass recv_line_from_host
else fail recv_line_from_host "status $rc" "$TMP/recv.out"; fi
if [ "$(cat "$TMP/recv.bin" 2>/dev/null)" = got-it ]; then pass echo_over_socket
else fail echo_over_socket "reader got '$(head -c 40 "$TMP/recv.bin" 2>/dev/null)'"; fi

# The reader waits 2 s before reading anything: the port throttles, the
# guest sees its buffers held (times_full > 0), and nothing is lost.
sock_run slow 2 "vser send 4000000; vser status; poweroff"
pattern 4000000 >"$TMP/want4.bin"
if [ $rc -ne 33 ]; then fail slow_reader_loses_nothing "QEMU exited $rc" "$TMP/slow.out"
elif ! cmp -s "$TMP/want4.bin" "$TMP/slow.bin"; then
    fail slow_reader_loses_nothing "received differs: $(cmp "$TMP/want4.bin" "$TMP/slow.bin" 2>&1 | head -1)"
elif ! grep -Eq 'times_full=[1-9]' "$TMP/slow.out"; then
    fail slow_reader_loses_nothing "never throttled (times_full=0)" "$TMP/slow.out"
else pass slow_reader_loses_nothing; fi
