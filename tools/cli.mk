# tools/cli.mk - the command-line conventions shared by prismc, prismd and
# prism-perf (tools/cli/cli.h).  Each tool lists tools/cli/cli.c in its own
# sources; the version it prints is the Makefile's VERSION.
$(call obj,tools/cli/cli.c): CFLAGS_ALL += -DPRISM_VERSION=\"$(VERSION)\"
