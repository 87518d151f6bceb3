# tests/compiler/backend_tests.mk - back-end suites: golden WQE sequences,
# pass unit tests, verifier rejections.  They link the front end and the
# back end from source.

BE_TEST_COMMON = tests/compiler/be_helpers.c $(FRONTEND_SRCS) $(BACKEND_SRCS)

TESTS += test_be_golden
test_be_golden_SRCS = tests/compiler/test_be_golden.c $(BE_TEST_COMMON)
test_be_golden_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_golden: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_be_verify
test_be_verify_SRCS = tests/compiler/test_be_verify.c $(BE_TEST_COMMON)
test_be_verify_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_verify: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_be_passes
test_be_passes_SRCS = tests/compiler/test_be_passes.c $(BE_TEST_COMMON)
test_be_passes_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_passes: $(O)/gen/parser.o $(O)/gen/lexer.o

BENCHES += bench_backend
bench_backend_SRCS = tests/bench/bench_backend.c $(FRONTEND_SRCS) $(BACKEND_SRCS)
bench_backend_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/bench_backend: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_be_cond
test_be_cond_SRCS = tests/compiler/test_be_cond.c $(BE_TEST_COMMON)
test_be_cond_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_cond: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_be_exec
test_be_exec_SRCS = tests/compiler/test_be_exec.c $(BE_TEST_COMMON)
test_be_exec_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_exec: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_recycle
test_recycle_SRCS = tests/compiler/test_recycle.c $(BE_TEST_COMMON)
test_recycle_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_recycle: $(O)/gen/parser.o $(O)/gen/lexer.o

# the whole compile (front end to verified object) on arbitrary bytes; the
# front end's seeds (tests/fuzz/seeds/fuzz_frontend) are its corpus too
FUZZERS += fuzz_compile
fuzz_compile_SRCS = tests/fuzz/fuzz_compile.c $(FRONTEND_SRCS) $(BACKEND_SRCS) \
	$(O)/gen/parser.c $(O)/gen/lexer.c
