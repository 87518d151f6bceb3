#!/usr/bin/env bash
# tests/net/netns.sh - two software NICs on two "hosts": network namespaces
# joined by a veth pair, created (and removed) by this script.
#
#   tests/net/netns.sh PRISM_NET_PEER
#
# Checks, across the veth link: the setup exchange on the default port 18515,
# SEND/RECV round trips, READ, CAS and FETCH_ADD; then a client that vanishes
# mid-stream takes down only its own connection while a second client on the
# same server completes.  Needs root (CAP_NET_ADMIN); otherwise prints
# "SKIP: <reason>" and exits 77.  Exit 0 = pass, 1 = fail.
set -u
peer=${1:?usage: netns.sh PRISM_NET_PEER}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -n "${logs:-}" ] && tail -n 20 "$logs"/*.log; exit 1; }

[ -x "$peer" ] || fail "$peer is not an executable"
command -v ip >/dev/null 2>&1 || skip "the ip command (iproute2) is not installed"
[ "$(id -u)" -eq 0 ] || skip "not root: creating network namespaces needs CAP_NET_ADMIN"

a=prism-a-$$ b=prism-b-$$ va=pva$$ vb=pvb$$
logs=$(mktemp -d)
cleanup() {
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null
	ip netns del "$a" 2>/dev/null
	ip netns del "$b" 2>/dev/null
	rm -rf "$logs"
}
trap cleanup EXIT

ip netns add "$a" 2>"$logs/err" || skip "ip netns add failed: $(cat "$logs/err")"
ip netns add "$b" || fail "second namespace"
ip link add "$va" type veth peer name "$vb" 2>"$logs/err" ||
	skip "cannot create a veth pair: $(cat "$logs/err")"
ip link set "$va" netns "$a" && ip link set "$vb" netns "$b" || fail "moving the veth ends"
ip -n "$a" addr add 10.251.0.1/24 dev "$va" && ip -n "$b" addr add 10.251.0.2/24 dev "$vb" ||
	fail "addresses"
for ns in "$a" "$b"; do
	ip -n "$ns" link set lo up
done
ip -n "$a" link set "$va" up && ip -n "$b" link set "$vb" up || fail "links up"

# server on host A, default port, two clients expected
ip netns exec "$a" "$peer" serve --host 10.251.0.1 --clients 2 >"$logs/server.log" 2>&1 &
spid=$!
for _ in $(seq 100); do
	grep -q listening "$logs/server.log" && break
	sleep 0.05
done
grep -q "listening on 10.251.0.1:18515" "$logs/server.log" || fail "server did not listen on 18515"

# client 1 vanishes mid-stream, client 2 runs to the end
ip netns exec "$b" "$peer" ping --host 10.251.0.1 --count 1000 --vanish-after 200 \
	>"$logs/vanish.log" 2>&1 || fail "vanishing client: $(cat "$logs/vanish.log")"
ip netns exec "$b" "$peer" ping --host 10.251.0.1 --count 1000 >"$logs/ping.log" 2>&1 ||
	fail "client: $(cat "$logs/ping.log")"
grep -q "ping: ok: 1000 round trips" "$logs/ping.log" || fail "client did not finish"

wait "$spid" || fail "server exited with $?"
spid=
# A vanished peer shows up as FIN ("peer closed the connection"), as a reset
# when bytes it never read were still queued to it, or first as the error
# completion its flushed work produced (the link's reason may arrive after the
# server polled). Its QP is in ERR when a request of its was in flight, else
# still RTS until the server tears it down (docs/nic-model.md, link down): either
# way the server saw it go, while client 1 (checked above) ran to the end.
grep -Eq "client 0 gone: .+ \(QP (ERR|RTS)\)" "$logs/server.log" ||
	fail "the vanished client was not seen leaving alone: $(cat "$logs/server.log")"
grep -q "client 1 gone" "$logs/server.log" || fail "second client not seen leaving"
grep -q "serve: done, 2 clients" "$logs/server.log" || fail "server did not finish"
cat "$logs/ping.log" "$logs/server.log"
echo "PASS: two namespaces over veth"
exit 0
