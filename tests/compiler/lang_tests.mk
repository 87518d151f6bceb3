# tests/compiler/lang_tests.mk - language features end to end: compiled
# snippets run on the software NIC (tests/compiler/be_sim.c).

TESTS += test_be_lang
test_be_lang_SRCS = tests/compiler/test_be_lang.c tests/compiler/be_sim.c $(BE_TEST_COMMON)
test_be_lang_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_lang: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_be_constructs
test_be_constructs_SRCS = tests/compiler/test_be_constructs.c tests/compiler/be_sim.c $(BE_TEST_COMMON)
test_be_constructs_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_constructs: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_be_semantics
test_be_semantics_SRCS = tests/compiler/test_be_semantics.c tests/compiler/be_sim.c $(BE_TEST_COMMON)
test_be_semantics_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_be_semantics: $(O)/gen/parser.o $(O)/gen/lexer.o
