# tests/compiler/run_tests.mk - `prismc run` end to end (the software NIC and
# the reference interpreter, region images with relocated pointers, the
# profile options); it compiles .prism inputs, so it links the front and
# back ends and the generated parser.
TESTS += test_cmd_run
test_cmd_run_SRCS = tests/compiler/test_cmd_run.c tests/compiler/cmd_capture.c compiler/cmd_run.c \
	compiler/run_report.c compiler/chain_source.c compiler/cmd_opts.c compiler/cmd_compile.c \
	tools/cli/cli.c \
	compiler/run_image.c $(INTERP_SRCS) $(FRONTEND_SRCS) $(BACKEND_SRCS)
test_cmd_run_LDLIBS = $(O)/gen/parser.o $(O)/gen/lexer.o
$(O)/tests/test_cmd_run: $(O)/gen/parser.o $(O)/gen/lexer.o
