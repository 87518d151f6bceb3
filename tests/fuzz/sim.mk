# tests/fuzz: the software RNIC executing random WQE bytes.
FUZZERS += fuzz_sim_exec
fuzz_sim_exec_SRCS := tests/fuzz/fuzz_sim_exec.c
