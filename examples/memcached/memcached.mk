# examples/memcached/memcached.mk - Debian's memcached with the prism get
# offload, its client library and tools, tests, demo step and benchmark.
#
#   make memcached          fetch Debian's source, patch, configure --enable-prism,
#                           build memcached and memcached-debug (build/memcached/src)
#   make check-memcached    memcached's whole t/*.t suite with the offload on
#
# The client side builds with the rest of the tree: libprism-memcached.a
# (installed with prism-memcached.pc), prism-memccat, prism-memcslap and the
# differential test.
MC_DIR     := examples/memcached
MC_OUT     := $(O)/memcached
MC_BIN     := $(MC_OUT)/src/memcached
MC_LIBS    := -lmemcached -lxxhash
MC_CLIENT  := $(MC_DIR)/client/prism_memcached.c $(MC_DIR)/client/mc_item.c

TOOLS += prism-memccat prism-memcslap prism-mc-difftest
prism-memccat_SRCS  := $(MC_DIR)/client/prism_memccat.c $(MC_CLIENT)
prism-memccat_LDLIBS := $(MC_LIBS)
prism-memcslap_SRCS := $(MC_DIR)/client/prism_memcslap.c $(MC_CLIENT)
prism-memcslap_LDLIBS := $(MC_LIBS)
prism-mc-difftest_SRCS := $(MC_DIR)/tests/difftest.c $(MC_CLIENT)
prism-mc-difftest_LDLIBS := $(MC_LIBS)

MC_LIB_A := $(O)/libprism-memcached.a
all: $(MC_LIB_A)
$(MC_LIB_A): $(call obj,$(MC_CLIENT))
	rm -f $@
	ar rcs $@ $^

.PHONY: memcached check-memcached test-memcached
memcached: all
	@O=$(O) $(MC_DIR)/build.sh $(MC_OUT) >/dev/null && echo "memcached: $(MC_BIN) (and memcached-debug)"

# Part of `make check`: memccapable, a subset of memcached's t/*.t with the
# offload on, the differential test (examples/memcached/tests/run.sh).
test-memcached: memcached
	@O=$(O) $(MC_DIR)/tests/run.sh quick

check-memcached: memcached
	@O=$(O) $(MC_DIR)/tests/run.sh full

DEMO_DEPS += memcached
DEMO_STEPS += $(MC_DIR)/demo.sh

# libprism-memcached: the static library, its header and prism-memcached.pc
# go with `make install`.
.PHONY: install-memcached uninstall-memcached
install: install-memcached
uninstall: uninstall-memcached
install-memcached: $(MC_LIB_A)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	install -m 644 $(MC_DIR)/client/prism_memcached.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(MC_LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(O)/prism-memccat $(O)/prism-memcslap $(DESTDIR)$(BINDIR)/
	sed -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $(MC_DIR)/client/prism-memcached.pc.in \
	    > $(DESTDIR)$(PKGCONFIGDIR)/prism-memcached.pc
uninstall-memcached:
	rm -f $(DESTDIR)$(INCLUDEDIR)/prism_memcached.h $(DESTDIR)$(LIBDIR)/libprism-memcached.a \
	    $(DESTDIR)$(PKGCONFIGDIR)/prism-memcached.pc $(DESTDIR)$(BINDIR)/prism-memccat \
	    $(DESTDIR)$(BINDIR)/prism-memcslap

# `make bench`: offloaded gets against stock /usr/bin/memcached (bench.sh).
.PHONY: bench-memcached
bench: bench-memcached
bench-memcached: memcached
	@O=$(O) $(MC_DIR)/bench.sh
