# prism top-level Makefile (plain GNU make).
#
# Owns: flags, the output tree, the library/program/test/fuzz rules and the
# user-facing targets.  Each part of the tree describes its own sources in a
# *.mk fragment (runtime/*/*.mk, compiler/*.mk, tests/*/*.mk, ...), which appends to the variables below; this file never lists sources.
#
#   make            library (static + shared), prismc, tools
#   make test       deps, build, every cmocka suite, the patched memcached's
#                   quick tests, then the same suites under ASan+UBSan,
#                   bounded fuzz runs, install and format checks
#   make demo       the main job on the software NIC (DEVICE=mlx5_0: the hash get
#                   through that RDMA device)
#   make demo-mlx5  the hash get through the mlx5 backend over the PRM emulator
#   make memcached  Debian's memcached with the get offload (examples/memcached)
#   make check-memcached
#                   memcached's whole t/*.t with the offload on
#   make bench      benchmarks (print figures)
#   make fuzz       longer fuzz runs
#   make fuzz-diff  a long differential test: 100,000 random programs on the
#                   software NIC against the reference interpreter
#   make deps       install missing Debian packages
#   make check      build, then run every cmocka suite once (no sanitizers)
#   make check-transports  the suites whose clients cross processes, again
#                   with PRISM_TRANSPORT=tcp and =shm (check runs them on
#                   the automatic choice)
#   make install    PREFIX=/usr/local DESTDIR=: library, headers, prism.pc,
#                   prismc, prismd, prism-perf, prism-fw, man pages, bash
#                   completion, chains, cost profiles, docs
#   make uninstall  remove what `make install` installed (same variables)
#   make install-check  install into a scratch DESTDIR, check every part
#   make man        the man pages, from docs/ (pandoc)
#   make check-format   every tracked C file follows .clang-format
#   make check-runs every program of the tree that a suite's sources run
#                   is in its <name>_RUNS
#   make check-prm  the mlx5 backend's PRM offsets against Debian's DPDK
#                   mlx5_prm.h (downloads the dpdk source package once)
#   make format     reformat every tracked C file
#   make clean      remove build/
#   make help       this list
#
# Module variables:
#   LIB_SRCS      sources of libprism (.c)
#   PRISMC_SRCS   sources of prismc (.c; generated sources via PRISMC_GEN)
#   TOOLS         extra programs: name, with <name>_SRCS
#   INSTALL_TOOLS those of TOOLS that `make install` puts in BINDIR
#   TESTS         cmocka suites: name, with <name>_SRCS (linked with libprism.a)
#   FUZZERS       libFuzzer targets: name, with <name>_SRCS
#   BENCHES       benchmark programs: name, with <name>_SRCS
#   <name>_RUNS   what a test suite or benchmark runs at run time, by its name
#                 in the output tree (prismc, prismd, libprism-mlx5emu.so, ...):
#                 built before it, so that `make [SAN=1] $(O)/tests/<name>`
#                 alone gives a suite that runs (make check-runs checks
#                 that every program a suite's sources name is listed)
#   DEMO_STEPS    programs/scripts (no arguments) run in order by `make demo`,
#                 with O=<build dir> in the environment
#   DEMO_DEPS     targets `make demo` builds before running them

.DEFAULT_GOAL := all

VERSION      := 0.1.0
SOVERSION    := 0
PREFIX       ?= /usr/local
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
BINDIR       ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR      ?= $(PREFIX)/share/prism
MANDIR       ?= $(PREFIX)/share/man
DOCDIR       ?= $(PREFIX)/share/doc/prism
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions

SAN ?= 0
ifeq ($(SAN),1)
O ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
O ?= build
SANFLAGS :=
endif

