#!/usr/bin/env bash
# examples/memcached/demo.sh - the `make demo` step for memcached: Debian's
# memcached with the prism get offload, used by ordinary memcached clients.
#
# 1. starts the patched memcached with `-o prism=...` on free loopback ports;
# 2. stores keys through the ordinary protocol (memccp, libmemcached sets);
# 3. reads them back with `prism-memccat --offload` and checks the output is
#    byte for byte memccat's;
# 4. runs 2,000 offloaded gets and prints the offloaded / fallback counts and
#    the virtual-clock latency next to RedN's measured 5.7 us.
# Build dir: $O or build.
set -euo pipefail

O=${O:-build}
MC=$O/memcached/src/memcached
. examples/memcached/fresh.sh
mc_fresh prism-memccat prism-memcslap
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
port=$(free_port)
pport=$(free_port)
echo
echo "== memcached 1.6.18 (Debian source, prism patch) with the get offload"
echo "   $MC -p $port -o prism=port=$pport"
"$MC" -u "$(id -un)" -U 0 -l 127.0.0.1 -p "$port" -o "prism=port=$pport" >"$tmp/mc.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	memcstat --servers="127.0.0.1:$port" >/dev/null 2>&1 && break
	sleep 0.1
done
S=127.0.0.1:$port

echo "== store keys through the ordinary protocol (memccp)"
printf 'hello from memcached' >"$tmp/greeting"
printf 'no server CPU on the request path' >"$tmp/motto"
printf '42' >"$tmp/answer"
(cd "$tmp" && memccp --servers="$S" greeting motto answer)
echo "== read back: memccat vs prism-memccat --offload"
memccat --servers="$S" greeting motto answer >"$tmp/want"
"$O/prism-memccat" --servers="$S" --offload --stats greeting motto answer >"$tmp/got" 2>"$tmp/st"
sed 's/^/   /' "$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then
	echo "   identical to memccat's output"
else
	echo "   DIFFERS from memccat's output" >&2
	exit 1
fi
sed 's/^/   /' "$tmp/st"
echo "== 2,000 offloaded gets of 1,000 keys (64-byte values, stored with libmemcached)"
"$O/prism-memcslap" --servers="$S" --offload --keys=1000 --value-size=64 \
	--execute-number=2000 | sed 's/^/   /'
echo "   RedN (NSDI '22) measured 5.7 us for its offloaded hash get on ConnectX-5"
memcstat --servers="$S" | grep -E "prism_(offloaded|indexed|quarantined|kicks|index_full):" |
	sed 's/^[[:space:]]*/   server: /'
