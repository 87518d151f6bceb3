# tests/difftest/difftest.mk - differential testing: random programs on the
# software NIC (both firmware profiles) against the reference interpreter.
# `make test` runs a bounded campaign and the kept regression cases
# (test_difftest); `make fuzz-diff` runs a long campaign with reduction.

DT_SRCS := tests/difftest/dt_gen.c tests/difftest/dt_run.c tests/difftest/dt_campaign.c \
	compiler/run_image.c $(INTERP_SRCS) $(FRONTEND_SRCS) $(BACKEND_SRCS)
DT_GEN_OBJS := $(O)/gen/parser.o $(O)/gen/lexer.o

TESTS += test_difftest
test_difftest_SRCS = tests/difftest/test_difftest.c $(DT_SRCS)
test_difftest_LDLIBS = $(DT_GEN_OBJS)
$(O)/tests/test_difftest: $(DT_GEN_OBJS)
test_difftest_RUNS := difftest

TOOLS += difftest
difftest_SRCS = tests/difftest/difftest.c $(DT_SRCS)
difftest_LDLIBS = $(DT_GEN_OBJS)
$(O)/difftest: $(DT_GEN_OBJS)

FUZZ_DIFF_PROGRAMS ?= 100000
FUZZ_DIFF_SEED     ?= 1

.PHONY: fuzz-diff
fuzz-diff: $(O)/difftest
	@mkdir -p $(O)/difftest-cases
	$(O)/difftest --programs $(FUZZ_DIFF_PROGRAMS) --seed $(FUZZ_DIFF_SEED) --reduce \
		--save $(O)/difftest-cases

# the reference interpreter and the image specifications under libFuzzer
FUZZERS += fuzz_interp
fuzz_interp_SRCS = tests/fuzz/fuzz_interp.c compiler/interp.c compiler/run_image.c \
	$(FRONTEND_SRCS) $(O)/gen/parser.c $(O)/gen/lexer.c
