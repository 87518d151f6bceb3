# tests/bench/sim.mk - software RNIC benchmarks (make bench).
BENCHES += bench_sim
bench_sim_SRCS := tests/bench/bench_sim.c tests/support/host_verbs.c tests/support/redn_hash_chain.c
