#!/usr/bin/env bash
# tools/run-tests.sh - run cmocka suites and keep a tally across builds.
#
#   tools/run-tests.sh BUILD_DIR SUITE...   run the suites, print each
#                                           cmocka summary, record results
#   tools/run-tests.sh --summary            print the tally of every build
#                                           run since the last --summary
#
# Exits non-zero when any suite fails; skipped tests (cmocka skip(), e.g. the
# hardware tests on a machine without an RDMA device) are tallied apart and
# do not fail.  The tally lives in build/test-tally.
set -uo pipefail
tally=build/test-tally

if [ "${1:-}" = "--summary" ]; then
	[ -f "$tally" ] || { echo "no test results recorded" >&2; exit 1; }
	awk '{ s += 1; p += $3; f += $4; k += $5 } $4 > 0 { bad = bad " " $1 "/" $2 }
	     END { printf "\n==== prism: %d suite runs, %d tests passed, %d failed, %d skipped%s\n",
			  s, p, f, k, bad;
		   exit (f > 0) }' "$tally"
	rc=$?
	rm -f "$tally"
	exit $rc
fi

build=$1
shift
mkdir -p build
failed=0
for suite in "$@"; do
	name=$(basename "$suite")
	log=$(mktemp)
	echo "---- $build: $name"
	"$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	passed=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	nfail=$(sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	# skipped tests (hardware tests without a device) count apart: not failed
	nskip=$(sed -n 's/.*\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		nfail=1 # crashed before cmocka could summarize
	fi
	echo "$build $name $passed $nfail $nskip" >>"$tally"
	rm -f "$log"
	[ "$rc" -eq 0 ] || failed=1
done
exit $failed
