#!/usr/bin/env bash
# examples/memcached/tests/daemon.sh - daemon mode: prismd serves the get
# offload from the memfds memcached shares with it (slab pages and index), so
# offloaded gets go on after `kill -9` of memcached.
#
# 1. prismd with a configuration whose `slabs` and `index` regions are
#    shared-by-app and whose program is the memcached chain;
# 2. memcached -o prism=daemon=SOCKET:port=PRISMD_PORT, 2,000 keys stored;
# 3. prism-memcslap --offload (attached through memcached's stats) runs
#    40,000 gets; memcached is killed with SIGKILL while it runs; every get
#    must still be answered by prismd, and right (the tool checks each value).
# Build dir: $O or build.
set -euo pipefail

O=${O:-build}
MC=$O/memcached/src/memcached
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
pport=$(free_port)
port=$(free_port)
cat >"$tmp/prismd.yaml" <<EOF
device: sim
listen: 127.0.0.1:$pport
control: $tmp/prismd.sock
regions:
  - {name: slabs, size: 1M, access: [read], shared-by-app: true}
  - {name: index, size: 16M, access: [read], shared-by-app: true}
programs:
  - $O/memcached/memcached_get.chain
EOF
"$O/prismd" --config "$tmp/prismd.yaml" >"$tmp/prismd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "prismd: ready" "$tmp/prismd.log" && break; sleep 0.1; done
grep -q "prismd: ready" "$tmp/prismd.log" || { cat "$tmp/prismd.log"; exit 1; }

# The default lease (1 s): a get the loaded test machine stalls for half a
# lease is asked again through the offload (libprism-memcached), not sent to
# the killed memcached.
"$MC" -u "$(id -un)" -U 0 -l 127.0.0.1 -p "$port" \
	-o "prism=daemon=$tmp/prismd.sock:port=$pport" >"$tmp/mc.log" 2>&1 &
mc=$!
pids+=($mc)
for _ in $(seq 100); do
	memcstat --servers="127.0.0.1:$port" >/dev/null 2>&1 && break
	sleep 0.1
done
S=127.0.0.1:$port
"$O/prism-memcslap" --servers="$S" --keys=2000 --value-size=100 --execute-number=10 >/dev/null
"$O/prism-memcslap" --servers="$S" --offload --no-load --keys=2000 --value-size=100 \
	--execute-number=400000 >"$tmp/load.out" 2>&1 &
load=$!
sleep 0.3
# the crash must come while gets run, else this tests nothing: 400,000 gets
# take seconds even at the offload's fastest (about 140 K/s on one
# connection), far more than the 0.3 s before the kill
kill -0 "$load" 2>/dev/null || { cat "$tmp/load.out"; echo "gets ended before the kill"; exit 1; }
kill -9 "$mc"
wait "$mc" 2>/dev/null || true
echo "memcached: daemon mode: memcached (pid $mc) killed with SIGKILL during offloaded gets"
wait "$load" || { cat "$tmp/load.out" "$tmp/prismd.log"; exit 1; }
sed 's/^/  /' "$tmp/load.out"
grep -q "offloaded 400000, fallback 0" "$tmp/load.out" || exit 1
echo "memcached: daemon mode: every get answered by prismd after the crash, 0 wrong"
