# tests/compiler/loop_nest_tests.mk - unrolled loops inside `parallel` lanes
# and `if` arms: golden WQE sequences, rejections, runs on the software NIC.

TESTS += test_loop_nest
test_loop_nest_SRCS = tests/compiler/test_loop_nest.c tests/compiler/be_sim.c $(BE_TEST_COMMON)
test_loop_nest_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_loop_nest: $(O)/gen/parser.o $(O)/gen/lexer.o
