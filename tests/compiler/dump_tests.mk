# tests/compiler/dump_tests.mk - `prismc dump` renderers (golden output).
TESTS += test_dump
test_dump_SRCS = tests/compiler/test_dump.c tests/chainobj/chain_fixture.c $(DUMP_SRCS)
