# tests/security/security.mk - adversarial clients against a server, one
# test per attack (docs/security.md), through a raw client that speaks the
# transport directly.
TESTS += security
security_SRCS := tests/security/test_security.c tests/security/raw_client.c \
	tests/net/net_peer.c $(MLX5EMU_SRCS)
security_RUNS := prismc

# the request gate on the mlx5 backend, over the PRM-level emulator
TESTS += security_mlx5emu
security_mlx5emu_SRCS := tests/security/test_security_mlx5emu.c $(MLX5EMU_SRCS)
security_mlx5emu_RUNS := prismc
