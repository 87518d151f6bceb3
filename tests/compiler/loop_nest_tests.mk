# tests/compiler/loop_nest_tests.mk - unrolled loops inside `parallel` lanes
# and `if` arms: golden WQE sequences, rejections, runs on the software NIC.

TESTS += test_loop_nest
test_loop_nest_SRCS = tests/compiler/test_loop_nest.c tests/compiler/be_sim.c $(BE_TEST_COMMON)
test_loop_nest_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_loop_nest: $(O)/gen/parser.o $(O)/gen/lexer.o

# loops whose start depends on an earlier loop, against the reference
# interpreter (the differential test's harness)
TESTS += test_loop_entry
test_loop_entry_SRCS = tests/compiler/test_loop_entry.c $(DT_SRCS)
test_loop_entry_LDLIBS = $(DT_GEN_OBJS)
$(O)/tests/test_loop_entry: $(DT_GEN_OBJS)

# cas_gt / cas_lt under a disjunction, against the reference interpreter
TESTS += test_cas_order_disj
test_cas_order_disj_SRCS = tests/compiler/test_cas_order_disj.c $(DT_SRCS)
test_cas_order_disj_LDLIBS = $(DT_GEN_OBJS)
$(O)/tests/test_cas_order_disj: $(DT_GEN_OBJS)
