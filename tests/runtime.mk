# tests/runtime.mk - the runtime core's suites (API, loader, connections,
# daemon) and their support code.
TESTS += runtime_core_basics prismd_config runtime_local runtime_tcp lib_chains daemon \
	runtime_shards
runtime_core_basics_SRCS := tests/runtime/test_core_basics.c
prismd_config_SRCS := tests/runtime/test_prismd_config.c tools/prismd/config.c
runtime_local_SRCS := tests/runtime/test_runtime_local.c tests/runtime/support/hashget_chain.c \
	$(MLX5EMU_SRCS)
runtime_tcp_SRCS := tests/runtime/test_runtime_tcp.c tests/runtime/support/hashget_chain.c \
	tests/runtime/support/child_proc.c tests/runtime/support/fabric_dev.c $(MLX5EMU_SRCS)
runtime_shards_SRCS := tests/runtime/test_runtime_shards.c tests/runtime/support/hashget_chain.c \
	$(MLX5EMU_SRCS)
lib_chains_SRCS := tests/runtime/test_lib_chains.c tests/runtime/support/child_proc.c \
	$(MLX5EMU_SRCS)
daemon_SRCS := tests/runtime/test_daemon.c tests/runtime/support/hashget_chain.c \
	tests/runtime/support/child_proc.c tests/runtime/support/fabric_dev.c $(MLX5EMU_SRCS)
# prismd runs on the emulator too (PRISM_MLX5_GLUE)
daemon_RUNS := prismd libprism-mlx5emu.so
lib_chains_RUNS := prismc
BENCHES += bench_runtime
bench_runtime_SRCS := tests/bench/bench_runtime.c tests/runtime/support/hashget_chain.c
bench_runtime_RUNS := prismd
# bench_runtime_shards: gets/s through the runtime with K = 1, 2 NIC threads
BENCHES += bench_runtime_shards
bench_runtime_shards_SRCS := tests/bench/bench_runtime_shards.c \
	tests/runtime/support/hashget_chain.c
# bench_serial: per-call latency of a serial program (put) beside a pipelined one
BENCHES += bench_serial
bench_serial_SRCS := tests/bench/bench_serial.c
bench_serial_RUNS := prismc
