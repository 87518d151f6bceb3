# tests/perf/perf.mk - prism-perf end to end (server + clients over loopback).
TESTS += prism_perf
prism_perf_SRCS := tests/perf/test_prism_perf.c tests/runtime/support/child_proc.c
prism_perf_RUNS := prism-perf prismc
