#!/usr/bin/env bash
# A copy of the source tree with one policy bug put back.
#
#   scripts/bug_tree.sh NAME DIR           the copy, with tests/bugs/eevdf/NAME.patch applied
#   scripts/bug_tree.sh --merge NAME DIR   the same, but a hunk that does not apply leaves
#                                          conflict markers in DIR to resolve by hand (no
#                                          NAME.patch yet: a plain copy, to write a new bug in)
#   scripts/bug_tree.sh --write NAME DIR   write NAME.patch again: DIR's kernel/ against
#                                          kernel/ as it was copied
#
# The copy holds the files git tracks, as they are in the working tree
# (uncommitted edits included). The sources stay clean; a bug exists only in
# a copy. tests/policy/eevdf_bugs.sh builds the unit tests in one, tests/prove_bugs.sh
# a kernel (make -C DIR build/kernel.elf).
#
# The patch is tried first (--dry-run) with no fuzz: every context line must
# still match, though a hunk may move. If it does not apply, nothing is
# written and DIR is left as it was: the script names the patch and the
# hunks that failed and exits 1, never leaving a half-applied tree. DIR is
# replaced only if an earlier run made it (it holds .bug_tree).
set -eu
usage() {
    echo "usage: scripts/bug_tree.sh [--merge|--write] NAME DIR   (NAME: tests/bugs/eevdf/NAME.patch)" >&2
    exit 2
}
mode=apply
case ${1-} in --merge | --write) mode=${1#--}; shift ;; esac
[ $# -eq 2 ] || usage
name=$1
case $2 in /*) dir=$2 ;; *) dir=$PWD/$2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
rel=tests/bugs/eevdf/$name.patch
if [ ! -f "$root/$rel" ] && [ "$mode" = apply ]; then
    echo "bug_tree: no patch $rel; there are: $(cd "$root/tests/bugs/eevdf" && ls -- *.patch | sed 's/\.patch$//' | tr '\n' ' ')" >&2
    exit 2
fi
if [ -e "$dir" ] && [ ! -f "$dir/.bug_tree" ]; then
    echo "bug_tree: $dir exists and was not made by bug_tree.sh; not touching it" >&2
    exit 2
fi

tracked() { # the tracked files that still exist (one may be deleted in the working tree)
    git -C "$root" ls-files -z | while IFS= read -r -d '' f; do
        [ -e "$root/$f" ] && printf '%s\0' "$f"
    done
}

if [ "$mode" = write ]; then
    [ -d "$dir/.bug_tree.base" ] || usage
    # The header: the lines before the first file, the bug and the tests that catch it.
    if [ -f "$root/$rel" ]; then
        head=$(sed '/^--- /,$d' "$root/$rel")
    else
        head=$(printf 'Puts back: WHAT THE BUG IS.\nCaught-by: TEST...')
        echo "bug_tree: new patch $rel: fill in its first two lines" >&2
    fi
    {
        printf '%s\n\n' "$head"
        (cd "$dir/.bug_tree.base" && find kernel -type f | LC_ALL=C sort) | while IFS= read -r f; do
            cmp -s "$dir/.bug_tree.base/$f" "$dir/$f" ||
                diff -up --label "a/$f" --label "b/$f" "$dir/.bug_tree.base/$f" "$dir/$f" || true
        done
    } >"$root/$rel.new"
    mv "$root/$rel.new" "$root/$rel"
    exit 0
fi

tmp=$dir.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp"
tracked | tar -C "$root" --null -T - -cf - | tar -C "$tmp" -xf -
# kernel/ as copied, for --write: a patch is the difference from this base.
mkdir "$tmp/.bug_tree.base"
cp -R "$tmp/kernel" "$tmp/.bug_tree.base/"

if [ -f "$root/$rel" ]; then
    if [ "$mode" = merge ]; then
        patch -d "$tmp" -p1 --forward --batch --merge --no-backup-if-mismatch <"$root/$rel" ||
            echo "bug_tree: resolve the conflict markers in $dir, then: scripts/bug_tree.sh --write $name $2" >&2
    elif ! why=$(patch -d "$tmp" -p1 --fuzz=0 --forward --batch --dry-run <"$root/$rel" 2>&1); then
        echo "bug_tree: $rel no longer applies to the sources (nothing written):" >&2
        sed 's/^/    /' <<<"$why" >&2
        echo "  to write it again: scripts/bug_tree.sh --merge $name DIR, fix DIR by hand, scripts/bug_tree.sh --write $name DIR" >&2
        exit 1
    else
        patch -d "$tmp" -p1 --fuzz=0 --forward --batch --silent --no-backup-if-mismatch <"$root/$rel"
    fi
fi
echo "$name" >"$tmp/.bug_tree"
rm -rf "$dir"
mv "$tmp" "$dir"
