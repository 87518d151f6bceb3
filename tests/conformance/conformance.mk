# tests/conformance: one test per rule of docs/nic-model.md, named after it.
CONF_HARNESS := tests/sim/sim_harness.c

TESTS += conf_verbs
conf_verbs_SRCS := tests/conformance/conf_verbs.c $(CONF_HARNESS)

TESTS += conf_atomics
conf_atomics_SRCS := tests/conformance/conf_atomics.c $(CONF_HARNESS)

TESTS += conf_ordering
conf_ordering_SRCS := tests/conformance/conf_ordering.c $(CONF_HARNESS)

TESTS += conf_hazard
conf_hazard_SRCS := tests/conformance/conf_hazard.c $(CONF_HARNESS)

TESTS += conf_errors
conf_errors_SRCS := tests/conformance/conf_errors.c $(CONF_HARNESS)

TESTS += conf_engine
conf_engine_SRCS := tests/conformance/conf_engine.c $(CONF_HARNESS)
