# Fuzz target over the chain-object reader (seeds: tests/fuzz/seeds/fuzz_chainobj/).
FUZZERS += fuzz_chainobj
fuzz_chainobj_SRCS := tests/fuzz/fuzz_chainobj.c
