# bench_vs_memcached: offloaded gets across processes against /usr/bin/memcached
# serving the same keys, 1 and 16 closed-loop connections (make bench).
BENCHES += bench_vs_memcached
bench_vs_memcached_SRCS := tests/bench/bench_vs_memcached.c \
	tests/runtime/support/hashget_chain.c tests/runtime/support/child_proc.c
