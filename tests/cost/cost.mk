# tests/cost/cost.mk - the NIC cost profiles and cost formula.
TESTS += cost_profile
cost_profile_SRCS := tests/cost/test_cost_profile.c

FUZZERS += fuzz_cost_profile
fuzz_cost_profile_SRCS := tests/cost/fuzz_cost_profile.c
