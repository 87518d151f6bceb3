#!/usr/bin/env bash
# examples/memcached/tests/run.sh - the patched memcached tested as users run it.
#
#   run.sh quick    `make test-memcached` (part of `make check`): memccapable,
#                   a subset of memcached's t/*.t with the offload on, the
#                   differential test, sets straddling flush_all, a forced lease overrun, items
#                   around the largest size offloaded, prism-memccat
#                   against memccat, daemon mode surviving kill -9 (daemon.sh)
#   run.sh full     `make check-memcached`: memcached's whole t/*.t with the
#                   offload on (t/stats.t with it off: it counts the lines of
#                   `stats`, which the offload lengthens by its prism_* lines)
#
# Every server is private: started here on a free loopback port (memccapable
# flushes the server it tests) and stopped by its pid.  Build dir: $O or build.
set -euo pipefail

O=${O:-build}
mode=${1:-quick}
src=$O/memcached/src
MC=$src/memcached-debug # asserts, and prism_mc_check on every hit
. examples/memcached/fresh.sh
mc_fresh prism-mc-difftest prism-memccat prism-memcslap prismd
pids=()
tmp=$(mktemp -d)
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# Quick subset of t/*.t: every item lifecycle the offload hooks see (set,
# delete, expiry, flush, touch, incr, cas, meta, eviction, LRU, slab moves,
# chunked items), within the time budget of `make test`.
SUBSET="t/getset.t t/flush-all.t t/incrdecr.t t/expirations.t t/touch.t t/getandtouch.t
	t/cas.t t/noreply.t t/flags.t t/metaget.t t/evictions.t t/lru.t t/slabs_reassign.t
	t/chunked-items.t t/issue_70.t"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_server VAR [memcached args...]: a private memcached with the offload.
# The lease (LEASE_MS, default 1 s) is long enough that a round trip on a loaded
# test machine stays inside it; the forced-overrun test below shortens the
# client's side instead.
start_server() {
	local port pport
	port=$(free_port)
	pport=$(free_port)
	shift
	"$MC" -u "$(id -un)" -U 0 -l 127.0.0.1 -p "$port" -o "prism=port=$pport:chaos=1:lease_ms=${LEASE_MS:-1000}" \
		"$@" >"$tmp/mc-$port.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		memcstat --servers="127.0.0.1:$port" >/dev/null 2>&1 && break
		sleep 0.1
	done
	SERVER=127.0.0.1:$port
}

