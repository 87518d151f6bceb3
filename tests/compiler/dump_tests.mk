# tests/compiler/dump_tests.mk - `prismc dump`: renderers against golden
# output, and the subcommand end to end (it compiles .prism inputs, so it
# links the front and back ends and the generated parser).
TESTS += test_dump
test_dump_SRCS = tests/compiler/test_dump.c tests/chainobj/chain_fixture.c $(DUMP_SRCS)

TESTS += test_cmd_dump
test_cmd_dump_SRCS = tests/compiler/test_cmd_dump.c tests/chainobj/chain_fixture.c \
	compiler/cmd_dump.c compiler/cmd_opts.c compiler/chain_source.c tools/cli/cli.c $(DUMP_SRCS) $(FRONTEND_SRCS) $(BACKEND_SRCS)
test_cmd_dump_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_cmd_dump: $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_chainobj_compiled
test_chainobj_compiled_SRCS = tests/compiler/test_chainobj_compiled.c $(DUMP_SRCS) \
	$(FRONTEND_SRCS) $(BACKEND_SRCS)
test_chainobj_compiled_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_chainobj_compiled: $(O)/gen/parser.o $(O)/gen/lexer.o
