# tests/fuzz: the mlx5 emulator's firmware-command parser on arbitrary bytes.
# (tests/fuzz/ is included before tests/mlx5emu/, so the files are named here.)
FUZZERS += fuzz_mlx5emu_cmd
fuzz_mlx5emu_cmd_SRCS := tests/fuzz/fuzz_mlx5emu_cmd.c tests/mlx5emu/mlx5emu.c \
	tests/mlx5emu/mlx5emu_cmd.c tests/mlx5emu/mlx5emu_event.c \
	tests/mlx5emu/mlx5emu_xwire.c
