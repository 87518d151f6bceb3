# tests/cli/cli.mk - the tools' command lines (tools/cli/cli.h) and the
# server-management subcommands against a running prismd, on the binaries
# of this build tree.
TESTS += cli_tools cli_server
cli_tools_SRCS := tests/cli/test_cli_tools.c tests/cli/run_tool.c
cli_server_SRCS := tests/cli/test_cli_server.c tests/cli/run_tool.c \
	tests/runtime/support/child_proc.c
$(O)/tests/cli_tools $(O)/tests/cli_server: $(O)/prismc $(O)/prismd $(O)/prism-perf
$(call obj,tests/cli/run_tool.c tests/cli/test_cli_server.c): CFLAGS_ALL += -DTOOL_DIR='"$(O)"'
