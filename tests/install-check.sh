#!/usr/bin/env bash
# tests/install-check.sh - `make install` into a temporary DESTDIR yields
# every part a user needs, and each part works:
#   - prism.pc: a small program including <prism/wqe.h> builds with
#     `pkg-config --cflags --libs prism` (shared and --static) and runs, and
#     the complete example of docs/runtime-api.md (extracted from the page)
#     builds and runs against the installed library;
#   - the shared library exports nothing but the public prism_* API;
#   - every tool is installed and answers --version;
#   - every tool and every prismc subcommand (as `prismc --help` lists them)
#     has a man page, and `man -l` renders it;
#   - the bash completion sources and completes subcommands, options and
#     option values;
#   - the chains, cost profiles and docs are there;
#   - `make uninstall` removes everything it installed.
#
# Run from the repository root (make test does, via `make install-check`).
set -euo pipefail

MAKE=${MAKE:-make}
prefix=/usr/local
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root

$MAKE --no-print-directory -s install DESTDIR="$dest" PREFIX="$prefix" >/dev/null

export PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH=$dest$prefix/lib/pkgconfig  # searched before the system directories

cat >"$tmp/use.c" <<'PROG'
#include <prism/wqe.h>
#include <stdio.h>
int main(void) { struct prism_wqe w = {0}; unsigned char b[64]; w.ctrl.opcode = PRISM_OP_NOP;
	int n = prism_wqe_encode(&w, b, sizeof(b), NULL); printf("%s %d\n", prism_opcode_name(b[3]), n);
	return n == 16 ? 0 : 1; }
PROG

fail() { echo "install-check: FAIL: $*" >&2; exit 1; }

cflags=$(pkg-config --cflags prism) || fail "pkg-config does not know prism"
libs=$(pkg-config --libs prism)
grep -qx yaml-0.1 <<<"$(pkg-config --print-requires-private prism)" ||
	fail "prism.pc: Requires.private does not name yaml-0.1"
grep -q -- -lyaml <<<"$(pkg-config --libs --static prism)" || fail "pkg-config --static misses -lyaml"
cc -std=gnu11 -Wall -Werror $cflags -o "$tmp/use-shared" "$tmp/use.c" $libs ||
	fail "build against the shared library: cc $cflags ... $libs"
out=$(LD_LIBRARY_PATH=$dest$prefix/lib "$tmp/use-shared") || fail "shared program failed"
[ "$out" = "NOP 16" ] || fail "shared program printed '$out'"

cc -std=gnu11 -Wall -Werror $cflags -o "$tmp/use-static" "$tmp/use.c" \
	"$dest$prefix/lib/libprism.a" $(pkg-config --libs-only-l --static prism | sed 's/-lprism//') ||
	fail "build against the static library"
"$tmp/use-static" >/dev/null || fail "static program failed"

soname=$(objdump -p "$dest$prefix/lib/libprism.so" | awk '/SONAME/ { print $2 }')
[ "$soname" = "libprism.so.0" ] || fail "SONAME is '$soname'"
leaked=$(nm -D --defined-only "$dest$prefix/lib/libprism.so" | awk '$3 !~ /^prism_/ && $3 !~ /^PRISM_/ { print $3 }')
[ -z "$leaked" ] || fail "non-API symbols exported: $leaked"
[ ! -e "$dest$prefix/include/prism/wqe_layout.h" ] || fail "internal header installed"
bin=$dest$prefix/bin
for t in prismc prism-perf prismd prism-fw; do
	[ -x "$bin/$t" ] || fail "$t not installed"
done
for t in prismc prism-perf prism-fw prismd; do
	"$bin/$t" --version >/dev/null || fail "$t --version failed"
done

# Man pages: one per tool and per prismc subcommand, each rendering.
man=$dest$prefix/share/man
cmds=$("$bin/prismc" --help | sed -nE '/^commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p')
[ -n "$cmds" ] || fail "prismc --help lists no commands"
pages="man1/prismc.1 man1/prism-perf.1 man8/prismd.8 man8/prism-fw.8"
for c in $cmds; do
	[ -f "docs/prismc-$c.md" ] || fail "prismc $c has no page docs/prismc-$c.md"
	pages="$pages man1/prismc-$c.1"
