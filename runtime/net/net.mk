# runtime/net/net.mk - the cross-process transport between software NICs:
# IB-framed packets over TCP or a shared-memory ring pair, connection setup on
# port 18515, its tests,
# fuzz target and benchmark.
LIB_SRCS += runtime/net/net_frame.c runtime/net/net_oob.c runtime/net/net_sock.c \
	runtime/net/net_accept.c runtime/net/net_watch.c runtime/net/net_ring.c \
	runtime/net/net_shm.c runtime/net/net_spin.c

TESTS += net_frame
net_frame_SRCS := tests/net/test_net_frame.c
TESTS += net_oob
net_oob_SRCS := tests/net/test_net_oob.c

TESTS += net_ring
net_ring_SRCS := tests/net/test_net_ring.c tests/support/ring_peer.c
TESTS += net_spin
net_spin_SRCS := tests/net/test_net_spin.c
TESTS += net_shm
net_shm_SRCS := tests/net/test_net_shm.c
BENCHES += bench_ring
bench_ring_SRCS := tests/net/bench_ring.c

FUZZERS += fuzz_net_frame
fuzz_net_frame_SRCS := tests/fuzz/fuzz_net_frame.c
FUZZERS += fuzz_net_ring
fuzz_net_ring_SRCS := tests/fuzz/fuzz_net_ring.c tests/support/ring_peer.c

# The data path needs the sim engine (runtime/sim/sim.mk, branch sim).
ifneq ($(wildcard runtime/sim/sim.mk),)
LIB_SRCS += runtime/net/net_simpkt.c runtime/net/net_transport.c runtime/net/net_link.c \
	runtime/net/net_link_tx.c runtime/net/net_link_rx.c runtime/net/net_link_poll.c \
	runtime/net/net_hot.c

TESTS += net_simpkt
net_simpkt_SRCS := tests/net/test_net_simpkt.c
TESTS += net_loopback
net_loopback_SRCS := tests/net/test_net_loopback.c tests/net/net_peer.c tests/support/ring_peer.c

# Multi-host: two network namespaces joined by a veth pair (skips without root).
TOOLS += prism-net-peer
prism-net-peer_SRCS := tests/net/net_peer_tool.c tests/net/net_peer.c
TESTS += net_netns
net_netns_SRCS := tests/net/test_net_netns.c
net_netns_RUNS := prism-net-peer

BENCHES += bench_net
bench_net_SRCS := tests/net/bench_net.c tests/net/net_peer.c
endif
