# tests/conformance: one test per rule of docs/nic-model.md, named after it.
CONF_HARNESS := tests/sim/sim_harness.c

TESTS += conf_verbs
conf_verbs_SRCS := tests/conformance/conf_verbs.c $(CONF_HARNESS)