done
npages=0
for p in $pages; do
	[ -f "$man/$p" ] || fail "man page $p not installed"
	name=$(basename "$p" | sed 's/\.[18]$//')
	out=$(MANWIDTH=80 man -l "$man/$p" 2>/dev/null) || fail "man -l $p failed"
	grep -q "^NAME" <<<"$out" || fail "man -l $p has no NAME section"
	grep -qE "^ +$name +- +[a-z]" <<<"$out" || fail "man -l $p: NAME is not '$name - summary'"
	npages=$((npages + 1))
done

# Bash completion: the file bash-completion loads for each command.
comp=$dest$prefix/share/bash-completion/completions
for t in prismc prismd prism-perf prism-fw; do
	[ -e "$comp/$t" ] || fail "no bash completion for $t"
done
complete_words() { # complete_words FUNC WORD...: what FUNC completes for the last WORD
	PATH="$bin:$PATH" bash -c 'source "$1" || exit 1; f=$2; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		"$f"; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp/prismc" "$@"
}
want() { # want WORD FUNC WORD...: the completion offers WORD
	local w=$1
	shift
	local got
	got=$(complete_words "$@")
	grep -qx -- "$w" <<<"$got" || fail "completion of '${*:2}' does not offer '$w'"
}
bash -c "source '$comp/prismc' && complete -p prismc prismd prism-perf prism-fw" >/dev/null ||
	fail "the completion script does not source"
want check _prismc prismc ch
for c in $cmds; do want "$c" _prismc prismc ""; done
want --stats _prismc prismc dump --st
want --entry _prismc prismc run --e
want strict _prismc prismc compile --firmware s
want get _prismc prismc run lib/chains/hash_get.prism --entry g
want --nic-threads _prismd prismd --nic
want --workload _prism_perf prism-perf --work
want relax _prism_fw prism-fw rel

# Data and docs.
share=$dest$prefix/share
for f in lib/chains/*.prism; do
	[ -f "$share/prism/chains/$(basename "$f")" ] || fail "$f not installed"
done
"$bin/prismc" check "$share/prism/chains/hash_get.prism" || fail "installed chain does not check"
[ -f "$share/prism/profiles/cx5.yaml" ] || fail "cost profile cx5 not installed"
for f in README.md LICENSE docs/*.md; do
	[ -f "$share/doc/prism/$(basename "$f")" ] || fail "$f not installed"
done

# The complete example of docs/runtime-api.md, against the installed tree.
sed -n '/^<!-- example: runtime-api -->/,/^```$/p' docs/runtime-api.md | sed '1,2d;$d' >"$tmp/example.c"
[ -s "$tmp/example.c" ] || fail "docs/runtime-api.md has no marked example"
cc -std=gnu11 -Wall -Wextra -Werror $cflags -o "$tmp/example" "$tmp/example.c" $libs ||
	fail "the runtime-api.md example does not build against the installed library"
"$bin/prismc" compile "$share/prism/chains/hash_get.prism" -o "$tmp/hash_get.chain" ||
	fail "the installed prismc does not compile the installed hash_get.prism"
ex=$(LD_LIBRARY_PATH=$dest$prefix/lib "$tmp/example" "$tmp/hash_get.chain" 2>"$tmp/example.err") ||
	fail "the runtime-api.md example failed: $ex $(cat "$tmp/example.err")"
grep -q '"hello from the NIC"' <<<"$ex" || fail "the runtime-api.md example printed '$ex'"

# make uninstall leaves nothing of ours behind.
$MAKE --no-print-directory -s uninstall DESTDIR="$dest" PREFIX="$prefix" >/dev/null
left=$(find "$dest" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left: $left"

echo "install-check: OK (prism.pc, shared + static link, SONAME $soname, exports prism_* only," \
	"4 tools, $npages man pages, completion, chains, docs, the runtime-api.md example, uninstall)"
