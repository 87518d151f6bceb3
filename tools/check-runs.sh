#!/usr/bin/env bash
# tools/check-runs.sh - every program of the output tree that a test suite
# or benchmark runs is listed in its <name>_RUNS (see the Makefile), so that
# building the suite alone builds what it runs.
#
#   { echo 'NAME|SOURCES|RUNS'; ... } | tools/check-runs.sh PROGRAM...
#
# PROGRAM...: the names of the tree's programs (prismc, prismd, ...,
# libprism-mlx5emu.so).  A source runs PROGRAM when one of its string
# literals (outside comments) names it as a path: "%s/../prismc",
# "@/prismd", "%s/prism-net-peer", "%.*slibprism-mlx5emu.so", "build/prismc".
# Prints each suite and program missing from its RUNS; exits 1 if any.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: $0 PROGRAM... < NAME|SOURCES|RUNS lines" >&2; exit 2; }
programs=("$@")
bad=0
declare -A lits # a source file's string literals, outside comments and #include lines
# The literals of files "$@" in $mine (each file read once per run).
literals()
{
	local f
	mine=
	for f in "$@"; do
		[ -n "${lits[$f]+set}" ] ||
			lits[$f]=$(grep -vE '^[[:space:]]*(/?\*|//|#[[:space:]]*include)' "$f" \
				2>/dev/null </dev/null | grep -oE '"[^"]*"')
		mine+="${lits[$f]}"$'\n'
	done
}
alt=$(printf '%s|' "${programs[@]}" | sed -e 's/|$//' -e 's/\./\\./g')
while IFS='|' read -r name srcs runs; do
	[ -n "$name" ] || continue
	literals $srcs
	# the programs that a literal names after a slash or a format
	for p in $(grep -E "^\"[^\"]*(/|%s|%\.\*s)($alt)([^A-Za-z0-9_./-][^\"]*)?\"\$" <<<"$mine" |
		sed -E "s/^\"[^\"]*(\/|%s|%\.\*s)($alt)([^A-Za-z0-9_.\/-][^\"]*)?\"\$/\2/" | sort -u); do
		case " $runs " in *" $p "*) continue ;; esac
		echo "check-runs: $name runs $p but ${name}_RUNS does not list it" >&2
		bad=1
	done
done
[ $bad -eq 0 ] && echo "check-runs: OK (every suite builds what it runs)"
exit $bad
