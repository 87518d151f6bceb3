# tests/availability/availability.mk - attacks on a server's availability
# and on its installs, each with a well-behaved client served throughout.
TESTS += avail_net
avail_net_SRCS := tests/availability/test_avail_net.c tests/availability/avail_fx.c tests/availability/avail_flood.c \
	tests/runtime/support/hashget_chain.c tests/runtime/support/child_proc.c
TESTS += avail_post
avail_post_SRCS := tests/availability/test_avail_post.c tests/availability/avail_fx.c tests/availability/avail_flood.c \
	tests/runtime/support/hashget_chain.c
BENCHES += bench_avail
bench_avail_SRCS := tests/availability/bench_avail.c tests/availability/avail_flood.c tests/runtime/support/hashget_chain.c
TESTS += avail_wire
avail_wire_SRCS := tests/availability/test_avail_wire.c tests/availability/avail_flood.c tests/net/net_peer.c
