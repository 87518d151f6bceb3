# tests/bench: codec benchmarks (make bench).
BENCHES += bench_wqe_decode
bench_wqe_decode_SRCS := tests/bench/bench_wqe_decode.c
