# tests/mlx5emu: the PRM-level mlx5 emulator (test support, not in libprism)
# and its own suite.  Suites that run a body on "mlx5 over the emulator" add
# $(MLX5EMU_SRCS) to their sources.
MLX5EMU_SRCS := tests/mlx5emu/mlx5emu.c tests/mlx5emu/mlx5emu_cmd.c tests/mlx5emu/mlx5emu_event.c \
	tests/mlx5emu/mlx5emu_xwire.c

TESTS += mlx5emu
mlx5emu_SRCS := tests/mlx5emu/test_mlx5emu.c tests/runtime/support/hashget_chain.c \
	$(MLX5EMU_SRCS)

# The emulator as a shared object a whole process loads when PRISM_MLX5_GLUE
# names it (runtime/mlx5/mlx5_glue.h): its own copy of the software NIC from
# libprism.a, every symbol local but the interposer's entry point.
MLX5EMU_SO := $(O)/libprism-mlx5emu.so
MLX5EMU_SO_OBJS := $(call obj,$(MLX5EMU_SRCS) tests/mlx5emu/mlx5emu_so.c)
$(MLX5EMU_SO): $(MLX5EMU_SO_OBJS) $(O)/libprism.a
	$(CC) -shared -o $@ $(MLX5EMU_SO_OBJS) $(O)/libprism.a -Wl,--exclude-libs,ALL \
		$(LDFLAGS_ALL) $(LDLIBS_ALL)

# prismc, prism-demo and prismd as processes over the emulator (the .so above).
TESTS += mlx5emu_proc
mlx5emu_proc_SRCS := tests/mlx5emu/test_mlx5emu_proc.c tests/runtime/support/child_proc.c \
	tests/runtime/support/hashget_chain.c
mlx5emu_proc_RUNS := libprism-mlx5emu.so prismc prismd prism-demo
