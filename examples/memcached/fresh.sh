# shellcheck shell=bash
# examples/memcached/fresh.sh - sourced (not run) by the scripts that start
# the patched memcached: bench.sh, demo.sh, tests/run.sh.
#
# Through make (`make bench`, `make demo`, `make test-memcached`) the
# binaries are always current. Run by hand after a rebuild of libprism, an
# old build/memcached would still be started: one linked before the setup
# protocol changed fails every offloaded client with "CONNECTION FAILURE".
#
#   mc_fresh TOOL...   relinks $O/memcached (build.sh) when mc_stale names a
#                      binary; fails, naming the make command to run, when
#                      libprism, prismc or one of the client TOOLs ($O/TOOL)
#                      is missing or older than libprism.
#   mc_stale           prints memcached or memcached-debug of $O/memcached/src
#                      when it is missing or older than libprism, prismc (its
#                      chains) or the offload's sources and patches.
# Needs: O set, the repository root as the working directory.

mc_stale() {
	local mc=examples/memcached bin
	for bin in "$O/memcached/src/memcached" "$O/memcached/src/memcached-debug"; do
		if [ ! -x "$bin" ] || [ -n "$(find "$O/libprism.a" "$O/prismc" "$mc/src" \
			"$mc/patches" "$mc/memcached_get.prism" -newer "$bin" -print -quit)" ]; then
			echo "$bin"
			return
		fi
	done
}

mc_fresh() {
	local f stale make="make O=$O all"
	case $O in
	build) make="make all" ;;
	build/san) make="make SAN=1 all" ;;
	esac
	for f in libprism.a prismc "$@"; do
		if [ ! -e "$O/$f" ] || [ "$O/$f" -ot "$O/libprism.a" ]; then
			echo "$0: $O/$f is missing or older than $O/libprism.a: run '$make' first" >&2
			exit 1
		fi
	done
	stale=$(mc_stale)
	[ -z "$stale" ] && return 0
	echo "$0: $stale is missing or older than libprism, prismc or the offload's" \
		"sources: rebuilding it (examples/memcached/build.sh)" >&2
	(export O && examples/memcached/build.sh "$O/memcached" >/dev/null)
}
