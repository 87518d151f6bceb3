#!/usr/bin/env bash
# tests/install-check.sh - `make install` into a temporary DESTDIR yields a
# usable prism.pc: a small program including <prism/wqe.h> builds with
# `pkg-config --cflags --libs prism` (shared and --static) and runs, and the
# shared library exports nothing but the public prism_* API.
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
export PKG_CONFIG_PATH=$dest$prefix/lib/pkgconfig
export PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH

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
for t in prismc prism-perf; do
	"$dest$prefix/bin/$t" --version >/dev/null || fail "$t not installed or does not run"
done

echo "install-check: OK (prism.pc, shared + static link, SONAME $soname, exports prism_* only)"
