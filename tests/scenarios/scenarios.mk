# tests/scenarios/scenarios.mk - end-to-end chains on the software NIC.
TESTS += scenario_redn_hash
scenario_redn_hash_SRCS := tests/scenarios/test_redn_hash.c tests/support/redn_hash_chain.c \
	tests/support/host_verbs.c

TESTS += scenario_torn_read
scenario_torn_read_SRCS := tests/scenarios/test_torn_read.c tests/support/host_verbs.c

TESTS += scenario_recycled_loop
scenario_recycled_loop_SRCS := tests/scenarios/test_recycled_loop.c tests/support/host_verbs.c

TESTS += scenario_redn_hash_threads
scenario_redn_hash_threads_SRCS := tests/scenarios/test_redn_hash_threads.c \
	tests/support/redn_hash_chain.c tests/support/host_verbs.c
