# tools/demo.mk - `make demo`: compile the hash-get offload, start a server
# process that populates a hash table, run a client process that performs
# gets over TCP, and print the virtual-clock latency next to RedN's 5.7 us
# and a one-sided (two READs) baseline measured in the same run.
# (The Makefile splits DEMO_STEPS on spaces, so the steps live in demo.sh.)
# `make demo DEVICE=mlx5_0` runs the hash-get step on that RDMA device;
# `make demo-mlx5` runs it through the mlx5 backend over the PRM emulator
# (tests/mlx5emu, loaded with PRISM_MLX5_GLUE; no RDMA device needed).
TOOLS += prism-demo
prism-demo_SRCS := tools/demo/prism_demo.c
DEMO_STEPS += tools/demo.sh

.PHONY: demo-mlx5
demo-mlx5: all $(MLX5EMU_SO)
	@echo "mlx5_0 here is the PRM emulator (PRISM_MLX5_GLUE=$(MLX5EMU_SO)), not a NIC"
	@O=$(O) DEVICE=mlx5_0 PRISM_MLX5_GLUE=$(MLX5EMU_SO) PRISM_MLX5EMU=relaxed tools/demo.sh
