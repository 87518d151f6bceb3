
# tests/sim: how a step completes ordering verbs (with and without an
# outstanding entry, on error) and charges an ENABLE its executor refuses.
TESTS += sim_step
sim_step_SRCS := tests/sim/test_step.c tests/sim/sim_harness.c
