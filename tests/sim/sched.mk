# tests/sim: the scheduler's bookkeeping (parking and waking queues, order
# unchanged by idle queues, request copies for RNR resends).
TESTS += sim_sched
sim_sched_SRCS := tests/sim/test_sched.c tests/sim/sim_harness.c
