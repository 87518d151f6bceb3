# Chain-object reader/writer/validator speed vs libyaml's own parse.
BENCHES += bench_chainobj
bench_chainobj_SRCS := tests/bench/bench_chainobj.c
