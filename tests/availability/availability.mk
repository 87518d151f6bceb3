# tests/availability/availability.mk - attacks on a server's availability
# and on its installs, each with a well-behaved client served throughout,
# on the sim and on mlx5 over the emulator (tests/mlx5emu: included after this
# fragment, so the two suites' sources are expanded late, with =).
TESTS += avail_net
avail_net_SRCS = tests/availability/test_avail_net.c tests/availability/avail_fx.c tests/availability/avail_flood.c \
	tests/runtime/support/hashget_chain.c tests/runtime/support/child_proc.c $(MLX5EMU_SRCS)
TESTS += avail_post
avail_post_SRCS = tests/availability/test_avail_post.c tests/availability/avail_fx.c tests/availability/avail_flood.c \
	tests/runtime/support/hashget_chain.c $(MLX5EMU_SRCS)
BENCHES += bench_avail
bench_avail_SRCS := tests/availability/bench_avail.c tests/availability/avail_flood.c tests/runtime/support/hashget_chain.c
TESTS += avail_wire
avail_wire_SRCS := tests/availability/test_avail_wire.c tests/availability/avail_flood.c tests/net/net_peer.c
