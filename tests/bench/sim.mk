# tests/bench/sim.mk - software RNIC benchmarks (make bench).
BENCHES += bench_sim
bench_sim_SRCS := tests/bench/bench_sim.c tests/support/host_verbs.c tests/support/redn_hash_chain.c
# sim_digest: a digest of seeded runs, to check that an engine change leaves
# every event unchanged (run it with the engine before and after, compare).
TOOLS += sim_digest
sim_digest_SRCS := tests/bench/sim_digest.c tests/support/host_verbs.c tests/support/redn_hash_chain.c
# bench_sim_cores: RedN gets on K devices, one thread each (K = 1, 2, CPUs)
BENCHES += bench_sim_cores
bench_sim_cores_SRCS := tests/bench/bench_sim_cores.c tests/support/host_verbs.c tests/support/redn_hash_chain.c