CC      ?= cc
CLANG   ?= clang
FLEX    ?= flex
BISON   ?= bison
CFLAGS  ?= -O2 -g
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wno-unused-parameter
# jansson: the one JSON library (writers and the tests' reader)
JSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CPPFLAGS_ALL := -Iruntime/include -Iruntime -I. -I$(O)/gen -D_GNU_SOURCE $(JSON_CFLAGS)
CFLAGS_ALL := -std=gnu11 $(WARNINGS) -fvisibility=hidden -fPIC $(CFLAGS) $(SANFLAGS) $(CPPFLAGS_ALL)
LDFLAGS_ALL := $(LDFLAGS) $(SANFLAGS)
# LIB_LDLIBS: what libprism itself links (modules add to it)
LDLIBS_ALL = -lyaml $(JSON_LIBS) -lpthread -lm $(LIB_LDLIBS) $(LDLIBS)

LIB_LDLIBS  :=

# Object of each source (usable in the fragments' rules: defined before them).
obj = $(patsubst %.c,$(O)/obj/%.o,$(1))

LIB_SRCS    :=
PRISMC_SRCS :=
PRISMC_GEN  :=
TOOLS       :=
INSTALL_TOOLS :=
TESTS       :=
FUZZERS     :=
BENCHES     :=
DEMO_STEPS  :=
DEMO_DEPS   :=

