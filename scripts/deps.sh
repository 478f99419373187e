#!/bin/sh
# Makes sure the Debian packages runq builds and tests with are installed.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact apt-get line and fails, so nothing is ever installed by hand.
set -eu

# command-or-file:package pairs; a missing command or header means the package is needed
# (cpan stands for Debian's full perl, whose Digest::SHA scripts/docs.pl hashes with)
need="
qemu-system-x86_64:qemu-system-x86
gdb:gdb
sqlite3:sqlite3
/usr/include/sqlite3.h:libsqlite3-dev
/usr/include/ncurses.h:libncurses-dev
tmux:tmux
gcc:gcc
make:make
ld:binutils
clang:clang
/usr/include/bpf/libbpf.h:libbpf-dev
bpftool:bpftool
/usr/bin/time:time
parallel:parallel
gnuplot:gnuplot-nox
cpan:perl
cyclictest:rt-tests
"

missing=""
for pair in $need; do
    what=${pair%%:*}
    pkg=${pair#*:}
    case "$what" in
        /*) [ -e "$what" ] && continue ;;
        *) command -v "$what" >/dev/null 2>&1 && continue ;;
    esac
    missing="$missing $pkg"
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    echo "deps: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2
else
    echo "deps: missing packages; run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi
