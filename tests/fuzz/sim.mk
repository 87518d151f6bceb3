# tests/fuzz: the software RNIC executing random WQE bytes.
FUZZERS += fuzz_sim_exec
fuzz_sim_exec_SRCS := tests/fuzz/fuzz_sim_exec.c
# A hostile peer's ACKs / NAKs / responses (any PSN, any order) to a
# requester with WRITEs, SENDs, READs and atomics outstanding.
FUZZERS += fuzz_sim_acks
fuzz_sim_acks_SRCS := tests/fuzz/fuzz_sim_acks.c
