# tests/fuzz: libFuzzer targets (built with clang by the top-level Makefile).
FUZZERS += fuzz_wqe_decode
fuzz_wqe_decode_SRCS := tests/fuzz/fuzz_wqe_decode.c
