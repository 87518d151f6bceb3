# tests/compiler/frontend_tests.mk - front-end suites (parser, diagnostics,
# checker, prismc CLI), the front-end fuzz target and the compile-speed
# benchmark.  They link the front end from source (FRONTEND_SRCS) plus
# the generated parser/lexer objects.

FE_TEST_GEN := $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_fe_diag
test_fe_diag_SRCS = tests/compiler/test_fe_diag.c tests/compiler/fe_helpers.c $(FRONTEND_SRCS)
test_fe_diag_LDLIBS = $(FE_TEST_GEN)
$(O)/tests/test_fe_diag: $(FE_TEST_GEN)

FUZZERS += fuzz_frontend
fuzz_frontend_SRCS = tests/fuzz/fuzz_frontend.c $(FRONTEND_SRCS) $(O)/gen/parser.c $(O)/gen/lexer.c

BENCHES += bench_compile
bench_compile_SRCS = tests/bench/bench_compile.c $(FRONTEND_SRCS)
bench_compile_LDLIBS = $(FE_TEST_GEN)
$(O)/bench_compile: $(FE_TEST_GEN)

TESTS += test_fe_parse
test_fe_parse_SRCS = tests/compiler/test_fe_parse.c $(FRONTEND_SRCS)
test_fe_parse_LDLIBS = $(FE_TEST_GEN)
$(O)/tests/test_fe_parse: $(FE_TEST_GEN)

TESTS += test_fe_check
test_fe_check_SRCS = tests/compiler/test_fe_check.c tests/compiler/fe_helpers.c $(FRONTEND_SRCS)
test_fe_check_LDLIBS = $(FE_TEST_GEN)
$(O)/tests/test_fe_check: $(FE_TEST_GEN)

# Runs the prismc binary of this build tree.
TESTS += test_fe_cli
test_fe_cli_SRCS = tests/compiler/test_fe_cli.c
test_fe_cli_RUNS := prismc
$(O)/obj/tests/compiler/test_fe_cli.o: CFLAGS_ALL += -DPRISMC_PATH='"$(O)/prismc"'

TESTS += test_fe_depth
test_fe_depth_SRCS = tests/compiler/test_fe_depth.c tests/compiler/fe_helpers.c $(FRONTEND_SRCS)
test_fe_depth_LDLIBS = $(FE_TEST_GEN)
$(O)/tests/test_fe_depth: $(FE_TEST_GEN)
