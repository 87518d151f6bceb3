#!/usr/bin/env bash
# examples/memcached/bench.sh - `make bench` part: offloaded gets against
# stock Debian memcached on this machine, same keys, value sizes and
# connection counts (1 and 16).
#
# Stock side: /usr/bin/memcached, driven by memcslap --test=get (its own
# figures) and by prism-memcslap without --offload (gets/s and percentiles
# measured the same way as the offloaded side: connections made and used
# once before the clock starts, then one get in flight per connection).
# Offloaded side: the patched memcached with -o prism, driven by
# prism-memcslap --offload.  Both servers get THREADS threads (default 2):
# memcached's -t, and as many software NICs (nic_threads), each run to
# completion by the transport thread that receives its clients' packets.
# For each run the CPU the server process spent is split by thread name:
# memcached's own threads against the NIC's (prism-net, prism-progress,
# prism-nic), per get.
# Build dir: $O or build; a memcached older than libprism is relinked first
# (fresh.sh).  GETS (default 20000 per connection) sizes the runs.
set -euo pipefail

O=${O:-build}
MC=$O/memcached/src/memcached
. examples/memcached/fresh.sh
mc_fresh prism-memcslap # a stale memcached is relinked, stale clients are named
GETS=${GETS:-20000}
KEYS=${KEYS:-10000}
VSIZE=${VSIZE:-64}
THREADS=${THREADS:-2}
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start BIN ARGS...: sets PORT and PID.
start() {
	PORT=$(free_port)
	"$@" -u "$(id -un)" -U 0 -l 127.0.0.1 -p "$PORT" -t "$THREADS" -m 256 >"$tmp/mc-$PORT.log" 2>&1 &
	PID=$!
	pids+=("$PID")
	for _ in $(seq 100); do
		memcstat --servers="127.0.0.1:$PORT" >/dev/null 2>&1 && break
		sleep 0.1
	done
}

# cpu PID: "app_ticks nic_ticks" summed over the process's threads.
cpu() {
	local app=0 nic=0 t comm ticks
	for t in /proc/"$1"/task/*; do
		comm=$(cat "$t/comm" 2>/dev/null) || continue
		ticks=$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null) || continue
		case "$comm" in
		prism-*) nic=$((nic + ticks)) ;;
		*) app=$((app + ticks)) ;;
		esac
	done
	echo "$app $nic"
}

# report PID BEFORE AFTER GETS
report_cpu() {
	local hz a0 n0 a1 n1
	hz=$(getconf CLK_TCK)
	read -r a0 n0 <<<"$2"
	read -r a1 n1 <<<"$3"
	awk -v a=$((a1 - a0)) -v n=$((n1 - n0)) -v g="$4" -v hz="$hz" 'BEGIN {
		printf "  server CPU per get: memcached threads %.2f us, NIC threads %.2f us (%d gets)\n",
			a / hz * 1e6 / g, n / hz * 1e6 / g, g }'
}

echo "== memcached get benchmark: $KEYS keys of $VSIZE bytes, $GETS gets per connection"
echo "   machine: $(nproc) CPUs; client, server and software NIC share them; $THREADS server threads"
for conc in 1 16; do
	start /usr/bin/memcached
	S=127.0.0.1:$PORT
	echo
	echo "-- stock /usr/bin/memcached ($(/usr/bin/memcached -V)), $conc connection(s)"
	memcslap --servers="$S" --test=get --concurrency="$conc" \
		--execute-number="$GETS" 2>&1 | grep -E "Time to get" | sed 's/^/  memcslap: /'
	"$O/prism-memcslap" --servers="$S" --keys="$KEYS" --value-size="$VSIZE" \
		--execute-number=10 >/dev/null
	before=$(cpu "$PID")
	"$O/prism-memcslap" --servers="$S" --keys="$KEYS" --value-size="$VSIZE" --no-load \
		--concurrency="$conc" --execute-number="$GETS" | sed 's/^/  /'
	report_cpu "$PID" "$before" "$(cpu "$PID")" $((GETS * conc))
	kill "$PID"

	start "$MC" -o "prism=port=0:nic_threads=$THREADS"
	S=127.0.0.1:$PORT
	echo "-- patched memcached, offloaded gets ($THREADS software NICs), $conc connection(s)"
	"$O/prism-memcslap" --servers="$S" --keys="$KEYS" --value-size="$VSIZE" \
		--execute-number=10 >/dev/null
	before=$(cpu "$PID")
	"$O/prism-memcslap" --servers="$S" --keys="$KEYS" --value-size="$VSIZE" --no-load \
		--offload --concurrency="$conc" --execute-number="$GETS" | sed 's/^/  /'
	report_cpu "$PID" "$before" "$(cpu "$PID")" $((GETS * conc))
	kill "$PID"
done
