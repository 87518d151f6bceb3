# tests/compiler/loop_lanes_tests.mk - unrolled loops inside `parallel` lanes:
# golden WQE sequences, rejections, and runs on the software NIC.

TESTS += test_loop_lanes
test_loop_lanes_SRCS = tests/compiler/test_loop_lanes.c tests/compiler/be_sim.c $(BE_TEST_COMMON)
test_loop_lanes_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_loop_lanes: $(O)/gen/parser.o $(O)/gen/lexer.o
