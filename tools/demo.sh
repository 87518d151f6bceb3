#!/usr/bin/env bash
# tools/demo.sh - `make demo`: compile the two-bucket hash get, then run
# prism-demo (server process + client process over TCP, virtual latency next
# to RedN's 5.7 us and a one-sided two-READ baseline).  Build dir: $O or build.
# DEVICE=NAME (an RDMA device, e.g. mlx5_0): the same gets through the mlx5
# backend instead (`make demo-mlx5` sets it, over the PRM emulator).
set -euo pipefail
O=${O:-build}
mkdir -p "$O/demo"
"$O/prismc" compile lib/chains/hash_get.prism --entry get -o "$O/demo/hash_get.chain"
echo "compiled lib/chains/hash_get.prism (offload get) -> $O/demo/hash_get.chain"
if [ -n "${DEVICE:-}" ] && [ "$DEVICE" != sim ]; then
	exec "$O/prism-demo" --device "$DEVICE" "$O/demo/hash_get.chain"
fi
exec "$O/prism-demo" "$O/demo/hash_get.chain"
