# tests/cli/cli.mk - the tools' command lines (tools/cli/cli.h) and the
# server-management subcommands against a running prismd, on the binaries
# of this build tree.
TESTS += cli_tools cli_server
cli_tools_SRCS := tests/cli/test_cli_tools.c tests/cli/run_tool.c
cli_server_SRCS := tests/cli/test_cli_server.c tests/cli/run_tool.c \
	tests/runtime/support/child_proc.c
cli_tools_RUNS := prismc prismd prism-perf
cli_server_RUNS := prismc prismd
$(call obj,tests/cli/run_tool.c tests/cli/test_cli_server.c): CFLAGS_ALL += -DTOOL_DIR='"$(O)"'