case "$mode" in
quick)
	t0=$(date +%s)
	start_server SERVER -m 64
	echo "memcached: memccapable against the patched server ($SERVER)"
	memccapable -h 127.0.0.1 -p "${SERVER##*:}" >"$tmp/capable.log" 2>&1 ||
		{ cat "$tmp/capable.log"; exit 1; }
	tail -1 "$tmp/capable.log"

	echo "memcached: prism-memccat --offload against memccat"
	printf 'value one' >"$tmp/k1"
	printf 'second value, longer\r\nwith a CRLF inside' >"$tmp/k2"
	(cd "$tmp" && memccp --servers="$SERVER" k1 k2 && memccp --servers="$SERVER" --flags=7 k2)
	memccat --servers="$SERVER" -F k1 k2 nokey >"$tmp/want" || true
	"$O/prism-memccat" --servers="$SERVER" --offload --stats -F k1 k2 nokey >"$tmp/got" \
		2>"$tmp/stats" || true
	cmp "$tmp/want" "$tmp/got" || { echo "prism-memccat differs from memccat"; exit 1; }
	grep -q ": 2 offloaded" "$tmp/stats" || { cat "$tmp/stats"; exit 1; }
	cat "$tmp/stats"

	echo "memcached: a set-up step prism refuses stops the start with one line, at its option"
	# refused OPTIONS LINE: memcached -o prism=OPTIONS fails, printing one line
	# that starts with LINE
	refused() {
		if "$MC" -u "$(id -un)" -U 0 -l 127.0.0.1 -p 0 -o "prism=$1" >"$tmp/refused.log" 2>&1; then
			echo "memcached started with prism=$1"; exit 1
		fi
		if [ "$(wc -l <"$tmp/refused.log")" != 1 ] || [ "$(head -c ${#2} "$tmp/refused.log")" != "$2" ]; then
			echo "prism=$1: expected one line: $2"; cat "$tmp/refused.log"; exit 1
		fi
	}
	refused "device=nosuch0" "prism: device=nosuch0: device 'nosuch0': no such device (known: sim, mlx5 and the RDMA devices prismc devices lists)"
	printf 'format: [\n' >"$tmp/bad.chain"
	refused "chain=$tmp/bad.chain" "prism: chain=$tmp/bad.chain: program file '$tmp/bad.chain': rejected: line 2: "
	# the index asked for writable: memcached registers it read-only, the load refuses it
	sed 's/^region index: \(.*\) readonly;/region index: \1 writable;/' examples/memcached/memcached_get.prism \
		>"$tmp/rw.prism"
	"$O/prismc" compile "$tmp/rw.prism" --entry get -o "$tmp/rw.chain"
	refused "port=0:chain=$tmp/rw.chain" "prism: chain=$tmp/rw.chain: program 'get': region 'index' is 16777216 bytes with access read; the program declares 16777216 bytes with access read|write|atomic, declared at $tmp/rw.chain:11"
	taken=$(memcstat --servers="$SERVER" | sed -n 's/.*prism_port: //p')
	refused "port=$taken" "prism: port=$taken: server: listen on *:$taken: Address already in use"

	echo "memcached: differential test (offloaded vs TCP gets under writers, chaos mode)"
	"$O/prism-mc-difftest" --servers="$SERVER" --seconds=8
	echo "memcached: sets straddling flush_all: the offload agrees with memcached afterwards"
	"$O/prism-mc-difftest" --servers="$SERVER" --seconds=4 --writers=16 --flush-race
	echo "memcached: forced lease overrun (client lease 1 ns): nothing may be accepted"
	out=$("$O/prism-mc-difftest" --servers="$SERVER" --seconds=2 --lease-ms=0.000001)
	echo "$out"
	echo "$out" | grep -q " 0 hits" || exit 1
	echo "$out" | grep -Eq "\(([1-9][0-9]*) lease rejections\)" || exit 1

	echo "memcached: items around the largest one offloaded (ITEM_ntotal = prism_max_item)"
	# sizes across the edge: right answers, offloaded below it, fallback above
	seen=""
	for vs in $(seq 4020 4027); do
		out=$("$O/prism-memcslap" --servers="$SERVER" --offload --keys=4 --value-size="$vs" \
			--execute-number=20)
		echo "$out" | grep -q "wrong 0" || { echo "$out"; exit 1; }
		if echo "$out" | grep -q "offloaded 20, fallback 0"; then
			[ "$seen" != "${seen%f}" ] && { echo "value size $vs offloaded after a fallback"; exit 1; }
			seen="${seen}o"
		elif echo "$out" | grep -q "offloaded 0, fallback 20 (not offloaded 20"; then
			seen="${seen}f"
		else
			echo "$out"; exit 1
		fi
	done
	echo "  value sizes 4020-4027: $seen (o offloaded, f fell back)"
	case "$seen" in *o*f*) ;; *) echo "the edge was not crossed"; exit 1 ;; esac

	echo "memcached: a full index (2^16 slots, 60,000 keys): the rest falls back, all right"
	start_server SERVER -m 64 -o "prism=port=0:index_power=16"
	out=$("$O/prism-memcslap" --servers="$SERVER" --offload --keys=60000 --execute-number=3000)
	echo "$out" | sed 's/^/  /'
	echo "$out" | grep -q "wrong 0" || exit 1
	echo "$out" | grep -Eq "fallback [1-9]" || exit 1
	memcstat --servers="$SERVER" | grep -Eq "prism_index_full: [1-9]" || exit 1

	O=$O "$(dirname "$0")/daemon.sh"

	echo "memcached: fresh.sh names a stale memcached, and a client older than libprism"
	fake=$tmp/fake-o
	mkdir -p "$fake/memcached/src"
	touch -d '2 hours ago' "$fake/prism-memcslap"
	touch -d '1 hour ago' "$fake/libprism.a" "$fake/prismc"
	install -m 755 /dev/null "$fake/memcached/src/memcached"
	install -m 755 /dev/null "$fake/memcached/src/memcached-debug"
	[ -z "$(O=$fake mc_stale)" ] || { echo "a fresh memcached was called stale"; exit 1; }
	touch "$fake/libprism.a" "$fake/prismc"
	[ "$(O=$fake mc_stale)" = "$fake/memcached/src/memcached" ] ||
		{ echo "a memcached older than libprism was not named"; exit 1; }
	if (O=$fake mc_fresh prism-memcslap) 2>"$tmp/fresh.log"; then
		echo "a client older than libprism was not named"; exit 1
	fi
	grep -qF "$fake/prism-memcslap is missing or older than $fake/libprism.a: run 'make O=$fake all' first" \
		"$tmp/fresh.log" || { cat "$tmp/fresh.log"; exit 1; }

	echo "memcached: t/*.t subset with the offload on (MEMCACHED_PRISM)"
	(cd "$src" && MEMCACHED_PRISM="port=0:chaos=1" prove -j2 $SUBSET)
	echo "memcached: quick tests passed in $(($(date +%s) - t0)) s"
	;;
full)
	(cd "$src" && MEMCACHED_PRISM="port=0" prove -j2 $(ls t/*.t | grep -v '^t/stats.t$'))
	(cd "$src" && prove t/stats.t)
	;;
*)
	echo "usage: $0 quick|full" >&2
	exit 2
	;;
esac
