# tools/perf.mk - prism-perf, the perftest-style measuring tool (installed
# next to prismc; docs/prism-perf.md).
TOOLS += prism-perf
prism-perf_SRCS := tools/perf/main.c tools/perf/programs.c tools/perf/serve.c tools/cli/cli.c \
	tools/perf/drive.c
INSTALL_TOOLS += prism-perf
