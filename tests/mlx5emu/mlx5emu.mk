# tests/mlx5emu: the PRM-level mlx5 emulator (test support, not in libprism)
# and its own suite.  Suites that run a body on "mlx5 over the emulator" add
# $(MLX5EMU_SRCS) to their sources.
MLX5EMU_SRCS := tests/mlx5emu/mlx5emu.c tests/mlx5emu/mlx5emu_cmd.c tests/mlx5emu/mlx5emu_event.c

TESTS += mlx5emu
mlx5emu_SRCS := tests/mlx5emu/test_mlx5emu.c tests/runtime/support/hashget_chain.c \
	$(MLX5EMU_SRCS)
