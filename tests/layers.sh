#!/usr/bin/env bash
# The module boundaries of docs/architecture.md, checked against the code.
#
# Reads the module table from docs/architecture.md (the one source of
# truth), maps every C, header and assembly file under kernel/, trace/,
# db/, tui/, host/cli/, host/scenario/, host/engine/linux/ and tests/ to its module, resolves each #include "..."
# the way the compiler does (the including file's folder first, then the
# Makefile's quote path: -I of KCFLAGS for the kernel, -iquote of HCFLAGS
# for the host), and fails on
#   - an include from one module into another the table does not allow
#     (one FAIL per include, naming both files);
#   - any cycle between modules (one FAIL per cycle, with an include for
#     each of its arrows);
#   - a table that could describe a cycle (a module allowed to include one
#     in a later row), a file in no module, an include it cannot find;
#   - a subcommand whose cmd_NAME is not where the doc's command table says.
# A run that checked no include fails: it cannot pass by reading nothing.
set -u
cd "$(dirname "$0")/.."
DOC=docs/architecture.md
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pass() { echo "PASS $1"; }
failed() { echo "FAIL $1: $2"; fail=1; }

[ -r "$DOC" ] || { failed table "no $DOC"; exit 1; }

# The module table: the rows after its "| module | files | may include |"
# header, up to the first line that is not a row. Prints "module<TAB>files<TAB>allowed".
awk -F'|' '
    function ticks(s,   out, n, p) {
        out = ""
        while (match(s, /`[^`]*`/)) {
            out = out (out == "" ? "" : " ") substr(s, RSTART + 1, RLENGTH - 2)
            s = substr(s, RSTART + RLENGTH)
        }
        return out
    }
    /^\| *module *\| *files *\| *may include *\|/ { intable = 1; next }
    intable && /^\|[- |]*$/ { next }
    intable && /^\|/ { print ticks($2) "\t" ticks($3) "\t" ticks($4); next }
    intable { exit }
' "$DOC" >"$T/table"
# The command table: "command<TAB>file".
awk -F'|' '
    /^\| *command *\| *entry point *\|/ { intable = 1; next }
    intable && /^\|[- |]*$/ { next }
    intable && /^\|/ { gsub(/[` ]/, "", $2); gsub(/[` ]/, "", $3); print $2 "\t" $3; next }
    intable { exit }
' "$DOC" >"$T/commands"

# The quote path, from the Makefile (continuation lines joined).
sed -e ':a' -e '/\\$/N' -e 's/\\\n//' -e 'ta' Makefile >"$T/make"
kdirs=$(sed -n 's/^KCFLAGS *:=//p' "$T/make" | grep -o -- '-I *[^ ]*' | sed 's/^-I *//' | tr '\n' ' ')
hdirs=$(sed -n 's/^HCFLAGS *:=//p' "$T/make" | grep -o -- '-iquote *[^ ]*' | sed 's/^-iquote *//' | tr '\n' ' ')
if [ -z "$kdirs" ] || [ -z "$hdirs" ]; then
    failed include_path "no -I in the Makefile's KCFLAGS or no -iquote in its HCFLAGS"
    exit 1
fi

find kernel trace db tui labs tests host -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \) | sort >"$T/files"
# Every file an include may name (anything under the quote path).
find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||' >"$T/exist"
# file:line:text of every quoted include.
xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' <"$T/files" >"$T/includes" || true

awk -v kdirs="$kdirs" -v hdirs="$hdirs" -v tablef="$T/table" -v existf="$T/exist" \
    -v filesf="$T/files" -v includesf="$T/includes" -v commandsf="$T/commands" '
    function norm(p,   n, a, st, k, i, out) {
        n = split(p, a, "/"); k = 0
        for (i = 1; i <= n; i++) {
            if (a[i] == "" || a[i] == ".") continue
            if (a[i] == ".." && k > 0 && st[k] != "..") { k--; continue }
            st[++k] = a[i]
        }
        out = ""
        for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") st[i]
        return out
    }
    function dirof(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
    function modof(f,   best, bl, i, l) {
        best = ""; bl = 0
        for (i = 1; i <= nprefix; i++) {
            l = length(prefix[i])
            if (l > bl && substr(f, 1, l) == prefix[i]) { best = prefix_mod[i]; bl = l }
        }
        return best
    }
    function bad(name, why) { print "FAIL " name ": " why; failures++ }
    BEGIN {
        # the table
        while ((getline line < tablef) > 0) {
            split(line, c, "\t")
            m = c[1]
            if (m == "" || (m in rank)) { bad("table", "row " (nmod + 1) ": no module name, or a second row for `" m "`"); continue }
            rank[m] = ++nmod; name[nmod] = m
            np = split(c[2], ps, " ")
            if (np == 0) bad("table", "`" m "` holds no files")
            for (i = 1; i <= np; i++) { prefix[++nprefix] = ps[i]; prefix_mod[nprefix] = m }
            na = split(c[3], as, " ")
            for (i = 1; i <= na; i++) {
                if (as[i] == "-") continue
                if (!(as[i] in rank))
                    bad("table", "`" m "` may include `" as[i] "`, which is not a module in a row above it")
                else
                    allowed[m, as[i]] = 1
            }
        }
        if (nmod < 2) { bad("table", "found " nmod + 0 " modules in docs/architecture.md"); exit 1 }
        while ((getline line < existf) > 0) exists[line] = 1
        nk = split(kdirs, kd, " "); nh = split(hdirs, hd, " ")

        while ((getline f < filesf) > 0) {
            nfiles++
            if ((fm[f] = modof(f)) == "") bad("module", f " is in no module of docs/architecture.md")
        }

        # includes: FILE:LINE:#include "X"
        while ((getline line < includesf) > 0) {
            split(line, c, ":"); f = c[1]; ln = c[2]
            inc = line; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
            nsearch = 0
            search[++nsearch] = dirof(f)
            if (f ~ /^kernel\//) for (i = 1; i <= nk; i++) search[++nsearch] = kd[i]
            else for (i = 1; i <= nh; i++) search[++nsearch] = hd[i]
            t = ""
            for (i = 1; i <= nsearch && t == ""; i++)
                if ((p = norm(search[i] "/" inc)) in exists) t = p
            # the skeleton bpftool makes of the folder BPF program, in
            # the build tree (Makefile, "the BPF recorder"): of the module itself.
            if (t == "" && inc ~ /\.skel\.h$/) continue
            if (t == "") { bad("include", f ":" ln " includes \"" inc "\", which no folder of its quote path holds"); continue }
            nincludes++
            a = fm[f]; b = modof(t)
            if (a == "" || b == "" || a == b) continue
            if (!((a, b) in arrow)) { arrow[a, b] = f " includes " t; }
            if (!((a, b) in allowed)) {
                bad("arrow", f " includes " t ": `" a "` may not include `" b "`")
                nbad++
            }
        }
        if (!nincludes) { bad("includes", "checked no include at all (in " nfiles + 0 " files)"); exit 1 }
        if (!nbad)
            print "PASS arrows: " nincludes " includes in " nfiles " files, every one allowed by the table of " nmod " modules"

        # cycles. The table allows none, so each one takes an arrow it does
        # not allow: for each such arrow a -> b, the shortest way back from
        # b to a over the arrows that exist (BFS), if there is one.
        for (x in arrow) { split(x, ab, SUBSEP); out[ab[1]] = out[ab[1]] " " ab[2] }
        ncycles = 0
        for (x in arrow) {
            if (x in allowed) continue
            split(x, ab, SUBSEP); a = ab[1]; b = ab[2]
            split("", prev); split("", seen); nq = 0; q[++nq] = b; seen[b] = 1; found = (b == a)
            for (qh = 1; qh <= nq && !found; qh++) {
                nv = split(out[q[qh]], vs, " ")
                for (k = 1; k <= nv && !found; k++) {
                    v = vs[k]
                    if (v in seen) continue
                    seen[v] = 1; prev[v] = q[qh]; q[++nq] = v
                    if (v == a) found = 1
                }
            }
            if (!found) continue
            # fw: the cycle in its own order, b -> ... -> a (-> b again),
            # then said from its module that comes first in the table
            n = 0; for (v = a; v != b; v = prev[v]) back[++n] = v
            back[++n] = b
            for (k = 1; k <= n; k++) fw[k] = back[n + 1 - k]
            start = 1; for (k = 2; k <= n; k++) if (rank[fw[k]] < rank[fw[start]]) start = k
            path = fw[start]; why = ""
            for (k = 0; k < n; k++) {
                u = fw[(start + k - 1) % n + 1]; v = fw[(start + k) % n + 1]
                path = path " -> " v
                why = why (k ? "; " : "") arrow[u, v]
            }
            if (path in reported) continue
            reported[path] = 1
            bad("cycle", path " (" why ")")
            ncycles++
        }
        if (!ncycles) print "PASS cycles: none between the " nmod " modules"

        # where each subcommand lives
        ncmd = 0; before = failures
        while ((getline line < commandsf) > 0) {
            split(line, c, "\t"); cmd = c[1]; file = c[2]; ncmd++
            documented[cmd] = 1
            found = 0
            while ((getline l < file) > 0) if (index(l, "int cmd_" cmd "(int argc, char **argv)") == 1) found = 1
            close(file)
            if (!found) bad("commands", "docs/architecture.md says cmd_" cmd " is in " file ", and it is not")
        }
        # every command of host/cli/cli.h has a row
        while ((getline l < "host/cli/cli.h") > 0)
            if (match(l, /^ *X\([a-z_]+,/)) {
                cmd = substr(l, RSTART, RLENGTH); sub(/^ *X\(/, "", cmd); sub(/,$/, "", cmd)
                listed++
                if (!(cmd in documented)) bad("commands", "runq " cmd " (host/cli/cli.h) has no row in the command table of docs/architecture.md")
            }
        if (!listed) bad("commands", "found no X(name, ...) line in host/cli/cli.h")
        if (ncmd && listed && failures == before) print "PASS commands: " ncmd " rows, " listed " commands in host/cli/cli.h"
        exit (failures > 0)
    }
' || fail=1

# Each folder a module names (a files prefix ending in /) has a README.md
# saying which module it is and what it may include, the same set as the
# table's row: the README a newcomer reads cannot drift from the rule the
# build is held to.
nreadme=0
rfail=0
while IFS=$'\t' read -r mod files allowed; do
    for f in $files; do
        case "$f" in */) ;; *) continue ;; esac
        readme="${f}README.md"
        if ! [ -r "$readme" ]; then
            failed readme "$readme: no README for \`$mod\` ($f)"; rfail=1
            continue
        fi
        if ! grep -qF "Module \`$mod\`" "$readme"; then
            failed readme "$readme does not say it is module \`$mod\`"; rfail=1
            continue
        fi
        said=$(sed -n 's/^May include: //p' "$readme" | grep -o '`[^`]*`' | tr -d '`' | grep -vx -e - -e '' | sort | tr '\n' ' ')
        want=$(printf '%s\n' $allowed | grep -vx -e - -e '' | sort | tr '\n' ' ')
        if [ "$said" != "$want" ]; then
            failed readme "$readme says it may include '$said', the table '$want'"; rfail=1
            continue
        fi
        nreadme=$((nreadme + 1))
    done
done <"$T/table"
[ "$nreadme" -gt 0 ] && [ "$rfail" = 0 ] && pass "readmes: $nreadme folders say their module and its includes as the table does"
exit $fail
