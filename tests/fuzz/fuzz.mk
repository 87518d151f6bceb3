# tests/fuzz: libFuzzer targets (built with clang by the top-level Makefile).
FUZZERS += fuzz_wqe_decode
fuzz_wqe_decode_SRCS := tests/fuzz/fuzz_wqe_decode.c
# The memcached offload client's item parser (bytes a NIC returned).
FUZZERS += fuzz_mc_item
fuzz_mc_item_SRCS := tests/fuzz/fuzz_mc_item.c examples/memcached/client/mc_item.c
# What a server's post socket answers (the listing `prismc show` reads), the
# hello, and the size syntax of .prism and prismd's configuration.
FUZZERS += fuzz_setup_msgs
fuzz_setup_msgs_SRCS := tests/fuzz/fuzz_setup_msgs.c
