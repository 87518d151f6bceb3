# tests/rules: NIC-model rules written once against the backend operations
# table and run on every backend (the sim always; hardware when present,
# skipped with the reason otherwise).  The bodies are runtime/core/probe.c.
TESTS += rules
rules_SRCS := tests/rules/test_rules.c
