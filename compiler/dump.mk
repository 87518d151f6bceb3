# compiler/dump.mk - `prismc dump` and its renderers (chain-object listing,
# statistics and latency prediction, Graphviz, JSON).  DUMP_SRCS is usable
# by test suites without the CLI.
DUMP_SRCS := compiler/dump_xref.c compiler/dump_text.c compiler/dump_stats.c \
	compiler/dump_dot.c compiler/dump_json.c
PRISMC_SRCS += compiler/cmd_dump.c $(DUMP_SRCS)
