# runtime/sim/extras.mk - the software NIC's cost model and trace writer.
# (The engine's own sources are listed in runtime/sim/sim.mk.)
LIB_SRCS += runtime/sim/cost_profile.c runtime/sim/cost_builtin.c runtime/sim/cost_model.c \
	runtime/sim/trace_chrome.c runtime/sim/trace_observer.c

# cost_builtin.c embeds the YAML profiles with .incbin: rebuild it when they change.
# Fragments are read before the Makefile's `all:`, so this rule would otherwise become
# the default goal of a plain `make`; keep `all` the default (GNU make .DEFAULT_GOAL).
.DEFAULT_GOAL := all
SIM_PROFILE_FILES := $(wildcard profiles/*.yaml)
$(O)/obj/runtime/sim/cost_builtin.o: $(SIM_PROFILE_FILES)