include $(sort $(wildcard runtime/*/*.mk compiler/*.mk compiler/*/*.mk lib/*/*.mk \
	tools/*.mk tests/*.mk tests/*/*.mk examples/*/*.mk))


LIB_OBJS := $(call obj,$(LIB_SRCS))
LIB_A    := $(O)/libprism.a
LIB_SO   := $(O)/libprism.so.$(VERSION)
PRISMC   := $(O)/prismc

.PHONY: all lib test check demo bench fuzz fuzz-smoke deps install install-check uninstall \
	clean format check-format check-runs check-transports help man

all: lib $(if $(PRISMC_SRCS),$(PRISMC)) $(addprefix $(O)/,$(TOOLS))

lib: $(LIB_A) $(LIB_SO)

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJS) runtime/libprism.map
	$(CC) -shared -Wl,-soname,libprism.so.$(SOVERSION) \
		-Wl,--version-script=runtime/libprism.map -o $@ $(LIB_OBJS) $(LDFLAGS_ALL) $(LDLIBS_ALL)
	ln -sf libprism.so.$(VERSION) $(O)/libprism.so.$(SOVERSION)
	ln -sf libprism.so.$(SOVERSION) $(O)/libprism.so

# Generated sources (bison/flex output) live in $(O)/gen; their objects
# are built with GEN_CFLAGS, which modules may relax for generated code.
GEN_CFLAGS ?= $(CFLAGS_ALL)
$(O)/gen/%.o: $(O)/gen/%.c
	$(CC) $(GEN_CFLAGS) -MMD -MP -c $< -o $@

# prismc: static link against the library so it runs from the build tree.
PRISMC_OBJS := $(call obj,$(PRISMC_SRCS)) $(patsubst %.c,%.o,$(PRISMC_GEN))
$(PRISMC): $(PRISMC_OBJS) $(LIB_A)
	$(CC) -o $@ $(PRISMC_OBJS) $(LIB_A) $(LDFLAGS_ALL) $(LDLIBS_ALL)

# Generic program rule: name with name_SRCS, linked with libprism.a.
define program_rule
$(O)/$(1): $$(call obj,$$($(1)_SRCS)) $$(LIB_A) | $$(addprefix $$(O)/,$$($(1)_RUNS))
	@mkdir -p $$(dir $$@)
	$$(CC) -o $$@ $$(call obj,$$($(1)_SRCS)) $$(LIB_A) $$(LDFLAGS_ALL) $$($(1)_LDLIBS) $$(LDLIBS_ALL)
endef
$(foreach p,$(TOOLS) $(BENCHES),$(eval $(call program_rule,$(p))))

define test_rule
$(O)/tests/$(1): $$(call obj,$$($(1)_SRCS)) $$(LIB_A) | $$(addprefix $$(O)/,$$($(1)_RUNS))
	@mkdir -p $$(dir $$@)
	$$(CC) -o $$@ $$(call obj,$$($(1)_SRCS)) $$(LIB_A) $$(LDFLAGS_ALL) -lcmocka $$($(1)_LDLIBS) $$(LDLIBS_ALL)
endef
$(foreach t,$(TESTS),$(eval $(call test_rule,$(t))))

# libFuzzer targets are always built with clang, ASan and UBSan, in their
# own tree.  The library is compiled once for all of them (instrumented for
# coverage, without libFuzzer's main) into libprism-fuzz.a; each target links
# its own sources against it.
FUZZ_O := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) $(CPPFLAGS_ALL)
FUZZ_LIB_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(CPPFLAGS_ALL)
FUZZ_LIB := $(FUZZ_O)/libprism-fuzz.a
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_O)/obj/%.o,$(LIB_SRCS))

$(FUZZ_O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_LIB_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

define fuzz_rule
$(FUZZ_O)/$(1): $$($(1)_SRCS) $$(FUZZ_LIB)
	@mkdir -p $$(dir $$@)
	$$(CLANG) $$(FUZZ_CFLAGS) -o $$@ $$($(1)_SRCS) $$(FUZZ_LIB) $$($(1)_LDLIBS) -lyaml $(JSON_LIBS) -lpthread -lm $$(LIB_LDLIBS)
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_rule,$(f))))

FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SECONDS    ?= 300

TEST_BINS := $(addprefix $(O)/tests/,$(TESTS))

# Run every suite of this build; tools/run-tests.sh prints cmocka's
# summaries and a final tally, and fails if any suite failed.  The
# benchmarks are built too (not run), so that they cannot rot unnoticed.
check: all $(TEST_BINS) $(addprefix $(O)/,$(BENCHES))
	@tools/run-tests.sh "$(O)" $(TEST_BINS)

deps:
	@tools/deps.sh install

test:
	@tools/deps.sh ensure
	@rm -f build/test-tally
	@$(MAKE) --no-print-directory check
	@$(MAKE) --no-print-directory check-transports
	@$(MAKE) --no-print-directory test-memcached
	@DIFFTEST_PROGRAMS=500 $(MAKE) --no-print-directory SAN=1 check
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory install-check
	@$(MAKE) --no-print-directory check-format
	@$(MAKE) --no-print-directory check-runs
	@tools/run-tests.sh --summary

# make install into a temporary DESTDIR, then build and run a program
# against it through prism.pc.
install-check: all
	@MAKE="$(MAKE)" tests/install-check.sh

fuzz-smoke: $(addprefix $(FUZZ_O)/,$(FUZZERS))
	@for f in $(FUZZERS); do \
		echo "fuzz-smoke: $$f ($(FUZZ_SMOKE_RUNS) runs)"; \
		mkdir -p $(FUZZ_O)/corpus-$$f; \
		$(FUZZ_O)/$$f -runs=$(FUZZ_SMOKE_RUNS) -seed=1 -max_len=4096 \
			$(FUZZ_O)/corpus-$$f $$(test -d tests/fuzz/seeds/$$f && echo tests/fuzz/seeds/$$f) \
			> $(FUZZ_O)/$$f.log 2>&1 || { tail -40 $(FUZZ_O)/$$f.log; exit 1; }; \
		tail -1 $(FUZZ_O)/$$f.log; \
	done

fuzz: $(addprefix $(FUZZ_O)/,$(FUZZERS))
	@for f in $(FUZZERS); do \
		mkdir -p $(FUZZ_O)/corpus-$$f; \
		$(FUZZ_O)/$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(FUZZ_O)/corpus-$$f \
			$$(test -d tests/fuzz/seeds/$$f && echo tests/fuzz/seeds/$$f) || exit 1; \
	done

bench: all $(addprefix $(O)/,$(BENCHES))
	@for b in $(BENCHES); do echo "== $$b"; $(O)/$$b || exit 1; done

# DEMO_STEPS are programs or scripts without arguments (the list is split on
# spaces); they find the build tree in $$O.  DEMO_DEPS are the targets they need.
demo:
	@tools/deps.sh ensure
	@$(MAKE) --no-print-directory all $(DEMO_DEPS)
	@$(foreach s,$(DEMO_STEPS),O=$(O) $(s) || exit 1;)

# The commands a user runs; each has a man page (tools/man.mk) and the same
# bash completion file (tools/completion/prism.bash, read by bash-completion
# under each command's name).
INSTALL_BINS := $(if $(PRISMC_SRCS),prismc) $(INSTALL_TOOLS) prism-fw
INSTALL_DOCS := README.md LICENSE $(wildcard docs/*.md)

install: all man
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/prism $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/chains \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 644 profiles/*.yaml $(DESTDIR)$(DATADIR)/profiles/
	install -m 644 lib/chains/*.prism $(DESTDIR)$(DATADIR)/chains/
	install -m 755 firmware-config/prism-fw $(DESTDIR)$(BINDIR)/
	install -m 644 runtime/include/prism/*.h $(DESTDIR)$(INCLUDEDIR)/prism/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libprism.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libprism.so.$(SOVERSION)
	ln -sf libprism.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libprism.so
	$(if $(PRISMC_SRCS),install -m 755 $(PRISMC) $(DESTDIR)$(BINDIR)/)
	$(foreach t,$(INSTALL_TOOLS),install -m 755 $(O)/$(t) $(DESTDIR)$(BINDIR)/;)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    runtime/prism.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/prism.pc
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	install -m 644 tools/completion/prism.bash $(DESTDIR)$(BASHCOMPDIR)/prismc
	$(foreach t,$(filter-out prismc,$(INSTALL_BINS)),ln -sf prismc $(DESTDIR)$(BASHCOMPDIR)/$(t);)
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/prism $(DESTDIR)$(PKGCONFIGDIR)/prism.pc $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(LIBDIR)/libprism.a $(DESTDIR)$(LIBDIR)/libprism.so \
		$(DESTDIR)$(LIBDIR)/libprism.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libprism.so.$(VERSION)
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INSTALL_BINS)) \
		$(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(INSTALL_BINS)) \
		$(MAN1:%=$(DESTDIR)$(MANDIR)/man1/%.1) $(MAN8:%=$(DESTDIR)$(MANDIR)/man8/%.8)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# Every tracked C source and header follows .clang-format (part of `make test`).
check-format:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h') && \
		echo "check-format: OK ($$(git ls-files '*.c' '*.h' | wc -l) files follow .clang-format)"

# The suites whose clients reach a server over the network transport, with
# each carrier forced (a client asking for a ring fails where auto would
# fall back to TCP, so the shm pass catches what auto hides).
TRANSPORT_SUITES := runtime_tcp runtime_shards daemon security avail_net avail_post
check-transports: $(addprefix $(O)/tests/,$(TRANSPORT_SUITES))
	@for t in tcp shm; do \
		PRISM_TRANSPORT=$$t tools/run-tests.sh "$(O)/$$t" $^ || exit 1; \
	done

# Every program of the output tree that a suite's or benchmark's sources
# name as a path is in its <name>_RUNS (part of `make test`).
check-runs:
	@{ $(foreach t,$(TESTS) $(BENCHES),echo '$(t)|$($(t)_SRCS)|$($(t)_RUNS)';) } | \
		tools/check-runs.sh $(if $(PRISMC_SRCS),prismc) $(TOOLS) $(notdir $(MLX5EMU_SO))

clean:
	rm -rf build

# The targets, from the comment at the top of this file.
help:
	@sed -n -e 's/^#   make /make /p' -e 's/^#                   /                /p' $(firstword $(MAKEFILE_LIST))

-include $(shell find $(O)/obj $(FUZZ_O)/obj -name '*.d' 2>/dev/null)
