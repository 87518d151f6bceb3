# tools/prm.mk - `make check-prm`: the mlx5 backend's PRM field table against
# Debian's DPDK mlx5_prm.h (tools/check-prm.sh, tools/check-prm.py).
TOOLS += prism-prm-table
prism-prm-table_SRCS := tools/prism-prm-table.c

.PHONY: check-prm
check-prm: $(O)/prism-prm-table
	@tools/check-prm.sh $(O)
