#!/usr/bin/env bash
# Boots the kernel N times in a row (default 100) and fails if any boot
# stalls (hits the wall-clock guard) or panics. Not part of make test; run it
# after touching the boot path or the scheduler core:
#     tests/kernel/boot_loop.sh [N] [runq boot flags...]
# Boots are NOT deterministic by default (plain TCG), so every boot sees
# different timing: that is the point. The self-tests' time bounds are meant
# for icount's guest time, and under a loaded host's TCG they can be missed
# without anything being stuck; such boots are counted and shown apart.
set -u
cd "$(dirname "$0")/../.."
n=${1:-100}
shift || true
extra=("$@")
[ ${#extra[@]} -eq 0 ] && extra=(--test TestIdleTakesTurns --cpus 4)
# Boot a snapshot, so that a rebuild meanwhile cannot change what is tested.
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
cp build/runq build/kernel.elf "$snap/" || exit 1
stalls=0 panics=0 testfails=0
t0=$(date +%s)
for i in $(seq 1 "$n"); do
    out=$("$snap/runq" boot --kernel "$snap/kernel.elf" --timeout 120 "${extra[@]}" 2>&1) && continue
    reason=$(grep '^runq boot:' <<<"$out" | tail -1)
    case "$reason" in
    *timeout*) stalls=$((stalls + 1)); echo "boot $i STALLED:"; tail -8 <<<"$out" ;;
    *"self-test failed"*) testfails=$((testfails + 1)); echo "boot $i: $reason" ;;
    *) panics=$((panics + 1)); echo "boot $i FAILED:"; tail -8 <<<"$out" ;;
    esac
done
echo "$n boots in $(($(date +%s) - t0)) s: $stalls stalled, $panics panicked or crashed, $testfails missed a time bound (flags: ${extra[*]})"
[ $stalls -eq 0 ] && [ $panics -eq 0 ]
